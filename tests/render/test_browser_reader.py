"""Reading aids of the built site in headless Chromium: pages like this one, the most linked
pages; over HTTP and from ``file://``, on a desktop and a phone.

The bundled wiki is built once into a temporary repository (a git checkout, so that what's
new has a history to read).
"""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import main
from tests._browser import bundled_wiki, open_page, screenshot
from tests.git_support import git

pytestmark = pytest.mark.browser

MAMBA = "wiki/concepts/mamba.html"
PHONE = 390


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundled wiki, built by ``kbtool build``."""
    root = bundled_wiki(tmp_path_factory.mktemp("repo"))
    if shutil.which("git"):  # a history: every page added on one day, one edited on the next
        git(root, "init", "-q")
        git(root, "add", ".")
        git(root, "commit", "-qm", "wiki", day="2026-11-02")
        with (root / "wiki/concepts/mamba.md").open("a", encoding="utf-8") as text:
            text.write("\n更多内容。\n")
        git(root, "commit", "-qam", "edit", day="2026-11-05")
    assert main(["-C", str(root), "build"]) == 0, "kbtool build of the bundled wiki failed"
    return root / "site"


def visit_file(browser: Any, site: Path, path: str, width: int = 1280) -> tuple[Any, Any]:
    """``path`` of the site opened from ``file://``: (context, page); nothing may leave."""
    base = site.as_uri() + "/"
    context, page, watched = open_page(browser, base)
    page.set_viewport_size({"width": width, "height": 900})
    page.goto(base + path)
    page.wait_for_load_state("load")
    page.watched = watched
    return context, page


@pytest.mark.parametrize("width", [1280, PHONE])
def test_a_page_lists_pages_like_it_that_it_does_not_link(visit: Any, width: int) -> None:
    page, watched = visit(MAMBA, width=width)
    similar = page.locator("#similar a")
    assert 1 <= similar.count() <= 5
    similar.first.scroll_into_view_if_needed()
    assert similar.first.is_visible()
    box = page.locator("#similar").bounding_box()
    assert box is not None and box["x"] >= 0 and box["x"] + box["width"] <= width
    shown = similar.evaluate_all("links => links.map(a => a.getAttribute('href'))")
    # None of them is a page Mamba links, or that links Mamba: those are listed elsewhere.
    linked = page.locator("main .page-body a, #backlinks a, .related a").evaluate_all(
        "links => links.map(a => a.getAttribute('href').split('#')[0])"
    )
    assert not set(shown) & set(linked)
    screenshot(page, f"similar-{width}")
    target = similar.first.get_attribute("href")
    similar.first.click()
    page.wait_for_load_state("load")
    assert page.url.endswith(str(target).split("/")[-1])
    assert watched.outside == [] and watched.errors == []


def test_the_most_linked_page_ranks_hubs_from_file(browser: Any, site: Path) -> None:
    context, page = visit_file(browser, site, "index.html")
    page.locator('a[href="hubs.html"]').first.click()
    page.wait_for_load_state("load")
    counts = page.locator(".hub-list .hub-count").all_inner_texts()
    numbers = [int("".join(c for c in text if c.isdigit())) for text in counts]
    assert len(numbers) >= 10 and numbers == sorted(numbers, reverse=True)
    assert page.locator(".hub-list a").first.inner_text() == "Transformer"
    screenshot(page, "hubs")
    assert page.watched.outside == [] and page.watched.errors == []
    context.close()


@pytest.mark.parametrize("width", [1280, PHONE])
def test_whats_new_shows_the_days_changes_and_links_the_feed(
    browser: Any, site: Path, width: int
) -> None:
    if not shutil.which("git"):
        pytest.skip("git is not installed")
    context, page = visit_file(browser, site, "index.html", width=width)
    feed = page.locator('head link[rel="alternate"][type="application/atom+xml"]')
    assert feed.get_attribute("href") == "feed.xml"
    page.locator('a[href="changes.html"]').first.click()
    page.wait_for_load_state("load")
    days = page.locator(".change-day h2").all_inner_texts()
    assert days == ["2026-11-05", "2026-11-02"]
    first = page.locator(".change-day").first
    assert first.locator(".change-edited a").all_inner_texts() == ["Mamba（选择性状态空间模型）"]
    assert page.locator(".change-day").nth(1).locator(".change-added").count() >= 30
    box = first.bounding_box()
    assert box is not None and box["x"] + box["width"] <= width
    screenshot(page, f"changes-{width}")
    page.locator("a.feed-link").click()  # the feed opens from file:// as XML
    page.wait_for_load_state("load")
    assert page.url.endswith("feed.xml")
    assert page.watched.outside == [] and page.watched.errors == []
    context.close()
