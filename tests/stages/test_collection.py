"""A load of many pages keeps them out of the garbage collector's sight; a load of a few (the
language server's, at each keystroke) must not freeze what the process made since."""

from __future__ import annotations

import gc
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtool.config import config_from_table
from kbtool.stages.load import _PARALLEL_THRESHOLD, load_pages
from kbtool.stages.run import new_run
from kbtool.store.db import open_store
from tests.stages.test_build import page, write


@pytest.fixture(autouse=True)
def unfrozen() -> Iterator[None]:
    gc.unfreeze()
    yield
    gc.unfreeze()


def _frozen_by_loading(root: Path, pages: int) -> int:
    write(root, {f"wiki/p{n}.md": page(f"# Page {n}\n") for n in range(pages)})
    config = config_from_table(root, {"language": "en"})
    with open_store(config.cache_path) as store:
        before = gc.get_freeze_count()
        loaded = load_pages(new_run(config, store, jobs=1), with_bodies=True)
        assert len(loaded.pages) == pages
        return gc.get_freeze_count() - before


def test_a_few_pages_freeze_nothing(tmp_path: Path) -> None:
    assert _frozen_by_loading(tmp_path, 3) == 0


def test_many_pages_are_kept_out_of_collection(tmp_path: Path) -> None:
    assert _frozen_by_loading(tmp_path, _PARALLEL_THRESHOLD) > 0
    assert gc.isenabled()
