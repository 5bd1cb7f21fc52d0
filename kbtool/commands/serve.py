"""``kbtool serve``: build, serve on 127.0.0.1, rebuild what changed, reload the open page."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import TYPE_CHECKING

from kbtool import lifecycle
from kbtool.commands import add_jobs_argument, load_project_config

if TYPE_CHECKING:
    from kbtool.diagnostics import Diagnostic
    from kbtool.execute.results import PageResult
    from kbtool.session import Session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-p",
        "--port",
        type=int,
        default=8000,
        help="port on 127.0.0.1 (default 8000; 0 = any free)",
    )
    parser.add_argument(
        "--no-watch", action="store_true", help="serve without watching for changes"
    )
    parser.add_argument(
        "--timings",
        action="store_true",
        help="print the seconds each rebuild's stages took (on stderr)",
    )
    add_jobs_argument(parser)


def run(args: argparse.Namespace) -> int:
    from kbtool.commands.build import format_cell_failures, summary_line
    from kbtool.config import load_config
    from kbtool.errors import KbtoolError
    from kbtool.save_summary import changed_files, first_lines, save_lines
    from kbtool.serve import BuildVersion, Watcher, make_server, watch_and_rebuild
    from kbtool.served_problems import ServedProblems
    from kbtool.session import Session
    from kbtool.stages.reused import PAGES
    from kbtool.stages.watched import Watched
    from kbtool.timings import Timings

    config = load_project_config(args)
    session = Session(config)  # between rebuilds: only edited pages are read again
    #: sites published when the rebuild under way began; None between rebuilds
    rebuilding: int | None = None
    #: whether the session's snapshot was read while the watcher ran, so it saw every change
    watched = False
    # Watching from before the first build: its snapshot is then one the watcher covers.
    watcher = None if args.no_watch else Watcher(config)
    ignored = [str(config.cache_path), str(config.root / config.site_dir)]
    #: the diagnostics of the build before, against which a save's are told; None at first
    before: list[Diagnostic] | None = None
    problems = ServedProblems()  # what the served pages show
    #: whether the last build rendered most of the site
    rendered_most = False

    #: the browsers were told of this rebuild's site when it was swapped in (see tell)
    told = False

    def rebuild(changed: set[str] | None = None) -> bool:
        nonlocal config, rebuilding, watched, before, rendered_most, told
        rebuilding = lifecycle.publications()
        told = False
        try:
            config = session.config = load_config(config.root)  # pyproject.toml may change
            seen = None
            if session.scan(changed if watched else None) and watcher is not None:
                assert changed is not None
                folders = [str(p) for p in watcher.paths if p.is_dir()]
                seen = Watched.of(str(config.root), folders, ignored, changed)
            watched = False  # until this build has its snapshot
            report = session.build(jobs=args.jobs, progress=sys.stderr, watched=seen)
            rendered_most = 2 * report.rendered > report.outputs
            watched = watcher is not None
        except KbtoolError as error:
            print(f"kbtool: {error}", file=sys.stderr)
            rebuilding = None
            return problems.update(before or [], f"not built: {error}", [])
        rebuilding = None  # not reached when interrupted: `run` then says what became of it
        if before is None:
            lines = first_lines(report.diagnostics, summary_line(report))
        else:
            what = changed_files(changed or (), config.root)
            lines = save_lines(before, report.diagnostics, what, summary_line(report))
        print("\n".join(lines), flush=True)
        if args.timings:
            print(Timings(report.seconds, report.in_workers).format(), file=sys.stderr)
        if report.failed_cells:
            print(format_cell_failures(report.failed_cells), flush=True)
        before = report.diagnostics
        session.settle()
        stopped = None if report.ok else summary_line(report)
        stopping = [d for d in report.diagnostics if d.severity == "error"]
        stopping += cell_failures(report.failed_cells)
        # A build that stopped is news too: the open page then shows why.
        news = problems.update(report.diagnostics, stopped, stopping)
        # Told at the swap, the browsers reloaded then and their pages waited for these.
        return not told and (news or report.published)

    rebuild()  # interrupted here, the command line says so
    # The site was up to date: nothing was read, so read it now. Or the build rendered most
    # of it: the site it swapped out is no spare for the next (see keep_warm).
    if not session.reuse.held(PAGES) or rendered_most:
        _keep_warm(session)
    site_dir = config.root / config.site_dir
    version = BuildVersion()
    try:
        server = make_server(site_dir, args.port, version, problems=problems)
    except OSError as error:
        print(f"kbtool: cannot listen on 127.0.0.1:{args.port}: {error.strerror}", file=sys.stderr)
        return 1
    stop = threading.Event()

    def tell() -> None:
        """A new site is in place: the browsers reload now, not once its build has ended
        (its record and traces written), and ask for its diagnostics, which wait for it."""
        nonlocal told
        problems.pend()
        version.bump()
        told = True

    try:
        port = server.server_address[1]
        print(f"serving {site_dir} at http://127.0.0.1:{port}/ (Ctrl-C to stop)", flush=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        if watcher is None:
            stop.wait()
        else:
            with lifecycle.telling_published(tell):
                watch_and_rebuild(config, rebuild, version, stop, watcher)
    except KeyboardInterrupt as interrupt:
        if rebuilding is None:
            return 0  # between rebuilds: stopping the server is how serve ends
        published = lifecycle.publications() > rebuilding
        print(lifecycle.interrupted_line(interrupt, published), file=sys.stderr)
        return lifecycle.exit_code(interrupt)
    finally:
        stop.set()
        server.shutdown()
        server.server_close()
    return 0


def cell_failures(failed: list[PageResult]) -> list[Diagnostic]:
    """The failed cells as the browser's panel lists them: one error each."""
    from kbtool.execute.report import cell_failures as failures_of

    return [failure.diagnostic for page in failed for failure in failures_of(page)]


def _keep_warm(session: Session) -> None:
    """Before serving: make what every rebuild reuses, so that the first save is served as
    quickly as the later ones (a second or so at 7,000 pages, where a first rebuild would
    otherwise take that long itself, or wait for it)."""
    from kbtool.stages.pipeline import keep_warm

    try:
        assert session.disk is not None  # the first build's
        keep_warm(session.config, session.reuse, session.disk)
        session.settle(collect=False)  # what was just read is held
    except Exception as error:  # the next rebuild reads what it needs itself
        print(f"kbtool: could not read the wiki ahead ({error})", file=sys.stderr)
