"""KB2xx: related/sources entries, body links, anchors and wikilinks.

Every test writes ``wiki/concepts/a.md`` into the same small wiki (``WIKI``) and looks at the
KB2 diagnostics only. In pages made with the ``page`` fixture, extra keys start on line 5,
and a list item's text is at column 5 (``  - item``).
"""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from kbtool.diagnostics import Diagnostic

WIKI = {
    "wiki/concepts/b.md": (
        "---\ntitle: Bee Title\n---\n# B\n\n## 缩放点积注意力（Scaled）\n\n## Notes\n\n## Notes\n"
    ),
    "wiki/concepts/transformer.md": "# Transformer\n",
    "wiki/entities/注意力 机制.md": "# 注意力机制\n\n## 多头注意力\n",
    "wiki/concepts/dup.md": "# Dup\n",
    "wiki/entities/dup.md": "# Another dup, in another folder\n",
    "wiki/img/fig.png": b"\x89PNG\r\n\x1a\n",
    "wiki/concepts/folder/c.md": "# C\n",
    "sources/papers/p.md": "# Paper\n",
    "sources/papers/transformer.md": "# The transformer paper (a source, same stem)\n",
}


def brief(diagnostics: list[Diagnostic]) -> list[str]:
    return [f"{d.line}:{d.col} {d.code}" for d in diagnostics]


@pytest.fixture
def check_a(make_wiki, check_wiki):
    """Write ``wiki/concepts/a.md`` into WIKI; return its KB2 diagnostics."""

    def run(text: str, select: tuple[str, ...] = ("KB2",)) -> list[Diagnostic]:
        root = make_wiki({**WIKI, "wiki/concepts/a.md": text})
        diagnostics = check_wiki(root, select=select)
        assert all(d.path == "wiki/concepts/a.md" for d in diagnostics), diagnostics
        return diagnostics

    return run


def test_good_links_are_silent(check_a, page) -> None:
    text = page(
        "# A\n\n## 本页标题\n\n"
        "[b](b.md) [b2](./b.md#b) [t](transformer.md?plain=1#transformer) ![fig](../img/fig.png)\n"
        "[cjk](<../entities/注意力 机制.md#多头注意力>) "
        "[enc](../entities/%E6%B3%A8%E6%84%8F%E5%8A%9B%20%E6%9C%BA%E5%88%B6.md"
        "#%E5%A4%9A%E5%A4%B4%E6%B3%A8%E6%84%8F%E5%8A%9B)\n"
        "[same page](#本页标题) [repeat](b.md#notes-1) [full-width](b.md#缩放点积注意力scaled)\n"
        "[[b]] [[Bee Title|by title]] [[b#Notes]] [[transformer#transformer]] [[folder/../c]]\n"
        "[web](https://example.com/x) [mail](mailto:a@b.c) <https://example.com/auto>\n"
        "[folder](folder/) [empty]() [top](#)\n",
        related=["b.md", "../entities/注意力 机制.md"],
        sources=["../../sources/papers/p.md"],
    )
    diagnostics = check_a(text)
    # [[folder/../c]] is not a stem: the one wikilink here that matches nothing.
    assert [(d.code, "folder/../c" in d.message) for d in diagnostics] == [("KB209", True)]


# --- related / sources --------------------------------------------------------------------


def test_kb201_related_missing_at_its_item(check_a, page) -> None:
    (d,) = check_a(page(related=["b.md", "transformr.md"]))
    # Items on lines 6 and 7; the text of each starts at column 5.
    assert brief([d]) == ["7:5 KB201"]
    assert "did you mean 'wiki/concepts/transformer.md'" in d.message


def test_kb201_hint_names_a_page_of_that_name_elsewhere(check_a, page) -> None:
    (d,) = check_a(page(related=["注意力 机制.md"]))
    assert d.code == "KB201" and "a page 'wiki/entities/注意力 机制.md' exists" in d.message


@pytest.mark.parametrize(
    ("entry", "words"),
    [
        ("folder", "is a folder"),
        ("folder/", "is a folder"),
        ("../img/fig.png", "not a Markdown page"),
        ("../../sources/papers/p.md", "list it under `sources`"),
        ("https://example.com/page", "is a URL"),
    ],
)
def test_kb202_related_entry_that_is_not_a_wiki_page(check_a, page, entry: str, words: str) -> None:
    (d,) = check_a(page(related=[entry]))
    assert (d.line, d.col, d.code) == (6, 5, "KB202")
    assert words in d.message


def test_kb203_source_missing(check_a, page) -> None:
    (d,) = check_a(page(sources=["../../sources/papers/p.md", "../../sources/papers/q.md"]))
    assert brief([d]) == ["7:5 KB203"]


@pytest.mark.parametrize("entry", ["b.md", "../img/fig.png", "https://arxiv.org/abs/1706.03762"])
def test_kb204_source_not_under_sources(check_a, page, entry: str) -> None:
    (d,) = check_a(page(sources=[entry]))
    assert brief([d]) == ["6:5 KB204"]
    assert "'sources/'" in d.message


def test_kb204_sources_folder_is_configurable(make_wiki, check_wiki, page) -> None:
    root = make_wiki(
        {
            "pyproject.toml": '[tool.kbtool]\nsources = "archive"\n',
            "wiki/a.md": page(sources=["../archive/p.md", "../wiki/b.md"]),
            "wiki/b.md": page(),
            "archive/p.md": "# P\n",
        }
    )
    assert brief(check_wiki(root, select=["KB2"])) == ["7:5 KB204"]


def test_kb205_duplicate_entry_even_when_spelled_differently(check_a, page) -> None:
    diagnostics = check_a(page(related=["b.md", "transformer.md", "./b.md"]))
    assert brief(diagnostics) == ["8:5 KB205"]
    assert "first on line 6" in diagnostics[0].message
    assert diagnostics[0].severity == "warning"


def test_kb205_the_same_page_in_related_and_in_a_body_link_is_fine(check_a, page) -> None:
    assert check_a(page("[b](b.md)\n", related=["b.md"])) == []


def test_kb206_self_links(check_a, page) -> None:
    diagnostics = check_a(page("# A\n\n[me](a.md) [[a]]\n", related=["a.md"]))
    # related item line 6; the body: "---" closes on 7, "# A" 8, blank 9, links on 10.
    assert brief(diagnostics) == ["6:5 KB206", "10:6 KB206", "10:14 KB206"]
    assert all(d.severity == "warning" for d in diagnostics)


def test_kb206_not_for_anchors_on_the_same_page(check_a, page) -> None:
    assert check_a(page("# A\n\n## H\n\n[h](#h) [h2](a.md#h) [top](#)\n")) == []


# --- body links -----------------------------------------------------------------------------


def test_kb207_missing_link_and_image_with_line_and_column(check_a, page) -> None:
    text = page("# A\n\n前文 [缺](missing.md) 和 ![图](../img/none.png)\n[q](gone.md?x=1#h)\n")
    diagnostics = check_a(text)
    # Line 8: "前文 [缺](" is 7 characters, so the target starts at column 8.
    assert brief(diagnostics) == ["8:8 KB207", "8:27 KB207", "9:5 KB207"]
    assert "image" in diagnostics[1].message


def test_query_is_not_part_of_the_path(check_a, page) -> None:
    assert check_a(page("[b](b.md?plain=1) [t](./transformer.md?a=1&b=2#transformer)\n")) == []


def test_percent_encoded_and_raw_targets_are_the_same_link(check_a, page) -> None:
    raw = "<../entities/注意力 机制.md#多头注意力>"
    encoded = (
        "../entities/%E6%B3%A8%E6%84%8F%E5%8A%9B%20%E6%9C%BA%E5%88%B6.md"
        "#%E5%A4%9A%E5%A4%B4%E6%B3%A8%E6%84%8F%E5%8A%9B"
    )
    assert check_a(page(f"[raw]({raw}) [encoded]({encoded})\n")) == []
    # And both fail alike when the anchor is wrong.
    bad = check_a(page(f"[raw]({raw[:-1]}x>) [encoded]({encoded}x)\n"))
    assert [d.code for d in bad] == ["KB208", "KB208"]


def test_percent_encoded_frontmatter_entries_resolve(check_a, page) -> None:
    encoded = "../entities/%E6%B3%A8%E6%84%8F%E5%8A%9B%20%E6%9C%BA%E5%88%B6.md"
    assert check_a(page(related=[encoded, "b.md?x=1"])) == []


def test_links_in_code_and_comments_are_not_links(check_a, page) -> None:
    body = (
        "`[a](missing-span.md)` and ``[[missing-wikilink]]``\n\n"
        "```python\n# [b](missing-fence.md)\n```\n\n"
        "    [c](missing-indented.md)\n\n"
        "<!-- [d](missing-comment.md) [[nope]] -->\n\n"
        "text <!-- [e](missing-inline-comment.md) --> end\n"
    )
    assert check_a(page(body)) == []


# --- anchors ------------------------------------------------------------------------------


def test_kb208_anchor_on_another_page_and_on_this_page(check_a, page) -> None:
    body = "## 本页\n\n[x](b.md#notes-2) [y](#本页x) [z](b.md#缩放点积注意力)\n"
    diagnostics = check_a(page(body))
    # Body from line 6 ("## 本页"); the links are on line 8.
    assert brief(diagnostics) == ["8:5 KB208", "8:23 KB208", "8:33 KB208"]
    assert "'wiki/concepts/b.md'" in diagnostics[0].message
    assert "this page" in diagnostics[1].message
    assert "did you mean '缩放点积注意力scaled'" in diagnostics[2].message


def test_kb208_wikilink_anchor_by_heading_text_or_slug(check_a, page) -> None:
    diagnostics = check_a(page("[[b#缩放点积注意力（Scaled）]] [[b#notes-1]] [[b#Nothing]]\n"))
    assert brief(diagnostics) == ["6:39 KB208"]


def test_anchor_on_a_missing_page_is_only_the_missing_page(check_a, page) -> None:
    assert [d.code for d in check_a(page("[x](missing.md#h)\n"))] == ["KB207"]


# --- wikilinks ----------------------------------------------------------------------------


def test_kb209_wikilink_that_matches_no_page(check_a, page) -> None:
    diagnostics = check_a(page("see [[transformr]] and [[nothing|text]]\n"))
    assert brief(diagnostics) == ["6:7 KB209", "6:26 KB209"]
    assert "did you mean 'transformer'" in diagnostics[0].message


def test_wikilinks_resolve_by_stem_title_and_case(check_a, page) -> None:
    assert check_a(page("[[B]] [[bee title]] [[Transformer|the T]] [[注意力 机制]]\n")) == []


def test_kb211_ambiguous_wikilink(check_a, page) -> None:
    # Two wiki pages have the stem "dup" (concepts/ and entities/); a source page of the
    # same stem as a wiki page does not make [[transformer]] ambiguous.
    (d,) = check_a(page("[[dup|which one?]] [[transformer]]\n"))
    assert (d.line, d.col, d.code, d.severity) == (6, 3, "KB211", "warning")
    assert "wiki/concepts/dup.md, wiki/entities/dup.md" in d.message


# --- leaving the repository -----------------------------------------------------------------


class _Opened:
    """Paths opened (and sockets used) while recording, seen through an audit hook.

    Audit hooks cannot be removed, so the hook is installed once and records only on demand.
    """

    recording = False
    events: list[tuple[str, str]] = []
    installed = False

    @classmethod
    def hook(cls, event: str, args: tuple[object, ...]) -> None:
        if cls.recording and (event == "open" or event.startswith("socket.")):
            cls.events.append((event, str(args[0]) if args else ""))

    @classmethod
    def start(cls) -> None:
        if not cls.installed:
            sys.addaudithook(cls.hook)
            cls.installed = True
        cls.events.clear()
        cls.recording = True

    @classmethod
    def stop(cls) -> list[tuple[str, str]]:
        cls.recording = False
        return list(cls.events)


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    """A file outside the repository (which is tmp_path/repo) that must never be read."""
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("# SECRET-TITLE\n\n[x](SECRET-LINK.md)\n", encoding="utf-8")
    return secret


def test_kb210_links_that_leave_the_repository_are_never_opened(
    make_wiki, check_wiki, page, outside: Path
) -> None:
    body = (
        "[up](../../../outside/secret.md) [abs](/etc/passwd) [abs2](" + str(outside) + ")\n"
        "[win](C:/Windows/x.md) [[../../../outside/secret]] [link](out.md) "
        "[dir](outdir/secret.md)\n"
    )
    root = make_wiki(
        {
            "wiki/concepts/a.md": page(body, related=["../../../outside/secret.md"]),
            "wiki/concepts/b.md": page(related=["../concepts/a.md"]),
        }
    )
    (root / "wiki/concepts/out.md").symlink_to(outside)
    (root / "wiki/concepts/outdir").symlink_to(outside.parent, target_is_directory=True)
    _Opened.start()
    try:
        diagnostics = check_wiki(root)
    finally:
        events = _Opened.stop()
    opened = [path for event, path in events if event == "open"]
    assert any(path.endswith("wiki/concepts/a.md") for path in opened)  # the hook does see opens
    assert [path for path in opened if str(outside.parent) in path] == []
    assert not any(event.startswith("socket.") for event, _ in events)
    assert not any("SECRET" in d.message for d in diagnostics)

    a = [f"{d.line}:{d.col} {d.code}" for d in diagnostics if d.path == "wiki/concepts/a.md"]
    # related item on line 6; body lines 8 and 9 (the fence closes on line 7). Columns are
    # where each target is written.
    line8, line9 = body.split("\n")[:2]
    at8 = [line8.index(t) + 1 for t in ("../../../", "/etc/passwd", str(outside))]
    at9 = [line9.index(t) + 1 for t in ("C:/", "out.md", "outdir/")]
    assert [x for x in a if x.endswith("KB210")] == [
        "6:5 KB210",
        *(f"8:{c} KB210" for c in at8),
        *(f"9:{c} KB210" for c in at9),
    ]
    # The wikilink names no page (stems never leave the repository): KB209, not KB210.
    assert f"9:{line9.index('../../../') + 1} KB209" in a
    messages = {(d.line, d.col): d.message for d in diagnostics if d.code == "KB210"}
    assert "is absolute" in messages[(8, at8[1])] and "is absolute" in messages[(9, at9[0])]
    assert "leaves the repository" in messages[(8, at8[0])]
    assert "leaves the repository" in messages[(9, at9[1])]
    # The symlinks themselves are reported by discovery.
    symlinks = {d.path: d.code for d in diagnostics if d.path.startswith("wiki/concepts/out")}
    assert symlinks == {"wiki/concepts/out.md": "KB003", "wiki/concepts/outdir": "KB003"}


def test_external_urls_are_not_fetched(check_a, page) -> None:
    _Opened.start()
    try:
        diagnostics = check_a(page("[a](https://example.invalid/x) [b](http://10.255.255.1/)\n"))
    finally:
        events = _Opened.stop()
    assert diagnostics == []
    assert not any(event.startswith("socket.") for event, _ in events)


def test_bare_urls_are_external_never_pages(check_a, page) -> None:
    # Linked on the site, but a URL is never a page: no KB2 finding, even for names of pages.
    text = page(
        "# A\n\n见 https://example.org/gone.md）和 https://example.org/b.md#nowhere，"
        "以及 [b](b.md) 与 http://localhost/../../outside.md。\n"
    )
    assert check_a(text) == []
