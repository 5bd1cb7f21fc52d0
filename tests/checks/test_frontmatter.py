"""KB1xx: frontmatter of wiki pages — each code triggered, at its place, and silent when right.

Pages written with the ``page`` fixture have: line 1 ``---``, 2 ``type``, 3 ``summary``,
4 ``updated``, then any other keys in the order given.
"""

from __future__ import annotations

from datetime import date

import pytest

from kbtool.diagnostics import Diagnostic


def brief(diagnostics: list[Diagnostic]) -> list[str]:
    return [f"{d.path}:{d.line}:{d.col} {d.code}" for d in diagnostics]


@pytest.fixture
def one_page(make_wiki, check_wiki):
    """Write ``wiki/a.md`` (plus ``extra`` files) and return the KB1 diagnostics."""

    def run(text: str | bytes, extra: dict[str, str] | None = None, **kwargs) -> list[Diagnostic]:
        root = make_wiki({"wiki/a.md": text, **(extra or {})})
        return check_wiki(root, select=kwargs.pop("select", ["KB1"]), **kwargs)

    return run


def test_a_good_page_is_silent(one_page, page) -> None:
    text = page(
        "# A\n",
        title="标题",
        description="详细说明",
        tags="[a, b]",
        related=["b.md"],
        execute="true",
        custom_key="unknown keys are allowed",
    )
    assert one_page(text, {"wiki/b.md": page()}) == []


# --- KB101 no frontmatter ---------------------------------------------------------------


def test_kb101_wiki_page_without_frontmatter(one_page) -> None:
    (d,) = one_page("# A\n\ntext\n")
    assert (d.path, d.line, d.col, d.code, d.severity) == ("wiki/a.md", 1, 1, "KB101", "error")
    assert "no frontmatter" in d.message


def test_kb101_empty_file(one_page) -> None:
    assert brief(one_page(b"")) == ["wiki/a.md:1:1 KB101"]


def test_kb101_not_for_source_pages(one_page, page) -> None:
    # Source pages may have no frontmatter; and their frontmatter is not held to the schema.
    extra = {"sources/s.md": "# Source\n", "sources/t.md": "---\ntype: nonsense\n---\n# T\n"}
    assert one_page(page(), extra) == []


def test_kb101_not_when_the_frontmatter_is_there_but_broken(one_page) -> None:
    assert [d.code for d in one_page("---\ntype: [\n---\n")] == ["KB103"]


# --- KB102-KB105, KB112: what the parser found ------------------------------------------


def test_kb102_unclosed_fence(one_page) -> None:
    (d,) = one_page("---\ntype: concept\nsummary: s\n\n# A\n")
    assert (d.line, d.col, d.code) == (1, 1, "KB102")
    assert "never closed" in d.message


def test_kb103_invalid_yaml_at_the_errors_own_line(one_page) -> None:
    # Line 3 holds "summary: a: b"; YAML rejects the second colon, column 11.
    (d,) = one_page("---\ntype: concept\nsummary: a: b\nupdated: 2020-01-01\n---\n# A\n")
    assert (d.line, d.col, d.code) == (3, 11, "KB103")


def test_kb104_a_list_as_frontmatter(one_page) -> None:
    (d,) = one_page("---\n- type: concept\n- summary: s\n---\n")
    assert (d.line, d.code) == (2, "KB104")
    assert "a list" in d.message


def test_kb105_key_given_twice(one_page, page) -> None:
    # "type: concept" on line 2, "type: method" on line 3: the repeat is reported.
    diagnostics = one_page(page(type="concept\ntype: method"))
    assert brief(diagnostics) == ["wiki/a.md:3:1 KB105"]
    assert "first on line 2" in diagnostics[0].message


def test_kb112_alias_bomb(one_page) -> None:
    lines = ['a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    lines += [f"a{n}: &a{n} [" + ", ".join([f"*a{n - 1}"] * 9) + "]" for n in range(1, 9)]
    (d,) = one_page("---\n" + "\n".join(lines) + "\n---\n# A\n")
    assert (d.line, d.code, d.severity) == (2, "KB112", "error")


# --- KB106 required keys ----------------------------------------------------------------


def test_kb106_missing_required_key(one_page, page) -> None:
    diagnostics = one_page(page(summary=None))
    assert brief(diagnostics) == ["wiki/a.md:1:1 KB106"]
    assert "'summary'" in diagnostics[0].message


def test_kb106_a_key_without_a_value_is_missing(one_page, page) -> None:
    assert [d.code for d in one_page(page(updated=""))] == ["KB106"]


def test_kb106_every_missing_key_is_named(one_page) -> None:
    diagnostics = one_page("---\ntitle: T\n---\n")
    assert [d.code for d in diagnostics] == ["KB106"] * 3
    for key in ("type", "summary", "updated"):
        assert sum(f"'{key}'" in d.message for d in diagnostics) == 1


def test_kb106_required_keys_are_configurable(one_page, page) -> None:
    pyproject = '[tool.kbtool]\nrequired = ["type", "tags"]\n'
    text = page(summary=None, updated=None)
    diagnostics = one_page(text, {"pyproject.toml": pyproject})
    assert [(d.code, "'tags'" in d.message) for d in diagnostics] == [("KB106", True)]
    assert one_page(page(summary=None, tags="[x]"), {"pyproject.toml": pyproject}) == []


# --- KB107 types ------------------------------------------------------------------------


def test_kb107_related_as_one_string_says_how_to_write_the_list(one_page, page) -> None:
    (d,) = one_page(page(related="b.md"), {"wiki/b.md": page()})
    assert (d.line, d.col, d.code) == (5, 1, "KB107")
    assert "must be a list" in d.message
    assert "related: [b.md]" in d.message and "- item" in d.message


@pytest.mark.parametrize(
    ("key", "value", "found"),
    [
        ("tags", "[a, [b]]", "a list holding a list"),
        ("related", "[b.md, 3]", "a list holding a number"),
        ("title", "42", "a number"),
        ("summary", "[a, b]", "a list"),
        ("execute", "maybe", "a string"),
        ("type", "{a: b}", "a mapping"),
        ("updated", "[2020-01-01]", "a list"),
    ],
)
def test_kb107_wrong_type(one_page, page, key: str, value: str, found: str) -> None:
    # A required key keeps its line (2-4); another key comes after them, on line 5.
    line = {"type": 2, "summary": 3, "updated": 4}.get(key, 5)
    diagnostics = [d for d in one_page(page(**{key: value})) if d.code == "KB107"]
    assert [(d.line, d.col) for d in diagnostics] == [(line, 1)]
    assert diagnostics[0].message.endswith(f"not {found}")


@pytest.mark.parametrize("key", ["tags", "aliases"])
def test_kb107_a_string_tags_or_aliases_is_one_in_a_vault_and_wrong_elsewhere(
    one_page, page, key: str
) -> None:
    vault = {"pyproject.toml": '[tool.kbtool]\nflavor = "obsidian"\n'}
    assert [d.code for d in one_page(page(**{key: "reading"}))] == ["KB107"]
    assert [d.code for d in one_page(page(**{key: "reading"}), vault)] == []
    assert [d.code for d in one_page(page(**{key: "[[a]]"}), vault)] == ["KB107"]


def test_kb107_quoted_and_unquoted_dates_are_both_dates(one_page, page) -> None:
    assert one_page(page(updated='"2020-01-01"')) == []


# --- KB108 / KB109 updated --------------------------------------------------------------


@pytest.mark.parametrize("value", ["2026-13-45", "yesterday", "2026/01/02", "2026-1-2", "20260102"])
def test_kb108_not_an_iso_date(one_page, page, value: str) -> None:
    diagnostics = one_page(page(updated=value))
    assert brief(diagnostics) in (["wiki/a.md:4:1 KB108"], ["wiki/a.md:4:1 KB107"])
    if value != "20260102":  # A bare number is a wrong type (KB107), not a bad date string.
        assert diagnostics[0].code == "KB108"
        assert value in diagnostics[0].message


def test_kb109_future_date(one_page, page) -> None:
    today = date(2026, 10, 18)
    diagnostics = one_page(page(updated="2026-10-19"), today=today)
    assert brief(diagnostics) == ["wiki/a.md:4:1 KB109"]
    assert "2026-10-18" in diagnostics[0].message
    assert one_page(page(updated="2026-10-18"), today=today) == []  # today is not the future


# --- KB110 type -------------------------------------------------------------------------


def test_kb110_unknown_type_suggests_the_closest(one_page, page) -> None:
    (d,) = one_page(page(type="concpt"))
    assert (d.line, d.code) == (2, "KB110")
    assert "did you mean 'concept'" in d.message


def test_kb110_types_are_configurable(one_page, page) -> None:
    pyproject = '[tool.kbtool]\ntypes = ["note"]\n'
    assert one_page(page(type="note"), {"pyproject.toml": pyproject}) == []
    (d,) = one_page(page(type="concept"), {"pyproject.toml": pyproject})
    assert d.code == "KB110" and "note" in d.message


# --- KB111 / KB113 summary --------------------------------------------------------------


@pytest.mark.parametrize("value", ['""', "'   '"])
def test_kb111_empty_summary(one_page, page, value: str) -> None:
    (d,) = one_page(page(summary=value))
    assert (d.line, d.code, d.severity) == (3, "KB111", "warning")


def test_kb113_summary_on_several_lines(one_page, page) -> None:
    (d,) = one_page(page(summary="|\n  第一行\n  第二行"))
    assert (d.line, d.code, d.severity) == (3, "KB113", "warning")


def test_kb113_a_folded_summary_is_one_line(one_page, page) -> None:
    # YAML folds ">" scalars into one line (plus a final newline, which does not count).
    assert one_page(page(summary=">\n  第一行\n  接着写")) == []


def test_a_line_break_in_a_value_does_not_break_the_diagnostic_line(one_page, page) -> None:
    diagnostics = one_page(page(type='"con\\ncept"'), select=["KB1", "KB2"])
    (d,) = diagnostics
    assert d.code == "KB110" and "\n" not in d.message and "'con\\ncept'" in d.message


def test_control_characters_in_a_value_are_shown_escaped(one_page, page) -> None:
    # A page must not be able to send terminal escape sequences through kbtool's output.
    (d,) = one_page(page(type='"con\\x1b[31mcept"'))
    assert d.code == "KB110" and "'con\\x1b[31mcept'" in d.message and "\x1b" not in d.message
