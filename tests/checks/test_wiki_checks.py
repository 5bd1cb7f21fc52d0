"""A check of many pages (``checks/wiki_view.py``), added the way a newcomer would (a
function and a row), gives the same answers incrementally as a cold check: one-shot from the
store, and in a session."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path

import pytest

from kbtool.checks import upkeep
from kbtool.checks.base import diagnostic
from kbtool.checks.wiki_view import WikiView, page_check
from kbtool.codes import RULES, Rule
from kbtool.diagnostics import Diagnostic
from kbtool.model import Span
from kbtool.reuse.values import Reuse
from tests.conftest import page_text
from tests.stages.test_checking import cold, incremental

TITLES = ["Gamma Ray", "Attention", "注意力机制", "Transformer", "强化学习"]


def titles_written(wiki: WikiView, path: str) -> Iterator[Diagnostic]:
    """KB399: another page's title written in this page's text."""
    text = wiki.text(path) or ""
    for other in wiki.paths():
        title = wiki.title(other)
        if other != path and title and title in text.split("\n", 3)[-1]:
            yield diagnostic("KB399", Span(path), f"'{title}' is written here")


@pytest.fixture
def title_check(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(RULES, "KB399", Rule("KB399", "warning", "a title written"))
    row = page_check(titles_written, ("KB399",))
    monkeypatch.setattr(upkeep, "WIKI_CHECKS", (*upkeep.WIKI_CHECKS, row))


def _page(rng: random.Random) -> str:
    words = " ".join(rng.choice(TITLES) for _ in range(rng.randint(0, 2)))
    return page_text(f"# {rng.choice(TITLES)}\n\nText {words}.\n")


def test_a_new_page_whose_title_is_written_elsewhere_is_reported(
    make_wiki, page, title_check: None
) -> None:
    root = make_wiki({"wiki/a.md": page("# A\n\nOf the Gamma Ray.\n")})
    before, _ = incremental(root)
    assert not [d for d in before if d.code == "KB399"]
    (root / "wiki" / "g.md").write_text(page_text("# Gamma Ray\n"))
    after, _ = incremental(root)
    assert [d.path for d in after if d.code == "KB399"] == ["wiki/a.md"]
    assert after == cold(root)


@pytest.mark.parametrize("held", [False, True], ids=["one-shot", "session"])
@pytest.mark.parametrize("seed", range(6))
def test_random_edits_give_the_title_check_a_cold_check_gives(
    tmp_path: Path, seed: int, held: bool, title_check: None
) -> None:
    kept = Reuse() if held else None
    rng = random.Random(seed)
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "sources").mkdir()
    (root / "pyproject.toml").write_text("[tool.kbtool]\n")
    stems = [f"p{n}" for n in range(7)]
    for stem in stems[:4]:
        (root / "wiki" / f"{stem}.md").write_text(_page(rng))
    seen = 0
    for step in range(12):
        present = sorted(p.stem for p in (root / "wiki").glob("*.md"))
        action = rng.choice(["add", "remove", "rewrite", "rewrite"])
        if action == "add" or len(present) < 3:
            (root / "wiki" / f"{rng.choice(stems)}.md").write_text(_page(rng))
        elif action == "remove":
            (root / "wiki" / f"{rng.choice(present)}.md").unlink()
        else:
            (root / "wiki" / f"{rng.choice(present)}.md").write_text(_page(rng))
        found, _ = incremental(root, kept=kept)
        assert found == cold(root), f"seed {seed}, step {step}"
        seen += sum(d.code == "KB399" for d in found)
    assert seen
