"""Incremental equals clean, for a vault's site: random edits of notes in folders (added,
removed, moved between folders), a home note that comes and goes, links to notes not created
yet, tags in the frontmatter and in the text, types; after each, an incremental build of one
copy and a clean build of the same files elsewhere must give the same site byte for byte: the
front page, every folder's page, the page of notes not created yet, the navigation of every
note."""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.session import Session
from kbtool.stages.site import build_site
from tests.stages.test_build_incremental import _killed_build, assert_same, build, site_files

KBTOOL_TOML = """wiki = "."
flavor = "obsidian"
types = ["recipe", "person"]
required = []
language = "en"
search = false
execute = "opt-in"

[severity]
KB1 = "off"
KB2 = "warning"
KB3 = "off"
KB510 = "off"
"""
FOLDERS = ("", "Notes", "Notes/Deep", "Projects")
NAMES = ("Idea", "Plan", "Reading", "Garden", "Log", "Someday", "Trip")
TAGS = ("draft", "area/home", "area/work")


class RandomVault:
    """A small vault kept as data: each note's folder, type, tags and links by name."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.notes: dict[str, dict[str, object]] = {}
        self.counter = 0
        for _ in range(6):
            self.add()

    def add(self, path: str | None = None) -> None:
        self.counter += 1
        if path is None:
            folder = self.rng.choice(FOLDERS)
            name = f"{self.rng.choice(NAMES)} {self.counter}"
            path = f"{folder}/{name}.md" if folder else f"{name}.md"
        self.notes[path] = {
            "type": self.rng.choice(["", "", "recipe", "person"]),
            "tags": self.rng.sample(TAGS, self.rng.randint(0, 2)),
            "tags_as_text": self.rng.random() < 0.3,
            "inline_tags": [],
            "links": [],
        }

    def names(self) -> list[str]:
        return [p.rsplit("/", 1)[-1].removesuffix(".md") for p in self.notes]

    def text(self, path: str) -> str:
        note = self.notes[path]
        tags: list[str] = note["tags"]  # type: ignore[assignment]
        lines = ["---"]
        if note["type"]:
            lines.append(f"type: {note['type']}")
        if note["tags_as_text"] and tags:
            lines.append(f"tags: {tags[0]}")
        elif tags:
            lines.append(f"tags: [{', '.join(tags)}]")
        lines += ["---", f"# {path.removesuffix('.md')}", "", "Some text. ^para", ""]
        lines += [f"See [[{name}]]." for name in note["links"]]  # type: ignore[attr-defined]
        lines += [f"Also #{tag} here." for tag in note["inline_tags"]]  # type: ignore[attr-defined]
        return "\n".join(lines) + "\n"

    def edit(self) -> str:
        """One random edit; its name (for the failure message)."""
        rng = self.rng
        path = rng.choice(sorted(self.notes))
        note = self.notes[path]
        kind = rng.choice(
            [
                "add",
                "remove",
                "move",
                "home",
                "readme",
                "link",
                "missing",
                "unlink",
                "tags",
                "retype",
                "inline",
            ]  # fmt: skip
        )
        if kind == "add" or len(self.notes) < 3:
            self.add()
        elif kind == "remove":
            del self.notes[path]
        elif kind == "move":
            folder = rng.choice(FOLDERS)
            name = path.rsplit("/", 1)[-1]
            new = f"{folder}/{name}" if folder else name
            if new not in self.notes:
                self.notes[new] = self.notes.pop(path)
        elif kind in ("home", "readme"):  # Home.md is the front page before README.md
            name = "Home.md" if kind == "home" else "README.md"
            if name in self.notes:
                del self.notes[name]
            else:
                self.add(name)
        elif kind == "link":
            note["links"] = [*note["links"], rng.choice(self.names())]  # type: ignore[misc]
        elif kind == "missing":  # a note not created yet
            missing = f"{rng.choice(NAMES)} later {rng.randint(0, 3)}"
            note["links"] = [*note["links"], missing]  # type: ignore[misc]
        elif kind == "unlink" and note["links"]:
            note["links"] = note["links"][1:]  # type: ignore[index]
        elif kind == "tags":
            note["tags"] = rng.sample(TAGS, rng.randint(0, 2))
            note["tags_as_text"] = rng.random() < 0.5
        elif kind == "inline":  # tags in the text
            note["inline_tags"] = rng.sample(TAGS, rng.randint(0, 2))
        elif kind == "retype":
            note["type"] = rng.choice(["", "recipe", "person"])
        return f"{kind} {path}"

    def write(self, root: Path) -> None:
        """Make ``root`` hold exactly these notes, leaving kbtool's own files."""
        for entry in root.iterdir():
            if entry.name in (".kbtool", "site", "kbtool.toml", ".obsidian"):
                continue
            if entry.is_dir():
                shutil.rmtree(entry)
            else:
                entry.unlink()
        (root / ".obsidian").mkdir(exist_ok=True)
        for path in self.notes:
            target = root / path
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text(self.text(path), encoding="utf-8")
        (root / "kbtool.toml").write_text(KBTOOL_TOML)


def clean_build(vault: RandomVault, root: Path) -> tuple[bool, dict[str, bytes]]:
    if root.exists():
        shutil.rmtree(root)
    root.mkdir()
    vault.write(root)
    ok = build_site(load_config(root), jobs=1).ok
    return ok, site_files(root) if ok else {}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("serving", [False, True], ids=["build", "serve"])
def test_incremental_builds_of_a_vault_equal_clean_builds(
    tmp_path: Path, seed: int, serving: bool
) -> None:
    vault = RandomVault(random.Random(seed))
    live, scratch = tmp_path / "live", tmp_path / "clean"
    live.mkdir()
    vault.write(live)
    kept = Session(load_config(live)) if serving else None
    assert build(live, kept)
    history: list[str] = []
    for _ in range(12):
        history.append(vault.edit())
        vault.write(live)
        ok = build(live, kept)
        clean_ok, clean = clean_build(vault, scratch)
        assert ok and clean_ok, history
        assert_same(live, clean, history)
        assert (live / "site/folders/index.html").is_file()
        assert (live / "site/unresolved.html").is_file()


@pytest.mark.parametrize("seed", range(2))
def test_incremental_builds_of_a_vault_after_killed_ones_equal_clean_builds(
    tmp_path: Path, seed: int
) -> None:
    rng = random.Random(2000 + seed)
    vault = RandomVault(rng)
    live, scratch = tmp_path / "live", tmp_path / "clean"
    live.mkdir()
    vault.write(live)
    assert build(live)
    history: list[str] = []
    for _ in range(5):
        history.append(vault.edit())
        vault.write(live)
        _killed_build(live, rng)
        history.append(vault.edit())
        vault.write(live)
        ok = build(live)
        clean_ok, clean = clean_build(vault, scratch)
        assert ok and clean_ok, history
        assert_same(live, clean, history)
