"""Hostile queries and hostile page text: never an error, never markup."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from kbtool.search.engine import IndexFiles, hits, rank
from kbtool.search.excerpt import excerpt, plain_text
from kbtool.search.tokens import CJK, is_cjk, parse_query
from tests.search.support import build, doc, found

BAD_QUERIES = [
    "",
    "   ",
    "注意力" * 3400,  # a 10,000-character paste
    "x" * 10000,
    "!!!，。、？?*+.()[]{}|\\^$",
    "<script>alert(1)</script>",
    '<img src=x onerror="alert(1)">',
    "(a+)+$ .* [^] \\d{2,} (?=x)",
    "🤖🦾 机器人 🤖",
    "\ud800 lone \udfff surrogates \ud83e",
    '"unclosed phrase',
    '""',
    "\x00\x1b[31m",
    "\u202e\u200b\ufeff",
]


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    docs = [
        doc("wiki/a.md", "机器人", "人形机器人 🤖 与 <script>window.pwned=1</script> 文本"),
        doc("wiki/b.md", "Regex", "characters like (a+)+$ and [^] and alert(1)"),
        doc("wiki/c.md", "Odd \u202e Unicode \ud800", "零宽\u200b空格 and \x00 nul"),
    ]
    return build(tmp_path_factory.mktemp("idx") / "search", docs)


@pytest.mark.parametrize("query", BAD_QUERIES, ids=range(len(BAD_QUERIES)))
def test_bad_queries_give_results_or_nothing(folder: Path, query: str) -> None:
    index = IndexFiles(folder)
    ranked = rank(index, query)
    for hit in hits(index, ranked):
        assert isinstance(plain_text(list(hit.excerpt)), str)


def test_a_long_paste_is_cut_and_still_answers(folder: Path) -> None:
    assert len(parse_query("注意力" * 3400).text) <= 200
    assert found(folder, "人形机器人" + " 机器人" * 5000) == ["wiki/a.md"]


def test_script_in_page_text_is_only_text(folder: Path) -> None:
    assert found(folder, "script") == ["wiki/a.md"]
    index = IndexFiles(folder)
    [hit] = hits(index, rank(index, "pwned"))
    text = plain_text(list(hit.excerpt))
    assert "<script>" in text  # shown as the text it is; the browser sets it as textContent
    assert [t for t, marked in hit.excerpt if marked] == ["pwned"]


def test_emoji_and_odd_unicode_are_indexed_around(folder: Path) -> None:
    assert found(folder, "机器人 🤖") == ["wiki/a.md"]
    assert found(folder, "unicode") == ["wiki/c.md"]
    assert found(folder, "零宽") == ["wiki/c.md"]


def test_excerpt_marks_whole_words_and_cjk_runs() -> None:
    d = doc("wiki/x.md", "x", "transformer 用 former 与 注意力；注意 力")
    pieces = excerpt(d, ["former", "注意力"])
    assert [t for t, marked in pieces if marked] == ["former", "注意力"]
    long = doc("wiki/y.md", "y", "前文" * 200 + "目标词" + "后文" * 200)
    pieces = excerpt(long, ["目标词"])
    assert pieces[0] == ("…", False) and pieces[-1] == ("…", False)
    assert 100 < len(plain_text(pieces)) < 200


def test_is_cjk_agrees_with_the_tokens_cjk_class_on_every_character() -> None:
    """The table behind ``is_cjk`` and the regular expression class the tokens (and
    search.js) use name the same characters."""
    cjk_class = re.compile(f"[{CJK}]")
    for code in range(0x110000):
        char = chr(code)
        assert is_cjk(char) == bool(cjk_class.match(char)), hex(code)
