"""A session keeps a connection to the store open between its builds."""

from __future__ import annotations

import random
from pathlib import Path

from kbtool.config import load_config
from kbtool.session import Session
from kbtool.stages.site import build_site
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
    alone = build_site(load_config(tmp_path), jobs=1)
    assert alone.ok and alone.rendered == 0
