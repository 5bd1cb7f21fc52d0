// Added by `kbtool serve` to every HTML page it sends, never written into site/.
// It reloads the page when a newer build is served (a long poll), and shows the page's own
// diagnostics in a small panel, or what stopped the build over the stale page. Messages
// quote the pages' text, so they are set as text, never as HTML.
(function () {
  "use strict";
  var seen = null;

  function poll() {
    fetch("/__kbtool/wait?v=" + (seen === null ? "" : seen), { cache: "no-store" })
      .then(function (r) { return r.text(); })
      .then(function (v) {
        if (seen !== null && v !== seen) { location.reload(); return; }
        seen = v;
        poll();
      })
      .catch(function () { setTimeout(poll, 1000); });
  }

  function el(tag, text, css) {
    var node = document.createElement(tag);
    if (text) node.textContent = text;
    if (css) node.style.cssText = css;
    return node;
  }

  function line(d, withPath) {
    var where = (withPath ? d.path + ":" : "line ") + d.line + ":" + d.col;
    var row = el("li", null, "margin:.25em 0;list-style:none");
    var colour = d.severity === "error" ? "#b3261e" : d.severity === "warning" ? "#8a5a00" : "#555";
    row.appendChild(el("b", d.code + " " + d.severity, "color:" + colour));
    row.appendChild(el("span", " " + where + " ", "color:#666"));
    row.appendChild(el("span", d.message));
    return row;
  }

  function show(problems) {
    var blocked = problems.blocked;
    var mine = problems.diagnostics;
    if (!blocked && mine.length === 0) return;
    // Dismissed, a panel stays away until what it says changes.
    var key = "kbtool-dismissed:" + location.pathname;
    var said = JSON.stringify(problems);
    if (sessionStorage.getItem(key) === said) return;
    // In a shadow root of its own: the site's styles do not reach the panel, nor its the page.
    var host = el("div");
    host.id = "kbtool-problems";
    var box = el("aside", null, blocked
      ? "position:fixed;inset:0;z-index:2147483647;overflow:auto;padding:2em;" +
        "background:rgba(255,255,255,.97);color:#111;font:14px/1.5 system-ui,sans-serif"
      : "position:fixed;right:1em;bottom:1em;z-index:2147483647;max-width:36em;" +
        "max-height:40vh;overflow:auto;padding:.75em 1em;background:#fff;color:#111;" +
        "border:1px solid #ccc;border-radius:6px;box-shadow:0 2px 12px rgba(0,0,0,.2);" +
        "font:13px/1.4 system-ui,sans-serif");
    box.id = "kbtool-problems-panel";
    box.setAttribute("role", blocked ? "alertdialog" : "status");
    var close = el("button", "×", "float:right;border:0;background:none;font-size:1.4em;cursor:pointer");
    close.setAttribute("aria-label", "dismiss");
    close.addEventListener("click", function () {
      sessionStorage.setItem(key, said);
      host.remove();
    });
    box.appendChild(close);
    var list;
    if (blocked) {
      box.appendChild(el("h2", blocked.summary, "margin:0 0 .5em;font-size:1.2em;color:#b3261e"));
      box.appendChild(el("p", "This page is from the last published build.", "color:#666"));
      list = el("ul", null, "padding:0");
      blocked.errors.forEach(function (d) { list.appendChild(line(d, true)); });
      if (blocked.more) list.appendChild(el("li", "… and " + blocked.more + " more", "list-style:none"));
      box.appendChild(list);
    }
    if (mine.length) {
      box.appendChild(el("strong", mine.length + " on this page"));
      list = el("ul", null, "padding:0;margin:.25em 0 0");
      mine.forEach(function (d) { list.appendChild(line(d, false)); });
      box.appendChild(list);
    }
    host.attachShadow({ mode: "open" }).appendChild(box);
    document.body.appendChild(host);
  }

  fetch("/__kbtool/problems?page=" + encodeURIComponent(location.pathname), { cache: "no-store" })
    .then(function (r) { return r.json(); })
    .then(show)
    .catch(function () {});
  poll();
})();
