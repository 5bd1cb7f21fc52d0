"""What a session does around its builds: the store kept open, the collector paused."""

from __future__ import annotations

import gc
import random
from pathlib import Path
from typing import Any

import pytest

import kbtool.session
from kbtool.config import load_config
from kbtool.session import Session
from kbtool.stages import site
from tests.stages.test_build_incremental import RandomWiki, build


def test_a_build_closes_its_connection_without_a_checkpoint(tmp_path: Path) -> None:
    """With a connection of the session's open, a build's is not the last to close, so its
    writes stay in the store's log (the checkpoint at the last close syncs the disk) and
    the store reads them from there."""
    wiki = RandomWiki(random.Random(5))
    wiki.write(tmp_path)
    session = Session(load_config(tmp_path))
    assert build(tmp_path, session)
    wiki.edit()
    wiki.write(tmp_path)
    assert build(tmp_path, session)
    log = tmp_path / ".kbtool" / "store.sqlite-wal"
    assert log.is_file() and log.stat().st_size > 0
    # A one-shot build beside the session reads its writes from the log: nothing to render.
    alone = site.build_site(load_config(tmp_path), jobs=1)
    assert alone.ok and alone.rendered == 0


def test_a_build_runs_without_the_collector_which_settling_runs(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A collection during a save's build walks what it made to find nothing; the front end
    collects once the answer is out (``Session.settle``)."""
    wiki = RandomWiki(random.Random(6))
    wiki.write(tmp_path)
    session = Session(load_config(tmp_path))
    session.scan()
    building = [False]
    collections: list[tuple[bool, int]] = []

    def count(phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            collections.append((building[0], info["generation"]))

    def marked_build(*args: Any, **kwargs: Any) -> site.BuildReport:
        building[0] = True
        try:
            return site.build_site(*args, **kwargs)
        finally:
            building[0] = False

    monkeypatch.setattr(kbtool.session, "build_site", marked_build)
    threshold = gc.get_threshold()
    gc.set_threshold(100)  # a collection every hundred objects, were it on
    gc.callbacks.append(count)
    try:
        assert session.build(jobs=1).ok
        session.settle()
    finally:
        gc.callbacks.remove(count)
        gc.set_threshold(*threshold)
    assert [generation for during, generation in collections if during] == []
    assert (False, 2) in collections  # settling collects everything
    assert gc.isenabled()
