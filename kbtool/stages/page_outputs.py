"""Every page's output as the plan has it, reused while what its key was made of is the same:
the settings, the file's digest and the digests of its PageInfo, its cell results and its
similar pages. After an edit in a session only the pages whose inputs may have changed
(:mod:`kbtool.stages.plan_inputs`) are looked at again; a one-shot build makes every key.
"""

from __future__ import annotations

from kbtool.render.context import SiteContext
from kbtool.render.pages import PageKeyParts, key_of, page_key_parts
from kbtool.render.preview import preview_key
from kbtool.reuse.values import WHOLE, Reuse
from kbtool.stages.plan_inputs import PlanInputs
from kbtool.stages.planned import PageOutput, Planned, PreviewOutput
from kbtool.stages.reused import OUTPUTS, PLAN_INPUTS, PREVIEWS
from kbtool.store.records import OUTPUT


def page_outputs(site: SiteContext, digests: dict[str, str], reuse: Reuse) -> list[Planned]:
    """Every page's output, with its output key, then every page's link-preview data."""

    def planned(path: str, parts: PageKeyParts) -> Planned:
        return PageOutput("page:" + path, OUTPUT.key(key_of(parts)), path)

    def preview(path: str, made_of: tuple[str, bytes]) -> Planned:
        key = OUTPUT.key(preview_key(site, made_of[0]))
        return PreviewOutput("preview:" + path, key, path)

    pages = site.wiki.pages
    settings = (site.common_key_bytes, OUTPUT.code)
    now = PlanInputs.of(site, digests)
    before = reuse.get(PLAN_INPUTS, WHOLE, settings)
    redo = pages.keys() if before is None else now.changed_since(before, pages)
    for path in redo:
        reuse.made(OUTPUTS, path, page_key_parts(site, path, digests[path]), planned)
        reuse.made(PREVIEWS, path, (digests[path], site.common_key_bytes), preview)
    reuse.put(PLAN_INPUTS, WHOLE, settings, now)
    outputs, previews = reuse.held(OUTPUTS), reuse.held(PREVIEWS)
    if len(outputs) != len(pages):  # it holds every page's: pages went too
        reuse.keep_only(OUTPUTS, pages)
        reuse.keep_only(PREVIEWS, pages)
    return [outputs[p][1] for p in pages] + [previews[p][1] for p in pages]
