"""Start-up imports only what the command runs: a check or a build, repeated with nothing
changed, imports neither the rules, the renderer and its templates, the search index nor the
cell runner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from tests.stages.test_build import page, write

PROBE = """
import json, sys
from kbtool.cli import main
main(["-C", sys.argv[1], sys.argv[2]])
print(json.dumps(sorted(sys.modules)))
"""
HEAVY = ("jinja2", "kbtool.render.templates", "kbtool.execute.runner", "markdown_it")


def imported_by(root: Path, command: str = "check") -> set[str]:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(root), command],
        capture_output=True,
        text=True,
        check=False,
    )
    return set(json.loads(run.stdout.splitlines()[-1]))


def test_a_check_imports_neither_the_renderer_nor_the_runner(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {"wiki/a.md": page("# A\n\n[B](b.md)\n"), "wiki/b.md": page("# B\n\n[A](a.md)\n")})
    first = imported_by(root)
    assert "markdown_it" in first  # the pages were parsed: the probe sees imports
    again = imported_by(root)
    for heavy in (*HEAVY, "kbtool.stages.check", "kbtool.checks"):
        assert heavy not in again, heavy


def test_a_build_with_nothing_changed_imports_none_of_the_stages_after_the_scan(
    tmp_path: Path,
) -> None:
    root = tmp_path / "repo"
    write(root, {"wiki/a.md": page("# A\n\n[B](b.md)\n"), "wiki/b.md": page("# B\n\n[A](a.md)\n")})
    first = imported_by(root, "build")
    assert "jinja2" in first and (root / "site").is_dir()
    again = imported_by(root, "build")
    for heavy in (*HEAVY, "kbtool.stages.pipeline", "kbtool.search.index", "kbtool.checks"):
        assert heavy not in again, heavy


def test_a_build_after_a_text_edit_does_not_import_networkx(tmp_path: Path) -> None:
    """The graph's communities are stored under its links: an edit that changes no link
    reuses them, and networkx (a fifth of a second to import) is left alone."""
    root = tmp_path / "repo"
    write(root, {"wiki/a.md": page("# A\n\n[B](b.md)\n"), "wiki/b.md": page("# B\n\n[A](a.md)\n")})
    assert "networkx" in imported_by(root, "build")
    write(root, {"wiki/a.md": page("# A\n\nMore text. [B](b.md)\n")})
    assert "networkx" not in imported_by(root, "build")
