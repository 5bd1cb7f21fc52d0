"""Embeds (``![[Note]]``, ``![[Note#Heading]]``, ``![[Note#^block]]``): what a page shows of
another note is made again exactly when that part changes; and random vault edits, built
incrementally (one-shot, in a session, after killed builds), give a clean build's site."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.session import Session
from kbtool.stages.embeds import EMBEDS, PART, SHOWN
from tests.stages.test_build_incremental import (
    _killed_build,
    assert_same,
    build,
    clean_build,
    edits_build_as_clean_builds,
)

VAULT = """wiki = "."
flavor = "obsidian"
language = "en"
search = false
required = []
types = []
[severity]
KB101 = "off"
KB2 = "warning"
KB3 = "off"
KB503 = "warning"
KB510 = "off"
"""


class RandomVault:
    """A few notes, each of two sections and a block, some showing parts of others."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.notes: dict[str, dict[str, object]] = {}
        self.written: set[str] = set()
        for n in range(5):
            self.add(f"n{n}")
        for note in self.notes.values():
            if rng.random() < 0.6:
                note["embeds"].append(self._part())  # type: ignore[attr-defined]

    def _part(self) -> str:
        """A note, one of its sections (maybe one renamed away) or its block."""
        return self.rng.choice(self.names()) + self.rng.choice(
            ["", "#One", "#Two", "#^b1", "#Second"]
        )

    def add(self, name: str) -> None:
        folder = self.rng.choice(["", "Folder/"])
        self.notes[f"{folder}{name}.md"] = {
            "one": f"First words of {name}.",
            "two": f"Second words of {name}.",
            "heading": "Two",
            "block": self.rng.random() < 0.7,
            "embeds": [],
        }

    def names(self) -> list[str]:
        return sorted(Path(p).stem for p in self.notes)

    def text(self, path: str) -> str:
        note = self.notes[path]
        lines = [f"# {Path(path).stem}", "", "## One", "", str(note["one"]), ""]
        lines += [f"## {note['heading']}", "", str(note["two"]), ""]
        if note["block"]:
            lines += [f"A block of {Path(path).stem} ^b1", ""]
        lines += [f"![[{embed}]]" for embed in note["embeds"]]  # type: ignore[attr-defined]
        return "\n".join(lines) + "\n"

    def edit(self) -> str:
        rng = self.rng
        path = rng.choice(sorted(self.notes))
        note = self.notes[path]
        action = rng.choice(["one", "two", "heading", "block", "embed", "embed", "unembed", "add"])
        if action in ("one", "two"):
            note[action] = f"{action} rewritten {rng.randint(0, 999)}."
        elif action == "heading":
            note["heading"] = rng.choice(["Two", "Second", "Two again"])
        elif action == "block":
            note["block"] = not note["block"]
        elif action == "embed":
            note["embeds"].append(self._part())  # type: ignore[attr-defined]
        elif action == "unembed" and note["embeds"]:
            note["embeds"].pop(0)  # type: ignore[attr-defined]
        elif action == "add":
            name = f"n{len(self.notes) + rng.randint(0, 3)}"
            if name not in self.names():
                self.add(name)
                path = name
        return f"{action} {path}"

    def write(self, root: Path) -> None:
        for gone in self.written - self.notes.keys():  # not the site's copies of notes
            (root / gone).unlink(missing_ok=True)
        self.written = set(self.notes)
        for path in self.notes:
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(self.text(path))
        (root / "kbtool.toml").write_text(VAULT)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("serving", [False, True], ids=["build", "serve"])
def test_random_vault_edits_build_as_a_clean_build(
    tmp_path: Path, seed: int, serving: bool
) -> None:
    vault = RandomVault(random.Random(seed))
    edits_build_as_clean_builds(vault, tmp_path, serving, edits=12)
    assert b'class="embed"' in b"".join(
        p.read_bytes() for p in (tmp_path / "live/site").rglob("*.html")
    )


@pytest.mark.parametrize("seed", range(2))
def test_builds_after_killed_ones_show_embeds_as_a_clean_build(tmp_path: Path, seed: int) -> None:
    rng = random.Random(100 + seed)
    vault = RandomVault(rng)
    live, scratch = tmp_path / "live", tmp_path / "clean"
    live.mkdir()
    vault.write(live)
    assert build(live)
    history: list[str] = []
    for _ in range(4):
        history.append(vault.edit())
        vault.write(live)
        _killed_build(live, rng)
        history.append(vault.edit())
        vault.write(live)
        ok = build(live)
        clean_ok, clean = clean_build(vault, scratch)
        assert ok == clean_ok, history
        if ok:
            assert_same(live, clean, history)


def _vault(root: Path) -> Path:
    root.mkdir()
    (root / "kbtool.toml").write_text(VAULT)
    (root / "A.md").write_text("# A\n\nIntro.\n\n![[B#Two]]\n")
    (root / "B.md").write_text("# B\n\n## One\n\nFirst.\n\n## Two\n\nSecond.\n")
    (root / "C.md").write_text("# C\n\nNothing shown.\n")
    return root


def _clean_page(root: Path, clean: Path, name: str) -> str:
    """The page ``name`` as a clean build of ``root``'s notes, in ``clean``, writes it."""
    clean.mkdir()
    for note in ("kbtool.toml", "A.md", "B.md", "C.md"):
        (clean / note).write_bytes((root / note).read_bytes())
    assert build(clean)
    return (clean / "site" / name).read_text()


def _rendered(root: Path) -> dict[str, float]:
    site = root / "site"
    return {p.name: p.stat().st_mtime_ns for p in site.glob("*.html")}


@pytest.mark.parametrize("serving", [False, True], ids=["build", "serve"])
def test_an_edit_to_the_embedded_section_renders_exactly_the_pages_that_show_it(
    tmp_path: Path, serving: bool
) -> None:
    root = _vault(tmp_path / "vault")
    kept = Session(load_config(root)) if serving else None
    assert build(root, kept)
    assert "Second." in (root / "site/A.html").read_text()
    before = _rendered(root)
    made = kept.reuse.engine.made.copy() if kept is not None else None
    (root / "B.md").write_text("# B\n\n## One\n\nFirst, edited.\n\n## Two\n\nSecond.\n")
    assert build(root, kept)
    after = _rendered(root)
    assert after["A.html"] == before["A.html"]  # the part it shows is as it was
    assert after["B.html"] != before["B.html"]
    if kept is not None and made is not None:
        # The part of B that A shows cut again and found the same: A's embed of it is not
        # made again, nor A's embeds (B's are, by its edit)
        now = kept.reuse.engine.made
        assert [now[q.name] - made[q.name] for q in (PART, SHOWN, EMBEDS)] == [1, 0, 1]
    (root / "B.md").write_text("# B\n\n## One\n\nFirst, edited.\n\n## Two\n\nSecond, edited.\n")
    assert build(root, kept)
    assert "Second, edited." in (root / "site/A.html").read_text()
    assert _rendered(root)["C.html"] == before["C.html"]


def test_a_link_to_a_note_not_created_yet_makes_no_embed_or_other_index_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A link written to a new note changes only the page of notes not created yet (and its
    own page): what the embeds show is made of other pages' titles, not of those notes, and
    no other index page shows them."""
    import kbtool.stages.index_plan as index_plan

    root = _vault(tmp_path / "vault")
    kept = Session(load_config(root))
    assert build(root, kept)
    made = kept.reuse.engine.made.copy()
    indexes_made: list[int] = []
    real = index_plan._made
    monkeypatch.setattr(index_plan, "_made", lambda site: indexes_made.append(1) or real(site))
    (root / "C.md").write_text("# C\n\nNothing shown, but [[Some new idea]].\n")
    kept.scan()
    report = kept.build()
    assert report.ok
    assert kept.reuse.engine.made[SHOWN.name] == made[SHOWN.name]
    assert indexes_made == []
    assert [o for o in report.rendered_outputs if o.endswith(".html")] == ["unresolved.html"]
    assert "Some new idea" in (root / "site/unresolved.html").read_text()


def test_a_note_that_shows_itself_is_a_diagnostic_not_a_hang(tmp_path: Path, run_kbtool) -> None:
    root = _vault(tmp_path / "vault")
    (root / "C.md").write_text("# C\n\n![[D]]\n")
    (root / "D.md").write_text("# D\n\n![[C]]\n")
    result = run_kbtool("-C", root, "build")
    assert "C.md:3:1: KB503" in result.out + result.err
    assert "D.md:3:1: KB503" in result.out + result.err


def test_a_page_rendered_again_for_its_embed_alone_keeps_its_frame(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a session, a page whose only change is what it embeds is its new body in the frame
    it was rendered in (its template is not rendered again), and is what a clean build
    rendering it whole writes; the edited page is rendered whole."""
    import kbtool.render.pages as pages

    root = _vault(tmp_path / "vault")
    kept = Session(load_config(root))
    assert build(root, kept)
    (root / "B.md").write_text("# B\n\n## One\n\nFirst.\n\n## Two\n\nSecond, edited.\n")
    assert build(root, kept)  # A rendered here: its frame is held from now on
    whole: list[str] = []
    real = pages._page_html
    monkeypatch.setattr(
        pages, "_page_html", lambda site, path, *rest: whole.append(path) or real(site, path, *rest)
    )
    (root / "B.md").write_text("# B\n\n## One\n\nFirst.\n\n## Two\n\nSecond, again.\n")
    assert build(root, kept)
    assert whole == ["B.md"]
    # The clean build renders every page whole: the frame and the body are that page.
    monkeypatch.setattr(pages, "_frame", lambda *_: None)
    shown = (root / "site/A.html").read_text()
    assert "Second, again." in shown
    assert shown == _clean_page(root, tmp_path / "clean", "A.html")


def test_a_page_rendered_again_for_its_embed_alone_keeps_its_own_holes_filled(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """In a session, a page whose only change is what it embeds fills its embeds alone: its
    links are taken as they were filled (not resolved again), and the page is what a clean
    build writes; the edited page is filled whole."""
    import kbtool.render.pages as pages

    root = _vault(tmp_path / "vault")
    (root / "A.md").write_text("# A\n\nSee [[C]], [C](C.md) and [[Nowhere]].\n\n![[B#Two]]\n")
    kept = Session(load_config(root))
    assert build(root, kept)
    (root / "B.md").write_text("# B\n\n## One\n\nFirst.\n\n## Two\n\nSecond, edited.\n")
    assert build(root, kept)  # A rendered here: its own fill is held from now on
    filled: list[str] = []
    real = pages.fill_own
    monkeypatch.setattr(
        pages,
        "fill_own",
        lambda body, page, *rest: filled.append(page.path) or real(body, page, *rest),
    )
    (root / "B.md").write_text("# B\n\n## One\n\nFirst.\n\n## Two\n\nSecond, again.\n")
    assert build(root, kept)
    assert filled == ["B.md"]
    shown = (root / "site/A.html").read_text()
    assert "Second, again." in shown and 'href="C.html"' in shown
    assert shown == _clean_page(root, tmp_path / "clean", "A.html")


def test_a_page_whose_text_holds_the_frame_mark_is_rendered_whole(tmp_path: Path) -> None:
    """The mark a frame is split at, in what the page shows around its body (its summary),
    does not split it there."""
    root = _vault(tmp_path / "vault")
    summary = "---\nsummary: Sum \ue002 mary\n---\n"
    (root / "A.md").write_text(f"{summary}# A\n\nIntro.\n\n![[B#Two]]\n")
    kept = Session(load_config(root))
    assert build(root, kept)
    (root / "B.md").write_text("# B\n\n## One\n\nFirst.\n\n## Two\n\nSecond, edited.\n")
    assert build(root, kept)
    shown = (root / "site/A.html").read_text()
    assert shown.count("Second, edited.") == 1 and shown.count("Intro.") == 1
    assert shown.count("Sum \ue002 mary") == shown.count("Sum") >= 1
