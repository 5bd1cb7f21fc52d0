"""A page's Markdown body -> HTML, rendered once, in the worker that parsed the page.

The tokens are the parser's own (:func:`kbtool.parse.markdown.markdown_parser`, the one parser
configuration); only the renderer is ours. It gives headings the checker's slugs as ids,
typesets math as MathML and highlights code. What depends on other pages or on the cells'
results is left as a *hole*: a link between pages (its URL, whether it leads anywhere, a
wikilink's title) and the outputs under an executed cell. :mod:`kbtool.render.fill` fills the
holes when the page is assembled. A hole is written ``\\x00N\\x00``: markdown-it replaces every
NUL of the source, so no page can forge one.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from html import escape
from typing import Any

from markdown_it.renderer import RendererHTML
from markdown_it.token import Token
from markdown_it.utils import OptionsDict

from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.parse.markdown import WIKILINK, markdown_parser
from kbtool.render.cells import render_cell
from kbtool.render.diagrams import render_diagram
from kbtool.render.gfm import add_gfm_rules
from kbtool.render.mathml import tex_fallback, to_mathml
from kbtool.render.obsidian import add_obsidian_rules, wrap_block_id
from kbtool.wiki import is_external

Hole = tuple[str, ...]
#: a hole in a body's HTML: its number between two NULs
HOLE = re.compile("\x00([0-9]+)\x00")


@dataclass(frozen=True)
class PageBody:
    """A page's body HTML with holes, and what rendering it found; compact and JSON-ready."""

    html: str
    #: ("link", href, title) | ("image", src, alt, title[, width, height])
    #: | ("wikilink", name, label) | ("embed", name, label, width, height) | ("cell", index):
    #: what fills each hole, by number (a size is "" when not given)
    holes: tuple[Hole, ...]
    #: id of the page's leading ``# Title`` heading, shown by the template as the page's h1
    title_id: str | None
    diagnostics: tuple[Diagnostic, ...]
    #: the body has raw HTML: sanitise it whole once the holes are filled
    raw_html: bool

    def to_json(self) -> dict[str, Any]:
        return {
            "html": self.html,
            "holes": [list(h) for h in self.holes],
            "title_id": self.title_id,
            "diagnostics": [d.row() for d in self.diagnostics],
            "raw_html": self.raw_html,
        }

    def holes_shown(self) -> list[Hole]:
        """The holes its HTML shows, in order (a part cut from a body shows only some)."""
        return [self.holes[int(number)] for number in HOLE.findall(self.html)]

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> PageBody:
        """Raises KeyError, TypeError or ValueError for anything not written by
        :meth:`to_json`."""
        return cls(
            str(data["html"]),
            tuple(tuple(str(part) for part in hole) for hole in data["holes"]),
            data["title_id"] if isinstance(data["title_id"], str) else None,
            tuple(Diagnostic.from_row(row) for row in data["diagnostics"]),
            bool(data["raw_html"]),
        )


@dataclass
class _Context:
    page: Page
    t: Callable[..., str]
    diagnostics: list[Diagnostic] = field(default_factory=list)
    holes: list[Hole] = field(default_factory=list)
    heading: int = 0
    cell: int = 0
    line: int = 1
    raw_html: bool = False

    def hole(self, *what: str) -> str:
        self.holes.append(what)
        return f"\x00{len(self.holes) - 1}\x00"


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
                html = self.rules[token.type](tokens, i, options, env)
                out.append(wrap_block_id(token, html) if token.meta else html)
            else:
                html = self.renderToken(tokens, i, options, env)
                out.append(wrap_block_id(token, html) if token.meta else html)
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

    # -- links and images: holes unless they leave the site ----------------------------
    def link_open(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        token = tokens[idx]
        href = str(token.attrGet("href") or "")
        if is_external(href):
            token.attrSet("rel", "noopener noreferrer")
            return self.renderToken(tokens, idx, options, env)
        ctx: _Context = env["kb"]
        return ctx.hole("link", href, str(token.attrGet("title") or ""))

    def image(self, tokens: Sequence[Token], idx: int, options: OptionsDict, env: Any) -> str:
        token = tokens[idx]
        src = str(token.attrGet("src") or "")
        alt = self.renderInlineAsText(token.children or [], options, env)
        if is_external(src):  # The site makes no request off the site: a remote image is a link.
            return (
                f'<a href="{escape(src)}" rel="noopener noreferrer" class="remote-image">'
                f"{escape(alt or src)}</a>"
            )
        ctx: _Context = env["kb"]
        title = str(token.attrGet("title") or "")
        if token.meta and "width" in token.meta:  # `![alt|300x200](a.png)`, Obsidian's flavor
            size = (str(token.meta["width"]), str(token.meta.get("height", "")))
            return ctx.hole("image", src, alt, title, *size)
        return ctx.hole("image", src, alt, title)

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
        return render_cell(cell, ctx.t, ctx.hole("cell", str(cell.index)))

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


def _wikilinks(ctx: _Context, text: str) -> str:
    out: list[str] = []
    pos = 0
    for match in WIKILINK.finditer(text):
        out.append(escape(text[pos : match.start()], quote=False))
        pos = match.end()
        out.append(ctx.hole("wikilink", match.group(1).strip(), (match.group(2) or "").strip()))
    out.append(escape(text[pos:], quote=False))
    return "".join(out)


_RENDERER = _Renderer()
add_gfm_rules(_RENDERER)
add_obsidian_rules(_RENDERER)


def render_body(page: Page, tokens: list[Token], t: Callable[..., str]) -> PageBody:
    """Render the body ``tokens`` of ``page`` (parsed with the frontmatter blanked out, so token
    lines are file lines). The tokens are changed on the way: render them once."""
    ctx = _Context(page, t)
    title_id = None
    # A leading `# Title` is the page's title: the template shows it, with the same id. A
    # vault's note is titled by its file name: a first heading that says more stays.
    if (
        tokens
        and tokens[0].type == "heading_open"
        and tokens[0].tag == "h1"
        and page.headings
        and not _titled_apart(page)
    ):
        title_id = page.headings[0].slug
        tokens = tokens[3:]
        ctx.heading = 1
    html = _RENDERER.render(tokens, markdown_parser().options, {"kb": ctx})
    return PageBody(html, tuple(ctx.holes), title_id, tuple(ctx.diagnostics), ctx.raw_html)


def _titled_apart(page: Page) -> bool:
    """Whether the page is titled by its file name while its first heading says otherwise (a
    vault's note; elsewhere a first heading is the title itself, or a frontmatter `title`)."""
    stem = page.path.rsplit("/", 1)[-1].removesuffix(".md")
    titled = page.frontmatter is not None and isinstance(page.frontmatter.data.get("title"), str)
    return not titled and page.title == stem and page.headings[0].text != stem
