"""The result cache: keyed by what determines a result, never trusted when corrupt or foreign."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.execute import cached_result, runner
from kbtool.stages.load import load_wiki
from tests.execute_support import make_repo, run

PAGE = (
    "# A\n\nProse.\n\n```python\nx = 1\nprint('ran')\n```\n\n"
    '```python tags=["hide-input"]\nx + 1\n```\n'
)


@pytest.fixture
def no_worker(monkeypatch: pytest.MonkeyPatch) -> None:
    """Fail the test if a worker (an interpreter) is started."""

    def refuse(*args: object, **kwargs: object) -> None:
        raise AssertionError("a worker was started")

    monkeypatch.setattr(runner.subprocess, "Popen", refuse)


def cached_run(root: Path) -> dict[str, bool]:
    return {path: result.cached for path, result in run(root, use_store=True).items()}


def edit(root: Path, name: str, old: str, new: str) -> None:
    path = root / "wiki" / name
    path.write_text(path.read_text(encoding="utf-8").replace(old, new), encoding="utf-8")


def test_a_repeat_run_uses_the_cache_and_starts_no_interpreter(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path, {"a.md": PAGE})
    first = run(root, use_store=True)["wiki/a.md"]
    assert not first.cached
    monkeypatch.setattr(runner.subprocess, "Popen", None)  # any start would raise
    second = run(root, use_store=True)["wiki/a.md"]
    assert second.cached
    assert [c.stdout for c in second.cells] == ["ran\n", ""]
    assert second.cells[1].value == "2"


@pytest.mark.parametrize(
    ("old", "new"),
    [
        ("x = 1", "x = 2"),  # code
        ('tags=["hide-input"]', 'tags=["hide-output"]'),  # options
        ("Prose.", "Prose.\n\nMore prose above the cells moves their lines."),
    ],
)
def test_what_determines_a_result_invalidates_it(tmp_path: Path, old: str, new: str) -> None:
    root = make_repo(tmp_path, {"a.md": PAGE})
    run(root, use_store=True)
    edit(root, "a.md", old, new)
    assert cached_run(root) == {"wiki/a.md": False}
    assert cached_run(root) == {"wiki/a.md": True}


def test_prose_after_the_cells_does_not(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": PAGE})
    run(root, use_store=True)
    (root / "wiki" / "a.md").write_text(PAGE + "\nA closing paragraph.\n", encoding="utf-8")
    assert cached_run(root) == {"wiki/a.md": True}


def test_declared_inputs_are_part_of_the_key(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": "---\ninputs: [data/]\n---\n" + PAGE})
    (root / "wiki" / "data").mkdir()
    (root / "wiki" / "data" / "x.csv").write_text("1\n")
    run(root, use_store=True)
    assert cached_run(root) == {"wiki/a.md": True}
    (root / "wiki" / "data" / "x.csv").write_text("2\n")
    assert cached_run(root) == {"wiki/a.md": False}


def test_versions_and_limits_are_part_of_the_key(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = make_repo(tmp_path, {"a.md": PAGE})
    run(root, use_store=True)
    monkeypatch.setattr("kbtool.execute.cache.__version__", "999")
    assert cached_run(root) == {"wiki/a.md": False}
    monkeypatch.setattr("kbtool.execute.cache.sys.version", "3.99.0 (another build)")
    assert cached_run(root) == {"wiki/a.md": False}
    make_repo(root, {}, **{"memory-limit-mb": 2048})
    assert cached_run(root) == {"wiki/a.md": False}


def test_failures_are_not_cached(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": "```python\nassert False\n```\n"})
    run(root, use_store=True)
    assert cached_run(root) == {"wiki/a.md": False}
    assert _result_record(root) is None


def _result_record(root: Path) -> bytes | None:
    db = sqlite3.connect(root / ".kbtool" / "store.sqlite")
    rows = db.execute("SELECT value FROM records WHERE kind = 'result'").fetchall()
    db.close()
    return bytes(rows[0][0]) if rows else None


def _replace_result(root: Path, value: bytes) -> None:
    db = sqlite3.connect(root / ".kbtool" / "store.sqlite")
    db.execute("UPDATE records SET value = ? WHERE kind = 'result'", (value,))
    db.commit()
    db.close()


@pytest.mark.parametrize(
    "content",
    [
        b"",
        b"\x00\xff garbage",
        b"[1, 2]",
        b'{"format": "somebody-else/1"}',
        b'{"format": "kbtool-results/1"}',
    ],
)
def test_corrupt_or_foreign_records_are_ignored_and_rebuilt(tmp_path: Path, content: bytes) -> None:
    root = make_repo(tmp_path, {"a.md": PAGE})
    run(root, use_store=True)
    _replace_result(root, content)
    assert cached_run(root) == {"wiki/a.md": False}
    assert json.loads(_result_record(root) or b"")["format"] == "kbtool-results/1"
    assert cached_run(root) == {"wiki/a.md": True}


def test_a_result_with_a_wrong_shape_is_a_miss(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": PAGE})
    run(root, use_store=True)
    data = json.loads(_result_record(root) or b"")
    data["result"]["cells"] = [{"nonsense": True}]
    _replace_result(root, json.dumps(data).encode())
    assert cached_run(root) == {"wiki/a.md": False}


def test_no_cache_runs_again_and_refreshes_the_cache(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": PAGE})
    run(root, use_store=True)
    assert not run(root, use_store=False)["wiki/a.md"].cached
    assert cached_run(root) == {"wiki/a.md": True}


def test_cached_result_reads_without_running(tmp_path: Path, no_worker: None) -> None:
    root = make_repo(
        tmp_path, {"a.md": PAGE, "off.md": "---\nexecute: false\n---\n" + PAGE, "none.md": "# A\n"}
    )
    config = load_config(root)
    pages = load_wiki(config, jobs=1, use_store=False).pages
    assert cached_result(config, pages["wiki/a.md"]) is None
    assert cached_result(config, pages["wiki/none.md"]) is None
    off = cached_result(config, pages["wiki/off.md"])
    assert off is not None and (off.status, off.reason) == ("not-run", "execute: false")


def test_cached_result_after_a_run(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": PAGE})
    run(root, use_store=True)
    config = load_config(root)
    page = load_wiki(config, jobs=1, use_store=False).pages["wiki/a.md"]
    result = cached_result(config, page)
    assert result is not None and result.cached and result.status == "passed"
