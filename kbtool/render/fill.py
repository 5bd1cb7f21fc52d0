"""A page's body with its holes filled: link URLs and wikilink titles from the wiki as it is
now, cell outputs from this build's results. Cheap: no Markdown is parsed here."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass, field
from html import escape

from kbtool.diagnostics import Diagnostic
from kbtool.execute.results import PageResult
from kbtool.model import Link, Page, Span
from kbtool.render import urls
from kbtool.render.cells import CellOutputs, render_outputs
from kbtool.render.markdown import Hole, PageBody
from kbtool.render.sanitize import sanitize_html
from kbtool.wiki import Status, Target, Wiki

#: Repository files (not pages) that a page may show or link to, copied beside the pages.
COPYABLE = frozenset(
    (".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".bmp", ".ico", ".pdf")
    + (".mp4", ".webm", ".mp3", ".ogg", ".wav", ".csv", ".txt", ".json", ".zip")
)
#: What ``![[name]]`` shows as an image.
IMAGES = frozenset((".png", ".jpg", ".jpeg", ".gif", ".svg", ".webp", ".avif", ".bmp"))
_HOLE = re.compile("\x00([0-9]+)\x00")


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
        """``![[name]]``: an image by its name (or its path from this page), at its size; any
        other file or note, for now, a link to it."""
        if posixpath.splitext(name.split("#", 1)[0])[1].lower() not in IMAGES:
            return self._wikilink(name, label)
        target = self._resolve(name, "wikilink")
        url = self._url(target) or self._url(self._resolve(name, "link"))
        alt = "" if width else label
        return self._img(url, alt or posixpath.basename(name), "", width, height)

    def _wikilink(self, name: str, label: str) -> str:
        target = self._resolve(name, "wikilink")
        shown = label or (target.page.title if target.page else name)
        url = self._url(target)
        if url is None:
            return f'<a class="broken-link wikilink">{escape(shown, quote=False)}</a>'
        return f'<a class="wikilink" href="{escape(url)}">{escape(shown, quote=False)}</a>'

    def _cell(self, index: int) -> str:
        cell = next(c for c in self.page.cells if c.index == index)
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
            return urls.href(self.output, urls.page_output(target.page.path), target.anchor)
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


def fill_body(
    body: PageBody, page: Page, wiki: Wiki, result: PageResult | None, t: Callable[..., str]
) -> RenderedBody:
    """``body`` with every hole filled, sanitised whole if the page has raw HTML."""
    filler = _Filler(page, urls.page_output(page.path), wiki, result, t)
    html = _HOLE.sub(lambda m: filler.fill(body.holes[int(m.group(1))]), body.html)
    if body.raw_html:
        html = sanitize_html(html)
    return RenderedBody(
        html,
        body.title_id,
        list(body.diagnostics),
        dict(filler.outputs.figures),
        dict(filler.outputs.images),
        frozenset(filler.files),
    )
