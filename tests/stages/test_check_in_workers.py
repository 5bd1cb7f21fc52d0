"""A check of many pages is shared among the run's workers: it must find exactly what a check
in one process finds, and store the same link table and disk answers."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.render.site import collect
from kbtool.stages.check import check_wiki
from kbtool.stages.page_checks import _PARALLEL_THRESHOLD
from kbtool.stages.run import new_run
from kbtool.stages.siteinfo import _collect_all
from kbtool.stages.workers import Workers
from kbtool.store.db import open_store
from tests.conftest import page_text, write_tree

PAGES = _PARALLEL_THRESHOLD + 88


def _wiki(root: Path) -> None:
    rng = random.Random(7)
    files: dict[str, str | bytes] = {"files/data.csv": "a,b\n"}
    for n in range(PAGES):
        links = []
        for _ in range(4):
            other = rng.randrange(PAGES)
            anchor = rng.choice(["", "#part", "#no-such-part"])
            links.append(f"[p{other}](p{other}.md{anchor})")
        links.append(rng.choice(["[data](../files/data.csv)", "[gone](../files/gone.csv)", ""]))
        links.append(rng.choice(["[[p3]]", "[[Nobody]]", ""]))
        related = [f"p{rng.randrange(PAGES + 20)}.md"]  # some do not exist
        body = f"# Page {n}\n\n## Part\n\n" + " ".join(links) + "\n"
        files[f"wiki/p{n}.md"] = page_text(body, related=related)
    write_tree(root, files)


def _checked(root: Path, jobs: int) -> tuple[list[object], dict[str, object], object]:
    config = load_config(root)
    with open_store(root / f".kbtool-{jobs}") as store:
        run = new_run(config, store, jobs=jobs)
        assert run.workers.worth_forking(PAGES, _PARALLEL_THRESHOLD) == (jobs > 1)
        result = check_wiki(run)
        edges = sorted(store.edges_touching(set(result.wiki.pages)))
        return sorted(result.diagnostics), dict(result.wiki.stats), edges


@pytest.mark.skipif(not Workers(2).worth_forking(PAGES, 1), reason="no fork here")
def test_a_check_in_workers_finds_what_one_process_finds(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    _wiki(root)
    one = _checked(root, jobs=1)
    shared = _checked(root, jobs=2)
    assert len(one[0]) > 100  # broken links, anchors and related entries were found
    assert {d.code for d in one[0]} >= {"KB201", "KB207", "KB208", "KB209"}  # type: ignore[attr-defined]
    assert shared == one


@pytest.mark.skipif(not Workers(2).worth_forking(PAGES, 1), reason="no fork here")
def test_site_facts_from_the_links_the_workers_resolved_are_the_resolved_ones(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    _wiki(root)
    config = load_config(root)
    with open_store(root / ".kbtool") as store:
        result = check_wiki(new_run(config, store, jobs=2))
    assert set(result.shown) == set(result.wiki.pages)
    from_workers = _collect_all(result.wiki, result)
    assert any(info.backlinks and info.related for info in from_workers.values())
    assert from_workers == collect(result.wiki)  # every link resolved again, here
