"""Start-up imports only what the command runs: a check, repeated with nothing changed,
imports neither the rules, the renderer and its templates nor the cell runner."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from test_build import page, write

PROBE = """
import json, sys
from kbtool.cli import main
main(["-C", sys.argv[1], "check"])
print(json.dumps(sorted(sys.modules)))
"""


def imported_by_check(root: Path) -> set[str]:
    run = subprocess.run(
        [sys.executable, "-c", PROBE, str(root)], capture_output=True, text=True, check=False
    )
    return set(json.loads(run.stdout.splitlines()[-1]))


def test_a_check_imports_neither_the_renderer_nor_the_runner(tmp_path: Path) -> None:
    root = tmp_path / "repo"
    write(root, {"wiki/a.md": page("# A\n\n[B](b.md)\n"), "wiki/b.md": page("# B\n\n[A](a.md)\n")})
    first = imported_by_check(root)
    assert "markdown_it" in first  # the pages were parsed: the probe sees imports
    again = imported_by_check(root)
    heavy_modules = ("jinja2", "kbtool.render.templates", "kbtool.execute.runner", "markdown_it")
    for heavy in (*heavy_modules, "kbtool.stages.check", "kbtool.checks"):
        assert heavy not in again, heavy
