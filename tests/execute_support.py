"""Helpers for the execution tests: a small repository of pages, and running it in-process."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from kbtool.config import load_config
from kbtool.execute import PageResult, run_pages
from kbtool.stages.load import load_wiki

CELL_FIXTURES = Path(__file__).parent / "fixtures" / "cells"

#: Limits small enough for tests to hit quickly; no preloading, so a worker starts in ~0.1 s.
FAST = {"preload": [], "cell-timeout": 10, "output-limit-kb": 64}


def toml_value(value: object) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return f'"{value}"'
    if isinstance(value, list):
        return "[" + ", ".join(toml_value(v) for v in value) + "]"
    return str(value)


def make_repo(root: Path, pages: dict[str, str], **settings: object) -> Path:
    """A repository at ``root``: ``pages`` ({path under wiki/: text}) and ``[tool.kbtool]``."""
    table = {**FAST, **settings}
    lines = ["[tool.kbtool]", *(f"{k} = {toml_value(v)}" for k, v in table.items())]
    root.mkdir(parents=True, exist_ok=True)
    (root / "pyproject.toml").write_text("\n".join(lines) + "\n", encoding="utf-8")
    (root / "wiki").mkdir(exist_ok=True)
    for name, text in pages.items():
        path = root / "wiki" / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def fixture_pages(folder: str) -> dict[str, str]:
    """The fixture pages of ``tests/fixtures/cells/<folder>/`` as {name: text}."""
    return {
        p.name: p.read_text(encoding="utf-8") for p in sorted((CELL_FIXTURES / folder).glob("*.md"))
    }


def run(root: Path, jobs: int = 2, use_store: bool = False) -> dict[str, PageResult]:
    """Run every page of the repository at ``root``; results by page path."""
    config = load_config(root)
    wiki = load_wiki(config, jobs=1, use_store=False)
    results = run_pages(config, wiki.pages.values(), jobs=jobs, use_store=use_store)
    return {result.path: result for result in results}


def line_of(root: Path, page: str, text: str) -> int:
    """The 1-based line of the first line of ``wiki/<page>`` that contains ``text``."""
    lines = (root / "wiki" / page).read_text(encoding="utf-8").splitlines()
    return next(number for number, line in enumerate(lines, start=1) if text in line)


def process_gone(pid: int) -> bool:
    """True if no such process runs (a zombie waiting for its parent counts as gone)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return True
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            return f.read().rsplit(b")", 1)[1].split()[0] == b"Z"
    except OSError:
        return True


def has_command(name: str) -> bool:
    return shutil.which(name) is not None
