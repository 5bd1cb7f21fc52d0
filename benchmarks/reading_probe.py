"""The reading aids measured in headless Chromium (Debian's, driven by Playwright, launched as
the browser tests launch it): a link preview's latency after its hover delay, the graph page's
first full draw, a filter applied, and the frames of pan and zoom.

Each figure is taken inside the page, in the page's own clock (``performance.now()`` and the
events' ``timeStamp``), so that Playwright's round trips are not counted:

- preview: from the ``pointerover`` of the link (the mouse moved onto it in one step) to the
  frame after the card is shown with that link's page (``#kb-preview`` not hidden, its
  ``data-for`` the link's page), less preview.js's delay; on a phone, from the ``pointerup``
  of a tap on the marker beside the link (the finger lifted; no delay there). Each link leads to a page not yet
  previewed, so every card loads its data file.
- first draw: from the navigation's start to the start of the frame after graph.js's first
  drawing (every page, no filter): Chromium draws the canvas in software here (no GPU), after
  the frame's scripts, so graph.js's own ``data-first-draw-ms`` (``performance.now()`` when
  its drawing calls are done) comes before the pixels; both are kept. Each load is in a fresh
  context, so nothing is in the HTTP cache.
- a filter: from setting a control's value and dispatching ``input`` and ``change`` (as the
  browser does for a reader's choice) to the start of the frame after the one graph.js drew
  the result in (and, kept beside it, to the end of that drawing's calls).
- pan and zoom: ``requestAnimationFrame`` intervals while the page is given one wheel event
  (then one pointer move of a drag) every frame, so that every frame has a drawing to do;
  Playwright's own mouse sends only about 30 events a second, which would leave frames idle.
"""

from __future__ import annotations

import contextlib
import re
import statistics
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # the tests, as a package
from tests._browser import ARGS, CHROMIUM, static_server  # noqa: E402

DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
_DELAY = re.compile(r"\bvar DELAY = (\d+);")

# The links of this page that have a preview, each to a page not listed before, on screen
# (not folded away) and not broken: each gets data-bench-link="i"; their pages, in order.
_LINKS = """() => {
  const script = document.querySelector('script[src$="assets/preview.js"]');
  const root = new URL("../", script.src).href, here = location.href.split("#")[0];
  const seen = new Set(), names = [];
  document.querySelectorAll("main a[href]").forEach((a) => {
    if (a.closest(".toc, .heading-link, #kb-preview, .site-header") || !a.getClientRects().length) return;
    const url = new URL(a.getAttribute("href"), location.href), page = url.href.split("#")[0];
    if (!page.startsWith(root) || url.search || !page.endsWith(".html") || page === here) return;
    const name = decodeURIComponent(page.slice(root.length));
    if (!/^(wiki|sources)\\//.test(name) || name.includes("-missing") || seen.has(name)) return;
    seen.add(name);
    a.setAttribute("data-bench-link", String(names.length));
    names.push(name);
  });
  return names;
}"""

# Arm the measure for link i (its page: name; the event that starts the clock: start); return
# the centre of the link's first box, where the pointer goes. window.__kbBench resolves to
# {ms, late} (late: preview.js's own data-late-ms) or null after 5 s.
_ARM = """([i, name, start]) => {
  const a = document.querySelector(`[data-bench-link="${i}"]`);
  const target = start === "pointerover" ? a : a.nextElementSibling;
  let began = -1;
  target.addEventListener(start, (e) => { if (began < 0) began = e.timeStamp; }, { capture: true, once: true });
  window.__kbBench = new Promise((done) => {
    const check = () => {
      const box = document.getElementById("kb-preview");
      const shown = box && !box.hidden && began >= 0;
      const what = shown ? box.getAttribute("data-for") : "";
      if (what !== name && !what.startsWith(name + "#")) return;
      seen.disconnect();
      requestAnimationFrame(() => done({ ms: performance.now() - began, late: box.getAttribute("data-late-ms") }));
    };
    const seen = new MutationObserver(check);
    seen.observe(document.body, { subtree: true, childList: true, attributes: true, attributeFilter: ["hidden", "data-for"] });
    setTimeout(() => { seen.disconnect(); done(null); }, 5000);
  });
  const r = (start === "pointerover" ? a : target).getClientRects()[0];
  return [r.left + Math.min(r.width / 2, 20), r.top + r.height / 2];
}"""

_CLOSED = "() => { const b = document.getElementById('kb-preview'); return !b || b.hidden; }"

# Resolves once two frames in a row come within 25 ms (at most 3 s): a link scrolled into view
# may bring a diagram near the screen, and Mermaid's drawing must not be counted as the card's.
_SETTLED = """() => new Promise((done) => {
  let last = performance.now(), calm = 0;
  const until = last + 3000;
  const frame = (t) => {
    calm = t - last < 25 ? calm + 1 : 0;
    last = t;
    if (calm >= 2 || t > until) done(); else requestAnimationFrame(frame);
  };
  requestAnimationFrame(frame);
})"""

# Set control `id` to `value` as a reader would; the ms to the end of graph.js's drawing (the
# frame it drew in) and to the next frame, which begins once that one is rasterised: the
# canvas is drawn in software (no GPU), after the frame's scripts.
_FILTER = """async ([id, value]) => {
  const control = document.getElementById(id), canvas = document.getElementById("graph-canvas");
  const frame = () => new Promise((done) => requestAnimationFrame(done));
  const t0 = performance.now();
  control.value = value;
  control.dispatchEvent(new Event("input", { bubbles: true }));
  control.dispatchEvent(new Event("change", { bubbles: true }));
  await frame();  // runs after graph.js's own callback in that frame
  const drawn = performance.now() - t0;
  await frame();
  return [performance.now() - t0, drawn, Number(canvas.dataset.shown)];
}"""

# Before the graph page's scripts: the start of the frame after graph.js's first drawing.
_FIRST_FRAME = """(() => {
  const seen = new MutationObserver(() => {
    const canvas = document.getElementById("graph-canvas");
    if (!canvas || !canvas.hasAttribute("data-first-draw-ms")) return;
    seen.disconnect();
    requestAnimationFrame(() => { window.__kbFirstFrame = performance.now(); });
  });
  seen.observe(document, { subtree: true, attributes: true, attributeFilter: ["data-first-draw-ms"] });
})();"""

# The number of days that shows about half the pages in the "updated within" filter.
_HALF_DAYS = """() => {
  const days = KB_GRAPH.nodes.map((node) => node[5]).filter((d) => d >= 0).sort((a, b) => a - b);
  return days.length ? String(Math.max(1, Math.floor(Date.now() / 86400000) - days[days.length >> 1])) : "30";
}"""

# One wheel event a frame for `seconds` (zooming in, then out, in turns), then a drag (one
# pointer move a frame) for as long; the frames' timestamps and graph.js's paint times.
_PAN_ZOOM = """(seconds) => new Promise((done) => {
  const canvas = document.getElementById("graph-canvas"), r = canvas.getBoundingClientRect();
  const cx = r.left + r.width / 2, cy = r.top + r.height / 2, span = seconds * 1000;
  const zoom = [], pan = [], paints = [];
  let frame = 0, start = -1, dragging = false;
  const pointer = (type, x, y) => canvas.dispatchEvent(new PointerEvent(type, {
    pointerId: 7, pointerType: "mouse", isPrimary: true, buttons: 1, clientX: x, clientY: y, bubbles: true }));
  function step(t) {
    if (start < 0) start = t;
    const elapsed = t - start;
    paints.push(Number(canvas.dataset.paintMs));
    if (elapsed < span) {
      zoom.push(t);
      canvas.dispatchEvent(new WheelEvent("wheel", { deltaY: frame % 40 < 20 ? -40 : 40,
        clientX: cx, clientY: cy, bubbles: true, cancelable: true }));
    } else if (elapsed < 2 * span) {
      pan.push(t);
      const x = cx + 200 * Math.sin(frame / 15), y = cy + 120 * Math.cos(frame / 15);
      if (!dragging) { pointer("pointerdown", x, y); dragging = true; } else pointer("pointermove", x, y);
    } else {
      pointer("pointerup", cx, cy);
      return done({ zoom, pan, paints });
    }
    frame++;
    requestAnimationFrame(step);
  }
  requestAnimationFrame(step);
})"""


def percentile(values: list[float], share: float) -> float:
    """The value ``share`` of the way up ``values`` sorted (nearest rank): 0.5 the median."""
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(share * (len(ordered) - 1)))]


def intervals(times: list[float]) -> list[float]:
    return [b - a for a, b in zip(times, times[1:], strict=False)]


@dataclass
class Frames:
    """Milliseconds between frames while zooming and while dragging; graph.js's paints."""

    zoom: list[float]
    pan: list[float]
    paints: list[float]


@dataclass
class Figures:
    """What one way of opening the site (file:// or HTTP) gave, in milliseconds."""

    late: list[float] = field(default_factory=list)  # preview, beyond its delay
    own_late: list[float] = field(default_factory=list)  # preview.js's data-late-ms
    phone: list[float] = field(default_factory=list)  # a tap on the marker to the card
    first_draw: list[tuple[float, float]] = field(default_factory=list)  # drawn, next frame
    filters: list[tuple[str, float, float, int]] = field(default_factory=list)
    frames: Frames | None = None


def preview_delay(site: Path) -> int:
    """preview.js's hover delay, read from the published script."""
    found = _DELAY.search((site / "assets" / "preview.js").read_text(encoding="utf-8"))
    if not found:
        raise SystemExit("assets/preview.js: no 'var DELAY = <ms>;' to read the hover delay from")
    return int(found.group(1))


class Probe:
    """One Chromium; each measure opens its own context on ``base`` (the site's URL)."""

    def __init__(self, browser: Any, base: str, delay: int) -> None:
        self.browser, self.base, self.delay = browser, base, delay

    @contextlib.contextmanager
    def opened(self, path: str, options: dict[str, Any], init: str = "") -> Iterator[Any]:
        context = self.browser.new_context(**options)
        if init:
            context.add_init_script(init)
        try:
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error: errors.append(str(error)))
            page.goto(self.base + path)
            page.wait_for_load_state("load")
            yield page
            if errors:
                raise SystemExit(f"{path}: the page raised {errors[0]}")
        finally:
            context.close()

    def previews(
        self, pages: list[str], count: int, phone: bool = False
    ) -> Iterator[tuple[float, float]]:
        """(ms beyond the delay, preview.js's own figure) for ``count`` links across ``pages``."""
        wanted, start = count, "pointerup" if phone else "pointerover"
        for path in pages:
            if wanted <= 0:
                return
            with self.opened(path, PHONE if phone else DESKTOP) as page:
                names = page.evaluate(_LINKS)[: max(5, -(-count // len(pages)))][:wanted]
                for i, name in enumerate(names):
                    where = f'[data-bench-link="{i}"]' + (" + .preview-mark" if phone else "")
                    page.locator(where).scroll_into_view_if_needed()
                    if phone:
                        page.keyboard.press("Escape")
                    else:
                        page.mouse.move(2, 2)  # off every link: the last card closes
                    page.wait_for_function(_CLOSED)
                    page.evaluate(_SETTLED)
                    x, y = page.evaluate(_ARM, [i, name, start])
                    if phone:
                        page.touchscreen.tap(x, y)
                    else:
                        page.mouse.move(x, y)
                    got = page.evaluate("() => window.__kbBench")
                    wanted -= 1
                    if got is None:  # counted as missed: not shown within 5 s
                        yield float("inf"), float("nan")
                        continue
                    delay = 0 if phone else self.delay
                    own = float(got["late"]) if got["late"] is not None else float("nan")
                    yield got["ms"] - delay, own

    def first_draws(self, times: int) -> list[tuple[float, float]]:
        """(ms to graph.js's first drawing done, ms to the frame after it) for each load."""
        draws = []
        for _ in range(times):
            with self.opened("graph.html", DESKTOP, _FIRST_FRAME) as page:
                page.wait_for_function("() => window.__kbFirstFrame")
                drawn = float(page.get_attribute("#graph-canvas", "data-first-draw-ms"))
                draws.append((drawn, float(page.evaluate("() => window.__kbFirstFrame"))))
        return draws

    def filters(self) -> list[tuple[str, float, float, int]]:
        """(what, ms to the next frame, ms to graph.js's drawing done, pages shown) for each
        filter applied and cleared, one after another."""
        done = []
        with self.opened("graph.html", DESKTOP) as page:
            page.wait_for_selector('#graph-canvas[data-ready="true"]')
            data = page.evaluate(
                "() => ({ types: KB_GRAPH.types, tags: KB_GRAPH.tags.slice(0, 1), "
                "communities: KB_GRAPH.communities.length })"
            )
            steps = [("type " + t, "graph-type", str(i)) for i, t in enumerate(data["types"][:3])]
            steps += [("top 100", "graph-top", "100"), ("top 1000", "graph-top", "1000")]
            if data["communities"]:
                steps.append(("community 1", "graph-community", "0"))
            steps.append(("folder 1", "graph-folder", "0"))
            if data["tags"]:
                steps.append((f"tag {data['tags'][0]}", "graph-tag", data["tags"][0]))
            days = page.evaluate(_HALF_DAYS)
            steps.append((f"updated within {days} days", "graph-days", days))
            clear = {"graph-top": "", "graph-tag": "", "graph-days": ""}
            for what, control, value in steps:
                ms, drawn, shown = page.evaluate(_FILTER, [control, value])
                done.append((what, ms, drawn, shown))
                ms, drawn, shown = page.evaluate(_FILTER, [control, clear.get(control, "-1")])
                done.append((what + ", cleared", ms, drawn, shown))
            # Depth needs a selected page: the most linked one, found by its title.
            hub = page.evaluate(
                "() => { const c = new Int32Array(KB_GRAPH.nodes.length); const e = KB_GRAPH.edges;"
                " for (let i = 1; i < e.length; i += 2) c[e[i]]++;"
                " let best = 0; c.forEach((v, i) => { if (v > c[best]) best = i; });"
                " return KB_GRAPH.nodes[best][3]; }"
            )
            page.fill("#graph-find", hub)
            page.press("#graph-find", "Enter")
            for depth in ("1", "2", "3", "0"):
                ms, drawn, shown = page.evaluate(_FILTER, ["graph-depth", depth])
                done.append((f"depth {depth} from the hub (zoomed to it)", ms, drawn, shown))
        return done

    def frames(self, seconds: float) -> Frames:
        with self.opened("graph.html", DESKTOP) as page:
            page.wait_for_selector('#graph-canvas[data-ready="true"]')
            got = page.evaluate(_PAN_ZOOM, seconds / 2)
        paints = [p for p in got["paints"] if p == p]  # NaN before the first
        return Frames(intervals(got["zoom"]), intervals(got["pan"]), paints)


def measure(
    site: Path, pages: list[str], links: int, seconds: float, ways: tuple[str, ...]
) -> dict[str, Figures]:
    """Figures by way of opening the site ("file", "http"); frames and filters over HTTP only
    (they run the same code either way), the rest both ways."""
    from playwright.sync_api import sync_playwright

    delay = preview_delay(site)
    out: dict[str, Figures] = {}
    with sync_playwright() as pw, static_server(site) as served:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        try:
            for way in ways:
                probe = Probe(browser, served if way == "http" else site.as_uri() + "/", delay)
                figures = out[way] = Figures()
                for late, own in probe.previews(pages, links):
                    figures.late.append(late)
                    figures.own_late.append(own)
                figures.phone = [ms for ms, _ in probe.previews(pages, max(5, links // 4), True)]
                figures.first_draw = probe.first_draws(3)
                if way == ways[-1]:
                    figures.filters = probe.filters()
                    figures.frames = probe.frames(seconds)
        finally:
            browser.close()
    return out


def median(values: list[float]) -> float:
    return float(statistics.median(values)) if values else float("nan")


def shown(values: list[float]) -> list[float]:
    """The measured ones: a preview not shown within 5 s is ``inf``."""
    return [v for v in values if v != float("inf")]
