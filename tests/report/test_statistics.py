"""``--statistics`` for check and build, and the progress bar ``check`` shows on a terminal."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path

import pytest

from kbtool.codes import RULES


@pytest.fixture
def noisy_wiki(make_wiki, page) -> Path:
    files = {f"wiki/p{i}.md": page(related=["hub.md"]) for i in range(3)}
    files["wiki/hub.md"] = page(related=["p0.md", "gone.md"])
    return make_wiki(files)


def test_one_line_per_code_most_frequent_first(run_kbtool, noisy_wiki: Path) -> None:
    result = run_kbtool("-C", noisy_wiki, "check", "--statistics")
    *rows, summary = result.lines
    parsed = [re.match(r"^\s*(\d+)  (KB\d{3})  (error|warning)\s+(.+)$", row) for row in rows]
    assert all(parsed), rows
    counts = [(int(m[1]), m[2], m[3], m[4]) for m in parsed if m]
    # p1, p2 -> hub is one-way (2 x KB302); hub -> gone.md is missing (1 x KB201).
    assert [(n, code) for n, code, _, _ in counts] == [(2, "KB301"), (2, "KB302"), (1, "KB201")]
    assert all(meaning == RULES[code].summary for _, code, _, meaning in counts)
    assert counts[-1][2] == "error"
    assert summary.startswith("1 error, 4 warnings")
    assert result.code == 1


def test_counts_match_the_diagnostics(run_kbtool, noisy_wiki: Path) -> None:
    plain = run_kbtool("-C", noisy_wiki, "check").lines[:-1]
    stats = run_kbtool("-C", noisy_wiki, "check", "--statistics").lines[:-1]
    total = sum(int(row.split()[0]) for row in stats)
    assert total == len(plain)


def test_statistics_respect_the_configured_severities(run_kbtool, noisy_wiki: Path) -> None:
    (noisy_wiki / "pyproject.toml").write_text(
        '[tool.kbtool.severity]\nKB302 = "off"\nKB201 = "warning"\n', encoding="utf-8"
    )
    result = run_kbtool("-C", noisy_wiki, "check", "--statistics")
    codes = [row.split()[1] for row in result.lines[:-1]]
    assert "KB302" not in codes and result.code == 0
    assert [row.split()[2] for row in result.lines[:-1] if " KB201 " in row] == ["warning"]


def test_a_clean_wiki_prints_only_the_summary(run_kbtool, make_wiki, page) -> None:
    root = make_wiki({"wiki/a.md": page(related=["b.md"]), "wiki/b.md": page(related=["a.md"])})
    result = run_kbtool("-C", root, "check", "--statistics")
    assert len(result.lines) == 1 and result.lines[0].startswith("0 errors, 0 warnings")


def test_build_statistics(run_kbtool, noisy_wiki: Path) -> None:
    result = run_kbtool("-C", noisy_wiki, "build", "--statistics")
    assert result.code == 1
    assert any(re.match(r"^\s*1  KB201  error ", row) for row in result.lines)
    assert not any(row.startswith("wiki/") for row in result.lines)


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_on_a_terminal_only(
    run_kbtool, noisy_wiki: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    terminal = _Terminal()
    monkeypatch.setattr(sys, "stderr", terminal)
    run_kbtool("-C", noisy_wiki, "check", "--no-cache")
    shown = terminal.getvalue()
    assert "parsing" in shown and "4/4" in shown and "checking" in shown
    assert shown.endswith("\r\x1b[K")  # the bar clears its line before the report


def test_no_progress_bar_in_a_pipe(run_kbtool, noisy_wiki: Path) -> None:
    result = run_kbtool("-C", noisy_wiki, "check", "--no-cache")
    assert "parsing" not in result.err and "\r" not in result.err + result.out


def test_json_statistics_keep_the_diagnostics(run_kbtool, noisy_wiki: Path) -> None:
    result = run_kbtool("-C", noisy_wiki, "check", "--statistics", "--format", "json")
    report = json.loads(result.out)
    assert len(report["diagnostics"]) == 5
    assert [(row["code"], row["count"]) for row in report["statistics"]] == [
        ("KB301", 2),
        ("KB302", 2),
        ("KB201", 1),
    ]


@pytest.mark.parametrize("command", ["check", "build"])
def test_statistics_refuse_the_machine_formats(run_kbtool, noisy_wiki: Path, command: str) -> None:
    result = run_kbtool("-C", noisy_wiki, command, "--statistics", "--format", "sarif")
    assert result.code == 2 and "--statistics works with --format text or json" in result.err
    assert not (noisy_wiki / "site").exists()
