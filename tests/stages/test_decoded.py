"""Bodies and search texts come back from the page workers encoded, and are decoded only
where they are used: a body by whoever renders its page, a search text by the search index."""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from kbtool.config import Config, config_from_table
from kbtool.reuse.lazy import Lazy, decoding
from kbtool.stages import load
from kbtool.stages.site import build_site
from kbtool.stages.workers import Workers
from kbtool.store.db import open_store
from kbtool.store.records import SEARCH
from tests.stages.test_build import page, small_wiki, snapshot, write


def _counted(decoded: list[bytes]) -> Lazy[int, bytes]:
    def decode(data: bytes) -> int:
        decoded.append(data)
        return int(json.loads(data))

    return decoding(decode, {"a": 1}, {"b": b"2", "c": b"3"})


def test_a_value_is_decoded_once_and_only_when_asked_for() -> None:
    decoded: list[bytes] = []
    values = _counted(decoded)
    assert len(values) == 3 and "c" in values and "d" not in values
    assert values.got("b") is None and decoded == []
    assert values["b"] == 2 and values["b"] == 2
    assert decoded == [b"2"] and values.got("b") == 2


def test_iterating_while_decoding_sees_every_path_once() -> None:
    values = _counted([])
    assert [(path, values[path]) for path in values] == [("a", 1), ("b", 2), ("c", 3)]
    assert sorted(values) == ["a", "b", "c"]


def test_a_subset_stays_encoded_until_used() -> None:
    decoded: list[bytes] = []
    part = _counted(decoded).subset(["a", "c", "x"])
    assert sorted(part) == ["a", "c"] and decoded == []
    part.update({"c": 30})
    assert part["c"] == 30 and decoded == []


def test_a_cold_build_decodes_no_body_or_search_text_in_the_main_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = tmp_path / "repo"
    files = {
        f"wiki/p{n}.md": page(f"# Page {n}\n\nSee [next](p{(n + 1) % 80}.md).\n") for n in range(80)
    }
    write(root, files)
    main = os.getpid()
    decoded: list[str] = []

    def counting(real: Callable[[bytes], object], name: str) -> Callable[[bytes], object]:
        def decode(data: bytes) -> object:
            if os.getpid() == main:  # a forked render worker's calls do not count
                decoded.append(name)
            return real(data)

        return decode

    monkeypatch.setattr(load, "decode_body", counting(load.decode_body, "body"))
    monkeypatch.setattr(load, "decode_doc", counting(load.decode_doc, "doc"))
    config = config_from_table(
        root, {"language": "en", "search": False, "severity": {"KB3": "off"}}
    )
    report = build_site(config, jobs=2)
    assert report.published and report.rendered > 80
    if Workers(2).worth_forking(80, 1):
        assert decoded == []
    html = (root / "site/wiki/p3.html").read_text(encoding="utf-8")
    assert 'href="p4.html"' in html  # filled by the worker that decoded the body


def test_a_site_without_search_takes_no_search_text_and_one_with_it_gets_them_all(
    tmp_path: Path,
) -> None:
    root, clean = tmp_path / "repo", tmp_path / "clean"
    write(root, small_wiki())
    write(clean, small_wiki())

    def settings(folder: Path, search: bool) -> Config:
        table = {"language": "en", "search": search, "severity": {"KB3": "off"}}
        return config_from_table(folder, table)

    assert build_site(settings(root, False), jobs=1).published
    with open_store(settings(root, False).cache_path) as store:
        assert store.keys(SEARCH) == {}
    assert build_site(settings(root, True), jobs=1).published  # every text taken now
    assert build_site(settings(clean, True), jobs=1).published
    search = snapshot(root / "site/search")
    assert search and search == snapshot(clean / "site/search")
