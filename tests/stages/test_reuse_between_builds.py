"""What a session reuses between builds of what it made of unchanged pages: the stand-ins,
the resolution indexes while no page's facts changed, the refs and record keys of site facts.
Reused, they are the very objects of the last build; made again when they would differ."""

from __future__ import annotations

from pathlib import Path

import pytest

import kbtool.stages.load
from kbtool.config import load_config
from kbtool.reuse.values import WHOLE, Reuse
from kbtool.stages import siteinfo
from kbtool.stages.check import check_wiki
from kbtool.stages.reused import CHECK_KEYS, DIAGNOSTICS, INFO_KEYS, OUTPUTS, REFS, SITE_STATE
from kbtool.stages.run import new_run
from kbtool.stages.site import build_site
from kbtool.stages.siteinfo import site_infos
from kbtool.store.db import open_store
from kbtool.store.records import PAGE

PYPROJECT = '[tool.kbtool]\nlanguage = "en"\nsearch = false\nseverity = { KB3 = "off" }\n'


def _page(title: str, text: str = "") -> str:
    return f"---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n# {title}\n\n{text}\n"


def _wiki(root: Path) -> None:
    (root / "wiki").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    for name in ("a", "b", "c"):
        (root / "wiki" / f"{name}.md").write_text(_page(f"Page {name}", "See [[Page b]]."))


def _check(root: Path, kept: Reuse):  # type: ignore[no-untyped-def]
    config = load_config(root)
    with open_store(config.cache_path) as store:
        return check_wiki(new_run(config, store, jobs=1, reuse=kept))


def test_stand_ins_and_indexes_are_kept_while_the_facts_are_the_same(tmp_path: Path) -> None:
    _wiki(tmp_path)
    kept = Reuse()
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    first = _check(tmp_path, kept)
    by_stem = first.wiki.paths_by_stem
    (tmp_path / "wiki" / "a.md").write_text(_page("Page a", "Other words."))
    second = _check(tmp_path, kept)
    assert second.wiki.pages["wiki/c.md"] is first.wiki.pages["wiki/c.md"]
    assert second.wiki._indexes.get("paths_by_stem") is by_stem
    (tmp_path / "wiki" / "a.md").write_text(_page("A new title"))
    third = _check(tmp_path, kept)
    assert "paths_by_stem" not in third.wiki._indexes  # made again, from the pages as they are
    assert third.wiki.pages["wiki/c.md"] is first.wiki.pages["wiki/c.md"]
    assert [p.title for p in third.wiki.by_title["a new title"]] == ["A new title"]


def test_site_facts_refs_and_keys_are_kept_for_unchanged_pages(tmp_path: Path) -> None:
    _wiki(tmp_path)
    kept = Reuse()
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    (tmp_path / "wiki" / "b.md").write_text(_page("Page b", "Other words."))
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok  # not a cold one
    refs = {path: ref for path, (_, ref) in kept.held(REFS).items()}
    keys = {path: key for path, (_, key) in kept.held(INFO_KEYS).items()}
    (tmp_path / "wiki" / "a.md").write_text(_page("A new title"))
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    assert kept.held(REFS)["wiki/c.md"][1] is refs["wiki/c.md"]
    assert kept.held(REFS)["wiki/a.md"][1].title == "A new title"
    assert kept.held(INFO_KEYS)["wiki/c.md"][1] is keys["wiki/c.md"]
    assert kept.held(INFO_KEYS)["wiki/a.md"][1] != keys["wiki/a.md"]


def test_check_keys_are_kept_for_unchanged_files(tmp_path: Path) -> None:
    _wiki(tmp_path)
    kept = Reuse()
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    keys = kept.held(CHECK_KEYS)
    (tmp_path / "wiki" / "a.md").write_text(_page("Page a", "Other words."))
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    assert kept.held(CHECK_KEYS)["wiki/c.md"][1] is keys["wiki/c.md"][1]
    assert kept.held(CHECK_KEYS)["wiki/a.md"][1] != keys["wiki/a.md"][1]
    (tmp_path / "wiki" / "c.md").unlink()
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    assert "wiki/c.md" not in kept.held(CHECK_KEYS)


def test_page_outputs_are_kept_while_what_their_key_is_made_of_is_the_same(
    tmp_path: Path,
) -> None:
    _wiki(tmp_path)
    (tmp_path / "wiki" / "d.md").write_text(_page("Page d", "Alone."))
    kept = Reuse()
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    planned = {path: item for path, (_, (item, _)) in kept.held(OUTPUTS).items()}
    (tmp_path / "wiki" / "a.md").write_text(_page("A new title"))
    report = build_site(load_config(tmp_path), jobs=1, reuse=kept)
    assert report.ok
    assert kept.held(OUTPUTS)["wiki/d.md"][1][0] is planned["wiki/d.md"]
    # c, which links b as a did, showed a among its similar pages: its key changed too.
    assert kept.held(OUTPUTS)["wiki/c.md"][1][0].key != planned["wiki/c.md"].key
    assert kept.held(OUTPUTS)["wiki/a.md"][1][0].key != planned["wiki/a.md"].key
    # b.md shows a.md's new title (its wikilink): its PageInfo, so its key, changed too.
    assert kept.held(OUTPUTS)["wiki/b.md"][1][0].key != planned["wiki/b.md"].key
    assert "page:wiki/b.md" in report.rendered_outputs


def test_diagnostics_kept_are_dropped_when_another_process_checked_again(tmp_path: Path) -> None:
    _wiki(tmp_path)
    (tmp_path / "wiki" / "d.md").write_text(_page("Page d", "See [c](c.md)."))
    kept = Reuse()
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    (tmp_path / "wiki" / "a.md").write_text(_page("Page a", "Other words."))
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok  # d's diagnostics kept
    assert "wiki/d.md" in kept.held(DIAGNOSTICS)
    (tmp_path / "wiki" / "c.md").unlink()
    report = build_site(load_config(tmp_path), jobs=1)  # another process: d checked again
    assert any(d.path == "wiki/d.md" for d in report.diagnostics)
    (tmp_path / "wiki" / "b.md").write_text(_page("Page b", "More words."))
    # Serve, told only of b.md: d.md is not checked again, its record is another process's.
    found = build_site(load_config(tmp_path), jobs=1, reuse=kept).diagnostics
    assert [d.path for d in found if d.path == "wiki/d.md"] == ["wiki/d.md"]


def test_which_pages_are_stored_is_kept_while_the_store_is_the_sessions(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A page that no stage decodes is not asked about at every build of a session: that
    its records are stored is held while its file is the same and no other process wrote."""
    asked: list[list[str]] = []
    real = kbtool.stages.load._record_keys

    def record_keys(run, kind, names, files):  # type: ignore[no-untyped-def]
        if kind is PAGE:
            asked.append(sorted(names))
        return real(run, kind, names, files)

    monkeypatch.setattr(kbtool.stages.load, "_record_keys", record_keys)
    _wiki(tmp_path)
    for name in ("d", "e"):  # no stage decodes them after an edit of a.md
        (tmp_path / "wiki" / f"{name}.md").write_text(_page(f"Lone {name}", "No links."))
    assert build_site(load_config(tmp_path), jobs=1).ok  # cold, by another process
    kept = Reuse()  # a session that starts with every page stored
    for words in ("Other words.", "More words.", "Yet more words."):
        (tmp_path / "wiki" / "a.md").write_text(_page("Page a", words))
        assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    everyone = [f"wiki/{name}.md" for name in "abcde"]
    assert asked[1:] == [everyone, ["wiki/a.md"], ["wiki/a.md"]]  # b and c: decoded, held
    assert build_site(load_config(tmp_path), jobs=1, reuse=Reuse(), full=True).ok  # another
    (tmp_path / "wiki" / "a.md").write_text(_page("Page a", "Words again."))
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    assert asked[-1] == ["wiki/a.md", "wiki/d.md", "wiki/e.md"]  # asked again


def test_a_sessions_site_facts_are_patched_and_equal_those_made_from_the_records(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """After an edit, a session's site facts start from the build before's, patched: the
    listings are those a build from the records makes."""
    taken: list[int] = []
    real = siteinfo._patched

    def counted(*args):  # type: ignore[no-untyped-def]
        taken.append(1)
        return real(*args)

    monkeypatch.setattr(siteinfo, "_patched", counted)
    _wiki(tmp_path)
    for name in "defgh":  # an edit of one page in eight is patched
        (tmp_path / "wiki" / f"{name}.md").write_text(_page(f"Page {name}", "See [[Page a]]."))
    kept = Reuse()
    edits = [("a", _page("Page a", "New words.")), ("c", _page("Retitled c", "See [[Page b]]."))]
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    for name, text in edits:
        (tmp_path / "wiki" / f"{name}.md").write_text(text)
        assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    assert len(taken) == 2
    config = load_config(tmp_path)
    held = kept.get(SITE_STATE, WHOLE, (config.fingerprint(), kept.keys.forgotten))
    with open_store(config.cache_path) as store:  # another process: from the records
        run = new_run(config, store, jobs=1)
        checked = check_wiki(run)
        made = site_infos(run, checked.wiki, checked)
    assert held is not None and held.listings == made.listings
    assert held.listings["wiki/c.md"].card.ref.title == "Retitled c"
