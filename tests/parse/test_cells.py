"""Cell options: jupytext's Markdown cell-metadata syntax in the fence info string."""

from __future__ import annotations

import pytest

from kbtool.parse.cells import CellOptionsError, cell_tags, split_info
from kbtool.parse.page import parse_page


@pytest.mark.parametrize(
    ("info", "language", "options"),
    [
        ("", "", {}),
        ("python", "python", {}),
        ("Python", "python", {}),
        ("{python}", "python", {}),
        ('python tags=["hide-input"]', "python", {"tags": ["hide-input"]}),
        (
            'python tags=["skip-execution", "raises-exception"] timeout=5',
            "python",
            {"tags": ["skip-execution", "raises-exception"], "timeout": 5},
        ),
        ("python timeout=2.5", "python", {"timeout": 2.5}),
        ('python  tags=["x"]', "python", {"tags": ["x"]}),
        # A tab separates the language as a space does (CommonMark: the first word).
        ('python\ttags=["x"]', "python", {"tags": ["x"]}),
        # Forms the quick parser leaves to jupytext itself.
        ('python {"tags": ["remove-cell"]}', "python", {"tags": ["remove-cell"]}),
        ('python tags=["a]b"]', "python", {"tags": ["a]b"]}),
        ("python title", "python", {"title": None}),
        ('python active="ipynb" .class', "python", {"active": "ipynb", ".class": None}),
        ("mermaid", "mermaid", {}),
    ],
)
def test_split_info(info: str, language: str, options: dict[str, object]) -> None:
    assert split_info(info) == (language, options)


@pytest.mark.parametrize("info", ["python tags=[", "python a=b", 'python x="unterminated'])
def test_unreadable_options_raise(info: str) -> None:
    # jupytext does not raise on these: it files them under 'incorrectly_encoded_metadata',
    # which would silently drop the author's tags.
    with pytest.raises(CellOptionsError, match="cannot read cell options"):
        split_info(info)


def test_cell_tags() -> None:
    assert cell_tags({"tags": ["hide-input", "remove-cell"]}) == {"hide-input", "remove-cell"}
    assert cell_tags({"tags": "hide-input"}) == {"hide-input"}
    assert cell_tags({"tags": ["ok", 3, None]}) == {"ok"}
    assert cell_tags({}) == frozenset()


def test_unreadable_options_of_a_python_cell_are_a_problem_at_the_fence() -> None:
    text = "---\ntype: concept\n---\n\n```python tags=[\nx = 1\n```\n"
    page = parse_page("wiki/a.md", text.encode(), "wiki")
    (problem,) = page.problems
    assert (problem.code, problem.line) == ("KB401", 5)
    (cell,) = page.cells
    assert (cell.language, cell.options, cell.source) == ("python", {}, "x = 1\n")


def test_options_of_other_languages_are_not_checked() -> None:
    # Only python blocks are cells; a highlighter's `{.class}` on a text block is not an error.
    text = "```text {.class}\nplain\n```\n"
    page = parse_page("wiki/a.md", text.encode(), "wiki")
    assert page.problems == ()
    assert page.cells[0].language == "text"
