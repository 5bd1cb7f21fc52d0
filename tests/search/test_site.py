"""The site's index written from scratch: the docs are fetched a window at a time when many
changed, and the index is the same as with every doc held."""

from __future__ import annotations

from pathlib import Path

import pytest

import kbtool.search.site
from kbtool.search.origins import ORIGINS, read_origins
from kbtool.search.page_terms import Terms
from kbtool.search.site import build_search
from kbtool.search.text import SearchDoc
from tests.search.support import doc


def _docs() -> dict[str, SearchDoc]:
    words = ["注意力", "attention", "扩散", "policy", "状态空间", "transformer"]
    made = {}
    for n in range(23):
        path = f"wiki/p{n:02d}.md"
        body = " ".join(words[(n + k) % len(words)] for k in range(n % 5 + 2))
        made[path] = doc(path, f"页面 {n}", body * (n % 3 + 1), type="source" if n % 7 else "x")
    return made


def _index(tmp_path: Path, name: str, asked: list[list[str]]) -> dict[str, bytes]:
    docs = _docs()

    def fetch(paths: list[str]) -> dict[str, SearchDoc]:
        asked.append(list(paths))
        return {p: docs[p] for p in paths}

    staging = tmp_path / name
    digests = {path: f"digest-{path}" for path in docs}
    terms = Terms.made_from(docs)  # as the build's, from elsewhere than the docs fetched
    build_search(digests, staging, tmp_path / "no-site", fetch, None, {"wiki/p03.md": 4}, terms)
    folder = staging / "search"
    return {str(p.relative_to(folder)): p.read_bytes() for p in folder.rglob("*") if p.is_file()}


def test_many_changed_docs_are_fetched_a_window_at_a_time_for_the_same_index(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    held: list[list[str]] = []
    whole = _index(tmp_path, "held", held)
    assert len(held) == 1 and len(held[0]) == 23  # few: all at once
    monkeypatch.setattr(kbtool.search.site, "_HELD", 4)
    monkeypatch.setattr(kbtool.search.site, "_WINDOW", 5)
    windows: list[list[str]] = []
    assert _index(tmp_path, "windowed", windows) == whole
    assert all(len(window) <= 5 for window in windows)
    fetched = [path for window in windows for path in window]
    assert sorted(fetched) == sorted(_docs())  # each once


def test_an_update_keeps_the_origins_and_lists_the_pages_that_differ_since(
    tmp_path: Path,
) -> None:
    docs = _docs()
    asked: list[str] = []

    def fetch(paths: list[str]) -> dict[str, SearchDoc]:
        asked.extend(paths)
        return {p: docs[p] for p in paths}

    def write(digests: dict[str, str], into: str, live: str) -> Path:
        asked.clear()
        build_search(
            digests, tmp_path / into, tmp_path / live, fetch, None, {}, Terms.made_from(docs)
        )
        return tmp_path / into / "search"

    first = {path: f"digest-{path}" for path in docs}
    scratch = write(first, "a", "none")
    edited = first | {"wiki/p01.md": "edited"}
    del edited["wiki/p02.md"]
    update = write(edited, "b", "a")
    assert asked == ["wiki/p01.md"]
    assert (update / ORIGINS).samefile(scratch / ORIGINS)  # kept, not written again
    since = read_origins(update)
    assert since is not None and since.since == {"wiki/p01.md": ["edited", 1], "wiki/p02.md": None}
    assert since.digests() == edited
    # The edit undone: the page is asked for again, and differs from the kept origins no more.
    again = write(first | {"wiki/p05.md": "other"}, "c", "b")
    assert sorted(asked) == ["wiki/p01.md", "wiki/p02.md", "wiki/p05.md"]
    origins = read_origins(again)
    assert origins is not None and origins.since == {"wiki/p05.md": ["other", 5]}
