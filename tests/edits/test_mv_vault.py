"""``kbtool mv`` in a vault: links rewritten as Obsidian rewrites them on a rename (a link by
name stays while the name still finds its note; a changed name, a new ambiguity, a path
link are rewritten in the form ``newLinkFormat`` asks for), and ``kbtool check`` finds
nothing new afterwards."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from kbtool.config import load_config
from kbtool.edits.headings import plan_heading_rename
from kbtool.edits.moves import moved_path
from kbtool.edits.spans import apply_edits
from kbtool.edits.vault_headings import link_text
from kbtool.edits.vault_moves import link_format, link_path, vault_after
from kbtool.stages.load import load_wiki

FIXTURE = Path(__file__).parents[1] / "fixtures" / "vault-en"
VAULT = 'wiki = "."\nflavor = "obsidian"\n[severity]\nKB101 = "off"\nKB301 = "off"\n'


def _check(run_kbtool, root: Path) -> list[tuple[str, int, str, str]]:
    """Every diagnostic as (path, line, code, message): a column shifts when a link before
    it on its line is written longer."""
    result = run_kbtool("-C", root, "check", "--format", "json")
    found = json.loads(result.out)["diagnostics"]
    return sorted((d["path"], d["line"], d["code"], d["message"]) for d in found)


def _mv(run_kbtool, root: Path, source: str, destination: str) -> str:
    result = run_kbtool("-C", root, "mv", root / source, root / destination)
    assert result.code == 0, result.err
    assert "warning" not in result.err
    return result.out


@pytest.fixture
def vault(tmp_path: Path, run_kbtool) -> Path:
    root = Path(shutil.copytree(FIXTURE, tmp_path / "vault"))
    (root / "expected-diagnostics.txt").unlink()
    assert run_kbtool("-C", root, "init", "--yes").code == 0
    return root


def test_several_moves_of_the_fixture_vault_break_no_link(vault: Path, run_kbtool) -> None:
    before = _check(run_kbtool, vault)
    links_codes = [code for _, _, code, _ in before if code.startswith("KB2")]
    assert links_codes == ["KB209", "KB209", "KB209", "KB207"], before
    links = (vault / "Notes/Links.md").read_text()
    moves = [
        # Into the folder of Links.md, where `[[Plan]]` would now open this one.
        ("Archive/2023/Plan.md", "Notes/Plan.md"),
        ("Notes/Headings.md", "Archive/Headings.md"),  # its name stays unique
        ("Home.md", "Notes/Start.md"),  # renamed
        ("Attachments/diagram.png", "Notes/img/diagram.png"),
        ("Notes/Deep", "Deeper"),  # a folder
    ]
    for source, destination in moves:
        _mv(run_kbtool, vault, source, destination)
    after = (vault / "Notes/Links.md").read_text()
    expected = links
    for old, new in [
        ("[[Home]]; in any case: [[home]]; with a label: [[Home|the start]]",
         "[[Start]]; in any case: [[Start]]; with a label: [[Start|the start]]"),
        ("whole path: [[Notes/Deep/Nested/Deep note]]", "whole path: [[Deeper/Nested/Deep note]]"),
        ("same: [[Plan]] opens", "same: [[Projects/Plan]] opens"),
        ("[[2023/Plan]]; from the root: [[Archive/2023/Plan]]",
         "[[Notes/Plan]]; from the root: [[Notes/Plan]]"),
        ("folder: ![[Attachments/diagram.png]]", "folder: ![[Notes/img/diagram.png]]"),
        ("[headings](Notes/Headings.md); relative: [home](../Home.md)",
         "[headings](Archive/Headings.md); relative: [home](Start.md)"),
        ("from the root: ![diagram](Attachments/diagram.png)",
         "from the root: ![diagram](Notes/img/diagram.png)"),
    ]:  # fmt: skip
        assert old in expected, old
        expected = expected.replace(old, new)
    assert after == expected
    # Links by a name that still finds the note are as they were, with their # and | parts.
    for kept in ("[[Headings#Setup first steps#Install]]", "![[Headings#^item-2]]",
                 "[[Deep note]]", "[[Nested/Deep note]]", "[[Deep note.md]]",
                 "![[diagram.png|100]]", "[deep](<Deep note.md>)", "[deep](Deep%20note.md)",
                 "[setup](Headings.md#Setup%20first%20steps)"):  # fmt: skip
        assert kept in after, kept
    assert "[[Start|the start]]" not in (vault / "Deeper/Nested/Deep note.md").read_text()
    assert "Back [[Start]]." in (vault / "Deeper/Nested/Deep note.md").read_text()
    assert "[[Links]] tries" in (vault / "Notes/Start.md").read_text()
    assert _check(run_kbtool, vault) == before


def _small_vault(make_wiki, link_format: str | None, links: str) -> Path:
    app = {} if link_format is None else {"newLinkFormat": link_format}
    return make_wiki(
        {
            "kbtool.toml": VAULT,
            ".obsidian/app.json": json.dumps(app),
            "A/Twin.md": "# Twin\n\nA block. ^b1\n",
            "C/Other.md": "# Other\n",
            "Notes/Reader.md": f"# Reader\n\n{links}\n",
            "img/pic.png": b"\x89PNG",
        }
    )


LINKS = "[[Twin]] ![[Twin#^b1]] [[Twin|label]] ![[pic.png]] [x](../A/Twin.md)"


def test_a_name_that_stays_unique_stays(make_wiki, run_kbtool) -> None:
    root = _small_vault(make_wiki, None, LINKS)
    _mv(run_kbtool, root, "A/Twin.md", "Z/Deep/Twin.md")
    _mv(run_kbtool, root, "img/pic.png", "Z/pic.png")
    text = (root / "Notes/Reader.md").read_text()
    assert text == f"# Reader\n\n{LINKS.replace('../A/Twin.md', '../Z/Deep/Twin.md')}\n"
    assert _check(run_kbtool, root) == []


@pytest.mark.parametrize(
    ("setting", "written"),
    [
        ("shortest", "[[Twin]] ![[Twin#^b1]] [[Twin|label]]"),  # the name is unique still
        ("absolute", "[[Z/Twin]] ![[Z/Twin#^b1]] [[Z/Twin|label]]"),
        ("relative", "[[../Z/Twin]] ![[../Z/Twin#^b1]] [[../Z/Twin|label]]"),
    ],
)
def test_links_to_a_moved_note_as_newlinkformat_asks(
    make_wiki, run_kbtool, setting: str, written: str
) -> None:
    """Obsidian writes every link to a moved note again, in the form it writes new ones."""
    root = _small_vault(make_wiki, setting, LINKS)
    _mv(run_kbtool, root, "A/Twin.md", "Z/Twin.md")
    text = (root / "Notes/Reader.md").read_text()
    assert text == f"# Reader\n\n{written} ![[pic.png]] [x](../Z/Twin.md)\n"
    assert _check(run_kbtool, root) == []


def test_a_moved_note_whose_name_another_has_gets_its_path(make_wiki, run_kbtool) -> None:
    """`[[Twin]]` would still open it (the shallower of two), but its name is not unique."""
    root = _small_vault(make_wiki, None, LINKS)
    (root / "C/Deep/X").mkdir(parents=True)
    (root / "C/Deep/X/Twin.md").write_text("# The other twin\n")
    _mv(run_kbtool, root, "A/Twin.md", "B/Twin.md")
    text = (root / "Notes/Reader.md").read_text()
    expected = "[[B/Twin]] ![[B/Twin#^b1]] [[B/Twin|label]] ![[pic.png]] [x](../B/Twin.md)"
    assert text == f"# Reader\n\n{expected}\n"
    assert _check(run_kbtool, root) == []


@pytest.mark.parametrize(
    ("setting", "written"),
    [
        (None, "[[A/Twin]] ![[A/Twin#^b1]] [[A/Twin|label]]"),
        ("shortest", "[[A/Twin]] ![[A/Twin#^b1]] [[A/Twin|label]]"),
        ("absolute", "[[A/Twin]] ![[A/Twin#^b1]] [[A/Twin|label]]"),
        ("relative", "[[../A/Twin]] ![[../A/Twin#^b1]] [[../A/Twin|label]]"),
    ],
)
def test_a_move_that_makes_a_name_ambiguous(
    make_wiki, run_kbtool, setting: str | None, written: str
) -> None:
    """Another note named Twin moves into the reader's folder: `[[Twin]]` would open it."""
    root = _small_vault(make_wiki, setting, LINKS)
    assert link_format(root) == (setting or "shortest")
    _mv(run_kbtool, root, "C/Other.md", "Notes/Twin.md")
    text = (root / "Notes/Reader.md").read_text()
    assert text == f"# Reader\n\n{written} ![[pic.png]] [x](../A/Twin.md)\n"
    assert _check(run_kbtool, root) == []


@pytest.mark.parametrize(
    ("setting", "written"),
    [
        ("shortest", "[[Pair]] ![[Pair#^b1]] [[Pair|label]]"),
        ("absolute", "[[B/Pair]] ![[B/Pair#^b1]] [[B/Pair|label]]"),
        ("relative", "[[../B/Pair]] ![[../B/Pair#^b1]] [[../B/Pair|label]]"),
    ],
)
def test_a_renamed_note_is_written_as_newlinkformat_asks(
    make_wiki, run_kbtool, setting: str, written: str
) -> None:
    root = _small_vault(make_wiki, setting, LINKS)
    _mv(run_kbtool, root, "A/Twin.md", "B/Pair.md")
    text = (root / "Notes/Reader.md").read_text()
    assert text == f"# Reader\n\n{written} ![[pic.png]] [x](../B/Pair.md)\n"
    assert _check(run_kbtool, root) == []


def test_markdown_links_keep_their_form_and_encoding(make_wiki, run_kbtool) -> None:
    root = make_wiki(
        {
            "kbtool.toml": VAULT,
            "Sub Folder/My Note.md": "# My note\n",
            "Notes/Reader.md": (
                "# R\n\n[root](Sub%20Folder/My%20Note.md#My%20note) [name](<My Note.md>) "
                "[rel](../Sub%20Folder/My%20Note.md) [wide](%E7%AC%94%E8%AE%B0.md)\n"
            ),
            "笔记.md": "# 笔记\n",
        }
    )
    _mv(run_kbtool, root, "Sub Folder/My Note.md", "Other Place/Your Note.md")
    _mv(run_kbtool, root, "笔记.md", "中文/新笔记.md")
    assert (root / "Notes/Reader.md").read_text() == (
        "# R\n\n[root](Other%20Place/Your%20Note.md#My%20note) [name](<Your Note.md>) "
        "[rel](../Other%20Place/Your%20Note.md) "
        "[wide](%E6%96%B0%E7%AC%94%E8%AE%B0.md)\n"
    )
    assert _check(run_kbtool, root) == []


@pytest.mark.parametrize(
    ("source", "destination", "says"),
    [
        ("Home.md", ".obsidian/Home.md", "never moves there"),
        ("Home.md", ".kbtool/x.md", "never moves there"),
        ("Home.md", "Notes/.hidden/Home.md", "never moves there"),
        ("Home.md", "Templates/Home.md", "never moves there"),
        ("Home.md", "Notes/C#.md", "links cannot name"),
        ("Attachments", "Pictures [old]", "links cannot name"),
        ("Projects/Plan.md", "Archive/2023", "exists; kbtool mv never overwrites"),
        ("Projects/Plan.md", "Archive/2023/plan.md", "in another case"),
        ("Attachments", "archive", "in another case"),
    ],
)
def test_refusals_in_a_vault(
    vault: Path, run_kbtool, source: str, destination: str, says: str
) -> None:
    before = {p: p.read_bytes() for p in vault.rglob("*.md")}
    result = run_kbtool("-C", vault, "mv", vault / source, vault / destination)
    assert result.code == 2 and says in result.err
    assert {p: p.read_bytes() for p in vault.rglob("*.md")} == before


def test_a_name_changed_in_case_alone(vault: Path, run_kbtool) -> None:
    """Obsidian finds a name in any case: the links still open the note, and stay."""
    before = _check(run_kbtool, vault)
    text = (vault / "Notes/Links.md").read_text()
    _mv(run_kbtool, vault, "Notes/Headings.md", "Notes/headings.md")
    assert (vault / "Notes/Links.md").read_text() == text
    assert _check(run_kbtool, vault) == before


def test_an_attachment_renamed(make_wiki, run_kbtool) -> None:
    root = _small_vault(make_wiki, None, LINKS)
    _mv(run_kbtool, root, "img/pic.png", "img/photo.png")
    assert "![[photo.png]]" in (root / "Notes/Reader.md").read_text()
    (root / "C/pic.png").write_bytes(b"\x89PNG")  # another pic.png: the name is shared now
    _mv(run_kbtool, root, "img/photo.png", "Z/pic.png")
    assert "![[Z/pic.png]]" in (root / "Notes/Reader.md").read_text()
    assert _check(run_kbtool, root) == []


def test_a_dry_run_names_the_new_paths(vault: Path, run_kbtool) -> None:
    result = run_kbtool("-C", vault, "mv", "--dry-run", vault / "Home.md", vault / "Start.md")
    assert result.code == 0
    assert "+Where" not in result.out and "+- By name from another folder: [[Start]]" in result.out
    assert (vault / "Home.md").is_file() and not (vault / "Start.md").exists()


HEADINGS = (
    "# H\n\n## Setup: first steps\n\n### Install\n\n## Other\n\n### Install\n\nA block. ^b1\n"
)


@pytest.mark.parametrize(
    ("line", "new", "before", "after"),
    [
        (3, "Setup: the first steps", "[[H#Setup first steps]]", "[[H#Setup the first steps]]"),
        (3, "Setup: the first steps", "[[H#Setup first steps#Install|x]]",
         "[[H#Setup the first steps#Install|x]]"),
        (3, "Setup: the first steps", "[s](H.md#Setup%20first%20steps)",
         "[s](H.md#Setup%20the%20first%20steps)"),
        (3, "Setup: the first steps", "[[H#setup-first-steps]]", "[[H#setup-the-first-steps]]"),
        (5, "Installing", "[[H#Setup first steps#Install]]", "[[H#Setup first steps#Installing]]"),
        (5, "Installing", "[[H#Other#Install]]", "[[H#Other#Install]]"),  # the other one
        (9, "Installing", "[[H#Install]]", "[[H#Install]]"),  # it lands on the first
        (9, "Installing", "![[H#Other#Install]]", "![[H#Other#Installing]]"),
        (9, "Installing", "[[H#^b1]]", "[[H#^b1]]"),
    ],
)  # fmt: skip
def test_a_renamed_heading_in_a_vault(
    make_wiki, run_kbtool, line: int, new: str, before: str, after: str
) -> None:
    root = make_wiki({"kbtool.toml": VAULT, "Sub/H.md": HEADINGS, "L.md": f"# L\n\n{before}\n"})
    wiki = load_wiki(load_config(root), jobs=1, use_store=False)
    plan = plan_heading_rename(wiki, "Sub/H.md", line, new, lambda p: (root / p).read_bytes())
    assert plan.problems == []
    for path, edits in plan.edits.items():
        (root / path).write_bytes(apply_edits((root / path).read_bytes(), edits))
    assert (root / "L.md").read_text() == f"# L\n\n{after}\n"
    assert _check(run_kbtool, root) == []


def test_a_heading_as_obsidian_writes_it_in_a_link() -> None:
    assert link_text("Setup: first [steps] | now #1 ^x") == "Setup first steps now 1 x"
    assert link_text("背景：为什么需要") == "背景为什么需要"


def test_moved_path_still_found_where_it_was() -> None:
    assert moved_path({"A": "B/C"}, "A/x.md") == "B/C/x.md"


def test_a_folder_link_and_hostile_text(make_wiki, run_kbtool) -> None:
    hostile = (
        "# Odd\n\n[[ ]] [[|x]] [[#]] [[ Twin ]] [[../../../etc/passwd]] [[Twin#^]] ![[Twin|]]\n"
        "[f](Sub/) [g](<Sub/Twin.md>) [[Sub/Twin]] [[\n\n```\n[[Twin]] in code\n```\n"
    )
    root = make_wiki(
        {
            "kbtool.toml": VAULT,
            "Sub/Twin.md": "# Twin\n",
            "Odd.md": hostile,
            "binary.md": b"\xff\xfe\x00 [[Twin]]",
        }
    )
    before = _check(run_kbtool, root)
    _mv(run_kbtool, root, "Sub", "Other Folder")
    expected = hostile.replace("[f](Sub/)", "[f](Other%20Folder/)")
    expected = expected.replace("<Sub/Twin.md>", "<Other Folder/Twin.md>")
    expected = expected.replace("[[Sub/Twin]]", "[[Other Folder/Twin]]")
    assert (root / "Odd.md").read_text() == expected
    assert (root / "binary.md").read_bytes() == b"\xff\xfe\x00 [[Twin]]"
    moved = [(p, n, c, m.replace("'Sub/", "'Other Folder/")) for p, n, c, m in before]
    assert _check(run_kbtool, root) == moved


def test_the_chinese_fixture_vault(tmp_path: Path, run_kbtool) -> None:
    root = Path(shutil.copytree(FIXTURE.parent / "vault-zh", tmp_path / "vault"))
    (root / "expected-diagnostics.txt").unlink()
    assert run_kbtool("-C", root, "init", "--yes").code == 0
    before = _check(run_kbtool, root)
    _mv(
        run_kbtool, root, "概念/注意力机制.md", "方法/注意力.md"
    )  # renamed, and beside a Transformer
    _mv(run_kbtool, root, "概念/附件", "附件库")  # the attachments' folder
    _mv(run_kbtool, root, "归档/2023/Transformer.md", "Transformer.md")  # now the one by name
    text = (root / "链接.md").read_text()
    assert "[[注意力|这一篇]]" in text and "![[注意力#^item-2]]" in text
    assert "英文名不分大小写：[[方法/Transformer]]" in text  # else the root one would open
    assert "[注意力](%E6%B3%A8%E6%84%8F%E5%8A%9B.md)" in text
    assert "[[注意力#背景：为什么需要]]" in text
    assert _check(run_kbtool, root) == before


def test_links_in_a_table(make_wiki, run_kbtool) -> None:
    """In a table a wikilink's label follows an escaped `\\|`: the parser cannot place such a
    link, and it is found by its name on its line."""
    table = "# T\n\n| a | b |\n|---|---|\n| [[H]] [[H\\|x]] and [[H#Usage\\|y]] | [[H]] |\n"
    root = make_wiki(
        {"kbtool.toml": VAULT, "Sub/H.md": "# H\n\n## Usage\n", "T.md": table, "A/x.md": "# x\n"}
    )
    before = _check(run_kbtool, root)
    _mv(run_kbtool, root, "Sub/H.md", "Sub/Help.md")
    assert (root / "T.md").read_text() == table.replace("[[H", "[[Help")
    wiki = load_wiki(load_config(root), jobs=1, use_store=False)
    plan = plan_heading_rename(wiki, "Sub/Help.md", 3, "Use", lambda p: (root / p).read_bytes())
    assert plan.problems == []
    assert set(plan.edits) == {"T.md", "Sub/Help.md"}
    for path, edits in plan.edits.items():
        (root / path).write_bytes(apply_edits((root / path).read_bytes(), edits))
    assert "[[Help#Use\\|y]]" in (root / "T.md").read_text()
    assert _check(run_kbtool, root) == before


@pytest.mark.parametrize(
    ("setting", "plan", "home", "picture", "beside"),
    [
        ("shortest", "Projects/Plan", "Home", "diagram.png", "Headings"),  # Plan: a shared name
        ("relative", "../Projects/Plan", "../Home", "../Attachments/diagram.png", "Headings"),
        ("absolute", "Projects/Plan", "Home", "Attachments/diagram.png", "Notes/Headings"),
    ],
)
def test_a_new_link_as_newlinkformat_writes_it(
    vault: Path, setting: str, plan: str, home: str, picture: str, beside: str
) -> None:
    app = vault / ".obsidian/app.json"
    app.write_text(json.dumps({**json.loads(app.read_text()), "newLinkFormat": setting}))
    after = vault_after(load_wiki(load_config(vault), jobs=1, use_store=False), {})
    written = [link_path(after, p, "Notes/Links.md") for p in ("Projects/Plan.md", "Home.md")]
    assert written == [plan, home]
    assert link_path(after, "Attachments/diagram.png", "Notes/Links.md") == picture
    assert link_path(after, "Notes/Headings.md", "Notes/Links.md") == beside
