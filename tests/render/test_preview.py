"""A page's link-preview data: its opening lines and sections as plain text, within 4 KB of
gzip, written by a build for every page and again only for the pages edited."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

from kbtool.config import load_config
from kbtool.parse.page import parse_page_tokens
from kbtool.render.i18n import translator
from kbtool.render.markdown import render_body
from kbtool.render.preview import LIMIT, preview_data, preview_output, preview_script
from kbtool.render.preview_math import math_tree
from kbtool.stages.site import build_site
from tests.conftest import page_text, write_tree


def _data(body: str, **frontmatter: Any) -> dict[str, Any]:
    text = page_text(body, **frontmatter)
    page, tokens = parse_page_tokens("wiki/a.md", text.encode(), "wiki")
    rendered = render_body(page, tokens, translator("zh"))
    return preview_data(page, rendered, "wiki/a.html", "概念")


def test_the_opening_lines_and_each_section_as_text() -> None:
    data = _data(
        "# 标题\n\n开头**一句**，公式 $d_k$ 与 [[Other Page|别名]]。\n\n"
        "```python\nsecret_code = 1\n```\n\n## 第一节\n\n第一节的 `代码` 文字。\n\n"
        "## 空的\n\n### 子节\n\n子节的文字。\n",
        summary="一句话   摘要",
    )
    assert data["t"] == "标题" and data["y"] == "概念" and data["s"] == "一句话 摘要"
    # the formula: a marker in the text, its MathML as a tree (built with DOM calls)
    assert data["o"] == "开头一句，公式 \ue0000\ue001 与 别名。"
    assert data["m"] == [["math", {}, ["mrow", {}, ["msub", {}, ["mi", {}, "d"], ["mi", {}, "k"]]]]]
    assert data["h"] == [
        ["第一节", "第一节", "第一节的 代码 文字。"],
        ["空的", "空的", "子节的文字。"],  # a heading right above a subheading: the subsection's
        ["子节", "子节", "子节的文字。"],
    ]
    assert "secret_code" not in json.dumps(data, ensure_ascii=False)


def test_hostile_markup_becomes_plain_text() -> None:
    data = _data(
        "# T\n\n<script>window.pwned = 1</script>正文 <b onclick=x>粗体</b> &lt;i&gt;\n",
        summary='"<img src=x onerror=alert(1)>"',
    )
    assert data["o"] == "正文 粗体 <i>"  # shown with textContent by preview.js
    assert "pwned" not in data["o"]
    assert data["s"] == "<img src=x onerror=alert(1)>"


def test_a_huge_page_is_cut_to_the_limit_keeping_its_first_sections() -> None:
    def words(seed: int, n: int) -> str:  # text that compresses as little as real text
        return "".join(chr(0x4E00 + (seed * 7919 + k * 104729) % 20000) for k in range(n))

    sections = "".join(
        f"## 第{i}节 {words(i, 12)}\n\n{words(i + 1000, 300)}\n\n" for i in range(300)
    )
    data = _data("# 大页面\n\n开头。\n\n" + sections)
    script = preview_script("wiki/a.html", data)
    assert len(gzip.compress(script.encode(), 6, mtime=0)) <= LIMIT
    assert data["h"] and data["h"][0][1].startswith("第0节 ")
    assert 0 < len(data["h"]) < 300


def test_the_script_hands_the_data_to_the_page() -> None:
    data = {"t": "</script>", "o": "\u2028"}
    script = preview_script("wiki/x y.html", data)
    assert script.startswith('__kbPreview("wiki/x y.html",{') and script.endswith(");\n")
    name, value = json.loads("[" + script[len("__kbPreview(") : -3] + "]")
    assert (name, value) == ("wiki/x y.html", data)
    assert preview_output("wiki/concepts/x.md") == "previews/wiki/concepts/x.js"


def test_a_build_writes_every_preview_and_an_edit_only_its_own(tmp_path: Path) -> None:
    root = write_tree(
        tmp_path,
        {
            "wiki/a.md": page_text("# A\n\nA 链接到 [B](b.md)。\n"),
            "wiki/b.md": page_text("# B\n\nB 的正文。\n"),
        },
    )
    first = build_site(load_config(root))
    assert first.published
    site = root / "site"
    for name in ("a", "b"):
        assert (site / f"previews/wiki/{name}.js").read_text().startswith("__kbPreview(")
    (root / "wiki/a.md").write_text(page_text("# A\n\nA 改了，不再链接。\n"))
    report = build_site(load_config(root))
    # b's page shows a's backlink no more; its preview shows b's own text and stays
    assert "page:wiki/b.md" in report.rendered_outputs
    previews = [name for name in report.rendered_outputs if name.startswith("preview:")]
    assert previews == ["preview:wiki/a.md"]
    assert "A 改了" in (site / "previews/wiki/a.js").read_text()


def test_a_formulas_tree_holds_mathml_and_its_text_alone() -> None:
    tree = math_tree(
        '<math display="block"><mi onclick="steal()" mathvariant="bold" href="x">a</mi>'
        "<script>window.pwned = 1</script><foreign><mi>b</mi></foreign>"
        '<annotation encoding="application/x-tex">\\mathbf{a}</annotation></math>'
    )
    assert tree == ["math", {}, ["mi", {"mathvariant": "bold"}, "a"], ["mi", {}, "b"]]


def test_a_block_links_preview_shows_the_block() -> None:
    text = page_text("# A\n\nOpening.\n\nThe **named** paragraph. ^para-1\n\n- an item ^item-2\n")
    page, tokens = parse_page_tokens("wiki/a.md", text.encode(), "wiki", flavor="obsidian")
    data = preview_data(page, render_body(page, tokens, translator("en")), "wiki/a.html", "")
    assert data["b"] == [["^para-1", "The named paragraph."], ["^item-2", "an item"]]
    assert "b" not in _data("# A\n\nNo block ^here.\n")  # GitHub's flavor has no blocks
