"""The scan trusts a file's stat: a file whose size, mtime, inode and ctime are the ones
recorded with its digest is not read again, unless the record is racy (written too close to
the file's last change to tell a later write from it); bytes a stage asks of such a file are
read then, and a file that changed since the scan makes the build scan again."""

from __future__ import annotations

import gc
import os
import time
import weakref
from pathlib import Path

import pytest

import kbtool.stages.scan as scan_module
from kbtool.cli import main
from kbtool.stages.file_stats import FILENAME
from kbtool.stages.scan import ChangedSinceScan, Snapshot, scan
from kbtool.store.db import FILENAME as STORE
from tests.stages.test_build import build, config, page, write

PAGES = {
    "wiki/a.md": page("# A\n\nFirst words. [B](b.md)\n"),
    "wiki/b.md": page("# B\n\nSecond words. [A](a.md)\n"),
}


def _age(root: Path, seconds: float = 60) -> None:
    """Every file made older than the racy window (as if written a while ago)."""
    then = time.time() - seconds
    for path in (root / "wiki").rglob("*.md"):
        os.utime(path, (then, then))


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, PAGES)
    _age(root)
    return root


def test_a_second_scan_reads_no_file_whose_stat_is_unchanged(repo: Path) -> None:
    first = scan(config(repo))
    assert set(first.hashed) == set(PAGES)  # nothing recorded yet: every file hashed
    second = scan(config(repo))
    assert second.hashed == set()
    assert second.files == first.files
    assert second.data("wiki/a.md") == (repo / "wiki/a.md").read_bytes()  # read when asked


def test_a_file_changed_within_the_racy_window_is_hashed_again(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, PAGES)  # just written: a write in the same tick would leave the same stat
    scan(config(root))
    assert set(scan(config(root)).hashed) == set(PAGES)
    _age(root)  # its stat changes (so it is hashed once more), and it is no longer racy
    scan(config(root))
    assert scan(config(root)).hashed == set()


def test_an_edit_that_keeps_size_and_mtime_is_seen(repo: Path) -> None:
    before = scan(config(repo)).digests()["wiki/a.md"]
    path = repo / "wiki/a.md"
    stat = path.stat()
    text = path.read_text().replace("First", "Fir5t")  # the same size
    path.write_text(text)
    os.utime(path, ns=(stat.st_atime_ns, stat.st_mtime_ns))  # as editors and tools may
    after = scan(config(repo))
    assert after.digests()["wiki/a.md"] != before
    assert after.data("wiki/a.md") == text.encode()


def test_a_damaged_record_hashes_every_file(repo: Path) -> None:
    scan(config(repo))
    (repo / ".kbtool" / FILENAME).write_bytes(b"kbtool file stats 2 x\nwiki/a.md\0")
    again = scan(config(repo))
    assert set(again.hashed) == set(PAGES)
    (repo / ".kbtool" / FILENAME).write_bytes(b"\xff\xfe not ours")
    assert set(scan(config(repo)).hashed) == set(PAGES)


def test_without_trust_every_file_is_hashed(repo: Path) -> None:
    scan(config(repo))
    assert set(scan(config(repo), trust=False).hashed) == set(PAGES)


def test_bytes_asked_after_a_change_are_refused(repo: Path) -> None:
    scan(config(repo))
    trusted = scan(config(repo))
    (repo / "wiki/b.md").write_text(page("# B\n\nChanged since.\n"))
    with pytest.raises(ChangedSinceScan):
        trusted.data("wiki/b.md")
    (repo / "wiki/a.md").unlink()
    with pytest.raises(ChangedSinceScan):
        trusted.data("wiki/a.md")


def test_a_reader_reads_as_the_snapshot_does_without_holding_it(repo: Path) -> None:
    """A session keeps a reader for each page no check has read yet: not the snapshot (one
    per keystroke) it came from."""
    snapshot = scan(config(repo))
    read_a, read_b = snapshot.reader("wiki/a.md"), snapshot.reader("wiki/b.md")
    held = weakref.ref(snapshot)
    del snapshot
    gc.collect()
    assert held() is None
    assert read_a() == (repo / "wiki/a.md").read_bytes()
    (repo / "wiki/b.md").write_text(page("# B\n\nChanged since.\n"))
    with pytest.raises(ChangedSinceScan):
        read_b()


def test_a_build_scans_again_when_a_trusted_file_changed_before_it_was_read(
    repo: Path,
) -> None:
    assert build(repo).ok
    trusted = scan(config(repo))
    assert trusted.hashed == set()
    # The records are gone (every page must be parsed from its bytes), and a page changes
    # after the scan trusted it.
    (repo / ".kbtool" / STORE).unlink()
    (repo / "wiki/b.md").write_text(page("# B\n\nWritten after the scan.\n"))
    report = build(repo, snapshot=trusted)
    assert report.ok
    html = next((repo / "site").rglob("b.html")).read_text()
    assert "Written after the scan." in html


def test_files_that_keep_changing_stop_the_command_with_one_line(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    scans: list[int] = []
    real_scan = scan_module.scan

    def counting_scan(*args, **kwargs):  # type: ignore[no-untyped-def]
        scans.append(1)
        return real_scan(*args, **kwargs)

    def always_changed(self: Snapshot, path: str) -> bytes:
        raise ChangedSinceScan(path)

    monkeypatch.setattr(scan_module, "scan", counting_scan)
    monkeypatch.setattr(Snapshot, "data", always_changed)
    assert main(["-C", str(repo), "build"]) == 1
    err = capsys.readouterr().err
    assert "kept changing while it was read" in err and "Traceback" not in err
    assert len(scans) == scan_module.ATTEMPTS  # the first, and one for each start again
    assert not (repo / "site").exists()
