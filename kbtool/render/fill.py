"""A page's body with its holes filled: link URLs and wikilink titles from the wiki as it is
now, cell outputs from this build's results. Cheap: no Markdown is parsed here."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

from kbtool.checks.base import diagnostic
from kbtool.diagnostics import Diagnostic
from kbtool.edits.vault_headings import named_headings
from kbtool.execute.results import PageResult
from kbtool.model import Link, Page, Span
from kbtool.obsidian_links import subpath_parts
from kbtool.parse.slugs import slugify
from kbtool.render import urls
from kbtool.render.cells import CellOutputs, render_outputs
from kbtool.render.embeds import DEPTH, EmbedSource, Shown, framed, notice, without_ids
from kbtool.render.markdown import HOLE, Hole, PageBody
from kbtool.render.sanitize import sanitize_html
from kbtool.wiki import Status, Target, Wiki

#: Repository files (not pages) that a page may show or link to, copied beside the pages.
COPYABLE = frozenset(
    (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".bmp", ".ico", ".pdf")
    + (".mp4", ".webm", ".mp3", ".ogg", ".wav", ".csv", ".txt", ".json", ".zip")
)
#: What ``![[name]]`` shows as an image, as a player, or in a frame.
IMAGES = frozenset((".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".bmp"))
AUDIO = frozenset((".mp3", ".wav", ".ogg", ".m4a", ".flac", ".webm.audio"))
VIDEO = frozenset((".mp4", ".webm", ".ogv", ".mov", ".mkv"))
#: where an embed goes until the body is sanitised (its own HTML is not the page's to clean)
_EMBEDDED = re.compile("\ue000([0-9]+)\ue001")
_ALONE = re.compile("<p>\ue000([0-9]+)\ue001</p>")


@dataclass
class RenderedBody:
    html: str
    #: id of the page's leading ``# Title`` heading, shown by the template as the page's h1
    title_id: str | None
    diagnostics: list[Diagnostic]
    figures: dict[str, str]
    #: image files of rich cell outputs: site-relative name -> bytes
    images: dict[str, bytes]
    #: repository files this body links to or shows, copied to the same path in the site
    files: frozenset[str]


@dataclass
class _Filler:
    page: Page
    output: str
    wiki: Wiki
    result: PageResult | None
    t: Callable[..., str]
    outputs: CellOutputs = field(default_factory=CellOutputs)
    files: set[str] = field(default_factory=set)
    #: where embedded notes' bodies come from (None: embeds show as links)
    embeds: EmbedSource | None = None
    #: the pages whose embeds show this body, outermost first
    stack: tuple[str, ...] = ()
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: the embeds refused (a loop, too deep) while showing this page's, by every filler
    refusals: list[str] = field(default_factory=list)
    #: the HTML of each embed, put in after the body is sanitised
    embedded: list[str] = field(default_factory=list)

    def fill(self, hole: Hole) -> str:
        kind = hole[0]
        if kind == "link":
            return self._link(hole[1], hole[2])
        if kind == "image":
            return self._image(hole[1], hole[2], hole[3], *hole[4:6])
        if kind == "wikilink":
            return self._wikilink(hole[1], hole[2])
        if kind == "embed":
            return self._embed(hole[1], hole[2], hole[3], hole[4])
        return self._cell(int(hole[1]))

    def fill_at(self, holes: tuple[Hole, ...], index: int) -> str:
        """The page's own hole ``index``: an embed made already is taken as it was made."""
        hole = holes[index]
        shown = self.embeds.shown(index) if self.embeds and hole[0] == "embed" else None
        if shown is None:
            return self.fill(hole)
        self.diagnostics += shown.diagnostics
        self.files |= shown.files
        text, *aside = shown.html
        numbers = [self._put_aside(html) for html in aside]
        return _EMBEDDED.sub(lambda m: numbers[int(m.group(1))], text)

    def _link(self, href: str, title: str) -> str:
        url = self._url(self._resolve(href, "link"))
        title_attr = f' title="{escape(title)}"' if title else ""
        if url is None:
            return f'<a class="broken-link"{title_attr}>'
        return f'<a href="{escape(url)}"{title_attr}>'

    def _image(self, src: str, alt: str, title: str, width: str = "", height: str = "") -> str:
        return self._img(self._url(self._resolve(src, "link")), alt, title, width, height)

    def _img(self, url: str | None, alt: str, title: str, width: str, height: str) -> str:
        if url is None:
            return f'<span class="broken-link">{escape(alt)}</span>'
        title_attr = f' title="{escape(title)}"' if title else ""
        size = f' width="{escape(width)}"' if width else ""
        size += f' height="{escape(height)}"' if height else ""
        return f'<img src="{escape(url)}" alt="{escape(alt)}"{title_attr}{size} loading="lazy">'

    def _embed(self, name: str, label: str, width: str, height: str) -> str:
        """``![[name]]``: an image by its name (or its path from this page), at its size; a
        sound or a video in the browser's player, a PDF in a frame; a note, or one of its
        sections or blocks, in place; any other file a link to it."""
        extension = posixpath.splitext(name.split("#", 1)[0])[1].lower()
        target = self._resolve(name, "wikilink")
        if extension in IMAGES:
            url = self._url(target) or self._url(self._resolve(name, "link"))
            alt = "" if width else label
            return self._img(url, alt or posixpath.basename(name), "", width, height)
        if extension in AUDIO | VIDEO or extension == ".pdf":
            url = self._url(target)
            if url is None:
                return self._wikilink(name, label)
            return self._put_aside(_media(extension, escape(url), label or name))
        if target.page is None or self.embeds is None:
            return self._wikilink(name, label)
        element = self._element_id(target.anchor, target.page)
        refused = len(self.refusals)
        html = self._note(target.page, element, name, label)
        if not self.stack and len(self.refusals) > refused:  # this page's own embed, reported
            self._report(name, self.refusals[refused])
        return self._put_aside(html)

    def _put_aside(self, html: str) -> str:
        self.embedded.append(html)
        return f"\ue000{len(self.embedded) - 1}\ue001"

    def _note(self, page: Page, anchor: str | None, name: str, label: str) -> str:
        """Another note's body, section or block, framed, its holes filled from its place."""
        assert self.embeds is not None
        # A note shown inside itself, through others or (but a part of it, once) directly.
        if page.path in self.stack or (page.path == self.page.path and not anchor):
            return self._refuse(name, "shows a note it is shown in")
        if len(self.stack) > DEPTH:
            return self._refuse(name, f"is nested more than {DEPTH} embeds deep")
        part = self.embeds.part_of(page.path, anchor)
        if part is None:
            return notice(f"{name}: nothing to show")
        # What it finds wrong is reported on the embed of the page being rendered.
        inner = _Filler(
            page, self.output, self.wiki, None, self.t, self.outputs, self.files, self.embeds,
            (*self.stack, self.page.path), refusals=self.refusals,
        )  # fmt: skip
        html = HOLE.sub(lambda m: inner.fill(part.holes[int(m.group(1))]), part.html)
        html = _put_back(sanitize_html(html) if part.raw_html else html, inner.embedded)
        title = label or page.title + (f" › {_shown_anchor(name)}" if anchor else "")
        return framed(without_ids(html), title, self._url(self._resolve(name, "wikilink")))

    def _element_id(self, anchor: str | None, page: Page) -> str | None:
        """The id of the element a link's ``#`` part names on ``page``: in a vault, where a
        heading is named by its text (``#A#B``: by its last part), its slug."""
        config = self.wiki.config
        if not anchor or not (config.flavor == "obsidian" or config.wiki == "."):
            return anchor
        parts = subpath_parts(anchor)
        last = parts[-1] if parts else anchor
        if last.startswith("^"):
            return last
        named = named_headings(parts, page.headings)[-1] if page.headings else None
        if named is not None:  # B under A, the first of its text
            return named.slug
        return last if last in page.slugs else slugify(last)

    def _refuse(self, name: str, why: str) -> str:
        self.refusals.append(f"![[{name}]]' in '{self.page.path}' {why}")
        return self._wikilink(name, "")

    def _report(self, name: str, why: str) -> str:
        line = next((ln.span.line for ln in self.page.links if ln.target == name), 1)
        message = f"embed '![[{name}]]' cannot be shown whole: '{why}, shown as a link"
        self.diagnostics.append(diagnostic("KB503", Span(self.page.path, line), message))
        return message

    def _wikilink(self, name: str, label: str) -> str:
        target = self._resolve(name, "wikilink")
        if self.wiki.config.flavor == "obsidian":  # as Obsidian shows it: the link as written
            shown = label or _as_written(name)
        else:
            shown = label or (target.page.title if target.page else name)
        url = self._url(target)
        if url is None:
            return f'<a class="broken-link wikilink">{escape(shown, quote=False)}</a>'
        return f'<a class="wikilink" href="{escape(url)}">{escape(shown, quote=False)}</a>'

    def _cell(self, index: int) -> str:
        cell = next((c for c in self.page.cells if c.index == index), None)
        if cell is None:  # an embedded note's cell, its page known by its facts alone
            return ""
        result = self.result.cell(index) if self.result else None

        def file_src(name: str) -> str:
            return urls.href(self.output, name)

        return render_outputs(cell, result, self.t, file_src, self.outputs)

    def _resolve(self, target: str, kind: str) -> Target:
        return self.wiki.resolve(self.page, Link(target, kind, Span(self.page.path)))  # type: ignore[arg-type]

    def _url(self, target: Target) -> str | None:
        """URL of a resolved in-repository target, or None when it leads nowhere on the site."""
        if target.status not in (Status.OK, Status.AMBIGUOUS) or target.path is None:
            return None
        if target.page is not None:
            element = self._element_id(target.anchor, target.page)
            return urls.href(self.output, urls.page_output(target.page.path), element)
        extension = posixpath.splitext(target.path)[1].lower()
        config = self.wiki.config
        inside = config.wiki == "." or any(  # a vault's wiki is the whole of it
            target.path.startswith(folder.rstrip("/") + "/")
            for folder in (*config.wiki_folders, config.sources)
        )
        if extension not in COPYABLE or not inside:
            return None
        self.files.add(target.path)
        return urls.href(self.output, target.path, target.anchor)


def _media(extension: str, url: str, label: str) -> str:
    """A sound or a video in the browser's own player, a PDF in a frame."""
    if extension in AUDIO:
        return f'<audio class="embed-media" controls src="{url}"></audio>'
    if extension in VIDEO:
        return f'<video class="embed-media" controls src="{url}"></video>'
    # Opened by the reader: a PDF viewer loaded with the page takes the focus and scrolls
    # the page to itself, away from the heading the reader came for.
    title = escape(label)
    return (
        f'<details class="embed-pdf"><summary><a href="{url}">{title}</a></summary>'
        f'<iframe src="{url}" title="{title}" loading="lazy"></iframe></details>'
    )


def _as_written(name: str) -> str:
    """A wikilink without a label as Obsidian shows it: ``Note > A > B`` for ``Note#A#B``,
    ``B`` for ``#B`` in the same note."""
    note, _, anchor = name.partition("#")
    return " > ".join(part for part in (note.strip(), *subpath_parts(anchor)) if part)


def _shown_anchor(name: str) -> str:
    """The part of ``Note#A#B`` or ``Note#^id`` an embed's title names: ``B``, ``^id``."""
    return name.rsplit("#", 1)[-1]


def _put_back(html: str, embedded: list[str]) -> str:
    """The embeds in their places; one alone in its paragraph instead of the paragraph."""
    if not embedded:
        return html
    html = _ALONE.sub(lambda m: embedded[int(m.group(1))], html)
    return _EMBEDDED.sub(lambda m: embedded[int(m.group(1))], html)


@dataclass(frozen=True)
class OwnFill:
    """A body with its own holes filled (links, images, cells) and its embeds (``![[…]]``)
    not: what a page rendered again only because the notes it shows changed has as before."""

    #: the body's HTML between its embeds, one more piece than ``embeds``
    pieces: tuple[str, ...]
    #: the holes of its embeds, in order
    embeds: tuple[int, ...]
    diagnostics: tuple[Diagnostic, ...]
    figures: dict[str, str]
    images: dict[str, bytes]
    files: frozenset[str]


def fill_own(
    body: PageBody, page: Page, wiki: Wiki, result: PageResult | None, t: Callable[..., str]
) -> OwnFill:
    """``body`` with every hole filled but its embeds."""
    filler = _Filler(page, urls.page_output(page.path), wiki, result, t)
    pieces: list[str] = []
    embeds: list[int] = []
    text: list[str] = []  # the HTML since the last embed
    start = 0
    for m in HOLE.finditer(body.html):
        text.append(body.html[start : m.start()])
        start = m.end()
        index = int(m.group(1))
        if body.holes[index][0] == "embed":
            pieces.append("".join(text))
            embeds.append(index)
            text = []
        else:
            text.append(filler.fill(body.holes[index]))
    text.append(body.html[start:])
    pieces.append("".join(text))
    return OwnFill(
        tuple(pieces),
        tuple(embeds),
        tuple(filler.diagnostics),
        dict(filler.outputs.figures),
        dict(filler.outputs.images),
        frozenset(filler.files),
    )


def fill_body(
    body: PageBody,
    page: Page,
    wiki: Wiki,
    result: PageResult | None,
    t: Callable[..., str],
    embeds: EmbedSource | None = None,
    own: OwnFill | None = None,
) -> RenderedBody:
    """``body`` with every hole filled (its own as ``own`` has them, when given), sanitised
    whole if the page has raw HTML (but for what embeds show: made here, from pages that
    were sanitised by the same rule)."""
    own = own or fill_own(body, page, wiki, result, t)
    filler = _Filler(page, urls.page_output(page.path), wiki, result, t, embeds=embeds)
    parts = [own.pieces[0]]
    for index, piece in zip(own.embeds, own.pieces[1:], strict=True):
        parts += [filler.fill_at(body.holes, index), piece]
    html = "".join(parts)
    if body.raw_html:
        html = sanitize_html(html)
    html = _put_back(html, filler.embedded)
    return RenderedBody(
        html,
        body.title_id,
        [*body.diagnostics, *own.diagnostics, *filler.diagnostics],
        {**own.figures, **filler.outputs.figures},
        {**own.images, **filler.outputs.images},
        own.files | filler.files,
    )


def embed_shown(
    hole: Hole, page: Page, wiki: Wiki, t: Callable[..., str], embeds: EmbedSource
) -> Shown:
    """What one embed of ``page`` shows: a part of the page that other notes' text makes,
    filled without the rest of its body."""
    filler = _Filler(page, urls.page_output(page.path), wiki, None, t, embeds=embeds)
    text = filler.fill(hole)
    return Shown((text, *filler.embedded), tuple(filler.diagnostics), frozenset(filler.files))
