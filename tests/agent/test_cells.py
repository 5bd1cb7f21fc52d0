"""run_cells, in process: outputs and failures at their Markdown lines; a passing page's
result stored and reused."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.agent.cells import run_cells
from kbtool.agent.errors import Refused
from kbtool.agent.state import AgentWiki
from kbtool.config import load_config
from tests.agent.support import small_wiki
from tests.conftest import page_text

SETTINGS = '[tool.kbtool]\nignore = ["KB301", "KB303"]\npreload = []\ncell-timeout = 10\n'
CELLS = page_text(
    "# Cells\n\n```python\nx = 6 * 7\nprint('x is', x)\nx\n```\n\n"
    "```python\nassert x == 41, 'not 41'\n```\n"
)


def test_outputs_and_failures_at_their_lines(tmp_path: Path) -> None:
    root = small_wiki(tmp_path / "repo", {"pyproject.toml": SETTINGS, "wiki/cells.md": CELLS})
    wiki = AgentWiki(load_config(root))
    ran = run_cells(wiki, "wiki/cells.md")
    assert ran.status == "failed" and not ran.cached
    first, second = ran.cells
    assert (first.line, first.status, first.stdout, first.value) == (9, "passed", "x is 42\n", "42")
    assert (second.status, second.error_line) == ("failed", 15)
    assert "not 41" in (second.error or "")
    assert not run_cells(wiki, "wiki/cells.md").cached  # a failure runs again
    (root / "wiki/cells.md").write_text(CELLS.replace("41", "42"), encoding="utf-8")
    wiki.wrote(["wiki/cells.md"])
    assert run_cells(wiki, "wiki/cells.md").status == "passed"
    assert run_cells(wiki, "wiki/cells.md").cached  # a pass is stored, as kbtool test does
    with pytest.raises(Refused, match="no python cells"):
        run_cells(wiki, "wiki/concepts/attention.md")
