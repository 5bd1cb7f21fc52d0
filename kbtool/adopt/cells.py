"""Are this wiki's python blocks meant to run? The ``execute`` proposal.

A block counts as not meant to run when it would fail before doing anything useful: it does
not compile (pseudo-code, fragments), it imports a module that is not installed here
(``torch`` on a laptop without it), it uses names that neither it nor an earlier block of its
page defines (pseudo-code that happens to be valid Python, such as ``a_t = π(o_t)``), it is a
sketch with ``...`` for a body, or it is tagged ``skip-execution``. When such blocks are the
majority, ``execute = "opt-in"``: only pages with ``execute: true`` run. Doctest blocks
(``>>>``) count as meant to run.
"""

from __future__ import annotations

import ast
import builtins
import importlib.util
import sys
import warnings
from collections import Counter
from dataclasses import dataclass
from functools import cache

from kbtool.model import Cell
from kbtool.wiki import Wiki


@dataclass(frozen=True)
class Decision:
    value: str
    comment: str
    reason: str


def why_not_runnable(cell: Cell, defined: set[str] | None = None) -> tuple[str, str] | None:
    """(reason, detail) when the block would not run as written, else None.

    ``defined`` holds the names earlier blocks of the page defined; this block's are added.
    """
    defined = set() if defined is None else defined
    if "skip-execution" in (cell.options.get("tags") or []):
        return "skip", ""
    source = cell.source
    if source.lstrip().startswith(">>>"):
        return None
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences and the like
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):  # hostile text too
        return "syntax", ""
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        else:
            continue
        for name in names:
            top = name.split(".")[0]
            if not _installed(top):
                return "import", top
    used = _loaded_names(tree)
    defined |= _defined_names(tree)
    undefined = sorted(used - defined - _BUILTINS)
    if undefined:
        return "undefined", undefined[0]
    if any(
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Constant)
        and node.value.value is Ellipsis
        for node in ast.walk(tree)
    ):
        return "sketch", ""
    return None


_BUILTINS = set(dir(builtins)) | {"__file__", "__name__", "display"}


def _loaded_names(tree: ast.AST) -> set[str]:
    return {
        node.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load | ast.Del)
    }


def _defined_names(tree: ast.AST) -> set[str]:
    """Every name the block binds anywhere (scopes merged: a lenient count)."""
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Store):
            names.add(node.id)
        elif isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            names.add(node.name)
        elif isinstance(node, ast.arg):
            names.add(node.arg)
        elif isinstance(node, ast.alias):
            names.add((node.asname or node.name).split(".")[0])
        elif (
            isinstance(node, ast.ExceptHandler)
            and node.name
            or isinstance(node, ast.MatchAs | ast.MatchStar)
            and node.name
        ):
            names.add(node.name)
        elif isinstance(node, ast.Global | ast.Nonlocal):
            names.update(node.names)
    return names


@cache
def _installed(module: str) -> bool:
    if module in sys.stdlib_module_names or module in sys.builtin_module_names:
        return True
    try:
        return importlib.util.find_spec(module) is not None
    except (ImportError, ValueError):
        return False


def execute_decision(wiki: Wiki) -> Decision | None:
    """``"opt-in"`` when most python blocks of the wiki pages would not run; None if none."""
    cells = 0
    why = Counter[str]()
    modules = Counter[str]()
    for page in wiki.wiki_pages:
        defined: set[str] = set()  # a page's blocks share one namespace
        for cell in page.python_cells:
            cells += 1
            found = why_not_runnable(cell, defined)
            if found:
                why[found[0]] += 1
                if found[0] == "import":
                    modules[found[1]] += 1
    if not cells:
        return None
    idle = sum(why.values())
    parts = []
    if why["syntax"]:
        parts.append(f"{why['syntax']} do not compile")
    if why["import"]:
        top = ", ".join(f"{m} {n}" for m, n in modules.most_common(3))
        parts.append(f"{why['import']} import modules not installed here ({top})")
    if why["undefined"]:
        parts.append(f"{why['undefined']} use names no block of their page defines")
    if why["sketch"]:
        parts.append(f"{why['sketch']} are sketches with `...`")
    if why["skip"]:
        parts.append(f"{why['skip']} are tagged skip-execution")
    detail = f" ({'; '.join(parts)})" if parts else ""
    counted = f"{idle} of {cells} python blocks would not run as written"
    if idle * 2 > cells:
        return Decision(
            "opt-in",
            counted,
            f'execute = "opt-in": {counted}{detail}; pages whose blocks are meant to run '
            "opt in with `execute: true`",
        )
    return Decision(
        "all",
        counted,
        f'execute = "all": {counted}{detail}; pages opt out with `execute: false`',
    )
