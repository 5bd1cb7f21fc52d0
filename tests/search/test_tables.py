"""The index's JSON tables are read once per state of their file, and what a build holds of
the tables it wrote is what the files hold."""

from __future__ import annotations

import json
import os
from pathlib import Path

from kbtool.search import layout, tables
from kbtool.search.writer import write_search_index
from tests.search.support import doc


def test_a_table_is_read_once_while_its_file_is_the_same(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    path.write_text('{"a": [1, 2]}')
    first = tables.load(path)
    assert first == {"a": [1, 2]} and tables.load(path) is first
    path.write_text('{"a": [3, 4]}')  # the same size, written in place
    assert tables.load(path) == {"a": [3, 4]}
    other = tmp_path / "u.json"
    other.write_text('{"b": 1}')
    os.replace(other, path)  # another file under the name
    assert tables.load(path) == {"b": 1}


def test_a_table_written_is_held_as_written(tmp_path: Path) -> None:
    path = tmp_path / "t.json"
    value = {"x": [1]}
    path.write_text(json.dumps(value))
    tables.written(path, value)
    assert tables.load(path) is value
    tables.written(tmp_path / "missing.json", value)  # nothing to hold


def test_the_page_tables_held_are_what_their_files_hold(tmp_path: Path) -> None:
    docs = {
        f"wiki/p{i}.md": doc(f"wiki/p{i}.md", f"标题 {i}", f"注意力 {i}" * 20) for i in range(60)
    }
    write_search_index(docs, tmp_path / "0")
    edited = {p: d for p, d in docs.items() if p != "wiki/p3.md"}
    edited["wiki/p5.md"] = doc("wiki/p5.md", "标题 5", "新词 独有")
    edited["wiki/new.md"] = doc("wiki/new.md", "新的", "新词")
    stats = write_search_index(edited, tmp_path / "1", tmp_path / "0")
    assert stats.incremental
    for folder in ("0", "1"):
        table = tmp_path / folder / layout.TABLE
        held = tables.load(table)
        # Equal, lists where the file has lists: nothing a reader of the file would not get.
        assert held == json.loads(table.read_bytes())
        assert json.dumps(held) == table.read_text()


def test_the_table_used_last_is_let_go_last(tmp_path: Path) -> None:
    first = tmp_path / "first.json"
    first.write_text('{"n": 0}')
    held = tables.load(first)
    for n in range(1, 12):  # more tables than are held, the first read again between
        other = tmp_path / f"t{n}.json"
        other.write_text(f'{{"n": {n}}}')
        tables.load(other)
        assert tables.load(first) is held
