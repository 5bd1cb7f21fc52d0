/* Link previews: pointing at (or focusing) a link to a page of the site shows that page's
 * title, type, summary and opening lines; for a link to an #anchor, that section's.
 * Each page's data is a small script of its own (previews/<page>.js, written by the build),
 * loaded with a <script> tag the first time it is asked for: that works from a static host
 * and from a folder opened in the browser (file://), where fetch() of local files is refused.
 * On a touch screen a small marker beside each link opens the preview; the link still opens
 * its page. Page text is put on the page with textContent only, never parsed as HTML. */
(function () {
  "use strict";
  var script = document.currentScript;
  if (!script || !window.URL) return;
  var ROOT = new URL("../", script.src).href;
  var FOLDERS = (script.getAttribute("data-folders") || "").split(" ").filter(Boolean);
  var LABEL = script.getAttribute("data-label") || "Preview";
  // The site's own pages among a vault's notes: the lists of folders, tags and types, the
  // front page (its home note has a preview under its own name), the graph and the like.
  var SITE_PAGES = /^(?:folders|tags|types)\/|^(?:index|graph|search|sources|hubs|changes|unresolved|404)\.html$/;
  var DELAY = 300; // ms of pointing before a preview opens, so that passing over opens none
  var touch = window.matchMedia && matchMedia("(hover: none)").matches;
  var data = {}, waiting = {};
  var box = null, current = null, marked = null, timer = 0, closing = 0;

  window.__kbPreview = function (name, value) {
    data[name] = value;
    (waiting[name] || []).forEach(function (done) { done(value); });
    delete waiting[name];
  };

  function load(name, done) {
    if (name in data) return done(data[name]);
    if (waiting[name]) return waiting[name].push(done);
    waiting[name] = [done];
    var tag = document.createElement("script");
    tag.src = ROOT + "previews/" + name.slice(0, -5).split("/").map(encodeURIComponent).join("/") + ".js";
    tag.onload = tag.onerror = function () {
      tag.remove();
      if (!(name in data)) window.__kbPreview(name, null);
    };
    document.head.appendChild(tag);
  }

  // The graph page's side panel shows the same data (graph-panel.js).
  window.kbtoolPreview = { load: load };

  // The page a link leads to ({name: "wiki/x/y.html", anchor}), or null when it has no preview.
  function target(a) {
    var href = a.getAttribute("href");
    if (!href || a.closest(".toc, .heading-link, #kb-preview, .site-header")) return null;
    try {
      var url = new URL(href, location.href), page = url.href.split("#")[0];
      if (page.indexOf(ROOT) !== 0 || url.search) return null;
      var name = decodeURIComponent(page.slice(ROOT.length));
      var anchor = decodeURIComponent(url.hash.slice(1));
    } catch (error) {
      return null;
    }
    // "." is a vault's: its notes are in every folder, beside the site's own pages.
    var inFolder = FOLDERS.some(function (f) {
      return f === "." ? !SITE_PAGES.test(name) : name.indexOf(f + "/") === 0;
    });
    if (!inFolder || !/\.html$/.test(name) || (page === location.href.split("#")[0] && !anchor)) return null;
    return { name: name, anchor: anchor };
  }

  function el(tag, className, text) {
    var node = document.createElement(tag);
    node.className = className;
    if (text) node.textContent = text;
    return node;
  }

  var MATHML = "http://www.w3.org/1998/Math/MathML";

  // A formula's tree ([tag, {attribute: value}, child...], made by the build from the page's
  // MathML, tags and attributes checked there) as elements; text only as text.
  function math(tree) {
    var node = document.createElementNS(MATHML, String(tree[0]));
    var attrs = tree[1] || {};
    Object.keys(attrs).forEach(function (name) {
      if (!/^on|href/i.test(name)) node.setAttribute(name, String(attrs[name]));  // no handlers, no links
    });
    for (var i = 2; i < tree.length; i++) {
      node.appendChild(Array.isArray(tree[i]) ? math(tree[i]) : document.createTextNode(String(tree[i])));
    }
    return node;
  }

  // Text whose formulas are markers (U+E000, their number in maths, U+E001).
  function rich(tag, className, text, maths) {
    var node = el(tag, className), parts = text.split(/\uE000(\d+)\uE001/);
    for (var i = 0; i < parts.length; i++) {
      if (i % 2 === 0) { if (parts[i]) node.appendChild(document.createTextNode(parts[i])); }
      else if (maths && maths[+parts[i]]) node.appendChild(math(maths[+parts[i]]));
    }
    return node;
  }

  function fill(a, to, d) {
    if (!box) {
      box = el("div", "link-preview");
      box.id = "kb-preview";
      box.hidden = true;
      box.addEventListener("mouseover", function () { clearTimeout(closing); });
      box.addEventListener("mouseout", leave);
      document.body.appendChild(box);
    }
    var section = (d.h || []).filter(function (s) { return s[0] === to.anchor; })[0];
    // A link to a block (#^id, a vault's) shows that block.
    var block = (d.b || []).filter(function (b) { return b[0] === to.anchor; })[0];
    var head = el("div", "preview-head"), title = el("a", "preview-title", d.t);
    title.href = a.getAttribute("href");
    head.appendChild(title);
    if (d.y) head.appendChild(el("span", "page-type", d.y));
    box.replaceChildren(head);
    if (d.s) box.appendChild(el("p", "preview-summary", d.s));
    if (section) box.appendChild(el("p", "preview-section", section[1]));
    var text = block ? block[1] : section ? section[2] : d.o;
    if (text) box.appendChild(rich("p", "preview-text" + (block ? " preview-block" : ""), text, d.m));
    var part = block || section;
    box.setAttribute("data-for", to.name + (part ? "#" + part[0] : ""));
  }

  // Below the link, or above it where there is more room: never over it, never off screen.
  function place(a, mark) {
    var r = a.getBoundingClientRect(), m = mark ? mark.getBoundingClientRect() : r;
    var top = Math.min(r.top, m.top), bottom = Math.max(r.bottom, m.bottom), gap = 6;
    var roomBelow = innerHeight - bottom - gap, down = roomBelow >= top - gap || roomBelow > 260;
    box.style.maxHeight = Math.max(60, (down ? roomBelow : top - gap) - gap) + "px";
    box.hidden = false;
    var width = document.documentElement.clientWidth;
    var left = Math.max(8, Math.min(r.left, width - box.offsetWidth - 8));
    var y = down ? bottom + gap : top - gap - box.offsetHeight;
    box.style.left = left + scrollX + "px";
    box.style.top = y + scrollY + "px";
    a.setAttribute("aria-describedby", "kb-preview");
  }

  function open(a, to, wait, mark) {
    clearTimeout(timer);
    clearTimeout(closing);
    current = a;
    marked = mark;
    var asked = performance.now();
    load(to.name, function () {}); // loading starts now, so the data is there when the wait ends
    timer = setTimeout(function () {
      load(to.name, function (d) {
        if (current !== a || !d) return;
        fill(a, to, d);
        place(a, mark);
        requestAnimationFrame(function () {
          box.setAttribute("data-late-ms", String(Math.round(performance.now() - asked - wait)));
        });
      });
    }, wait);
  }

  function close() {
    clearTimeout(timer);
    if (current) current.removeAttribute("aria-describedby");
    current = null;
    if (box) box.hidden = true;
  }

  function leave(event) {
    var to = event.relatedTarget;
    if (to && ((box && box.contains(to)) || (current && current.contains(to)))) return;
    clearTimeout(timer);
    closing = setTimeout(close, 150);
  }

  function link(event) {
    var a = event.target.closest && event.target.closest("main a, .sidebar a");
    return a && a !== current ? a : null;
  }

  document.addEventListener("pointerover", function (event) {
    if (event.pointerType === "touch") return;
    if (current && current.contains(event.target)) return clearTimeout(closing);
    var a = link(event), to = a && target(a);
    if (to) open(a, to, DELAY);
  });
  document.addEventListener("mouseout", function (event) {
    if (current && current.contains(event.target)) leave(event);
  });
  document.addEventListener("focusin", function (event) {
    var a = link(event), to = a && a.matches(":focus-visible") && target(a);
    if (to) open(a, to, DELAY);
  });
  document.addEventListener("focusout", function (event) {
    if (current && event.target === current) leave(event);
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && current) close();
  });
  document.addEventListener("click", function (event) {
    if (current && box && !box.contains(event.target) && !event.target.closest(".preview-mark")) close();
  });
  // Phones resize as their address bar hides: the preview moves with its link.
  window.addEventListener("resize", function () {
    if (current && box && !box.hidden) place(current, marked);
  });

  if (!touch) return;
  // A touch screen cannot point: a marker after each link opens (and closes) its preview.
  document.querySelectorAll("main a[href]").forEach(function (a) {
    var to = target(a);
    if (!to) return;
    var mark = el("button", "preview-mark");
    mark.type = "button";
    mark.setAttribute("aria-label", LABEL + ": " + a.textContent);
    mark.addEventListener("click", function () {
      if (current === a && box && !box.hidden) close();
      else open(a, to, 0, mark);
    });
    a.after(mark);
  });
})();
