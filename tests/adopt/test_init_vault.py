"""``kbtool init`` in an Obsidian vault or a folder of notes: the whole folder is the wiki."""

from __future__ import annotations

import tomllib
from pathlib import Path

import pytest

from kbtool.adopt import rules

NOTES = {
    ".obsidian/app.json": "{}",
    ".obsidian/templates.json": '{"folder": "Templates"}',
    "Templates/Daily.md": "# {{date}}\n[[Nowhere at all]]\n",
    "Home.md": "# Home\n\nStart at [[Ideas]] and [[Projects/Plan]]; [[Someday]] is to come.\n",
    "Ideas.md": "Some ideas about gardens and the [[Home]] note, written in English.\n",
    "Projects/Plan.md": "---\ntags: [plan]\n---\nThe plan, back to [[Home]].\n",
}


def _settings(root: Path) -> dict:
    with (root / "kbtool.toml").open("rb") as f:
        return tomllib.load(f)


def test_init_in_a_vault_proposes_the_whole_vault(run_kbtool, make_wiki) -> None:
    root = make_wiki(NOTES)
    result = run_kbtool("-C", root, "init", "--yes")
    assert result.code == 0, result.err
    assert not (root / "pyproject.toml").exists()
    settings = _settings(root)
    assert settings["wiki"] == "." and settings["flavor"] == "obsidian"
    assert settings["types"] == [] and settings["required"] == []
    assert settings["language"] == "en"
    assert settings["severity"]["KB209"] == "warning"
    assert "an Obsidian vault" in result.out
    check = run_kbtool("-C", root, "check")
    # the one note not created yet, a warning; the template's link is no note's
    assert check.lines[:-1] == [
        "Home.md:3:45: KB209 warning wikilink '[[Someday]]' matches no note or file"
    ], check.out
    assert check.code == 0 and "3 pages checked" in check.lines[-1]


def test_init_twice_changes_nothing(run_kbtool, make_wiki) -> None:
    root = make_wiki(NOTES)
    assert run_kbtool("-C", root, "init", "--yes").code == 0
    first = (root / "kbtool.toml").read_bytes()
    again = run_kbtool("-C", root, "init", "--yes")
    assert again.code == 0 and "kbtool.toml already says this" in again.out
    assert (root / "kbtool.toml").read_bytes() == first


def test_a_vault_with_a_pyproject_is_configured_there(run_kbtool, make_wiki) -> None:
    root = make_wiki({**NOTES, "pyproject.toml": '[project]\nname = "notes"\n'})
    assert run_kbtool("-C", root, "init", "--yes").code == 0
    assert not (root / "kbtool.toml").exists()
    text = (root / "pyproject.toml").read_text(encoding="utf-8")
    assert 'wiki = "."' in text and text.startswith('[project]\nname = "notes"\n')


def test_a_chinese_vault_gets_a_chinese_site(run_kbtool, make_wiki) -> None:
    root = make_wiki(
        {".obsidian/app.json": "{}", "首页.md": "# 首页\n\n这是一个关于注意力机制的笔记库。\n"}
    )
    assert run_kbtool("-C", root, "init", "--yes").code == 0
    assert "language" not in _settings(root)  # zh is the default
    assert _settings(root)["wiki"] == "."


def test_a_folder_of_notes_without_frontmatter_is_a_wiki(run_kbtool, make_wiki) -> None:
    root = make_wiki({"a.md": "# A\n[[b]]\n", "b.md": "# B\n[[a]]\n", "sub/c.md": "[[a]]\n"})
    result = run_kbtool("-C", root, "init", "--yes")
    assert result.code == 0, result.err
    assert _settings(root)["wiki"] == "."
    assert run_kbtool("-C", root, "check").code == 0


def test_a_kbtool_toml_and_a_kbtool_table_are_refused(run_kbtool, make_wiki) -> None:
    root = make_wiki(
        {**NOTES, "kbtool.toml": 'wiki = "."\n', "pyproject.toml": '[tool.kbtool]\nwiki = "x"\n'}
    )
    result = run_kbtool("-C", root, "init", "--yes")
    assert result.code == 2 and "keep one of them" in result.err


def test_a_check_with_too_many_reports_is_proposed_off(
    run_kbtool, make_wiki, monkeypatch: pytest.MonkeyPatch
) -> None:
    titles = ["Alpha", "Beta", "Gamma"]
    text = "about alpha, then beta, then gamma."
    files = {f"{t}.md": f"# {t}\n\n{text}\n" for t in titles}
    files[".obsidian/app.json"] = "{}"
    root = make_wiki(files)
    monkeypatch.setattr(rules, "READABLE", 3)
    result = run_kbtool("-C", root, "init", "--yes")
    assert result.code == 0, result.err
    assert "KB306 (" in result.out and "left off. Most on" in result.out
    assert "kbtool check --select KB306" in result.out
    assert "KB306" not in _settings(root).get("severity", {})


def test_a_project_with_its_own_folders_is_not_taken_whole(run_kbtool, make_wiki) -> None:
    root = make_wiki(
        {
            "notes/a.md": "---\ntype: note\n---\n# A\n",
            "README.md": "# Project\n",
            "docs/x.md": "# X\n",
            "docs/y.md": "# Y\n",
            "node_modules/pkg/README.md": "# Pkg\n",
        }
    )
    assert run_kbtool("-C", root, "init", "--yes").code == 0
    assert 'wiki = "notes"' in (root / "pyproject.toml").read_text(encoding="utf-8")
