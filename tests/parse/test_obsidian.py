"""Obsidian's syntax in the parser (``flavor = "obsidian"``): callouts, comments, highlights,
block ids, embeds and image sizes; and the default flavor, where all of it stays as GitHub
reads it."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from markdown_it.token import Token

from kbtool.model import Block, Span
from kbtool.parse.callouts import CALLOUT_TYPES
from kbtool.parse.markdown import markdown_parser
from kbtool.parse.page import parse_page, parse_page_tokens


def tokens(text: str) -> list[Token]:
    return parse_page_tokens("wiki/a.md", text.encode(), "wiki", flavor="obsidian")[1]


def children(text: str) -> list[Token]:
    """The inline children of the first paragraph of ``text``."""
    return next(t for t in tokens(text) if t.type == "inline").children or []


def callouts(text: str) -> list[Token]:
    return [t for t in tokens(text) if t.type == "callout_open"]


def test_one_parser_per_flavor() -> None:
    parse_page("wiki/a.md", b"x\n", "wiki")
    parse_page("wiki/a.md", b"x\n", "wiki", flavor="obsidian")
    assert markdown_parser.cache_info().currsize == 2
    assert markdown_parser() is not markdown_parser("obsidian")


def test_the_default_flavor_reads_none_of_it() -> None:
    text = "> [!tip] Title\n> body\n\n==x== %%y%% ![[a.png|300]] ^id\n\n> [!NOTE]\n> n\n"
    html = markdown_parser().render(text)
    assert "<blockquote>\n<p>[!tip] Title" in html
    assert "==x== %%y%% ![[a.png|300]] ^id" in html
    assert 'class="markdown-alert markdown-alert-note"' in html  # GitHub's alert, as before
    page = parse_page("wiki/a.md", text.encode(), "wiki")
    assert page.blocks == () and page.problems == ()


@pytest.mark.parametrize("written", [*CALLOUT_TYPES, "TIP", "Faq", "NOTE", "CAUTION"])
def test_every_type_and_alias_in_any_case(written: str) -> None:
    (callout,) = callouts(f"> [!{written}]\n> body\n")
    assert callout.meta["kind"] == CALLOUT_TYPES[written.lower()]
    assert callout.meta["written"] == written


def test_aliases_are_shown_as_their_type() -> None:
    kinds = [
        c.meta["kind"] for c in callouts("> [!tldr]\n\n> [!hint]\n\n> [!error]\n\n> [!cite]\n")
    ]
    assert kinds == ["abstract", "tip", "danger", "quote"]


def test_an_unknown_type_is_a_note_with_a_warning_at_its_line() -> None:
    text = "# T\n\nText.\n\n> [!theorem] Pythagoras\n> a² + b² = c²\n"
    page, found = parse_page_tokens("wiki/a.md", text.encode(), "wiki", flavor="obsidian")
    (callout,) = [t for t in found if t.type == "callout_open"]
    assert callout.meta["kind"] == "note"
    (problem,) = page.problems
    assert (problem.code, problem.line) == ("KB230", 5)
    assert "'theorem'" in problem.message


def test_titles_default_to_the_type_capitalised_and_may_hold_markdown() -> None:
    found = tokens("> [!faq]\n> body\n\n> [!tip] A **bold** [[link]] title\n")
    titles = [found[i + 2] for i, t in enumerate(found) if t.type == "callout_open"]
    assert titles[0].content == "Faq"
    assert [c.type for c in titles[1].children or []][:4] == [
        "text",
        "strong_open",
        "text",
        "strong_close",
    ]
    page = parse_page("wiki/a.md", b"> [!tip] A [[link]] title\n", "wiki", flavor="obsidian")
    assert [(link.target, link.span.col) for link in page.links] == [("link", 14)]


def test_the_body_starts_on_the_line_after_the_title() -> None:
    found = tokens("> [!info] Title\n> first body line\n> second\n")
    body = [t for t in found if t.type == "inline"][1]
    assert body.content == "first body line\nsecond"
    assert body.map == [1, 3]


@pytest.mark.parametrize(("mark", "fold"), [("", ""), ("+", "+"), ("-", "-")])
def test_fold_marks(mark: str, fold: str) -> None:
    (callout,) = callouts(f"> [!faq]{mark} Are callouts foldable?\n> Yes.\n")
    assert callout.meta["fold"] == fold


def test_callouts_nest_at_any_depth() -> None:
    text = "> [!question] Outer\n> > [!todo] Middle\n> > > [!example] Inner\n> > > deep\n"
    kinds = [(c.meta["kind"], c.level) for c in callouts(text)]
    assert kinds == [("question", 0), ("todo", 2), ("example", 4)]
    found = tokens(text)
    opened = sum(t.nesting for t in found if t.type.startswith("callout"))
    assert opened == 0 and found[-1].type == "callout_close"


def test_a_quote_without_a_marker_and_markers_not_first_stay_quotes() -> None:
    found = tokens("> plain\n\n> text [!tip]\n\n> [!tip\n")
    assert not any(t.type.startswith("callout") for t in found)
    assert sum(t.type == "blockquote_open" for t in found) == 3


def test_comments_inline_and_as_blocks_are_tokens_that_hold_their_text() -> None:
    found = tokens("Before %%hidden **x**%% after.\n\n%%\nblock\n\nstill hidden\n%%\n\nShown.\n")
    inline = [c for c in children("Before %%hidden **x**%% after.\n")]
    assert [c.type for c in inline] == ["text", "obsidian_comment", "text"]
    assert inline[1].content == "hidden **x**"
    comment = next(t for t in found if t.type == "obsidian_comment")
    assert comment.content == "\nblock\n\nstill hidden\n" and comment.map == [2, 7]
    assert [t.content for t in found if t.type == "inline"] == [
        "Before %%hidden **x**%% after.",
        "Shown.",
    ]


def test_an_unclosed_comment_and_comments_in_code_stay_text() -> None:
    text = "Open %%never closed\n\n`%%code%%`\n\n```\n%%\nfenced\n%%\n```\n\n%%\nno end\n"
    found = tokens(text)
    assert not any(t.type == "obsidian_comment" for t in found)
    assert "fenced" in next(t for t in found if t.type == "fence").content
    assert "%%\nno end" in [t.content for t in found if t.type == "inline"]


def test_a_comment_across_lines_of_a_paragraph_and_closing_with_text_after() -> None:
    assert [c.type for c in children("a %%one\ntwo%% b\n")] == ["text", "obsidian_comment", "text"]
    found = tokens("%% note %% shown\n")
    assert [c.type for c in found[1].children or []] == ["obsidian_comment", "text"]


@pytest.mark.parametrize(
    ("text", "marked"),
    [
        ("a ==b== c", ["b"]),
        ("这是==重点==内容", ["重点"]),
        ("==**bold** mark==", ["bold", " mark"]),
        ("a == b == c", []),
        ("x === y === z", []),
        ("==open", []),
        ("`==code==`", []),
    ],
)
def test_highlights(text: str, marked: list[str]) -> None:
    found = children(text + "\n")
    inside, depth = [], 0
    for child in found:
        depth += child.type == "mark_open"
        depth -= child.type == "mark_close"
        if depth and child.type == "text" and child.content:
            inside.append(child.content)
    assert inside == marked
    assert sum(c.type == "mark_open" for c in found) == sum(c.type == "mark_close" for c in found)


def test_block_ids_on_paragraphs_items_and_the_block_before_a_line_of_its_own() -> None:
    text = (
        "A paragraph. ^para\n"  # 1
        "\n"
        "- item ^item\n"  # 3
        "- other\n"
        "\n"
        "> a quote\n"  # 6
        "\n"
        "^quote\n"  # 8
        "\n"
        "```python\n"  # 10
        "x = 1\n"
        "```\n"
        "\n"
        "^code\n"  # 14
    )
    page, found = parse_page_tokens("wiki/a.md", text.encode(), "wiki", flavor="obsidian")
    assert page.blocks == (
        Block("para", Span("wiki/a.md", 1, 14), (1, 1)),
        Block("item", Span("wiki/a.md", 3, 8), (3, 3)),
        Block("quote", Span("wiki/a.md", 8, 1), (6, 6)),
        Block("code", Span("wiki/a.md", 14, 1), (10, 12)),
    )
    ids = {t.type: t.attrGet("id") for t in found if t.attrGet("id")}
    assert ids == {
        "paragraph_open": "^para",
        "list_item_open": "^item",
        "blockquote_open": "^quote",
    }
    assert next(t for t in found if t.type == "fence").meta["block_id"] == "code"
    inline = [t.content for t in found if t.type == "inline"]
    assert "A paragraph." in inline and "item" in inline and not any("^" in t for t in inline)


def test_a_block_id_names_a_callout_and_a_paragraph_in_its_body() -> None:
    found = tokens("> [!tip] T\n> body ^inner\n\n^outer\n")
    assert next(t for t in found if t.type == "callout_open").attrGet("id") == "^outer"
    assert next(t for t in found if t.type == "paragraph_open").attrGet("id") == "^inner"


def test_a_marker_with_no_block_before_it_or_inside_text_stays_text() -> None:
    page, found = parse_page_tokens(
        "wiki/a.md", b"^alone\n\n2^10 and a^b c\n", "wiki", flavor="obsidian"
    )
    assert page.blocks == ()
    assert [t.content for t in found if t.type == "inline"] == ["^alone", "2^10 and a^b c"]


def test_a_block_id_given_twice_is_a_warning_and_links_land_on_the_first() -> None:
    text = "First. ^same\n\nSecond. ^same\n"
    page, found = parse_page_tokens("wiki/a.md", text.encode(), "wiki", flavor="obsidian")
    assert [block.span.line for block in page.blocks] == [1, 3]
    (problem,) = page.problems
    assert (problem.code, problem.line, problem.col) == ("KB231", 3, 9)
    assert "line 1" in problem.message
    assert [t.attrGet("id") for t in found if t.type == "paragraph_open"] == ["^same", None]


def test_embeds_are_wikilinks_with_their_size() -> None:
    text = "See ![[a.png|300x200]], ![[b.png|120]], ![[Note#Part]] and ![[c.png|a cat]].\n"
    page, found = parse_page_tokens("wiki/a.md", text.encode(), "wiki", flavor="obsidian")
    assert [(link.target, link.kind, link.span.col) for link in page.links] == [
        ("a.png", "wikilink", 8),
        ("b.png", "wikilink", 28),
        ("Note#Part", "wikilink", 44),
        ("c.png", "wikilink", 63),
    ]
    embeds = [c.meta for c in found[1].children or [] if c.type == "wikilink_embed"]
    assert embeds[0] == {"target": "a.png", "label": "300x200", "width": "300", "height": "200"}
    assert embeds[1] == {"target": "b.png", "label": "120", "width": "120"}
    assert embeds[3] == {"target": "c.png", "label": "a cat"}


def test_a_markdown_image_takes_its_size_from_the_end_of_its_text() -> None:
    found = children("![Engelbart|100x145](e.png) ![a | 50](f.png) ![a|b](g.png)\n")
    images = [c for c in found if c.type == "image"]
    assert [image.meta for image in images] == [
        {"width": "100", "height": "145"},
        {"width": "50"},
        {},
    ]
    assert [image.content for image in images] == ["Engelbart", "a", "a|b"]
    assert [image.children[0].content for image in images if image.children] == [
        "Engelbart",
        "a",
        "a|b",
    ]


MARKERS = st.sampled_from(
    [
        "> ",
        "[!tip]",
        "[!x]-",
        "+",
        "%%",
        "==",
        "^id",
        " ^a-1",
        "![[",
        "]]",
        "|300",
        "\n",
        "\n\n",
        "- ",
        "`",
        "```\n",
        "a",
        "中",
        " ",
    ]
)


@settings(max_examples=300, deadline=None)
@given(st.lists(MARKERS, max_size=40).map("".join))
def test_any_text_parses_and_renders_without_raising(text: str) -> None:
    page, found = parse_page_tokens("wiki/a.md", text.encode(), "wiki", flavor="obsidian")
    assert all(1 <= block.span.line <= text.count("\n") + 1 for block in page.blocks)
    assert all(problem.line >= 1 for problem in page.problems)
    from kbtool.render.i18n import translator
    from kbtool.render.markdown import render_body

    render_body(page, found, translator("en"))
