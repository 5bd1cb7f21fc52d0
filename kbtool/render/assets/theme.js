/* The reader's theme: light, dark, or the system's (no data-theme on <html>).
 * Loaded synchronously in <head>, before the stylesheet is applied to anything, so that a
 * page never shows the other theme for a frame; the switch itself is theme-switch.js.
 * Scripts that draw in colour (diagrams, the graph) ask window.kbtoolTheme.dark() and listen
 * for the "kbtool:theme" event, which fires on a choice here or in another tab, and when the
 * system changes while the choice is "system". */
(function () {
  "use strict";
  var KEY = "kbtool-theme";
  var root = document.documentElement;
  var os = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;

  // localStorage can be missing or throw (file:// in some browsers, private modes): then the
  // choice is not remembered and the system's theme applies.
  function stored() {
    try {
      var value = window.localStorage.getItem(KEY);
      return value === "light" || value === "dark" ? value : "system";
    } catch (error) {
      return "system";
    }
  }

  function apply(choice) {
    if (choice === "light" || choice === "dark") root.setAttribute("data-theme", choice);
    else root.removeAttribute("data-theme");
  }

  function choice() {
    return root.getAttribute("data-theme") || "system";
  }

  function dark() {
    var chosen = root.getAttribute("data-theme");
    return chosen ? chosen === "dark" : !!(os && os.matches);
  }

  function announce() {
    var detail = { choice: choice(), dark: dark() };
    window.dispatchEvent(new CustomEvent("kbtool:theme", { detail: detail }));
  }

  function set(value) {
    try {
      if (value === "light" || value === "dark") window.localStorage.setItem(KEY, value);
      else window.localStorage.removeItem(KEY);
    } catch (error) { /* not remembered; still applied to this page */ }
    apply(value);
    announce();
  }

  apply(stored());
  root.setAttribute("data-theme-js", "");  // the switch shows only where it can work
  if (os && os.addEventListener) {
    os.addEventListener("change", function () { if (choice() === "system") announce(); });
  }
  window.addEventListener("storage", function (event) {
    if (event.key === KEY || event.key === null) { apply(stored()); announce(); }
  });
  window.kbtoolTheme = { choice: choice, dark: dark, set: set };
})();
