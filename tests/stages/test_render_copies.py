"""Two workers copying one file into the staging folder at once (an image two pages show)
never trip over each other's temporary file."""

from __future__ import annotations

import multiprocessing
from pathlib import Path

from kbtool.stages.publish.staging import write_file, write_or_link
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


def test_a_file_the_live_site_holds_as_it_is_is_linked_and_another_written(
    tmp_path: Path,
) -> None:
    site, staging = tmp_path / "site", tmp_path / "staging"
    (site / "a").mkdir(parents=True)
    (staging / "a").mkdir(parents=True)
    (site / "a" / "same.md").write_text("# Same\n")
    (site / "a" / "other.html").write_text("<p>before</p>")
    write_or_link(site, staging, "a/same.md", b"# Same\n")
    write_or_link(site, staging, "a/other.html", "<p>after!</p>")
    write_or_link(site, staging, "a/new.html", "<p>new</p>")
    live = (site / "a" / "same.md").stat()
    assert (staging / "a" / "same.md").stat().st_ino == live.st_ino
    assert (staging / "a" / "other.html").read_text() == "<p>after!</p>"
    assert (site / "a" / "other.html").read_text() == "<p>before</p>"  # never through it
    assert (staging / "a" / "new.html").read_text() == "<p>new</p>"
    # A file staging holds already (a spare's) is replaced, not kept.
    (site / "a" / "other.html").write_text("<p>after!</p>")
    (staging / "a" / "other.html").write_text("<p>stale</p>")
    write_or_link(site, staging, "a/other.html", "<p>after!</p>")
    assert (staging / "a" / "other.html").read_text() == "<p>after!</p>"


def test_a_link_in_the_live_site_is_not_carried_into_the_new_one(tmp_path: Path) -> None:
    site, staging, elsewhere = tmp_path / "site", tmp_path / "staging", tmp_path / "elsewhere"
    for folder in (site, staging, elsewhere):
        folder.mkdir()
    (elsewhere / "page.html").write_text("<p>same</p>")
    (site / "page.html").symlink_to(elsewhere / "page.html")
    write_or_link(site, staging, "page.html", "<p>same</p>")
    written = staging / "page.html"
    assert not written.is_symlink() and written.read_text() == "<p>same</p>"
    assert written.stat().st_ino != (elsewhere / "page.html").stat().st_ino
