"""The panel ``kbtool serve`` adds to a served page, in headless Chromium: the page's own
diagnostics (their text is the page's, so hostile), dismissed until they change, and what
stopped the build over the stale page. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import threading
from collections.abc import Iterator
from typing import Any

import pytest

from kbtool.cli import main
from kbtool.diagnostics import Diagnostic
from kbtool.serve import BuildVersion, make_server
from kbtool.served_problems import ServedProblems
from tests._browser import ARTIFACTS, bundled_wiki, open_page

pytestmark = pytest.mark.browser

PAGE = "wiki/concepts/transformer.md"
URL = "wiki/concepts/transformer.html"
HOSTILE = Diagnostic(
    PAGE, 12, 3, "KB207", "warning", 'link to <img src=x onerror="window.pwned=1"> 不存在.md'
)
#: the panel, inside the shadow root of ``#kbtool-problems`` (Playwright's CSS reaches into it)
PANEL = "#kbtool-problems-panel"
STOPPED = Diagnostic("wiki/concepts/mamba.md", 2, 1, "KB103", "error", "frontmatter is not YAML")


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, ServedProblems]]:
    root = bundled_wiki(tmp_path_factory.mktemp("panel"))
    assert main(["-C", str(root), "build", "-j", "1"]) == 0
    problems = ServedProblems()
    server = make_server(root / "site", 0, BuildVersion(), problems=problems)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}/", problems
    server.shutdown()
    server.server_close()


def view(page: Any, name: str) -> None:
    """What the reader sees: the window, not the whole long page."""
    ARTIFACTS.mkdir(exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))


def panel_text(page: Any) -> str | None:
    try:
        page.wait_for_selector(PANEL, timeout=3000)
    except Exception:
        return None
    return str(page.inner_text(PANEL))


def test_a_page_shows_its_own_diagnostics_as_text(browser: Any, served: Any) -> None:
    base, problems = served
    problems.update([HOSTILE, STOPPED], None, [])
    context, page, watched = open_page(browser, base)
    try:
        page.goto(base + URL)
        text = panel_text(page)
        assert text is not None and "KB207" in text and "line 12:3" in text
        assert '<img src=x onerror="window.pwned=1">' in text  # shown, not run
        assert "mamba" not in text  # another page's
        assert page.evaluate("window.pwned") is None and not watched.dialogs
        box = page.locator(PANEL).bounding_box()
        assert box is not None and box["width"] < 700  # a corner, not the page
        view(page, "serve-panel")
        assert not watched.errors and not watched.outside
    finally:
        context.close()


def test_a_dismissed_panel_stays_away_until_what_it_says_changes(browser: Any, served: Any) -> None:
    base, problems = served
    problems.update([HOSTILE], None, [])
    context, page, _ = open_page(browser, base)
    try:
        page.goto(base + URL)
        assert panel_text(page) is not None
        page.click(PANEL + " button")
        assert page.locator("#kbtool-problems").count() == 0
        page.reload()
        assert panel_text(page) is None
        problems.update(
            [HOSTILE, Diagnostic(PAGE, 20, 1, "KB208", "error", "no such anchor")], None, []
        )
        page.reload()
        text = panel_text(page)
        assert text is not None and "KB208" in text
    finally:
        context.close()


def test_a_page_without_diagnostics_has_no_panel(browser: Any, served: Any) -> None:
    base, problems = served
    problems.update([STOPPED], None, [])
    context, page, _ = open_page(browser, base)
    try:
        page.goto(base + URL)
        assert panel_text(page) is None
    finally:
        context.close()


def test_what_stopped_the_build_covers_the_stale_page(browser: Any, served: Any) -> None:
    base, problems = served
    problems.update([STOPPED], "not published: 1 error(s); site/ left as it was", [STOPPED])
    context, page, _ = open_page(browser, base)
    try:
        page.goto(base + URL)
        text = panel_text(page)
        assert text is not None and "not published: 1 error(s)" in text
        assert "wiki/concepts/mamba.md:2:1" in text
        box = page.locator(PANEL).bounding_box()
        viewport = page.viewport_size
        assert box is not None and box["width"] == viewport["width"]
        # The site's styles stop at the panel's shadow root: its heading has no rule under it,
        # as the page's own headings do.
        heading = page.locator(PANEL + " h2")
        assert heading.evaluate("h => getComputedStyle(h).borderBottomStyle") == "none"
        assert (
            page.locator("main h2").first.evaluate("h => getComputedStyle(h).borderBottomStyle")
            != "none"
        )
        view(page, "serve-panel-stopped")
    finally:
        context.close()
