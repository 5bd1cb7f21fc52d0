"""What the site facts stage made of every page, held by a session for its next build (see
:func:`kbtool.stages.siteinfo.site_infos`): patched for the pages an edit changed, it spares
a pass over every page's record key, ref and listing at every save."""

from __future__ import annotations

from dataclasses import dataclass

from kbtool.render.card import Ref
from kbtool.render.site import Listing


@dataclass(frozen=True)
class SiteState:
    """Every page's site-facts record key, ref and listing as the last build left them, by
    path in the wiki's order."""

    #: the content digests they were made for
    digests: dict[str, str]
    keys: dict[str, str]
    refs: dict[str, Ref]
    listings: dict[str, Listing]
