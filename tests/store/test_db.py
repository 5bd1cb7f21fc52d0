"""The store under .kbtool/, and parallel parsing: same pages, fewer parses."""

from __future__ import annotations

import pickle
import sqlite3
from pathlib import Path

import pytest

import kbtool.parse.page
import kbtool.stages.workers
from kbtool.checks import run_checks
from kbtool.config import load_config
from kbtool.stages.load import load_wiki
from kbtool.store import db as store_module
from kbtool.store.records import STAT, RecordKind


@pytest.fixture
def parses(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The paths parsed (in this process), in order."""
    calls: list[str] = []
    real = kbtool.parse.page.parse_page_tokens

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(kbtool.parse.page, "parse_page_tokens", counting)
    return calls


@pytest.fixture
def root(make_wiki, page) -> Path:
    return make_wiki(
        {
            "wiki/a.md": page("# A\n\n[b](b.md)\n", related=["b.md"]),
            "wiki/b.md": page("# B\n\n[x](missing.md)\n", related=["a.md"]),
            "sources/s.md": "# S\n",
        }
    )


def load(root: Path, **kwargs):  # type: ignore[no-untyped-def]
    return load_wiki(load_config(root), jobs=1, **kwargs)


def test_a_repeat_load_parses_nothing_and_gives_equal_pages(root: Path, parses: list[str]) -> None:
    first = load(root)
    assert sorted(parses) == ["sources/s.md", "wiki/a.md", "wiki/b.md"]
    assert (root / ".kbtool" / "store.sqlite").is_file()
    parses.clear()
    second = load(root)
    assert parses == []
    assert second.pages == first.pages
    assert run_checks(second) == run_checks(first)


def test_editing_a_page_reparses_only_that_page(root: Path, parses: list[str], page) -> None:
    load(root)
    parses.clear()
    (root / "wiki/b.md").write_text(page("# B\n\n[y](also-missing.md)\n", related=["a.md"]))
    wiki = load(root)
    assert parses == ["wiki/b.md"]
    assert [link.target for link in wiki.pages["wiki/b.md"].links][-1] == "also-missing.md"


def test_the_cache_is_by_content_not_by_time(root: Path, parses: list[str]) -> None:
    load(root)
    parses.clear()
    path = root / "wiki/a.md"
    path.write_bytes(path.read_bytes())  # a new mtime, the same bytes
    load(root)
    assert parses == []


def test_added_and_removed_pages(root: Path, parses: list[str], page) -> None:
    load(root)
    parses.clear()
    (root / "wiki/c.md").write_text(page("# C\n"))
    (root / "sources/s.md").unlink()
    wiki = load(root)
    assert parses == ["wiki/c.md"]
    assert sorted(wiki.pages) == ["wiki/a.md", "wiki/b.md", "wiki/c.md"]
    parses.clear()
    assert sorted(load(root).pages) == ["wiki/a.md", "wiki/b.md", "wiki/c.md"]
    assert parses == []


def test_a_changed_setting_parses_nothing_again(root: Path, parses: list[str]) -> None:
    # Parsing depends on a file's bytes and kind only; the checks (keyed by the settings) and
    # the rendered bodies (keyed by the language) are what a setting makes stale.
    load(root)
    parses.clear()
    (root / "pyproject.toml").write_text('[tool.kbtool]\ntypes = ["concept", "note"]\n')
    assert sorted(load(root).pages) == ["sources/s.md", "wiki/a.md", "wiki/b.md"]
    assert parses == []


def test_a_page_that_changes_kind_is_reparsed(make_wiki, page, parses: list[str]) -> None:
    # The same file read as a wiki page under one configuration and a source under another.
    root = make_wiki({"wiki/a.md": page(), "docs/a.md": "# D\n"})
    load(root)
    (root / "pyproject.toml").write_text('[tool.kbtool]\nwiki = "docs"\nsources = "wiki"\n')
    parses.clear()
    wiki = load(root)
    assert sorted(parses) == ["docs/a.md", "wiki/a.md"]
    assert wiki.pages["wiki/a.md"].kind == "source"


def _foreign_store(path: Path) -> None:
    for leftover in path.parent.glob(path.name + "*"):
        leftover.unlink()
    db = sqlite3.connect(path)
    db.execute("CREATE TABLE other (x)")
    db.commit()
    db.close()


def _newer_store(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("UPDATE meta SET value = '999' WHERE name = 'format'")
    db.commit()
    db.close()


def _damaged_record(path: Path) -> None:
    db = sqlite3.connect(path)
    db.execute("UPDATE records SET value = x'800563' WHERE kind = 'page'")
    db.commit()
    db.close()


@pytest.mark.parametrize(
    ("spoil", "set_aside"),
    [
        (lambda p: p.write_bytes(b""), False),  # an empty file is a new store
        (lambda p: p.write_bytes(b"\x00\x01garbage bytes \xff" * 100), True),
        (lambda p: p.write_bytes(b"SQLite format 3\x00" + b"\xff" * 200), True),  # damaged
        (_foreign_store, True),
        (_newer_store, True),
    ],
    ids=["empty", "garbage", "damaged", "foreign", "newer"],
)
def test_an_unusable_store_is_set_aside_and_rebuilt(
    root: Path, parses: list[str], spoil, set_aside: bool, capsys
) -> None:
    first = load(root)
    path = root / ".kbtool" / "store.sqlite"
    spoil(path)
    parses.clear()
    capsys.readouterr()
    again = load(root)  # never a crash
    notices = capsys.readouterr().err.strip().splitlines()
    assert again.pages == first.pages
    assert len(parses) == 3
    if set_aside:  # one line says so, and the old file is kept for a look
        assert len(notices) == 1 and "set aside" in notices[0]
        assert list((root / ".kbtool").glob("store.sqlite.unusable-*"))
    parses.clear()
    load(root)
    assert parses == []


def test_a_damaged_record_is_a_miss(root: Path, parses: list[str]) -> None:
    first = load(root)
    _damaged_record(root / ".kbtool" / "store.sqlite")
    parses.clear()
    assert load(root).pages == first.pages
    assert len(parses) == 3
    parses.clear()
    load(root)
    assert parses == []


def test_records_made_by_other_code_are_never_trusted(
    root: Path, parses: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    load(root)
    # Another kbtool version, or an edited module: every key holds the code's digest.
    monkeypatch.setattr(RecordKind, "code", property(lambda self: "other code"))
    parses.clear()
    load(root)
    assert len(parses) == 3


def test_two_processes_share_the_store(root: Path) -> None:
    # WAL mode: a reader (kbtool serve) and a writer (kbtool check) at the same time.
    config = load_config(root)
    with (
        store_module.open_store(config.cache_path) as one,
        store_module.open_store(config.cache_path) as two,
    ):
        with one.transaction():
            one.put(STAT, [("a", "k", b"1")])
        assert two.get(STAT, "a", "k") == b"1"
        with two.transaction():
            two.put(STAT, [("a", "k2", b"2")])
        assert one.get(STAT, "a", "k") is None
        assert one.get(STAT, "a", "k2") == b"2"


def test_an_unwritable_cache_is_not_fatal(root: Path, parses: list[str]) -> None:
    (root / ".kbtool").write_text("a file where the cache folder should be")
    assert sorted(load(root).pages) == ["sources/s.md", "wiki/a.md", "wiki/b.md"]
    assert sorted(load(root).pages) == ["sources/s.md", "wiki/a.md", "wiki/b.md"]
    assert len(parses) == 6  # nothing cached, nothing broken


def test_no_cache_parses_everything(root: Path, parses: list[str]) -> None:
    load(root)
    parses.clear()
    load(root, use_store=False)
    assert len(parses) == 3


def test_check_command_reuses_the_cache(root: Path, parses: list[str], run_kbtool) -> None:
    first = run_kbtool("-C", root, "check", "-j", "1")
    count = len(parses)
    second = run_kbtool("-C", root, "check", "-j", "1")
    assert len(parses) == count == 3
    assert first.lines[:-1] == second.lines[:-1] and first.code == second.code == 1
    run_kbtool("-C", root, "check", "-j", "1", "--no-cache")
    assert len(parses) == 6


# --- parallel parsing -----------------------------------------------------------------------------


def test_parallel_parsing_gives_the_same_pages_and_diagnostics(
    make_wiki, page, monkeypatch: pytest.MonkeyPatch
) -> None:
    # More pages than the threshold below which load_wiki parses in-process, including bad
    # ones, so that problems travel back from the worker processes too.
    files: dict[str, str | bytes] = {}
    for n in range(90):
        related = [f"p{(n + 1) % 90}.md", f"p{(n + 7) % 97}.md"]
        following = (n + 1) % 90
        body = f"# 页 {n}\n\n## 小节 {n}\n\n[next](p{following}.md#小节-{following}) [[p{n * 3}]]\n"
        files[f"wiki/p{n}.md"] = page(body, related=related)
    files["wiki/bad.md"] = "---\ntype: [\n---\n"
    files["wiki/gbk.md"] = "# 中文".encode("gbk")
    files["sources/s.md"] = "# S\n"
    root = make_wiki(files)
    config = load_config(root)
    one = load_wiki(config, jobs=1, use_store=False)
    pools: list[int] = []

    real_pool = kbtool.stages.workers.worker_pool

    def counting_pool(workers: int, *args):  # type: ignore[no-untyped-def]
        pools.append(workers)
        return real_pool(workers, *args)

    monkeypatch.setattr(kbtool.stages.workers, "worker_pool", counting_pool)
    two = load_wiki(config, jobs=2, use_store=False)
    assert pools == [2]  # the pages really were parsed by two worker processes
    assert two.pages == one.pages
    diagnostics = run_checks(one)
    assert run_checks(two) == diagnostics
    assert {"KB103", "KB001", "KB201", "KB209", "KB303"} <= {d.code for d in diagnostics}


class _Planted:
    """Unpickling this would call a function: a cache file planted in a cloned repository."""

    def __reduce__(self):  # noqa: ANN204
        return (Path.touch, (Path("PLANTED"),))


def test_a_planted_store_runs_no_code(root: Path, parses: list[str], monkeypatch) -> None:
    monkeypatch.chdir(root)
    load(root)
    db = sqlite3.connect(root / ".kbtool" / "store.sqlite")
    db.execute("UPDATE records SET value = ? WHERE kind = 'page'", (pickle.dumps(_Planted()),))
    db.commit()
    db.close()
    parses.clear()
    load(root)
    assert not (root / "PLANTED").exists()
    assert len(parses) == 3  # every planted record was refused and its page parsed again
