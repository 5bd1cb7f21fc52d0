"""``kbtool serve``: build, serve on 127.0.0.1, rebuild what changed, reload the open page."""

from __future__ import annotations

import argparse
import sys
import threading
from typing import TYPE_CHECKING

from kbtool import lifecycle
from kbtool.commands import add_jobs_argument, load_project_config

if TYPE_CHECKING:
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
    add_jobs_argument(parser)


def run(args: argparse.Namespace) -> int:
    from kbtool.commands.build import print_report
    from kbtool.config import load_config
    from kbtool.errors import KbtoolError
    from kbtool.serve import BuildVersion, Watcher, make_server, watch_and_rebuild
    from kbtool.session import Session
    from kbtool.stages.reused import PAGES
    from kbtool.stages.watched import Watched

    config = load_project_config(args)
    session = Session(config)  # between rebuilds: only edited pages are read again
    # Rebuilds wait while the wiki is read into the session after the first build.
    keeping = threading.Lock()
    #: sites published when the rebuild under way began; None between rebuilds
    rebuilding: int | None = None
    #: whether the session's snapshot was read while the watcher ran, so it saw every change
    watched = False
    # Watching from before the first build: its snapshot is then one the watcher covers.
    watcher = None if args.no_watch else Watcher(config)
    ignored = [str(config.cache_path), str(config.root / config.site_dir)]

    def rebuild(changed: set[str] | None = None) -> bool:
        nonlocal config, rebuilding, watched
        rebuilding = lifecycle.publications()
        try:
            config = session.config = load_config(config.root)  # pyproject.toml may change
            with keeping:
                seen = None
                if session.scan(changed if watched else None) and watcher is not None:
                    assert changed is not None
                    folders = [str(p) for p in watcher.paths if p.is_dir()]
                    seen = Watched.of(str(config.root), folders, ignored, changed)
                watched = False  # until this build has its snapshot
                report = session.build(jobs=args.jobs, progress=sys.stderr, watched=seen)
                watched = watcher is not None
        except KbtoolError as error:
            print(f"kbtool: {error}", file=sys.stderr)
            rebuilding = None
            return False
        rebuilding = None  # not reached when interrupted: `run` then says what became of it
        print_report(report)
        session.settle()
        return report.published

    rebuild()  # interrupted here, the command line says so
    if not session.reuse.held(PAGES):  # the site was up to date: nothing read, so read it now
        keeping.acquire()
        threading.Thread(target=_keep_warm, args=(session, keeping), daemon=True).start()
    site_dir = config.root / config.site_dir
    version = BuildVersion()
    try:
        server = make_server(site_dir, args.port, version)
    except OSError as error:
        print(f"kbtool: cannot listen on 127.0.0.1:{args.port}: {error.strerror}", file=sys.stderr)
        return 1
    stop = threading.Event()
    try:
        port = server.server_address[1]
        print(f"serving {site_dir} at http://127.0.0.1:{port}/ (Ctrl-C to stop)", flush=True)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        if watcher is None:
            stop.wait()
        else:
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


def _keep_warm(session: Session, lock: threading.Lock) -> None:
    """While the server already serves the site: read the wiki into ``session`` (``lock``
    held)."""
    from kbtool.stages.site import keep_warm

    try:
        assert session.disk is not None  # the first build's
        keep_warm(session.config, session.reuse, session.disk)
        session.settle(collect=False)  # what was just read is held
    except Exception as error:  # the next rebuild reads what it needs itself
        print(f"kbtool: could not read the wiki ahead ({error})", file=sys.stderr)
    finally:
        lock.release()
