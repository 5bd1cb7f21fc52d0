"""A wiki that is the whole repository (an Obsidian vault): which files are notes."""

from __future__ import annotations

from kbtool.config import load_config
from kbtool.discover import discover, left_out, page_kind

VAULT = {
    "kbtool.toml": 'wiki = "."\n',
    ".obsidian/app.json": "{}",
    ".obsidian/templates.json": '{"folder": "Meta/Templates"}',
    ".obsidian/snippets/x.md": "",
    ".trash/old.md": "",
    "Home.md": "# Home\n",
    "Notes/Deep/a.md": "",
    "Meta/Templates/Daily.md": "{{date}}\n",
    "Meta/about.md": "",
    "site/index.md": "",
    ".kbtool/x.md": "",
    "sources/p.md": "",
    "picture.png": b"\x89PNG",
}


def test_every_note_of_a_vault_and_nothing_else(make_wiki) -> None:
    root = make_wiki(VAULT)
    pages, bad = discover(load_config(root))
    assert [(p.path, p.kind) for p in pages] == [
        ("Home.md", "wiki"),
        ("Meta/about.md", "wiki"),
        ("Notes/Deep/a.md", "wiki"),
        ("sources/p.md", "source"),
    ]
    assert bad == []


def test_page_kind_agrees_with_the_walk(make_wiki) -> None:
    root = make_wiki(VAULT)
    config = load_config(root)
    kinds = {rel: page_kind(config, rel) for rel in VAULT}
    assert {rel for rel, kind in kinds.items() if kind} == {
        "Home.md",
        "Meta/about.md",
        "Notes/Deep/a.md",
        "sources/p.md",
    }
    assert page_kind(config, "Meta/Templates/New.md") is None
    assert page_kind(config, "New note.md") == "wiki"


def test_left_out_folders(make_wiki) -> None:
    root = make_wiki(VAULT)
    assert left_out(load_config(root)) == {"site", ".kbtool", "Meta/Templates"}


def test_a_broken_templates_setting_leaves_every_folder_in(make_wiki) -> None:
    root = make_wiki({**VAULT, ".obsidian/templates.json": "{not json"})
    paths = [p.path for p in discover(load_config(root))[0]]
    assert "Meta/Templates/Daily.md" in paths


def test_a_wiki_folder_leaves_out_the_templates_folder_in_it(make_wiki) -> None:
    root = make_wiki(
        {
            ".obsidian/templates.json": '{"folder": "wiki/templates"}',
            "wiki/a.md": "",
            "wiki/templates/t.md": "",
        }
    )
    assert [p.path for p in discover(load_config(root))[0]] == ["wiki/a.md"]
