"""The whole build: the scan, and the stages after it (:mod:`kbtool.stages.pipeline`) unless
nothing changed since the last successful build, which stops after the scan without
importing them; with every output's key unchanged it stops after the plan. No page is
parsed twice: assembly fills the holes of the body its page worker rendered.
"""

from __future__ import annotations

from typing import TextIO

from kbtool.config import Config
from kbtool.reuse.values import WHOLE, Reuse
from kbtool.stages.build_report import BuildReport
from kbtool.stages.publish.lock import build_lock
from kbtool.stages.publish.staging import remove_stale_staging
from kbtool.stages.reused import SPARE
from kbtool.stages.run import Run, new_run
from kbtool.stages.scan import Snapshot, scanning_again
from kbtool.stages.unchanged import LastBuild, last_build, unchanged_key
from kbtool.stages.watched import Watched
from kbtool.store.db import open_store
from kbtool.timings import Timings


def build_site(
    config: Config,
    jobs: int | None = None,
    use_store: bool = True,
    full: bool = False,
    progress: TextIO | None = None,
    reuse: Reuse | None = None,
    snapshot: Snapshot | None = None,
    watched: Watched | None = None,
    spare: bool = False,
) -> BuildReport:
    """Check, run the cells, and publish ``site/`` if both pass. Never raises on bad content.
    ``reuse``, held by a session between builds, holds what they reuse (else this build
    holds its own); ``snapshot``, the files as they are now (else they are scanned), and
    ``watched``, what a watcher saw change since the one before; ``spare``: keep the former
    site as the next build's staging folder."""

    def build(files: Snapshot | None) -> BuildReport:
        seen = watched if files is snapshot else None  # scanned again: not known
        return _build(config, jobs, use_store, full, progress, reuse, files, seen, spare)

    return scanning_again(config, snapshot, build)


def _build(
    config: Config,
    jobs: int | None,
    use_store: bool,
    full: bool,
    progress: TextIO | None,
    reuse: Reuse | None,
    snapshot: Snapshot | None,
    watched: Watched | None,
    spare: bool,
) -> BuildReport:
    site_dir = config.site_path
    report = BuildReport(ok=False, site_dir=site_dir)
    reuse = Reuse(one_run=True) if reuse is None else reuse
    with build_lock(config.cache_path), open_store(config.cache_path) as store:
        store.keep_keys(reuse.keys)
        held = reuse.get(SPARE, WHOLE, str(site_dir))
        remove_stale_staging(site_dir, keep=held.folder if held else None)
        run = new_run(
            config,
            store,
            snapshot=snapshot,
            jobs=jobs,
            use_store=use_store,
            progress=progress,
            reuse=reuse,
            watched=watched,
        )
        run.clock = Timings(report.seconds, report.in_workers)
        run.clock.count_workers(lambda: run.workers.seconds)
        key = unchanged_key(run)
        last = last_build(run, key) if use_store and not full else None
        if last is not None:
            return _unchanged(report, last, run)
        # The rules, the renderer and the search index are imported only now: a build that
        # found nothing changed needs none of them.
        from kbtool.stages.pipeline import build_changed

        build_changed(run, report, key, full, spare)
    return report


def _unchanged(report: BuildReport, last: LastBuild, run: Run) -> BuildReport:
    """The report of a build that found nothing changed since the last one."""
    report.diagnostics = last.diagnostics
    report.pages, report.outputs = last.pages, last.outputs
    report.reused = report.outputs
    report.ok = True
    run.clock.lap("load")
    return report


__all__ = ["BuildReport", "build_site"]
