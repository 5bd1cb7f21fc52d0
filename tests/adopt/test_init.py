"""``kbtool init``: a configuration proposed from the wiki, written without touching the rest."""

from __future__ import annotations

import json
import re
import tomllib
from pathlib import Path

import pytest

from kbtool.adopt.cells import why_not_runnable
from kbtool.model import Cell
from tests.adopt.support import REAL_PROBLEMS, write_real_like_wiki

OTHER_TOOLS = """\
# The project's own settings; kbtool init must leave every byte of them alone.
[build-system]
requires = ["setuptools>=68", "wheel"]
build-backend = "setuptools.build_meta"

[project]
name = "robot-wiki"   # odd spacing, kept
version = "0.3.0"
dependencies = [
  "numpy>=1.26",
    "matplotlib",  # a comment inside an array
]

[tool.black]
line-length = 100
target-version = ['py311']

[tool.ruff]
line-length = 100

[tool.ruff.lint]
select = ["E", "F"]     # trailing spaces and a comment

[[tool.mypy.overrides]]
module = "yaml.*"
ignore_missing_imports = true

[tool.pytest.ini_options]
addopts = '''
  -q
  --strict-markers
'''
""".replace("and a comment\n", "and a comment   \n")  # trailing blanks, kept too


@pytest.fixture
def real_like(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    root.mkdir()
    return write_real_like_wiki(root)


def _table(root: Path) -> dict:
    with (root / "pyproject.toml").open("rb") as f:
        return tomllib.load(f)["tool"]["kbtool"]


def test_init_on_a_real_like_wiki(run_kbtool, real_like: Path) -> None:
    result = run_kbtool("-C", real_like, "init", "--yes")
    assert result.code == 0, result.err
    table = _table(real_like)
    assert table["wiki"] == ["wiki", "roadmap"]
    assert table["sources"] == "sources"
    assert table["types"] == ["concept", "method", "entity", "formalization", "roadmap"]
    assert table["execute"] == "opt-in"
    assert table["source-date"] == {"label": "入库日期"}
    assert table["severity"] == {"KB302": "off"}
    text = (real_like / "pyproject.toml").read_text(encoding="utf-8")
    assert '"concept",  # 7 pages' in text and '"roadmap",  # 2 pages' in text
    assert re.search(r'KB302 = "off"  # 22 reports on 21 of 23 wiki pages \(91%\)', text)
    # It says what it chose and why.
    assert "'conept' (1 page) left out" in result.out
    assert "'roadmap' added as a further wiki folder: 3 `related` entries" in result.out
    assert "10 of 12 python blocks would not run as written" in result.out
    assert "a date on 6 of 8 source pages" in result.out
    assert "+[tool.kbtool]" in result.out  # the diff


def test_init_then_check_reports_only_real_problems(run_kbtool, real_like: Path) -> None:
    before = run_kbtool("-C", real_like, "check", "--format", "json")
    codes_before = {d["code"] for d in json.loads(before.out)["diagnostics"]}
    assert {"KB302", "KB202", "KB110"} <= codes_before  # what a first run drowns in
    assert run_kbtool("-C", real_like, "init", "--yes").code == 0
    after = run_kbtool("-C", real_like, "check", "--format", "json")
    found = json.loads(after.out)["diagnostics"]
    assert {d["code"] for d in found} == REAL_PROBLEMS
    assert len(found) == 4
    assert after.code == 1  # the misspelt type and the broken link are still errors


def test_running_init_twice_changes_nothing(run_kbtool, real_like: Path) -> None:
    assert run_kbtool("-C", real_like, "init", "--yes").code == 0
    first = (real_like / "pyproject.toml").read_bytes()
    again = run_kbtool("-C", real_like, "init", "--yes")
    assert again.code == 0 and "nothing to change" in again.out
    assert (real_like / "pyproject.toml").read_bytes() == first


def test_init_keeps_the_users_own_keys_and_comments(run_kbtool, real_like: Path) -> None:
    mine = (
        '[tool.kbtool]\nsite-title = "机器人知识库"  # ours\nexecute = "all"\n\n'
        '[tool.kbtool.severity]\nKB301 = "error"  # we gate on orphans\n'
    )
    (real_like / "pyproject.toml").write_text(mine, encoding="utf-8")
    assert run_kbtool("-C", real_like, "init", "--yes").code == 0
    text = (real_like / "pyproject.toml").read_text(encoding="utf-8")
    assert 'site-title = "机器人知识库"  # ours' in text
    assert 'KB301 = "error"  # we gate on orphans' in text
    table = _table(real_like)
    assert table["execute"] == "opt-in"
    assert table["severity"] == {"KB301": "error", "KB302": "off"}


def _without_kbtool(text: str) -> str:
    """``text`` with its [tool.kbtool] and [tool.kbtool.*] sections cut out."""
    out, skipping = [], False
    for line in text.splitlines(keepends=True):
        header = re.match(r"^\s*\[\[?([^\]]+)\]", line)
        if header:
            skipping = header.group(1).strip().startswith("tool.kbtool")
        if not skipping:
            out.append(line)
    return "".join(out)


@pytest.mark.parametrize("ending", ["", "\n", "\n\n"])
def test_other_tools_tables_come_back_byte_identical(
    run_kbtool, real_like: Path, ending: str
) -> None:
    original = OTHER_TOOLS.rstrip("\n") + ending
    (real_like / "pyproject.toml").write_text(original, encoding="utf-8")
    assert run_kbtool("-C", real_like, "init", "--yes").code == 0
    written = (real_like / "pyproject.toml").read_text(encoding="utf-8")
    assert written != original and "[tool.kbtool]" in written
    assert _without_kbtool(written).rstrip("\n") == original.rstrip("\n")
    assert written.startswith(original.rstrip("\n"))  # appended, nothing before it moved


def test_an_existing_kbtool_table_between_others_is_edited_in_place(
    run_kbtool, real_like: Path
) -> None:
    original = OTHER_TOOLS.replace(
        "[tool.ruff]\n", '[tool.kbtool]\nsite-title = "x"\n\n[tool.ruff]\n'
    )
    (real_like / "pyproject.toml").write_text(original, encoding="utf-8")
    assert run_kbtool("-C", real_like, "init", "--yes").code == 0
    written = (real_like / "pyproject.toml").read_text(encoding="utf-8")
    assert _without_kbtool(written) == _without_kbtool(original)
    assert written.index("[tool.kbtool]") < written.index("[tool.ruff]")


def test_init_on_an_empty_wiki(run_kbtool, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    result = run_kbtool("-C", root, "init", "--yes")
    assert result.code == 0
    assert _table(root) == {"wiki": "wiki", "sources": "sources"}
    check = run_kbtool("-C", root, "check")
    assert check.code == 0 and check.lines[-1].startswith("0 errors, 0 warnings, 0 pages")


def test_init_without_any_wiki_says_what_to_create(run_kbtool, tmp_path: Path) -> None:
    result = run_kbtool("-C", tmp_path, "init", "--yes")
    assert result.code == 0
    assert "no wiki pages found: create wiki/" in result.out
    assert _table(tmp_path) == {"wiki": "wiki", "sources": "sources"}


@pytest.mark.parametrize(
    ("text", "where"),
    [
        ('[project]\nname = "x\n', "pyproject.toml:2:"),
        ("[tool.black]\nline-length = 100\n[tool.black]\n", "pyproject.toml:3:"),
        ('[project]\nname = "x"\nversion = = 1\n', "pyproject.toml:3:"),
    ],
)
def test_invalid_toml_is_refused_and_left_alone(
    run_kbtool, real_like: Path, text: str, where: str
) -> None:
    (real_like / "pyproject.toml").write_text(text, encoding="utf-8")
    result = run_kbtool("-C", real_like, "init", "--yes")
    assert result.code == 2
    assert where in result.err and "not valid TOML" in result.err
    assert "nothing was changed" in result.err
    assert (real_like / "pyproject.toml").read_text(encoding="utf-8") == text


def test_an_invalid_kbtool_table_is_refused(run_kbtool, real_like: Path) -> None:
    text = '[tool.kbtool]\nexecute = "sometimes"\n'
    (real_like / "pyproject.toml").write_text(text, encoding="utf-8")
    result = run_kbtool("-C", real_like, "init", "--yes")
    assert result.code == 2 and "'execute' must be" in result.err
    assert (real_like / "pyproject.toml").read_text(encoding="utf-8") == text


def test_without_yes_and_without_a_terminal_nothing_is_written(run_kbtool, real_like: Path) -> None:
    result = run_kbtool("-C", real_like, "init")
    assert result.code == 0 and "nothing written" in result.out
    assert "+[tool.kbtool]" in result.out
    assert not (real_like / "pyproject.toml").exists()


def test_confirmation_on_a_terminal(
    run_kbtool, real_like: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("sys.stdin.isatty", lambda: True, raising=False)
    answers = iter(["n", "y"])
    monkeypatch.setattr("builtins.input", lambda _prompt: next(answers))
    assert "nothing written" in run_kbtool("-C", real_like, "init").out
    assert not (real_like / "pyproject.toml").exists()
    assert run_kbtool("-C", real_like, "init").code == 0
    assert _table(real_like)["execute"] == "opt-in"


def test_share_decides_which_rules_are_turned_down(run_kbtool, real_like: Path) -> None:
    assert run_kbtool("-C", real_like, "init", "--yes", "--share", "95%").code == 0
    assert "severity" not in _table(real_like)
    assert run_kbtool("-C", real_like, "init", "--share", "1.5").code == 2


def _cell(source: str, tags: list[str] | None = None) -> Cell:
    options = {"tags": tags} if tags else {}
    return Cell(0, "python", "python", options, source, 1, 2)


@pytest.mark.parametrize(
    ("source", "why"),
    [
        ("x = 1\nprint(x)\n", None),
        ("import numpy as np\nnp.zeros(3)\n", None),
        (">>> 1 + 1\n2\n", None),
        ("for t in range(T):\n    a = π(o)\n", "undefined"),
        ("if x > 0 then y\n", "syntax"),
        ("import isaacgym\n", "import"),
        ("def f(x):\n    ...\n", "sketch"),
        ("x = 1\n", "skip"),
        ("(" * 500 + ")" * 500, "syntax"),
    ],
)
def test_which_blocks_are_meant_to_run(source: str, why: str | None) -> None:
    tags = ["skip-execution"] if why == "skip" else None
    found = why_not_runnable(_cell(source, tags))
    assert (found[0] if found else None) == why


def test_names_defined_by_an_earlier_block_of_the_page_count() -> None:
    defined: set[str] = set()
    assert why_not_runnable(_cell("import math\nr = 2\n"), defined) is None
    assert why_not_runnable(_cell("area = math.pi * r**2\n"), defined) is None


def test_check_after_init_finds_the_pages_parsed(
    run_kbtool, real_like: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import kbtool.parse.page

    assert run_kbtool("-C", real_like, "init", "--yes").code == 0
    parsed: list[str] = []
    real = kbtool.parse.page.parse_page_tokens

    def counting(path, *args, **kwargs):  # type: ignore[no-untyped-def]
        parsed.append(path)
        return real(path, *args, **kwargs)

    monkeypatch.setattr(kbtool.parse.page, "parse_page_tokens", counting)
    run_kbtool("-C", real_like, "check", "-j", "1")
    assert parsed == []  # parsed pages do not depend on the settings init wrote


@pytest.mark.parametrize(
    "text",
    [
        "[[tool]]\nx = 1\n",
        "tool = { black = { x = 1 } }\n",
        '[tool]\nkbtool = { wiki = "wiki" }\n',
    ],
)
def test_forms_init_cannot_edit_are_refused_untouched(
    run_kbtool, real_like: Path, text: str
) -> None:
    (real_like / "pyproject.toml").write_text(text, encoding="utf-8")
    result = run_kbtool("-C", real_like, "init", "--yes")
    assert result.code == 2 and "nothing was changed" in result.err.lower()
    assert (real_like / "pyproject.toml").read_text(encoding="utf-8") == text


def test_a_kbtool_table_split_around_another_is_edited(run_kbtool, real_like: Path) -> None:
    text = '[tool.kbtool]\nsite-title = "x"\n\n[tool.other]\na = 1\n\n[tool.kbtool.severity]\n'
    text += 'KB301 = "error"\n'
    (real_like / "pyproject.toml").write_text(text, encoding="utf-8")
    assert run_kbtool("-C", real_like, "init", "--yes").code == 0
    written = (real_like / "pyproject.toml").read_text(encoding="utf-8")
    assert "[tool.other]\na = 1\n" in written
    assert _table(real_like)["severity"] == {"KB301": "error", "KB302": "off"}


def test_a_wiki_in_another_folder_is_found(run_kbtool, tmp_path: Path) -> None:
    root = tmp_path / "repo"
    page = '---\ntype: note\nsummary: "s"\nupdated: 2020-01-01\n---\n# {0}\n'
    for i in range(3):
        path = root / "kb" / f"p{i}.md"
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(page.format(i), encoding="utf-8")
    (root / "docs").mkdir()
    (root / "docs" / "readme.md").write_text("# Docs\n", encoding="utf-8")
    result = run_kbtool("-C", root, "init", "--yes")
    assert result.code == 0 and 'wiki = "kb"' in result.out
    assert _table(root)["wiki"] == "kb" and _table(root)["types"] == ["note"]


def test_a_required_key_most_pages_lack_is_left_out(run_kbtool, make_wiki) -> None:
    files = {}
    for i in range(6):
        summary = 'summary: "s"\n' if i == 0 else ""
        related = f"related: [p{(i + 1) % 6}.md, p{(i - 1) % 6}.md]\n"
        text = f"---\ntype: concept\n{summary}updated: 2020-01-01\n{related}---\n# P{i}\n"
        files[f"wiki/p{i}.md"] = text
    root = make_wiki(files)
    result = run_kbtool("-C", root, "init", "--yes")
    assert "required: 'summary' left out: 5 of 6 wiki pages (83%) do not have it" in result.out
    assert _table(root)["required"] == ["type", "updated"]
    assert "severity" not in _table(root)  # KB106 no longer fires, so nothing to turn down
    assert run_kbtool("-C", root, "check").code == 0
