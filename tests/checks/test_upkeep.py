"""KB306–KB308, the upkeep checks: unlinked mentions (CJK and Latin), pages of the same title,
pages of nearly the same body. Off by default; on, in the in-memory checks and in the check
stage alike, and the stage's records follow the titles of other pages."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kbtool.checks.mentions import Named, Names, names_of

ON = '[tool.kbtool]\nseverity = { KB306 = "warning", KB307 = "warning", KB308 = "warning" }\n'


def _names(*pages: tuple[str, str] | tuple[str, str, list[str]]) -> Names:
    return Names(
        Named(path, "wiki", names_of(title, *(rest or ([],)))) for path, title, *rest in pages
    )


def _found(names: Names, text: str, path: str = "wiki/self.md") -> list[tuple[str, int, int]]:
    return [(m.target, m.line, m.col) for m in names.find(path, text)]


def test_a_cjk_title_inside_a_longer_title_is_one_mention_of_the_longer() -> None:
    names = _names(("wiki/a.md", "注意力机制"), ("wiki/b.md", "多头注意力机制"))
    assert _found(names, "我们用多头注意力机制。") == [("wiki/b.md", 1, 4)]
    assert _found(names, "注意力机制与多头注意力机制") == [("wiki/a.md", 1, 1), ("wiki/b.md", 1, 7)]


def test_cjk_names_need_no_word_boundary_and_two_characters_are_too_few() -> None:
    names = _names(("wiki/a.md", "强化学习"), ("wiki/b.md", "策略"))
    assert _found(names, "深度强化学习的策略") == [("wiki/a.md", 1, 3)]


def test_mentions_in_links_code_headings_math_and_frontmatter_are_left_alone() -> None:
    names = _names(("wiki/a.md", "注意力机制"), ("wiki/t.md", "Transformer"))
    text = "\n".join(
        [
            "---",
            "summary: 注意力机制 and Transformer",
            "---",
            "# 注意力机制",
            "## Transformer 的结构",
            "见 [注意力机制](other.md) 与 [[Transformer 笔记]]，`注意力机制` 和 ``Transformer``。",
            "<span title='注意力机制'>x</span> https://example.org/注意力机制 $注意力机制$",
            "```python",
            "Transformer = 1  # 注意力机制",
            "```",
            "$$",
            "\\text{注意力机制}",
            "$$",
            "最后一行：注意力机制。",
        ]
    )
    assert _found(names, text) == [("wiki/a.md", 14, 6)]


def test_latin_names_stand_at_word_boundaries_any_case_short_capitals_exact() -> None:
    names = _names(("wiki/t.md", "Transformer"), ("wiki/g.md", "GPT"))
    assert _found(names, "Transformers and TransformerXL") == []
    assert _found(names, "the gpt-like transformer，用GPT") == [
        ("wiki/t.md", 1, 14),
        ("wiki/g.md", 1, 27),
    ]


def test_places_count_characters_of_every_width() -> None:
    """The automaton walks bytes: a place is still counted in characters, after characters of
    two, three and four bytes and a capital whose lower case is shorter (the Kelvin sign)."""
    names = _names(
        ("wiki/a.md", "注意力机制"), ("wiki/t.md", "Transformer"), ("wiki/k.md", "KV 缓存")
    )
    text = "é😀Å注意力机制\n\u212a—😀😀 transformer，𠀋KV 缓存"
    assert _found(names, text) == [("wiki/a.md", 1, 4), ("wiki/t.md", 2, 6), ("wiki/k.md", 2, 19)]


def test_only_the_first_mention_of_each_page_and_never_the_own_title() -> None:
    names = _names(("wiki/t.md", "Transformer"), ("wiki/self.md", "自注意力层"))
    found = names.find("wiki/self.md", "自注意力层用 Transformer。\nTransformer again，自注意力层")
    assert [(m.target, m.line, m.written) for m in found] == [("wiki/t.md", 1, "Transformer")]


def test_a_page_already_linked_is_not_told_again() -> None:
    names = _names(("wiki/concepts/t.md", "Transformer"), ("wiki/concepts/m.md", "Mamba 模型"))
    text = "---\nrelated:\n  - t.md\n---\nTransformer 与 Mamba 模型，[[Mamba 模型]] 见上。\n"
    assert _found(names, text, "wiki/concepts/self.md") == []


def test_aliases_and_the_parts_of_a_bilingual_title_are_names() -> None:
    names = _names(("wiki/a.md", "动作分块（Action Chunking）", ["ACT 策略"]))
    assert _found(names, "一段讲 action chunking 的话") == [("wiki/a.md", 1, 5)]
    assert _found(names, "另一段讲动作分块") == [("wiki/a.md", 1, 5)]
    assert _found(names, "用 ACT 策略") == [("wiki/a.md", 1, 3)]
    assert names_of("Swin Transformer（arXiv:2103.14030）") == (
        "Swin Transformer（arXiv:2103.14030）",
        "Swin Transformer",
    )


@pytest.mark.parametrize(
    "text",
    [
        "`" * 5000 + "注意力",
        "[" * 3000 + "](" * 3000,
        "$" * 4001 + "注意力机制",
        "<" * 2000 + "a" * 2000,
        "\x00\x01\u202e注意力机制\ufeff\r\n" * 50,
        "---\n" + "key: v\n" * 100,
        "```\n" * 3 + "注意力机制",
        "İİİ注意力机制",  # a capital whose lower case is longer: places still hold
    ],
)
def test_hostile_text_neither_raises_nor_misplaces(text: str) -> None:
    names = _names(
        ("wiki/a.md", "注意力机制"), ("wiki/c.md", "C++ (语言)"), ("wiki/r.md", "a*b?[c]")
    )
    for mention in names.find("wiki/self.md", text):
        line = text.split("\n")[mention.line - 1]
        assert line[mention.col - 1 :].lower().startswith(mention.written.lower())


def test_two_pages_of_one_name_are_no_target() -> None:
    names = Names(
        [
            Named("wiki/a.md", "wiki", ("Diffusion Policy",)),
            Named("sources/a.md", "source", ("Diffusion Policy",)),
            Named("wiki/b.md", "wiki", ("Layer Norm",)),
            Named("wiki/c.md", "wiki", ("Layer Norm",)),
        ]
    )
    assert _found(names, "Diffusion Policy and Layer Norm") == [("wiki/a.md", 1, 1)]


# The checks as kbtool check runs them


def _wiki(make_wiki, page, config: str = ON) -> Path:
    return make_wiki(
        {
            "pyproject.toml": config,
            "wiki/concepts/attention.md": page("# 注意力机制\n\n注意力机制的定义与计算。\n"),
            "wiki/concepts/mha.md": page(
                "# 多头注意力机制\n\n多头注意力机制把注意力机制并行做多次。\n",
                related=["attention.md"],
            ),
            "wiki/concepts/rl.md": page(
                "# 强化学习\n\n策略用多头注意力机制，见 `注意力机制`。\n", aliases=["RL 方法"]
            ),
            "wiki/concepts/ppo.md": page("# PPO 算法\n\n一种 RL 方法，属于强化学习。\n"),
        }
    )


def test_off_by_default(make_wiki, page, check_wiki) -> None:
    root = _wiki(make_wiki, page, config="")
    assert [d for d in check_wiki(root) if d.code in ("KB306", "KB307", "KB308")] == []


def test_kb306_in_memory(make_wiki, page, check_wiki) -> None:
    found = [(d.path, d.line, d.col) for d in check_wiki(_wiki(make_wiki, page), select=["KB306"])]
    assert found == [
        ("wiki/concepts/ppo.md", 8, 4),  # the alias RL 方法 (and 强化学习: the same page)
        ("wiki/concepts/rl.md", 10, 4),  # 多头注意力机制; 注意力机制 in code left alone
    ]


def test_aliases_of_the_wrong_type_are_kb107(make_wiki, page, check_wiki) -> None:
    root = make_wiki({"wiki/a.md": page("# A\n", aliases="one string")})
    assert [d.code for d in check_wiki(root, select=["KB107"])] == ["KB107"]


def _check_json(run_kbtool, root: Path, *codes: str) -> list[tuple[str, int, str]]:
    result = run_kbtool("-C", root, "check", "--format", "json", "--select", ",".join(codes))
    return [(d["path"], d["line"], d["code"]) for d in json.loads(result.out)["diagnostics"]]


def test_the_check_stage_finds_them_and_follows_other_pages_titles(
    make_wiki, page, run_kbtool
) -> None:
    root = _wiki(make_wiki, page)
    first = _check_json(run_kbtool, root, "KB306")
    assert first == [("wiki/concepts/ppo.md", 8, "KB306"), ("wiki/concepts/rl.md", 10, "KB306")]
    assert _check_json(run_kbtool, root, "KB306") == first  # from the records
    # a new page's title is a new name: the unchanged pages' mentions are found again
    (root / "wiki/concepts/def.md").write_text(page("# 定义与计算\n\n无。\n"), encoding="utf-8")
    assert ("wiki/concepts/attention.md", 8, "KB306") in _check_json(run_kbtool, root, "KB306")


def test_kb307_leaves_out_pages_titled_by_their_file_name(make_wiki, page, run_kbtool) -> None:
    # Two notes of one name in two folders, as a vault has them, titled by that name.
    root = make_wiki(
        {
            "pyproject.toml": ON.replace("[tool.kbtool]", '[tool.kbtool]\nflavor = "obsidian"'),
            "wiki/a/Plan.md": page("# This year's plan\n"),
            "wiki/b/Plan.md": page("Old.\n"),
            "wiki/c.md": page("# Heading\n", title="Same"),
            "wiki/d.md": page("# Other heading\n", title="Same"),
        }
    )
    # Titles of their own are still compared.
    assert _check_json(run_kbtool, root, "KB307") == [
        ("wiki/c.md", 1, "KB307"),
        ("wiki/d.md", 1, "KB307"),
    ]


def test_kb307_same_title_normalised(make_wiki, page, run_kbtool) -> None:
    root = make_wiki(
        {
            "pyproject.toml": ON,
            "wiki/a.md": page("# Ｄiffusion  Policy\n"),
            "sources/a.md": "# diffusion policy\n",
            "wiki/b.md": page("# Diffusion Policies\n"),
        }
    )
    assert _check_json(run_kbtool, root, "KB307") == [
        ("sources/a.md", 1, "KB307"),
        ("wiki/a.md", 1, "KB307"),
    ]


BODY = "。".join(f"第{i}句话讲的是一个相当具体的事实编号{i * 7}" for i in range(60))


def test_kb308_nearly_the_same_body(make_wiki, page, run_kbtool) -> None:
    other = "。".join(f"另一页的第{i}句完全不同的内容编号{i * 11}" for i in range(60))
    root = make_wiki(
        {
            "pyproject.toml": ON,
            "wiki/a.md": page(f"# A\n\n{BODY}\n"),
            "wiki/b.md": page(f"# B\n\n{BODY.replace('第3句话', '第三句话')}\n"),
            "wiki/c.md": page(f"# C\n\n{other}\n"),
        }
    )
    assert _check_json(run_kbtool, root, "KB308") == [
        ("wiki/a.md", 1, "KB308"),
        ("wiki/b.md", 1, "KB308"),
    ]
    config = ON + "duplicate-threshold = 1.0\n"
    (root / "pyproject.toml").write_text(config, encoding="utf-8")
    assert _check_json(run_kbtool, root, "KB308") == []


def test_fix_links_the_first_mention_where_kb306_is_on(make_wiki, page, run_kbtool) -> None:
    root = _wiki(make_wiki, page)
    result = run_kbtool("-C", root, "fix")
    assert "wiki/concepts/ppo.md: fixed line 8: 'RL 方法' linked" in result.out
    ppo = (root / "wiki/concepts/ppo.md").read_text(encoding="utf-8")
    assert "一种 [RL 方法](rl.md)，属于强化学习。" in ppo  # the first mention only
    rl = (root / "wiki/concepts/rl.md").read_text(encoding="utf-8")
    assert "策略用[多头注意力机制](mha.md)，见 `注意力机制`。" in rl
    assert _check_json(run_kbtool, root, "KB306") == []


def test_fix_leaves_mentions_alone_where_kb306_is_off(make_wiki, page, run_kbtool) -> None:
    root = _wiki(make_wiki, page, config="")
    before = (root / "wiki/concepts/ppo.md").read_text(encoding="utf-8")
    run_kbtool("-C", root, "fix")
    assert (root / "wiki/concepts/ppo.md").read_text(encoding="utf-8") == before


def test_init_proposes_the_upkeep_checks_with_counts(make_wiki, page, run_kbtool) -> None:
    root = _wiki(make_wiki, page, config="")
    result = run_kbtool("-C", root, "init", "--yes")
    assert result.code == 0, result.err
    written = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert 'KB306 = "warning"  # 2 reports on 2 pages' in written
    assert "KB307 (pages with the same title): nothing to report; left off" in result.out
    assert "KB307 =" not in written


def test_kb309_lists_terms_on_many_pages_without_a_page(make_wiki, page, run_kbtool) -> None:
    files = {"pyproject.toml": '[tool.kbtool]\nseverity = { KB309 = "warning" }\n'}
    for i in range(12):
        terms = "**策略蒸馏** 与 `Q-learning`" if i < 6 else "只有 **强化学习**"
        files[f"wiki/p{i}.md"] = page(f"# 页面 {i}\n\n**一句话定义**：{terms}，`x = 1`。\n")
    files["wiki/rl.md"] = page("# 强化学习\n")
    root = make_wiki(files)
    out = run_kbtool("-C", root, "check", "--statistics").out
    assert "KB309: 2 terms in bold or code on 5+ pages, no page of their own:" in out
    assert "    6  Q-learning\n    6  策略蒸馏" in out  # not 强化学习 (a page), nor the label
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    assert "KB309" not in run_kbtool("-C", root, "check", "--statistics").out


def test_kb308_after_an_edit_as_after_a_cold_check(make_wiki, page, run_kbtool) -> None:
    """With few pages changed, the stored pairs are kept and only those pages compared."""
    files = {"pyproject.toml": ON, "wiki/a.md": page(f"# A\n\n{BODY}\n")}
    for i in range(40):
        own = "。".join(f"第{i}页自己的第{j}句话内容各不相同{i * 100 + j}" for j in range(30))
        files[f"wiki/f{i:02d}.md"] = page(f"# F{i}\n\n{own}\n")
    files["wiki/b.md"] = page(f"# B\n\n{BODY}\n")
    root = make_wiki(files)
    pairs = [("wiki/a.md", 1, "KB308"), ("wiki/b.md", 1, "KB308")]
    assert _check_json(run_kbtool, root, "KB308") == pairs
    (root / "wiki/f07.md").write_text(page(f"# F7\n\n{BODY}\n"), encoding="utf-8")
    three = sorted([*pairs, *pairs, ("wiki/f07.md", 1, "KB308"), ("wiki/f07.md", 1, "KB308")])
    assert sorted(_check_json(run_kbtool, root, "KB308")) == three
    (root / "wiki/b.md").write_text(page("# B\n\n别的内容。\n"), encoding="utf-8")
    after = [("wiki/a.md", 1, "KB308"), ("wiki/f07.md", 1, "KB308")]
    assert _check_json(run_kbtool, root, "KB308") == after
    shutil.rmtree(root / ".kbtool")
    assert _check_json(run_kbtool, root, "KB308") == after  # cold: the same


def test_a_latin_name_inside_a_longer_capitalised_name_is_no_mention() -> None:
    names = _names(("wiki/t.md", "Transformer"), ("wiki/a.md", "动作分块（Action Chunking）"))
    assert _found(names, "Vision Transformer、Generative Pre-trained Transformer") == []
    assert _found(names, "Action Chunking Transformer") == []
    assert _found(names, "| DiT | Diffusion Transformer | 以 Transformer 为骨干 |") == [
        ("wiki/t.md", 1, 35)
    ]
    assert _found(names, "See Transformer; the Action Chunking idea") == [
        ("wiki/t.md", 1, 5),
        ("wiki/a.md", 1, 22),
    ]


#: KB306 on the bundled wiki, every hit reviewed: none (its pages link what they name; the
#: same lines with their links taken out are the cases of tests/fixtures/mentions/)
BUNDLED_MENTIONS: list[str] = []


def test_the_bundled_wiki_has_no_unreviewed_mention(tmp_path: Path, run_kbtool) -> None:
    repository = Path(__file__).resolve().parents[2]
    root = tmp_path / "repo"
    for folder in ("wiki", "sources"):
        shutil.copytree(repository / folder, root / folder)
    (root / "pyproject.toml").write_text(ON, encoding="utf-8")
    result = run_kbtool("-C", root, "check", "--format", "json", "--select", "KB306")
    found = [f"{d['path']}:{d['line']}" for d in json.loads(result.out)["diagnostics"]]
    assert found == BUNDLED_MENTIONS


@pytest.mark.parametrize("value", [b"[[1, 2]]", b'{"a": 1}', b'[["x", 1, "a", "b"]]', b"\xff"])
def test_a_damaged_mentions_record_is_made_again(make_wiki, page, run_kbtool, value) -> None:
    import sqlite3

    root = _wiki(make_wiki, page)
    first = _check_json(run_kbtool, root, "KB306")
    with sqlite3.connect(root / ".kbtool/store.sqlite") as db:
        db.execute("UPDATE records SET value = ? WHERE kind = 'mentions'", (value,))
    assert _check_json(run_kbtool, root, "KB306") == first
