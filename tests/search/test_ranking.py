"""Ranking: the page titled so first, then title/tags/summary over headings over body, with
frequency and length deciding among body matches."""

from __future__ import annotations

from pathlib import Path

from kbtool.search.writer import write_search_index
from tests.search.support import build, doc, found

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


# -- one test per rule of the many-word engine (kbtool/search/engine.py) ---------------------


def test_words_are_optional_and_more_of_them_rank_higher(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/one.md", "a", "MPC " * 5 + FILLER),
            doc("wiki/two.md", "b", "MPC WBC " + FILLER),
            doc("wiki/three.md", "c", "MPC WBC 接触力 " + FILLER),
            doc("wiki/none.md", "d", FILLER),
        ],
    )
    assert found(folder, "MPC WBC 接触力 ") == ["wiki/three.md", "wiki/two.md", "wiki/one.md"]


def test_a_quoted_phrase_is_required_and_exact(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/a.md", "a", "diffusion policy for robots"),
            doc("wiki/b.md", "b", "policy of diffusion, robots"),
            doc("wiki/c.md", "c", "robots robots robots"),
        ],
    )
    assert found(folder, '"diffusion policy" robots ') == ["wiki/a.md"]


def test_minus_excludes_a_word_or_a_cjk_run(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/a.md", "a", "强化学习 sim2real"),
            doc("wiki/b.md", "b", "强化学习 仿真"),
            doc("wiki/c.md", "c", "强化学习"),
        ],
    )
    assert set(found(folder, "强化学习 -sim2real")) == {"wiki/b.md", "wiki/c.md"}
    assert found(folder, "强化学习 -sim2real -仿真") == ["wiki/c.md"]
    assert found(folder, "-强化学习") == []  # only exclusions: nothing is asked for


def test_type_and_tag_filter_and_combine(tmp_path: Path) -> None:
    folder = tmp_path / "search"
    docs = [
        doc("wiki/a.md", "a", "policy", tags=("RL", "humanoid"), type="method"),
        doc("wiki/b.md", "b", "policy", tags=("rl",), type="concept"),
        doc("sources/c.md", "c", "policy", type="source"),
    ]
    write_search_index({d.card.path: d for d in docs}, folder, labels={"method": "方法"})
    assert found(folder, "policy type:method") == ["wiki/a.md"]
    assert found(folder, "policy type:方法") == ["wiki/a.md"]  # the type's label
    assert set(found(folder, "policy type:method type:concept")) == {"wiki/a.md", "wiki/b.md"}
    assert set(found(folder, "tag:rl")) == {"wiki/a.md", "wiki/b.md"}  # a filter alone
    assert found(folder, "tag:rl tag:humanoid type:method policy") == ["wiki/a.md"]
    assert found(folder, "policy -type:source -tag:humanoid") == ["wiki/b.md"]


def test_a_long_cjk_run_matches_exactly_then_near_then_partly(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/exact.md", "a", "全身控制" + FILLER),
            doc("wiki/near.md", "b", "全身运动控制" + FILLER),
            doc("wiki/partial.md", "c", "全身的姿态。" + FILLER),
            doc("wiki/far.md", "d", "控制" + FILLER + "全身"),
        ],
    )
    # One word: exact-substring semantics while a page holds it.
    assert found(folder, "全身控制") == ["wiki/exact.md"]
    # Among several words, a run also matches near (in order, close) and partly.
    ranked = found(folder, "全身控制 其他内容")
    assert ranked[:2] == ["wiki/exact.md", "wiki/near.md"]
    assert set(ranked[2:]) == {"wiki/partial.md", "wiki/far.md"}


def test_a_one_word_query_no_page_holds_matches_loosely(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/near.md", "a", "人形机器人的全身运动控制"),
            doc("wiki/half.md", "b", "人形机器人"),
            doc("wiki/none.md", "c", "无关"),
        ],
    )
    assert found(folder, "人形机器人全身控制") == ["wiki/near.md", "wiki/half.md"]


def test_a_misspelt_word_finds_the_words_one_edit_away(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/a.md", "Transformer", "transformer attention"),
            doc("wiki/b.md", "b", "transform"),
        ],
    )
    assert found(folder, "transfomer ") == ["wiki/a.md"]  # one letter dropped
    assert found(folder, "tarnsformer ") == []  # first two letters: not looked up
    assert found(folder, "transformre ") == ["wiki/a.md"]  # two neighbours swapped
    assert found(folder, "tran ") == []  # short words are taken as they are


def test_short_title_comes_after_the_whole_title_and_before_the_rest(tmp_path: Path) -> None:
    folder = build(
        tmp_path / "search",
        [
            doc("wiki/body.md", "Sequence models", "Mamba " * 30),
            doc("wiki/short.md", "Mamba（选择性状态空间模型）", "Mamba"),
            doc("wiki/whole.md", "mamba", "x"),
            doc("sources/other.md", "Transformers are SSMs（Mamba-2）", "Mamba " * 30),
        ],
    )
    assert found(folder, "Mamba ")[:2] == ["wiki/whole.md", "wiki/short.md"]


def test_a_word_in_the_title_outweighs_a_rarer_word_in_the_body(tmp_path: Path) -> None:
    common = [doc(f"wiki/c{i}.md", f"c{i}", "policy network") for i in range(10)]
    folder = build(
        tmp_path / "search",
        [
            *common,
            doc("wiki/titled.md", "Policy network", "policy network"),
            doc("wiki/body.md", "x", "policy network zeta"),
        ],
    )
    assert found(folder, "policy network ")[0] == "wiki/titled.md"


def test_equal_scores_fall_in_path_order(tmp_path: Path) -> None:
    paths = ["wiki/c.md", "wiki/a.md", "sources/b.md", "wiki/b.md"]
    folder = build(tmp_path / "search", [doc(p, "t", "同一句话") for p in paths])
    assert found(folder, "同一句话") == sorted(paths)


# -- what the wiki knows: in-links, wiki pages before sources (kbtool/search/priors.py) ------

#: Pages that give the words of the broad query below their usual page counts.
OTHERS = [doc(f"wiki/o{i}.md", f"其他 {i}", "注意力 " if i % 3 else "位置编码 ") for i in range(12)]


def test_in_links_let_a_long_hub_win_a_broad_query(tmp_path: Path) -> None:
    hub = doc("wiki/hub.md", "Transformer（架构）", ("注意力 位置编码 " + FILLER * 12) * 8)
    short = doc("wiki/note.md", "Transformer 小记", "注意力 位置编码 " + FILLER)
    pages = [*OTHERS, hub, short]
    query = "Transformer 注意力 位置编码"
    assert found(build(tmp_path / "none", pages), query)[0] == "wiki/note.md"  # length decides
    linked = build(tmp_path / "linked", pages, {"wiki/hub.md": 300, "wiki/note.md": 6})
    assert found(linked, query)[:2] == ["wiki/hub.md", "wiki/note.md"]


def test_in_links_do_not_bury_a_better_match(tmp_path: Path) -> None:
    pages = [
        *OTHERS,
        doc("wiki/hub.md", "Transformer", ("位置编码 " + FILLER) * 8),
        doc("wiki/titled.md", "位置编码入门", FILLER),
    ]
    folder = build(tmp_path / "search", pages, {"wiki/hub.md": 1000})
    assert found(folder, "位置编码")[0] == "wiki/titled.md"  # a title over a body, any hub
    assert found(folder, "Transformer")[0] == "wiki/hub.md"


def test_on_an_equal_score_a_wiki_page_comes_before_a_source(tmp_path: Path) -> None:
    pages = [
        doc("sources/papers/a.md", "论文", "扩散策略 的 笔记", type="source"),
        doc("wiki/z.md", "页面", "扩散策略 的 笔记"),  # after the source by path
        doc("sources/papers/b.md", "b", "扩散策略 " * 3 + "笔记", type="source"),
    ]
    folder = build(tmp_path / "search", pages)
    assert found(folder, "扩散策略")[-2:] == ["wiki/z.md", "sources/papers/a.md"]


def test_a_title_equal_to_the_query_puts_wiki_pages_before_sources(tmp_path: Path) -> None:
    pages = [
        doc("sources/papers/mamba.md", "Mamba", "Mamba " * 10, type="source"),
        doc("sources/papers/mamba-2.md", "Mamba（论文）", "Mamba " * 10, type="source"),
        doc("wiki/concepts/mamba.md", "Mamba", "状态空间模型"),
        doc("wiki/methods/mamba.md", "Mamba（方法）", "选择性扫描"),
        doc("wiki/concepts/ssm.md", "SSM", "Mamba " * 10),
    ]
    # The sources match better and are more linked: the wiki pages still come first.
    links = {"sources/papers/mamba.md": 50, "sources/papers/mamba-2.md": 50}
    folder = build(tmp_path / "search", pages, links)
    assert found(folder, "mamba") == [
        "wiki/concepts/mamba.md",
        "sources/papers/mamba.md",
        "wiki/methods/mamba.md",
        "sources/papers/mamba-2.md",
        "wiki/concepts/ssm.md",
    ]
