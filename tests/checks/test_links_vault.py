"""KB2xx in a vault: what Obsidian leaves unresolved is reported, what it resolves is not;
a wiki of GitHub-style links keeps its rules."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

VAULT = 'wiki = "."\nflavor = "obsidian"\n[severity]\nKB101 = "off"\nKB301 = "off"\n'
HEADINGS = "# H\n\n## Setup: first\n\n### Install\n\n## Usage\n\nA block. ^b-1\n\n## Usage\n"


def _codes(run_kbtool, root: Path) -> list[tuple[str, str]]:
    result = run_kbtool("-C", root, "check", "--format", "json")
    found = json.loads(result.out)["diagnostics"]
    return [(d["code"], d["message"]) for d in found if d["path"] == "Links.md"]


@pytest.mark.parametrize(
    "link",
    [
        "[[H#Setup first]]",  # a heading by its text, as Obsidian writes it
        "[[H#Setup: first]]",
        "[[h#usage]]",
        "[[H#setup-first]]",  # a GitHub slug keeps working
        "[[H#Setup first#Install]]",
        "[[H#^b-1]]",
        "![[H#^b-1]]",
        "[[Sub/H]]",
        "[[H.md#Usage]]",
        "[x](H.md#Setup%20first)",
        "[x](<Sub/H.md#Usage>)",
        "[[#Mine]]",
        "[x](#Mine)",
        "![[a.png]]",
        "![[img/a.png|200]]",
        "[[doc.pdf#page=3]]",
        "![](a.png)",
    ],
)
def test_what_obsidian_resolves_is_not_reported(run_kbtool, make_wiki, link: str) -> None:
    root = make_wiki(
        {
            "kbtool.toml": VAULT,
            "Sub/H.md": HEADINGS,
            "Links.md": f"# L\n\n## Mine\n\n{link}\n",
            "img/a.png": b"\x89PNG",
            "doc.pdf": b"%PDF",
        }
    )
    assert _codes(run_kbtool, root) == []


@pytest.mark.parametrize(
    ("link", "code", "says"),
    [
        ("[[Nobody]]", "KB209", "matches no note or file"),
        ("[[Other/H]]", "KB209", "matches no note or file"),
        ("![[b.png]]", "KB209", "matches no note or file"),
        ("[x](Nobody.md)", "KB207", "does not exist"),
        ("[[H#Nope]]", "KB208", "matches no heading"),
        ("[[H#Usage#Nope]]", "KB208", "matches no heading"),
        ("[[H#^nope]]", "KB208", "matches no block"),
        ("[[#Nope]]", "KB208", "matches no heading of this page"),
        ("[[Twin]]", "KB211", "matches several notes or files (A/Twin.md, B/Twin.md)"),
    ],
)
def test_what_obsidian_leaves_unresolved_is_reported(
    run_kbtool, make_wiki, link: str, code: str, says: str
) -> None:
    root = make_wiki(
        {
            "kbtool.toml": VAULT,
            "Sub/H.md": HEADINGS,
            "A/Twin.md": "# A\n",
            "B/Twin.md": "# B\n",
            "Links.md": f"# L\n\n{link}\n",
        }
    )
    found = _codes(run_kbtool, root)
    assert len(found) == 1 and found[0][0] == code and says in found[0][1], found


def test_the_nearer_of_two_notes_alike_is_no_ambiguity(run_kbtool, make_wiki) -> None:
    root = make_wiki(
        {
            "kbtool.toml": VAULT,
            "Twin.md": "# Twin\n\n## Top\n",
            "A/B/Twin.md": "# Twin deep\n\n## Deep\n",
            "Links.md": "# L\n\n[[Twin#Top]] [[B/Twin#Deep]]\n",
        }
    )
    assert _codes(run_kbtool, root) == []


def test_a_github_style_wiki_keeps_its_rules(run_kbtool, make_wiki, page) -> None:
    """No Obsidian resolution outside a vault: a path suffix, a heading's text in a Markdown
    link and a file by name alone are still reported."""
    root = make_wiki(
        {
            "wiki/sub/h.md": page("# H\n\n## Setup first\n"),
            "wiki/a.md": page(
                "# A\n\n[[sub/h]] [x](sub/h.md#Setup%20first) ![](pic.png) [[sub/h#Setup first]]\n",
                related=["sub/h.md"],
            ),
            "wiki/img/pic.png": b"\x89PNG",
        }
    )
    result = run_kbtool("-C", root, "check", "--format", "json")
    found = {(d["code"], d["col"]) for d in json.loads(result.out)["diagnostics"]}
    assert {code for code, _ in found if code.startswith("KB2")} == {"KB207", "KB208", "KB209"}
