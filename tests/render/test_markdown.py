"""The body renderer: slugs as ids, links between generated pages, math, code, cells, safety."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.config import Config
from kbtool.execute.results import CellResult, PageResult
from kbtool.render.fill import RenderedBody
from kbtool.render.i18n import translator
from kbtool.render.mathml import to_mathml
from kbtool.stages.load import load_wiki
from tests.render.support import render_text

FRONT = "---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n"


def render(
    tmp_path: Path,
    body: str,
    files: dict[str, str] | None = None,
    result: PageResult | None = None,
    path: str = "wiki/a.md",
) -> RenderedBody:
    files = {path: FRONT + body, **(files or {})}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text, encoding="utf-8")
    wiki = load_wiki(Config(root=tmp_path), jobs=1, use_store=False)
    page = wiki.pages[path]
    return render_text(page, files[path], wiki, result, translator("en"))


def test_heading_ids_are_the_checkers_slugs(tmp_path: Path) -> None:
    out = render(
        tmp_path, "# Title\n\n## 缩放点积注意力（Scaled Dot-Product）\n\n## Notes\n\n## Notes\n"
    )
    assert out.title_id == "title"
    assert "<h1" not in out.html  # the template shows the title
    assert 'id="缩放点积注意力scaled-dot-product"' in out.html
    assert 'id="notes"' in out.html and 'id="notes-1"' in out.html


def test_page_links_become_html_links_with_anchors(tmp_path: Path) -> None:
    out = render(
        tmp_path,
        "See [B](../wiki/b.md#多头-attention), [here](#x), [ext](https://example.org), "
        "[gone](missing.md), [[b]] and [[b|the b page]].\n",
        files={"wiki/b.md": FRONT + "# Bee\n\n## 多头 Attention\n"},
    )
    assert 'href="b.html#%E5%A4%9A%E5%A4%B4-attention"' in out.html
    assert 'href="#x"' in out.html
    assert 'href="https://example.org" rel="noopener noreferrer"' in out.html
    assert '<a class="broken-link">gone</a>' in out.html
    assert '<a class="wikilink" href="b.html">Bee</a>' in out.html
    assert '<a class="wikilink" href="b.html">the b page</a>' in out.html


def test_local_images_are_copied_and_remote_images_become_links(tmp_path: Path) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "wiki" / "pic.png").write_bytes(b"\x89PNG")
    out = render(tmp_path, "![a pic](pic.png) ![remote](https://example.org/x.png)\n")
    assert '<img src="pic.png" alt="a pic" loading="lazy">' in out.html
    assert out.files == frozenset({"wiki/pic.png"})
    assert '<img src="https://' not in out.html
    assert 'class="remote-image"' in out.html


def test_math_is_mathml_and_a_bad_formula_is_a_diagnostic_with_its_line(tmp_path: Path) -> None:
    out = render(
        tmp_path, "Inline $x^2$ here.\n\n$$\n\\frac{a}{b}\n$$\n\nline one\nbad $\\left( x$ two\n"
    )
    assert out.html.count("<math") == 2
    assert "<mfrac>" in out.html
    assert '<annotation encoding="application/x-tex">x^2</annotation>' in out.html
    [diagnostic] = out.diagnostics
    assert diagnostic.code == "KB501" and diagnostic.line == 6 + 7  # frontmatter is 5 lines
    assert '<span class="math-tex math-error"' in out.html and "\\left( x<" in out.html


def test_backslash_formulas_render_as_their_dollar_twins(tmp_path: Path) -> None:
    backslash = "设 \\(x_i^2\\) 为\n\n\\[\n\\frac{a}{b}\n\\]\n\n| a |\n|---|\n| \\(\\alpha\\) |\n"
    dollar = "设 $x_i^2$ 为\n\n$$\n\\frac{a}{b}\n$$\n\n| a |\n|---|\n| $\\alpha$ |\n"
    html = render(tmp_path, backslash).html
    assert html == render(tmp_path, dollar).html
    assert html.count("<math") == 3 and html.count('<div class="math-block">') == 1
    assert "\\alpha" not in html.replace(">\\alpha</annotation>", "")  # no TeX shown as text


def test_a_bad_backslash_formula_is_a_diagnostic_with_its_line(tmp_path: Path) -> None:
    out = render(tmp_path, "one\n\ntwo\nbad \\(\\left( x\\) here\n")
    [diagnostic] = out.diagnostics
    assert diagnostic.code == "KB501" and diagnostic.line == 4 + 5
    assert '<span class="math-tex math-error"' in out.html


@pytest.mark.parametrize(
    "tex", [r"\text{<script>alert(1)</script>}", r"\mathrm{<img src=x onerror=alert(1)>}"]
)
def test_formulas_cannot_inject_markup(tex: str) -> None:
    html = to_mathml(tex, False).html
    assert (
        "<script" not in html
        and "<img" not in html
        and "onerror=" not in html.replace("onerror=alert", "")
    )


def test_raw_html_is_sanitised(tmp_path: Path) -> None:
    out = render(
        tmp_path,
        '<div onclick="evil()">ok<script>alert(1)</script></div>\n\n'
        'Inline <a href="javascript:alert(1)">x</a> <img src=x onerror="alert(1)"> '
        '<iframe src="https://evil.example"></iframe><b>bold</b>\n',
    )
    html = out.html
    assert "<script" not in html and "onclick" not in html and "onerror" not in html
    assert "javascript:" not in html and "<iframe" not in html
    assert "<b>bold</b>" in html and "ok" in html


def test_code_is_highlighted_and_cells_show_their_outputs(tmp_path: Path) -> None:
    body = (
        "```python\nprint('hi')\n1 + 1\n```\n\n"
        '```python tags=["hide-input"]\nx = 1\n```\n\n'
        '```python tags=["hide-output"]\nprint("folded")\n```\n\n'
        '```python tags=["remove-cell"]\nsecret = 1\n```\n\n'
        "```bash\necho not run\n```\n"
    )
    cells = (
        CellResult(
            0,
            7,
            "passed",
            stdout="hi\n",
            value="2",
            figures=("<svg xmlns='http://www.w3.org/2000/svg'/>",),
        ),
        CellResult(1, 12, "passed", stdout="hidden input\n"),
        CellResult(2, 16, "passed", stdout="folded\n"),
        CellResult(3, 20, "passed", stdout="removed\n"),
    )
    out = render(tmp_path, body, result=PageResult("wiki/a.md", "passed", cells))
    html = out.html
    assert '<span class="nb">print</span>' in html  # Pygments
    assert (
        '<pre class="cell-stdout">hi\n</pre>' in html and '<pre class="cell-value">2</pre>' in html
    )
    [(digest, svg)] = out.figures.items()
    assert (
        f'src="../figures/{digest}.svg"' in html
        and 'alt="Figure 1 produced by the code cell at line 7"' in html
    )
    assert '<details class="cell-input"><summary>Show code</summary>' in html
    assert "hidden input" in html
    assert '<details class="cell-output-fold"><summary>Show output</summary>' in html
    assert "secret" not in html and "removed" not in html
    assert 'data-lang="bash"' in html and '<span class="nb">echo</span>' in html


def test_frontmatter_lines_do_not_shift_body_lines(tmp_path: Path) -> None:
    out = render(tmp_path, "\n\n$x^$\n")
    assert [d.line for d in out.diagnostics] == [8]
