"""Each fixture vault's Obsidian constructs render as reviewed (``expected-fragments.json``
beside the vault): built from ``kbtool init --yes`` alone, each note's body holds each
expected HTML fragment as it is written there.

A fragment goes in the file only once it has been checked by eye against what Obsidian
shows; one that kbtool renders otherwise than Obsidian stays out until it is fixed.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from kbtool.cli import main

FIXTURES = Path(__file__).parent.parent / "fixtures"
VAULTS = sorted(p.name for p in FIXTURES.glob("vault-*"))
_BODY = re.compile(r'<div class="page-body">(.*?)\n  </div>\n  <footer', re.S)


def _fragments() -> list[tuple[str, str, str, str]]:
    """(vault, note, what, html) for every expected fragment."""
    found = []
    for vault in VAULTS:
        expected = json.loads((FIXTURES / vault / "expected-fragments.json").read_text("utf-8"))
        for note, fragments in expected.items():
            found += [(vault, note, f["what"], f["html"]) for f in fragments]
    return found


FRAGMENTS = _fragments()


@pytest.fixture(scope="module")
def sites(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Path]:
    """Each vault built from ``kbtool init --yes`` alone: vault -> its site folder."""
    built = {}
    for vault in VAULTS:
        root = tmp_path_factory.mktemp(vault) / vault
        shutil.copytree(FIXTURES / vault, root, ignore=shutil.ignore_patterns("expected-*"))
        assert main(["-C", str(root), "init", "--yes"]) == 0
        assert main(["-C", str(root), "build", "-j", "1"]) == 0
        built[vault] = root / "site"
    return built


def test_every_vault_has_its_expected_fragments() -> None:
    assert VAULTS and all((FIXTURES / v / "expected-fragments.json").is_file() for v in VAULTS)


@pytest.mark.parametrize(
    ("vault", "note", "what", "html"),
    FRAGMENTS,
    ids=[f"{vault}:{note}:{what}" for vault, note, what, _ in FRAGMENTS],
)
def test_a_construct_renders_as_reviewed(
    sites: dict[str, Path], vault: str, note: str, what: str, html: str
) -> None:
    output = sites[vault] / (note[: -len(".md")] + ".html")
    body = _BODY.search(output.read_text(encoding="utf-8"))
    assert body is not None, f"{output}: no page body"
    assert html in body.group(1), f"{note}: {what}: not rendered as\n{html}\nbody:\n{body.group(1)}"
