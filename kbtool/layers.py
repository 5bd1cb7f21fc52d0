"""The layers of the package, top to bottom: a module imports only from its own layer or
below, and no imports go round in a circle (``tests/test_architecture.py`` checks both from
the code's imports; ``python -m kbtool.layers`` draws them as a Graphviz graph).
"""

from __future__ import annotations

import sys
from collections import Counter

from kbtool.store.code import imports_of, modules

#: (layer, what it is, its packages and modules), top first
LAYERS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "commands",
        "argv -> library calls -> printed report -> exit code",
        ("kbtool.__main__", "kbtool.cli", "kbtool.commands", "kbtool.layers"),
    ),
    (
        "front ends",
        "long-running and interactive uses of the build",
        (
            "kbtool.serve",
            "kbtool.served_problems",
            "kbtool.save_summary",
            "kbtool.session",
            "kbtool.lsp",
            "kbtool.agent",
            "kbtool.adopt",
        ),
    ),
    ("stages", "the build as its stages", ("kbtool.stages",)),
    (
        "site",
        "Markdown to HTML and the site's templates; the search index; notebooks",
        ("kbtool.render", "kbtool.search", "kbtool.notebooks"),
    ),
    (
        "rules",
        "the checks, running cells, diagnostics' and the graph's output formats, link edits",
        (
            "kbtool.checks",
            "kbtool.rules",
            "kbtool.rule_loader",
            "kbtool.execute",
            "kbtool.report",
            "kbtool.edits",
        ),
    ),
    (
        "wiki",
        "files -> pages -> the wiki and its resolved links",
        ("kbtool.wiki", "kbtool.page_facts", "kbtool.discover", "kbtool.parse"),
    ),
    (
        "reuse",
        "the engine (queries and their recorded reads) and the values reused by name and key",
        ("kbtool.engine", "kbtool.reuse"),
    ),
    ("store", "the one SQLite store and the registry of record kinds", ("kbtool.store",)),
    ("model", "the page model: Page, Link, Heading, Cell, Span", ("kbtool.model",)),
    (
        "base",
        "settings, codes, diagnostics, errors, processes, progress, timings, the cache folder",
        (
            "kbtool",
            "kbtool.config",
            "kbtool.codes",
            "kbtool.diagnostics",
            "kbtool.errors",
            "kbtool.lifecycle",
            "kbtool.progress",
            "kbtool.timings",
            "kbtool.atomic",
            "kbtool.cache_dir",
            "kbtool.collector",
        ),
    ),
)


def _member(module: str) -> tuple[int, str]:
    """The layer ``module`` belongs to (its index in :data:`LAYERS`) and the package or
    module of that layer it is part of: the longest one that contains it."""
    found = [
        (len(member), index, member)
        for index, (_, _, members) in enumerate(LAYERS)
        for member in members
        if module == member or module.startswith(member + ".")
    ]
    if not found:
        raise KeyError(f"{module} is in no layer of kbtool.layers.LAYERS")
    _, index, member = max(found)
    return index, member


def layer_of(module: str) -> int:
    return _member(module)[0]


def upward_imports() -> list[tuple[str, str]]:
    """(importer, imported) pairs where a module imports from a layer above its own."""
    return sorted(
        (module, other)
        for module in modules()
        for other in imports_of(module)
        if layer_of(other) < layer_of(module)
    )


def graph_dot() -> str:
    """The imports between the layers' packages, each layer a row, in Graphviz's language."""
    edges: Counter[tuple[str, str]] = Counter()
    present: set[str] = set()
    for module in modules():
        source = _member(module)[1]
        present.add(source)
        for other in imports_of(module):
            target = _member(other)[1]
            if source != target:
                edges[source, target] += 1
    lines = ["digraph kbtool {", "  node [shape=box, fontname=monospace];"]
    for index, (name, _, members) in enumerate(LAYERS):
        nodes = " ".join(f'"{m}";' for m in members if m in present)
        lines.append(f'  subgraph cluster_{index} {{ label="{name}"; rank=same; {nodes} }}')
    lines += [f'  "{a}" -> "{b}" [label={n}];' for (a, b), n in sorted(edges.items())]
    lines.append("}")
    return "\n".join(lines)


if __name__ == "__main__":
    sys.stdout.write(graph_dot() + "\n")
