"""The built site in headless Chromium: what a reader sees, and that nothing leaves the site.

The bundled wiki, plus one page of hostile raw HTML, is built once with ``kbtool build`` into a
temporary repository and served from 127.0.0.1. Every request for another host is aborted and
recorded; console errors and dialogs are recorded too. Screenshots go to ``test-artifacts/``.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import main
from tests._browser import Watched, bundled_wiki, screenshot

pytestmark = pytest.mark.browser

TRANSFORMER = "wiki/concepts/transformer.html"
HOSTILE = "wiki/concepts/hostile-html.html"
#: Raw HTML that would run script in every way a page could try; the sanitiser must stop all.
HOSTILE_PAGE = """---
type: concept
summary: "<script>window.pwned = 'summary'</script>恶意摘要 <img src=x onerror=alert(1)>"
updated: 2026-01-01
tags: [security]
---
# Hostile <img src="x" onerror="window.pwned = 'title'; document.title = 'pwned'">

<script>window.pwned = "script"; document.title = "pwned"; alert("script");</script>

<img src="missing.png" onerror="window.pwned = 'img'; alert('img')" alt="坏图">

<a id="js-link" href="javascript:window.pwned='link';alert('link')">恶意链接</a>

<svg onload="window.pwned = 'svg'"><circle r="5"/></svg>

<iframe src="javascript:alert('iframe')"></iframe>

<p onclick="window.pwned = 'click'" onmouseover="window.pwned = 'hover'">点我 恶意段落</p>

<form action="javascript:alert('form')"><button id="js-submit">提交</button></form>

[markdown 链接](javascript:alert('md'))
"""


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled wiki and the hostile page, built by ``kbtool build``."""
    extra = {"wiki/concepts/hostile-html.md": HOSTILE_PAGE}
    root = bundled_wiki(tmp_path_factory.mktemp("repo"), extra)
    code = main(["-C", str(root), "build"])
    assert code == 0, "kbtool build of the bundled wiki failed"
    assert (root / "site" / TRANSFORMER).is_file()
    return root / "site"


def assert_clean(watched: Watched, missing_images: bool = False) -> None:
    """No request left the site, no dialog opened, no console error (but the 404s of images
    the page itself points at nowhere, when ``missing_images``)."""
    errors = watched.errors
    if missing_images:
        errors = [e for e in errors if "404" not in e]
    assert watched.outside == [], f"requests left the site: {watched.outside}"
    assert errors == [], f"console errors: {errors}"
    assert watched.dialogs == [], f"dialogs opened: {watched.dialogs}"


def test_home_page_loads_cleanly_and_keeps_to_the_site(visit: Any) -> None:
    page, watched = visit("index.html")
    assert page.locator("h1").first.is_visible()
    assert page.locator('#search input[name="q"]').is_visible()
    assert page.locator(f'a[href$="{TRANSFORMER}"]').count() >= 1
    screenshot(page, "home")
    assert_clean(watched)


def test_transformer_page_shows_math_figure_and_backlinks(visit: Any) -> None:
    page, watched = visit(TRANSFORMER)
    assert page.locator("h1").first.inner_text().strip() == "Transformer"
    maths = page.locator("main math")
    assert maths.count() >= 3
    assert maths.first.is_visible()
    box = maths.first.bounding_box()
    assert box is not None and box["width"] > 0 and box["height"] > 0  # laid out as MathML
    figure = page.locator('main img[src*="figures/"]').first
    figure.scroll_into_view_if_needed()  # figures load lazily
    page.wait_for_function(
        "img => img.complete && img.naturalWidth > 0", arg=figure.element_handle()
    )  # the cell's SVG loaded
    assert figure.is_visible()
    backlinks = page.locator("#backlinks a")
    assert backlinks.count() >= 1
    assert all(
        href and href.endswith(".html")
        for href in backlinks.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    )
    screenshot(page, "transformer")
    assert_clean(watched)


def test_search_for_attention_lists_the_transformer_page(visit: Any) -> None:
    page, watched = visit("index.html")
    page.fill('#search input[name="q"]', "注意力")
    page.wait_for_selector("#search-results .search-hit")
    assert page.locator("#search-results .search-hit").count() >= 2
    assert "注意力" in page.locator("#search-results mark").first.inner_text()
    screenshot(page, "search-suggest")
    page.press('#search input[name="q"]', "Enter")  # the form opens search.html?q=
    page.wait_for_selector('main #search-results[aria-busy="false"] .search-hit')
    assert "search.html?q=" in page.url
    hits = page.locator("main #search-results .search-hit")
    more = page.locator("main #search-results button.search-more")
    while more.count():  # every batch, as a reader clicking "more" would see them
        shown = hits.count()
        more.click()
        page.wait_for_function(
            f"document.querySelectorAll('main #search-results .search-hit').length > {shown}"
        )
    listed = page.locator("main #search-results a.search-hit-link").evaluate_all(
        "links => links.map(a => a.href)"
    )
    total = page.locator("main #search-results .search-status").inner_text()
    assert str(len(listed)) in total  # "找到 N 个页面": all of them listed
    assert any(url.endswith(TRANSFORMER) for url in listed), "\n".join(listed)
    screenshot(page, "search-page")
    assert_clean(watched)


def test_graph_page_draws_its_nodes(visit: Any) -> None:
    page, watched = visit("graph.html")
    canvas = page.locator("#graph-canvas")
    page.wait_for_selector('#graph-canvas[data-ready="true"]')
    assert int(canvas.get_attribute("data-nodes") or 0) >= 10
    painted = canvas.evaluate(
        """c => {
          const d = c.getContext("2d").getImageData(0, 0, c.width, c.height).data;
          const colours = new Set();
          for (let i = 0; i < d.length; i += 4 * 97) colours.add(d.slice(i, i + 4).join());
          return colours.size;
        }"""
    )
    assert painted > 3, "the graph canvas is blank"
    screenshot(page, "graph")
    assert_clean(watched)


def test_hostile_raw_html_runs_no_script(visit: Any) -> None:
    page, watched = visit(HOSTILE)
    title = page.title()
    for selector in ("#js-link", "text=点我", "text=markdown 链接", "#js-submit"):
        target = page.locator(selector)
        if target.count():
            target.first.click(timeout=2000, no_wait_after=True)
    page.locator("text=点我").hover()
    page.wait_for_timeout(300)
    assert page.evaluate("window.pwned") is None
    assert page.title() == title and "pwned" not in title
    assert page.locator("main script, main iframe, main [onerror], main [onclick]").count() == 0
    hrefs = page.locator("main a").evaluate_all("links => links.map(a => a.getAttribute('href'))")
    assert not [h for h in hrefs if h and h.strip().lower().startswith("javascript:")]
    screenshot(page, "hostile")
    # The hostile text is findable, and shown as text in the results.
    page.fill('#search input[name="q"]', "恶意")
    page.wait_for_selector("#search-results .search-hit")
    assert page.evaluate("window.pwned") is None
    assert_clean(watched, missing_images=True)
