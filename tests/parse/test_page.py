"""A file's bytes -> an immutable Page: decoding, titles, positions, and never raising."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtool.model import Page
from kbtool.parse.page import parse_page


def parse(text: str | bytes, path: str = "wiki/concepts/my-page.md", kind: str = "wiki") -> Page:
    data = text.encode("utf-8") if isinstance(text, str) else text
    return parse_page(path, data, kind)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("text", "title"),
    [
        ("---\ntitle: 标题\n---\n# Heading\n", "标题"),  # title key first
        ("---\ntitle: '  '\n---\n# Heading\n", "Heading"),  # a blank title does not count
        ("---\ntitle: 42\n---\n# Heading\n", "Heading"),  # nor one that is not a string
        ("---\ntype: concept\n---\n## Second\n# First *H1*\n", "First H1"),  # first H1, as text
        ("Setext\n======\n", "Setext"),
        ("## Only level two\n", "my-page"),  # no H1: the file stem
        ("", "my-page"),
    ],
)
def test_title(text: str, title: str) -> None:
    assert parse(text).title == title


def test_bom_and_crlf_are_normal_input() -> None:
    text = "---\r\ntype: concept\r\nrelated:\r\n  - b.md\r\n---\r\n# 标题\r\n\r\n[x](c.md)\r\n"
    page = parse(b"\xef\xbb\xbf" + text.encode())
    assert page.problems == ()
    assert page.title == "标题"
    assert page.meta == {"type": "concept", "related": ["b.md"]}
    assert [(link.target, link.span.line, link.span.col) for link in page.links] == [
        ("b.md", 4, 5),
        ("c.md", 8, 5),
    ]
    assert page.headings[0].line == 6


def test_old_mac_line_ends() -> None:
    page = parse("# T\r\r[x](c.md)\r")
    assert [(link.target, link.span.line) for link in page.links] == [("c.md", 3)]


def test_not_utf8_names_the_place() -> None:
    page = parse(b"---\ntype: concept\n---\nok\nbad: \xff\xfe\n")
    (problem,) = page.problems
    # Line 5, after "bad: " (five characters): column 6.
    assert (problem.code, problem.line, problem.col) == ("KB001", 5, 6)
    assert "0xff" in problem.message
    assert page.frontmatter is None and page.links == ()


def test_binary() -> None:
    page = parse(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
    assert [p.code for p in page.problems] == ["KB002"]
    assert page.title == "my-page"


def test_empty_file() -> None:
    page = parse(b"")
    assert (page.problems, page.frontmatter, page.links, page.headings) == ((), None, (), ())


def test_related_as_one_string_is_still_a_link_at_its_value() -> None:
    page = parse("---\ntype: concept\nrelated: ../x.md\n---\n")
    (link,) = page.links
    assert (link.kind, link.target, link.span.line, link.span.col) == ("related", "../x.md", 3, 10)


def test_non_string_items_are_skipped_and_the_rest_keep_their_lines() -> None:
    page = parse("---\nrelated:\n  - 1\n  - {a: b}\n  -\n  - ok.md\n---\n")
    assert [(link.target, link.span.line) for link in page.links] == [("ok.md", 6)]


def test_body_line_and_digest() -> None:
    page = parse("---\na: 1\n---\nbody\n")
    assert page.body_line == 4
    assert page.digest == parse("---\na: 1\n---\nbody\n").digest
    assert page.digest != parse("---\na: 2\n---\nbody\n").digest


def test_unclosed_fence_leaves_the_body_parsed() -> None:
    page = parse("---\ntype: concept\n# Heading\n[x](y.md)\n")
    assert [p.code for p in page.problems] == ["KB102"]
    assert page.frontmatter is None
    assert [(link.target, link.span.line) for link in page.links] == [("y.md", 4)]


# --- properties -------------------------------------------------------------------------

FRAGMENTS = [
    "---\n",
    "...\n",
    "type: concept\n",
    "related:\n",
    "  - ",
    "related: [",
    "]",
    "&a ",
    "*a",
    "[",
    "](",
    ")",
    "![",
    "[[",
    "]]",
    "|",
    "#",
    "# ",
    "## ",
    "`",
    "```",
    "```python tags=[",
    "~~~",
    "\n",
    "\n\n",
    "\r\n",
    "\r",
    "    ",
    "\t",
    "<!--",
    "-->",
    "<a href='x'>",
    "$",
    "$$",
    "中文",
    "（）",
    "%E4%B8%AD",
    "%",
    "?q=1",
    "../",
    "/abs",
    "http://x",
    "> ",
    "- ",
    "1. ",
    "| a | b |\n|---|---|\n",
    "\\",
    "\ufeff",
    "\x00",
    "*",
    "_",
    "<",
    ">",
    "&amp;",
    ":",
]
markdownish = st.lists(st.sampled_from(FRAGMENTS) | st.text(max_size=4), max_size=40).map("".join)


def assert_inside(page: Page, text: str) -> None:
    """Every position the page holds is a real place in the file."""
    lines = text.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    for link in page.links:
        assert link.span.path == page.path
        assert 1 <= link.span.line <= len(lines), link
        assert 1 <= link.span.col <= len(lines[link.span.line - 1]) + 1, link
    for heading in page.headings:
        assert 1 <= heading.line <= len(lines)
    for cell in page.cells:
        assert 1 <= cell.fence_line < cell.line <= len(lines) + 1
    for problem in page.problems:
        assert 1 <= problem.line <= len(lines), problem
        assert problem.col >= 1
        assert "\n" not in problem.message  # a diagnostic is one line


@settings(max_examples=300, deadline=None)
@given(markdownish)
def test_any_markdownish_text_parses_with_positions_inside_the_file(text: str) -> None:
    page = parse(text)
    decoded = text.removeprefix("\ufeff")
    if "\x00" not in text:
        assert_inside(page, decoded)


@settings(deadline=None)
@given(st.text())
def test_any_text_parses(text: str) -> None:
    page = parse(text)
    if "\x00" not in text:
        assert_inside(page, text.removeprefix("\ufeff"))


@settings(deadline=None)
@given(st.binary())
def test_any_bytes_parse(data: bytes) -> None:
    page = parse(data)
    assert isinstance(page, Page)


@settings(deadline=None)
@given(markdownish)
def test_parsing_is_deterministic(text: str) -> None:
    assert parse(text) == parse(text)
