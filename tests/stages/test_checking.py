"""The incremental check: per-page results reused only while nothing they read has changed,
and always the same diagnostics as a cold check."""

from __future__ import annotations

import random
import shutil
from datetime import date
from pathlib import Path

import pytest

import kbtool.stages.check
from kbtool.checks import filter_diagnostics, run_checks
from kbtool.config import load_config
from kbtool.diagnostics import Diagnostic
from kbtool.reuse.values import Reuse
from kbtool.stages import check_start
from kbtool.stages.check import check_wiki
from kbtool.stages.load import load_wiki
from kbtool.stages.run import new_run
from kbtool.store.db import open_store
from tests.conftest import page_text

TODAY = date(2026, 6, 1)


def incremental(
    root: Path, today: date = TODAY, kept: Reuse | None = None
) -> tuple[list[Diagnostic], int]:
    """The check from the store; ``kept``: a session's, which holds what its checks made."""
    config = load_config(root)
    with open_store(config.cache_path) as store:
        if kept is not None:
            store.keep_keys(kept.keys)
        run = check_wiki(new_run(config, store, jobs=1, today=today, reuse=kept))
    return filter_diagnostics(run.diagnostics, config), run.rechecked


@pytest.fixture
def patched(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """One entry for each check that started from a session's check before."""
    taken: list[int] = []
    real = check_start.start_from_held

    def counted(*args):  # type: ignore[no-untyped-def]
        start = real(*args)
        taken.extend([1] if start is not None else [])
        return start

    monkeypatch.setattr(kbtool.stages.check, "start_from_held", counted)
    return taken


def cold(root: Path, today: date = TODAY) -> list[Diagnostic]:
    """A cold check of a copy of ``root``: its store is not written (a session's check
    holds what it made only while no other process writes)."""
    copy = root.parent / "cold"
    shutil.rmtree(copy, ignore_errors=True)
    shutil.copytree(root, copy, ignore=shutil.ignore_patterns(".kbtool"))
    wiki = load_wiki(load_config(copy), jobs=1, use_store=False)
    wiki.today = today
    return run_checks(wiki)


@pytest.fixture
def root(make_wiki, page) -> Path:
    return make_wiki(
        {
            "wiki/a.md": page("# A\n\n[b](b.md#b) ![fig](fig.png) [[c]]\n", related=["b.md"]),
            "wiki/b.md": page("# B\n\n[a](a.md)\n", related=["a.md"]),
            "wiki/c.md": page("# C\n\n## Part\n", related=["a.md"]),
            "wiki/d.md": page("# D\n", related=["c.md"]),
            "sources/s.md": "# S\n",
        }
    )


def test_a_repeat_check_checks_no_page_again(root: Path) -> None:
    first, rechecked = incremental(root)
    assert rechecked == 5
    second, rechecked = incremental(root)
    assert rechecked == 0
    assert second == first == cold(root)
    assert any(d.code == "KB207" and "fig.png" in d.message for d in second)


def test_an_edit_rechecks_the_page_and_the_pages_that_read_it(root: Path) -> None:
    incremental(root)
    (root / "wiki/b.md").write_text(page_text("# Other title\n", related=["a.md"]))
    found, rechecked = incremental(root)
    assert rechecked == 2  # b itself, and a, whose anchor #b now matches nothing
    assert found == cold(root)
    assert any(d.code == "KB208" and d.path == "wiki/a.md" for d in found)


def test_a_body_edit_that_changes_no_fact_rechecks_one_page(root: Path) -> None:
    incremental(root)
    (root / "wiki/d.md").write_text(page_text("# D\n\nmore text\n", related=["c.md"]))
    found, rechecked = incremental(root)
    assert rechecked == 1
    assert found == cold(root)


def test_a_file_appearing_on_disk_is_seen(root: Path) -> None:
    """fig.png is no page: only the disk says whether the link to it is broken."""
    before, _ = incremental(root)
    assert any("fig.png" in d.message for d in before)
    (root / "wiki/fig.png").write_bytes(b"\x89PNG")
    after, rechecked = incremental(root)
    assert rechecked == 1 and not any("fig.png" in d.message for d in after)
    assert after == cold(root)


def test_a_page_added_rechecks_the_hints_that_compare_its_name_alone(root: Path) -> None:
    """A broken link's "did you mean" compares the names in its folder that begin alike: a
    page added under another name leaves it be, one under a close name changes the hint."""
    (root / "wiki/d.md").write_text(page_text("# D\n\n[x](atention.md)\n", related=["c.md"]))
    incremental(root)
    (root / "wiki/zeta.md").write_text(page_text("# Zeta\n", related=["c.md"]))
    found, rechecked = incremental(root)
    assert rechecked == 1 and found == cold(root)
    (root / "wiki/attention.md").write_text(page_text("# Attention\n", related=["c.md"]))
    found, rechecked = incremental(root)
    assert rechecked == 2 and found == cold(root)
    assert any("did you mean 'wiki/attention.md'" in d.message for d in found)


def test_a_new_title_rechecks_the_links_to_the_page_and_to_its_titles_not_its_name(
    root: Path,
) -> None:
    """A page given a new title under the same file name (an agent's drafts of one page)
    leaves the hints comparing file names be; a wikilink naming a title sees the change."""
    (root / "wiki/d.md").write_text(page_text("# D\n\n[x](atention.md)\n"))
    (root / "wiki/e.md").write_text(page_text("# E\n\n[[Alpha]]\n"))
    (root / "wiki/attend.md").write_text(page_text("# Attend\n", related=["c.md"]))
    incremental(root)
    (root / "wiki/attend.md").write_text(page_text("# Alpha\n", related=["c.md"]))
    found, rechecked = incremental(root)
    assert rechecked == 2  # the page, and e, whose [[Alpha]] now finds it; not d's hint
    assert found == cold(root)
    assert not any("Alpha" in d.message for d in found)
    (root / "wiki/attend.md").write_text(page_text("# Attend\n\n## Part\n", related=["c.md"]))
    found, rechecked = incremental(root)
    assert rechecked == 2 and found == cold(root)
    assert any("[[Alpha]]" in d.message for d in found)


def test_a_new_day_or_new_settings_recheck_everything(root: Path) -> None:
    incremental(root)
    assert incremental(root, date(2026, 6, 2))[1] == 5
    (root / "pyproject.toml").write_text('[tool.kbtool]\nseverity = { KB302 = "error" }\n')
    found, rechecked = incremental(root, date(2026, 6, 2))
    assert rechecked == 5 and found == cold(root, date(2026, 6, 2))


def test_the_check_command_reports_the_same_either_way(root: Path, run_kbtool) -> None:
    first = run_kbtool("-C", root, "check")
    second = run_kbtool("-C", root, "check", "--timings")
    assert first.lines[:-1] == second.lines[:-1] and first.code == second.code == 1
    assert "timings: scan" in second.err
    assert run_kbtool("-C", root, "check", "--ignore", "KB207").code == 0
    assert run_kbtool("-C", root, "check", root / "wiki/b.md").code == 0
    no_cache = run_kbtool("-C", root, "check", "--no-cache")
    assert no_cache.lines[:-1] == first.lines[:-1]


# --- randomised edit sequences against a cold check ------------------------------------------


def _random_page(rng: random.Random, names: list[str]) -> str:
    """A page whose links, anchors and `related` entries point at other (maybe gone) pages."""
    related = [f"{rng.choice(names)}.md" for _ in range(rng.randint(0, 3))]
    headings = [f"## {rng.choice(['Intro', 'Part', '方法', 'Notes'])}" for _ in range(2)]
    links = []
    for _ in range(rng.randint(0, 4)):
        target = rng.choice(names)
        kind = rng.random()
        if kind < 0.4:
            links.append(f"[x]({target}.md)")
        elif kind < 0.7:
            anchor = rng.choice(["intro", "part", "方法", "notes", "nothing"])
            links.append(f"[x]({target}.md#{anchor})")
        elif kind < 0.9:
            links.append(f"[[{target}]]")
        else:
            links.append(f"![img]({target}.png)")
    title = rng.choice([f"# {rng.choice(names)}", "# Same title", ""])
    body = "\n\n".join([title, *headings, " ".join(links)]) + "\n"
    return page_text(body, related=related or None)


def _edit(rng: random.Random, root: Path, names: list[str]) -> None:
    """One of: add, remove, rename a page; change its headings, links or `related`."""
    wiki = root / "wiki"
    present = sorted(p.stem for p in wiki.glob("*.md"))
    action = rng.choice(["add", "remove", "rename", "rewrite", "rewrite", "image"])
    if action == "add" or not present:
        (wiki / f"{rng.choice(names)}.md").write_text(_random_page(rng, names))
    elif action == "remove" and len(present) > 1:
        (wiki / f"{rng.choice(present)}.md").unlink()
    elif action == "rename":
        old = rng.choice(present)
        shutil.move(wiki / f"{old}.md", wiki / f"{rng.choice(names)}.md")
    elif action == "image":
        image = wiki / f"{rng.choice(names)}.png"
        image.unlink() if image.exists() else image.write_bytes(b"\x89PNG")
    else:
        (wiki / f"{rng.choice(present)}.md").write_text(_random_page(rng, names))


@pytest.mark.parametrize("held", [False, True], ids=["one-shot", "session"])
@pytest.mark.parametrize("seed", range(12))
def test_random_edits_give_what_a_cold_check_gives(
    tmp_path: Path, seed: int, held: bool, patched: list[int]
) -> None:
    kept = Reuse() if held else None
    rng = random.Random(seed)
    root = tmp_path / "repo"
    names = [f"p{n}" for n in range(8)] + ["页面", "Same title"]
    (root / "wiki").mkdir(parents=True)
    (root / "sources").mkdir()
    (root / "sources" / "s.md").write_text("# S\n")
    for name in names[:6]:
        (root / "wiki" / f"{name}.md").write_text(_random_page(rng, names))
    for step in range(15):
        _edit(rng, root, names)
        found, _ = incremental(root, kept=kept)
        assert found == cold(root), f"seed {seed}, step {step}"
    assert bool(patched) == held  # a session's checks did start from the one before


def _source(rng: random.Random) -> str:
    day = rng.choice(["2026-01-05", "2026-03-01", "2026-05-20", "not a date"])
    return f"# Source\n\n- **入库日期：** {day}\n"


@pytest.mark.parametrize("held", [False, True], ids=["one-shot", "session"])
@pytest.mark.parametrize("seed", range(4))
def test_random_source_dates_give_what_a_cold_check_gives(
    tmp_path: Path, seed: int, held: bool, patched: list[int]
) -> None:
    """KB304 reads another page (the cited source's date): edits to either side are seen."""
    kept = Reuse() if held else None
    rng = random.Random(seed)
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "sources").mkdir()
    (root / "pyproject.toml").write_text('[tool.kbtool]\nsource-date = { label = "入库日期" }\n')
    sources = [f"s{n}" for n in range(4)]
    for name in sources:
        (root / "sources" / f"{name}.md").write_text(_source(rng))

    def wiki_page() -> str:
        cited = [f"../sources/{rng.choice(sources)}.md" for _ in range(rng.randint(1, 2))]
        updated = rng.choice(["2026-02-01", "2026-04-01", "2026-06-01"])
        return page_text("# W\n", updated=updated, sources=cited)

    for n in range(3):
        (root / "wiki" / f"w{n}.md").write_text(wiki_page())
    seen: set[str] = set()
    for step in range(12):
        if rng.random() < 0.5:
            (root / "sources" / f"{rng.choice(sources)}.md").write_text(_source(rng))
        else:
            (root / "wiki" / f"w{rng.randrange(3)}.md").write_text(wiki_page())
        found, _ = incremental(root, kept=kept)
        assert found == cold(root), f"seed {seed}, step {step}"
        seen |= {d.code for d in found}
    assert {"KB304", "KB305"} <= seen  # the rules under test really fired
    assert bool(patched) == held


# --- the upkeep checks (KB212, KB306-KB308) under random edits --------------------------------

UPKEEP_ON = (
    '[tool.kbtool]\nseverity = { KB212 = "warning", KB306 = "warning", '
    'KB307 = "warning", KB308 = "warning" }\n'
)
TITLES = [
    "注意力机制",
    "多头注意力机制",
    "Transformer",
    "Vision Transformer",
    "强化学习",
    "策略梯度",
]
SENTENCES = [f"第{i}句话讲的是一个相当具体的事实编号{i * 7}" for i in range(16)]


def _upkeep_page(rng: random.Random, stems: list[str]) -> str:
    """A page of a random title (maybe another page's), aliases, sentences from a small pool
    (near duplicates), other pages' names in prose, links and paths in code."""
    words = [rng.choice(TITLES) for _ in range(rng.randint(0, 4))]
    start = rng.choice([0, 2])
    sentences = SENTENCES[start : start + rng.choice([0, 12])]
    extras = []
    if rng.random() < 0.3:
        extras.append(f"[x]({rng.choice(stems)}.md)")
    if rng.random() < 0.3:
        extras.append(f"`wiki/{rng.choice(stems)}.md`")
    body = "。".join(sentences) + "\n\n" + "。".join(words) + " " + " ".join(extras)
    aliases = [rng.choice(TITLES)] if rng.random() < 0.2 else None
    return page_text(f"# {rng.choice(TITLES)}\n\n{body}\n", aliases=aliases)


@pytest.mark.parametrize("held", [False, True], ids=["one-shot", "session"])
@pytest.mark.parametrize("seed", range(8))
def test_random_edits_with_the_upkeep_checks_on(
    tmp_path: Path, seed: int, held: bool, patched: list[int], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Titles, aliases and sentences come and go: mentions, same titles and near duplicates
    after each edit are what a cold check finds (with a sentence on four pages already
    boilerplate, so that what is boilerplate changes too)."""
    from kbtool.checks import duplicates

    monkeypatch.setattr(duplicates, "_COMMON", 3)
    kept = Reuse() if held else None
    rng = random.Random(seed)
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "sources").mkdir()
    (root / "pyproject.toml").write_text(UPKEEP_ON)
    stems = [f"p{n}" for n in range(9)]
    for stem in stems[:6]:
        (root / "wiki" / f"{stem}.md").write_text(_upkeep_page(rng, stems))
    seen: set[str] = set()
    for step in range(12):
        present = sorted(p.stem for p in (root / "wiki").glob("*.md"))
        action = rng.choice(["add", "remove", "rewrite", "rewrite"])
        if action == "add" or len(present) < 3:
            (root / "wiki" / f"{rng.choice(stems)}.md").write_text(_upkeep_page(rng, stems))
        elif action == "remove":
            (root / "wiki" / f"{rng.choice(present)}.md").unlink()
        else:
            (root / "wiki" / f"{rng.choice(present)}.md").write_text(_upkeep_page(rng, stems))
        found, _ = incremental(root, kept=kept)
        assert found == cold(root), f"seed {seed}, step {step}"
        seen |= {d.code for d in found}
    assert {"KB306", "KB307", "KB308"} <= seen
    assert bool(patched) == held


# --- a session's check, patched from the one before ---------------------------------------


def test_a_session_keeps_a_sources_date_gone_for_the_pages_citing_it(
    tmp_path: Path, patched: list[int]
) -> None:
    """The ingestion date a source no longer has is not taken from the check before when a
    page citing it is checked again later."""
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "sources").mkdir()
    (root / "pyproject.toml").write_text('[tool.kbtool]\nsource-date = { label = "入库日期" }\n')
    source = root / "sources" / "s.md"
    page = root / "wiki" / "w.md"
    source.write_text("# Source\n\n- **入库日期：** 2026-05-20\n")
    page.write_text(page_text("# W\n", updated="2026-02-01", sources=["../sources/s.md"]))
    (root / "wiki" / "x.md").write_text(page_text("# X\n"))
    (root / "wiki" / "y.md").write_text(page_text("# Y\n"))
    kept = Reuse()
    steps = [
        (source, "# Source\n\n- **入库日期：** not a date\n"),
        (page, page_text("# W\n\nMore.\n", updated="2026-02-01", sources=["../sources/s.md"])),
    ]
    found, _ = incremental(root, kept=kept)
    assert "KB304" in {d.code for d in found}
    for file, text in steps:
        file.write_text(text)
        found, _ = incremental(root, kept=kept)
        assert found == cold(root)
        assert "KB304" not in {d.code for d in found}
    assert len(patched) == 2


DRAFT_RULE = """
from kbtool.rules import Finding, rule

@rule("WIKI020", "warning", "a page reads a draft", reads="facts")
def reads_a_draft(page, facts):
    other = facts.page("wiki/b.md")
    if page.path != "wiki/b.md" and other is not None and other.type == "draft":
        yield Finding("b is a draft", 1)
"""


def test_a_session_gives_the_project_rules_the_other_pages_type_as_it_is_now(
    tmp_path: Path, patched: list[int]
) -> None:
    """A page checked again reads another page's type from the check before's state, patched
    for that page's edit."""
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.kbtool]\nrules = ["wiki_rules.py"]\n')
    (root / "wiki_rules.py").write_text(DRAFT_RULE)
    for name in "abcd":
        (root / "wiki" / f"{name}.md").write_text(page_text(f"# {name.upper()}\n"))
    kept = Reuse()
    incremental(root, kept=kept)
    (root / "wiki" / "b.md").write_text(page_text("# B\n", type="draft"))
    first, _ = incremental(root, kept=kept)
    (root / "wiki" / "a.md").write_text(page_text("# A\n\nEdited.\n"))
    second, _ = incremental(root, kept=kept)
    readers = {d.path for d in first if d.code == "WIKI020"}
    assert readers == {"wiki/a.md", "wiki/c.md", "wiki/d.md"}
    assert {d.path for d in second if d.code == "WIKI020"} == readers
    assert len(patched) == 2
