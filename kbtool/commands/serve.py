"""``kbtool serve``: build, serve on 127.0.0.1, rebuild what changed, reload the open page."""

from __future__ import annotations

import argparse
import gc
import sys
import threading
from typing import TYPE_CHECKING

from kbtool import lifecycle
from kbtool.commands import add_jobs_argument, load_project_config

if TYPE_CHECKING:
    from kbtool.config import Config
    from kbtool.stages.run import Kept


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
    from kbtool.stages.rescan import rescan
    from kbtool.stages.run import Kept
    from kbtool.stages.site import build_site
    from kbtool.stages.watched import Watched

    config = load_project_config(args)
    kept = Kept()  # the wiki, kept between rebuilds: only edited pages are read again
    # Rebuilds wait while the wiki is read into `kept` after the first build.
    keeping = threading.Lock()
    #: sites published when the rebuild under way began; None between rebuilds
    rebuilding: int | None = None
    #: whether kept.snapshot was read while the watcher ran, so that it saw every change since
    watched = False
    # Watching from before the first build: its snapshot is then one the watcher covers.
    watcher = None if args.no_watch else Watcher(config)
    ignored = [str(config.cache_path), str(config.root / config.site_dir)]

    def rebuild(changed: set[str] | None = None) -> bool:
        nonlocal config, rebuilding, watched
        rebuilding = lifecycle.publications()
        try:
            config = load_config(config.root)  # pyproject.toml may have changed too
            with keeping:
                snapshot = None
                if watched and changed is not None and kept.snapshot is not None:
                    snapshot = rescan(config, kept.snapshot, changed)
                if snapshot is not None and changed is not None and watcher is not None:
                    folders = [str(p) for p in watcher.paths if p.is_dir()]
                    kept.watched = Watched.of(str(config.root), folders, ignored, changed)
                watched = False  # until this build has its snapshot
                try:
                    report = build_site(
                        config, jobs=args.jobs, progress=sys.stderr, kept=kept, snapshot=snapshot
                    )
                finally:
                    kept.watched = None
                watched = watcher is not None
        except KbtoolError as error:
            print(f"kbtool: {error}", file=sys.stderr)
            rebuilding = None
            return False
        rebuilding = None  # not reached when interrupted: `run` then says what became of it
        print_report(report)
        _keep_out_of_collection()
        return report.published

    rebuild()  # interrupted here, the command line says so
    if not kept.pages:  # the site was up to date: nothing was read, so read it now
        keeping.acquire()
        threading.Thread(target=_keep_warm, args=(config, kept, keeping), daemon=True).start()
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


def _keep_warm(config: Config, kept: Kept, lock: threading.Lock) -> None:
    """While the server already serves the site: read the wiki into ``kept`` (``lock`` held)."""
    from kbtool.stages.site import keep_warm

    try:
        keep_warm(config, kept)
        gc.freeze()  # what was just read is kept: see _keep_out_of_collection
    except Exception as error:  # the next rebuild reads what it needs itself
        print(f"kbtool: could not read the wiki ahead ({error})", file=sys.stderr)
    finally:
        lock.release()


#: rebuilds between two collections of everything (what became garbage once kept)
_FULL_COLLECTION_EVERY = 50
_rebuilds = 0


def _keep_out_of_collection() -> None:
    """Take what the process holds now (the kept wiki) out of the garbage collector's sight,
    after collecting the last build's garbage: else a collection during a build walks every
    kept page, most of a second at 7,000 pages. Cycles among kept objects that are dropped
    later wait for the occasional collection of everything."""
    global _rebuilds
    _rebuilds += 1
    if _rebuilds % _FULL_COLLECTION_EVERY == 0:
        gc.unfreeze()
    gc.collect()
    gc.freeze()
