"""Fixture wikis under tests/fixtures/<case>/ checked end to end against golden files.

Each case is copied into tmp_path (so no cache is ever written into the repository), some get
what git cannot carry well (symlinks, a 5 MB page) added there, and ``kbtool check`` runs
in-process. Its output, with the temporary path and the seconds masked, and its exit code
must equal ``expected.txt``. Lines starting with ``#`` there are the reviewer's notes on why
each line is right; they are kept when the file is rewritten.

Rewrite the golden files with ``KBTOOL_UPDATE_GOLDEN=1 pytest tests/checks/test_fixtures.py``,
then review the diff: a line that is new gets a ``# REVIEW`` note, and the test fails until a
person has replaced it with the reason the line is right.
"""

from __future__ import annotations

import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest

FIXTURES = Path(__file__).parent.parent / "fixtures"
CASES = sorted(p.parent.name for p in FIXTURES.glob("*/expected.txt"))
REVIEW = "# REVIEW: a new line; say why it is right, or fix kbtool"

#: The 5 MB single-line page of the big_line case: prose, math and a link every 1,250 bytes,
#: and one broken link at the very end.
BIG_UNIT = "中文段落 with English terms, 注意力机制 attention。" * 20 + "公式 $x^2$，[好](good.md) "
BIG_PAGE_HEAD = "---\ntype: concept\nsummary: 一行 5 MB\nupdated: 2020-01-01\n---\n"


def write_big_page(root: Path, tmp_path: Path) -> None:
    repeats = 5_000_000 // len(BIG_UNIT.encode())
    line = BIG_UNIT * repeats + "[坏](missing-at-the-end.md)"
    (root / "wiki/big.md").write_text(BIG_PAGE_HEAD + line, encoding="utf-8")
    assert (root / "wiki/big.md").stat().st_size >= 5_000_000


def make_loops(root: Path, tmp_path: Path) -> None:
    wiki = root / "wiki"
    (wiki / "loop-a.md").symlink_to("loop-b.md")
    (wiki / "loop-b.md").symlink_to("loop-a.md")
    (wiki / "sub").mkdir()
    (wiki / "sub/up").symlink_to("..", target_is_directory=True)


def make_outside(root: Path, tmp_path: Path) -> None:
    secret = tmp_path / "outside" / "secret.md"
    secret.parent.mkdir()
    secret.write_text("---\ntype: SECRET\n---\n# SECRET\n\n[x](SECRET.md)\n", encoding="utf-8")
    (root / "wiki/out.md").symlink_to(secret)
    (root / "wiki/outdir").symlink_to(secret.parent, target_is_directory=True)


SETUP: dict[str, Callable[[Path, Path], None]] = {
    "big_line": write_big_page,
    "symlink_loop": make_loops,
    "outside": make_outside,
}


def read_golden(path: Path) -> tuple[list[str], dict[str, list[str]]]:
    """The expected lines, and the notes (comment lines) written above each of them."""
    lines, notes, pending = [], {}, []
    for line in path.read_text(encoding="utf-8").splitlines() if path.exists() else []:
        if line.startswith("#"):
            pending.append(line)
        else:
            lines.append(line)
            notes[line] = pending
            pending = []
    return lines, notes


def write_golden(path: Path, got: list[str], notes: dict[str, list[str]]) -> None:
    out = []
    for line in got:
        out += notes.get(line) or [REVIEW]
        out.append(line)
    path.write_text("\n".join(out) + "\n", encoding="utf-8")


@pytest.fixture(params=CASES)
def case(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[str, Path]:
    name: str = request.param
    root = tmp_path / "repo"
    ignore = shutil.ignore_patterns("expected.txt")
    shutil.copytree(FIXTURES / name, root, symlinks=True, ignore=ignore)
    if name in SETUP:
        SETUP[name](root, tmp_path)
    return name, root


def test_fixture(case: tuple[str, Path], tmp_path: Path, run_kbtool) -> None:
    name, root = case
    result = run_kbtool("-C", root, "check")
    assert result.err == ""
    got = result.out.replace(str(tmp_path), "<tmp>").splitlines()
    got[-1] = re.sub(r" in \d+\.\d\ds$", " in <seconds>", got[-1])
    got.append(f"exit {result.code}")

    golden = FIXTURES / name / "expected.txt"
    expected, notes = read_golden(golden)
    if os.environ.get("KBTOOL_UPDATE_GOLDEN") == "1" and got != expected:
        write_golden(golden, got, notes)
        expected, notes = read_golden(golden)
    assert got == expected
    unreviewed = [line for line, above in notes.items() if REVIEW in above]
    assert not unreviewed, f"{golden}: review these lines and replace the '# REVIEW' notes"
    assert "SECRET" not in result.out  # nothing read from outside the repository shows up


def test_every_case_has_a_golden_file() -> None:
    # A case folder without expected.txt would silently not be tested.
    folders = {p.name for p in FIXTURES.iterdir() if p.is_dir() and (p / "wiki").is_dir()}
    assert folders == set(CASES)
    assert {
        "bad_yaml",
        "alias_bomb",
        "unclosed_fence",
        "list_frontmatter",
        "not_utf8",
        "empty_file",
        "binary_md",
        "big_line",
        "symlink_loop",
        "outside",
        "normal_input",
        "many_bad",
        "good_wiki",
    } <= set(CASES)


def test_normal_input_really_has_bom_crlf_spaces_and_cjk_names() -> None:
    # If git ever normalised these files, the normal_input case would test nothing.
    root = FIXTURES / "normal_input"
    attention = (root / "wiki/概念/注意力 机制.md").read_bytes()
    model = (root / "wiki/entities/Transformer Model.md").read_bytes()
    assert attention.startswith(b"\xef\xbb\xbf---\r\n") and b"\r\n" in model
    assert model.count(b"\r\n") == model.count(b"\n")
