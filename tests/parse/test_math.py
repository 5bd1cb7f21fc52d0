"""Formulas as authors write them: ``\\(…\\)``, ``\\[…\\]``, ``$…$``, ``$$…$$``; prices stay prices.

Cases are data (``fixtures/parse/math.txt``), in the CJK-emphasis file's format; the tests
below them check what the data cannot show: the token types every later stage reads.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from kbtool.parse.backslash_math import backslash_math_plugin
from kbtool.parse.markdown import markdown_parser
from tests.parse.test_cjk_emphasis import _spec_examples, read_cases

CASES = read_cases(Path(__file__).parent.parent / "fixtures" / "parse" / "math.txt")


@pytest.mark.parametrize(("title", "source", "html"), CASES, ids=[c[0] for c in CASES])
def test_case(title: str, source: str, html: str) -> None:
    assert markdown_parser().render(source) == html


def test_the_data_file_holds_cases() -> None:
    assert len(CASES) >= 25


def _math_tokens(source: str) -> list[tuple[str, str, list[int] | None]]:
    """(type, content, line map) of every math token, inline ones with their block's map."""
    found = []
    for token in markdown_parser().parse(source):
        if token.type.startswith("math"):
            found.append((token.type, token.content.strip(), token.map))
        for child in token.children or ():
            if child.type.startswith("math"):
                found.append((child.type, child.content.strip(), token.map))
    return found


@pytest.mark.parametrize(
    ("backslash", "dollar"),
    [
        (r"设 \(x_i^2\) 为", r"设 $x_i^2$ 为"),
        (r"即 \[\sum_i x_i\] 成立", r"即 $$\sum_i x_i$$ 成立"),
        ("文\n\n\\[\n\\frac{a}{b}\n\\]\n", "文\n\n$$\n\\frac{a}{b}\n$$\n"),
        ("| a |\n|---|\n| \\(\\alpha\\) |\n", "| a |\n|---|\n| $\\alpha$ |\n"),
        ("- 项 **\\(a_b\\)**\n", "- 项 **$a_b$**\n"),
    ],
)
def test_backslash_formulas_make_the_dollar_tokens(backslash: str, dollar: str) -> None:
    tokens = _math_tokens(backslash)
    assert tokens and tokens == _math_tokens(dollar)


def test_a_display_formula_after_text_keeps_its_lines() -> None:
    tokens = _math_tokens("前文\n\\[\na\n- b\n\\]\n后文\n")
    assert tokens == [("math_block", "a\n- b", [1, 5])]


@given(st.text(alphabet="\\()[]$ a_*`\n|-", max_size=40))
def test_any_mix_of_delimiters_parses(source: str) -> None:
    markdown_parser().parse(source)


def test_no_commonmark_example_changes() -> None:
    # The spec escapes `(` and `[` in running text (example 12 writes `\[\\\]`): none of its
    # examples may turn into a formula.
    examples = _spec_examples()
    assert len(examples) > 600
    md, plain = MarkdownIt("commonmark").use(backslash_math_plugin), MarkdownIt("commonmark")
    changed = [n for _, source, _, n in examples if md.render(source) != plain.render(source)]
    assert changed == []


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "source",
    ["\\(" * 50_000, "a \\[x " * 30_000, "\\[\n" * 30_000, "- \\[\n" * 20_000, "[\\(" * 20_000],
    ids=["unpaired inline", "unpaired display", "display lines", "in list items", "in links"],
)
def test_unpaired_delimiters_are_parsed_in_bounded_time(source: str) -> None:
    # Each unpaired opening searches the rest of its text for a closer: a search that failed
    # is remembered, else this would take hours (the timeout fails it if it hangs).
    html = markdown_parser().render(source)
    assert "<math" not in html and "math" not in html
