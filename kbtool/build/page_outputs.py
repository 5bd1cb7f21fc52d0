"""Every page's output as the plan has it, kept by a long-running process (``kbtool serve``)
with what its key was made of: the settings, the file's digest and the digest of its
PageInfo. After an edit only the pages whose inputs changed (and the pages with cell results,
whose key reads them) have their key made again.
"""

from __future__ import annotations

from kbtool.build.planned import Planned
from kbtool.render.context import SiteContext
from kbtool.render.pages import page_key
from kbtool.store.records import OUTPUT

#: path -> ((settings, file digest, PageInfo digest), the page's output)
KeptOutputs = dict[str, tuple[tuple[bytes, str, str], Planned]]


def page_outputs(
    site: SiteContext, digests: dict[str, str], kept: KeptOutputs | None = None
) -> list[Planned]:
    """Every page's output, with its output key (``kept``: the ones planned so far)."""
    kept = {} if kept is None else kept
    common = site.common_key_bytes
    planned = []
    for path in site.wiki.pages:
        made = (common, digests[path], site.listings[path].info_digest)
        entry = kept.get(path)
        if entry is None or entry[0] != made or path in site.results:
            key = OUTPUT.key(page_key(site, path, digests[path]))
            entry = kept[path] = (made, Planned("page:" + path, key, "page", path))
        planned.append(entry[1])
    if len(kept) > len(planned):  # pages that are gone
        for path in [p for p in kept if p not in site.wiki.pages]:
            del kept[path]
    return planned
