"""Every page's output as the plan has it, reused while what its key was made of is the same:
the settings, the file's digest and the digests of its PageInfo, its cell results and its
similar pages. After an edit only the pages whose inputs changed have their key made again.
"""

from __future__ import annotations

from kbtool.render.context import SiteContext
from kbtool.render.pages import PageKeyParts, key_of, page_key_parts
from kbtool.render.preview import preview_key
from kbtool.reuse.values import Reuse
from kbtool.stages.planned import PageOutput, Planned, PreviewOutput
from kbtool.stages.reused import OUTPUTS
from kbtool.store.records import OUTPUT


def page_outputs(site: SiteContext, digests: dict[str, str], reuse: Reuse) -> list[Planned]:
    """Every page's output, with its output key."""

    def planned(path: str, parts: PageKeyParts) -> Planned:
        return PageOutput("page:" + path, OUTPUT.key(key_of(parts)), path)

    outputs = [
        reuse.made(OUTPUTS, path, page_key_parts(site, path, digests[path]), planned)
        for path in site.wiki.pages
    ]
    reuse.keep_only(OUTPUTS, site.wiki.pages)
    return outputs


def preview_outputs(site: SiteContext, digests: dict[str, str]) -> list[Planned]:
    """Every page's link-preview data: its key is made of the page's file and the settings
    alone (cheap, so never reused), so an edit rewrites the previews of the pages edited."""
    return [
        PreviewOutput("preview:" + path, OUTPUT.key(preview_key(site, digests[path])), path)
        for path in site.wiki.pages
    ]
