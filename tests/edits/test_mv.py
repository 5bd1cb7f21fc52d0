"""``kbtool mv``: a page with many backlinks and a folder moved in a synthetic wiki; every
other byte kept; ``kbtool check`` finds nothing new afterwards."""

from __future__ import annotations

import shutil
import sys
from collections import Counter
from pathlib import Path

import pytest

from kbtool.checks import run_checks
from kbtool.config import load_config
from kbtool.edits.moves import moved_path
from kbtool.stages.load import load_wiki

sys.path.insert(0, str(Path(__file__).resolve().parents[2] / "benchmarks"))
import synth  # noqa: E402


@pytest.fixture(scope="module")
def generated(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("synth")
    synth.generate(root, 300, vocabulary="small")  # the pages these tests were written on
    return root


@pytest.fixture
def synthetic(generated: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(generated, tmp_path / "repo"))


def _files(root: Path) -> dict[str, bytes]:
    return {
        p.relative_to(root).as_posix(): p.read_bytes()
        for p in root.rglob("*")
        if p.is_file() and ".kbtool" not in p.parts
    }


def _findings(root: Path, moves: dict[str, str] | None = None) -> Counter[tuple[str, int, str]]:
    """Every diagnostic as (path after ``moves``, line, code): columns may shift when a
    longer path is written earlier on the same line."""
    wiki = load_wiki(load_config(root), jobs=1, use_store=False)
    return Counter(
        (moved_path(moves or {}, d.path) or d.path, d.line, d.code) for d in run_checks(wiki)
    )


def _most_linked(root: Path) -> tuple[str, set[str]]:
    wiki = load_wiki(load_config(root), jobs=1, use_store=False)
    backlinks: dict[str, set[str]] = {}
    for source, target, _ in wiki.edges:
        backlinks.setdefault(target, set()).add(source)
    target = max(sorted(backlinks), key=lambda p: len(backlinks[p]))
    return target, backlinks[target]


def test_a_page_with_many_backlinks(synthetic: Path, run_kbtool) -> None:
    target, linkers = _most_linked(synthetic)
    assert len(linkers) >= 15
    new = "wiki/concepts/人形机器人-renamed.md"
    before, findings = _files(synthetic), _findings(synthetic)
    result = run_kbtool("-C", synthetic, "mv", synthetic / target, synthetic / new)
    assert result.code == 0, result.err
    after = _files(synthetic)
    assert target not in after and new in after
    changed = {path for path in after if before.get(path) != after[path]}
    # The pages that linked there, and the moved page (its own links now climb differently).
    assert changed == (linkers - {target}) | {new}
    assert _findings(synthetic) == _findings_moved(findings, {target: new})


def test_a_page_move_resolves_only_the_links_that_name_it(
    synthetic: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from kbtool.edits.moves import plan_move
    from kbtool.wiki import Wiki

    target, linkers = _most_linked(synthetic)
    wiki = load_wiki(load_config(synthetic), jobs=1, use_store=False)
    resolved: list[str] = []
    resolve = Wiki.resolve

    def counting(self: Wiki, page, link):  # type: ignore[no-untyped-def]
        resolved.append(link.target)
        return resolve(self, page, link)

    monkeypatch.setattr(Wiki, "resolve", counting)
    plan = plan_move(
        wiki, {target: "wiki/concepts/renamed.md"}, lambda p: (synthetic / p).read_bytes()
    )
    assert set(plan.edits) == linkers | {target}
    every = sum(len(page.links) for page in wiki.pages.values())
    own = len(wiki.pages[target].links)
    # its own links (they climb from elsewhere), and those that write its name
    assert own <= len(resolved) < own + every // 10


def _findings_moved(findings: Counter[tuple[str, int, str]], moves: dict[str, str]) -> Counter:
    return Counter(
        {(moved_path(moves, p) or p, line, code): n for (p, line, code), n in findings.items()}
    )


def test_a_folder(synthetic: Path, run_kbtool) -> None:
    moves = {"wiki/queries": "wiki/faq/questions"}
    before, findings = _files(synthetic), _findings(synthetic)
    inside = {p for p in before if p.startswith("wiki/queries/")}
    result = run_kbtool(
        "-C", synthetic, "mv", synthetic / "wiki/queries", synthetic / "wiki/faq/questions"
    )
    assert result.code == 0, result.err
    after = _files(synthetic)
    assert not any(p.startswith("wiki/queries/") for p in after)
    assert {moved_path(moves, p) for p in inside} <= set(after)
    wiki = load_wiki(load_config(synthetic), jobs=1, use_store=False)
    linking_in = {s for s, t, _ in wiki.edges if t.startswith("wiki/faq/questions/")}
    for path, data in after.items():
        old = next((p for p in before if moved_path(moves, p) == path), path)
        if path in linking_in or path.startswith("wiki/faq/"):
            continue  # may have changed
        assert data == before[old], path
    changed_outside = {p for p in after if not p.startswith("wiki/faq/") and after[p] != before[p]}
    assert changed_outside and changed_outside <= linking_in
    assert _findings(synthetic) == _findings_moved(findings, moves)


def test_dry_run_prints_the_diff_and_writes_nothing(synthetic: Path, run_kbtool) -> None:
    target, _ = _most_linked(synthetic)
    before = _files(synthetic)
    result = run_kbtool(
        "-C", synthetic, "mv", "--dry-run", synthetic / target, synthetic / "wiki/x.md"
    )
    assert result.code == 0
    assert f"--- a/{target}" in result.out and "+++ b/wiki/x.md" in result.out
    assert "+" + "related:" not in result.out  # only link lines change
    assert _files(synthetic) == before


LAYOUT = {
    # CRLF endings, a quoted item, a flow list, an image, a wikilink, an encoded path, an
    # anchor, a reference definition: each rewritten in place, all else kept.
    "wiki/a.md": (
        "---\r\ntype: concept\r\nsummary: 'A'\r\nupdated: 2020-01-01\r\nrelated:\r\n"
        '  - "old/b.md"   # the one\r\n  - c.md\r\nsources: [../sources/s.md]\r\n---\r\n'
        "# A\r\n\r\nSee [b](old/b.md#第二节), ![pic](old/pic.png), [[b]] and [[b#第二节|二]].\r\n"
        "And [c](c.md) and [ref][r].\r\n\r\n[r]: old/b.md\r\n"
    ),
    "wiki/old/b.md": (
        "---\ntype: concept\nsummary: B\nupdated: 2020-01-01\nrelated: ['../a.md']\n---\n"
        "# B\n\n## 第二节\n\n[a](../a.md) [c](../c%20d.md) [self](#第二节) [pic](pic.png)\n"
    ),
    "wiki/old/pic.png": b"\x89PNG\r\n\x1a\n",
    "wiki/c.md": "---\ntype: concept\nsummary: C\nupdated: 2020-01-01\nrelated: [a.md]\n---\n# C\n",
    "wiki/c d.md": "---\ntype: concept\nsummary: C\nupdated: 2020-01-01\n---\n# C d\n",
    "sources/s.md": "# S\n\n[back](../wiki/old/b.md)\n",
}


def test_every_other_byte_is_kept(make_wiki, run_kbtool) -> None:
    root = make_wiki(LAYOUT)
    findings = _findings(root)
    result = run_kbtool("-C", root, "mv", root / "wiki/old", root / "wiki/new place")
    assert result.code == 0, result.err
    a = (root / "wiki/a.md").read_bytes().decode()
    assert a == LAYOUT["wiki/a.md"].replace("old/", "new%20place/").replace(
        '"new%20place/b.md"', '"new place/b.md"'
    )
    b = (root / "wiki/new place/b.md").read_text()
    assert b == LAYOUT["wiki/old/b.md"]  # its links climb as before: the folder is as deep
    assert (root / "sources/s.md").read_text() == "# S\n\n[back](../wiki/new%20place/b.md)\n"
    assert _findings(root) == _findings_moved(findings, {"wiki/old": "wiki/new place"})


def test_a_renamed_page_renames_its_wikilinks(make_wiki, run_kbtool) -> None:
    root = make_wiki(LAYOUT)
    result = run_kbtool("-C", root, "mv", root / "wiki/old/b.md", root / "wiki/bee.md")
    assert result.code == 0, result.err
    a = (root / "wiki/a.md").read_text()
    assert "[[bee]] and [[bee#第二节|二]]" in a
    assert '  - "bee.md"   # the one' in a and "[ref][r]" in a and "[r]: bee.md" in a
    b = (root / "wiki/bee.md").read_text()
    assert "[a](a.md) [c](c%20d.md) [self](#第二节) [pic](old/pic.png)" in b
    assert "related: ['a.md']" in b


@pytest.mark.parametrize(
    ("source", "destination", "message"),
    [
        ("wiki/old/b.md", "wiki/c.md", "exists; kbtool mv never overwrites"),
        ("wiki/missing.md", "wiki/x.md", "no such file or folder"),
        ("wiki/old", "wiki/old/inner", "into itself"),
    ],
)
def test_refusals(make_wiki, run_kbtool, source: str, destination: str, message: str) -> None:
    root = make_wiki(LAYOUT)
    before = _files(root)
    result = run_kbtool("-C", root, "mv", root / source, root / destination)
    assert result.code == 2 and message in result.err
    assert _files(root) == before


def test_into_an_existing_folder(make_wiki, run_kbtool) -> None:
    root = make_wiki(LAYOUT)
    result = run_kbtool("-C", root, "mv", root / "wiki/c.md", root / "wiki/old")
    assert result.code == 0, result.err
    assert (root / "wiki/old/c.md").is_file()
    a = (root / "wiki/a.md").read_bytes().decode()
    assert "  - old/c.md\r\n" in a and "[c](old/c.md)" in a
