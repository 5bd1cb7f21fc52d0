"""How long ``kbtool serve`` takes from saving a page to serving the page with the edit.

It starts ``kbtool serve -p 0`` (any free port), waits for its ``serving ... at URL`` line,
then for each edit appends a sentence with a unique word to one page and polls that page's
URL every ``POLL`` seconds until the word is in what the server sends. The figure is the time
from the end of the write to that response, which is what an author waits for: the watcher's
debounce, the rebuild and the reload of the served file.
"""

from __future__ import annotations

import re
import signal
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass

from harness import Process, Run, Workspace, kbtool_command

POLL = 0.02
_SERVING = re.compile(r"serving .* at (http://127\.0\.0\.1:\d+/)")


@dataclass
class ServeResult:
    start_seconds: float  # from launch to the server answering (its first build included)
    edits: list[float]  # seconds from each save to the edit being served; inf: never seen
    run: Run


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8", errors="replace"))
    except (urllib.error.URLError, OSError):
        return ""  # between two builds the file may be missing for a moment


def measure_serve(workspace: Workspace, edits: int, timeout: float) -> ServeResult:
    """Start ``kbtool serve`` on ``workspace``, make ``edits`` one-page edits, stop it."""
    found = threading.Event()
    base: list[str] = []

    def on_line(line: str) -> None:
        match = _SERVING.search(line)
        if match:
            base.append(match.group(1))
            found.set()

    started = time.perf_counter()
    process = Process(kbtool_command(workspace.root, "serve", "-p", "0"), on_line=on_line)
    start_seconds, seconds = float("inf"), []
    try:
        if found.wait(timeout):
            start_seconds = time.perf_counter() - started
            seconds = _edits(workspace, base[0], edits, timeout)
    finally:
        process.signal(signal.SIGINT)  # serve's own way out, as Ctrl-C; killed after 15 s
        run = process.wait(15)
    return ServeResult(start_seconds, seconds, run)


def _edits(workspace: Workspace, base: str, edits: int, timeout: float) -> list[float]:
    page = workspace.edited_page().relative_to(workspace.root).as_posix()
    url = base + page[: -len(".md")] + ".html"
    if not _fetch(url):
        raise SystemExit(f"kbtool serve does not serve {url}")
    seconds = []
    for _ in range(edits):
        time.sleep(0.5)  # let the watcher settle after the previous rebuild
        marker = workspace.edit()
        saved = time.perf_counter()
        while marker not in _fetch(url):
            if time.perf_counter() - saved > timeout:
                seconds.append(float("inf"))
                break
            time.sleep(POLL)
        else:
            seconds.append(time.perf_counter() - saved)
    return seconds
