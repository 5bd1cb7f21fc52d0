"""Stage 5, plan: every output of the site with a key of everything it depends on, split into
the outputs the published site already has (fresh) and the ones to render (stale)."""

from __future__ import annotations

import functools
import hashlib
import os
from collections.abc import Container
from dataclasses import dataclass, field, replace
from pathlib import Path

from kbtool.diagnostics import Diagnostic
from kbtool.render import urls
from kbtool.render.context import SiteContext
from kbtool.render.diagrams import vendor_files
from kbtool.render.highlight import stylesheet
from kbtool.render.templates import ASSETS_DIR
from kbtool.render.vendored import VENDOR_DIR
from kbtool.reuse.values import Reuse
from kbtool.stages.index_plan import index_outputs
from kbtool.stages.listed import listings_digest
from kbtool.stages.output_rows import row_outputs
from kbtool.stages.page_outputs import page_outputs
from kbtool.stages.planned import GraphOutput, IndexOutput, Planned, StaticOutput
from kbtool.stages.publish.published import Published, stat_signature
from kbtool.store.db import Store
from kbtool.store.records import OUTPUT


@dataclass(frozen=True)
class Plan:
    outputs: list[Planned]
    #: outputs the published site has under the same key, with every copied file unchanged
    fresh: list[Planned]
    stale: list[Planned]
    #: the site's own pages left out, each by the page published at its file (KB504)
    left_out: dict[str, str] = field(default_factory=dict)

    def nothing_to_do(self, published: dict[str, Published], site_dir: Path) -> bool:
        """Every output is fresh, none was dropped, and every file is still in ``site_dir``."""
        if self.stale or set(published) != {item.name for item in self.outputs}:
            return False
        site = str(site_dir)
        return all(
            os.path.isfile(os.path.join(site, f)) for r in published.values() for f in r.files
        )


def _digest(data: str | bytes) -> str:
    raw = data.encode("utf-8") if isinstance(data, str) else data
    return hashlib.blake2b(raw, digest_size=16).hexdigest()


def static_files() -> dict[str, bytes]:
    """The assets shipped in the package, plus the highlighting colours."""
    files = {
        f"assets/{path.name}": path.read_bytes()
        for path in sorted(ASSETS_DIR.iterdir())
        if path.is_file() and not path.name.startswith(".")
    }
    files["assets/pygments.css"] = stylesheet().encode("utf-8")
    files.update(vendor_files())  # Mermaid, when `make` installed it
    return files


def static_outputs() -> tuple[StaticOutput, ...]:
    """The static files' outputs, each key ending with the renderer's code digest; read and
    hashed again only when one of their files changed (Mermaid's is 3 MB: a session's save
    would read it every time)."""
    folders = (ASSETS_DIR, VENDOR_DIR)
    stamp = tuple(
        (path.name, stat_signature(path)) for d in folders if d.is_dir() for path in d.iterdir()
    )
    return _static_outputs(stamp)


@functools.lru_cache(maxsize=1)
def _static_outputs(stamp: tuple[tuple[str, str], ...]) -> tuple[StaticOutput, ...]:
    files = static_files().items()
    return tuple(StaticOutput(name, OUTPUT.key(_digest(data)), data) for name, data in files)


def outputs(
    store: Store | None, site: SiteContext, digests: dict[str, str], reuse: Reuse | None = None
) -> tuple[list[Planned], dict[str, str]]:
    """Every output of the site, each key ending with the renderer's code digest, and the
    site's own pages left out (:func:`written_over`); ``digests``: every page file's content
    digest; ``reuse``: where the pages' outputs are reused from (none: a new one)."""
    reuse = Reuse() if reuse is None else reuse
    listed = listings_digest(reuse, site.listings)
    indexes = [
        replace(item, key=OUTPUT.key(item.key)) for item in index_outputs(store, site, listed)
    ]
    pages = page_outputs(site, digests, reuse)
    taken = written_over(indexes, site.wiki.pages)
    indexes = [item for item in indexes if item.name not in taken]
    rows = row_outputs(store, site, reuse)
    return pages + indexes + rows + list(static_outputs()), taken


def written_over(indexes: list[IndexOutput | GraphOutput], pages: Container[str]) -> dict[str, str]:
    """The site's own pages whose file a page of ``pages`` has (a vault's note ``graph.md``,
    a note in a folder ``tags/``), each with that page's path: the page is published there
    and the site's page left out, in every build alike (else the one written last would
    win, and a build after an edit could differ from a clean one)."""
    taken = {}
    for item in indexes:
        stem = item.name.removesuffix(".html")
        # the pages whose output file is this one (urls.page_output)
        for path in (stem + ".md", stem):
            if path in pages and urls.page_output(path) == item.name:
                taken[item.name] = path
    return taken


def left_out_diagnostics(plan: Plan) -> list[Diagnostic]:
    """A KB504 warning for each of the site's own pages that a page's file leaves out."""
    return [
        Diagnostic(
            path,
            1,
            1,
            "KB504",
            "warning",
            f"published as '{name}', the file of one of the site's own pages, which is left out "
            "(rename or move this page to keep both)",
        )
        for name, path in sorted(plan.left_out.items())
    ]


def plan_site(
    store: Store | None,
    site: SiteContext,
    published: dict[str, Published],
    digests: dict[str, str],
    reuse: Reuse | None = None,
) -> Plan:
    """The site's outputs, fresh or stale against the ``published`` site's record
    (``store``: None to trust no record; ``reuse``: where the pages' outputs are reused
    from)."""
    planned, left_out = outputs(store, site, digests, reuse)
    fresh: list[Planned] = []
    stale: list[Planned] = []
    root = str(site.config.root)
    signatures: dict[str, str] = {}  # a vault's attachment is shown by many pages: one stat

    def signature(path: str) -> str:
        if path not in signatures:
            signatures[path] = stat_signature(os.path.join(root, path))
        return signatures[path]

    for item in planned:
        record = published.get(item.name)
        is_fresh = record is not None and record.key == item.key
        if is_fresh and record is not None and record.copies:  # the files it copied as they were
            is_fresh = all(signature(p) == sig for p, sig in record.copies.items())
        (fresh if is_fresh else stale).append(item)
    return Plan(planned, fresh, stale, left_out)
