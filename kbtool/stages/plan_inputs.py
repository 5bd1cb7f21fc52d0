"""What the last plan made the pages' outputs of, to tell which pages an edit can have changed
without making every page's key again.

A page's output key is made of its file's digest, its listing (whose PageInfo digest it
holds), its cell results' digest, what its embeds show and its similar pages as they show
(path, title, type: their refs, held by their listings). Unchanged between two builds of a
session, a listing is the very object of the build before (``stages/siteinfo.py`` reuses it),
so a page whose file, listing, results, embeds and similar pages are all what they were, and
none of whose similar pages was listed again, has the key it had: telling so is a few lookups
a page, where making its key again hashes all of it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kbtool.render.context import SiteContext
from kbtool.render.embeds import PageEmbeds
from kbtool.render.pages import result_digest
from kbtool.render.site import Listing


@dataclass(frozen=True)
class PlanInputs:
    """Every page's file digest, listing, cell results' digest and similar pages."""

    digests: Mapping[str, str]
    listings: Mapping[str, Listing]
    #: the digest of each page with cell results
    results: dict[str, str]
    similar: Mapping[str, tuple[str, ...]]
    #: what the notes each page embeds show (``stages/embeds.py``), for the pages with embeds
    embeds: Mapping[str, PageEmbeds]

    @classmethod
    def of(cls, site: SiteContext, digests: Mapping[str, str]) -> PlanInputs:
        results = {path: result_digest(result) for path, result in site.results.items()}
        return cls(digests, site.listings, results, site.similar, site.embeds)

    def changed_since(self, before: PlanInputs, pages: Mapping[str, object]) -> set[str]:
        """The ``pages`` whose output key may differ from the one made from ``before``:
        every page it does not hold is among them."""
        digests, listings, similar = self.digests, self.listings, self.similar
        relisted = {p for p in pages if listings[p] is not before.listings.get(p)}
        changed = {
            path
            for path in pages
            if digests[path] != before.digests.get(path)
            or similar.get(path) != before.similar.get(path)
        }
        results = self.results.keys() | before.results.keys()
        changed.update(p for p in results if self.results.get(p) != before.results.get(p))
        embeds = self.embeds.keys() | before.embeds.keys()
        changed.update(p for p in embeds if self.embeds.get(p) != before.embeds.get(p))
        if relisted:  # they may show another title or type among their similar pages
            changed.update(p for p in pages if not relisted.isdisjoint(similar.get(p, ())))
        return (changed | relisted) & pages.keys()
