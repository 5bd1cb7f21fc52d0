"""The key of each page's HTML, a query on the engine: a session's build keys again exactly
the pages whose reads changed (the file, what the page shows of others, its similar pages as
it shows them), and every key equals the one a new process makes."""

from __future__ import annotations

from pathlib import Path

from kbtool.config import load_config
from kbtool.reuse.values import Reuse
from kbtool.stages.page_outputs import PAGE_KEYS
from kbtool.stages.reused import OUTPUTS
from kbtool.stages.site import build_site

PYPROJECT = '[tool.kbtool]\nlanguage = "en"\nsearch = false\nseverity = { KB3 = "off" }\n'


def _page(title: str, text: str = "") -> str:
    return f"---\ntype: concept\nsummary: s\nupdated: 2020-01-01\n---\n# {title}\n\n{text}\n"


def _build(root: Path, kept: Reuse, full: bool = False) -> dict[str, tuple[str, str]]:
    """A build with ``kept``; what the engine holds as each page's keys."""
    assert build_site(load_config(root), jobs=1, reuse=kept, full=full).ok
    return {path: trace.value for path, trace in kept.engine.traces[PAGE_KEYS.name].items()}


def _wiki(root: Path) -> None:
    (root / "wiki").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT)
    (root / "wiki" / "a.md").write_text(_page("Page a", "See [b](b.md)."))
    (root / "wiki" / "b.md").write_text(_page("Page b", "Alone."))
    (root / "wiki" / "c.md").write_text(_page("Page c", "See [b](b.md)."))
    (root / "wiki" / "d.md").write_text(_page("Page d", "Alone too."))


def test_a_session_keys_again_only_the_pages_whose_reads_changed(tmp_path: Path) -> None:
    _wiki(tmp_path)
    kept = Reuse()
    before = _build(tmp_path, kept)
    assert kept.engine.made[PAGE_KEYS.name] == 4
    (tmp_path / "wiki" / "d.md").write_text(_page("Page d", "Other words."))
    after = _build(tmp_path, kept)
    assert kept.engine.made[PAGE_KEYS.name] == 5  # d alone
    assert {p for p in after if after[p] != before[p]} == {"wiki/d.md"}


def test_a_new_title_keys_again_the_pages_that_show_it(tmp_path: Path) -> None:
    _wiki(tmp_path)
    kept = Reuse()
    before = _build(tmp_path, kept)
    (tmp_path / "wiki" / "b.md").write_text(_page("Page b renamed", "Alone."))
    after = _build(tmp_path, kept)
    # a and c link b: what they show of it (its title) changed; d shows nothing of b.
    assert {p for p in after if after[p] != before[p]} >= {"wiki/a.md", "wiki/b.md", "wiki/c.md"}
    assert after["wiki/d.md"] == before["wiki/d.md"]


def _output_keys(root: Path, reuse: Reuse, full: bool = False) -> dict[str, tuple[str, str]]:
    """A build with ``reuse``; the output keys of each page's HTML and preview."""
    assert build_site(load_config(root), jobs=1, reuse=reuse, full=full).ok
    return {path: (a.key, b.key) for path, (_, (a, b)) in reuse.held(OUTPUTS).items()}


def test_a_session_keys_pages_as_a_one_shot_build_does(tmp_path: Path) -> None:
    """The session through the engine, the one-shot build over the values as given."""
    _wiki(tmp_path)
    kept = Reuse()
    _output_keys(tmp_path, kept)
    for name, text in (("a", "See [c](c.md)."), ("b", "Now [d](d.md)."), ("e", "New.")):
        (tmp_path / "wiki" / f"{name}.md").write_text(_page(f"Page {name}*", text))
        session = _output_keys(tmp_path, kept)
        assert session == _output_keys(tmp_path, Reuse(one_run=True), full=True)
        assert len(session) == len(list((tmp_path / "wiki").glob("*.md")))


def test_a_session_builds_a_wiki_without_pages_and_then_with_one(tmp_path: Path) -> None:
    (tmp_path / "wiki").mkdir()
    (tmp_path / "pyproject.toml").write_text(PYPROJECT)
    kept = Reuse()
    assert build_site(load_config(tmp_path), jobs=1, reuse=kept).ok
    (tmp_path / "wiki" / "a.md").write_text(_page("Page a"))
    assert set(_build(tmp_path, kept)) == {"wiki/a.md"}
