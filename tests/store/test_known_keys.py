"""The keys a long-running process keeps between its connections to the store: they follow
its own writes and are forgotten when another process wrote records, or when a write of its
own may not have happened."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.store.db import open_store
from kbtool.store.known_keys import KnownKeys
from kbtool.store.records import CHECK, PAGE


def _put(folder: Path, rows: list[tuple[str, str]], known: KnownKeys | None = None) -> None:
    with open_store(folder) as store:
        if known is not None:
            store.keep_keys(known)
        with store.transaction():
            store.put(PAGE, [(name, key, b"x") for name, key in rows])


def _keys(folder: Path, known: KnownKeys) -> dict[str, str]:
    with open_store(folder) as store:
        store.keep_keys(known)
        return store.keys(PAGE)


def _truth(folder: Path) -> dict[str, str]:
    with open_store(folder) as store:
        return store.keys(PAGE)


def test_kept_keys_follow_the_process_own_writes(tmp_path: Path) -> None:
    known = KnownKeys()
    _put(tmp_path, [("a.md", "1"), ("b.md", "1")], known)
    assert _keys(tmp_path, known) == {"a.md": "1", "b.md": "1"}
    assert known.kinds[PAGE.name] == {"a.md": "1", "b.md": "1"}
    _put(tmp_path, [("a.md", "2"), ("c.md", "1")], known)
    with open_store(tmp_path) as store:
        store.keep_keys(known)
        with store.transaction():
            store.forget_pages(["b.md"])
        assert store.keys_of(PAGE, ["a.md", "b.md"]) == {"a.md": "2"}
    assert known.kinds[PAGE.name] == _truth(tmp_path) == {"a.md": "2", "c.md": "1"}


def test_a_write_by_another_process_before_the_connection_is_noticed(tmp_path: Path) -> None:
    known = KnownKeys()
    _put(tmp_path, [("a.md", "1")], known)
    assert _keys(tmp_path, known) == {"a.md": "1"}
    _put(tmp_path, [("a.md", "2")])  # another process
    assert _keys(tmp_path, known) == {"a.md": "2"}


def test_a_write_by_another_process_during_the_connection_is_noticed(tmp_path: Path) -> None:
    known = KnownKeys()
    _put(tmp_path, [("a.md", "1")], known)
    with open_store(tmp_path) as store:
        store.keep_keys(known)
        assert store.keys(PAGE) == {"a.md": "1"}
        _put(tmp_path, [("b.md", "1")])  # another process, while this connection is open
        with store.transaction():
            store.put(CHECK, [("a.md", "k", b"")])
    assert _keys(tmp_path, known) == {"a.md": "1", "b.md": "1"}


def test_a_write_that_may_not_have_happened_forgets_them(tmp_path: Path) -> None:
    known = KnownKeys()
    _put(tmp_path, [("a.md", "1")], known)
    assert _keys(tmp_path, known)
    with open_store(tmp_path) as store:
        store.keep_keys(known)
        with pytest.raises(KeyError), store.transaction():
            store.put(PAGE, [("b.md", "1", b"x")])
            raise KeyError("rolled back")
    assert not known.kinds
    assert _keys(tmp_path, known) == {"a.md": "1"}
    with open_store(tmp_path) as store:
        store.keep_keys(known)
        store.put(PAGE, [("c.md", "1", b"x")])  # outside a transaction: never committed
    assert _keys(tmp_path, known) == {"a.md": "1"}


def test_keys_read_after_another_process_wrote_survive_this_process_first_write(
    tmp_path: Path,
) -> None:
    _put(tmp_path, [("a.md", "1")])  # the last writer: another process
    known = KnownKeys()
    assert _keys(tmp_path, known) == {"a.md": "1"}  # read while the store is another's
    with open_store(tmp_path) as store:
        store.keep_keys(known)
        with store.transaction():
            store.put(CHECK, [("a.md", "k", b"")])  # this process's first write of records
    assert known.kinds[PAGE.name] == {"a.md": "1"}  # still known: nobody else wrote since
    _put(tmp_path, [("a.md", "2")])  # and when somebody does, they are not trusted
    assert _keys(tmp_path, known) == {"a.md": "2"}
