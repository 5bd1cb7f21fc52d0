/* Long pages: each heading of the body gets a link to itself, shown on hover, that copies its
 * address on click; the table of contents marks the section being read. (Arriving at an
 * #anchor highlights its target through CSS, :target, with or without this script.) */
(function () {
  "use strict";
  var script = document.currentScript;
  var label = (script && script.getAttribute("data-label")) || "Copy link";
  var copied = (script && script.getAttribute("data-copied")) || "Copied";
  var headings = Array.prototype.slice.call(
    document.querySelectorAll(".page-body :is(h2, h3, h4, h5, h6)[id]"));

  function copy(text) {
    if (navigator.clipboard && window.isSecureContext) return navigator.clipboard.writeText(text);
    var area = document.createElement("textarea"); // file:// pages and older browsers
    area.value = text;
    area.style.position = "fixed";
    area.style.opacity = "0";
    document.body.appendChild(area);
    area.select();
    document.execCommand("copy");
    area.remove();
    return Promise.resolve();
  }

  headings.forEach(function (heading) {
    var link = document.createElement("a");
    link.className = "heading-link";
    link.href = "#" + encodeURIComponent(heading.id);
    link.setAttribute("aria-label", label);
    link.setAttribute("data-copied", copied);
    link.addEventListener("click", function (event) {
      event.preventDefault(); // the heading is where the reader is: no jump
      history.replaceState(null, "", link.href);
      copy(link.href).then(function () {
        link.classList.add("copied");
        setTimeout(function () { link.classList.remove("copied"); }, 1500);
      }, function () {});
    });
    heading.appendChild(link);
  });

  // The table of contents: the entry of the last heading scrolled up to the top of the screen.
  var entries = {};
  document.querySelectorAll('.toc a[href^="#"]').forEach(function (a) {
    var id = decodeURIComponent(a.getAttribute("href").slice(1));
    (entries[id] = entries[id] || []).push(a);
  });
  var marked = headings.filter(function (h) { return entries[h.id]; });
  if (!marked.length) return;
  var current = null, pending = false;

  function update() {
    pending = false;
    var line = 40, at = marked[0]; // px: a heading a contents link scrolled to is past it
    for (var i = 0; i < marked.length && marked[i].getBoundingClientRect().top <= line; i++) at = marked[i];
    if (at === current) return;
    if (current) entries[current.id].forEach(function (a) { a.removeAttribute("aria-current"); });
    current = at;
    entries[at.id].forEach(function (a) {
      a.setAttribute("aria-current", "location");
      var box = a.closest(".toc-side");
      if (box && (a.offsetTop < box.scrollTop || a.offsetTop > box.scrollTop + box.clientHeight - 24)) {
        box.scrollTop = a.offsetTop - box.clientHeight / 3; // keep the entry in the sidebar's view
      }
    });
  }
  function later() {
    if (!pending) { pending = true; requestAnimationFrame(update); }
  }
  addEventListener("scroll", later, { passive: true });
  addEventListener("resize", later);
  addEventListener("hashchange", later);
  update();
})();
