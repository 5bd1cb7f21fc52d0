"""The code digests a store keeps: recalled under the same files' stamp, made again otherwise."""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtool.store import code
from kbtool.store.db import open_store

MODULE = "kbtool.parse.page"
FILES_STAMP = code.files_stamp  # the real one, which some tests replace


@pytest.fixture
def fresh_process(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """This process as if just started: no digest known, no stamp taken."""
    _restart(monkeypatch)
    FILES_STAMP.cache_clear()
    yield
    code.code_digest.cache_clear()
    FILES_STAMP.cache_clear()


def _restart(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(code, "_recalled", {})
    monkeypatch.setattr(code, "_made", {})
    code.code_digest.cache_clear()


def _made_and_kept(folder: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """The digest of MODULE made by a process whose files' stamp is "stamp-1", with a store in
    ``folder`` open (which keeps it)."""
    monkeypatch.setattr(code, "files_stamp", lambda: "stamp-1")
    with open_store(folder):
        return code.code_digest(MODULE)


def _kept(cache: Path) -> str | None:
    db = sqlite3.connect(cache / "store.sqlite")
    try:
        row = db.execute("SELECT value FROM meta WHERE name = 'code'").fetchone()
        return None if row is None else str(row[0])
    finally:
        db.close()


def test_a_digest_made_once_is_recalled_by_the_next_process(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_process: None
) -> None:
    made = _made_and_kept(tmp_path, monkeypatch)
    assert code.made_here() is False  # what it made is kept
    _restart(monkeypatch)
    with open_store(tmp_path):
        assert code.code_digest(MODULE) == made
        assert code._made == {}  # recalled, not read from the files again


def test_another_stamp_makes_the_digest_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_process: None
) -> None:
    made = _made_and_kept(tmp_path, monkeypatch)
    _restart(monkeypatch)
    monkeypatch.setattr(code, "files_stamp", lambda: "stamp-2")  # a file of the package changed
    with open_store(tmp_path):
        assert code.code_digest(MODULE) == made  # same files here, so the same digest...
        assert MODULE in code._made  # ...made from them, not recalled
    assert '"stamp-2"' in (_kept(tmp_path) or "")


def test_nothing_is_kept_while_a_file_of_the_package_just_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_process: None
) -> None:
    monkeypatch.setattr(code, "files_stamp", lambda: None)
    with open_store(tmp_path):
        code.code_digest(MODULE)
    assert _kept(tmp_path) is None


def test_the_stamp_changes_with_a_file_and_waits_for_a_settled_one(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_process: None
) -> None:
    package = tmp_path / "pkg"
    (package / "sub").mkdir(parents=True)
    module = package / "sub" / "m.py"
    module.write_text("x = 1\n")
    monkeypatch.setattr(code, "PACKAGE", package)
    assert code.files_stamp() is None  # written just now: its next change may keep its stat
    code.files_stamp.cache_clear()
    monkeypatch.setattr(code, "_SETTLED_NS", 0)
    before = code.files_stamp()
    code.files_stamp.cache_clear()
    module.write_text("x = 22\n")
    after = code.files_stamp()
    assert before is not None and after not in (None, before)
    # Rewritten in place, the same size, its mtime put back (`rsync --inplace` keeps it):
    # only the ctime says so.
    mtime = module.stat().st_mtime_ns
    module.write_text("x = 33\n")
    os.utime(module, ns=(mtime, mtime))
    code.files_stamp.cache_clear()
    assert code.files_stamp() not in (None, after)


@pytest.mark.parametrize("kept", ["not json", "{}", "[1]", '{"stamp": "stamp-1", "digests": 3}'])
def test_a_damaged_record_of_digests_is_made_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, fresh_process: None, kept: str
) -> None:
    made = _made_and_kept(tmp_path, monkeypatch)
    db = sqlite3.connect(tmp_path / "store.sqlite")
    with db:
        db.execute("UPDATE meta SET value = ? WHERE name = 'code'", (kept,))
    db.close()
    _restart(monkeypatch)
    with open_store(tmp_path) as store:
        assert store.path is not None  # the file, not a store in memory
        assert code.code_digest(MODULE) == made and MODULE in code._made
