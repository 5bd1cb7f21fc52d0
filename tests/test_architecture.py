"""The package's shape, checked from its own imports: the layers of ``kbtool.layers`` point
only down, no imports go round in a circle, no module grows past 400 lines, every command is
a module of one shape, the tests mirror the packages, and the maintainers' page
(docs/architecture.md) says of the layers, the stages' modules, the reused values and the
record kinds what the code has."""

from __future__ import annotations

import ast
import contextlib
import importlib
import re
import sqlite3
from collections import Counter
from pathlib import Path

import networkx as nx

from kbtool.layers import LAYERS, layer_of, upward_imports
from kbtool.store.code import imports_of, modules
from kbtool.store.db import FILENAME, open_store
from kbtool.store.records import KINDS

ROOT = Path(__file__).resolve().parent.parent
TESTS = ROOT / "tests"


def test_every_module_is_in_a_layer() -> None:
    for module in modules():
        layer_of(module)  # raises for a module no layer claims


def test_no_module_imports_from_a_layer_above_its_own() -> None:
    assert upward_imports() == []


def test_upward_imports_are_found() -> None:
    # The check above could pass by finding no imports at all: it finds a real one.
    assert "kbtool.stages.load" in imports_of("kbtool.stages.check")
    assert layer_of("kbtool.stages.check") < layer_of("kbtool.store.db")


def test_no_import_circles() -> None:
    graph = nx.DiGraph()
    for module in modules():
        for other in imports_of(module):
            # `from kbtool.a.b import x` runs kbtool.a's __init__ first: not a circle of ours
            if not module.startswith(other + "."):
                graph.add_edge(module, other)
    assert list(nx.simple_cycles(graph)) == []


def test_no_module_over_400_lines() -> None:
    long = {
        name: n
        for name, path in modules().items()
        if (n := len(path.read_text(encoding="utf-8").splitlines())) > 400
    }
    assert long == {}


def test_the_architecture_page_names_every_layer_in_order_and_every_record_kind() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    positions = [text.find(f"**{name}**") for name, _, _ in LAYERS]
    assert -1 not in positions and positions == sorted(positions)
    for _, _, members in LAYERS:
        for member in members:
            if member in modules():
                assert f"`{member.removeprefix('kbtool.') or 'kbtool'}" in text, member
    for kind in KINDS:
        assert f"| `{kind.name}` |" in text, kind.name


def test_the_architecture_page_describes_every_record_kind_as_declared() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(
        r"^\| `(\w+)` \| (.+?) \| ([^|]+?) \| `([\w.]+)` \| (yes|no) \|$", text, re.MULTILINE
    )
    assert [name for name, *_ in rows] == [kind.name for kind in KINDS]
    for (_, key, codec, producer, per_page), kind in zip(rows, KINDS, strict=True):
        # the page may say more of the key, in brackets, than the registry's note of it
        assert kind.key_parts.startswith(key.replace("`", "").split("(")[0].strip()), kind.name
        assert codec.startswith(kind.codec.name), kind.name
        assert (f"kbtool.{producer}", per_page == "yes") == (kind.producer, kind.per_page)


def test_the_architecture_page_names_every_module_of_the_stages() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    stages = [
        name.removeprefix("kbtool.")
        for name, path in modules().items()
        if name.startswith("kbtool.stages.") and path.name != "__init__.py"
    ]
    assert len(stages) > 20
    publish_row = next(line for line in text.splitlines() if line.startswith("| publish |"))
    unnamed = [
        name
        for name in stages
        if f"`{name.replace('.', '/')}.py`" not in text  # `stages/scan.py`
        and f"`{name}`" not in text  # `stages.upkeep`, a producer
        and not (name.startswith("stages.publish.") and f"`{name[15:]}`" in publish_row)
    ]
    assert unnamed == []


def test_the_architecture_page_names_every_table_of_the_store(tmp_path: Path) -> None:
    open_store(tmp_path).close()
    with contextlib.closing(sqlite3.connect(tmp_path / FILENAME)) as db:
        rows = db.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    tables = sorted(name for (name,) in rows if not name.startswith("sqlite_"))
    assert "records" in tables
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    assert [table for table in tables if f"`{table}`" not in text] == []


def test_every_command_is_a_module_with_its_arguments_and_run() -> None:
    commands = [name for name in modules() if name.startswith("kbtool.commands.")]
    assert len(commands) > 10
    for name in commands:
        module = importlib.import_module(name)
        assert callable(getattr(module, "add_arguments", None)), name
        assert callable(getattr(module, "run", None)), name


def test_the_rules_api_the_architecture_page_names_is_public() -> None:
    import kbtool.rules

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = re.search(r"`rules` \(the public API[^)]*\)", text)
    assert named is not None
    names = re.findall(r"`(\w+)`", named.group(0))[1:]
    assert names and set(names) <= set(kbtool.rules.__all__)


def test_the_architecture_page_lists_every_reused_value_as_declared() -> None:
    from kbtool.stages.reused import ALL

    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    rows = re.findall(r"^\| `([^`]+)` \| (.+?) \| (process[^|]*) \|$", text, re.MULTILINE)
    assert [(name, made_of) for name, made_of, _ in rows] == [(v.name, v.made_of) for v in ALL]
    for (_, _, where), value in zip(rows, ALL, strict=True):
        assert where.startswith(value.where)
        assert (value.record is None) == ("records)" not in where)


def test_every_module_the_architecture_page_names_exists() -> None:
    text = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")
    named = set(re.findall(r"`((?:stages|reuse|store|checks|lsp|search|render)/[\w/]+\.py)`", text))
    assert len(named) > 20  # the stage table's modules among them
    missing = [path for path in sorted(named) if not (ROOT / "kbtool" / path).is_file()]
    assert missing == []


def test_no_name_in_the_code_is_a_word_the_glossary_retired() -> None:
    retired = re.compile(r"\b(?:class|def)\s+\w*(?:Kept|Memo(?!ry)|Manifest|_memo(?!ry))")
    found = [
        name for name, path in modules().items() if retired.search(path.read_text(encoding="utf-8"))
    ]
    assert found == []


# The tests mirror the packages: tests/search/ holds the tests of kbtool/search/.


def _packages() -> set[str]:
    """kbtool's packages as folders under kbtool/: "search", "stages/publish", ..."""
    return {
        name.removeprefix("kbtool.").replace(".", "/")
        for name, path in modules().items()
        if path.name == "__init__.py" and name != "kbtool"
    }


def _test_folders() -> set[str]:
    """The folders under tests/ that hold Python modules (fixture wikis hold none of them)."""
    fixtures = TESTS / "fixtures"
    return {
        path.parent.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("*.py")
        if path.parent != TESTS and fixtures not in path.parents
    }


def test_every_test_folder_is_named_after_a_package() -> None:
    folders = _test_folders()
    assert {"search", "stages", "stages/publish"} <= folders  # the check looks at real folders
    assert sorted(folders - _packages()) == []
    # each a package (__init__.py): tests/lsp/test_rules.py and tests/test_rules.py are two modules
    assert [f for f in sorted(folders) if not (TESTS / f / "__init__.py").is_file()] == []


def test_no_test_module_is_named_for_the_folder_it_should_be_in() -> None:
    # tests/test_search_ranking.py belongs in tests/search/ as test_ranking.py, and
    # tests/search/test_search_ranking.py says "search" twice.
    tops = {package.split("/")[0] for package in _packages()}
    misnamed = [
        path.relative_to(TESTS).as_posix()
        for path in TESTS.rglob("test_*.py")
        for prefix in (tops if path.parent == TESTS else {path.parent.name})
        if path.stem == f"test_{prefix}" or path.stem.startswith(f"test_{prefix}_")
    ]
    assert misnamed == []


#: imports that say nothing of what a test is about: the entry points, the model, the base
_EVERYWHERE = {
    member
    for layer, _, members in LAYERS
    if layer in ("commands", "model", "base")
    for member in members
    if member != "kbtool"
}

#: test modules kept beside what they test, though they import more of another package
ELSEWHERE = {
    "checks/test_code_paths.py": "KB212 (checks/code_paths.py); the parser is asked for code spans",
    "checks/test_files.py": "KB0xx through the checks; the scan is patched to fail a read",
    "lsp/test_session.py": "the editor's session (lsp/state.py); the check state it leaves is "
    "read from the stages' reuse, and a stage is patched to count reads",
    "render/test_hubs.py": "the most linked page (render/indexes.py), read on a built site",
    "search/test_cli.py": "`kbtool search` through main; the parser is patched to count parses",
    "search/test_text.py": "what search/text.py takes from a page, given pages the parser made",
    "stages/test_listed.py": "the listings digest (stages/listed.py), given the site's listings",
    "stages/publish/test_published.py": "the site's record (stages/publish/published.py), read "
    "back from a store in memory",
}


def _home(module: str) -> str:
    """The folder under kbtool/ of a module's package: "stages" for kbtool.stages.site."""
    folder = modules()[module].parent.relative_to(modules()["kbtool"].parent).as_posix()
    return "" if folder == "." else folder


def _imported_homes(path: Path) -> Counter[str]:
    """How many of kbtool's modules a test module imports, by package ("" for the top level),
    leaving out the entry points, the model and the base, which every kind of test imports."""
    known = modules()
    imported: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            imported |= {alias.name for alias in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:  # `from kbtool.render import similar` imports a module
                name = f"{node.module}.{alias.name}"
                imported.add(name if name in known else node.module)
    return Counter(
        _home(name)
        for name in imported
        if name in known and not any(name == m or name.startswith(m + ".") for m in _EVERYWHERE)
    )


def test_a_test_module_is_in_the_folder_of_the_package_it_imports_most() -> None:
    # A module that imports none of them tests through the command line; it is placed by hand.
    misplaced: list[str] = []
    needless: list[str] = []
    for path in sorted(TESTS.rglob("test_*.py")):
        folder = path.parent.relative_to(TESTS).as_posix()
        homes = _imported_homes(path)
        if folder == "." or not homes:
            continue
        most = {home for home, n in homes.items() if n == max(homes.values())}
        rel = path.relative_to(TESTS).as_posix()
        if folder not in most and rel not in ELSEWHERE:
            misplaced.append(f"{rel}: imports most from {sorted(most)}")
        if folder in most and rel in ELSEWHERE:
            needless.append(rel)
    assert misplaced == []
    assert needless == []  # an exception no longer needed leaves the table
    assert all((TESTS / rel).is_file() for rel in ELSEWHERE)
