"""Edits the way they really arrive at a running ``kbtool serve``: a branch switch (every file
deleted and written again at once), a save storm (one page saved many times within seconds),
an editor's write-to-a-temporary-file-and-rename, a page deleted and created again. After each
random sequence, once serve has settled, the served site equals a clean build of the same
files, and the served pages show no stopped build."""

from __future__ import annotations

import json
import os
import queue
import random
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtool.render.urls import GRAPH_DATA
from tests.stages.test_build_incremental import RandomWiki, clean_build, graph, site_files

#: seconds serve may take to settle after the last change (a bound for a failure, not a target)
SETTLE = 60.0


class Served:
    """``kbtool serve`` in a process of its own, its output read as it comes."""

    def __init__(self, root: Path) -> None:
        self.process = subprocess.Popen(
            [sys.executable, "-m", "kbtool", "-C", str(root), "serve", "-p", "0", "-j", "1"],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.lines: queue.Queue[str] = queue.Queue()
        #: every line serve printed, for the message of a failing test
        self.printed: list[str] = []
        out = self.process.stdout
        assert out is not None

        def read() -> None:
            for line in out:
                self.printed.append(line)
                self.lines.put(line)

        threading.Thread(target=read, daemon=True).start()
        self.base = self._started()

    def _started(self) -> str:
        deadline = time.time() + SETTLE
        while time.time() < deadline:
            try:
                line = self.lines.get(timeout=1)
            except queue.Empty:
                continue
            if line.startswith("serving "):
                return line.split(" at ")[1].split()[0]
        raise AssertionError("serve did not start")

    def quiet_for(self, seconds: float) -> None:
        """Wait until serve has printed nothing for ``seconds``: no rebuild under way."""
        deadline = time.time() + SETTLE
        while time.time() < deadline:
            try:
                self.lines.get(timeout=seconds)
            except queue.Empty:
                return
        raise AssertionError("serve never settled")

    def blocked(self) -> object:
        with urllib.request.urlopen(self.base + "__kbtool/problems?page=/", timeout=10) as r:
            return json.loads(r.read())["blocked"]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=30)


@pytest.fixture
def served_wiki(tmp_path: Path) -> Iterator[tuple[RandomWiki, Path, Served]]:
    wiki = RandomWiki(random.Random(0))
    live = tmp_path / "live"
    live.mkdir()
    wiki.write(live)
    served = Served(live)
    try:
        yield wiki, live, served
    finally:
        served.stop()


def wanted(wiki: RandomWiki) -> dict[str, bytes]:
    """Every file the wiki is: its pages and images."""
    files = {path: wiki.text(path).encode() for path in wiki.pages}
    return files | {image: b"\x89PNG\r\n\x1a\n" + image.encode() for image in wiki.images}


def arrive(
    root: Path, before: dict[str, bytes], after: dict[str, bytes], rng: random.Random
) -> str:
    """Bring the files from ``before`` to ``after`` as an editor or git would: the way chosen."""
    way = rng.choice(["branch switch", "atomic saves", "delete and create", "save storm"])
    for path in sorted(set(before) - set(after)):
        (root / path).unlink()
    changed = [p for p in sorted(after) if before.get(p) != after[p]]
    for path in changed:
        target = root / path
        target.parent.mkdir(parents=True, exist_ok=True)
        if way == "atomic saves":  # a hidden temporary file beside it, renamed over it
            temporary = target.with_name(f".{target.name}.tmp{rng.randint(0, 999)}")
            temporary.write_bytes(after[path])
            os.replace(temporary, target)
        elif way == "delete and create" and target.exists():
            target.unlink()
            time.sleep(rng.uniform(0, 0.3))
            target.write_bytes(after[path])
        elif way == "save storm":  # many saves of each page within a moment, the last one kept
            for n in range(rng.randint(5, 25)):
                target.write_bytes(after[path] + f"\nDraft {n}.\n".encode())
                time.sleep(rng.uniform(0, 0.1))
            target.write_bytes(after[path])
        else:
            target.write_bytes(after[path])
    return f"{way}: {len(changed)} written, {len(set(before) - set(after))} removed"


def same_as_clean(live: Path, clean: dict[str, bytes]) -> bool:
    got = site_files(live)
    if sorted(got) != sorted(clean):
        return False
    if graph(got.pop(GRAPH_DATA)) != graph(clean[GRAPH_DATA]):
        return False
    return all(got[name] == clean[name] for name in got)


@pytest.mark.parametrize("seed", range(3))
def test_serve_settles_on_a_clean_build_whatever_way_edits_arrive(
    served_wiki: tuple[RandomWiki, Path, Served], tmp_path: Path, seed: int
) -> None:
    wiki, live, served = served_wiki
    rng = random.Random(100 + seed)
    wiki.rng = rng
    history: list[str] = []
    on_disk = wanted(wiki)
    for _ in range(4):
        edits = [wiki.edit() for _ in range(rng.randint(1, 6))]
        if rng.random() < 0.5:  # the wiki builds again, so the site must have caught up
            for page in wiki.pages.values():
                page["broken_yaml"] = False
        history.append(arrive(live, on_disk, wanted(wiki), rng) + f" ({', '.join(edits)})")
        on_disk = wanted(wiki)
        time.sleep(rng.uniform(0, 0.5))  # the next arrives while this one may be building
    for page in wiki.pages.values():
        page["broken_yaml"] = False
    history.append(arrive(live, on_disk, wanted(wiki), rng))
    ok, clean = clean_build(wiki, tmp_path / "clean")
    assert ok, history
    deadline = time.time() + SETTLE
    while True:
        served.quiet_for(1.5)
        if same_as_clean(live, clean) or time.time() > deadline:
            break
    printed = "".join(served.printed[-40:])
    assert same_as_clean(live, clean), (history, printed)
    assert served.blocked() is None, (history, printed)
