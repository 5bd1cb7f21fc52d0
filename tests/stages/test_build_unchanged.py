"""A repeat build with nothing changed stops before loading anything, and only then."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import kbtool.stages.pipeline as build_module
from tests.stages.test_build import build, page, write


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = build_module.load_pages

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(build_module, "load_pages", counting)
    return calls


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(
        root,
        {
            "wiki/a.md": page("# A\n\n![plot](plot.svg) [B](b.md)\n", related=["b.md"]),
            "wiki/b.md": page("# B\n\n[A](a.md)\n", related=["a.md"]),
            "wiki/plot.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>',
        },
    )
    (root / "pyproject.toml").write_text('[tool.kbtool]\nlanguage = "en"\n')
    return root


def test_a_repeat_build_loads_nothing_and_reports_the_site(repo: Path, loads: list[int]) -> None:
    first = build(repo)
    assert first.ok and first.published and len(loads) == 1
    second = build(repo)
    assert second.ok and not second.published and len(loads) == 1
    assert (second.pages, second.outputs) == (first.pages, first.outputs)


def test_an_edit_is_built(repo: Path, loads: list[int]) -> None:
    build(repo)
    (repo / "wiki/b.md").write_text((repo / "wiki/b.md").read_text() + "\nMore.\n")
    report = build(repo)
    assert report.published and report.rendered_outputs == ["page:wiki/b.md", "preview:wiki/b.md"]
    assert len(loads) == 2


def test_an_edited_copied_image_is_built(repo: Path, loads: list[int]) -> None:
    build(repo)
    svg = '<svg xmlns="http://www.w3.org/2000/svg" width="2"/>'
    (repo / "wiki/plot.svg").write_text(svg)
    assert build(repo).ok and len(loads) == 2
    assert svg in {p.read_text() for p in (repo / "site").rglob("*.svg")}


def test_a_file_deleted_from_the_site_is_built_again(repo: Path, loads: list[int]) -> None:
    build(repo)
    (repo / "site/wiki/b.html").unlink()
    assert build(repo).ok and len(loads) == 2
    assert (repo / "site/wiki/b.html").exists()


def test_clean_and_no_cache_always_build(repo: Path, loads: list[int]) -> None:
    build(repo)
    build(repo, full=True)
    build(repo, use_store=False)
    assert len(loads) == 3


def test_a_failed_build_is_not_remembered(repo: Path, loads: list[int]) -> None:
    build(repo)
    good = (repo / "wiki/b.md").read_text()
    (repo / "wiki/b.md").write_text(good + "\n[gone](gone.md)\n")
    assert not build(repo).ok
    (repo / "wiki/b.md").write_text(good)
    assert build(repo).ok and len(loads) == 3  # the memo of the good state was forgotten


def test_the_site_files_are_counted_as_os_walk_lists_them(tmp_path: Path) -> None:
    from kbtool.stages.unchanged import _count_files

    (tmp_path / "a" / "b").mkdir(parents=True)
    for name in ("x.html", "a/y.html", "a/b/z.js"):
        (tmp_path / name).write_text("")
    (tmp_path / "linked").symlink_to(tmp_path / "a")  # listed as a folder, not entered
    (tmp_path / "file-link").symlink_to(tmp_path / "x.html")
    walked = sum(len(files) for _, _, files in os.walk(tmp_path))
    assert _count_files(tmp_path) == walked == 4
    assert _count_files(tmp_path / "missing") == 0


@pytest.mark.parametrize("search", [True, False])
def test_after_a_session_published_an_edit_a_one_shot_build_finds_nothing_changed(
    repo: Path, loads: list[int], search: bool, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kbtool.config import config_from_table
    from kbtool.session import Session
    from kbtool.stages import unchanged
    from kbtool.stages.site import build_site

    settings = config_from_table(repo, {"language": "en", "search": search})
    session = Session(settings)
    assert session.build().published
    (repo / "wiki/b.md").write_text((repo / "wiki/b.md").read_text() + "\nMore.\n")
    session.scan()
    walked: list[Path] = []
    walk = unchanged._count_files
    monkeypatch.setattr(unchanged, "_count_files", lambda f: walked.append(f) or walk(f))
    assert session.build().published  # the site's files counted from its record and index
    assert walked == []
    monkeypatch.setattr(unchanged, "_count_files", walk)  # a one-shot build counts on the disk
    loaded = len(loads)
    report = build_site(settings, jobs=1)
    assert report.ok and not report.published and len(loads) == loaded
