"""Serve's builds stage into the former site kept as a spare: the site they publish is the one
a new staging folder gives, and a spare is used only while it is what it was kept as."""

from __future__ import annotations

import os
import random
import shutil
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.reuse.values import WHOLE
from kbtool.session import Session
from kbtool.stages.publish.published import Published, Spare
from kbtool.stages.publish.spare import clear_changed, identity, mostly_outdated
from kbtool.stages.publish.staging import Staging, remove_stale_staging, staging_prefix
from kbtool.stages.publish.stored_spare import FOLDER
from kbtool.stages.reused import SITE_RECORD, SPARE
from kbtool.stages.site import build_site
from tests.stages.test_build_incremental import RandomWiki, assert_same, build, clean_build


def _serving(tmp_path: Path) -> tuple[RandomWiki, Path, Session]:
    wiki = RandomWiki(random.Random(3))
    live = tmp_path / "live"
    live.mkdir()
    wiki.write(live)
    kept = Session(load_config(live))
    assert build(live, kept)
    return wiki, live, kept


def _replace(folder: Path) -> None:
    """``folder`` replaced by a copy of itself: the same files, another folder."""
    copy = folder.with_name(folder.name + "-copy")
    shutil.copytree(folder, copy)
    shutil.rmtree(folder)
    copy.rename(folder)


def _spare(session: Session) -> Spare | None:
    """The former site the session holds as its next staging folder."""
    return session.reuse.get(SPARE, WHOLE, str(session.config.site_path))


def _edit_and_build(wiki: RandomWiki, live: Path, kept: Session, kind: str = "body") -> None:
    headings = wiki.pages[wiki.wiki_paths()[0]]["headings"]
    headings.append(f"More, {kind}")  # type: ignore[attr-defined]
    wiki.write(live)
    assert build(live, kept)


def _edits_build_as_clean(
    wiki: RandomWiki, live: Path, kept: Session, tmp_path: Path, history: list[str], edits: int
) -> None:
    """Random edits, each built by the session, the site equal to a clean build's."""
    for _ in range(edits):
        history.append(wiki.edit())
        wiki.write(live)
        if build(live, kept):
            assert_same(live, clean_build(wiki, tmp_path / "clean")[1], history)


def test_the_two_folders_take_turns(tmp_path: Path) -> None:
    wiki, live, kept = _serving(tmp_path)
    _edit_and_build(wiki, live, kept, "one")
    assert _spare(kept) is not None
    site_before, spare_before = identity(live / "site"), identity(_spare(kept).folder)
    _edit_and_build(wiki, live, kept, "two")
    assert _spare(kept) is not None
    assert identity(live / "site") == spare_before  # the spare, brought up to date
    assert identity(_spare(kept).folder) == site_before
    assert_same(live, clean_build(wiki, tmp_path / "clean")[1], ["two edits"])


def test_pages_removed_and_added_leave_no_file_behind(tmp_path: Path) -> None:
    wiki, live, kept = _serving(tmp_path)
    history = []
    for _ in range(8):
        history.append(wiki.edit())
        wiki.write(live)
        if build(live, kept):
            ok, clean = clean_build(wiki, tmp_path / "clean")
            assert ok
            assert_same(live, clean, history)
    assert _spare(kept) is not None


def test_a_spare_another_build_removed_is_not_used(tmp_path: Path) -> None:
    wiki, live, kept = _serving(tmp_path)
    _edit_and_build(wiki, live, kept, "one")
    assert _spare(kept) is not None and _spare(kept).folder.is_dir()
    remove_stale_staging(live / "site")  # as a `kbtool build` in another process does
    assert not _spare(kept).folder.exists()
    _edit_and_build(wiki, live, kept, "two")
    assert_same(live, clean_build(wiki, tmp_path / "clean")[1], ["removed spare"])


def test_a_spare_of_a_site_since_replaced_is_not_used(tmp_path: Path) -> None:
    wiki, live, kept = _serving(tmp_path)
    _edit_and_build(wiki, live, kept, "one")
    assert _spare(kept) is not None
    spare = _spare(kept).folder
    (spare / "stray.html").write_text("not of this site")  # it would show if it were used
    _replace(live / "site")  # another site, as another process would publish
    _edit_and_build(wiki, live, kept, "two")
    assert not (live / "site" / "stray.html").exists()
    assert not spare.exists()
    assert_same(live, clean_build(wiki, tmp_path / "clean")[1], ["replaced site"])


def test_a_build_outside_a_session_keeps_no_spare(tmp_path: Path) -> None:
    wiki, live, _ = _serving(tmp_path)
    _edit_and_build(wiki, live, Session(load_config(live)), "one")
    wiki.pages[wiki.wiki_paths()[0]]["headings"] = ["Another"]
    wiki.write(live)
    assert build(live)  # `kbtool build`
    assert list(live.glob(staging_prefix(live / "site") + "*")) == []


def test_a_process_whose_first_build_had_nothing_to_do_links_a_spare_ahead(
    tmp_path: Path,
) -> None:
    from kbtool.stages.pipeline import keep_warm

    wiki, live, _ = _serving(tmp_path)
    kept = Session(load_config(live))
    assert build(live, kept)  # nothing changed: no site swapped, no spare
    assert _spare(kept) is None
    assert kept.disk is not None
    keep_warm(kept.config, kept.reuse, kept.disk)
    assert _spare(kept) is not None
    linked = identity(_spare(kept).folder)
    _edit_and_build(wiki, live, kept, "one")
    assert identity(live / "site") == linked  # the spare, brought up to date
    _edits_build_as_clean(wiki, live, kept, tmp_path, ["one"], 6)


def test_after_a_build_that_rendered_most_of_the_site_a_spare_is_linked_ahead(
    tmp_path: Path,
) -> None:
    from kbtool.stages.pipeline import keep_warm

    wiki, live, _ = _serving(tmp_path)
    settings = live / "pyproject.toml"
    settings.write_text(
        settings.read_text().replace("[tool.kbtool]", '[tool.kbtool]\nsite-title = "New"')
    )
    kept = Session(load_config(live))
    report = kept.build()  # every page shows the new title: all rendered again
    assert report.published and 2 * report.rendered > report.outputs
    former = _spare(kept)
    published = kept.reuse.get(SITE_RECORD, WHOLE, str(kept.config.site_path))
    assert former is not None and published and mostly_outdated(former, published)
    assert kept.disk is not None
    keep_warm(kept.config, kept.reuse, kept.disk)
    linked = _spare(kept)
    assert linked is not None and linked.folder != former.folder
    assert not former.folder.exists()
    assert not mostly_outdated(linked, linked.outputs)
    _edits_build_as_clean(wiki, live, kept, tmp_path, ["full"], 4)


def test_no_spare_is_linked_from_a_site_that_lost_a_file(tmp_path: Path) -> None:
    from kbtool.stages.pipeline import keep_warm

    _, live, _ = _serving(tmp_path)
    kept = Session(load_config(live))
    assert build(live, kept)
    next(p for p in (live / "site").rglob("*.html")).unlink()
    assert kept.disk is not None
    keep_warm(kept.config, kept.reuse, kept.disk)
    assert _spare(kept) is None
    assert list(live.glob(staging_prefix(live / "site") + "*")) == []


# One-shot builds: the former site waits in the cache folder for the next build.


def _one_shot(tmp_path: Path) -> tuple[RandomWiki, Path]:
    wiki = RandomWiki(random.Random(5))
    live = tmp_path / "live"
    live.mkdir()
    wiki.write(live)
    assert build(live)
    return wiki, live


def _edit_one_shot(wiki: RandomWiki, live: Path, kind: str) -> None:
    headings = wiki.pages[wiki.wiki_paths()[0]]["headings"]
    headings.append(f"More, {kind}")  # type: ignore[attr-defined]
    wiki.write(live)
    assert build(live)


def test_a_one_shot_build_keeps_the_former_site_in_the_cache_folder(tmp_path: Path) -> None:
    wiki, live = _one_shot(tmp_path)
    stored = live / ".kbtool" / FOLDER
    history = []
    for number in range(5):
        history.append(wiki.edit())
        wiki.write(live)
        if build(live):
            assert stored.is_dir() or number == 0, history
            assert_same(live, clean_build(wiki, tmp_path / "clean")[1], history)
    assert list(live.glob(staging_prefix(live / "site") + "*")) == []


def test_the_next_one_shot_build_links_only_what_changed(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    wiki, live = _one_shot(tmp_path)
    _edit_one_shot(wiki, live, "one")  # keeps the former site
    linked = []
    real_link = os.link

    def counting(source: str, target: str, **kwargs: bool) -> None:
        linked.append(target)
        real_link(source, target, **kwargs)

    monkeypatch.setattr(os, "link", counting)
    _edit_one_shot(wiki, live, "two")
    files = sum(1 for p in (live / "site").rglob("*") if p.is_file())
    assert len(linked) < files / 4, (len(linked), files)
    assert_same(live, clean_build(wiki, tmp_path / "clean")[1], ["two edits"])


def test_a_stored_spare_of_a_site_since_replaced_is_not_used(tmp_path: Path) -> None:
    wiki, live = _one_shot(tmp_path)
    _edit_one_shot(wiki, live, "one")
    stored = live / ".kbtool" / FOLDER
    (stored / "stray.html").write_text("not of this site")  # it would show if it were used
    _replace(live / "site")  # another site, as another tool would publish
    _edit_one_shot(wiki, live, "two")
    assert not (live / "site" / "stray.html").exists()
    assert_same(live, clean_build(wiki, tmp_path / "clean")[1], ["replaced site"])


def test_a_stored_spare_replaced_by_hand_is_not_used(tmp_path: Path) -> None:
    wiki, live = _one_shot(tmp_path)
    _edit_one_shot(wiki, live, "one")
    stored = live / ".kbtool" / FOLDER
    _replace(stored)
    (stored / "stray.html").write_text("not of this site")
    _edit_one_shot(wiki, live, "two")
    assert not (live / "site" / "stray.html").exists()
    assert_same(live, clean_build(wiki, tmp_path / "clean")[1], ["replaced spare"])


def test_a_clean_build_removes_the_stored_spare(tmp_path: Path) -> None:
    wiki, live = _one_shot(tmp_path)
    _edit_one_shot(wiki, live, "one")
    stored = live / ".kbtool" / FOLDER
    (stored / "stray.html").write_text("not of this site")
    assert build_site(load_config(live), jobs=1, full=True).ok
    assert not (live / "site" / "stray.html").exists()
    assert_same(live, clean_build(wiki, tmp_path / "clean")[1], ["clean build"])


def test_a_stored_spare_of_a_site_rendered_anew_is_not_taken_ahead(tmp_path: Path) -> None:
    from kbtool.stages.pipeline import keep_warm

    wiki, live = _one_shot(tmp_path)
    settings = live / "pyproject.toml"
    title = '[tool.kbtool]\nsite-title = "New"'
    settings.write_text(settings.read_text().replace("[tool.kbtool]", title))
    assert build(live)  # every page rendered again: the former site kept lacks them all
    assert (live / ".kbtool" / FOLDER).is_dir()
    kept = Session(load_config(live))
    assert not kept.build().published  # up to date
    assert kept.disk is not None
    keep_warm(kept.config, kept.reuse, kept.disk)
    spare = _spare(kept)
    published = kept.reuse.get(SITE_RECORD, WHOLE, str(kept.config.site_path))
    assert spare is not None and published and spare.outputs == published  # linked anew
    assert not (live / ".kbtool" / FOLDER).exists()
    _edits_build_as_clean(wiki, live, kept, tmp_path, ["title"], 3)


def _spare_folder(root: Path) -> Staging:
    root.mkdir()
    for name in ("a.html", "b.html", "c.html", "fig.svg"):
        (root / name).write_text(name)
    held = {
        "a": Published("ka", ("a.html", "fig.svg")),
        "b": Published("kb", ("b.html", "fig.svg")),
        "c": Published("kc", ("c.html",)),
    }
    return Staging(root, held)


def test_a_spare_told_what_differs_clears_what_comparing_every_record_clears(
    tmp_path: Path,
) -> None:
    told, compared = _spare_folder(tmp_path / "told"), _spare_folder(tmp_path / "compared")
    live = dict(told.held) | {"b": Published("kb2", ("b.html", "fig.svg"))}
    assert clear_changed(told, live, {"a", "c"}, told=(live, frozenset({"b"}))) == 2
    assert clear_changed(compared, live, {"a", "c"}) == 2
    for staging in (told, compared):
        assert set(staging.held) == {"a", "c"}
        assert sorted(p.name for p in staging.folder.iterdir()) == ["a.html", "c.html", "fig.svg"]


def test_a_spare_told_of_another_record_compares_every_record(tmp_path: Path) -> None:
    staging = _spare_folder(tmp_path / "spare")
    told = dict(staging.held)
    live = told | {"c": Published("kc2", ("c.html",))}  # not the record the spare was told of
    assert clear_changed(staging, live, {"a", "b", "c"}, told=(told, frozenset())) == 2
    assert set(staging.held) == {"a", "b"} and not (staging.folder / "c.html").exists()


def test_a_session_spare_is_told_the_outputs_rendered_for_the_site_swapped_in(
    tmp_path: Path,
) -> None:
    wiki, live, kept = _serving(tmp_path)
    wiki.pages[wiki.wiki_paths()[0]]["headings"].append("More")  # type: ignore[attr-defined]
    wiki.write(live)
    kept.scan()
    report = kept.build()
    assert report.published
    spare = _spare(kept)
    published = kept.reuse.get(SITE_RECORD, WHOLE, str(kept.config.site_path))
    assert spare is not None and spare.told is not None and published is not None
    record, differs = spare.told
    assert record is published
    assert differs >= set(report.rendered_outputs)
    same = [name for name in spare.outputs if name not in differs]
    assert same and all(spare.outputs[name] is published[name] for name in same)
