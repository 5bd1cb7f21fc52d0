"""A build parses each page once: the body is rendered from the parse's own tokens, and the
assembly of a page reads neither its file nor markdown-it again."""

from __future__ import annotations

from pathlib import Path

import pytest

import kbtool.parse.markdown
import kbtool.parse.page
import kbtool.store.db
from kbtool.reuse.values import Reuse
from kbtool.stages.pipeline import keep_warm
from kbtool.stages.reused import DIAGNOSTICS, LISTINGS, OUTPUTS, PAGE_FACTS, PAGES, SITE_RECORD
from kbtool.stages.scan import scan
from tests.stages.test_build import build, config, small_wiki, write


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, small_wiki())
    return root


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every markdown-it parse in this process, by the path being parsed when it ran."""
    calls: list[str] = []
    real_page, real_parse = kbtool.parse.page.parse_page_tokens, kbtool.parse.markdown.parse_body

    def page(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real_page(path, *args, **kwargs)

    def body(source, path, *args):  # type: ignore[no-untyped-def]
        calls.append(f"body:{path}")
        return real_parse(source, path, *args)

    monkeypatch.setattr(kbtool.parse.page, "parse_page_tokens", page)
    monkeypatch.setattr(kbtool.parse.page, "parse_body", body)
    return calls


def _records_read(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """Every record the store is asked for from now on, as ``kind:name``."""
    read: list[str] = []
    real = kbtool.store.db.Store.some

    def some(self, kind, names):  # type: ignore[no-untyped-def]
        names = list(names)
        read.extend(f"{kind.name}:{n}" for n in names)
        return real(self, kind, names)

    monkeypatch.setattr(kbtool.store.db.Store, "some", some)
    return read


def test_a_cold_build_parses_every_page_once(repo: Path, parses: list[str]) -> None:
    report = build(repo)
    assert report.published
    pages = sorted(small_wiki())
    assert sorted(p for p in parses if not p.startswith("body:")) == pages
    assert sorted(p for p in parses if p.startswith("body:")) == [f"body:{p}" for p in pages]
    html = (repo / "site/wiki/concepts/transformer.html").read_text()
    assert 'href="mamba.html#%E9%80%89%E6%8B%A9%E6%80%A7%E6%89%AB%E6%8F%8F"' in html
    assert "<math" in html


def test_an_edit_parses_that_page_only(repo: Path, parses: list[str]) -> None:
    build(repo)
    path = repo / "wiki/concepts/mamba.md"
    path.write_text(path.read_text().replace("# Mamba", "# Mamba SSM"))
    parses.clear()
    report = build(repo)
    assert report.published
    assert [p for p in parses if not p.startswith("body:")] == ["wiki/concepts/mamba.md"]
    # transformer.md shows Mamba's new title without being parsed again
    assert ">Mamba SSM</a>" in (repo / "site/wiki/concepts/transformer.html").read_text()


def test_kept_pages_read_nothing_of_unchanged_pages(
    repo: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    kept = Reuse()
    build(repo, reuse=kept)
    assert set(kept.held(PAGES)) == set(small_wiki())
    path = repo / "wiki/concepts/mamba.md"
    path.write_text(path.read_text() + "\nMore.\n")
    read = _records_read(monkeypatch)
    parses.clear()
    report = build(repo, reuse=kept)
    assert report.rendered_outputs == [
        "page:wiki/concepts/mamba.md",
        "preview:wiki/concepts/mamba.md",
    ]
    assert [p for p in parses if not p.startswith("body:")] == ["wiki/concepts/mamba.md"]
    assert all(name.endswith("mamba.md") for name in read)


def test_kept_warm_after_an_unchanged_build_the_first_edit_reads_only_that_page_and_its_links(
    repo: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    build(repo)
    kept = Reuse()
    assert not build(repo, reuse=kept).published  # up to date: nothing was read
    assert kept.held(PAGES) == {}
    keep_warm(config(repo), kept, scan(config(repo)))  # what serve does next, while it serves
    # What every build reads of every page; the pages themselves are read as builds need them.
    assert set(kept.held(LISTINGS)) == set(kept.held(PAGE_FACTS)) == set(small_wiki())
    assert kept.held(SITE_RECORD)
    # and what a build's check and plan make of them: nothing left for the first rebuild
    assert set(kept.held(DIAGNOSTICS)) == set(small_wiki())
    assert set(kept.held(OUTPUTS)) == set(small_wiki())
    path = repo / "wiki/concepts/mamba.md"
    path.write_text(path.read_text() + "\nMore.\n")
    read = _records_read(monkeypatch)
    report = build(repo, reuse=kept)
    assert report.rendered_outputs == [
        "page:wiki/concepts/mamba.md",
        "preview:wiki/concepts/mamba.md",
    ]
    # mamba.md and transformer.md link to each other: each shows the other's title
    read_pages = {name.split(":", 1)[1] for name in read}
    assert read_pages <= {"wiki/concepts/mamba.md", "wiki/concepts/transformer.md"}


def test_a_page_that_breaks_the_renderer_fails_alone(
    repo: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    import kbtool.render.markdown

    real = kbtool.render.markdown.render_body

    def breaking(page, tokens, t):  # type: ignore[no-untyped-def]
        if page.path.endswith("mamba.md"):
            raise RecursionError("maximum recursion depth exceeded")
        return real(page, tokens, t)

    monkeypatch.setattr(kbtool.render.markdown, "render_body", breaking)
    report = build(repo)
    assert not report.published  # an error: the site is not published
    [failed] = [d for d in report.diagnostics if d.code == "KB502"]
    assert failed.path == "wiki/concepts/mamba.md" and "RecursionError" in failed.message
    # every other page was rendered: only this one failed
    assert len({d.path for d in report.diagnostics if d.severity == "error"}) == 1


def test_a_page_that_breaks_its_assembly_fails_alone(
    repo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kbtool.stages import render as render_stage

    real = render_stage.render_page

    def breaking(site, path):  # type: ignore[no-untyped-def]
        if path.endswith("karpathy.md"):
            raise ValueError("bad template value")
        return real(site, path)

    monkeypatch.setattr(render_stage, "render_page", breaking)
    report = build(repo)
    assert not report.published
    assert [(d.path, d.code) for d in report.diagnostics if d.severity == "error"] == [
        ("wiki/entities/karpathy.md", "KB502")
    ]


def test_a_damaged_stored_body_is_rendered_again_from_its_file(repo: Path) -> None:
    import sqlite3

    build(repo)
    path = repo / "wiki/concepts/mamba.md"
    path.write_text(path.read_text().replace("# Mamba", "# Mamba SSM"))
    db = sqlite3.connect(repo / ".kbtool" / "store.sqlite")
    db.execute("UPDATE records SET value = x'7b' WHERE kind IN ('body', 'search')")
    db.commit()
    db.close()
    report = build(repo)  # transformer.md shows the new title: its body is needed again
    assert report.published and "page:wiki/concepts/transformer.md" in report.rendered_outputs
    html = (repo / "site/wiki/concepts/transformer.html").read_text()
    assert ">Mamba SSM</a>" in html and 'href="mamba.html' in html
