"""Obsidian's syntax on the site (``flavor = "obsidian"``): callouts that fold without
JavaScript, comments gone from the page and its search text, highlights, block ids, image
sizes; through the sanitiser too; and a build that follows the flavor when it changes."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.cli import main
from kbtool.config import Config
from kbtool.parse.page import parse_page_tokens
from kbtool.render.fill import RenderedBody, fill_body
from kbtool.render.i18n import translator
from kbtool.render.markdown import render_body
from kbtool.search.text import search_doc
from kbtool.stages.load import load_wiki

FRONT = "---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n"
PNG = bytes.fromhex("89504e470d0a1a0a")  # a PNG's signature: enough for a file to link to


def write(root: Path, files: dict[str, str | bytes]) -> None:
    for rel, content in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            (root / rel).write_bytes(content)
        else:
            (root / rel).write_text(content, encoding="utf-8")


def render(
    tmp_path: Path, body: str, files: dict[str, str | bytes] | None = None, flavor: str = "obsidian"
) -> RenderedBody:
    text = FRONT + body
    write(tmp_path, {"wiki/a.md": text, **(files or {})})
    wiki = load_wiki(Config(root=tmp_path, flavor=flavor), jobs=1, use_store=False)
    page = wiki.pages["wiki/a.md"]
    parsed, tokens = parse_page_tokens(page.path, text.encode(), page.kind, flavor=flavor)
    t = translator("en")
    return fill_body(render_body(parsed, tokens, t), page, wiki, None, t)


CALLOUTS = """\
> [!tip] A *custom* title
> Body.

> [!faq]- Folded
> Hidden until opened.

> [!warning]+ Open
> Shown.

> [!question] Outer
> > [!todo] Inner
> > Nested body.

> [!bug]
"""


def test_callouts_fold_with_details_and_nest(tmp_path: Path) -> None:
    html = render(tmp_path, CALLOUTS).html
    assert '<div class="callout callout-tip">\n<p class="callout-title">' in html
    assert '<span class="callout-title-text">A <em>custom</em> title</span></p>' in html
    assert '<details class="callout callout-question">\n<summary class="callout-title">' in html
    assert '<details class="callout callout-warning" open>' in html
    assert html.count("<details") == html.count("</details>") == 2
    assert html.count("<summary") == html.count("</summary>") == 2
    outer = html.index('<div class="callout callout-question">')
    inner = html.index('<div class="callout callout-todo">')
    assert outer < inner < html.index("Nested body") < html.index("</div>\n</div>\n</div>", inner)
    assert '<span class="callout-title-text">Bug</span>' in html  # title-only, default title
    assert "[!" not in html and "<blockquote" not in html


def test_comments_and_block_markers_are_on_neither_the_page_nor_in_its_search_text(
    tmp_path: Path,
) -> None:
    body = "Seen %%secret one%% text. ^para\n\n%%\nsecret two\n%%\n\n- item ==marked== ^item\n"
    html = render(tmp_path, body).html
    assert "secret" not in html and "%%" not in html and "^para<" not in html
    assert '<p id="^para">Seen  text.</p>' in html
    assert '<li id="^item">item <mark>marked</mark></li>' in html
    page, tokens = parse_page_tokens(
        "wiki/a.md", (FRONT + body).encode(), "wiki", flavor="obsidian"
    )
    searched = search_doc(page, tokens).body
    assert "secret" not in searched and "^" not in searched
    assert "Seen text." in searched and "item marked" in searched


def test_a_code_block_with_an_id_is_wrapped_in_a_block_that_has_it(tmp_path: Path) -> None:
    html = render(tmp_path, "```text\nx\n```\n\n^code\n\n| a |\n|---|\n| 1 |\n\n^table\n").html
    assert html.startswith('<div class="block" id="^code">\n<div class="code-block"')
    assert '<table id="^table">' in html


def test_images_shown_at_their_size(tmp_path: Path) -> None:
    files: dict[str, str | bytes] = {"wiki/a.png": PNG, "wiki/img/b.png": PNG}
    body = "![[a.png|300x200]] ![[img/b.png|120]] ![Engelbart|100](a.png) ![[a.png|a cat]]\n"
    out = render(tmp_path, body, files)
    assert '<img src="a.png" alt="a.png" width="300" height="200" loading="lazy">' in out.html
    assert '<img src="img/b.png" alt="b.png" width="120" loading="lazy">' in out.html
    assert '<img src="a.png" alt="Engelbart" width="100" loading="lazy">' in out.html
    assert '<img src="a.png" alt="a cat" loading="lazy">' in out.html
    assert out.files == {"wiki/a.png", "wiki/img/b.png"}


def test_an_embed_of_a_note_is_a_link_to_it_and_a_missing_image_is_marked(tmp_path: Path) -> None:
    body = "![[b]] ![[gone.png|30]]\n"
    html = render(tmp_path, body, {"wiki/b.md": FRONT + "# Bee\n"}).html
    # A note is titled by its file name, as Obsidian shows it, whatever its heading says.
    assert '<a class="wikilink" href="b.html">b</a>' in html
    assert '<span class="broken-link">gone.png</span>' in html
    assert "!" not in html


def test_what_the_callouts_add_survives_the_sanitiser(tmp_path: Path) -> None:
    body = "<b>raw</b>\n\n> [!tip]- T ==x==\n> y ^blk\n\n![s|10](a.png)\n"
    html = render(tmp_path, body, {"wiki/a.png": PNG}).html  # raw HTML: sanitised whole
    assert '<details class="callout callout-tip">' in html
    assert '<summary class="callout-title"><span class="callout-icon" aria-hidden="true">' in html
    assert "<mark>x</mark>" in html and '<p id="^blk">y</p>' in html
    assert 'width="10"' in html


def test_the_default_flavor_renders_it_all_as_github_does(tmp_path: Path) -> None:
    html = render(tmp_path, "> [!tip] T\n\n==x== %%y%% ^z ![[a.png|3]]\n", flavor="gfm").html
    assert "<blockquote>\n<p>[!tip] T</p>\n</blockquote>" in html
    assert "==x== %%y%% ^z !" in html and "<mark>" not in html and 'id="^' not in html


@pytest.mark.parametrize("first", ["gfm", "obsidian"])
def test_a_build_follows_the_flavor_when_it_changes(
    tmp_path: Path, first: str, capsys: pytest.CaptureFixture[str]
) -> None:
    write(tmp_path, {"wiki/a.md": FRONT + "# A\n\n==x== %%secretword%%\n\n> [!tip] T\n"})
    page = tmp_path / "site" / "wiki" / "a.html"
    shown = []
    for flavor in (first, "obsidian" if first == "gfm" else "gfm", first):
        (tmp_path / "pyproject.toml").write_text(f'[tool.kbtool]\nflavor = "{flavor}"\n')
        assert main(["-C", str(tmp_path), "build", "-j", "1"]) == 0
        html = page.read_text(encoding="utf-8")
        searched = main(["-C", str(tmp_path), "search", "secretword"]) == 0  # the live index
        shown.append(("<mark>x</mark>" in html, "%%secretword%%" in html, searched))
    capsys.readouterr()
    obsidian, gfm = (True, False, False), (False, True, True)
    assert shown == ([gfm, obsidian, gfm] if first == "gfm" else [obsidian, gfm, obsidian])


def test_a_diagnostic_after_a_comment_over_lines_points_at_its_own_line(tmp_path: Path) -> None:
    out = render(tmp_path, "Text %%one\ntwo\nthree%% and\n$\\notacommand{x}$\n")
    (diagnostic,) = out.diagnostics
    assert (diagnostic.code, diagnostic.line) == ("KB501", 9)  # the frontmatter's 5 lines first
