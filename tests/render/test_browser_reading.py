"""Reading aids in headless Chromium, on the bundled wiki: link previews, heading links, the
table of contents that follows the reader and the highlighted #anchor; on a desktop and on a
phone (touch), served over HTTP and opened from the folder (file://).

Two pages are added to the bundled wiki: one whose links lead to a section of another page
and to a page of hostile text, and that hostile page. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field
from html import unescape
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from kbtool.cli import main
from tests._browser import bundled_wiki, screenshot, static_server

pytestmark = pytest.mark.browser

TRANSFORMER = "wiki/concepts/transformer.html"
READING = "wiki/concepts/reading-aids.html"
MAMBA = "wiki/concepts/mamba.html"
READING_PAGE = """---
type: concept
summary: 测试阅读辅助功能的页面
updated: 2026-01-01
tags: [testing]
---
# 阅读辅助

先读 [Transformer 为什么重要](transformer.md#为什么重要)，再看 [Mamba](mamba.md)，
以及一页 [恶意文本](hostile-preview.md)。
"""
HOSTILE_PAGE = """---
type: concept
summary: "<script>window.pwned = 'summary'</script>恶意摘要 <img src=x onerror=alert(1)>"
updated: 2026-01-01
tags: [testing]
---
# 恶意 <img src=x onerror="window.pwned = 'title'">

开头一句 <b onmouseover="window.pwned = 'body'">粗体</b>
&lt;script&gt;window.pwned = 2&lt;/script&gt;
"""
DESKTOP = {"viewport": {"width": 1280, "height": 900}}
PHONE = {"viewport": {"width": 390, "height": 844}, "is_mobile": True, "has_touch": True}


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    extra = {
        "wiki/concepts/reading-aids.md": READING_PAGE,
        "wiki/concepts/hostile-preview.md": HOSTILE_PAGE,
    }
    root = bundled_wiki(tmp_path_factory.mktemp("repo"), extra)
    assert main(["-C", str(root), "build"]) == 0
    return root / "site"


@pytest.fixture(scope="module")
def http_base(site: Path) -> Iterator[str]:
    with static_server(site) as url:
        yield url


@dataclass
class Opened:
    page: Any
    errors: list[str] = field(default_factory=list)
    requests: list[str] = field(default_factory=list)

    def assert_clean(self, base: str) -> None:
        assert self.errors == [], self.errors
        assert all(url.startswith(base) for url in self.requests), self.requests


@pytest.fixture(params=["http", "file"])
def base(request: pytest.FixtureRequest, site: Path) -> str:
    """The site's URL: served over HTTP, or the folder itself."""
    if request.param == "file":
        return site.as_uri() + "/"
    return str(request.getfixturevalue("http_base"))


@pytest.fixture
def open_at(browser: Any, base: str) -> Iterator[Any]:
    """``open_at(path, **context options)`` -> an :class:`Opened` page of the site."""
    contexts: list[Any] = []

    def opened(path: str, **options: Any) -> Opened:
        context = browser.new_context(**options)
        contexts.append(context)
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


def _apart(page: Any, link: Any) -> None:
    """The preview is on screen and covers no part of the link."""
    box = page.locator("#kb-preview").bounding_box()
    rect = link.bounding_box()
    assert box and rect
    assert box["y"] >= rect["y"] + rect["height"] or box["y"] + box["height"] <= rect["y"]
    assert box["x"] >= 0 and box["x"] + box["width"] <= page.viewport_size["width"]


# -- link previews ----------------------------------------------------------------------


def _title(site: Path, output: str) -> str:
    """The h1 of a built page: what its preview must show as its title."""
    html = (site / output).read_text(encoding="utf-8")
    return unescape(re.search(r"<h1[^>]*>(.*?)</h1>", html, re.S).group(1))  # type: ignore[union-attr]


def test_hovering_a_link_previews_its_page_and_escape_closes_it(
    open_at: Any, base: str, site: Path
) -> None:
    seen = open_at(READING, **DESKTOP)
    page = seen.page
    link = page.locator('main a[href$="mamba.html"]').first
    link.hover()
    preview = page.locator("#kb-preview")
    preview.wait_for(state="visible")
    assert preview.locator(".preview-title").inner_text() == _title(site, MAMBA)
    assert preview.locator(".page-type").inner_text() == "概念"
    assert preview.locator(".preview-summary").inner_text()
    assert len(preview.locator(".preview-text").inner_text()) > 20
    # its opening formula drawn as MathML, not shown as TeX
    assert preview.locator(".preview-text math mi").count() >= 3
    assert "\\Delta" not in preview.locator(".preview-text").inner_text()
    assert preview.get_attribute("data-for") == "wiki/concepts/mamba.html"
    _apart(page, link)
    screenshot(page, f"preview-formula-{base[:4]}")
    page.keyboard.press("Escape")
    preview.wait_for(state="hidden")
    seen.assert_clean(base)


def test_a_link_to_an_anchor_previews_that_section(open_at: Any, base: str) -> None:
    seen = open_at(READING, **DESKTOP)
    page = seen.page
    link = page.locator('main a[href*="transformer.html#"]').first
    link.hover()
    preview = page.locator("#kb-preview")
    preview.wait_for(state="visible")
    assert preview.locator(".preview-title").inner_text() == "Transformer"
    assert preview.locator(".preview-section").inner_text() == "为什么重要"
    assert "通用骨干" in preview.locator(".preview-text").inner_text()
    _apart(page, link)
    screenshot(page, f"preview-anchor-{base[:4]}")
    seen.assert_clean(base)


def test_a_focused_link_previews_its_page(open_at: Any, base: str) -> None:
    seen = open_at(READING, **DESKTOP)
    page = seen.page
    page.locator('main a[href*="transformer.html#"]').focus()
    page.keyboard.press("Tab")  # to the next link, Mamba
    preview = page.locator("#kb-preview")
    # The first link's own preview may still show for a moment: wait for Mamba's.
    page.wait_for_function(
        "want => document.querySelector('#kb-preview')?.getAttribute('data-for') === want",
        arg=MAMBA,
    )
    assert preview.is_visible()
    seen.assert_clean(base)


def test_hostile_text_in_a_preview_stays_text(open_at: Any, base: str) -> None:
    seen = open_at(READING, **DESKTOP)
    page = seen.page
    page.locator('main a[href$="hostile-preview.html"]').hover()
    preview = page.locator("#kb-preview")
    preview.wait_for(state="visible")
    assert "<script>" in preview.locator(".preview-summary").inner_text()
    assert preview.locator("img, script, b").count() == 0
    preview.hover()
    page.wait_for_timeout(100)
    assert page.evaluate("window.pwned") is None
    seen.assert_clean(base)


def test_on_a_phone_a_marker_previews_and_the_link_still_opens(
    open_at: Any, base: str, site: Path
) -> None:
    seen = open_at(READING, **PHONE)
    page = seen.page
    link = page.locator('main a[href$="mamba.html"]').first
    mark = page.locator('main a[href$="mamba.html"] + .preview-mark')
    mark.tap()
    preview = page.locator("#kb-preview")
    preview.wait_for(state="visible")
    assert preview.locator(".preview-title").inner_text() == _title(site, MAMBA)
    _apart(page, link)
    screenshot(page, f"preview-phone-{base[:4]}")
    mark.tap()  # a second tap closes it
    preview.wait_for(state="hidden")
    link.tap()
    page.wait_for_url("**/mamba.html")
    seen.assert_clean(base)


# -- long pages: heading links, the contents, the #anchor arrived at -----------------------

SECTION = "为什么重要"


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_a_heading_links_to_itself_and_a_click_copies_the_address(
    open_at: Any, base: str, device: str
) -> None:
    options = DESKTOP if device == "desktop" else PHONE
    seen = open_at(TRANSFORMER, permissions=["clipboard-read", "clipboard-write"], **options)
    page = seen.page
    heading = page.locator(f'main h2[id="{SECTION}"]')
    link = heading.locator(".heading-link")
    assert heading.inner_text() == SECTION  # the link adds no text to the heading
    if device == "desktop":
        assert link.evaluate("a => getComputedStyle(a).opacity") == "0"
        heading.hover()
        page.wait_for_function(
            "a => getComputedStyle(a).opacity === '1'", arg=link.element_handle()
        )
        link.click()
    else:
        link.tap()
    page.wait_for_selector(".heading-link.copied")
    expected = base + TRANSFORMER + "#" + quote(SECTION, safe="")
    assert page.evaluate("navigator.clipboard.readText()") == expected
    assert page.url == expected
    screenshot(page, f"heading-link-{device}-{base[:4]}")
    seen.assert_clean(base)


def test_the_contents_mark_the_section_being_read(open_at: Any, base: str) -> None:
    seen = open_at(TRANSFORMER, **DESKTOP)
    page = seen.page
    current = page.locator(".toc-side a[aria-current]")
    assert current.count() == 1
    for text in ("核心架构与机制", "联想记忆视角：参数记忆与上下文记忆"):
        page.locator("main h2, main h3").filter(has_text=text).first.evaluate(
            "h => h.scrollIntoView()"
        )
        page.wait_for_function(
            "t => document.querySelector('.toc-side a[aria-current]').textContent === t", arg=text
        )
        assert current.count() == 1
        assert current.is_visible()
    seen.assert_clean(base)


def test_on_a_phone_the_folded_contents_mark_the_section_too(open_at: Any, base: str) -> None:
    seen = open_at(TRANSFORMER, **PHONE)
    page = seen.page
    page.locator("main h2").filter(has_text="核心架构与机制").evaluate("h => h.scrollIntoView()")
    page.wait_for_function(
        "t => document.querySelector('.toc-inline a[aria-current]')?.textContent === t",
        arg="核心架构与机制",
    )
    seen.assert_clean(base)


@pytest.mark.parametrize("device", ["desktop", "phone"])
def test_arriving_at_an_anchor_highlights_its_target(open_at: Any, base: str, device: str) -> None:
    seen = open_at(
        TRANSFORMER + "#" + quote(SECTION, safe=""), **(DESKTOP if device == "desktop" else PHONE)
    )
    page = seen.page
    target = page.locator(f'main h2[id="{SECTION}"]')
    assert target.evaluate("h => h.matches(':target')")
    assert target.evaluate("h => getComputedStyle(h).animationName") == "kb-target"
    top = target.evaluate("h => h.getBoundingClientRect().top")
    assert 0 <= top < 100  # scrolled to it
    if device == "desktop":  # marked once the scroll has settled (a frame or two after load)
        page.wait_for_function(
            "t => document.querySelector('.toc-side a[aria-current]')?.textContent === t",
            arg=SECTION,
            timeout=5000,
        )
    seen.assert_clean(base)
