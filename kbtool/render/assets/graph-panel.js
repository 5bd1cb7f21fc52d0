/* The side panel of the graph page: the selected page's title, type, summary, its links
   both ways (each selects that page in the graph) and a link that opens it. The summary is
   the page's preview (previews/<page>.js, loaded by preview.js); all text goes in as text. */
(function () {
  "use strict";
  var MAX_LISTED = 40;

  function pageUrl(path) { return path.replace(/\.md$/, "") + ".html"; }

  function create(data, graph, select) {
    var panel = document.getElementById("graph-panel");
    if (!panel) return null;
    var title = panel.querySelector("#graph-panel-title");
    var type = panel.querySelector(".graph-panel-type");
    var summary = panel.querySelector(".graph-panel-summary");
    var open = panel.querySelector(".graph-panel-open");
    var more = panel.getAttribute("data-more") || "+{n}";
    var current = -1;

    function list(selector, nodes) {
      var ul = panel.querySelector(selector);
      var items = nodes.slice().sort(function (a, b) { return graph.inlinks[b] - graph.inlinks[a] || a - b; });
      ul.replaceChildren();
      items.slice(0, MAX_LISTED).forEach(function (j) {
        var li = document.createElement("li"), button = document.createElement("button");
        button.type = "button";
        button.textContent = data.nodes[j][3];
        button.setAttribute("data-node", String(j));
        button.addEventListener("click", function () { select(j); });
        li.appendChild(button);
        ul.appendChild(li);
      });
      if (items.length > MAX_LISTED) {
        var rest = document.createElement("li");
        rest.className = "muted";
        rest.textContent = more.replace("{n}", String(items.length - MAX_LISTED));
        ul.appendChild(rest);
      }
      ul.previousElementSibling.hidden = ul.hidden = !items.length;
    }

    function show(i) {
      current = i;
      var node = data.nodes[i], url = pageUrl(data.paths[i]);
      title.textContent = node[3];
      type.textContent = (data.typeLabels || data.types)[node[2]] || "—";
      summary.textContent = "";
      open.href = encodeURI(url);
      list(".graph-panel-out", graph.outs[i]);
      list(".graph-panel-in", graph.ins[i]);
      panel.hidden = false;
      panel.setAttribute("data-node", String(i));
      var preview = window.kbtoolPreview;
      if (preview) {
        preview.load(url, function (d) {
          if (current !== i || !d) return;
          summary.textContent = d.s || d.o || "";
        });
      }
    }

    function hide() {
      current = -1;
      panel.hidden = true;
      panel.removeAttribute("data-node");
    }

    panel.querySelector(".graph-panel-close").addEventListener("click", function () { select(-1); });
    return { show: show, hide: hide, pageUrl: pageUrl };
  }

  window.kbGraphPanel = { create: create, pageUrl: pageUrl };
})();
