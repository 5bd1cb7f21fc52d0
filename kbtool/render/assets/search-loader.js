// The search engine (search.js, about 10 KB gzip) is loaded when the reader first reaches for
// the search box: a pointer over it, a touch, its focus (a click, Tab, a shortcut). A page read
// without searching never downloads it; text typed while it loads is searched when it starts.
(function () {
  "use strict";
  var input = document.querySelector('#search input[name="q"]');
  var me = document.currentScript;
  if (!input || !me) return;
  var loaded = false;
  function load() {
    if (loaded) return;
    loaded = true;
    var tag = document.createElement("script");
    tag.src = new URL("search.js", me.src).href;
    document.head.appendChild(tag);
  }
  ["pointerenter", "touchstart", "focus", "input"].forEach(function (type) {
    input.addEventListener(type, load, { once: true, passive: true });
  });
  if (document.activeElement === input || input.value) load();
})();
