"""What ``kbtool serve`` prints after a build: what the save changed, not the whole wiki."""

from __future__ import annotations

from pathlib import Path

from kbtool.diagnostics import Diagnostic
from kbtool.save_summary import SHOWN, Change, changed_files, counts, first_lines, save_lines


def warning(path: str, line: int, message: str = "broken") -> Diagnostic:
    return Diagnostic(path, line, 1, "KB207", "warning", message)


def error(path: str, line: int, message: str = "bad") -> Diagnostic:
    return Diagnostic(path, line, 1, "KB103", "error", message)


def test_a_diagnostic_that_only_moved_is_not_news() -> None:
    before = [warning("wiki/a.md", 3), warning("wiki/b.md", 9)]
    after = [warning("wiki/a.md", 4), warning("wiki/b.md", 9)]
    change = Change.between(before, after)
    assert change.new == [] and change.gone == []


def test_new_and_gone_are_told_apart_and_counted_as_many_times_as_they_occur() -> None:
    before = [warning("wiki/a.md", 3), warning("wiki/a.md", 5), warning("wiki/b.md", 1, "x")]
    after = [warning("wiki/a.md", 3), warning("wiki/c.md", 2)]
    change = Change.between(before, after)
    assert change.new == [warning("wiki/c.md", 2)]
    assert change.gone == [warning("wiki/a.md", 5), warning("wiki/b.md", 1, "x")]


def test_a_save_prints_one_line_then_only_what_it_changed() -> None:
    rest = [warning(f"wiki/p{i}.md", 1) for i in range(300)]
    new = warning("wiki/a.md", 7, "link to missing.md")
    lines = save_lines(rest, [*rest, new], "wiki/a.md", "published site/ in 0.20s")
    assert lines[0].startswith("wiki/a.md changed: published site/ in 0.20s;")
    assert "1 new, 0 gone, 300 as before (301 warnings in all)" in lines[0]
    assert lines[1:] == ["  + " + new.format()]


def test_a_fixed_diagnostic_is_named_briefly() -> None:
    old = warning("wiki/a.md", 7, "link to missing.md")
    lines = save_lines([old], [], "wiki/a.md", "published")
    assert "0 new, 1 gone, 0 as before" in lines[0]
    assert lines[1:] == ["  - gone: wiki/a.md:7: KB207 link to missing.md"]


def test_errors_that_stop_the_site_are_named_even_when_not_new() -> None:
    stuck = error("wiki/b.md", 2)
    lines = save_lines([stuck], [stuck, warning("wiki/a.md", 1)], "wiki/a.md", "not published")
    assert "  ! " + stuck.format() in lines
    assert "  + " + warning("wiki/a.md", 1).format() in lines


def test_many_new_diagnostics_are_cut_to_a_count() -> None:
    many = [warning(f"wiki/p{i:03}.md", 1) for i in range(SHOWN + 7)]
    lines = save_lines([], many, "3 files", "published")
    assert sum(line.startswith("  + ") for line in lines) == SHOWN
    assert lines[-1] == "  ... and 7 more new"


def test_the_first_build_shows_errors_in_full_and_counts_many_warnings() -> None:
    warnings = [warning(f"wiki/p{i}.md", 1) for i in range(SHOWN + 1)]
    bad = error("wiki/z.md", 4)
    lines = first_lines([*warnings, bad], "not published")
    assert lines[0] == bad.format()
    shown = f"1 error, {SHOWN + 1} warnings in the wiki ({SHOWN + 1} not shown"
    assert lines[1] == shown + ": `kbtool check` lists them)"
    assert lines[-1] == "not published"


def test_the_first_build_shows_a_few_diagnostics_in_full() -> None:
    few = [warning("wiki/a.md", 1), warning("wiki/b.md", 2)]
    assert first_lines(few, "published") == [d.format() for d in few] + ["published"]


def test_counts_and_changed_files_read_as_the_author_would_say_them(tmp_path: Path) -> None:
    assert counts([]) == "no diagnostics"
    assert counts([error("a", 1), warning("a", 1), warning("b", 1)]) == "1 error, 2 warnings"
    files = [str(tmp_path / "wiki" / name) for name in ("c.md", "a.md", "b.md")]
    assert changed_files(files[:1], tmp_path) == "wiki/c.md"
    assert changed_files(files, tmp_path) == "wiki/a.md, wiki/b.md and 1 more"
