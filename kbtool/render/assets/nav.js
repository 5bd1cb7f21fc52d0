// The navigation's "more" menu is a <details>, usable without this script; with it, the menu
// also closes as other menus do: on a click outside it, and on Escape (focus back on it).
(function () {
  "use strict";
  var menu = document.querySelector(".nav-more details");
  if (!menu) return;
  document.addEventListener("click", function (event) {
    if (menu.open && !menu.contains(event.target)) menu.open = false;
  });
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && menu.open) {
      menu.open = false;
      menu.querySelector("summary").focus();
    }
  });
})();
