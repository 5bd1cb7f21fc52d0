"""A repeat ``kbtool check`` with nothing changed answers from the last check's record without
checking a page, and checks again when a page, a linked file, the settings or the day changed."""

from __future__ import annotations

import datetime
from pathlib import Path

import pytest

import kbtool.checks
import kbtool.stages.check as check_module
from kbtool.cli import main
from tests.stages.test_build import page, write


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    calls: list[int] = []
    real = check_module.check_wiki

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        calls.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(check_module, "check_wiki", counting)
    return calls


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(
        root,
        {
            "wiki/a.md": page("# A\n\n![plot](plot.svg) [B](b.md)\n", related=["b.md"]),
            "wiki/b.md": page("# B\n\n[A](a.md) [gone](missing.md)\n", related=["a.md"]),
            "wiki/plot.svg": '<svg xmlns="http://www.w3.org/2000/svg"/>',
        },
    )
    (root / "pyproject.toml").write_text('[tool.kbtool]\nlanguage = "en"\n')
    return root


def check(root: Path, capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, list[str]]:
    capsys.readouterr()
    code = main(["-C", str(root), "check", *args])
    return code, capsys.readouterr().out.splitlines()[:-1]  # without the timed summary


def test_a_repeat_check_says_what_the_first_said_without_checking(
    repo: Path, checks: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    first = check(repo, capsys)
    assert first[0] == 1 and any("KB207" in line for line in first[1])
    assert check(repo, capsys) == first
    assert len(checks) == 1
    # --select and paths still narrow what the record holds
    _, only = check(repo, capsys, "--select", "KB207", "wiki/b.md")
    assert only and all("KB207" in line and line.startswith("wiki/b.md") for line in only)
    assert len(checks) == 1


def test_an_edit_is_checked(
    repo: Path, checks: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    check(repo, capsys)
    (repo / "wiki/b.md").write_text(page("# B\n\n[A](a.md)\n", related=["a.md"]))
    code, lines = check(repo, capsys)
    assert code == 0 and not any("KB207" in line for line in lines) and len(checks) == 2


def test_a_linked_file_deleted_is_checked(
    repo: Path, checks: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    check(repo, capsys)
    (repo / "wiki/plot.svg").unlink()  # no page changed; the link from a.md now leads nowhere
    _, lines = check(repo, capsys)
    assert any(line.startswith("wiki/a.md") and "KB207" in line for line in lines)
    assert len(checks) == 2


def test_new_settings_and_a_new_day_are_checked(
    repo: Path,
    checks: list[int],
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    check(repo, capsys)
    (repo / "pyproject.toml").write_text(
        '[tool.kbtool]\nlanguage = "en"\nseverity = { KB207 = "off" }\n'
    )
    code, lines = check(repo, capsys)
    assert code == 0 and not any("KB207" in line for line in lines) and len(checks) == 2

    import kbtool.stages.run as run_module

    tomorrow = datetime.date.today() + datetime.timedelta(days=1)

    class Tomorrow(datetime.date):
        @classmethod
        def today(cls) -> datetime.date:
            return tomorrow

    monkeypatch.setattr(run_module, "date", Tomorrow)
    check(repo, capsys)
    assert len(checks) == 3


def test_no_cache_always_checks(
    repo: Path, checks: list[int], capsys: pytest.CaptureFixture[str]
) -> None:
    check(repo, capsys)
    check(repo, capsys, "--no-cache")
    assert len(checks) == 2


def test_an_edit_that_changes_no_link_takes_the_graph_rules_findings_from_the_store(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    runs: list[int] = []
    real = kbtool.checks.graph_rule_diagnostics

    def counting(*args, **kwargs):  # type: ignore[no-untyped-def]
        runs.append(1)
        return real(*args, **kwargs)

    monkeypatch.setattr(kbtool.checks, "graph_rule_diagnostics", counting)
    root = tmp_path / "repo"
    write(
        root,
        {
            "wiki/a.md": page("# A\n\n[B](b.md)\n", related=["b.md"]),
            "wiki/b.md": page("# B\n\n[A](a.md)\n"),
        },
    )
    (root / "pyproject.toml").write_text('[tool.kbtool]\nlanguage = "en"\n')
    _, first = check(root, capsys)
    assert any("KB302" in line for line in first) and len(runs) == 1
    (root / "wiki/a.md").write_text(page("# A\n\nMore words. [B](b.md)\n", related=["b.md"]))
    _, second = check(root, capsys)
    assert [ln for ln in second if "KB302" in ln] == [ln for ln in first if "KB302" in ln]
    assert len(runs) == 1  # the link table is as it was: its findings are the stored ones
    (root / "wiki/b.md").write_text(page("# B\n\n[A](a.md)\n", related=["a.md"]))
    _, third = check(root, capsys)
    assert not any("KB302" in line for line in third) and len(runs) == 2
