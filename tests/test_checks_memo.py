"""A repeat `kbtool check` reuses the whole result only while nothing it depends on changed."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

import kbtool.load
import kbtool.memo


@pytest.fixture
def root(make_wiki, page) -> Path:
    return make_wiki(
        {
            "wiki/a.md": page("# A\n\n[b](b.md) ![fig](fig.png)\n", related=["b.md"]),
            "wiki/b.md": page("# B\n\n[a](a.md)\n", related=["a.md"]),
        }
    )


@pytest.fixture
def loads(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """How many times the page model was loaded (the memo's miss path)."""
    calls: list[int] = []
    real = kbtool.load.load_wiki

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(kbtool.load, "load_wiki", counting)  # imported at call time
    return calls


def test_repeat_check_loads_no_page(root: Path, loads: list[int], run_kbtool) -> None:
    first = run_kbtool("-C", root, "check")
    second = run_kbtool("-C", root, "check")
    assert len(loads) == 1
    assert first.lines[:-1] == second.lines[:-1] and first.code == second.code == 1
    assert any("KB207" in line and "fig.png" in line for line in second.lines)


def test_filters_apply_to_a_remembered_result(root: Path, loads: list[int], run_kbtool) -> None:
    run_kbtool("-C", root, "check")
    assert run_kbtool("-C", root, "check", "--ignore", "KB207").code == 0
    assert run_kbtool("-C", root, "check", root / "wiki/b.md").code == 0
    assert len(loads) == 1


def test_editing_a_page_invalidates(root: Path, loads: list[int], run_kbtool) -> None:
    run_kbtool("-C", root, "check")
    (root / "wiki/a.md").write_text((root / "wiki/a.md").read_text() + "\n[gone](gone.md)\n")
    result = run_kbtool("-C", root, "check")
    assert len(loads) == 2 and any("gone.md" in line for line in result.lines)


def test_a_file_appearing_on_disk_invalidates(root: Path, loads: list[int], run_kbtool) -> None:
    """fig.png is no page: only the disk says whether the link to it is broken."""
    assert run_kbtool("-C", root, "check").code == 1
    (root / "wiki/fig.png").write_bytes(b"\x89PNG")
    assert run_kbtool("-C", root, "check").code == 0
    assert len(loads) == 2


def test_a_new_day_invalidates(root: Path, loads: list[int], run_kbtool, monkeypatch) -> None:
    run_kbtool("-C", root, "check")
    real = kbtool.memo.memo_key
    monkeypatch.setattr(
        "kbtool.commands.check.memo_key",
        lambda config, content, today: real(config, content, today.replace(year=today.year + 1)),
    )
    run_kbtool("-C", root, "check")
    assert len(loads) == 2


@pytest.mark.parametrize("garbage", ["not json", "[]", '{"key": 1}', '{"key": null, "stats": 3}'])
def test_a_corrupt_memo_is_recomputed(root: Path, loads, run_kbtool, garbage: str) -> None:
    first = run_kbtool("-C", root, "check")
    (root / ".kbtool" / "check.json").write_text(garbage)
    again = run_kbtool("-C", root, "check")
    assert again.lines[:-1] == first.lines[:-1] and len(loads) == 2
    assert json.loads((root / ".kbtool" / "check.json").read_text())["payload"]["diagnostics"]


def test_no_cache_recomputes(root: Path, loads: list[int], run_kbtool) -> None:
    run_kbtool("-C", root, "check")
    run_kbtool("-C", root, "check", "--no-cache")
    assert len(loads) == 2


@pytest.mark.parametrize("payload", [{}, {"diagnostics": 3}, {"diagnostics": [[1, 2]]}])
def test_a_memo_with_a_foreign_payload_is_recomputed(
    root: Path, loads, run_kbtool, payload
) -> None:
    first = run_kbtool("-C", root, "check")
    memo = root / ".kbtool" / "check.json"
    data = json.loads(memo.read_text())
    memo.write_text(json.dumps({**data, "payload": payload}))
    assert run_kbtool("-C", root, "check").lines[:-1] == first.lines[:-1]
    assert len(loads) == 2
