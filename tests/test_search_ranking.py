"""Ranking: the page titled so first, then title/tags/summary over headings over body, with
frequency and length deciding among body matches."""

from __future__ import annotations

from pathlib import Path

from _search_support import build, doc, found

FILLER = "其他内容。" * 40


def test_title_then_summary_then_heading_then_body(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/body.md", "甲", "扩散模型" + FILLER),
            doc("wiki/heading.md", "乙", FILLER, headings=("扩散模型简介",)),
            doc("wiki/summary.md", "丙", FILLER, summary="关于扩散模型"),
            doc("wiki/title.md", "扩散模型入门", FILLER),
            doc("wiki/exact.md", "扩散模型", FILLER),
            doc("wiki/none.md", "丁", FILLER),
        ],
    )
    assert found(folder, "扩散模型") == [
        "wiki/exact.md",
        "wiki/title.md",
        "wiki/summary.md",
        "wiki/heading.md",
        "wiki/body.md",
    ]


def test_exact_title_match_ignores_case_and_spacing(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/a.md", "Diffusion Policy for robots", "diffusion policy " * 20),
            doc("wiki/b.md", "Diffusion  Policy", "short"),
        ],
    )
    assert found(folder, "diffusion policy")[0] == "wiki/b.md"


def test_frequency_and_length_rank_body_matches(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/once.md", "a", "policy " + "word " * 50),
            doc("wiki/often.md", "b", "policy " * 8 + "word " * 43),
            doc("wiki/short.md", "c", "policy word"),
        ],
    )
    ranked = found(folder, "policy ")
    assert ranked.index("wiki/often.md") < ranked.index("wiki/once.md")
    assert ranked.index("wiki/short.md") < ranked.index("wiki/once.md")


def test_rare_terms_weigh_more_than_common_ones(tmp_path: Path) -> None:
    common = [doc(f"wiki/c{i}.md", f"c{i}", "model") for i in range(8)]
    folder = build(
        tmp_path / "search",
        [
            *common,
            doc("wiki/rare.md", "r", "model " * 3 + "sim2real"),
            doc("wiki/many.md", "m", "model " * 6 + "sim2real policy"),
        ],
    )
    ranked = found(folder, "model sim2real")
    assert set(ranked[:2]) == {"wiki/rare.md", "wiki/many.md"}  # both words: first
    assert len(ranked) == 10  # any word: found


def test_phrases_words_and_mixed_tokens(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/a.md", "A", "We train RT-2 with diffusion policy and π0 (sim2real)."),
            doc("wiki/b.md", "B", "policy diffusion; RT 3 and 2 sim2"),
        ],
    )
    assert found(folder, '"diffusion policy"') == ["wiki/a.md"]
    assert set(found(folder, "diffusion policy ")) == {"wiki/a.md", "wiki/b.md"}
    assert found(folder, "RT-2") == ["wiki/a.md"]
    assert found(folder, "π0") == ["wiki/a.md"]
    assert found(folder, "Sim2Real") == ["wiki/a.md"]
    assert set(found(folder, "sim2")) == {"wiki/a.md", "wiki/b.md"}  # typing: a prefix
    assert found(folder, "sim2 ") == ["wiki/b.md"]  # a finished word: whole words only
    assert found(folder, "VLA 模型") == []
