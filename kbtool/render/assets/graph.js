/* The whole link graph on two canvases, the links beneath the pages. The layout was computed
   at build time (graph-data.js); this file draws it and wires the page: pan, zoom (wheel,
   buttons, pinch), hover for a title, click or tap to select (the side panel,
   graph-panel.js), find by title, the filters (graph-filter.js) and the legend. */
(function () {
  "use strict";
  var data = window.KB_GRAPH;
  var canvas = document.getElementById("graph-canvas");
  var linkCanvas = document.getElementById("graph-links");
  var filter = window.kbGraphFilter;
  if (!data || !canvas || !linkCanvas || !filter) return;
  var ctx = canvas.getContext("2d");
  var linkCtx = linkCanvas.getContext("2d");
  var tooltip = document.getElementById("graph-tooltip");
  var palette = { concept: "#4c8bf5", method: "#2ea66f", entity: "#e08a1e", overview: "#9b59b6",
    query: "#d35454", task: "#16a2b8", comparison: "#c2a100", source: "#8a94a6" };
  var extra = ["#e377c2", "#17becf", "#bcbd22", "#8c564b", "#1f77b4", "#ff7f0e", "#2ca02c",
    "#d62728", "#9467bd", "#7f7f7f"];
  var typeColours = data.types.map(function (t, i) { return palette[t] || extra[i % extra.length]; });
  var OTHER = "#9aa3ad";  // communities past the palette share one colour
  var nodes = data.nodes, edges = data.edges, n = nodes.length;
  var graph = filter.prepare(data);
  // Coloured as the form says from the start (a vault without types: by community).
  var colourChoice = document.getElementById("graph-colour");
  var state = { type: -1, tag: -1, folder: -1, community: -1, hidden: {},
    colourBy: colourChoice ? colourChoice.value : "type", from: -1, depth: 0, top: 0, days: 0 };
  var shown = filter.visible(data, graph, state);
  var view = { x: 0, y: 0, k: 1 }, base = 1, width = 0, height = 0, ratio = 1;
  var hover = -1, selected = -1, pending = false, painted = 0;
  var panel = window.kbGraphPanel ? window.kbGraphPanel.create(data, graph, select) : null;

  var os = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function isDark() {
    return window.kbtoolTheme ? window.kbtoolTheme.dark() : !!(os && os.matches);
  }
  function groupOf(i) { return state.colourBy === "community" ? nodes[i][4] : nodes[i][2]; }
  function colourOf(group) {
    if (state.colourBy === "type") return typeColours[group];
    return group < extra.length ? extra[group] : OTHER;
  }

  function resize() {
    ratio = window.devicePixelRatio || 1;
    width = canvas.clientWidth; height = canvas.clientHeight;
    canvas.width = Math.round(width * ratio); canvas.height = Math.round(height * ratio);
    base = Math.min(width, height) / 2 / 10000 * 0.92;
    draw();
  }
  function sx(node) { return width / 2 + (node[0] * base + view.x) * view.k; }
  function sy(node) { return height / 2 + (node[1] * base + view.y) * view.k; }
  function draw() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(paint);
  }
  // The links are the costly part of a drawing (tens of thousands of anti-aliased lines,
  // rasterised in software without a GPU), so they have a canvas of their own beneath the
  // pages' (#graph-links), kept with the view they were drawn at. While the reader pans,
  // zooms or pinches, that canvas is moved and scaled to the view (a CSS transform: nothing
  // is drawn again), and ~150 ms after the last move every link is drawn anew at the view
  // where the reader stopped. The pages and labels are drawn every time.
  var drawnAt = null, version = 0, moving = false, settle = 0;
  function interacting() {
    moving = true;
    window.clearTimeout(settle);
    settle = window.setTimeout(function rest() {
      // not before the last move has been shown: a busy page paints later than it asks
      if (pending) { settle = window.setTimeout(rest, 150); return; }
      moving = false;
      draw();
    }, 150);
  }
  function drawLinks(key, dark) {
    if (linkCanvas.width !== canvas.width || linkCanvas.height !== canvas.height) {
      linkCanvas.width = canvas.width; linkCanvas.height = canvas.height;
    }
    var c = linkCtx, m = 2, count = 0;
    c.setTransform(ratio, 0, 0, ratio, 0, 0);
    c.clearRect(0, 0, width, height);
    c.lineWidth = 0.6;
    c.strokeStyle = dark ? "rgba(200,210,225,0.10)" : "rgba(60,70,90,0.12)";
    c.beginPath();
    for (var e = 0; e < edges.length; e += 2) {
      if (!shown[edges[e]] || !shown[edges[e + 1]]) continue;
      var a = nodes[edges[e]], b = nodes[edges[e + 1]];
      var ax = sx(a), ay = sy(a), bx = sx(b), by = sy(b);
      // wholly to one side of the screen: no pixel of it would show
      if ((ax < -m && bx < -m) || (ay < -m && by < -m) ||
          (ax > width + m && bx > width + m) || (ay > height + m && by > height + m)) continue;
      c.moveTo(ax, ay); c.lineTo(bx, by);
      count++;
    }
    c.stroke();
    drawnAt = { x: view.x, y: view.y, k: view.k, key: key };
    return count;
  }
  function paint() {
    pending = false;
    var started = performance.now();
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    var dark = isDark();
    canvas.setAttribute("data-theme", dark ? "dark" : "light");
    var key = [canvas.width, canvas.height, ratio, dark, version].join(" "), links = 0;
    var same = drawnAt && drawnAt.key === key, place = "";
    if (same && drawnAt.x === view.x && drawnAt.y === view.y && drawnAt.k === view.k) {
      // as drawn
    } else if (same && moving) {
      // where the links drawn at drawnAt's view are at the present one
      var f = view.k / drawnAt.k;
      var ox = width / 2 * (1 - f) + (view.x - drawnAt.x) * view.k;
      var oy = height / 2 * (1 - f) + (view.y - drawnAt.y) * view.k;
      place = "translate(" + ox + "px, " + oy + "px) scale(" + f + ")";
    } else {
      links = drawLinks(key, dark);
    }
    if (linkCanvas.style.transform !== place) linkCanvas.style.transform = place;
    // Read by tests/render/test_browser_graph.py: the links drawn anew in this drawing (0 when those
    // drawn before were kept or moved).
    canvas.setAttribute("data-links-drawn", String(links));
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    var active = hover >= 0 ? hover : selected;
    if (active >= 0) {
      ctx.strokeStyle = dark ? "rgba(108,177,255,0.8)" : "rgba(11,98,196,0.7)";
      ctx.lineWidth = 1.2;
      ctx.beginPath();
      graph.neighbours[active].forEach(function (j) {
        if (!shown[j]) return;
        ctx.moveTo(sx(nodes[active]), sy(nodes[active])); ctx.lineTo(sx(nodes[j]), sy(nodes[j]));
      });
      ctx.stroke();
    }
    var r = Math.max(1.5, Math.min(6, 2.2 * Math.sqrt(view.k)));
    // One fill colour at a time: thousands of fillStyle changes cost more than the squares.
    var byColour = {}, i, x, y, count = 0;
    for (i = 0; i < n; i++) {
      if (!shown[i]) continue;
      count++;
      x = sx(nodes[i]); y = sy(nodes[i]);
      if (x < -10 || y < -10 || x > width + 10 || y > height + 10) continue;
      var colour = colourOf(groupOf(i));
      (byColour[colour] || (byColour[colour] = [])).push(x, y);
    }
    Object.keys(byColour).forEach(function (colour) {
      var at = byColour[colour];
      ctx.fillStyle = colour;
      for (var k = 0; k < at.length; k += 2) ctx.fillRect(at[k] - r, at[k + 1] - r, 2 * r, 2 * r);
    });
    // Labels once zoomed in far enough that they no longer pile up.
    var labelled = 0;
    ctx.fillStyle = dark ? "#e3e6ea" : "#1f2328";
    ctx.font = "12px " + getComputedStyle(document.body).fontFamily;
    if (view.k * base * 10000 / Math.sqrt(Math.max(count, 1)) > 28) {
      for (i = 0; i < n && labelled < 400; i++) {
        if (!shown[i]) continue;
        x = sx(nodes[i]); y = sy(nodes[i]);
        if (x < 0 || y < 0 || x > width || y > height) continue;
        ctx.fillText(nodes[i][3], x + r + 2, y + 4);
        labelled++;
      }
    }
    if (active >= 0) {
      var node = nodes[active];
      ctx.beginPath();
      ctx.arc(sx(node), sy(node), r + 4, 0, 2 * Math.PI);
      ctx.strokeStyle = dark ? "#6cb1ff" : "#0b62c4"; ctx.lineWidth = 2; ctx.stroke();
    }
    painted++;
    // Read by benchmarks/bench_reading.py: this drawing's ms of script, and when the first
    // (every page, unfiltered) was done, in ms from the navigation's start.
    canvas.setAttribute("data-paint-ms", (performance.now() - started).toFixed(1));
    if (painted === 1) canvas.setAttribute("data-first-draw-ms", performance.now().toFixed(0));
  }
  function nearest(px, py, reach) {
    var best = -1, bestD = reach * reach;
    for (var i = 0; i < n; i++) {
      if (!shown[i]) continue;
      var dx = sx(nodes[i]) - px, dy = sy(nodes[i]) - py, d = dx * dx + dy * dy;
      if (d < bestD) { bestD = d; best = i; }
    }
    return best;
  }
  function zoomAt(factor, px, py) {
    var k = Math.max(0.5, Math.min(200, view.k * factor));
    // keep the point under the cursor (or between the fingers) still
    view.x += (px - width / 2) / k - (px - width / 2) / view.k;
    view.y += (py - height / 2) / k - (py - height / 2) / view.k;
    view.k = k;
    canvas.setAttribute("data-zoom", k.toFixed(3));
    draw();
  }
  function centreOn(i, k) {
    view.k = k || Math.max(view.k, 8);
    view.x = -nodes[i][0] * base; view.y = -nodes[i][1] * base;
    canvas.setAttribute("data-zoom", view.k.toFixed(3));
  }
  // The selected page: ringed, its panel open, and the centre of the depth filter.
  function select(i) {
    selected = i;
    canvas.setAttribute("data-selected", String(i));
    if (panel) { if (i >= 0) panel.show(i); else panel.hide(); }
    if (state.depth > 0) refilter();
    else draw();
  }

  // Pointers: one drags, two pinch; a press that does not move selects (mouse, pen or finger).
  var pointers = {}, moved = false, pinch = 0;
  function local(ev) {
    var rect = canvas.getBoundingClientRect();
    return { x: ev.clientX - rect.left, y: ev.clientY - rect.top };
  }
  function spread() {
    var ids = Object.keys(pointers);
    if (ids.length < 2) return null;
    var a = pointers[ids[0]], b = pointers[ids[1]];
    return { d: Math.hypot(a.x - b.x, a.y - b.y), x: (a.x + b.x) / 2, y: (a.y + b.y) / 2 };
  }
  canvas.addEventListener("pointerdown", function (ev) {
    pointers[ev.pointerId] = local(ev);
    if (Object.keys(pointers).length === 1) moved = false;
    else { moved = true; pinch = spread().d; }
    try { canvas.setPointerCapture(ev.pointerId); } catch (error) { /* the pointer is gone */ }
    canvas.style.cursor = "grabbing";
  });
  canvas.addEventListener("pointermove", function (ev) {
    var at = local(ev), last = pointers[ev.pointerId];
    if (last) {
      pointers[ev.pointerId] = at;
      var two = spread();
      if (two) {
        if (pinch > 0 && two.d > 0) { interacting(); zoomAt(two.d / pinch, two.x, two.y); }
        pinch = two.d;
        return;
      }
      var dx = at.x - last.x, dy = at.y - last.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
      if (moved) { view.x += dx / view.k; view.y += dy / view.k; interacting(); draw(); }
      else pointers[ev.pointerId] = last;  // small jitter: keep the press where it began
      return;
    }
    if (ev.pointerType === "touch") return;
    var i = nearest(at.x, at.y, 12);
    if (i !== hover) {
      hover = i; draw();
      tooltip.hidden = i < 0;
      if (i >= 0) tooltip.textContent = nodes[i][3];
    }
    if (i >= 0) {
      tooltip.style.left = (at.x + 12) + "px";
      tooltip.style.top = (at.y + 12) + "px";
    }
  });
  function release(ev) {
    if (!pointers[ev.pointerId]) return;
    var at = pointers[ev.pointerId];
    delete pointers[ev.pointerId];
    var left = Object.keys(pointers).length;
    if (left) { pinch = 0; return; }
    canvas.style.cursor = "grab";
    if (!moved && ev.type === "pointerup") {
      // a finger is less precise than a pointer: it reaches further
      var i = nearest(at.x, at.y, ev.pointerType === "touch" ? 24 : 12);
      select(i);
    }
  }
  canvas.addEventListener("pointerup", release);
  canvas.addEventListener("pointercancel", release);
  canvas.addEventListener("pointerleave", function () {
    if (hover >= 0) { hover = -1; draw(); }
    tooltip.hidden = true;
  });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var at = local(ev);
    interacting();
    zoomAt(Math.exp(-ev.deltaY * 0.0015), at.x, at.y);
  }, { passive: false });
  document.addEventListener("keydown", function (ev) {
    if (ev.key === "Escape" && selected >= 0) select(-1);
  });
  function button(id, fn) { var b = document.getElementById(id); if (b) b.addEventListener("click", fn); }
  button("graph-zoom-in", function () { zoomAt(1.5, width / 2, height / 2); });
  button("graph-zoom-out", function () { zoomAt(1 / 1.5, width / 2, height / 2); });
  button("graph-reset", function () { view = { x: 0, y: 0, k: 1 }; select(-1); });

  // Find by title: Enter centres on the first page whose title contains the text.
  var find = document.getElementById("graph-find");
  if (find) {
    var titles = document.getElementById("graph-titles");
    if (titles && n <= 5000) {  // past that a datalist costs more than it helps
      titles.replaceChildren.apply(titles, nodes.map(function (node) {
        var option = document.createElement("option");
        option.value = node[3];
        return option;
      }));
    }
    find.addEventListener("keydown", function (ev) {
      if (ev.key !== "Enter") return;
      ev.preventDefault();
      var q = find.value.trim().toLowerCase();
      if (!q) return;
      // The page of that very title, else the most linked one whose title holds the text.
      var best = -1;
      for (var i = 0; i < n; i++) {
        var title = nodes[i][3].toLowerCase();
        if (title === q) { best = i; break; }
        if (title.indexOf(q) >= 0 && (best < 0 || graph.inlinks[i] > graph.inlinks[best])) best = i;
      }
      if (best >= 0) { centreOn(best); select(best); }
    });
  }

  // Filters and legend
  var form = document.getElementById("graph-filters");
  var output = document.getElementById("graph-shown");
  var legend = document.getElementById("graph-legend");
  function options(id, labels) {
    var menu = document.getElementById(id);
    if (!menu) return;
    labels.forEach(function (label, i) {
      var option = document.createElement("option");
      option.value = String(i);
      option.textContent = label;
      menu.appendChild(option);
    });
  }
  function communityLabel(c) {
    return nodes[data.communities[c]][3] + " (" + graph.communitySizes[c] + ")";
  }
  options("graph-type", data.typeLabels || data.types);
  options("graph-folder", graph.folders);
  options("graph-community", data.communities.map(function (_, c) { return communityLabel(c); }));
  var tagList = document.getElementById("graph-tags");
  if (tagList) {
    data.tags.forEach(function (tag) {
      var option = document.createElement("option");
      option.value = tag;
      tagList.appendChild(option);
    });
  }
  function number(id) {
    var el = document.getElementById(id), value = el ? parseInt(el.value, 10) : 0;
    return value > 0 ? value : 0;
  }
  function choice(id) {
    var el = document.getElementById(id);
    return el ? parseInt(el.value, 10) : -1;
  }
  function readForm() {
    state.type = choice("graph-type");
    state.folder = choice("graph-folder");
    state.community = choice("graph-community");
    var tag = document.getElementById("graph-tag");
    state.tag = tag && tag.value ? data.tags.indexOf(tag.value.trim()) : -1;
    if (tag && tag.value && state.tag < 0) state.tag = -2;  // no such tag: nothing matches
    state.depth = Math.max(0, choice("graph-depth"));
    state.top = number("graph-top");
    state.days = number("graph-days");
    var colour = document.getElementById("graph-colour");
    var by = colour ? colour.value : "type";
    if (by !== state.colourBy) { state.colourBy = by; state.hidden = {}; fillLegend(); }
  }
  function refilter() {
    state.from = selected;
    shown = filter.visible(data, graph, state);
    version++;  // the links drawn so far are of other pages
    var count = 0;
    for (var i = 0; i < n; i++) count += shown[i];
    canvas.setAttribute("data-shown", String(count));
    if (output) {
      output.textContent = (output.getAttribute("data-text") || "{shown} / {total}")
        .replace("{shown}", String(count)).replace("{total}", String(n));
    }
    if (hover >= 0 && !shown[hover]) hover = -1;
    draw();
  }
  function fillLegend() {
    if (!legend) return;
    legend.replaceChildren();
    var groups = state.colourBy === "community"
      ? data.communities.slice(0, extra.length).map(function (_, c) { return [c, communityLabel(c)]; })
      : (data.typeLabels || data.types).map(function (label, t) { return [t, label || "—"]; });
    groups.forEach(function (entry) {
      var li = document.createElement("li"), toggle = document.createElement("button");
      var dot = document.createElement("span");
      toggle.type = "button";
      toggle.setAttribute("aria-pressed", "true");
      toggle.setAttribute("data-group", String(entry[0]));
      dot.style.background = colourOf(entry[0]);
      toggle.appendChild(dot);
      toggle.appendChild(document.createTextNode(entry[1]));
      toggle.addEventListener("click", function () {
        var hidden = !state.hidden[entry[0]];
        if (hidden) state.hidden[entry[0]] = true; else delete state.hidden[entry[0]];
        toggle.setAttribute("aria-pressed", String(!hidden));
        refilter();
      });
      li.appendChild(toggle);
      legend.appendChild(li);
    });
  }
  if (form) {
    form.addEventListener("input", function () { readForm(); refilter(); });
    form.addEventListener("change", function () { readForm(); refilter(); });
    form.addEventListener("submit", function (ev) { ev.preventDefault(); });
    form.addEventListener("reset", function () {
      setTimeout(function () { state.hidden = {}; readForm(); fillLegend(); refilter(); }, 0);
    });
  }
  fillLegend();
  // On a phone the filters start folded, so the graph is on the first screen.
  var box = document.getElementById("graph-filter-box");
  if (box && window.matchMedia && window.matchMedia("(max-width: 40rem)").matches) box.open = false;

  window.addEventListener("resize", resize);
  if (window.kbtoolTheme) window.addEventListener("kbtool:theme", draw);
  else if (os && os.addEventListener) os.addEventListener("change", draw);
  resize();
  refilter();
  // graph.html#wiki/concepts/x.md opens centred on that page, its panel open
  var wanted = decodeURIComponent(window.location.hash.slice(1));
  if (wanted && data.paths) {
    var at = data.paths.indexOf(wanted);
    if (at >= 0) { centreOn(at, 6); select(at); }
  }
  canvas.dataset.nodes = String(n);
  canvas.dataset.ready = "true";
})();
