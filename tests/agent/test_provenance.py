"""Provenance, in process: a source's page and its citing pages, the sources no page cites,
the pages older than a source they cite (KB304)."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.agent.errors import Refused
from kbtool.agent.provenance import cited_by, source, stale, uncited
from kbtool.agent.state import AgentWiki
from kbtool.config import load_config
from tests.agent.support import small_wiki
from tests.conftest import page_text

DATED = '[tool.kbtool]\nignore = ["KB301", "KB302"]\nsource-date = { key = "ingested" }\n'
PAPER = "---\ningested: 2021-03-04\n---\n# A newer paper\n"


def _wiki(tmp_path: Path, settings: str = DATED) -> AgentWiki:
    extra = {
        "pyproject.toml": settings,
        "sources/papers/newer.md": PAPER,
        "wiki/concepts/cites.md": page_text(
            "# Cites\n", sources=["../../sources/papers/newer.md"], updated="2020-06-01"
        ),
    }
    return AgentWiki(load_config(small_wiki(tmp_path / "repo", extra)))


def test_a_sources_page_and_the_pages_citing_it(tmp_path: Path) -> None:
    wiki = _wiki(tmp_path)
    found = source(wiki, "sources/papers/newer.md")
    assert found.title == "A newer paper" and found.date == "2021-03-04"
    assert found.cited_by == ["wiki/concepts/cites.md"]
    assert [p.path for p in cited_by(wiki, "sources/papers/newer.md").pages] == found.cited_by
    assert [p.path for p in uncited(wiki).pages] == ["sources/papers/vaswani.md"]
    with pytest.raises(Refused, match="not a page of the sources"):
        source(wiki, "wiki/concepts/cites.md")


def test_pages_older_than_a_source_they_cite(tmp_path: Path) -> None:
    found = stale(_wiki(tmp_path))
    assert [p.path for p in found.pages] == ["wiki/concepts/cites.md"]
    assert "2021-03-04" in found.pages[0].detail


def test_staleness_needs_to_know_when_sources_came(tmp_path: Path) -> None:
    with pytest.raises(Refused, match="source-date"):
        stale(_wiki(tmp_path, "[tool.kbtool]\n"))
