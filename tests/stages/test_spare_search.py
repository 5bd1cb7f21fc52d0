"""Serve's spare site keeps its search index: the next build's search stage brings that one
up to date in place, and the index it publishes answers as a clean build's does."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.reuse.values import WHOLE
from kbtool.search import layout
from kbtool.search.engine import IndexFiles, rank
from kbtool.search.origins import ORIGINS, SINCE
from kbtool.session import Session
from kbtool.stages.build_report import BuildReport
from kbtool.stages.publish.published import Spare
from kbtool.stages.reused import SPARE
from kbtool.stages.site import build_site
from tests.stages.test_build_incremental import PYPROJECT, RandomWiki

QUERIES = ("page", "text", "注意力", "attention", "robotics", "paper", "方法", "results", "pa")


def _write(wiki: RandomWiki, root: Path) -> None:
    wiki.write(root)
    (root / "pyproject.toml").write_text(PYPROJECT.replace("search = false\n", ""))


def _build(root: Path, session: Session) -> BuildReport:
    session.config = load_config(root)
    session.scan()
    return session.build(jobs=1)


def _answers(site: Path) -> dict[str, list[str]]:
    index = IndexFiles(site / layout.FOLDER)
    out = {}
    for query in QUERIES:
        out[query] = [index.doc(d).card.path for d in rank(index, query).docs]  # type: ignore[union-attr]
    return out


def _clean(wiki: RandomWiki, root: Path) -> Path:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    _write(wiki, root)
    assert build_site(load_config(root), jobs=1).ok
    return root / "site"


def _spare(session: Session) -> Spare | None:
    return session.reuse.get(SPARE, WHOLE, str(session.config.site_path))


def _serving(tmp_path: Path, seed: int) -> tuple[RandomWiki, Path, Session]:
    wiki = RandomWiki(random.Random(seed))
    live = tmp_path / "live"
    live.mkdir()
    _write(wiki, live)
    session = Session(load_config(live))
    assert _build(live, session).ok
    return wiki, live, session


@pytest.mark.parametrize("seed", range(3))
def test_served_updates_answer_as_a_clean_build(tmp_path: Path, seed: int) -> None:
    wiki, live, session = _serving(tmp_path, seed)
    history: list[str] = []
    for _ in range(10):
        history.append(wiki.edit())
        _write(wiki, live)
        report = _build(live, session)
        if not report.ok or report.search is None:  # stopped, or nothing to publish
            continue
        index = [p for p in (live / "site" / layout.FOLDER).rglob("*") if p.is_file()]
        assert {ORIGINS, SINCE} <= {p.name for p in index}  # counted too: the folder's every file
        assert report.search["files"] == len(index), history
        assert report.search["bytes"] == sum(p.stat().st_size for p in index), history
        assert _answers(live / "site") == _answers(_clean(wiki, tmp_path / "clean")), history


def test_the_spare_keeps_its_index_and_the_next_update_starts_from_it(tmp_path: Path) -> None:
    wiki, live, session = _serving(tmp_path, 1)
    for title in ("One", "Two"):
        wiki.pages[wiki.wiki_paths()[0]]["title"] = title
        _write(wiki, live)
        assert _build(live, session).ok
    spare = _spare(session)
    assert spare is not None and (spare.folder / layout.FOLDER / layout.TABLE).is_file()
    main = len(list((live / "site" / layout.FOLDER / "s").glob("*.js")))
    wiki.pages[wiki.wiki_paths()[0]]["title"] = "Three"
    _write(wiki, live)
    report = _build(live, session)
    assert report.ok and report.search["incremental"]
    assert report.search["kept"] < main  # the main part was in place: not linked again
    assert _answers(live / "site") == _answers(_clean(wiki, tmp_path / "clean"))


def test_a_spare_linked_ahead_holds_the_live_index(tmp_path: Path) -> None:
    from kbtool.stages.pipeline import keep_warm

    wiki, live, _ = _serving(tmp_path, 2)
    session = Session(load_config(live))
    assert _build(live, session).ok  # nothing changed: no spare
    assert session.disk is not None
    keep_warm(session.config, session.reuse, session.disk)
    spare = _spare(session)
    assert spare is not None
    site_index, spare_index = live / "site" / layout.FOLDER, spare.folder / layout.FOLDER
    names = sorted(p.relative_to(site_index) for p in site_index.rglob("*") if p.is_file())
    assert names == sorted(
        p.relative_to(spare_index) for p in spare_index.rglob("*") if p.is_file()
    )
    wiki.pages[wiki.wiki_paths()[0]]["title"] = "Changed"
    _write(wiki, live)
    report = _build(live, session)
    assert report.ok and report.search["incremental"]
    assert report.search["kept"] < len(list((site_index / "s").glob("*.js")))
    assert _answers(live / "site") == _answers(_clean(wiki, tmp_path / "clean"))


def test_a_build_without_search_leaves_no_index_in_the_spare(tmp_path: Path) -> None:
    wiki, live, session = _serving(tmp_path, 0)
    wiki.pages[wiki.wiki_paths()[0]]["title"] = "One"
    _write(wiki, live)
    assert _build(live, session).ok
    wiki.pages[wiki.wiki_paths()[0]]["title"] = "Two"
    wiki.write(live)  # search = false
    assert _build(live, session).ok
    assert not (live / "site" / layout.FOLDER).exists()


def test_a_one_shot_build_updates_the_index_its_stored_spare_kept(tmp_path: Path) -> None:
    wiki = RandomWiki(random.Random(4))
    live = tmp_path / "live"
    live.mkdir()
    for title in ("Zero", "One", "Two"):  # the first build has no spare, the second keeps one
        wiki.pages[wiki.wiki_paths()[0]]["title"] = title
        _write(wiki, live)
        report = build_site(load_config(live), jobs=1)
        assert report.ok and report.search is not None
    assert report.search["incremental"]
    assert report.search["kept"] < len(list((live / "site" / layout.FOLDER / "s").glob("*.js")))
    assert _answers(live / "site") == _answers(_clean(wiki, tmp_path / "clean"))
