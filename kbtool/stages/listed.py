"""One digest of every page's path and listing, of what a listing shows (its card, date and
backlinks): what the indexes, the graph, the similar pages, what's new and the embeds are made
of. Not its PageInfo's digest, which the page's own key takes: a save that changes a page's
own links but no backlink makes none of them again. Nor the notes not created yet that its
links name, which only a vault's page of those shows (the index pages' key adds them,
``stages/index_plan.py``): a link written to a new note makes nothing else again.

Made again only when a listing is another object than the build before's, and then of each
listing's own digest, held, which only the listings that are other objects make again: a
session's save lists a few pages again, and telling the others by identity is much cheaper
than hashing every one."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from kbtool.render.site import Listing
from kbtool.reuse.values import WHOLE, Reuse
from kbtool.stages.reused import LISTED

#: the digest of every listing, and each listing's own digest, by path, with the listing
Listed = tuple[str, dict[str, tuple[Listing, bytes]]]


def listings_digest(reuse: Reuse, listings: Mapping[str, Listing]) -> str:
    """The digest of ``listings`` (path -> listing, in the wiki's order)."""
    made_of = (tuple(listings), tuple(listings.values()))
    held = reuse.get(LISTED, WHOLE, made_of)
    if held is None:
        before = reuse.held(LISTED).get(WHOLE)
        held = reuse.put(LISTED, WHOLE, made_of, _made(listings, before[1] if before else None))
    return held[0]


def _made(listings: Mapping[str, Listing], before: Listed | None) -> Listed:
    digest = hashlib.blake2b(digest_size=16)
    pieces: dict[str, tuple[Listing, bytes]] = {}
    kept = before[1] if before is not None else {}
    for path, item in listings.items():
        found = kept.get(path)
        if found is None or found[0] is not item:
            card = item.card
            shown = (path, card.ref.parts(), card.summary, card.tags, item.updated, item.backlinks)
            found = (item, hashlib.blake2b(repr(shown).encode(), digest_size=16).digest())
        pieces[path] = found
        digest.update(found[1])
    return digest.hexdigest(), pieces
