"""The run: what every stage of one command needs, carried as one object.

A stage takes the run and what the previous stage returned, and returns what the next one
needs. The run holds no stage's results, except :class:`Kept`: what a long-running process
(``kbtool serve``) keeps between builds so that unchanged pages are never read again.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, TextIO

from kbtool.config import Config
from kbtool.diagnostics import Diagnostic
from kbtool.model import Page
from kbtool.stages.scan import Snapshot
from kbtool.stages.workers import Workers
from kbtool.store.db import Store
from kbtool.store.known_keys import KnownKeys
from kbtool.timings import Timings

if TYPE_CHECKING:
    from kbtool.render.markdown import PageBody
    from kbtool.render.site import Listing, PageInfo, Ref
    from kbtool.stages.facts import Facts
    from kbtool.stages.page_outputs import KeptOutputs
    from kbtool.stages.publish.published import Published, Spare
    from kbtool.stages.watched import Watched
    from kbtool.wiki import Wiki


@dataclass
class Kept:
    """What a long-running process keeps between builds, each value with its record's key."""

    #: path -> (key, (page, body or None))
    pages: dict[str, tuple[str, tuple[Page, PageBody | None]]] = field(default_factory=dict)
    #: path -> (its check record's key, what the checks of other pages may read of it)
    facts: dict[str, tuple[str, Facts]] = field(default_factory=dict)
    #: path -> ((settings, file digest), its check record's key)
    check_keys: dict[str, tuple[tuple[str, str], str]] = field(default_factory=dict)
    #: path -> (its check record's key, its stored diagnostics), valid with the known keys
    #: as forgotten so many times (None: none)
    diagnostics: dict[str, tuple[str, list[Diagnostic]]] = field(default_factory=dict)
    diagnostics_of: int | None = None
    #: path -> (its facts, the stand-in made of them)
    stand_ins: dict[str, tuple[Facts, Page]] = field(default_factory=dict)
    #: the last check's wiki, whose resolution indexes hold while no page's facts changed
    check_wiki: Wiki | None = None
    #: path -> (key, what the site shows of the page), for the pages read or made so far
    infos: dict[str, tuple[str, PageInfo]] = field(default_factory=dict)
    #: path -> ((file digest, settings), the page's site-facts record key)
    info_keys: dict[str, tuple[tuple[str, str], str]] = field(default_factory=dict)
    #: path -> (its title and type, the page as other pages show it)
    refs: dict[str, tuple[tuple[str, str], Ref]] = field(default_factory=dict)
    #: path -> (key, what the indexes and the graph show of the page)
    listings: dict[str, tuple[str, Listing]] = field(default_factory=dict)
    #: path -> (what its key was made of, the page's output as the plan has it)
    outputs: KeptOutputs = field(default_factory=dict)
    #: the record of the published site, as the last build left it
    published: dict[str, Published] = field(default_factory=dict)
    #: the snapshot the last build read, for a watcher to update with what it saw change
    snapshot: Snapshot | None = None
    #: the former site, kept after the last swap to be the next build's staging folder
    spare: Spare | None = None
    #: what a watcher that ran since the last build saw change (None: not known), set by
    #: the process for the next build
    watched: Watched | None = None
    #: the stored records' keys, while this process is the store's last writer
    keys: KnownKeys = field(default_factory=KnownKeys)


#: ``progress(done, total)``, told as pages are parsed or checked (for a progress bar).
OnProgress = Callable[[int, int], None]


@dataclass
class Run:
    config: Config
    snapshot: Snapshot
    store: Store
    workers: Workers
    #: False: trust no record (``--no-cache``); every page parsed, every cell run
    use_store: bool = True
    today: date = field(default_factory=date.today)
    clock: Timings = field(default_factory=Timings)
    #: where progress bars go (a terminal only; None: no bars)
    progress: TextIO | None = None
    kept: Kept = field(default_factory=Kept)


def new_run(
    config: Config,
    store: Store,
    *,
    snapshot: Snapshot | None = None,
    jobs: int | None = None,
    use_store: bool = True,
    progress: TextIO | None = None,
    kept: Kept | None = None,
    today: date | None = None,
) -> Run:
    """A run over ``snapshot`` (else the files as they are now)."""
    from kbtool.stages.scan import scan

    return Run(
        config,
        snapshot or scan(config),
        store,
        Workers(config.workers(jobs)),
        use_store,
        today=today or date.today(),
        progress=progress,
        kept=Kept() if kept is None else kept,
    )
