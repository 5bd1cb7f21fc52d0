"""The pages about pages: home, one per type and per tag, the sources index, search, 404 and
the sitemap. Each is a template and plain data; the data (with the renderer version) is its
incremental-build key, so an index is re-rendered only when what it lists changes.
"""

from __future__ import annotations

import hashlib
import json
from collections import Counter, defaultdict
from dataclasses import dataclass
from typing import Any
from urllib.parse import quote

from kbtool.render import urls
from kbtool.render.context import SiteContext
from kbtool.render.folders import folder_pages, folder_tree, unresolved_data
from kbtool.render.site import Listing
from kbtool.render.vault import UNRESOLVED, tag_and_parents

RECENT = 20
HOME_TAGS = 80
#: how many pages the "most linked" page ranks
HUBS_TOP = 100


@dataclass(frozen=True)
class IndexPage:
    output: str
    template: str
    title: str
    data: dict[str, Any]

    def key(self, site: SiteContext) -> str:
        text = json.dumps(
            [site.common_key(), self.template, self.title, self.data],
            ensure_ascii=False,
            sort_keys=True,
        )
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def render(self, site: SiteContext) -> str:
        from kbtool.render.templates import environment

        variables = site.template_vars(self.output, self.title, **self.data)
        return environment().get_template(self.template).render(variables)


def _entry(info: Listing, from_output: str, type_label: str | None = None) -> dict[str, str]:
    return {
        "title": info.card.title,
        "url": urls.href(from_output, info.card.url),
        "type": type_label if type_label is not None else info.card.type,
        "updated": info.updated,
        "summary": info.card.summary,
    }


def _by_title(infos: list[Listing]) -> list[Listing]:
    return sorted(infos, key=lambda i: (i.card.title.lower(), i.card.path))


def _list_page(
    output: str, title: str, entries: list[dict[str, str]], show_type: bool
) -> IndexPage:
    data = {"entries": entries, "intro": "", "show_type": show_type}
    return IndexPage(output, "list.html", title, data)


def index_pages(site: SiteContext) -> list[IndexPage]:
    t = site.t
    infos = list(site.listings.values())
    wiki_infos = [i for i in infos if i.card.type != "source"]
    source_infos = [i for i in infos if i.card.type == "source"]
    out: list[IndexPage] = []

    by_type: dict[str, list[Listing]] = defaultdict(list)
    for info in wiki_infos:
        by_type[info.card.type].append(info)
    type_names = site.type_names()
    for name in type_names:
        output = urls.type_output(name)
        entries = [_entry(i, output) for i in _by_title(by_type.get(name, []))]
        title = t("type_title", type=site.type_label(name))
        out.append(_list_page(output, title, entries, show_type=False))

    tag_pages: dict[str, list[Listing]] = defaultdict(list)
    for info in infos:
        tags = info.card.tags
        if site.vault:  # a nested tag's note is under each tag above it too
            tags = tuple(dict.fromkeys(up for tag in tags for up in tag_and_parents(tag)))
        for tag in tags:
            tag_pages[tag].append(info)
    for tag, tagged in sorted(tag_pages.items()):
        output = urls.tag_output(tag)
        entries = [_entry(i, output, site.type_label(i.card.type)) for i in _by_title(tagged)]
        out.append(_list_page(output, t("tag_title", tag=tag), entries, show_type=True))

    def folder(info: Listing) -> str:
        rest = info.card.path.removeprefix(site.config.sources.rstrip("/") + "/")
        return rest.split("/", 1)[0] if "/" in rest else ""

    sources = [
        _entry(i, urls.SOURCES_INDEX, folder(i))
        for i in sorted(source_infos, key=lambda i: (folder(i), i.card.title.lower()))
    ]
    out.append(_list_page(urls.SOURCES_INDEX, t("sources_title"), sources, show_type=True))

    counts = Counter(i.card.type for i in wiki_infos)
    types = [
        (site.type_label(name), urls.type_output(name), counts.get(name, 0))
        for name in type_names
        if counts.get(name, 0)
    ]
    recent = sorted(wiki_infos, key=lambda i: (i.updated, i.card.title), reverse=True)[:RECENT]
    tag_counts = sorted(
        ((tag, len(pages)) for tag, pages in tag_pages.items()), key=lambda x: (-x[1], x[0])
    )
    home_tags = sorted(tag_counts[:HOME_TAGS])
    intro = t("home_intro", wiki=len(wiki_infos), sources=len(source_infos))
    if site.vault:
        out += vault_pages(site, infos)
    home = site.home_note
    if home is not None and "/" in home:  # a home note at the root writes index.html itself
        to = urls.href(urls.HOME, urls.page_output(home))
        out.append(
            IndexPage(urls.HOME, "redirect.html", site.listings[home].card.title, {"to": to})
        )
    elif home is None:
        data: dict[str, Any] = {
            "intro": intro,
            "types": types,
            "source_count": len(source_infos),
            "recent": [_entry(i, urls.HOME, site.type_label(i.card.type)) for i in recent],
            "tags": [(tag, urls.tag_output(tag), count) for tag, count in home_tags],
        }
        if site.vault:  # a vault's notes by folder, and only those with a date as recent
            data["intro"] = t("vault_intro", n=len(infos))
            data["folders"] = folder_tree(infos, urls.HOME)
            data["recent"] = [e for e in data["recent"] if e["updated"]]
        out.append(IndexPage(urls.HOME, "home.html", site.title, data))
    out.append(hubs_page(site))
    out.append(IndexPage(urls.SEARCH, "search.html", t("search"), {"search_page": True}))
    # A 404 page is served at whatever depth the missing address had, so its links cannot be
    # relative: they start at the configured base URL, else at the host's root.
    root_404 = site.config.base_url.rstrip("/") + "/" if site.config.base_url else "/"
    out.append(IndexPage(urls.NOT_FOUND, "404.html", t("not_found_title"), {"root": root_404}))
    listed = [p.output for p in out if p.output != urls.NOT_FOUND]
    out.append(sitemap(site, [*listed, UNRESOLVED] if site.vault else listed))
    return out


def vault_pages(site: SiteContext, infos: list[Listing]) -> list[IndexPage]:
    """A vault's folder pages (its page of notes not created yet: :func:`unresolved_page`)."""

    def entry(item: Listing, output: str) -> dict[str, str]:
        return _entry(item, output, site.type_label(item.card.type))

    return [
        IndexPage(output, "folder.html", title, data)
        for output, title, data in folder_pages(infos, site.t, entry)
    ]


def unresolved_page(site: SiteContext) -> IndexPage:
    """A vault's page of notes not created yet, which its other index pages do not show:
    a link written to a new name changes this page alone."""
    data = unresolved_data(list(site.listings.values()))
    return IndexPage(UNRESOLVED, "unresolved.html", site.t("unresolved_title"), data)


def hubs_page(site: SiteContext) -> IndexPage:
    """``hubs.html``: the wiki's hubs, the :data:`HUBS_TOP` pages most pages link to (ties
    by title), each with that count; pages no page links are left out."""
    ranked = sorted(
        (item for item in site.listings.values() if item.backlinks),
        key=lambda item: (-len(item.backlinks), item.card.title.lower(), item.card.path),
    )[:HUBS_TOP]
    entries = [
        {**_entry(item, urls.HUBS, site.type_label(item.card.type)), "count": len(item.backlinks)}
        for item in ranked
    ]
    return IndexPage(urls.HUBS, "hubs.html", site.t("hubs_title"), {"entries": entries})


def sitemap(site: SiteContext, index_outputs: list[str]) -> IndexPage:
    """``sitemap.xml``: absolute URLs when ``base-url`` is set (as the protocol wants), else
    URLs relative to the site root, which crawlers ignore but tools can still read."""
    base = site.config.base_url.rstrip("/") + "/" if site.config.base_url else ""
    entries = [(base + quote(output, safe="/"), "") for output in sorted(index_outputs)]
    for info in sorted(site.listings.values(), key=lambda i: i.card.url):
        entries.append(
            (
                base + quote(info.card.url, safe="/"),
                info.updated if _is_date(info.updated) else "",
            )
        )
    return IndexPage(urls.SITEMAP, "sitemap.xml", "sitemap", {"entries": entries})


def _is_date(text: str) -> bool:
    return len(text) == 10 and text[4] == "-" and text[7] == "-" and text.replace("-", "").isdigit()
