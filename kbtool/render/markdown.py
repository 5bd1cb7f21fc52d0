"""A page's Markdown body -> HTML, with the same parser (and slugs) as the checker.

The tokens come from :func:`kbtool.parse.markdown.markdown_parser`, the one parser
configuration; only the renderer is ours. It rewrites links between pages to links between
the generated files, gives headings the checker's slugs as ids, typesets math as MathML,
highlights code and puts each executed cell's outputs under it. Raw HTML is allowed by the
parser, so a body that contains any is passed whole through the sanitiser.
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from kbtool.diagnostics import Diagnostic
from kbtool.execute.results import PageResult
from kbtool.model import Link, Page, Span
from kbtool.parse.frontmatter import blank_frontmatter
from kbtool.parse.markdown import WIKILINK, markdown_parser
from kbtool.render import urls
from kbtool.render.cells import CellOutputs, render_cell
from kbtool.render.diagrams import render_diagram
from kbtool.render.gfm import add_gfm_rules
from kbtool.render.mathml import tex_fallback, to_mathml
from kbtool.render.sanitize import sanitize_html
from kbtool.wiki import Status, Target, Wiki

#: Repository files (not pages) that a page may show or link to, copied beside the pages.
COPYABLE = frozenset(
    [
        ".png",
        ".jpg",
        ".jpeg",
        ".gif",
        ".svg",
        ".webp",
        ".avif",
        ".bmp",
        ".ico",
        ".pdf",
        ".mp4",
        ".webm",
        ".mp3",
        ".ogg",
        ".wav",
        ".csv",
        ".txt",
        ".json",
        ".zip",
    ]
)


@dataclass
class RenderedBody:
    html: str
    #: id of the page's leading ``# Title`` heading, shown by the template as the page's h1
    title_id: str | None
    diagnostics: list[Diagnostic]
    figures: dict[str, str]
    #: repository files this body links to or shows, copied to the same path in the site
    files: frozenset[str]


@dataclass
class _Context:
    page: Page
    output: str
    wiki: Wiki
    result: PageResult | None
    t: Callable[..., str]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    outputs: CellOutputs = field(default_factory=CellOutputs)
    files: set[str] = field(default_factory=set)
    heading: int = 0
    cell: int = 0
    line: int = 1
    raw_html: bool = False


class _Renderer(RendererHTML):
    """markdown-it's HTML renderer with our rules; ``env["kb"]`` carries the page context."""

    # Block tokens carry their line; inline children are counted from it by line breaks, so
    # a formula's diagnostic points at its own line.
    def render(self, tokens: Sequence[Token], options: OptionsDict, env: Any) -> str:
        ctx: _Context = env["kb"]
        out: list[str] = []
        for i, token in enumerate(tokens):
            if token.map:
                ctx.line = token.map[0] + 1
            if token.type == "inline":
                if token.children:
                    out.append(self.renderInline(token.children, options, env))
            elif token.type in self.rules:
                out.append(self.rules[token.type](tokens, i, options, env))
            else:
                out.append(self.renderToken(tokens, i, options, env))
        return "".join(out)

    def renderInline(self, tokens: Sequence[Token], options: OptionsDict, env: Any) -> str:
        ctx: _Context = env["kb"]
        out: list[str] = []
        for i, token in enumerate(tokens):
            if token.type in self.rules:
                out.append(self.rules[token.type](tokens, i, options, env))
            else:
                out.append(self.renderToken(tokens, i, options, env))
            if token.type in ("softbreak", "hardbreak"):
                ctx.line += 1
        return "".join(out)

    # -- headings -----------------------------------------------------------------------
    def heading_open(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
    ) -> str:
        ctx: _Context = env["kb"]
        headings = ctx.page.headings
        if ctx.heading < len(headings):
            tokens[idx].attrSet("id", headings[ctx.heading].slug)
        ctx.heading += 1
        return self.renderToken(tokens, idx, options, env)

    # -- links and images ---------------------------------------------------------------
    def link_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        ctx: _Context = env["kb"]
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        url, external = _link_url(ctx, href)
        if external:
            token.attrSet("rel", "noopener noreferrer")
        elif url is None:
            token.attrs.pop("href", None)
            token.attrSet("class", "broken-link")
        else:
            token.attrSet("href", url)
        return self.renderToken(tokens, idx, options, env)

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        ctx: _Context = env["kb"]
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = self.renderInlineAsText(token.children or [], options, env)
        url, external = _link_url(ctx, src)
        if external:  # The site makes no request off the site: a remote image is a link.
            return (
                f'<a href="{escape(src)}" rel="noopener noreferrer" class="remote-image">'
                f"{escape(alt or src)}</a>"
            )
        if url is None:
            return f'<span class="broken-link">{escape(alt)}</span>'
        title = token.attrGet("title")
        title_attr = f' title="{escape(str(title))}"' if title else ""
        return f'<img src="{escape(url)}" alt="{escape(alt)}"{title_attr} loading="lazy">'

    def text(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        content = tokens[idx].content
        if "[[" not in content:
            return escape(content, quote=False)
        return _wikilinks(env["kb"], content)

    # -- code and cells -----------------------------------------------------------------
    def fence(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        ctx: _Context = env["kb"]
        cells = ctx.page.cells
        if ctx.cell >= len(cells):  # Never expected: the parser saw the same fences.
            return super().fence(tokens, idx, options, env)
        cell = cells[ctx.cell]
        ctx.cell += 1
        if cell.language == "mermaid":
            return render_diagram(cell.source)
        result = ctx.result.cell(cell.index) if ctx.result else None
        output = ctx.output

        def figure_src(digest: str) -> str:
            return urls.href(output, urls.figure_output(digest))

        return render_cell(cell, result, ctx.t, figure_src, ctx.outputs)

    def code_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        code = escape(tokens[idx].content, quote=False)
        return f'<pre class="highlight"><code>{code}</code></pre>\n'

    # -- math ---------------------------------------------------------------------------
    def math_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        return _math(env["kb"], tokens[idx].content, display=False)

    def math_inline_double(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
    ) -> str:
        return _math(env["kb"], tokens[idx].content, display=True)

    def math_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        return (
            f'<div class="math-block">{_math(env["kb"], tokens[idx].content, display=True)}</div>\n'
        )

    def math_block_label(
        self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any
    ) -> str:
        label = escape(tokens[idx].info)
        math = _math(env["kb"], tokens[idx].content, display=True)
        eqno = f'<span class="eqno">({label})</span>'
        return f'<div class="math-block" id="eq-{label}">{math}{eqno}</div>\n'

    # -- raw HTML: allowed by the parser, cleaned as a whole body afterwards ---------------
    def html_block(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        env["kb"].raw_html = True
        return tokens[idx].content

    def html_inline(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        env["kb"].raw_html = True
        return tokens[idx].content

    def table_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        # A wrapper that scrolls sideways, so a wide table never widens the page on a phone.
        return '<div class="table-wrap">' + self.renderToken(tokens, idx, options, env)

    def table_close(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        return self.renderToken(tokens, idx, options, env) + "</div>\n"


def _math(ctx: _Context, tex: str, display: bool) -> str:
    formula = to_mathml(tex, display)
    if formula.error is None:
        return formula.html
    ctx.diagnostics.append(
        Diagnostic(
            ctx.page.path,
            ctx.line,
            1,
            "KB501",
            "warning",
            f"formula cannot be converted to MathML ({formula.error}); shown as TeX: {_clip(tex)}",
        )
    )
    return tex_fallback(tex, ctx.t("math_error"))


def _clip(text: str, limit: int = 60) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _target_url(ctx: _Context, target: Target) -> str | None:
    """URL of a resolved in-repository target, or None when it leads nowhere on the site."""
    if target.status not in (Status.OK, Status.AMBIGUOUS) or target.path is None:
        return None
    if target.page is not None:
        return urls.href(ctx.output, urls.page_output(target.page.path), target.anchor)
    extension = posixpath.splitext(target.path)[1].lower()
    config = ctx.wiki.config
    inside = any(
        target.path.startswith(folder.rstrip("/") + "/") for folder in (config.wiki, config.sources)
    )
    if extension not in COPYABLE or not inside:
        return None
    ctx.files.add(target.path)
    return urls.href(ctx.output, target.path, target.anchor)


def _link_url(ctx: _Context, href: str) -> tuple[str | None, bool]:
    """(site URL, is external) for a link or image destination as markdown-it normalised it."""
    target = ctx.wiki.resolve(ctx.page, Link(href, "link", Span(ctx.page.path)))
    if target.status is Status.EXTERNAL:
        return href, True
    return _target_url(ctx, target), False


def _wikilinks(ctx: _Context, text: str) -> str:
    out: list[str] = []
    pos = 0
    for match in WIKILINK.finditer(text):
        out.append(escape(text[pos : match.start()], quote=False))
        pos = match.end()
        name, label = match.group(1).strip(), match.group(2)
        target = ctx.wiki.resolve(ctx.page, Link(name, "wikilink", Span(ctx.page.path)))
        shown = (label or "").strip() or (target.page.title if target.page else name)
        url = _target_url(ctx, target)
        if url is None:
            out.append(f'<a class="broken-link wikilink">{escape(shown, quote=False)}</a>')
        else:
            out.append(f'<a class="wikilink" href="{escape(url)}">{escape(shown, quote=False)}</a>')
    out.append(escape(text[pos:], quote=False))
    return "".join(out)


_RENDERER = _Renderer()
add_gfm_rules(_RENDERER)


def render_body(
    page: Page, source: str, wiki: Wiki, result: PageResult | None, t: Callable[..., str]
) -> RenderedBody:
    """Render ``source`` (the page's whole file text) as the HTML of its body.

    The frontmatter is blanked out, as the parser does, so token lines are file lines.
    """
    md = markdown_parser()
    text = source.replace("\r\n", "\n").replace("\r", "\n")
    tokens = md.parse(blank_frontmatter(text, page.body_line - 1))
    ctx = _Context(page, urls.page_output(page.path), wiki, result, t)
    title_id = None
    # A leading `# Title` is the page's title: the template shows it, with the same id.
    if tokens and tokens[0].type == "heading_open" and tokens[0].tag == "h1" and page.headings:
        title_id = page.headings[0].slug
        tokens = tokens[3:]
        ctx.heading = 1
    html = _RENDERER.render(tokens, md.options, {"kb": ctx})
    if ctx.raw_html:
        html = sanitize_html(html)
    return RenderedBody(
        html, title_id, ctx.diagnostics, dict(ctx.outputs.figures), frozenset(ctx.files)
    )
