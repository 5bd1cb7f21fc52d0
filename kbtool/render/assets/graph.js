/* The whole link graph on a canvas. The layout was computed at build time (graph-data.js);
   this file only draws it: pan, zoom, hover for a title, click to open, find by title. */
(function () {
  "use strict";
  var data = window.KB_GRAPH;
  var canvas = document.getElementById("graph-canvas");
  if (!data || !canvas) return;
  var ctx = canvas.getContext("2d");
  var tooltip = document.getElementById("graph-tooltip");
  var palette = { concept: "#4c8bf5", method: "#2ea66f", entity: "#e08a1e", overview: "#9b59b6",
    query: "#d35454", task: "#16a2b8", comparison: "#c2a100", source: "#8a94a6" };
  var extra = ["#e377c2", "#17becf", "#bcbd22", "#7f7f7f", "#8c564b"];
  var colors = data.types.map(function (t, i) { return palette[t] || extra[i % extra.length]; });
  var nodes = data.nodes, edges = data.edges, n = nodes.length;
  var neighbours = new Array(n);
  for (var i = 0; i < n; i++) neighbours[i] = [];
  for (var e = 0; e < edges.length; e += 2) {
    neighbours[edges[e]].push(edges[e + 1]);
    neighbours[edges[e + 1]].push(edges[e]);
  }
  var view = { x: 0, y: 0, k: 1 }, base = 1, width = 0, height = 0, ratio = 1;
  var hover = -1, focus = -1, pending = false;

  // The reader's theme (theme.js); the system's where that script did not run.
  var os = window.matchMedia ? window.matchMedia("(prefers-color-scheme: dark)") : null;
  function isDark() {
    return window.kbtoolTheme ? window.kbtoolTheme.dark() : !!(os && os.matches);
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
  function paint() {
    pending = false;
    ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
    ctx.clearRect(0, 0, width, height);
    var dark = isDark();
    canvas.setAttribute("data-theme", dark ? "dark" : "light");
    ctx.lineWidth = 0.6;
    ctx.strokeStyle = dark ? "rgba(200,210,225,0.10)" : "rgba(60,70,90,0.12)";
    ctx.beginPath();
    for (var e = 0; e < edges.length; e += 2) {
      var a = nodes[edges[e]], b = nodes[edges[e + 1]];
      ctx.moveTo(sx(a), sy(a)); ctx.lineTo(sx(b), sy(b));
    }
    ctx.stroke();
    var active = hover >= 0 ? hover : focus;
    if (active >= 0) {
      ctx.strokeStyle = dark ? "rgba(108,177,255,0.8)" : "rgba(11,98,196,0.7)";
      ctx.lineWidth = 1.2;
      ctx.beginPath();
      neighbours[active].forEach(function (j) {
        ctx.moveTo(sx(nodes[active]), sy(nodes[active])); ctx.lineTo(sx(nodes[j]), sy(nodes[j]));
      });
      ctx.stroke();
    }
    var r = Math.max(1.5, Math.min(6, 2.2 * Math.sqrt(view.k)));
    for (var i = 0; i < n; i++) {
      var x = sx(nodes[i]), y = sy(nodes[i]);
      if (x < -10 || y < -10 || x > width + 10 || y > height + 10) continue;
      ctx.fillStyle = colors[nodes[i][2]];
      ctx.fillRect(x - r, y - r, 2 * r, 2 * r);
    }
    // Labels once zoomed in far enough that they no longer pile up.
    var labelled = 0;
    ctx.fillStyle = dark ? "#e3e6ea" : "#1f2328";
    ctx.font = "12px " + getComputedStyle(document.body).fontFamily;
    if (view.k * base * 10000 / Math.sqrt(n) > 28) {
      for (i = 0; i < n && labelled < 400; i++) {
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
  }
  function nearest(px, py) {
    var best = -1, bestD = 144;
    for (var i = 0; i < n; i++) {
      var dx = sx(nodes[i]) - px, dy = sy(nodes[i]) - py, d = dx * dx + dy * dy;
      if (d < bestD) { bestD = d; best = i; }
    }
    return best;
  }
  function zoomAt(factor, px, py) {
    var k = Math.max(0.5, Math.min(200, view.k * factor));
    // keep the point under the cursor still
    view.x += (px - width / 2) / k - (px - width / 2) / view.k;
    view.y += (py - height / 2) / k - (py - height / 2) / view.k;
    view.k = k;
    draw();
  }
  function centreOn(i, k) {
    view.k = k || Math.max(view.k, 8);
    view.x = -nodes[i][0] * base; view.y = -nodes[i][1] * base;
    focus = i; draw();
  }
  var drag = null, moved = false;
  canvas.addEventListener("pointerdown", function (ev) {
    drag = { x: ev.clientX, y: ev.clientY }; moved = false;
    canvas.setPointerCapture(ev.pointerId); canvas.style.cursor = "grabbing";
  });
  canvas.addEventListener("pointermove", function (ev) {
    var rect = canvas.getBoundingClientRect();
    if (drag) {
      var dx = ev.clientX - drag.x, dy = ev.clientY - drag.y;
      if (Math.abs(dx) + Math.abs(dy) > 3) moved = true;
      view.x += dx / view.k; view.y += dy / view.k;
      drag = { x: ev.clientX, y: ev.clientY };
      draw();
      return;
    }
    var i = nearest(ev.clientX - rect.left, ev.clientY - rect.top);
    if (i !== hover) {
      hover = i; draw();
      if (i >= 0) {
        tooltip.textContent = nodes[i][3];
        tooltip.hidden = false;
      } else {
        tooltip.hidden = true;
      }
    }
    if (i >= 0) {
      tooltip.style.left = (ev.clientX - rect.left + 12) + "px";
      tooltip.style.top = (ev.clientY - rect.top + 12) + "px";
    }
  });
  canvas.addEventListener("pointerup", function (ev) {
    canvas.style.cursor = "grab";
    drag = null;
    if (!moved) {
      var rect = canvas.getBoundingClientRect();
      var i = nearest(ev.clientX - rect.left, ev.clientY - rect.top);
      if (i >= 0) window.location.href = encodeURI(nodes[i][4]);
    }
  });
  canvas.addEventListener("pointerleave", function () { hover = -1; tooltip.hidden = true; draw(); });
  canvas.addEventListener("wheel", function (ev) {
    ev.preventDefault();
    var rect = canvas.getBoundingClientRect();
    zoomAt(Math.exp(-ev.deltaY * 0.0015), ev.clientX - rect.left, ev.clientY - rect.top);
  }, { passive: false });
  function button(id, fn) { var b = document.getElementById(id); if (b) b.addEventListener("click", fn); }
  button("graph-zoom-in", function () { zoomAt(1.5, width / 2, height / 2); });
  button("graph-zoom-out", function () { zoomAt(1 / 1.5, width / 2, height / 2); });
  button("graph-reset", function () { view = { x: 0, y: 0, k: 1 }; focus = -1; draw(); });
  var find = document.getElementById("graph-find");
  if (find) {
    find.addEventListener("keydown", function (ev) {
      if (ev.key !== "Enter") return;
      var q = find.value.trim().toLowerCase();
      if (!q) return;
      for (var i = 0; i < n; i++) {
        if (nodes[i][3].toLowerCase().indexOf(q) >= 0) { centreOn(i); return; }
      }
    });
  }
  var legend = document.getElementById("graph-legend");
  if (legend) {
    data.types.forEach(function (t, i) {
      var li = document.createElement("li"), dot = document.createElement("span");
      dot.style.background = colors[i];
      li.appendChild(dot); li.appendChild(document.createTextNode(t || "—"));
      legend.appendChild(li);
    });
  }
  window.addEventListener("resize", resize);
  if (window.kbtoolTheme) window.addEventListener("kbtool:theme", draw);
  else if (os && os.addEventListener) os.addEventListener("change", draw);
  resize();
  // graph.html#wiki/concepts/x.md opens centred on that page
  var wanted = decodeURIComponent(window.location.hash.slice(1));
  if (wanted && data.paths) {
    var at = data.paths.indexOf(wanted);
    if (at >= 0) centreOn(at, 6);
  }
  canvas.dataset.nodes = String(n);
  canvas.dataset.ready = "true";
})();
