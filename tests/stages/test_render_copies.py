"""Two workers copying one file into the staging folder at once (an image two pages show)
never trip over each other's temporary file."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from kbtool.stages.publish.staging import write_file
from kbtool.stages.render import _copy


def _copy_often(source: Path, target: Path, times: int) -> None:
    for _ in range(times):
        _copy(source, target)
        write_file(target.parent, "figure.svg", b"<svg/>")


def test_two_workers_copy_one_file_at_once(tmp_path: Path) -> None:
    source = tmp_path / "picture.png"
    source.write_bytes(b"\x89PNG" + b"x" * 200_000)
    target = tmp_path / "staging" / "attachments" / "picture.png"
    context = multiprocessing.get_context("fork")
    workers = [context.Process(target=_copy_often, args=(source, target, 150)) for _ in range(2)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(60)
    assert [worker.exitcode for worker in workers] == [0, 0]
    assert target.read_bytes() == source.read_bytes()
    assert sorted(p.name for p in target.parent.iterdir()) == ["figure.svg", "picture.png"]


def test_a_copy_already_there_is_not_written_again_and_a_changed_source_is(
    tmp_path: Path,
) -> None:
    source = tmp_path / "picture.png"
    source.write_bytes(b"one")
    target = tmp_path / "staging" / "picture.png"
    _copy(source, target)
    written = target.stat().st_ino
    _copy(source, target)
    assert target.stat().st_ino == written  # not replaced
    source.write_bytes(b"three")
    _copy(source, target)
    assert target.read_bytes() == b"three"
