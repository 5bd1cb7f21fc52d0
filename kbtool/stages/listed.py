"""One digest of every page's path and listing (its PageInfo's digest covers the listing):
what the indexes, the graph, the similar pages and what's new are made of. Made again only
when a listing is another object than the build before's: a session's save lists a few pages
again, and telling the others by identity is much cheaper than hashing every one."""

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
        digest.update(f"{path}\x00{item.info_digest}\x00".encode())
    return digest.hexdigest()
