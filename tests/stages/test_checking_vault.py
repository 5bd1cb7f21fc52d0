"""The incremental check of a vault (``wiki = "."``, links as Obsidian resolves them): notes
found by name anywhere, by the end of their path, headings by their text, sub-headings,
blocks, attachments by name. After random edits it gives what a cold check gives."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.reuse.values import Reuse
from kbtool.stages.load import load_wiki
from tests.stages.test_checking import cold, incremental, patched  # noqa: F401 (a fixture)

FOLDERS = ["", "A/", "B/", "A/Deep/"]
NAMES = ["Note", "Other", "Third", "注意"]
HEADINGS = ["Intro", "Part: one", "Notes"]
BLOCKS = ["blk", "q-1"]
SETTINGS = 'wiki = "."\nflavor = "obsidian"\n[severity]\nKB101 = "off"\nKB301 = "off"\n'


def _link(rng: random.Random) -> str:
    name = rng.choice(NAMES)
    folder = rng.choice(FOLDERS).rstrip("/")
    path = f"{folder.rsplit('/', 1)[-1]}/{name}" if folder and rng.random() < 0.4 else name
    anchor = rng.choice(
        ["", "", f"#{rng.choice(HEADINGS).replace(':', '')}", "#Part one#Sub", "#Intro#Sub"]
        + [f"#^{rng.choice(BLOCKS)}", "#Nothing"]
    )
    kind = rng.random()
    if kind < 0.55:
        return f"[[{path}{anchor}]]"
    if kind < 0.7:
        return f"[x]({path.replace(' ', '%20')}.md{anchor.replace(' ', '%20')})"
    if kind < 0.85:
        return f"![[{rng.choice(['pic.png', 'doc.pdf'])}]]"
    return f"[[#{rng.choice(HEADINGS)}]]"


def _note(rng: random.Random) -> str:
    parts = [f"# {rng.choice(NAMES)}"]
    for heading in rng.sample(HEADINGS, rng.randint(0, 3)):
        parts.append(f"## {heading}")
        if rng.random() < 0.5:
            parts.append("### Sub")
    parts += [f"Text. ^{rng.choice(BLOCKS)}"] if rng.random() < 0.5 else []
    parts.append(" ".join(_link(rng) for _ in range(rng.randint(1, 5))))
    return "\n\n".join(parts) + "\n"


def _edit(rng: random.Random, root: Path) -> None:
    notes = sorted(str(p.relative_to(root)) for p in root.rglob("*.md") if ".kbtool" not in str(p))
    action = rng.choice(["add", "remove", "move", "rewrite", "rewrite", "file", "file"])
    place = f"{rng.choice(FOLDERS)}{rng.choice(NAMES)}.md"
    if action == "add" or not notes:
        (root / place).parent.mkdir(parents=True, exist_ok=True)
        (root / place).write_text(_note(rng), encoding="utf-8")
    elif action == "remove" and len(notes) > 1:
        (root / rng.choice(notes)).unlink()
    elif action == "move":
        (root / place).parent.mkdir(parents=True, exist_ok=True)
        shutil.move(root / rng.choice(notes), root / place)
    elif action == "file":
        # Attachments appear where Obsidian puts new ones (app.json) and go from anywhere.
        present = sorted(root.rglob("*.p[nd][gf]"))
        if present and rng.random() < 0.5:
            rng.choice(present).unlink()
        else:
            (root / "Files" / rng.choice(["pic.png", "doc.pdf"])).write_bytes(b"%")
    else:
        (root / rng.choice(notes)).write_text(_note(rng), encoding="utf-8")


@pytest.mark.parametrize("held", [False, True], ids=["one-shot", "session"])
@pytest.mark.parametrize("seed", range(8))
def test_random_vault_edits_give_what_a_cold_check_gives(
    tmp_path: Path,
    seed: int,
    held: bool,
    patched: list[int],  # noqa: F811
) -> None:
    kept = Reuse() if held else None
    rng = random.Random(seed)
    root = tmp_path / "repo"
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "app.json").write_text('{"attachmentFolderPath": "Files"}')
    (root / "Files").mkdir()
    for folder in ("A", "B"):  # two alike, deeper: ambiguous until one is nearer
        (root / folder / "Files").mkdir(parents=True)
        (root / folder / "Files" / "pic.png").write_bytes(b"%")
    (root / "kbtool.toml").write_text(SETTINGS)
    for folder in FOLDERS:
        (root / folder).mkdir(parents=True, exist_ok=True)
        (root / folder / f"{rng.choice(NAMES)}.md").write_text(_note(rng), encoding="utf-8")
    assert load_wiki(load_config(root), jobs=1, use_store=False).obsidian  # a vault's rules
    seen: set[str] = set()
    for step in range(15):
        _edit(rng, root)
        found, _ = incremental(root, kept=kept)
        assert found == cold(root), f"seed {seed}, step {step}"
        seen |= {d.code for d in found}
    assert {"KB208", "KB209"} <= seen  # the rules under test really fired
    assert bool(patched) == held


@pytest.mark.parametrize("held", [False, True], ids=["one-shot", "session"])
def test_an_attachment_where_obsidian_puts_new_ones_is_seen(
    tmp_path: Path,
    held: bool,
    patched: list[int],  # noqa: F811
) -> None:
    """Two alike at one depth are ambiguous; a third where new attachments go (app.json),
    nearer the root, is the one Obsidian opens: the check sees it come and go."""
    kept = Reuse() if held else None
    root = tmp_path / "repo"
    (root / ".obsidian").mkdir(parents=True)
    (root / ".obsidian" / "app.json").write_text('{"attachmentFolderPath": "Files"}')
    (root / "kbtool.toml").write_text(SETTINGS)
    (root / "Files").mkdir()
    for folder in ("A", "B"):
        (root / folder / "Files").mkdir(parents=True)
        (root / folder / "Files" / "pic.png").write_bytes(b"%")
    (root / "Note.md").write_text("# Note\n\n![[pic.png]] ![[new.png]]\n")
    codes = [d.code for d in incremental(root, kept=kept)[0]]
    assert codes == ["KB211", "KB209"]
    (root / "Files" / "pic.png").write_bytes(b"%")
    found, rechecked = incremental(root, kept=kept)
    assert [d.code for d in found] == ["KB209"] and rechecked == 1
    (root / "Files" / "new.png").write_bytes(b"%")
    assert incremental(root, kept=kept)[0] == cold(root) == []
    (root / "Files" / "pic.png").unlink()
    assert [d.code for d in incremental(root, kept=kept)[0]] == ["KB211"]
