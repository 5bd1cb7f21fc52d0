"""Updating the index after an edit rewrites only what the edit touches, and answers as a
fresh build would."""

from __future__ import annotations

import os
from collections.abc import Iterator, Mapping
from pathlib import Path

from kbtool.cli import main
from kbtool.search import layout
from kbtool.search.codec import unscript
from kbtool.search.index import IndexFiles
from kbtool.search.page_terms import Terms, term_record
from kbtool.search.pagefiles import PageReader, page_file
from kbtool.search.text import SearchDoc
from kbtool.search.writer import write_search_index
from tests.search.support import doc, found

QUERIES = ("注意力", "强化学习", "policy", "pol", "页面", "新词", "sim2real", "标题 3", "独有")


def _site(n: int = 120) -> dict[str, SearchDoc]:
    docs = {}
    for i in range(n):
        body = f"第 {i} 页：注意力 与 强化学习 policy learning 页面{i % 7} 词{i % 13}。"
        docs[f"wiki/p{i:03}.md"] = doc(f"wiki/p{i:03}.md", f"标题 {i}", body * 3)
    return docs


def _files(folder: Path) -> dict[str, Path]:
    return {p.relative_to(folder).as_posix(): p for p in folder.rglob("*") if p.is_file()}


def test_one_page_edit_writes_only_its_page_and_the_update_segment(tmp_path: Path) -> None:
    docs = _site()
    write_search_index(docs, tmp_path / "old")
    edited = dict(docs)
    path = "wiki/p005.md"
    edited[path] = doc(path, "标题 5", "新词 独有 内容 sim2real")
    stats = write_search_index(edited, tmp_path / "new", tmp_path / "old")
    assert stats.incremental and stats.changed_pages == 1
    old, new = _files(tmp_path / "old"), _files(tmp_path / "new")
    written = {n for n in new if n not in old or not os.path.samefile(new[n], old[n])}
    reader = PageReader(tmp_path / "old", unscript((tmp_path / "old" / layout.META).read_bytes()))
    its_file = page_file(reader.chunk_of(5))  # the file that holds page 5 (and neighbours)
    # priors.js is kept: no page's in-links changed
    assert {n for n in written if not n.startswith("x/")} == {layout.TABLE, layout.META, its_file}
    assert set(old) <= set(new)  # every main shard, long list and word list is kept, linked
    write_search_index(edited, tmp_path / "fresh")
    for query in QUERIES:
        assert found(tmp_path / "new", query) == found(tmp_path / "fresh", query), query


class _Asked(Mapping[str, SearchDoc]):
    """The pages, noting which of them a writer asked for."""

    def __init__(self, docs: dict[str, SearchDoc]) -> None:
        self.docs = docs
        self.asked: set[str] = set()

    def __getitem__(self, path: str) -> SearchDoc:
        self.asked.add(path)
        return self.docs[path]

    def __contains__(self, path: object) -> bool:
        return path in self.docs

    def __iter__(self) -> Iterator[str]:
        return iter(self.docs)

    def __len__(self) -> int:
        return len(self.docs)


def test_an_update_told_what_changed_reads_only_those_pages_and_their_file(
    tmp_path: Path,
) -> None:
    docs = _site()
    write_search_index(docs, tmp_path / "0")
    edited = dict(docs)
    edited["wiki/p005.md"] = doc("wiki/p005.md", "标题 5", "新词 独有 内容 sim2real")
    asked = _Asked(edited)
    stats = write_search_index(asked, tmp_path / "1", tmp_path / "0", changed={"wiki/p005.md"})
    assert stats.incremental and stats.changed_pages == 1
    reader = PageReader(tmp_path / "0", unscript((tmp_path / "0" / layout.META).read_bytes()))

    def sharing_a_file(*ids: int) -> set[str]:
        chunks = {reader.chunk_of(i) for i in ids}
        return {p for i, p in enumerate(sorted(docs)) if reader.chunk_of(i) in chunks}

    assert "wiki/p005.md" in asked.asked and asked.asked <= sharing_a_file(5)  # not every page
    edited["wiki/p090.md"] = doc("wiki/p090.md", "标题 90", "另一个 新词")  # and one more edit
    asked = _Asked(edited)
    write_search_index(asked, tmp_path / "2", tmp_path / "1", changed={"wiki/p090.md"})
    assert "wiki/p090.md" in asked.asked and asked.asked <= sharing_a_file(5, 90)
    write_search_index(edited, tmp_path / "fresh")
    for query in QUERIES:
        assert found(tmp_path / "2", query) == found(tmp_path / "fresh", query), query


def test_successive_edits_and_an_edit_undone(tmp_path: Path) -> None:
    docs = _site()
    write_search_index(docs, tmp_path / "0")
    edited = dict(docs)
    edited["wiki/p005.md"] = doc("wiki/p005.md", "标题 5", "新词 独有")
    write_search_index(edited, tmp_path / "1", tmp_path / "0")
    edited["wiki/p006.md"] = doc("wiki/p006.md", "标题 6", "另一个 新词")
    write_search_index(edited, tmp_path / "2", tmp_path / "1")
    assert set(found(tmp_path / "2", "新词")) == {"wiki/p005.md", "wiki/p006.md"}
    edited["wiki/p005.md"] = docs["wiki/p005.md"]  # back as it was
    write_search_index(edited, tmp_path / "3", tmp_path / "2")
    write_search_index(edited, tmp_path / "fresh")
    for query in QUERIES:
        assert found(tmp_path / "3", query) == found(tmp_path / "fresh", query), query


def test_added_and_removed_pages(tmp_path: Path) -> None:
    docs = _site()
    write_search_index(docs, tmp_path / "old")
    changed = dict(docs)
    del changed["wiki/p010.md"]
    changed["wiki/new.md"] = doc("wiki/new.md", "新页面", "新词 注意力 独有")
    stats = write_search_index(changed, tmp_path / "new", tmp_path / "old")
    assert stats.incremental and stats.changed_pages == 2
    assert "wiki/p010.md" not in found(tmp_path / "new", "注意力")
    assert "wiki/new.md" in found(tmp_path / "new", "注意力")
    assert found(tmp_path / "new", "独有") == ["wiki/new.md"]
    write_search_index(changed, tmp_path / "fresh")
    for query in QUERIES:
        assert set(found(tmp_path / "new", query)) == set(found(tmp_path / "fresh", query))


def test_unchanged_pages_rewrite_nothing_but_the_tables(tmp_path: Path) -> None:
    docs = _site(40)
    write_search_index(docs, tmp_path / "old")
    stats = write_search_index(docs, tmp_path / "new", tmp_path / "old")
    assert stats.incremental and stats.changed_pages == 0
    old, new = _files(tmp_path / "old"), _files(tmp_path / "new")
    written = {n for n in new if n not in old or not os.path.samefile(new[n], old[n])}
    assert {n for n in written if not n.startswith("x/")} == {layout.TABLE, layout.META}
    assert stats.kept == stats.files - len(written)  # all the rest is linked


def test_many_changes_or_a_broken_old_index_rebuild_from_scratch(tmp_path: Path) -> None:
    docs = _site(40)
    write_search_index(docs, tmp_path / "old")
    rewritten = {p: doc(p, d.card.title, d.body + " 改") for p, d in list(docs.items())[:20]}
    rewritten = {**docs, **rewritten}
    assert not write_search_index(rewritten, tmp_path / "a", tmp_path / "old").incremental
    (tmp_path / "old" / layout.TABLE).write_text("{not json", encoding="utf-8")
    stats = write_search_index(docs, tmp_path / "b", tmp_path / "old")
    assert not stats.incremental and found(tmp_path / "b", "注意力")


def test_in_links_changed_alone_rank_as_a_clean_build(tmp_path: Path) -> None:
    docs = _site(40)
    write_search_index(docs, tmp_path / "old", links={"wiki/p030.md": 2})
    links = {"wiki/p030.md": 400, "wiki/p003.md": 90}  # the same pages, linked otherwise
    stats = write_search_index(docs, tmp_path / "new", tmp_path / "old", links=links)
    assert stats.incremental and stats.changed_pages == 0
    assert not os.path.samefile(tmp_path / "new" / layout.PRIORS, tmp_path / "old" / layout.PRIORS)
    write_search_index(docs, tmp_path / "fresh", links=links)
    assert found(tmp_path / "new", "policy")[:2] == ["wiki/p030.md", "wiki/p003.md"]
    for query in QUERIES:
        assert found(tmp_path / "new", query) == found(tmp_path / "fresh", query), query


PAGE = "---\ntype: concept\nsummary: 页面\nupdated: 2020-01-01\n---\n# {title}\n\n{text}\n"


def test_a_build_after_links_changed_ranks_by_the_new_in_links(tmp_path: Path) -> None:
    def write(name: str, text: str) -> None:
        page = PAGE.format(title=name.upper(), text=text)
        (root / f"wiki/concepts/{name}.md").write_text(page, encoding="utf-8")

    root = tmp_path / "repo"
    (root / "wiki" / "concepts").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.kbtool]\nseverity = { KB3 = "off" }\n')
    write("hub", "注意力 " + "其他内容。" * 200)  # longer: its body match ranks lower
    write("note", "注意力")
    for i in range(20):
        write(f"p{i}", "正文")
    assert main(["-C", str(root), "build"]) == 0
    site = root / "site" / "search"
    assert found(site, "注意力 ")[:2] == ["wiki/concepts/note.md", "wiki/concepts/hub.md"]
    for i in range(20):  # the same text, a link more: only the in-links change
        write(f"p{i}", "[正文](hub.md)")
    assert main(["-C", str(root), "build"]) == 0
    assert found(site, "注意力 ")[:2] == ["wiki/concepts/hub.md", "wiki/concepts/note.md"]
    assert main(["-C", str(root), "build", "--clean"]) == 0
    assert found(site, "注意力 ")[:2] == ["wiki/concepts/hub.md", "wiki/concepts/note.md"]


def _bytes(folder: Path) -> dict[str, bytes]:
    return {name: path.read_bytes() for name, path in _files(folder).items()}


def test_the_index_counts_its_files_as_it_writes_them(tmp_path: Path) -> None:
    docs = _site()
    stats = [write_search_index(docs, tmp_path / "0")]
    edited = {**docs, "wiki/p005.md": doc("wiki/p005.md", "标题 5", "新词 独有")}
    stats.append(write_search_index(edited, tmp_path / "1", tmp_path / "0"))
    del edited["wiki/p007.md"]
    stats.append(write_search_index(edited, tmp_path / "2", tmp_path / "1"))
    for step, counted in enumerate(stats):
        files = _files(tmp_path / str(step))
        assert counted.files == len(files), step
        assert counted.bytes == sum(p.stat().st_size for p in files.values()), step


def test_an_update_into_the_index_before_the_old_one_writes_the_same_files(
    tmp_path: Path,
) -> None:
    """As serve's spare site holds it: the index before the live one, brought up to date in
    place, ends up as an update into a new folder does, and the live one is left as it is."""
    docs = _site()
    write_search_index(docs, tmp_path / "spare")
    first = {**docs, "wiki/p005.md": doc("wiki/p005.md", "标题 5", "新词 独有 内容 sim2real")}
    write_search_index(first, tmp_path / "live", tmp_path / "spare")
    live = _bytes(tmp_path / "live")
    second = {p: d for p, d in first.items() if p != "wiki/p050.md"}
    second["wiki/p090.md"] = doc("wiki/p090.md", "标题 90", "另一个 新词")
    second["wiki/p100a.md"] = doc("wiki/p100a.md", "加的页", "新词 policy")
    main = tmp_path / "spare" / layout.shard_file("0")
    main_inode = main.stat().st_ino
    stats = write_search_index(second, tmp_path / "spare", tmp_path / "live", changed=None)
    assert stats.incremental and main.stat().st_ino == main_inode  # the main part stays
    write_search_index(second, tmp_path / "new", tmp_path / "live")
    assert _bytes(tmp_path / "spare") == _bytes(tmp_path / "new")
    assert _bytes(tmp_path / "live") == live  # nothing written through a link
    assert stats.files == len(_files(tmp_path / "spare"))
    assert stats.kept < len([n for n in live if n.startswith("s/")])  # main files not linked
    write_search_index(second, tmp_path / "fresh")
    for query in QUERIES:
        assert found(tmp_path / "spare", query) == found(tmp_path / "fresh", query), query


def _stored(docs: Mapping[str, SearchDoc], asked: list[list[str]]) -> Terms:
    """The pages' term records as the page worker stores them; ``asked`` notes each ask."""
    made = {path: term_record(page) for path, page in docs.items()}

    def records(paths: list[str]) -> list[bytes]:
        asked.append(paths)
        return [made[path] for path in paths]

    return Terms(records)


def test_an_update_merges_the_stored_terms_of_its_segment_alone(tmp_path: Path) -> None:
    asked: list[list[str]] = []
    docs = _site()
    write_search_index(docs, tmp_path / "0")
    edited = {**docs, "wiki/p005.md": doc("wiki/p005.md", "标题 5", "新词 独有 内容 sim2real")}
    write_search_index(edited, tmp_path / "1", tmp_path / "0", terms=_stored(edited, asked))
    assert asked == [["wiki/p005.md"]]
    edited["wiki/p090.md"] = doc("wiki/p090.md", "标题 90", "另一个 新词")
    write_search_index(edited, tmp_path / "2", tmp_path / "1", terms=_stored(edited, asked))
    assert asked[1:] == [["wiki/p005.md", "wiki/p090.md"]]  # the segment, in id order
    write_search_index(edited, tmp_path / "fresh")
    for query in QUERIES:
        assert found(tmp_path / "2", query) == found(tmp_path / "fresh", query), query


def test_a_long_page_cut_in_its_page_file_updates_as_a_clean_build(tmp_path: Path) -> None:
    from kbtool.search.pagefiles import CUT

    docs = _site()
    tail = " ".join(f"deepword{i} 深处词{i}" for i in range(CUT // 8))
    docs["wiki/p040.md"] = doc("wiki/p040.md", "长页", "开头 policy " + "甲乙" * CUT + tail)
    write_search_index(docs, tmp_path / "0")
    assert list((tmp_path / "0" / "c").glob("*.js"))  # its rest has a file of its own
    edited = {**docs, "wiki/p040.md": doc("wiki/p040.md", "长页", "短了 policy")}
    edited["wiki/p041.md"] = doc("wiki/p041.md", "标题 41", "deepword3 新词")
    write_search_index(
        edited, tmp_path / "1", tmp_path / "0", changed={"wiki/p040.md", "wiki/p041.md"}
    )
    write_search_index(edited, tmp_path / "fresh")
    for query in (*QUERIES, "deepword3", "deepw", "深处词7", "甲乙", "短了"):
        assert found(tmp_path / "1", query) == found(tmp_path / "fresh", query), query
    assert found(tmp_path / "0", "deepword3") == ["wiki/p040.md"]  # its rest is indexed
    # the dead page's words are taken out of the prefix counts, its rest's too
    assert IndexFiles(tmp_path / "1").expand("deepw") == ["deepword3"]
