"""Obsidian's syntax in headless Chromium (``flavor = "obsidian"``): a folded callout opens on
a click with JavaScript off, a ``#^id`` link lands on its block and highlights it, images
show at their size. Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import struct
import zlib
from collections.abc import Iterator
from typing import Any

import pytest

from kbtool.cli import main
from tests._browser import screenshot, static_server

pytestmark = pytest.mark.browser

PAGE = (
    """---
type: concept
summary: callouts, highlights, block ids and image sizes
updated: 2026-01-01
---
# Callouts

Some ==highlighted== text%% and a comment%%.

> [!faq]- Are callouts foldable?
> Yes, without a script.

> [!example]+ Open from the start
> Shown.

> [!question] Outer
> > [!todo] Inner

Jump to [the rule](#^rule).

"""
    + "Filler paragraph.\n\n" * 40
    + """The power of ten rule. ^rule

![[picture.png|200]] ![small|120x72](picture.png)
"""
)


def _png(width: int, height: int) -> bytes:
    rows = b"".join(b"\x00" + b"\x40\x80\xc0" * width for _ in range(height))

    def chunk(kind: bytes, data: bytes) -> bytes:
        crc = zlib.crc32(kind + data) & 0xFFFFFFFF
        return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", crc)

    header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)
    idat = chunk(b"IDAT", zlib.compress(rows))
    return b"\x89PNG\r\n\x1a\n" + chunk(b"IHDR", header) + idat + chunk(b"IEND", b"")


@pytest.fixture(scope="module")
def base(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    root = tmp_path_factory.mktemp("vault")
    (root / "wiki").mkdir()
    (root / "pyproject.toml").write_text('[tool.kbtool]\nflavor = "obsidian"\nlanguage = "en"\n')
    (root / "wiki" / "callouts.md").write_text(PAGE, encoding="utf-8")
    (root / "wiki" / "picture.png").write_bytes(_png(400, 240))
    assert main(["-C", str(root), "build", "-j", "1"]) == 0
    with static_server(root / "site") as url:
        yield url + "wiki/callouts.html"


@pytest.fixture
def page(browser: Any, base: str) -> Iterator[Any]:
    """The page, with JavaScript off: what the callouts and targets do, CSS and HTML do."""
    context = browser.new_context(
        java_script_enabled=False, viewport={"width": 1000, "height": 700}
    )
    outside: list[str] = []
    context.route(
        "**/*",
        lambda route: (
            route.continue_()
            if route.request.url.startswith(base.rsplit("/wiki/", 1)[0])
            else (outside.append(route.request.url), route.abort())
        ),
    )
    tab = context.new_page()
    tab.goto(base)
    yield tab
    assert outside == []
    context.close()


def test_a_folded_callout_opens_on_a_click_without_javascript(page: Any) -> None:
    folded = page.locator("details.callout-question")
    body = folded.locator(".callout-body")
    assert folded.get_attribute("open") is None and not body.is_visible()
    assert page.locator("details.callout-example .callout-body").is_visible()  # `+`: open
    folded.locator("summary").click()
    assert folded.get_attribute("open") == "" and body.is_visible()
    assert body.inner_text().strip() == "Yes, without a script."
    folded.locator("summary").click()
    assert not body.is_visible()
    nested = page.locator(".callout-question .callout-todo .callout-title-text")
    assert nested.inner_text() == "Inner"


def test_a_block_id_link_lands_on_its_block_and_highlights_it(page: Any) -> None:
    page.get_by_role("link", name="the rule").click()
    page.wait_for_timeout(100)
    target = page.locator(":target")
    assert target.evaluate("element => element.id") == "^rule"
    assert target.inner_text() == "The power of ten rule."
    box = target.bounding_box()
    assert box is not None and 0 <= box["y"] < 700  # scrolled to it
    style = target.evaluate("element => getComputedStyle(element).outlineStyle")
    assert style == "solid"
    screenshot(page, "obsidian-block-target")


def test_images_show_at_their_size_and_highlights_are_marked(page: Any) -> None:
    sizes = page.locator("main img").evaluate_all(
        "images => images.map(i => [i.offsetWidth, i.offsetHeight])"
    )
    assert sizes == [[200, 120], [120, 72]]
    assert page.locator("main mark").inner_text() == "highlighted"
    assert "comment" not in page.locator("main").inner_text()
    screenshot(page, "obsidian-syntax")
