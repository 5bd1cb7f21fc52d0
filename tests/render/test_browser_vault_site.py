"""The site of the fixture vault (``tests/fixtures/vault-en/``, after ``kbtool init --yes``)
in headless Chromium: the home note is the front page, the folders lead to the notes, a link's
preview shows the heading or the block it leads to, and a phone's screen holds the navigation.
Screenshots go to ``test-artifacts/``."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import pytest

from kbtool.cli import main
from tests._browser import Visit, screenshot

pytestmark = pytest.mark.browser

VAULT = Path(__file__).resolve().parent.parent / "fixtures" / "vault-en"


@pytest.fixture(scope="module")
def site(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("vault") / "vault"
    shutil.copytree(VAULT, root)
    assert main(["-C", str(root), "init", "--yes"]) == 0
    assert main(["-C", str(root), "build", "-j", "1"]) == 0
    return root / "site"


def _preview(page: Any, href: str) -> Any:
    page.locator(f'main .page-body a[href="{href}"]').first.hover()
    box = page.locator("#kb-preview")
    box.wait_for(state="visible")
    return box


def test_the_front_page_is_the_home_note_and_the_folders_lead_to_the_notes(
    visit: Visit,
) -> None:
    page, watched = visit("index.html")
    assert page.locator("main h1").first.inner_text() == "Home"
    page.locator(".site-nav").get_by_role("link", name="Folders").click()
    page.wait_for_load_state()
    page.locator(".folder-tree").get_by_role("link", name="Nested").click()
    page.wait_for_load_state()
    page.get_by_role("link", name="Deep note").click()
    page.wait_for_load_state()
    assert page.url.endswith("Notes/Deep/Nested/Deep%20note.html")
    trail = page.locator(".breadcrumbs a").all_inner_texts()
    assert trail == ["Folders", "Notes", "Deep", "Nested"]
    assert watched.errors == [] and watched.outside == [], (watched, visit.failed)


def test_a_block_links_preview_shows_the_block_and_a_heading_links_its_section(
    visit: Visit,
) -> None:
    page, watched = visit("Notes/Links.html")
    box = _preview(page, "Headings.html#%5Epara-1")
    assert box.get_attribute("data-for") == "Notes/Headings.html#^para-1"
    assert box.locator(".preview-text").inner_text() == "A paragraph with a block id."
    screenshot(page, "vault-block-preview")
    page.mouse.move(0, 0)
    box.wait_for(state="hidden")
    box = _preview(page, "Headings.html#usage")
    assert box.locator(".preview-section").inner_text() == "Usage"
    # The PDF embedded on the page opens Chromium's own viewer, whose files are no site's.
    assert [f for f in visit.failed if "chrome" not in f.split(":", 1)[0]] == []
    assert [e for e in watched.errors if "Failed to load resource" not in e] == []


def test_the_notes_not_created_yet_are_listed_from_the_navigation(visit: Visit) -> None:
    page, _ = visit("Home.html")
    page.locator(".site-nav").get_by_role("link", name="Not created yet").click()
    page.wait_for_load_state()
    names = page.locator(".unresolved-note").all_inner_texts()
    assert names == ["Not yet", "Projects/Missing plan", "Someday"]


def test_a_phone_holds_the_navigation_and_no_preview_marker_on_the_sites_own_links(
    visit: Visit,
) -> None:
    page, _ = visit("Notes/Links.html", width=390, height=844)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.locator(".site-nav a").all_inner_texts() == [
        "Home",
        "Folders",
        "Graph",
        "Not created yet",
    ]
    assert page.locator(".breadcrumbs .preview-mark").count() == 0
    screenshot(page, "vault-phone-links")
