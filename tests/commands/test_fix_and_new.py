"""`kbtool fix` repairs only the form of what was written; `kbtool new` scaffolds valid pages."""

from __future__ import annotations

from pathlib import Path

import pytest

from kbtool.cli import main

GOOD = """---
type: concept
summary: "B 页"
updated: 2026-01-02
related:
  - ./a.md
---
# B

## 多头注意力（Multi-Head）
"""


def write(root: Path, rel: str, text: str, newline: str = "\n") -> Path:
    path = root / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(text.replace("\n", newline).encode("utf-8"))
    return path


@pytest.fixture
def wiki(tmp_path: Path) -> Path:
    (tmp_path / "pyproject.toml").write_text("[tool.kbtool]\n", encoding="utf-8")
    write(tmp_path, "wiki/b.md", GOOD)
    return tmp_path


A_PAGE = """---
type: concept
summary: "A 页"  # a comment the fix must keep
updated: 2026-01-02
related: ./b.md
sources:
  - ../sources/s.md
  - ../sources/s.md
---
# A

见 [B](./b.md#多头注意力Multi-Head)。
"""


@pytest.mark.parametrize("newline", ["\n", "\r\n"])
def test_fix_listifies_dedupes_and_repairs_anchor_case(wiki: Path, newline: str, capsys) -> None:
    page = write(wiki, "wiki/a.md", A_PAGE, newline)
    write(wiki, "sources/s.md", "# S\n\n[A](../wiki/a.md)\n")
    assert main(["-C", str(wiki), "check"]) == 1  # KB107 string related, KB208 anchor

    assert main(["-C", str(wiki), "fix"]) == 0
    fixed = page.read_bytes().decode("utf-8")
    expected = (
        A_PAGE.replace("related: ./b.md", "related:\n  - ./b.md")
        .replace("  - ../sources/s.md\n  - ../sources/s.md\n", "  - ../sources/s.md\n")
        .replace("#多头注意力Multi-Head", "#多头注意力multi-head")
    )
    assert fixed == expected.replace("\n", newline)
    capsys.readouterr()
    assert main(["-C", str(wiki), "check"]) == 0, capsys.readouterr().out


def test_fix_diff_writes_nothing(wiki: Path, capsys) -> None:
    page = write(wiki, "wiki/a.md", A_PAGE)
    write(wiki, "sources/s.md", "# S\n\n[A](../wiki/a.md)\n")
    assert main(["-C", str(wiki), "fix", "--diff"]) == 1
    out = capsys.readouterr().out
    assert "-related: ./b.md" in out and "+  - ./b.md" in out
    assert page.read_text(encoding="utf-8") == A_PAGE


def test_fix_leaves_a_clean_wiki_alone(wiki: Path) -> None:
    write(wiki, "wiki/a.md", GOOD.replace("./a.md", "./b.md").replace("# B", "# A"))
    before = {p: p.read_bytes() for p in wiki.rglob("*.md")}
    main(["-C", str(wiki), "fix"])
    assert {p: p.read_bytes() for p in wiki.rglob("*.md")} == before


def test_new_scaffolds_a_page_that_checks_clean_but_for_being_an_orphan(wiki: Path, capsys) -> None:
    assert (
        main(["-C", str(wiki), "new", "method", "flash-attention", "--summary", "IO 感知的注意力"])
        == 0
    )
    created = wiki / "wiki/methods/flash-attention.md"
    assert "type: method" in created.read_text(encoding="utf-8")
    capsys.readouterr()
    main(["-C", str(wiki), "check", str(wiki / "wiki/methods")])
    codes = {line.split()[1] for line in capsys.readouterr().out.splitlines()[:-1]}
    assert codes == {"KB301"}


def test_new_never_overwrites(wiki: Path) -> None:
    write(wiki, "wiki/concepts/x.md", "mine")
    assert main(["-C", str(wiki), "new", "concept", "x"]) == 1
    assert (wiki / "wiki/concepts/x.md").read_text(encoding="utf-8") == "mine"


def test_new_rejects_unknown_type_and_paths(wiki: Path) -> None:
    assert main(["-C", str(wiki), "new", "recipe", "x"]) == 2
    assert main(["-C", str(wiki), "new", "concept", "../escape"]) == 2
    assert not (wiki / "wiki/escape.md").exists()


def test_fix_keeps_the_file_permissions(wiki: Path) -> None:
    page = write(wiki, "wiki/a.md", A_PAGE)
    write(wiki, "sources/s.md", "# S\n\n[A](../wiki/a.md)\n")
    page.chmod(0o644)
    main(["-C", str(wiki), "fix"])
    assert "related:\n  - ./b.md" in page.read_text(encoding="utf-8")
    assert page.stat().st_mode & 0o777 == 0o644
