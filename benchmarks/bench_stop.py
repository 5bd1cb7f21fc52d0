"""How fast a stopped ``kbtool build`` is gone, workers and all.

Starts a build of a wiki big enough to be rendering in worker processes, sends Ctrl-C (to the
process group, as a terminal does), SIGTERM or SIGKILL (to kbtool alone) while it renders,
and prints the seconds until kbtool exited and until the last process it started was gone.

    python benchmarks/bench_stop.py [--runs 8] [--pages 80]
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))  # the tests, as a package

from tests.test_signals import (  # noqa: E402 - the wiki and process helpers the tests use
    add_big_pages,
    descendants,
    session_survivors,
    staging_folders,
    write_small_wiki,
)


def one_run(root: Path, sig: int) -> tuple[float, float]:
    process = subprocess.Popen(
        [sys.executable, "-m", "kbtool", "-C", str(root), "build", "-j", "2"],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    while not (staging_folders(root) and len(descendants(process.pid)) >= 2):
        if process.poll() is not None:
            raise SystemExit("the build ended before it rendered in workers: use more --pages")
        time.sleep(0.005)
    started = time.monotonic()
    if sig == signal.SIGINT:
        os.killpg(process.pid, sig)
    else:
        process.send_signal(sig)
    process.wait()
    exited = time.monotonic() - started
    while session_survivors(process.pid):
        time.sleep(0.002)
    return exited, time.monotonic() - started


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--runs", type=int, default=8)
    parser.add_argument("--pages", type=int, default=80)
    args = parser.parse_args()
    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGKILL):
        exits, gone = [], []
        for _ in range(args.runs):
            folder = Path(tempfile.mkdtemp(prefix="kbtool-stop-"))
            try:
                root = folder / "repo"
                write_small_wiki(root)
                add_big_pages(root, args.pages)
                exited, last = one_run(root, sig)
            finally:
                shutil.rmtree(folder, ignore_errors=True)
            exits.append(exited)
            gone.append(last)
        print(
            f"{signal.Signals(sig).name:8} kbtool exited: median {statistics.median(exits):.3f} s, "
            f"max {max(exits):.3f} s; last worker gone: median {statistics.median(gone):.3f} s, "
            f"max {max(gone):.3f} s  ({args.runs} runs, {args.pages} pages)"
        )


if __name__ == "__main__":
    main()
