// Draws the page's Mermaid diagrams in the browser, from the library shipped with the site.
// Each diagram's source stays in the page: it is what shows without JavaScript, without the
// library, and, with Mermaid's message beside it, when a diagram cannot be parsed.
(function () {
  "use strict";
  var script = document.currentScript;
  var library = new URL("vendor/mermaid.min.js", script ? script.src : location.href).href;
  var dark = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  var counter = 0;

  function sources() {
    return Array.prototype.slice.call(document.querySelectorAll("pre.mermaid-source"));
  }

  function load(done) {
    if (window.mermaid) return done();
    var tag = document.createElement("script");
    tag.src = library;
    tag.onload = done;
    tag.onerror = function () {
      document.documentElement.setAttribute("data-diagrams", "unavailable");
    };
    document.head.appendChild(tag);
  }

  function configure() {
    window.mermaid.initialize({
      startOnLoad: false,
      // Strict: labels are sanitised, click callbacks and javascript: links are ignored.
      securityLevel: "strict",
      theme: dark && dark.matches ? "dark" : "default",
      // Bounds, so that a huge diagram fails quickly with a message instead of hanging.
      maxTextSize: 50000,
      maxEdges: 500,
      suppressErrorRendering: true,
      fontFamily: getComputedStyle(document.body).fontFamily
    });
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
      var result = await window.mermaid.render(id, pre.textContent);
      var drawing = figure.querySelector(".diagram-drawing") || document.createElement("div");
      drawing.className = "diagram-drawing";
      drawing.innerHTML = result.svg;  // Mermaid's output, sanitised by it (strict level)
      figure.insertBefore(drawing, pre);
      var old = figure.querySelector(".diagram-error");
      if (old) old.remove();
      pre.hidden = true;
      figure.setAttribute("data-drawn", "true");
    } catch (error) {
      var stray = document.getElementById(id) || document.getElementById("d" + id);
      if (stray && !figure.contains(stray)) stray.remove();
      figure.setAttribute("data-drawn", "error");
      showError(pre, error);
    }
  }

  async function drawAll() {
    configure();
    var pres = sources();
    for (var i = 0; i < pres.length; i++) {
      await draw(pres[i]);
      // Give the page a turn between diagrams, so a page with many stays responsive.
      await new Promise(function (resolve) { setTimeout(resolve, 0); });
    }
    document.documentElement.setAttribute("data-diagrams", "done");
  }

  function start() {
    if (!sources().length) return;
    load(drawAll);
    if (dark && dark.addEventListener) dark.addEventListener("change", drawAll);
  }

  if (document.readyState === "loading") {
    document.addEventListener("DOMContentLoaded", start);
  } else {
    start();
  }
})();
