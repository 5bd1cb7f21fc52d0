"""Every page's output as the plan has it: its key a query on the run's engine, which reads
the page's file digest, its listing (what it shows of the pages it links and that link it),
its cell results, what its embeds show, its similar pages as it shows them (each one's
path, title and type) and the settings. A value is valid while every one of those reads is
what it was: after an edit in a session only the pages whose reads changed are keyed again,
and what a page's key comes to read is told by its query, never by a list kept by hand.

A one-shot build, whose values nobody reuses, runs the same function over the site's
values as given, setting no input and recording no read (``engine.Given``); the keys are
not kept in the store either: making 7,000 keys takes less than reading 7,000 traces would.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Mapping
from typing import Any

from kbtool.engine import WHOLE, Given, Input, Query, Reads
from kbtool.execute.results import PageResult
from kbtool.render.context import SiteContext
from kbtool.render.embeds import PageEmbeds
from kbtool.render.pages import key_of, result_digest
from kbtool.render.preview import preview_digest
from kbtool.render.site import Listing
from kbtool.reuse.values import Reuse
from kbtool.stages.planned import PageOutput, Planned, PreviewOutput
from kbtool.stages.reused import OUTPUTS
from kbtool.store.records import OUTPUT

#: the settings every page's key starts with (``SiteContext.common_key_bytes``)
COMMON: Input[bytes] = Input("output settings")
#: each page's file digest
FILE: Input[str] = Input("file digest")
#: each page's listing: its PageInfo's digest, and the page as others show it
LISTING: Input[Listing] = Input("listing")
#: each page's cell results (not set: none)
RESULTS: Input[PageResult] = Input("cell results")
#: what the notes each page embeds show (not set: none)
EMBEDDED: Input[PageEmbeds] = Input("embedded")
#: each page's similar pages, by path (not set: none)
SIMILAR: Input[tuple[str, ...]] = Input("similar pages")


def _keys(reads: Reads, path: str) -> tuple[str, str]:
    common, digest = reads.input(COMMON, WHOLE) or b"", reads.input(FILE, path) or ""
    listing, embedded = reads.input(LISTING, path), reads.input(EMBEDDED, path)
    shown = [reads.input(LISTING, other) for other in reads.input(SIMILAR, path) or ()]
    refs = tuple(other.card.ref for other in shown if other is not None)
    page = key_of(
        (
            common,
            digest,
            listing.info_digest if listing is not None else "",
            result_digest(reads.input(RESULTS, path)),
            refs,
            embedded.digest if embedded is not None else "",
        )
    )
    return page, preview_digest(common, digest)


#: the keys of a page's HTML and of its link preview (before the output record's code digest
#: is added to each); the preview's depends on the page's file and the settings alone
PAGE_KEYS: Query[tuple[str, str]] = Query("page keys", _keys, digest="".join, kept=False)


def page_outputs(site: SiteContext, digests: dict[str, str], reuse: Reuse) -> list[Planned]:
    """Every page's output, with its output key, then every page's link-preview data."""
    pages, inputs = site.wiki.pages, _inputs(site, digests)
    if reuse.one_run:  # nothing is reused after this run: no input set, no read recorded
        given = Given({input: values for input, (values, _) in inputs.items()})
        keys = {path: _keys(given, path) for path in pages}
    else:
        engine = reuse.engine
        for input, (values, digest) in inputs.items():
            engine.set_to(input, values, digest)
        keys = engine.get_all(PAGE_KEYS, pages)
        if len(engine.traces.get(PAGE_KEYS.name, {})) > len(pages):  # pages went
            engine.retain(PAGE_KEYS, pages)

    def planned(path: str, keys: tuple[str, str]) -> tuple[Planned, Planned]:
        page, preview = keys
        return (
            PageOutput("page:" + path, OUTPUT.key(page), path),
            PreviewOutput("preview:" + path, OUTPUT.key(preview), path),
        )

    made = reuse.made_all(OUTPUTS, keys.items(), planned).values()  # in the pages' order
    return [page for page, _ in made] + [preview for _, preview in made]


def _inputs(
    site: SiteContext, digests: Mapping[str, str]
) -> dict[Input[Any], tuple[Mapping[str, Any], Callable[[Any], str]]]:
    """What the pages' keys read, each input with its values by key and their digest."""
    common = {WHOLE: site.common_key_bytes}
    return {
        COMMON: (common, lambda data: hashlib.blake2b(data, digest_size=16).hexdigest()),
        FILE: (digests, str),
        LISTING: (site.listings, _listing_digest),
        RESULTS: (site.results, result_digest),
        EMBEDDED: (site.embeds, _embedded_digest),
        SIMILAR: (site.similar, "\x00".join),
    }


def _listing_digest(listing: Listing) -> str:
    return listing.info_digest + "\x00" + "\x00".join(listing.card.ref.parts())


def _embedded_digest(embedded: PageEmbeds) -> str:
    return embedded.digest
