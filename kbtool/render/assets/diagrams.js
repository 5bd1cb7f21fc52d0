// Draws the page's Mermaid diagrams in the browser, from the library shipped with the site.
// Each diagram's source stays in the page: it is what shows without JavaScript, without the
// library, and, with Mermaid's message beside it, when a diagram cannot be parsed.
(function () {
  "use strict";
  var script = document.currentScript;
  var libraryUrl = new URL("vendor/mermaid.min.js", script ? script.src : location.href).href;
  var os = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var counter = 0;
  var drawnDark = false;  // the theme Mermaid was last configured with
  var MAX_TEXT = 50000;  // characters; Mermaid would draw a "too large" box instead of failing

  function sources() {
    return Array.prototype.slice.call(document.querySelectorAll("pre.mermaid-source"));
  }

  function load(done) {
    if (window.mermaid) return done();
    var tag = document.createElement("script");
    tag.src = libraryUrl;
    tag.onload = done;
    tag.onerror = function () {
      document.documentElement.setAttribute("data-diagrams", "unavailable");
    };
    document.head.appendChild(tag);
  }

  // The reader's theme (theme.js); the system's where that script did not run.
  function dark() {
    return window.kbtoolTheme ? window.kbtoolTheme.dark() : !!(os && os.matches);
  }

  function configure() {
    drawnDark = dark();
    window.mermaid.initialize({
      startOnLoad: false,
      // Strict: labels are sanitised, click callbacks and javascript: links are ignored.
      securityLevel: "strict",
      theme: drawnDark ? "dark" : "default",
      // Bounds, so that a huge diagram fails quickly with a message instead of hanging.
      maxTextSize: MAX_TEXT,
      maxEdges: 500,
      suppressErrorRendering: true,
      fontFamily: getComputedStyle(document.body).fontFamily
    });
  }

  // Mermaid's strict level sanitises labels but keeps <img src> and CSS url(): either could
  // fetch from another site. The drawing is parsed inert (a template loads nothing), and
  // every reference that is not to the drawing itself is dropped before it joins the page.
  var LOCAL = /^(#|data:image\/)/i;
  var LINK = /^(https?:|mailto:|#)/i;
  var CSS_URL = /url\(\s*(['"]?)(?!#)[^)]*\)/gi;

  function inert(svg) {
    var template = document.createElement("template");
    template.innerHTML = svg;
    var root = template.content;
    root.querySelectorAll("script, iframe, object, embed, link, meta").forEach(function (el) {
      el.remove();
    });
    root.querySelectorAll("*").forEach(function (el) {
      Array.prototype.slice.call(el.attributes).forEach(function (attr) {
        var name = attr.name.toLowerCase();
        var value = attr.value.trim();
        var isLink = el.localName === "a" && (name === "href" || name === "xlink:href");
        if (name.indexOf("on") === 0) el.removeAttribute(attr.name);
        else if (isLink && !LINK.test(value)) el.removeAttribute(attr.name);
        else if (!isLink && /^(src|srcset|href|xlink:href|action|formaction|poster)$/.test(name) && !LOCAL.test(value)) {
          el.removeAttribute(attr.name);
        } else if (name === "style" && CSS_URL.test(value)) {
          el.setAttribute("style", value.replace(CSS_URL, "none"));
        }
        CSS_URL.lastIndex = 0;
      });
      if (el.localName === "style") el.textContent = el.textContent.replace(CSS_URL, "none");
    });
    return root;
  }

  function showError(pre, error) {
    var figure = pre.parentNode;
    var old = figure.querySelector(".diagram-error");
    if (old) old.remove();
    var note = document.createElement("p");
    note.className = "diagram-error";
    note.textContent = String((error && (error.message || error.str)) || error);
    figure.appendChild(note);
    pre.hidden = false;
  }

  async function draw(pre) {
    var figure = pre.parentNode;
    var id = "diagram-" + ++counter;
    try {
      var text = pre.textContent;
      if (text.length > MAX_TEXT) {
        throw new Error("diagram too large to draw: " + text.length + " characters (at most " + MAX_TEXT + ")");
      }
      var result = await window.mermaid.render(id, text);
      var drawing = figure.querySelector(".diagram-drawing") || document.createElement("div");
      drawing.className = "diagram-drawing";
      drawing.replaceChildren(inert(result.svg));
      var svg = drawing.querySelector("svg");
      // On a phone a wide diagram keeps a readable size and scrolls sideways in its figure.
      if (svg && svg.style.maxWidth) svg.style.minWidth = "min(" + svg.style.maxWidth + ", 40rem)";
      figure.insertBefore(drawing, pre);
      var old = figure.querySelector(".diagram-error");
      if (old) old.remove();
      pre.hidden = true;
      figure.setAttribute("data-drawn", "true");
      figure.setAttribute("data-drawn-theme", drawnDark ? "dark" : "light");
    } catch (error) {
      var stray = document.getElementById(id) || document.getElementById("d" + id);
      if (stray && !figure.contains(stray)) stray.remove();
      figure.setAttribute("data-drawn", "error");
      showError(pre, error);
    }
  }

  // Diagrams are drawn one at a time, as they come near the screen: Mermaid (several MB) is
  // loaded only when the first one does, and a page with many stays responsive.
  var queue = Promise.resolve();
  var ready = null;

  function library() {
    if (!ready) {
      ready = new Promise(function (resolve, reject) {
        load(function () { configure(); resolve(); });
        setTimeout(function () {
          if (!window.mermaid) reject(new Error("Mermaid did not load"));
        }, 30000);
      });
    }
    return ready;
  }

  function finished() {
    var pending = sources().filter(function (pre) { return !pre.parentNode.hasAttribute("data-drawn"); });
    if (!pending.length) document.documentElement.setAttribute("data-diagrams", "done");
  }

  function schedule(pre) {
    queue = queue
      .then(library)
      .then(function () { return draw(pre); })
      .then(function () { return new Promise(function (resolve) { setTimeout(resolve, 0); }); })
      .then(finished, function () { /* no library: the sources stay as they are */ });
  }

  function start() {
    var pres = sources();
    if (!pres.length) return;
    if (!("IntersectionObserver" in window)) {
      pres.forEach(schedule);
    } else {
      var observer = new IntersectionObserver(function (entries) {
        entries.forEach(function (entry) {
          if (!entry.isIntersecting) return;
          observer.unobserve(entry.target);
          schedule(entry.target);
        });
      }, { rootMargin: "400px 0px" });
      pres.forEach(function (pre) { observer.observe(pre); });
    }
    // A diagram's colours are baked into its SVG: a change of theme draws it again.
    function redraw() {
      if (!window.mermaid) return;
      queue = queue.then(configure);  // after the drawing under way, before the ones again
      sources().forEach(function (pre) {
        if (pre.parentNode.getAttribute("data-drawn") === "true") schedule(pre);
      });
    }
    if (window.kbtoolTheme) window.addEventListener("kbtool:theme", redraw);
    else if (os && os.addEventListener) os.addEventListener("change", redraw);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
