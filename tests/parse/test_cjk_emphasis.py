"""CJK-friendly emphasis: the cases in a data file, the CommonMark spec, and bounds."""

from __future__ import annotations

import os
import re
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it import MarkdownIt

from kbtool.parse.cjk_emphasis import cjk_base, cjk_emphasis_plugin
from kbtool.parse.markdown import markdown_parser

DATA = Path(__file__).parent.parent / "fixtures" / "parse" / "cjk_emphasis.txt"
SPEC = Path(__file__).resolve().parents[2] / "node_modules" / "commonmark-spec" / "spec.txt"


def read_cases(path: Path) -> list[tuple[str, str, str]]:
    """(title, Markdown, HTML): a title line, then two blocks each ended by a line "."."""
    lines = path.read_text(encoding="utf-8").split("\n")
    index = lines.index("") + 1
    cases = []
    while index < len(lines):
        if not lines[index].strip():
            index += 1
            continue
        title = lines[index]
        assert lines[index + 1] == ".", f"case {title!r} needs '.' after its title"
        end_input = lines.index(".", index + 2)
        end_output = lines.index(".", end_input + 1)
        source = "\n".join(lines[index + 2 : end_input]) + "\n"
        html = "\n".join(lines[end_input + 1 : end_output]) + "\n"
        cases.append((title, source, html))
        index = end_output + 1
    return cases


CASES = read_cases(DATA)


@pytest.mark.parametrize(("title", "source", "html"), CASES, ids=[c[0] for c in CASES])
def test_case(title: str, source: str, html: str) -> None:
    assert markdown_parser().render(source) == html


def test_the_data_file_holds_cases() -> None:
    assert len(CASES) >= 20


def test_plain_commonmark_gets_the_real_case_wrong() -> None:
    # What the rule is for: without it, the bold lands between the two bold spans.
    plain = MarkdownIt("commonmark").render("由**「可供策略消费」**决定")
    assert "<strong>「可供策略消费」</strong>" not in plain


@pytest.mark.parametrize(
    ("char", "expected"),
    [("字", True), ("「", True), ("，", True), ("ｱ", True), ("한", True), ("a", False)]
    + [("😀", False), ("“", None), ("〰", True), ("🈷", True), ("→", None), ("é", False)],
)
def test_cjk_base(char: str, expected: bool | None) -> None:
    assert cjk_base(char) is expected


def _spec_examples() -> list[tuple[str, str, str, int]]:
    """(section, Markdown, HTML, number) of every example in the CommonMark spec (npm's
    ``commonmark-spec``, installed by ``npm ci``)."""
    if not SPEC.is_file():
        if os.environ.get("CI", "").lower() == "true":
            pytest.fail(f"{SPEC} is missing: `make` runs `npm ci`")
        pytest.skip("the CommonMark spec is not installed (npm ci)")
    text = SPEC.read_text(encoding="utf-8").replace("\r\n", "\n")
    text = text.split("<!-- END TESTS -->")[0]
    fence = "`" * 32
    pattern = re.compile(
        rf"^{fence} example\n(.*?)^\.\n(.*?)^{fence}$|^#{{1,6}} *([^\n]*)$", re.M | re.S
    )
    examples, section = [], ""
    for match in pattern.finditer(text):
        if match.group(3) is not None:
            section = match.group(3)
            continue
        source, html = (g.replace("\u2192", "\t") for g in match.group(1, 2))
        examples.append((section, source, html, len(examples) + 1))
    return examples


def _with_rule() -> MarkdownIt:
    return MarkdownIt("commonmark").use(cjk_emphasis_plugin)


def test_every_commonmark_emphasis_example_still_passes() -> None:
    examples = [e for e in _spec_examples() if e[0] == "Emphasis and strong emphasis"]
    assert len(examples) > 100
    md = _with_rule()
    failed = [number for _, source, html, number in examples if md.render(source) != html]
    assert failed == []


def test_no_commonmark_example_changes() -> None:
    # The spec's examples have no CJK text, so the rule must leave every one as it was.
    examples = _spec_examples()
    assert len(examples) > 600
    md, plain = _with_rule(), MarkdownIt("commonmark")
    changed = [n for _, source, _, n in examples if md.render(source) != plain.render(source)]
    assert changed == []


@pytest.mark.timeout(60)
@pytest.mark.parametrize(
    "source",
    [
        "**「" * 20_000 + "深" + "」**" * 20_000,
        "*" * 50_000 + "中文" + "*" * 50_000,
        "中**文" * 30_000,
        "~~「" * 20_000 + "字",
        "_中_" * 30_000,
    ],
    ids=["nested bold", "long runs", "unclosed bold", "unclosed strike", "underscores"],
)
def test_deep_or_unbalanced_emphasis_is_parsed_in_bounded_time(source: str) -> None:
    # A pathological run must finish (the timeout fails it if it hangs) and keep the text.
    html = markdown_parser().render(source)
    assert html.count("深" if "深" in source else "中" if "中" in source else "字") >= 1


@settings(max_examples=300, deadline=None)
@given(st.text(alphabet="*_~「」（）。，字aA1 \n\ufe01\ufe0e“”😀한!-", max_size=80))
def test_any_mix_of_markers_and_cjk_parses_and_keeps_its_letters(text: str) -> None:
    html = markdown_parser().render(text)
    for char in "字한😀":
        assert html.count(char) == text.count(char)
