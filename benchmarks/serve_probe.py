"""How long ``kbtool serve`` takes from saving a page to serving the page with the edit.

It starts ``kbtool serve -p 0`` (any free port), waits for its ``serving ... at URL`` line,
then for each edit appends a sentence with a unique word to one page and polls that page's
URL every ``POLL`` seconds until the word is in what the server sends. The figure is the time
from the end of the write to that response, which is what an author waits for: the watcher's
debounce, the rebuild and the reload of the served file.

With ``arrivals``, two more ways edits arrive follow: a save storm (:data:`STORM` saves of one
page within five seconds; the figure is from the last save to its text served) and a branch
switch (:data:`SWITCHED` pages rewritten at once; from the last write to a sample of them all
served with their new text).
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

from harness import Process, Run, Workspace, kbtool_command

POLL = 0.02
#: saves of one page in the save storm, 0.1 s apart
STORM = 50
#: pages a branch switch rewrites, and how many of them are polled
SWITCHED, SAMPLED = 1000, 20
_SERVING = re.compile(r"serving .* at (http://127\.0\.0\.1:\d+/)")


@dataclass
class ServeResult:
    start_seconds: float  # from launch to the server answering (its first build included)
    edits: list[float]  # seconds from each save to the edit being served; inf: never seen
    run: Run
    storm: float | None = None  # from the storm's last save to it served
    switch: float | None = None  # from a branch switch's last write to its pages served


def _fetch(url: str) -> str:
    try:
        with urllib.request.urlopen(url, timeout=5) as response:
            return str(response.read().decode("utf-8", errors="replace"))
    except (urllib.error.URLError, OSError):
        return ""  # between two builds the file may be missing for a moment


def measure_serve(
    workspace: Workspace, edits: int, timeout: float, arrivals: bool = False
) -> ServeResult:
    """Start ``kbtool serve`` on ``workspace``, make ``edits`` one-page edits (and with
    ``arrivals`` a save storm and a branch switch), stop it."""
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
    storm = switch = None
    try:
        if found.wait(timeout):
            start_seconds = time.perf_counter() - started
            seconds = _edits(workspace, base[0], edits, timeout)
            if arrivals:
                storm = _storm(workspace, base[0], timeout)
                switch = _switch(workspace, base[0], timeout)
    finally:
        process.signal(signal.SIGINT)  # serve's own way out, as Ctrl-C; killed after 15 s
        run = process.wait(15)
    return ServeResult(start_seconds, seconds, run, storm, switch)


def _url(workspace: Workspace, base: str, page: Path) -> str:
    return base + page.relative_to(workspace.root).as_posix()[: -len(".md")] + ".html"


def _served(urls: dict[str, str], since: float, timeout: float) -> float:
    """Seconds from ``since`` until every URL serves its word (inf: not within ``timeout``)."""
    waiting = dict(urls)
    while waiting:
        waiting = {url: word for url, word in waiting.items() if word not in _fetch(url)}
        if time.perf_counter() - since > timeout:
            return float("inf")
        if waiting:
            time.sleep(POLL)
    return time.perf_counter() - since


def _storm(workspace: Workspace, base: str, timeout: float) -> float:
    time.sleep(1.0)
    page = workspace.edited_page()
    text = page.read_text(encoding="utf-8")
    for n in range(STORM):
        word = f"kbtoolstorm{n}x{os.getpid()}"
        page.write_text(f"{text}\n风暴中的一次保存 {word}。\n", encoding="utf-8")
        time.sleep(5.0 / STORM)
    return _served({_url(workspace, base, page): word}, time.perf_counter(), timeout)


def _switch(workspace: Workspace, base: str, timeout: float) -> float:
    time.sleep(1.0)
    pages = sorted((workspace.root / "wiki").rglob("*.md"))
    step = max(1, len(pages) // SWITCHED)
    chosen = pages[::step][:SWITCHED]
    words = {}
    for n, page in enumerate(chosen):
        word = f"kbtoolswitch{n}x{os.getpid()}"
        with page.open("a", encoding="utf-8") as f:
            f.write(f"\n另一个分支上的话 {word}。\n")
        words[page] = word
    since = time.perf_counter()
    sample = chosen[:: max(1, len(chosen) // SAMPLED)]
    return _served({_url(workspace, base, p): words[p] for p in sample}, since, timeout)


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
