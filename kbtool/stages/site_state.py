"""What the site facts stage made of every page, held by a session for its next build (see
:func:`kbtool.stages.siteinfo.site_infos`): patched for the pages an edit changed, it spares
a pass over every page's record key, ref and listing at every save."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from kbtool.render.card import Ref
from kbtool.render.site import Listing
from kbtool.reuse.since import edited_since


@dataclass(frozen=True)
class SiteState:
    """Every page's site-facts record key, ref and listing as the last build left them, by
    path in the wiki's order."""

    #: the content digests they were made for
    digests: dict[str, str]
    keys: dict[str, str]
    refs: dict[str, Ref]
    listings: dict[str, Listing]

    def edited(self, digests: Mapping[str, str]) -> set[str] | None:
        """The pages whose file differs now, if the same pages are there and not most of them
        changed; else None (every page's values are made again)."""
        return edited_since(self.digests, digests)
