"""The body parser: links and headings with exact file positions (cases in data files)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.parse.page import parse_page

DATA = Path(__file__).parent.parent / "fixtures" / "parse"


def read_cases(path: Path) -> list[tuple[str, str, list[str]]]:
    """(title, input, expected lines) from a markdown-it-py style fixture file.

    A case is a title line, then input and expected output, each ended by a line "."; the
    free text before the first blank line is the file's introduction.
    """
    lines = path.read_text(encoding="utf-8").split("\n")
    start = lines.index("") + 1
    cases = []
    index = start
    while index < len(lines):
        if not lines[index].strip():
            index += 1
            continue
        title = lines[index]
        assert lines[index + 1] == ".", f"{path.name}: case {title!r} needs '.' after its title"
        end_input = lines.index(".", index + 2)
        end_output = lines.index(".", end_input + 1)
        text = "\n".join(lines[index + 2 : end_input]) + "\n"
        cases.append((title, text, lines[end_input + 1 : end_output]))
        index = end_output + 1
    return cases


LINK_CASES = read_cases(DATA / "links.txt")
HEADING_CASES = read_cases(DATA / "headings.txt")


@pytest.mark.parametrize(("title", "text", "expected"), LINK_CASES, ids=[c[0] for c in LINK_CASES])
def test_links(title: str, text: str, expected: list[str]) -> None:
    page = parse_page("wiki/a.md", text.encode(), "wiki")
    got = [f"{link.kind} {link.span.line}:{link.span.col} {link.target}" for link in page.links]
    assert got == expected


@pytest.mark.parametrize(
    ("title", "text", "expected"), HEADING_CASES, ids=[c[0] for c in HEADING_CASES]
)
def test_headings(title: str, text: str, expected: list[str]) -> None:
    page = parse_page("wiki/a.md", text.encode(), "wiki")
    got = [f"h{h.level} {h.line} {h.slug} | {h.text}" for h in page.headings]
    assert got == expected
    assert page.slugs == {h.slug for h in page.headings}


def test_the_data_files_hold_cases() -> None:
    # A broken fixture layout must not silently turn into zero parametrized cases.
    assert len(LINK_CASES) >= 10 and len(HEADING_CASES) >= 6


def test_link_positions_point_at_the_target_text() -> None:
    # Independent of the data files: every body link's span, read back from the source line,
    # starts with the target as written.
    text = '# T\n\n中文 [一](a.md) 和 [二](<b c.md>) 以及 ![图](d.png "t")\n\n- [三](e.md#锚)\n'
    page = parse_page("wiki/x.md", text.encode(), "wiki")
    lines = text.split("\n")
    assert len(page.links) == 4
    for link in page.links:
        line = lines[link.span.line - 1]
        assert line[link.span.col - 1 :].startswith(link.target)


def test_cells_keep_language_options_source_and_lines() -> None:
    text = (
        "---\ntype: concept\n---\n"
        "# T\n\n"
        '```python tags=["hide-input"] timeout=5\nx = 1\nprint(x)\n```\n\n'
        "```mermaid\ngraph LR\n```\n"
    )
    page = parse_page("wiki/x.md", text.encode(), "wiki")
    python, mermaid = page.cells
    assert (python.index, python.language, python.options) == (
        0,
        "python",
        {"tags": ["hide-input"], "timeout": 5},
    )
    assert python.source == "x = 1\nprint(x)\n"
    assert (python.fence_line, python.line) == (6, 7)
    assert python.is_python and not mermaid.is_python
    assert (mermaid.index, mermaid.language, mermaid.fence_line) == (1, "mermaid", 11)
    assert page.python_cells == (python,)
