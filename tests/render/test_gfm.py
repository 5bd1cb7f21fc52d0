"""What the site renders beyond CommonMark: task lists, alerts, bare URLs, footnotes, diagrams."""

from __future__ import annotations

import re
from collections.abc import Mapping
from pathlib import Path

import pytest

from kbtool.config import Config
from kbtool.model import Page
from kbtool.parse.markdown import markdown_parser
from kbtool.render import diagrams
from kbtool.render.fill import RenderedBody
from kbtool.render.i18n import translator
from kbtool.render.sanitize import sanitize_html
from kbtool.stages import plan as build_plan
from kbtool.stages.load import load_wiki
from tests.render.support import render_text

FRONT = "---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n"


def render(tmp_path: Path, body: str, language: str = "zh") -> RenderedBody:
    path = tmp_path / "wiki" / "a.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(FRONT + body, encoding="utf-8")
    wiki = load_wiki(Config(root=tmp_path), jobs=1, use_store=False)
    return render_text(wiki.pages["wiki/a.md"], FRONT + body, wiki, None, translator(language))


def test_task_lists_are_disabled_checkboxes(tmp_path: Path) -> None:
    html = render(tmp_path, "- [ ] 供电电压\n- [x] 接地\n- 普通项\n").html
    assert html.count('type="checkbox"') == 2
    assert html.count('disabled=""') == 2 and html.count('checked=""') == 1
    assert "[ ]" not in html and "[x]" not in html


@pytest.mark.parametrize(
    ("kind", "zh", "en"),
    [
        ("NOTE", "备注", "Note"),
        ("TIP", "提示", "Tip"),
        ("IMPORTANT", "重要", "Important"),
        ("WARNING", "警告", "Warning"),
        ("CAUTION", "注意", "Caution"),
    ],
)
def test_alerts_carry_a_label_in_the_site_language(
    tmp_path: Path, kind: str, zh: str, en: str
) -> None:
    source = f"> [!{kind}]\n> 正文 **粗体**\n"
    for language, label in (("zh", zh), ("en", en)):
        html = render(tmp_path, source, language).html
        assert f'class="markdown-alert markdown-alert-{kind.lower()}"' in html
        assert f'<p class="markdown-alert-title">{label}</p>' in html
        assert "[!" not in html and "<strong>粗体</strong>" in html


def test_a_plain_blockquote_stays_a_blockquote(tmp_path: Path) -> None:
    html = render(tmp_path, "> [!UNKNOWN]\n> text\n").html
    assert "<blockquote>" in html and "markdown-alert" not in html


def test_bare_urls_are_external_links_that_stop_at_chinese_punctuation(tmp_path: Path) -> None:
    out = render(tmp_path, "见 https://github.com/lcm-proj/lcm/）。又见（https://a.org/x），完。\n")
    assert '<a href="https://github.com/lcm-proj/lcm/" rel="noopener noreferrer">' in out.html
    assert '<a href="https://a.org/x" rel="noopener noreferrer">https://a.org/x</a>），' in out.html
    assert "broken-link" not in out.html


def test_file_names_are_not_fuzzy_links_but_www_domains_are(tmp_path: Path) -> None:
    html = render(tmp_path, "运行 model.py 或 train.sh，见 www.example.com。\n").html
    assert html.count("<a ") == 1
    assert (
        '<a href="http://www.example.com" rel="noopener noreferrer">www.example.com</a>。' in html
    )


#: GFM's extended www autolinks, as the GFM spec writes them, and where a link must not be.
WWW_CASES = [
    "www.commonmark.org",
    "Visit www.commonmark.org/help for more information.",
    "Visit www.commonmark.org.",
    "Visit www.commonmark.org/a.b.",
    "www.google.com/search?q=Markup+(business)",
    "www.google.com/search?q=Markup+(business)))",
    "(www.google.com/search?q=Markup+(business))",
    "(www.google.com/search?q=Markup+(business)",
    "www.google.com/search?q=(business))+ok",
    "www.google.com/search?q=commonmark&hl=en",
    "www.google.com/search?q=commonmark&hl;",
    "www.commonmark.org/he<lp",
    "**www.a.org** and ~~www.c.org~~ and _www.d.org/x_",
    "www.a_b.org and www.x_y.a.org and www.a.org_b",
    "foowww.example.org, `www.code.org` and [www.label.org](x.md)",
    "a line\nwww.next.org",
]


@pytest.mark.parametrize("source", WWW_CASES)
def test_www_links_are_githubs(source: str) -> None:
    from cmarkgfm import github_flavored_markdown_to_html as github

    ours = markdown_parser().render(source + "\n")
    assert _links(ours) == _links(github(source + "\n"))


def _links(html: str) -> list[tuple[str, str]]:
    return re.findall(r'<a href="([^"]*)"[^>]*>(.*?)</a>', html)


def test_www_links_end_before_chinese_text(tmp_path: Path) -> None:
    # Where GitHub runs on into 。 or the next word (or links nothing after a Chinese word),
    # and where it takes the `_` closing emphasis for part of the domain.
    html = markdown_parser().render("访问www.example.org获取，或见（www.a.org/x）。_www.b.org_\n")
    assert _links(html) == [
        ("http://www.example.org", "www.example.org"),
        ("http://www.a.org/x", "www.a.org/x"),
        ("http://www.b.org", "www.b.org"),
    ]


def test_footnotes_link_both_ways(tmp_path: Path) -> None:
    html = render(tmp_path, "正文[^1]。\n\n[^1]: 脚注，见 [b](b.md)。\n").html
    assert '<sup class="footnote-ref"><a href="#fn1" id="fnref1">[1]</a></sup>' in html
    assert '<li id="fn1" class="footnote-item">' in html and 'href="#fnref1"' in html


def test_strikethrough(tmp_path: Path) -> None:
    assert "<s>旧值</s>" in render(tmp_path, "把~~旧值~~改掉\n").html


def test_a_diagram_is_its_escaped_source_for_the_browser(tmp_path: Path) -> None:
    source = 'graph TD\n  a["<script>alert(1)</script>"] --> b\n  click a call alert()\n'
    html = render(tmp_path, f"```mermaid\n{source}```\n").html
    assert '<figure class="diagram"><pre class="mermaid-source">graph TD' in html
    assert "<script>" not in html and "&lt;script&gt;" in html
    assert "highlight" not in html  # not a code block


def test_raw_html_beside_them_keeps_checkboxes_alerts_and_diagrams(tmp_path: Path) -> None:
    body = "<b>raw</b>\n\n- [x] done\n\n> [!NOTE]\n> n\n\n```mermaid\ngraph TD\n  a-->b\n```\n"
    html = render(tmp_path, body).html
    assert 'type="checkbox"' in html and 'checked=""' in html
    assert "markdown-alert-note" in html and 'class="mermaid-source"' in html


def test_the_sanitiser_allows_checkboxes_but_nothing_that_runs() -> None:
    html = sanitize_html('<input type="checkbox" checked onclick="x()" formaction="javascript:x">')
    assert 'type="checkbox"' in html and "onclick" not in html and "javascript" not in html


def _wiki_with_diagrams(tmp_path: Path, count: int) -> Config:
    (tmp_path / "wiki").mkdir(exist_ok=True)
    (tmp_path / "wiki" / "plain.md").write_text(FRONT + "# Plain\n", encoding="utf-8")
    for index in range(count):
        page = tmp_path / "wiki" / f"p{index}.md"
        page.parent.mkdir(parents=True, exist_ok=True)
        page.write_text(FRONT + "# P\n\n```mermaid\ngraph TD\n  a-->b\n```\n", encoding="utf-8")
    return Config(root=tmp_path)


def _diagrams(pages: Mapping[str, Page]) -> list[tuple[str, int]]:
    return [(path, line) for path, page in pages.items() for line in diagrams.diagram_lines(page)]


def test_missing_mermaid_is_one_warning_for_the_whole_build(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diagrams, "MERMAID", tmp_path / "absent.js")
    wiki = load_wiki(_wiki_with_diagrams(tmp_path, 3), jobs=1, use_store=False)
    [warning] = diagrams.diagram_diagnostics(_diagrams(wiki.pages))
    assert (warning.code, warning.severity, warning.path) == ("KB510", "warning", "wiki/p0.md")
    assert warning.line == 8 and "3 Mermaid diagram(s) on 3 page(s)" in warning.message


def test_no_warning_without_diagrams_or_with_mermaid(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki = load_wiki(_wiki_with_diagrams(tmp_path, 0), jobs=1, use_store=False)
    monkeypatch.setattr(diagrams, "MERMAID", tmp_path / "absent.js")
    assert diagrams.diagram_diagnostics(_diagrams(wiki.pages)) == []
    present = tmp_path / "mermaid.min.js"
    present.write_text("// mermaid")
    monkeypatch.setattr(diagrams, "MERMAID", present)
    wiki = load_wiki(_wiki_with_diagrams(tmp_path, 1), jobs=1, use_store=False)
    assert diagrams.diagram_diagnostics(_diagrams(wiki.pages)) == []


def test_the_site_ships_what_vendor_holds(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    (tmp_path / "mermaid.min.js").write_bytes(b"window.mermaid = {};")
    (tmp_path / ".hidden").write_bytes(b"x")
    monkeypatch.setattr(diagrams, "VENDOR_DIR", tmp_path)
    files = build_plan.static_files()
    assert files["assets/vendor/mermaid.min.js"] == b"window.mermaid = {};"
    assert "assets/vendor/.hidden" not in files and "assets/diagrams.js" in files


def test_type_labels_name_types_in_navigation_and_index_pages(tmp_path: Path) -> None:
    from kbtool.config import load_config
    from kbtool.stages.site import build_site

    (tmp_path / "pyproject.toml").write_text(
        '[tool.kbtool]\ntypes = ["concept", "method"]\n'
        'type-labels = { concept = "概念", method = "方法" }\n',
        encoding="utf-8",
    )
    _wiki_with_diagrams(tmp_path, 0)
    report = build_site(load_config(tmp_path), jobs=1, use_store=False)
    assert report.ok, report.diagnostics
    site = tmp_path / "site"
    page = (site / "wiki" / "plain.html").read_text(encoding="utf-8")
    nav = page.split('<nav class="site-nav"')[1].split("</nav>")[0]
    assert ">概念</a>" in nav and ">方法</a>" in nav and ">concept<" not in nav
    assert 'class="page-type"' in page and ">概念</a></dd>" in page
    index = (site / "types" / "concept.html").read_text(encoding="utf-8")
    assert "<title>类型：概念" in index
    home = (site / "index.html").read_text(encoding="utf-8")
    assert '<span class="type-name">概念</span>' in home
