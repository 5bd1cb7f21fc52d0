"""KB212: repository paths in inline code that name nothing; `kbtool mv` rewrites them."""

from __future__ import annotations

import json
from pathlib import Path

from kbtool.parse.page import parse_page

ON = '[tool.kbtool]\nseverity = { KB212 = "warning" }\n'


def test_the_parser_keeps_code_spans_that_look_like_paths() -> None:
    text = (
        "# T\n\n见 `wiki/a.md`、``sources/p/q.md#方法``、`kbtool/cli.py:42`，"
        "不是 `x = a/b`、`a.md`、`/etc/passwd`、`../up/x.md`、`https://x.org/a.md`。\n"
        "```\nwiki/in/fence.md\n```\n"
    )
    page = parse_page("wiki/t.md", text.encode(), "wiki")
    assert page.code_paths == (
        ("wiki/a.md", 3, 4),
        ("sources/p/q.md#方法", 3, 17),
        ("kbtool/cli.py:42", 3, 38),
    )


def _repo(make_wiki, page) -> Path:
    return make_wiki(
        {
            "pyproject.toml": ON,
            "wiki/concepts/a.md": page("# A\n"),
            "wiki/concepts/b.md": page(
                "# B\n\n见 `wiki/concepts/a.md#x`，`wiki/concepts/gone.md`，"
                "`torch/nn/functional.py`，`sources/none.md:3`，`wiki/concepts/`。\n"
                "[`wiki/concepts/a.md`](a.md)\n",
                related=["a.md"],
            ),
            "sources/keep.md": "# S\n",
        }
    )


def test_kb212_names_the_missing_paths_of_this_repository(make_wiki, page, check_wiki) -> None:
    found = [(d.path, d.line, d.col) for d in check_wiki(_repo(make_wiki, page), select=["KB212"])]
    assert found == [("wiki/concepts/b.md", 10, 27), ("wiki/concepts/b.md", 10, 76)]


def test_kb212_is_off_by_default(make_wiki, page, check_wiki) -> None:
    root = _repo(make_wiki, page)
    (root / "pyproject.toml").write_text("", encoding="utf-8")
    assert check_wiki(root, select=["KB212"]) == []


def test_kb212_incremental_a_file_that_appears(make_wiki, page, run_kbtool) -> None:
    root = _repo(make_wiki, page)

    def codes() -> list[tuple[str, int]]:
        result = run_kbtool("-C", root, "check", "--format", "json", "--select", "KB212")
        return [(d["path"], d["col"]) for d in json.loads(result.out)["diagnostics"]]

    assert codes() == [("wiki/concepts/b.md", 27), ("wiki/concepts/b.md", 76)]
    (root / "wiki/concepts/gone.md").write_text(page("# G\n"), encoding="utf-8")
    assert codes() == [("wiki/concepts/b.md", 76)]
    (root / "sources/none.md").write_text("# N\n", encoding="utf-8")
    assert codes() == []


def test_mv_rewrites_code_paths_unless_told_not_to(make_wiki, page, run_kbtool) -> None:
    root = _repo(make_wiki, page)
    kept = run_kbtool(
        "-C", root, "mv", "-n", "--keep-code-paths", "wiki/concepts/a.md", "wiki/c.md"
    )
    assert kept.code == 0 and "`wiki/c.md" not in kept.out
    moved = run_kbtool("-C", root, "mv", "wiki/concepts/a.md", "wiki/c.md")
    assert moved.code == 0, moved.err
    text = (root / "wiki/concepts/b.md").read_text(encoding="utf-8")
    assert "见 `wiki/c.md#x`，`wiki/concepts/gone.md`" in text
    assert "[`wiki/c.md`](../c.md)" in text
