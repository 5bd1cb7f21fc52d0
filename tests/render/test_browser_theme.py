"""The theme switch in headless Chromium, on the bundled wiki: light, dark or the system's,
remembered across a reload and a move to another page, applied before the page is drawn,
and followed by the highlighted code, the diagrams, the graph, the link previews and the
search results; served over HTTP and opened from the folder (file://), on a desktop and on a
phone. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import main
from tests._browser import bundled_wiki, screenshot, static_server

pytestmark = pytest.mark.browser

TRANSFORMER = "wiki/concepts/transformer.html"
LIGHT_BG, DARK_BG = "rgb(255, 255, 255)", "rgb(15, 18, 22)"  # --bg in style.css
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}
#: localStorage that throws, as some browsers' does for a page opened from file://
NO_STORAGE = """Object.defineProperty(window, "localStorage", {
  get() { throw new DOMException("denied", "SecurityError"); } });"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = bundled_wiki(tmp_path_factory.mktemp("repo"))
    assert main(["-C", str(root), "build"]) == 0
    return root / "site"


@pytest.fixture(scope="module")
def http_base(site: Path) -> Iterator[str]:
    with static_server(site) as url:
        yield url


@pytest.fixture(params=["http", "file"])
def base(request: pytest.FixtureRequest, site: Path) -> str:
    """The site's URL: served over HTTP, or the folder itself."""
    if request.param == "file":
        return site.as_uri() + "/"
    return str(request.getfixturevalue("http_base"))


@dataclass
class Opened:
    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def assert_clean(self, base: str) -> None:
        assert self.errors == [], self.errors
        assert all(url.startswith(base) for url in self.requests), self.requests


@pytest.fixture
def open_at(browser: Any, base: str) -> Iterator[Any]:
    """``open_at(path, scheme="light", script=None, **context options)`` -> an :class:`Opened`
    page, in a browser whose system asks for ``scheme``; ``script`` runs before the page's."""
    contexts: list[Any] = []

    def opened(
        path: str, scheme: str = "light", script: str | None = None, **options: Any
    ) -> Opened:
        context = browser.new_context(color_scheme=scheme, **(options or DESKTOP))
        contexts.append(context)
        if script:
            context.add_init_script(script)
        page = context.new_page()
        seen = Opened(page)
        page.on("console", lambda m: seen.errors.append(m.text) if m.type == "error" else None)
        page.on("pageerror", lambda e: seen.errors.append(str(e)))
        page.on("request", lambda r: seen.requests.append(r.url))
        page.goto(base + path)
        page.wait_for_load_state("load")
        return seen

    yield opened
    for context in contexts:
        context.close()


def _background(page: Any, selector: str = "body") -> str:
    return str(page.locator(selector).first.evaluate("e => getComputedStyle(e).backgroundColor"))


def _pressed(page: Any) -> list[str]:
    return [
        b.get_attribute("data-choice")
        for b in page.locator('.theme-switch button[aria-pressed="true"]').all()
    ]


def _choose(page: Any, choice: str, tap: bool = False) -> None:
    button = page.locator(f'.theme-switch button[data-choice="{choice}"]')
    button.tap() if tap else button.click()
    page.wait_for_function("c => window.kbtoolTheme.choice() === c", arg=choice)


# -- the switch and what it remembers --------------------------------------------------------


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_with_no_choice_the_site_follows_the_system(open_at: Any, base: str, scheme: str) -> None:
    seen = open_at(TRANSFORMER, scheme=scheme)
    page = seen.page
    assert page.evaluate("document.documentElement.getAttribute('data-theme')") is None
    assert _background(page) == (DARK_BG if scheme == "dark" else LIGHT_BG)
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == scheme
    assert _pressed(page) == ["system"]
    seen.assert_clean(base)


def test_the_switch_is_labelled_for_everyone(open_at: Any, base: str) -> None:
    seen = open_at(TRANSFORMER)
    group = seen.page.locator(".theme-switch")
    assert group.get_attribute("role") == "group" and group.get_attribute("aria-label") == "主题"
    labels = [b.get_attribute("aria-label") for b in group.locator("button").all()]
    assert labels == ["浅色", "深色", "跟随系统"]
    seen.page.locator(".theme-switch button").first.focus()
    seen.page.keyboard.press("Tab")
    seen.page.keyboard.press("Enter")  # the keyboard chooses too: dark is the second button
    seen.page.wait_for_function("window.kbtoolTheme.choice() === 'dark'")
    assert _pressed(seen.page) == ["dark"]
    seen.assert_clean(base)


def test_dark_is_chosen_remembered_and_followed_by_the_code(open_at: Any, base: str) -> None:
    seen = open_at(TRANSFORMER, scheme="light")
    page = seen.page
    code_light = _background(page, "pre.highlight")
    _choose(page, "dark")
    assert page.evaluate("document.documentElement.getAttribute('data-theme')") == "dark"
    assert _background(page) == DARK_BG
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "dark"
    assert _pressed(page) == ["dark"]
    code_dark = _background(page, "pre.highlight")
    assert code_dark == "rgb(13, 17, 23)" and code_light != code_dark  # github-dark's
    screenshot(page, f"theme-dark-{base[:4]}")
    page.reload()
    page.wait_for_load_state("load")
    assert _background(page) == DARK_BG and _pressed(page) == ["dark"]
    page.locator('main a[href="mamba.html"]').first.click()
    page.wait_for_url("**/mamba.html")
    assert _background(page) == DARK_BG and _pressed(page) == ["dark"]
    _choose(page, "system")  # back to the system's, which is light, and nothing kept
    assert _background(page) == LIGHT_BG
    assert page.evaluate("localStorage.getItem('kbtool-theme')") is None
    page.reload()
    assert _background(page) == LIGHT_BG and _pressed(page) == ["system"]
    seen.assert_clean(base)


def test_light_on_a_dark_system_is_remembered(open_at: Any, base: str) -> None:
    seen = open_at("index.html", scheme="dark")
    page = seen.page
    assert _background(page) == DARK_BG
    _choose(page, "light")
    assert _background(page) == LIGHT_BG
    assert page.evaluate("getComputedStyle(document.documentElement).colorScheme") == "light"
    page.goto(base + TRANSFORMER)
    assert _background(page) == LIGHT_BG and _pressed(page) == ["light"]
    code = _background(page, "pre.highlight")
    assert code != "rgb(13, 17, 23)"  # the light highlighting, though the system is dark
    seen.assert_clean(base)


def test_the_theme_is_on_the_page_before_its_body_is(open_at: Any, base: str) -> None:
    """No flash of the other theme: theme.js runs in <head>, before the styles, and has set
    the attribute by the time the body is parsed."""
    seen = open_at(TRANSFORMER)
    page = seen.page
    _choose(page, "dark")
    record = """new MutationObserver((changes, observer) => {
      if (!document.body) return;
      window.__themeAtBody = document.documentElement.getAttribute("data-theme");
      observer.disconnect();
    }).observe(document, {childList: true, subtree: true});"""
    page.context.add_init_script(record)
    page.reload()
    assert page.evaluate("window.__themeAtBody") == "dark"
    script = page.locator('head script[src$="assets/theme.js"]')
    assert script.count() == 1
    assert script.evaluate("s => !s.defer && !s.async && s.type === ''")
    first_style = page.locator('head link[rel="stylesheet"]').first
    assert script.evaluate(
        "(s, l) => !!(s.compareDocumentPosition(l) & Node.DOCUMENT_POSITION_FOLLOWING)",
        first_style.element_handle(),
    )
    seen.assert_clean(base)


def test_without_storage_the_site_follows_the_system_and_still_switches(
    open_at: Any, base: str
) -> None:
    seen = open_at(TRANSFORMER, scheme="dark", script=NO_STORAGE)
    page = seen.page
    assert _background(page) == DARK_BG and _pressed(page) == ["system"]
    _choose(page, "light")  # applied to this page, though it cannot be kept
    assert _background(page) == LIGHT_BG
    page.reload()
    page.wait_for_load_state("load")
    assert _background(page) == DARK_BG and _pressed(page) == ["system"]
    seen.assert_clean(base)


def test_on_a_phone_the_switch_fits_and_a_tap_chooses(open_at: Any, base: str) -> None:
    seen = open_at(TRANSFORMER, **PHONE)
    page = seen.page
    group = page.locator(".theme-switch")
    assert group.is_visible()
    box = group.bounding_box()
    assert box and box["x"] >= 0 and box["x"] + box["width"] <= 390
    for button in group.locator("button").all():
        size = button.bounding_box()
        assert size and size["width"] >= 32 and size["height"] >= 32  # big enough for a finger
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    _choose(page, "dark", tap=True)
    assert _background(page) == DARK_BG
    screenshot(page, f"theme-phone-{base[:4]}")
    seen.assert_clean(base)


# -- what draws in colour follows -------------------------------------------------------------

#: The mean brightness of the canvas's faint pixels (alpha below 100): the edges, drawn dark
#: on light and light on dark; the nodes are opaque and the same colour in both themes.
EDGE_BRIGHTNESS = """c => {
  const data = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
  let sum = 0, count = 0;
  for (let i = 0; i < data.length; i += 4) {
    if (data[i + 3] === 0 || data[i + 3] >= 100) continue;
    sum += data[i] + data[i + 1] + data[i + 2]; count++;
  }
  return count ? sum / count / 3 : -1;
}"""


def _painted(page: Any, theme: str) -> float:
    canvas = page.locator("#graph-canvas")
    page.wait_for_function(
        "t => document.querySelector('#graph-canvas').dataset.theme === t", arg=theme
    )
    page.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")
    return float(canvas.evaluate(EDGE_BRIGHTNESS))


def test_the_graph_follows_the_theme_and_the_system(open_at: Any, base: str) -> None:
    seen = open_at("graph.html", scheme="light")
    page = seen.page
    page.wait_for_selector('#graph-canvas[data-ready="true"]')
    light = _painted(page, "light")
    assert 0 <= light < 110, light
    _choose(page, "dark")
    dark = _painted(page, "dark")
    assert dark > 150, dark
    screenshot(page, f"theme-graph-dark-{base[:4]}")
    _choose(page, "system")
    assert _painted(page, "light") < 110
    page.emulate_media(color_scheme="dark")  # the system turns dark: the graph follows
    assert _painted(page, "dark") > 150
    seen.assert_clean(base)


def _diagram(page: Any, theme: str) -> str:
    """The fill of a node of the page's first diagram, once drawn in ``theme``."""
    figure = page.locator("figure.diagram").first
    figure.scroll_into_view_if_needed()
    page.wait_for_function(
        "([f, t]) => f.getAttribute('data-drawn-theme') === t",
        arg=[figure.element_handle(), theme],
        timeout=60_000,
    )
    return str(figure.locator("svg .node rect").first.evaluate("r => getComputedStyle(r).fill"))


def test_a_diagram_is_drawn_again_in_the_new_theme(open_at: Any, base: str) -> None:
    seen = open_at(TRANSFORMER, scheme="light")
    page = seen.page
    light = _diagram(page, "light")
    _choose(page, "dark")
    dark = _diagram(page, "dark")
    assert light != dark, f"the same node colour in light and dark: {light}"
    assert page.locator("figure.diagram").first.locator("svg").count() == 1  # replaced, not added
    _choose(page, "system")
    assert _diagram(page, "light") == light
    page.emulate_media(color_scheme="dark")
    assert _diagram(page, "dark") == dark
    seen.assert_clean(base)


def test_previews_and_search_results_take_the_theme(open_at: Any, base: str) -> None:
    seen = open_at(TRANSFORMER, scheme="light")
    page = seen.page
    _choose(page, "dark")
    # A link above the page's diagram: drawing it (once near the screen) moves what is below.
    page.locator('main .page-body a[href="../methods/action-chunking.html"]').first.hover()
    page.locator("#kb-preview").wait_for(state="visible")
    assert _background(page, "#kb-preview") == DARK_BG
    title = page.locator("#kb-preview .preview-title")
    assert title.evaluate("e => getComputedStyle(e).color") == "rgb(227, 230, 234)"  # --fg
    page.keyboard.press("Escape")
    page.fill("#search-input", "注意力")
    page.locator("#search-results .search-hit").first.wait_for()
    assert _background(page, "#search-results") == DARK_BG
    hit = page.locator("#search-results .search-hit-title").first
    assert hit.evaluate("e => getComputedStyle(e).color") == "rgb(108, 177, 255)"  # --accent
    screenshot(page, f"theme-search-dark-{base[:4]}")
    page.evaluate("window.kbtoolTheme.set('light')")  # a click on the switch would close them
    assert _background(page, "#search-results") == LIGHT_BG
    seen.assert_clean(base)
