"""The run: what every stage of one command needs, carried as one object.

A stage takes the run and what the previous stage returned, and returns what the next one
needs. The run holds no stage's results; what a stage reuses it asks of :attr:`Run.reuse`
(declared in ``stages/reused.py``), which a session holds between builds and a one-shot
command for one run: the stages do not know which.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date
from typing import TYPE_CHECKING, TextIO

from kbtool.config import Config
from kbtool.reuse.values import Reuse
from kbtool.stages.scan import Snapshot
from kbtool.stages.workers import Workers
from kbtool.store.db import Store
from kbtool.timings import Timings

if TYPE_CHECKING:
    from kbtool.stages.watched import Watched


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
    reuse: Reuse = field(default_factory=Reuse)
    #: what a watcher saw change since the snapshot before this one (None: not known), so
    #: that the check asks the disk only about the linked files it could have seen change
    watched: Watched | None = None

    def generation(self) -> int | None:
        """The generation of the store's known keys, which changes when another process
        wrote records; None where the store does not keep this run's keys (a value that
        depends on stored records is then not reused)."""
        known = self.store.known_keys
        return known.forgotten if known is not None and known is self.reuse.keys else None


def new_run(
    config: Config,
    store: Store,
    *,
    snapshot: Snapshot | None = None,
    jobs: int | None = None,
    use_store: bool = True,
    progress: TextIO | None = None,
    reuse: Reuse | None = None,
    today: date | None = None,
    watched: Watched | None = None,
) -> Run:
    """A run over ``snapshot`` (else the files as they are now)."""
    from kbtool.stages.scan import scan

    return Run(
        config,
        snapshot or scan(config, trust=use_store),
        store,
        Workers(config.workers(jobs)),
        use_store,
        today=today or date.today(),
        progress=progress,
        reuse=Reuse() if reuse is None else reuse,
        watched=watched,
    )
