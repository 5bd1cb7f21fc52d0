/* Which nodes of the link graph are shown: the graph page's filters as one pure function of
   the data (graph-data.js) and the filter state, so that graph.js only draws and wires. */
(function () {
  "use strict";
  var DAY = 86400000;

  // What every filter needs, computed once: neighbours both ways, in-link counts, folders.
  function prepare(data) {
    var n = data.nodes.length, edges = data.edges;
    var neighbours = new Array(n), outs = new Array(n), ins = new Array(n), inlinks = new Int32Array(n);
    for (var i = 0; i < n; i++) { neighbours[i] = []; outs[i] = []; ins[i] = []; }
    for (var e = 0; e < edges.length; e += 2) {
      var a = edges[e], b = edges[e + 1];
      neighbours[a].push(b); neighbours[b].push(a);
      outs[a].push(b); ins[b].push(a);
      inlinks[b]++;
    }
    var folders = [], folderIndex = {}, folder = new Int32Array(n);
    for (i = 0; i < n; i++) {
      var path = data.paths[i], cut = path.lastIndexOf("/"), name = cut > 0 ? path.slice(0, cut) : ".";
      if (!(name in folderIndex)) { folderIndex[name] = folders.length; folders.push(name); }
      folder[i] = folderIndex[name];
    }
    var sizes = new Int32Array(data.communities.length);
    for (i = 0; i < n; i++) sizes[data.nodes[i][4]]++;
    return { n: n, neighbours: neighbours, outs: outs, ins: ins, inlinks: inlinks,
      folders: folders, folder: folder, communitySizes: sizes };
  }

  // Nodes within `depth` links of `from`, either direction.
  function around(graph, from, depth) {
    var seen = new Uint8Array(graph.n), frontier = [from];
    seen[from] = 1;
    for (var d = 0; d < depth; d++) {
      var next = [];
      frontier.forEach(function (i) {
        graph.neighbours[i].forEach(function (j) { if (!seen[j]) { seen[j] = 1; next.push(j); } });
      });
      frontier = next;
    }
    return seen;
  }

  /* state: {type, tag, folder, community: index or -1; hidden: {colour group: true} with
     colourBy "type" or "community"; from: node or -1 and depth 1-3 (0: all); top: N most
     linked (0: all); days: updated within N days of `now` (0: any)}. */
  function visible(data, graph, state, now) {
    var n = graph.n, shown = new Uint8Array(n), nodes = data.nodes;
    var near = state.from >= 0 && state.depth > 0 ? around(graph, state.from, state.depth) : null;
    var today = Math.floor((now === undefined ? Date.now() : now) / DAY);
    for (var i = 0; i < n; i++) {
      var node = nodes[i];
      if (state.type >= 0 && node[2] !== state.type) continue;
      if (state.community >= 0 && node[4] !== state.community) continue;
      if (state.folder >= 0 && graph.folder[i] !== state.folder) continue;
      if (state.tag !== -1 && node[6].indexOf(state.tag) < 0) continue;  // -2: an unknown tag
      if (state.days > 0 && (node[5] < 0 || today - node[5] > state.days)) continue;
      if (near && !near[i]) continue;
      if (state.hidden[state.colourBy === "community" ? node[4] : node[2]]) continue;
      shown[i] = 1;
    }
    if (state.top > 0) {
      var order = [];
      for (i = 0; i < n; i++) if (shown[i]) order.push(i);
      order.sort(function (a, b) { return graph.inlinks[b] - graph.inlinks[a] || a - b; });
      for (i = state.top; i < order.length; i++) shown[order[i]] = 0;
    }
    return shown;
  }

  window.kbGraphFilter = { prepare: prepare, visible: visible, around: around };
})();
