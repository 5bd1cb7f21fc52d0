"""Splitting the YAML frontmatter off a page and loading it with positions."""

from __future__ import annotations

import tracemalloc

import pytest

from kbtool.parse.frontmatter import (
    MAX_DEPTH,
    MAX_EXPANDED_NODES,
    load_frontmatter,
    split_frontmatter,
)


@pytest.mark.parametrize(
    ("text", "yaml_text", "body_start"),
    [
        ("---\na: 1\n---\n# T\n", "a: 1\n", 3),
        ("---\na: 1\n...\n# T\n", "a: 1\n", 3),  # YAML's document end closes it too
        ("---  \na: 1\n---\t\n", "a: 1\n", 3),  # trailing blanks on the fences
        ("---\n---\n", "\n", 2),  # empty frontmatter
        ("---\na: 1\n---", "a: 1\n", 3),  # the file ends at the closing fence
    ],
)
def test_split(text: str, yaml_text: str, body_start: int) -> None:
    assert split_frontmatter(text) == (yaml_text, body_start, [])


@pytest.mark.parametrize("text", ["# T\n---\na: 1\n---\n", "", "----\na: 1\n----\n", " ---\n"])
def test_no_frontmatter(text: str) -> None:
    assert split_frontmatter(text) == (None, 0, [])


def test_unclosed_fence() -> None:
    yaml_text, body_start, problems = split_frontmatter("---\ntype: concept\n# T\n")
    assert (yaml_text, body_start) == (None, 0)
    assert [(p.code, p.line) for p in problems] == [("KB102", 1)]


def test_key_and_item_lines() -> None:
    text = "type: concept\nrelated:\n  - a.md\n  -   b.md\ntags: [x, y]\n"
    frontmatter, problems = load_frontmatter(text, first_line=2)
    assert problems == []
    assert frontmatter is not None
    assert frontmatter.data == {"type": "concept", "related": ["a.md", "b.md"], "tags": ["x", "y"]}
    assert frontmatter.key_lines == {"type": 2, "related": 3, "tags": 6}
    assert frontmatter.item_lines["related"] == ((4, 5), (5, 7))
    assert frontmatter.item_lines["tags"] == ((6, 8), (6, 11))
    assert (frontmatter.first_line, frontmatter.last_line) == (2, 7)
    assert frontmatter.line_of("missing") == 2


def test_dates_stay_as_written() -> None:
    # A bad date must reach the checks as text rather than fail in the constructor.
    frontmatter, problems = load_frontmatter("updated: 2026-10-18\nbad: 2026-13-45\n", 2)
    assert problems == [] and frontmatter is not None
    assert frontmatter.data == {"updated": "2026-10-18", "bad": "2026-13-45"}


def test_empty_frontmatter_is_an_empty_mapping() -> None:
    frontmatter, problems = load_frontmatter("\n", 2)
    assert problems == [] and frontmatter is not None and frontmatter.data == {}


@pytest.mark.parametrize(
    ("text", "line", "col", "words"),
    [
        # "summary" is on file line 3; the second colon (column 11) is what YAML rejects.
        ("type: concept\nsummary: a: b\nupdated: 2020-01-01\n", 3, 11, "mapping values"),
        # The tab on file line 3 breaks the indentation.
        ("type: concept\n\tbad: tab\n", 3, 1, "tab"),
        ("a: *nope\n", 2, 4, "undefined alias"),
    ],
)
def test_invalid_yaml_points_at_the_error(text: str, line: int, col: int, words: str) -> None:
    frontmatter, problems = load_frontmatter(text, first_line=2)
    assert frontmatter is None
    (problem,) = problems
    assert (problem.code, problem.line, problem.col) == ("KB103", line, col)
    assert words in problem.message


@pytest.mark.parametrize(
    ("text", "kind"), [("- a\n- b\n", "a list"), ("just text\n", "a single value")]
)
def test_not_a_mapping(text: str, kind: str) -> None:
    frontmatter, problems = load_frontmatter(text, first_line=2)
    assert frontmatter is None
    assert [(p.code, p.line) for p in problems] == [("KB104", 2)]
    assert kind in problems[0].message


def test_key_given_twice_points_at_the_repeat_and_keeps_the_last_value() -> None:
    text = "related:\n  - a.md\ntype: concept\nrelated:\n  - b.md\n"
    frontmatter, problems = load_frontmatter(text, first_line=2)
    assert [(p.code, p.line, p.col) for p in problems] == [("KB105", 5, 1)]
    assert "first on line 2" in problems[0].message
    assert frontmatter is not None
    # YAML keeps the last value; its positions must be the last one's (line 6, not line 3),
    # or a diagnostic about b.md would point at a.md's line.
    assert frontmatter.data["related"] == ["b.md"]
    assert frontmatter.item_lines["related"] == ((6, 5),)
    assert frontmatter.key_lines["related"] == 5


def test_a_repeat_that_is_not_a_list_drops_the_list_positions() -> None:
    frontmatter, _ = load_frontmatter("related:\n  - a.md\nrelated: b.md\n", first_line=2)
    assert frontmatter is not None
    assert frontmatter.data["related"] == "b.md"
    assert "related" not in frontmatter.item_lines


def billion_laughs(levels: int = 9) -> str:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, levels):
        refs = ", ".join([f"*a{level - 1}"] * 9)
        lines.append(f"a{level}: &a{level} [{refs}]")
    return "\n".join(lines) + "\n"


def test_alias_bomb_is_refused_without_expanding_it() -> None:
    # 9**9 (387 million) strings once expanded; refusing must not build any of them.
    tracemalloc.start()
    try:
        frontmatter, problems = load_frontmatter(billion_laughs(), first_line=2)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert frontmatter is None
    assert [(p.code, p.line) for p in problems] == [("KB112", 2)]
    assert peak < 20 * 2**20


def test_aliases_below_the_limit_are_fine() -> None:
    frontmatter, problems = load_frontmatter(billion_laughs(levels=3), first_line=2)
    assert problems == [] and frontmatter is not None
    # a2 is nine copies of a1, which is nine copies of a0, nine "lol"s.
    assert frontmatter.data["a2"] == [[["lol"] * 9] * 9] * 9
    assert MAX_EXPANDED_NODES > 9**3


def test_recursive_alias_is_a_bomb() -> None:
    frontmatter, problems = load_frontmatter("a: &a [*a, *a]\n", first_line=2)
    assert frontmatter is None and [p.code for p in problems] == ["KB112"]


def nested(levels: int) -> str:
    return "".join(" " * i + "a:\n" for i in range(levels)) + " " * levels + "1\n"


def test_deep_nesting_is_refused_not_a_crash() -> None:
    # 999 levels is within libyaml's own limit but deeper than Python's recursion limit:
    # it used to raise RecursionError (a traceback, and the whole run stopped).
    frontmatter, problems = load_frontmatter(nested(999), first_line=2)
    assert frontmatter is None
    assert [(p.code, p.line) for p in problems] == [("KB103", 2)]
    assert "nests deeper" in problems[0].message


def test_nesting_up_to_the_limit_loads() -> None:
    frontmatter, problems = load_frontmatter(nested(MAX_DEPTH - 1), first_line=2)
    assert problems == [] and frontmatter is not None


def test_an_alias_cannot_graft_a_deep_tree_deeper() -> None:
    half = MAX_DEPTH // 2 + 2
    deep = "[" * half + "]" * half
    text = f"a: &deep {deep}\nb: " + "[" * half + "*deep" + "]" * half + "\n"
    frontmatter, problems = load_frontmatter(text, first_line=2)
    assert frontmatter is None and [p.code for p in problems] == ["KB103"]


@pytest.mark.parametrize(
    ("text", "line", "col", "words"),
    [
        # Valid YAML that the safe constructor refuses: at the node it refuses, in one line.
        ("type: c\n? [a, b]\n: 1\n", 3, 3, "unhashable key"),
        ("<<: 5\n", 2, 5, "for merging"),
        ("a: !!python/object:os.system x\n", 2, 4, "could not determine a constructor"),
        ("a: !custom x\n", 2, 4, "could not determine a constructor"),
    ],
)
def test_values_that_cannot_be_constructed(text: str, line: int, col: int, words: str) -> None:
    frontmatter, problems = load_frontmatter(text, first_line=2)
    assert frontmatter is None
    (problem,) = problems
    assert (problem.code, problem.line, problem.col) == ("KB103", line, col)
    assert words in problem.message
    # PyYAML's own text spans lines and counts them from the YAML's start: not kept.
    assert "\n" not in problem.message and "<unicode string>" not in problem.message


def test_a_tagged_mapping_that_is_not_a_mapping() -> None:
    frontmatter, problems = load_frontmatter("!!set\n? a\n? b\n", first_line=2)
    assert frontmatter is None and [p.code for p in problems] == ["KB104"]
