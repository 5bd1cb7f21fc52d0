"""What search takes from a page: title, summary, tags, headings, body text."""

from __future__ import annotations

import json
import pickle

from kbtool.parse.frontmatter import blank_frontmatter
from kbtool.parse.markdown import markdown_parser
from kbtool.parse.page import parse_page
from kbtool.render.card import PageCard, Ref
from kbtool.search.text import SearchDoc, search_doc, searched_card

PAGE = """---
type: concept
summary: "多头  注意力的摘要"
updated: 2026-01-01
tags: [transformer, attention]
---
# 注意力机制

正文第一段，见 https://arxiv.org/abs/1706.03762 与 [链接文字](../x.md)。
第二行 $d_k$ 内联公式。

## 缩放点积

```python
def scaled_dot_product(q, k):  # 计算注意力
    return q @ k.T
```

$$
\\frac{QK^T}{\\sqrt{d_k}}
$$

<div onclick="x()">原始 <b>HTML</b> 文字<script>alert("不要")</script></div>

| 表头 | 值 |
|---|---|
| 单元格 | 42 |
"""


def _doc(text: str = PAGE, path: str = "wiki/concepts/attention.md") -> SearchDoc:
    page = parse_page(path, text.encode(), "source" if path.startswith("sources/") else "wiki")
    tokens = markdown_parser().parse(blank_frontmatter(text, page.body_line - 1))
    return search_doc(page, tokens)


def test_fields_come_from_the_parse() -> None:
    doc = _doc()
    assert doc.card.path == "wiki/concepts/attention.md"
    assert doc.card.url == "wiki/concepts/attention.html"
    assert doc.card.title == "注意力机制"
    assert doc.card.type == "concept"
    assert doc.card.summary == "多头 注意力的摘要"
    assert doc.card.tags == ("transformer", "attention")
    assert doc.headings == ("缩放点积",)  # the title heading is the title, not a heading


def test_body_text_keeps_prose_code_and_tables() -> None:
    body = _doc().body
    assert "正文第一段" in body and "第二行 d_k 内联公式" in body
    assert "链接文字" in body and "../x.md" not in body  # link text, not the target
    assert "scaled_dot_product" in body and "计算注意力" in body  # code is searchable
    assert "单元格" in body and "42" in body
    assert "缩放点积" not in body  # headings are a field of their own


def test_urls_are_reduced_to_their_host() -> None:
    body = _doc().body
    assert "arxiv.org" in body and "1706" not in body and "https" not in body


def test_a_formula_is_its_tex_source_once() -> None:
    body = _doc().body
    assert body.count("d_k") == 2  # the inline formula and the display one, each once
    assert "\\frac{QK^T}{\\sqrt{d_k}}" in body.splitlines()
    text = "---\ntype: concept\n---\n# T\n\n注意$\\lambda$力，**粗 $a_b$ 体**\n"
    assert _doc(text).body == "注意 \\lambda 力，粗 a_b 体"


def test_math_is_found_by_token_type_whatever_its_syntax() -> None:
    from markdown_it.token import Token

    inline = Token("inline", "", 0, children=[Token("text", "", 0, content="设")])
    assert inline.children is not None
    inline.children.append(Token("math_inline_paren", "", 0, content="\\alpha"))  # \\(…\\)
    block = Token("math_block_bracket", "", 0, content="\\beta + 1")  # \\[…\\]
    page = parse_page("wiki/a.md", b"# A\n", "wiki")
    assert search_doc(page, [inline, block]).body == "设 \\alpha\n\\beta + 1"


def test_table_cells_are_set_apart_one_row_a_line() -> None:
    lines = _doc().body.splitlines()
    assert "表头 | 值" in lines and "单元格 | 42" in lines


def test_raw_html_keeps_its_text_without_tags_or_script() -> None:
    body = _doc().body
    assert "原始 HTML 文字" in body
    assert "onclick" not in body and "<" not in body and "不要" not in body


def test_doc_round_trips_through_json_and_pickle() -> None:
    doc = _doc()
    assert SearchDoc.from_json(json.loads(json.dumps(doc.to_json()))) == doc
    assert pickle.loads(pickle.dumps(doc)) == doc


def test_doc_json_is_one_flat_object() -> None:
    data = _doc().to_json()
    keys = ["path", "url", "title", "type", "summary", "tags", "headings", "body"]
    assert list(data) == keys  # the layout of the stored records and the index's page files
    assert data["tags"] == ["transformer", "attention"] and data["url"].endswith(".html")


def test_summary_is_the_cards_text_cleaned() -> None:
    listed = "---\nsummary: [第一,  见 https://arxiv.org/abs/1706.03762]\n---\n正文\n"
    assert _doc(listed).card.summary == "第一, 见 arxiv.org"
    assert _doc("---\nsummary: 2026-01-02\n---\n正文\n").card.summary == "2026-01-02"


def test_searched_card_cleans_title_summary_and_tags_only() -> None:
    ref = Ref("wiki/a  b.md", "wiki/a  b.html", " A  https://x.org/p ", "con  cept")
    card = searched_card(PageCard(ref, "s \ud800", ("t  https://y.org/q",)))
    assert card.ref == Ref("wiki/a  b.md", "wiki/a  b.html", "A x.org", "con  cept")
    assert (card.summary, card.tags) == ("s \ufffd", ("t y.org",))


def test_page_without_frontmatter_or_body() -> None:
    doc = _doc("", "sources/papers/empty.md")
    assert (
        doc.card.title == "empty"
        and doc.body == ""
        and doc.card.summary == ""
        and doc.card.type == "source"
    )
