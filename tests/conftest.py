"""Shared, generic test fixtures: write a small wiki into ``tmp_path``, run kbtool in-process.

Kept small on purpose; a test module's own helpers live in that module.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import pytest

from kbtool.checks import run_checks
from kbtool.cli import main
from kbtool.config import load_config
from kbtool.diagnostics import Diagnostic
from kbtool.stages.load import load_wiki

# The browser tests' fixtures (browser, base, visit), for every module that asks for them.
pytest_plugins = ["tests._browser"]

FIXTURES = Path(__file__).parent / "fixtures"


def write_tree(root: Path, files: dict[str, str | bytes]) -> Path:
    """Write ``{relative path: text or bytes}`` under ``root``; text is written as UTF-8."""
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        if isinstance(content, bytes):
            path.write_bytes(content)
        else:
            path.write_bytes(content.encode("utf-8"))
    return root


@pytest.fixture
def make_wiki(tmp_path: Path) -> Callable[[dict[str, str | bytes]], Path]:
    """``make_wiki({"wiki/a.md": "...", ...})`` -> the repository root (``tmp_path/repo``)."""

    def make(files: dict[str, str | bytes]) -> Path:
        root = tmp_path / "repo"
        root.mkdir(exist_ok=True)
        return write_tree(root, files)

    return make


def page_text(body: str = "", **frontmatter: object) -> str:
    """A wiki page: valid required keys (override, or drop with None), lists as block lists.

    Lines: 1 ``---``, 2 ``type``, 3 ``summary``, 4 ``updated``, then the other keys in order.
    """
    keys: dict[str, object] = {"type": "concept", "summary": "一句话摘要", "updated": "2020-01-01"}
    keys.update(frontmatter)
    lines = ["---"]
    for key, value in keys.items():
        if value is None:
            continue
        if isinstance(value, list):
            lines.append(f"{key}:")
            lines += [f"  - {item}" for item in value]
        else:
            lines.append(f"{key}: {value}")
    lines.append("---")
    return "\n".join(lines) + "\n" + body


@pytest.fixture
def page() -> Callable[..., str]:
    """``page("# Body", related=["b.md"])`` -> the text of a valid wiki page."""
    return page_text


@pytest.fixture
def check_wiki() -> Callable[..., list[Diagnostic]]:
    """``check_wiki(root, select=["KB2"], today=date(...))`` -> the sorted diagnostics.

    Parses in this process (jobs=1), without reading a cache.
    """

    def check(
        root: Path,
        *,
        select: tuple[str, ...] | list[str] = (),
        ignore: tuple[str, ...] | list[str] = (),
        today: date | None = None,
    ) -> list[Diagnostic]:
        wiki = load_wiki(load_config(root), jobs=1, use_store=False)
        if today is not None:
            wiki.today = today
        return run_checks(wiki, select, ignore)

    return check


@dataclass
class Result:
    code: int
    out: str
    err: str

    @property
    def lines(self) -> list[str]:
        return self.out.splitlines()


@pytest.fixture
def run_kbtool(capsys: pytest.CaptureFixture[str]) -> Callable[..., Result]:
    """``run_kbtool("-C", root, "check")`` -> exit code and captured stdout / stderr."""

    def run(*args: object) -> Result:
        capsys.readouterr()  # drop anything printed before
        code = main([str(a) for a in args])
        out, err = capsys.readouterr()
        return Result(code, out, err)

    return run
