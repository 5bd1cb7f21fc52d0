"""A page's terms are made once, by the page worker, and a write from scratch only merges
them: the merged posting lists hold exactly each page's terms, whichever process merges."""

from __future__ import annotations

import filecmp
import json
import random
import shutil
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.search import layout
from kbtool.search.index import IndexFiles
from kbtool.search.page_terms import GROUPS, Terms, group_of, split_record, term_record
from kbtool.search.postings import doc_terms
from kbtool.search.text import SearchDoc
from kbtool.search.writer import write_search_index
from kbtool.stages.site import build_site
from kbtool.stages.workers import Workers
from kbtool.store.db import open_store
from kbtool.store.records import TERMS
from tests.conftest import page_text
from tests.search.support import doc, found

WORDS = ["注意力", "机制", "transformer", "attention", "位置编码", "head", "梯度", "RT-2", "π0"]


def _docs(count: int, seed: int = 1) -> dict[str, SearchDoc]:
    rng = random.Random(seed)
    docs = {}
    for i in range(count):
        body = "\n".join(" ".join(rng.choices(WORDS, k=rng.randint(0, 30))) for _ in range(3))
        title = " ".join(rng.choices(WORDS, k=2))
        path = f"wiki/p{i:03d}.md"
        docs[path] = doc(path, title, body, tags=(rng.choice(WORDS),), headings=("小结",))
    return docs


def _entries(folder: Path, docs: dict[str, SearchDoc]) -> dict[tuple[str, str], object]:
    """(path, term) -> (weight, positions) as the index on disk holds them."""
    index = IndexFiles(folder)
    ids = {index.doc(i).card.path: i for i in range(len(docs))}  # type: ignore[union-attr]
    out: dict[tuple[str, str], object] = {}
    for path, page in docs.items():
        for term in doc_terms(page):
            entry = index.postings(term, positions=True).get(ids[path])
            assert entry is not None, (path, term)
            out[path, term] = (entry.weight, list(entry.positions))
    return out


def test_merged_lists_hold_each_pages_own_terms(tmp_path: Path) -> None:
    docs = _docs(60)
    write_search_index(docs, tmp_path / "index")
    held = _entries(tmp_path / "index", docs)
    made = {(p, t): (w, at) for p, page in docs.items() for t, (w, at) in doc_terms(page).items()}
    assert held == made


def test_a_record_splits_by_the_shards_hash() -> None:
    groups = split_record(term_record(_docs(1)["wiki/p000.md"]))
    assert len(groups) == GROUPS
    for number, group in enumerate(groups):
        terms = group.split("\t")[0::3] if group else []
        assert all(group_of(term) == number for term in terms)


def test_workers_merge_what_this_process_merges(tmp_path: Path) -> None:
    docs = _docs(80, seed=7)
    write_search_index(docs, tmp_path / "here")
    records = Terms.made_from(docs).records
    write_search_index(docs, tmp_path / "forked", terms=Terms(records, Workers(2).map))
    compared = filecmp.dircmp(tmp_path / "here", tmp_path / "forked")
    assert not compared.diff_files and not compared.left_only and not compared.right_only
    shards = json.loads((tmp_path / "forked" / layout.TABLE).read_text())["shards"]
    assert len(list((tmp_path / "forked" / "s").iterdir())) == shards


def test_a_damaged_record_leaves_its_page_out_of_the_terms(tmp_path: Path) -> None:
    docs = _docs(5)
    good = Terms.made_from(docs).records

    def records(paths: list[str]) -> list[bytes]:
        made = list(good(paths))
        made[paths.index("wiki/p002.md")] = b"not a record"
        return made

    folder = tmp_path / "index"
    write_search_index(docs, folder, terms=Terms(records))
    title = docs["wiki/p002.md"].card.title
    assert "wiki/p002.md" not in found(folder, f'"{title}"')
    assert found(folder, f'"{docs["wiki/p001.md"].card.title}"')


def test_a_build_indexes_from_the_stored_terms(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    (tmp_path / "wiki").mkdir()
    for i in range(3):
        text = page_text(f"# 页面{i}\n\n注意力 attention {i}\n")
        (tmp_path / "wiki" / f"p{i}.md").write_text(text, encoding="utf-8")
    (tmp_path / "pyproject.toml").write_text('[tool.kbtool]\nseverity = { KB3 = "off" }\n')
    config = load_config(tmp_path)
    assert build_site(config, jobs=1).ok
    with open_store(config.cache_path) as store:
        assert set(store.keys(TERMS)) == {f"wiki/p{i}.md" for i in range(3)}
    # written from scratch again, from the records: nothing is tokenised now
    shutil.rmtree(tmp_path / "site" / layout.FOLDER)
    monkeypatch.setattr("kbtool.search.page_terms.doc_terms", _refuse)
    assert build_site(config, jobs=1, full=True).ok
    assert found(tmp_path / "site" / layout.FOLDER, "attention") == [
        f"wiki/p{i}.md" for i in range(3)
    ]


def _refuse(page: SearchDoc) -> object:
    raise AssertionError(f"{page.card.path} tokenised again")


def test_the_shards_follow_the_vocabulary_not_the_page_count(tmp_path: Path) -> None:
    rng = random.Random(3)
    many = "".join(chr(0x4E00 + i) for i in range(3000))
    small = {f"wiki/p{i:03d}.md": doc(f"wiki/p{i:03d}.md", "t", "注意力 " * 40) for i in range(50)}
    large = {path: doc(path, "t", "".join(rng.choices(many, k=400)) + " 注意力") for path in small}
    shards = {}
    for name, docs in (("small", small), ("large", large)):
        write_search_index(docs, tmp_path / name)
        shards[name] = json.loads((tmp_path / name / layout.TABLE).read_text())["shards"]
    assert shards["small"] == layout.shard_count(0) < shards["large"]
    assert found(tmp_path / "large", "注意力") == sorted(large)
