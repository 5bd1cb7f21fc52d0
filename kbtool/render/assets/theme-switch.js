/* The theme switch in the header: three buttons (light, dark, system), one pressed. The
 * choice itself is kept and applied by theme.js; this only wires the buttons to it. */
(function () {
  "use strict";
  var theme = window.kbtoolTheme;
  var group = document.querySelector(".theme-switch");
  if (!theme || !group) return;
  var buttons = Array.prototype.slice.call(group.querySelectorAll("button[data-choice]"));

  function mark() {
    var current = theme.choice();
    buttons.forEach(function (button) {
      button.setAttribute("aria-pressed", String(button.getAttribute("data-choice") === current));
    });
  }

  buttons.forEach(function (button) {
    button.addEventListener("click", function () { theme.set(button.getAttribute("data-choice")); });
  });
  window.addEventListener("kbtool:theme", mark);
  mark();
})();
