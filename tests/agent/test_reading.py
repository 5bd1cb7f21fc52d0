"""read_page and list_pages, in process: a section by heading, anchor or block id; long pages
in pieces; frontmatter conditions."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.agent.errors import Refused
from kbtool.agent.listing import list_pages
from kbtool.agent.reading import MAX_CHARS, read_page
from kbtool.agent.state import AgentWiki
from kbtool.config import load_config
from tests.agent.support import small_wiki
from tests.conftest import page_text


def _wiki(root: Path) -> AgentWiki:
    return AgentWiki(load_config(root))


def test_a_section_by_heading_anchor_or_block_id(tmp_path: Path) -> None:
    wiki = _wiki(small_wiki(tmp_path / "repo"))
    by_text = read_page(wiki, "wiki/concepts/attention.md", "多头注意力")
    by_anchor = read_page(wiki, "./wiki/concepts/attention.md", "#多头注意力")
    assert by_text.text == by_anchor.text
    assert by_text.text.startswith("## 多头注意力") and "Softmax" not in by_text.text
    block = read_page(wiki, "wiki/concepts/attention.md", "^heads")
    assert block.text == "Several heads attend at once. ^heads"
    first = read_page(wiki, "wiki/concepts/attention.md", "缩放点积注意力")
    assert "Softmax" in first.text and "多头" not in first.text  # up to the next heading
    assert first.frontmatter["updated"] == "2020-01-01"  # a date, as JSON holds it


def test_a_missing_section_or_page_says_what_there_is(tmp_path: Path) -> None:
    wiki = _wiki(small_wiki(tmp_path / "repo"))
    with pytest.raises(Refused, match="#缩放点积注意力"):
        read_page(wiki, "wiki/concepts/attention.md", "nope")
    with pytest.raises(Refused, match="did you mean wiki/concepts/attention.md"):
        read_page(wiki, "wiki/attention.md")
    with pytest.raises(Refused, match="no block"):
        read_page(wiki, "wiki/concepts/attention.md", "^nope")


def test_a_long_page_is_read_in_pieces(tmp_path: Path) -> None:
    lines = [f"line {n} " + "x" * 100 for n in range(1000)]
    root = small_wiki(
        tmp_path / "repo", {"wiki/long.md": page_text("# Long\n\n" + "\n".join(lines))}
    )
    wiki = _wiki(root)
    seen: list[str] = []
    offset: int | None = 1
    answers = 0
    while offset is not None:
        part = read_page(wiki, "wiki/long.md", offset=offset)
        assert len(part.text) <= MAX_CHARS
        seen += part.text.split("\n")
        offset, answers = part.next_offset, answers + 1
    assert answers > 1
    assert "\n".join(seen) == (root / "wiki/long.md").read_text(encoding="utf-8")


def test_pages_listed_by_their_frontmatter(tmp_path: Path) -> None:
    extra = {
        "wiki/concepts/old.md": page_text("# Old\n", updated="2019-05-01", tags="[sim2real, rl]"),
    }
    wiki = _wiki(small_wiki(tmp_path / "repo", extra))

    def paths(*where: str, folder: str | None = None) -> list[str]:
        return [p.path for p in list_pages(wiki, list(where), folder).pages]

    assert paths("type = method") == ["wiki/methods/transformer.md"]
    assert paths("tags contains sim2real") == ["wiki/concepts/old.md"]
    assert paths("updated < 2020-01-01") == ["wiki/concepts/old.md"]
    assert paths("type = concept", "updated >= 2020-01-01") == ["wiki/concepts/attention.md"]
    assert paths("related exists") == ["wiki/methods/transformer.md"]
    assert paths(folder="wiki/methods") == ["wiki/methods/transformer.md"]
    with pytest.raises(Refused, match="KEY OPERATOR VALUE"):
        list_pages(wiki, ["type is method"])
    first = list_pages(wiki, limit=2)
    assert first.total == 4 and first.next_offset == 2  # the source page too
    assert len(list_pages(wiki, offset=2, limit=2).pages) == 2


def test_an_answer_stays_bounded_whatever_the_page_holds(tmp_path: Path) -> None:
    huge = "\n".join(f"  - {'值' * 50}{n}" for n in range(2000))
    headings = "\n\n".join(f"## H{n}" for n in range(1000))
    text = f"---\ntype: concept\nsummary: s\nupdated: 2020-01-01\nnotes:\n{huge}\n---\n{headings}\n"
    root = small_wiki(tmp_path / "repo", {"wiki/big.md": text})
    answer = read_page(_wiki(root), "wiki/big.md")
    assert len(answer.model_dump_json()) < 4 * MAX_CHARS
    assert "_too_long" in answer.frontmatter and len(answer.outline) == 300
