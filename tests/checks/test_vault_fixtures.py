"""The fixture vaults (``tests/fixtures/vault-*``), written from Obsidian's documented rules
for links, a case per rule: ``kbtool init --yes`` at the vault's root, then ``kbtool check``
reports exactly the links Obsidian leaves unresolved (``expected-diagnostics.txt``), and
checks every note."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "fixtures"
VAULTS = sorted(p.name for p in FIXTURES.glob("vault-*"))


def _notes(root: Path) -> list[str]:
    """The notes Obsidian shows: every Markdown file outside hidden and template folders."""
    return sorted(
        str(p.relative_to(root))
        for p in root.rglob("*.md")
        if not any(part.startswith(".") for part in p.relative_to(root).parts)
        and p.relative_to(root).parts[0] not in ("Templates", "模板")
        and p.name != "expected-diagnostics.txt"
    )


def _files(root: Path) -> dict[str, bytes]:
    return {
        str(p.relative_to(root)): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".kbtool" not in p.relative_to(root).parts
    }


@pytest.mark.parametrize("name", VAULTS)
def test_init_then_check_reports_what_obsidian_leaves_unresolved(
    run_kbtool, tmp_path: Path, name: str
) -> None:
    root = tmp_path / name
    shutil.copytree(FIXTURES / name, root)
    expected = (root / "expected-diagnostics.txt").read_text(encoding="utf-8").splitlines()
    (root / "expected-diagnostics.txt").unlink()
    init = run_kbtool("-C", root, "init", "--yes")
    assert init.code == 0, init.err
    assert (root / "kbtool.toml").is_file()
    before = _files(root)
    check = run_kbtool("-C", root, "check")
    assert check.lines[:-1] == expected, check.out
    assert f"{len(_notes(root))} pages checked" in check.lines[-1]
    assert check.code == 0  # unresolved links are warnings in a vault
    assert _files(root) == before  # nothing of the vault written


def test_every_vault_has_its_expected_diagnostics() -> None:
    assert VAULTS and all((FIXTURES / v / "expected-diagnostics.txt").is_file() for v in VAULTS)
