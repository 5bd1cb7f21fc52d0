"""Every page's output as the plan has it, kept by a long-running process (``kbtool serve``)
with what its key was made of: the settings, the file's digest and the digest of its
PageInfo and of its cell results. After an edit only the pages whose inputs changed have
their key made again.
"""

from __future__ import annotations

from kbtool.build.memo import forget_gone, remembered
from kbtool.build.planned import Planned
from kbtool.render.context import SiteContext
from kbtool.render.pages import page_key, result_digest
from kbtool.render.preview import preview_key
from kbtool.store.records import OUTPUT

#: path -> ((settings, file digest, PageInfo digest, cell results digest), the page's output)
KeptOutputs = dict[str, tuple[tuple[bytes, str, str, str], Planned]]


def page_outputs(
    site: SiteContext, digests: dict[str, str], kept: KeptOutputs | None = None
) -> list[Planned]:
    """Every page's output, with its output key (``kept``: the ones planned so far)."""
    kept = {} if kept is None else kept
    common = site.common_key_bytes

    def planned(path: str, _: object) -> Planned:
        key = OUTPUT.key(page_key(site, path, digests[path]))
        return Planned("page:" + path, key, "page", path)

    outputs = [
        remembered(kept, path, _made_of(site, common, digests[path], path), planned)
        for path in site.wiki.pages
    ]
    forget_gone(kept, site.wiki.pages)
    return outputs


def _made_of(
    site: SiteContext, common: bytes, digest: str, path: str
) -> tuple[bytes, str, str, str]:
    """What the page's output key is made of (see :func:`kbtool.render.pages.page_key`)."""
    return (common, digest, site.listings[path].info_digest, result_digest(site.results.get(path)))


def preview_outputs(site: SiteContext, digests: dict[str, str]) -> list[Planned]:
    """Every page's link-preview data: its key is made of the page's file and the settings
    alone (cheap, so never kept), so an edit rewrites the previews of the pages edited."""
    return [
        Planned("preview:" + path, OUTPUT.key(preview_key(site, digests[path])), "preview", path)
        for path in site.wiki.pages
    ]
