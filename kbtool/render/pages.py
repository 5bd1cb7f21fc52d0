"""One wiki or source page -> its HTML file (and the figure files its cells produced)."""

from __future__ import annotations

import contextlib
import hashlib
import json
from dataclasses import dataclass
from html import escape
from urllib.parse import quote

from markupsafe import Markup

from kbtool.diagnostics import Diagnostic
from kbtool.execute.results import PageResult, to_dict
from kbtool.model import Heading
from kbtool.render import urls
from kbtool.render.card import Ref
from kbtool.render.context import Frame, SiteContext
from kbtool.render.embeds import EmbedSource, embed_key
from kbtool.render.fill import RenderedBody, fill_body, fill_own
from kbtool.render.neighbourhood import hidden_count, neighbourhood_svg
from kbtool.render.templates import environment
from kbtool.render.vault import folder_output


@dataclass(frozen=True)
class Rendered:
    """Files to write (site-relative path -> text) and what rendering found wrong."""

    files: dict[str, str | bytes]
    diagnostics: tuple[Diagnostic, ...] = ()
    #: repository files the page shows, copied into the site: path -> stat signature
    copies: tuple[str, ...] = ()


def result_digest(result: PageResult | None) -> str:
    """What of a cell result shows on the page (not timings, not whether it was cached)."""
    if result is None:
        return ""
    data = to_dict(result)
    for key in ("duration", "cached", "extra"):
        data.pop(key, None)
    for cell in data["cells"]:
        cell.pop("duration", None)
    text = json.dumps(data, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()


#: what a page's key is made of (see :func:`page_key_parts`)
PageKeyParts = tuple[bytes, str, str, str, tuple[Ref, ...], str]


def page_key_parts(site: SiteContext, path: str, digest: str) -> PageKeyParts:
    """What the key of the page's HTML is made of: everything it depends on. Its file
    (``digest``), what it shows of other pages (titles of related pages, sources, backlinks,
    neighbours: its PageInfo, whose digest its listing holds), its cell results and similar
    pages (as the page shows them: path, title, type), what the notes it embeds show of
    themselves, and the settings (the renderer's own code is in the output record's key).
    Compared as they are, every page at every build: the similar pages' refs are the very
    objects of the last build while unchanged."""
    info, results = site.listings[path].info_digest, result_digest(site.results.get(path))
    similar = tuple(site.listings[other].card.ref for other in site.similar.get(path, ()))
    embeds = site.embeds[path].digest if path in site.embeds else ""
    return (site.common_key_bytes, digest, info, results, similar, embeds)


def key_of(parts: PageKeyParts) -> str:
    common, digest, info, results, similar, embeds = parts
    key = hashlib.blake2b(common, digest_size=16)
    for part in (digest, info, results, embeds):
        key.update(part.encode())
    key.update("\x01".join("\x00".join(ref.parts()) for ref in similar).encode())
    return key.hexdigest()


def _toc(headings: tuple[Heading, ...]) -> str:
    items = [h for h in headings if h.level in (2, 3)]
    if len(items) < 2:
        return ""
    lis = "".join(
        f'<li class="toc-h{h.level}"><a href="#{escape(h.slug)}">{escape(h.text)}</a></li>'
        for h in items
    )
    return f"<ol>{lis}</ol>"


def folder_trail(output: str, path: str, root: str) -> list[tuple[str, str]]:
    """A vault note's folders, from the root's page (called ``root``) down, each with its
    page's URL."""
    parts = path.split("/")[:-1]
    trail = [(root, urls.href(output, folder_output("")))]
    for depth, name in enumerate(parts):
        trail.append((name, urls.href(output, folder_output("/".join(parts[: depth + 1])))))
    return trail


def render_page(site: SiteContext, path: str) -> Rendered:
    page = site.wiki.pages[path]
    output = urls.page_output(path)
    embeds = EmbedSource.of_bodies(
        site.bodies.get, lambda index: site.shown.get(embed_key(path, index))
    )
    source, result = site.bodies[path], site.results.get(path)
    # Kept for a page rendered again because only what it embeds changed: its body's own
    # holes filled, and what it shows around its body, which reads of the body only whether
    # it has headings and diagrams (the scripts it loads).
    held = site.frames is not None or site.own_fills is not None
    made_of = page_key_parts(site, path, page.digest)[:-1] if held else ()
    own = None
    if site.own_fills is not None:
        own = site.own_fills(
            path, made_of, lambda: fill_own(source, page, site.wiki, result, site.t)
        )
    body = fill_body(source, page, site.wiki, result, site.t, embeds, own)
    shows = ("</h" in body.html, "mermaid-source" in body.html)
    frame = None
    if site.frames is not None:
        frame = site.frames(path, (*made_of, *shows), lambda: _frame(site, path, body, shows))
    if frame is None:
        html = _page_html(site, path, body, shows, body.html)
    else:
        html = frame[0] + body.html + frame[1]
    files: dict[str, str | bytes] = {output: html}
    if path == site.home_note and "/" not in path:  # the same depth: the same HTML
        files[urls.HOME] = html
    for digest, svg in body.figures.items():
        files[urls.figure_output(digest)] = svg
    files.update(body.images)
    # The page's Markdown beside its HTML (for readers and tools that want the source: the
    # llms.txt convention links these); its key holds the file's digest already.
    with contextlib.suppress(OSError):
        files[path] = (site.config.root / path).read_bytes()
    return Rendered(files, tuple(body.diagnostics), tuple(sorted(body.files)))


#: where the body goes in a page's frame (a character of Unicode's private use area: a frame
#: that holds it elsewhere, from a title, is not split)
_BODY = "\ue002"


def _frame(
    site: SiteContext, path: str, body: RenderedBody, shows: tuple[bool, bool]
) -> Frame | None:
    """The page's HTML before and after its body: the template rendered around a mark (None
    where the page's own text holds the mark)."""
    html = _page_html(site, path, body, shows, _BODY)
    if html.count(_BODY) != 1:
        return None
    before, _, after = html.partition(_BODY)
    return before, after


def _page_html(
    site: SiteContext, path: str, body: RenderedBody, shows: tuple[bool, bool], shown: str
) -> str:
    """The page's template rendered with ``shown`` for its body."""
    page = site.wiki.pages[path]
    info = site.infos[path]
    output = urls.page_output(path)
    t = site.t

    def link(ref: Ref) -> str:
        return urls.href(output, ref.output)

    related = [
        (e.ref.title if e.ref else e.text, link(e.ref) if e.ref else None) for e in info.related
    ]
    sources = [
        (e.ref.title if e.ref else e.text, link(e.ref) if e.ref else None) for e in info.sources
    ]
    backlinks = [(r.title, link(r), r.type) for r in info.backlinks]
    similar = [site.listings[p].card.ref for p in site.similar.get(path, ())]
    tags = [(tag, urls.href(output, urls.tag_output(tag))) for tag in info.tags]
    page_type = info.ref.type
    type_url = (
        urls.href(output, urls.type_output(page_type)) if page_type in site.config.types else None
    )
    headings = page.headings[1:] if body.title_id else page.headings
    toc = _toc(headings)
    variables = site.template_vars(
        output,
        info.ref.title,
        description=info.summary,
        info=info,
        title_id=body.title_id,
        body=Markup(shown),
        has_headings=shows[0],
        has_diagrams=shows[1],
        toc=bool(toc),
        toc_list=Markup(toc),
        related=related,
        sources=sources,
        backlinks=backlinks,
        similar=[(r.title, link(r), r.type) for r in similar],
        tags=tags,
        type_url=type_url,
        neighbourhood=Markup(neighbourhood_svg(info, link, t("neighbourhood"))),
        hidden_neighbours=hidden_count(info),
        graph_focus=quote(path, safe="/"),
        trail=folder_trail(output, path, t("folders")) if site.vault else [],
    )
    return environment().get_template("page.html").render(variables)
