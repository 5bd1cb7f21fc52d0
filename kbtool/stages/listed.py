"""One digest of every page's path and listing, of what a listing shows (its card, date and
backlinks): what the indexes, the graph, the similar pages, what's new and the embeds are made
of. Not its PageInfo's digest, which the page's own key takes: a save that changes a page's
own links but no backlink makes none of them again. Nor the notes not created yet that its
links name, which only a vault's page of those shows (the index pages' key adds them,
``stages/index_plan.py``): a link written to a new note makes nothing else again. Made again
only when a listing is another object than the build before's: a session's save lists a few
pages again, and telling the others by identity is much cheaper than hashing every one."""

from __future__ import annotations

import hashlib
from collections.abc import Mapping

from kbtool.render.site import Listing
from kbtool.reuse.values import WHOLE, Reuse
from kbtool.stages.reused import LISTED


def listings_digest(reuse: Reuse, listings: Mapping[str, Listing]) -> str:
    """The digest of ``listings`` (path -> listing, in the wiki's order)."""
    made_of = (tuple(listings), tuple(listings.values()))
    return reuse.made(LISTED, WHOLE, made_of, lambda _, __: _digest(listings))


def _digest(listings: Mapping[str, Listing]) -> str:
    digest = hashlib.blake2b(digest_size=16)
    for path, item in listings.items():
        card = item.card
        shown = (path, card.ref.parts(), card.summary, card.tags, item.updated, item.backlinks)
        digest.update(repr(shown).encode())
    return digest.hexdigest()
