"""The package's shape, checked from its own imports: the layers of ``kbtool.layers`` point
only down, no imports go round in a circle, no module grows past 400 lines, and the
maintainers' page (docs/architecture.md) names the layers and record kinds the code has."""

from __future__ import annotations

import re
from pathlib import Path

import networkx as nx

from kbtool.layers import LAYERS, layer_of, upward_imports
from kbtool.store.code import imports_of, modules
from kbtool.store.records import KINDS

ROOT = Path(__file__).resolve().parent.parent


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
