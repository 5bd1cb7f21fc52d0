"""``kbtool search``: lines or JSON over the built site's index; exit 0, 1 or 2."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbtool.cli import main

PAGES = {
    "wiki/concepts/attention.md": "---\ntype: concept\nsummary: 缩放点积注意力\n"
    "updated: 2020-01-01\ntags: [attention]\n---\n# 注意力\n\n多头注意力 multi-head attention.\n",
    "wiki/concepts/policy.md": "---\ntype: concept\nsummary: 扩散策略\nupdated: 2020-01-01\n"
    "---\n# Diffusion Policy\n\n用扩散模型生成动作，见 [注意力](attention.md)。\n",
    "sources/papers/aiayn.md": "# Attention Is All You Need\n\nThe paper on attention.\n",
}


@pytest.fixture(scope="module")
def repo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("repo")
    for rel, text in PAGES.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    (root / "pyproject.toml").write_text(
        '[tool.kbtool]\nseverity = { KB3 = "off" }\ntype-labels = { concept = "概念" }\n'
    )
    assert main(["-C", str(root), "build"]) == 0
    return root


def test_json_shape(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-C", str(repo), "search", "--format", "json", "注意力"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert set(data) == {"query", "total", "results"}
    assert data["query"] == "注意力" and data["total"] == 2
    first = data["results"][0]
    assert set(first) == {"path", "title", "url", "type", "label", "excerpt"}
    assert first["type"] == "concept" and first["label"] == "概念"
    assert first["path"] == "wiki/concepts/attention.md"  # the title match comes first
    assert first["url"] == "wiki/concepts/attention.html" and first["title"] == "注意力"
    assert "注意力" in first["excerpt"]
    assert {r["path"] for r in data["results"]} == {
        "wiki/concepts/attention.md",
        "wiki/concepts/policy.md",
    }


def test_lines_and_result_count(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-C", str(repo), "search", "attention", "-n", "1"]) == 0
    out = capsys.readouterr().out.splitlines()
    assert len(out) == 3 and out[0].endswith("  sources/papers/aiayn.md")
    assert out[-1] == "2 pages match, showing 1"
    assert main(["-C", str(repo), "search", "-n", "0", "--format", "json", "attention"]) == 0
    assert len(json.loads(capsys.readouterr().out)["results"]) == 2


def test_several_words_rank_the_page_with_all_first(
    repo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["-C", str(repo), "search", "--format", "json", "扩散", "注意力"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert [r["path"] for r in data["results"]] == [
        "wiki/concepts/policy.md",  # both words
        "wiki/concepts/attention.md",  # one, in its title
    ]


def test_filters_by_type_or_its_label(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    for query in ("attention type:source", "attention -type:概念"):
        assert main(["-C", str(repo), "search", "--format", "json", query]) == 0
        data = json.loads(capsys.readouterr().out)
        assert [r["path"] for r in data["results"]] == ["sources/papers/aiayn.md"], query


def test_lines_show_the_type_label(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-C", str(repo), "search", "扩散策略"]) == 0
    assert capsys.readouterr().out.splitlines()[0] == "Diffusion Policy  [概念]  " + (
        "wiki/concepts/policy.md"
    )


def test_nothing_found_exits_1(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-C", str(repo), "search", "不存在的词"]) == 1
    assert capsys.readouterr().out.strip() == "0 pages match"
    assert main(["-C", str(repo), "search", "--format", "json", "!!!"]) == 1
    assert json.loads(capsys.readouterr().out) == {"query": "!!!", "total": 0, "results": []}


def test_undecodable_argv_is_answered(repo: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["-C", str(repo), "search", "--format", "json", "\udcff注意力"]) in (0, 1)
    assert json.loads(capsys.readouterr().out)["query"] == "\ufffd注意力"


def test_no_index_exits_2_and_says_to_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    (tmp_path / "pyproject.toml").write_text("[tool.kbtool]\n")
    assert main(["-C", str(tmp_path), "search", "x"]) == 2
    assert "kbtool build" in capsys.readouterr().err


def test_rebuild_after_an_edit_parses_only_that_page_for_search(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import kbtool.parse.page

    for rel, text in PAGES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.kbtool]\nseverity = { KB3 = "off" }\n')
    assert main(["-C", str(tmp_path), "build"]) == 0
    parsed: list[str] = []
    real = kbtool.parse.page.parse_page_tokens
    monkeypatch.setattr(
        kbtool.parse.page,
        "parse_page_tokens",
        lambda path, *rest: parsed.append(path) or real(path, *rest),
    )
    page = tmp_path / "wiki/concepts/policy.md"
    page.write_text(
        page.read_text(encoding="utf-8") + "\n新加的一句：分块动作。\n", encoding="utf-8"
    )
    assert main(["-C", str(tmp_path), "build"]) == 0
    assert parsed == ["wiki/concepts/policy.md"]
    capsys.readouterr()
    assert main(["-C", str(tmp_path), "search", "--format", "json", "分块动作"]) == 0
    assert [r["path"] for r in json.loads(capsys.readouterr().out)["results"]] == [
        "wiki/concepts/policy.md"
    ]
    assert main(["-C", str(tmp_path), "search", "--format", "json", "注意力"]) == 0
    assert json.loads(capsys.readouterr().out)["total"] == 2
