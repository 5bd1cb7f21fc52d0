"""What's new and its Atom feed: added pages told from edited ones by the git history (or
the frontmatter dates without one), grouped by day; the feed well-formed whatever a title
holds, and linked from every page."""

from __future__ import annotations

import re
import shutil
import xml.etree.ElementTree as ET
from collections.abc import Callable
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.render.changes import ADDED, EDITED, Change, git_log, parse_log
from kbtool.stages.site import build_site
from tests.git_support import git

ATOM = "{http://www.w3.org/2005/Atom}"
needs_git = pytest.mark.skipif(shutil.which("git") is None, reason="git is not installed")


def test_one_change_per_page_and_day_added_wins_over_edited() -> None:
    log = (
        "\x002026-03-02T10:00:00+08:00\n\nM\twiki/a.md\nA\twiki/b.md\n"
        "\x002026-03-02T09:00:00+08:00\n\nA\twiki/a.md\nD\twiki/gone.md\n"
        "\x002026-03-01T09:00:00+00:00\n\nM\twiki/b.md\nM\twiki/c.md\n"
    )
    assert parse_log(log) == [
        Change("2026-03-02", ADDED, "wiki/a.md"),
        Change("2026-03-02", ADDED, "wiki/b.md"),
        Change("2026-03-01", EDITED, "wiki/b.md"),
        Change("2026-03-01", EDITED, "wiki/c.md"),
    ]


def test_a_folder_outside_git_has_no_history(tmp_path: Path) -> None:
    assert git_log(tmp_path, ["wiki"]) is None


HOSTILE = r'"Evil </title><script>x</script> & \abell"'  # \a: a bell, in YAML


@needs_git
def test_whats_new_tells_added_from_edited_by_day_and_the_feed_is_atom(
    make_wiki: Callable[[dict[str, str | bytes]], Path], page: Callable[..., str]
) -> None:
    root = make_wiki(
        {
            "pyproject.toml": '[tool.kbtool]\nlanguage = "en"\nsearch = false\n',
            "wiki/a.md": page("# A\n", summary="first <b>"),
            "wiki/b.md": page("# B\n"),
        }
    )
    git(root, "init", "-q")
    git(root, "add", ".")
    git(root, "commit", "-qm", "first", day="2026-03-01")
    (root / "wiki/a.md").write_text(page("# A\n\nMore.\n", summary="first <b>"))
    (root / "wiki/c.md").write_text(page("", title=HOSTILE))
    git(root, "add", ".")
    git(root, "commit", "-qm", "second", day="2026-03-04")
    assert build_site(load_config(root)).ok

    html = (root / "site/changes.html").read_text()
    days = re.findall(r'<time datetime="([\d-]+)">', html)
    assert days == ["2026-03-04", "2026-03-01"]
    newest, oldest = html.split('datetime="2026-03-01"')
    assert re.findall(r'class="change change-(\w+)".*?href="([^"]+)"', newest) == [
        ("added", "wiki/c.html"),
        ("edited", "wiki/a.html"),
    ]
    assert re.findall(r'class="change change-(\w+)".*?href="([^"]+)"', oldest) == [
        ("added", "wiki/a.html"),
        ("added", "wiki/b.html"),
    ]
    assert "<script>x</script>" not in html

    feed = ET.parse(root / "site/feed.xml").getroot()  # well-formed, the bell dropped
    assert feed.tag == f"{ATOM}feed"
    entries = feed.findall(f"{ATOM}entry")
    assert [e.findtext(f"{ATOM}title") for e in entries][:2] == [
        "New: Evil </title><script>x</script> & bell",
        "Edited: A",
    ]
    assert entries[0].find(f"{ATOM}link").get("href") == "wiki/c.html"  # type: ignore[union-attr]
    assert len({e.findtext(f"{ATOM}id") for e in entries}) == len(entries) == 4
    assert feed.findtext(f"{ATOM}updated") == "2026-03-04T00:00:00Z"
    for output in ("index.html", "wiki/a.html", "changes.html"):
        head = (root / "site" / output).read_text().split("</head>")[0]
        assert re.search(
            r'<link rel="alternate" type="application/atom\+xml" href="[./]*feed.xml"', head
        )


def test_without_history_the_frontmatter_dates_say_what_changed(
    make_wiki: Callable[[dict[str, str | bytes]], Path], page: Callable[..., str]
) -> None:
    root = make_wiki(
        {
            "pyproject.toml": '[tool.kbtool]\nlanguage = "en"\nsearch = false\nbase-url = "https://w.example/kb/"\n',
            "wiki/a.md": page("# A\n", updated="2026-02-01"),
            "wiki/b.md": page("# B\n", updated="2026-02-03"),
        }
    )
    assert build_site(load_config(root)).ok
    html = (root / "site/changes.html").read_text()
    assert re.findall(r'<time datetime="([\d-]+)">', html) == ["2026-02-03", "2026-02-01"]
    assert "change-updated" in html and "change-added" not in html
    feed = ET.parse(root / "site/feed.xml").getroot()
    links = [e.find(f"{ATOM}link").get("href") for e in feed.findall(f"{ATOM}entry")]  # type: ignore[union-attr]
    assert links == ["https://w.example/kb/wiki/b.html", "https://w.example/kb/wiki/a.html"]
