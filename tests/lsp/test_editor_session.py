"""The editor's session on random edit sequences: after each save, and with a page's unsaved
text open over its file, the language server's diagnostics are those a cold check of the
same text gives (the sequences of ``tests/stages/test_build_incremental.py``)."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from kbtool.checks import run_checks
from kbtool.config import load_config
from kbtool.diagnostics import Diagnostic
from kbtool.lsp.state import WikiState
from kbtool.stages.load import load_wiki
from tests.stages.test_build_incremental import PYPROJECT, RandomWiki

#: the sequences' settings, with the graph rules on: the editor reuses what they found
SETTINGS = PYPROJECT.replace('KB3 = "off"', 'KB3 = "warning"')


def _write(wiki: RandomWiki, root: Path) -> None:
    wiki.write(root)
    (root / "pyproject.toml").write_text(SETTINGS)


def _cold(root: Path) -> list[Diagnostic]:
    return run_checks(load_wiki(load_config(root), jobs=1, use_store=False))


def _reported(state: WikiState) -> list[Diagnostic]:
    return sorted(d for found in state.check().values() for d in found)


@pytest.mark.parametrize("seed", range(5))
def test_the_editor_sees_what_a_cold_check_sees(tmp_path: Path, seed: int) -> None:
    rng = random.Random(seed)
    wiki = RandomWiki(rng)
    live, scratch = tmp_path / "live", tmp_path / "scratch"
    live.mkdir()
    _write(wiki, live)
    state = WikiState.open(load_config(live))
    try:
        assert _reported(state) == sorted(_cold(live))
        history: list[str] = []
        for _ in range(10):
            history.append(wiki.edit())
            _write(wiki, live)
            state.rescan()  # a save, as the server does on didSave
            state.buffers.clear()
            assert _reported(state) == sorted(_cold(live)), history
            # an open page typed into and not saved: a new broken link, or a heading gone
            path = rng.choice(wiki.wiki_paths())
            text = wiki.text(path)
            typed = text + "\n[typo](missing-page.md)\n" if rng.random() < 0.5 else text
            typed = typed.replace("## Intro", "## Introduction")
            state.buffers[path] = typed.encode()
            if scratch.exists():
                shutil.rmtree(scratch)
            shutil.copytree(live, scratch, ignore=shutil.ignore_patterns(".kbtool", "site"))
            (scratch / path).write_text(typed, encoding="utf-8")
            history.append(f"typed into {path}")
            cold = [d for d in _cold(scratch)]
            assert _reported(state) == sorted(cold), history
    finally:
        state.close()
