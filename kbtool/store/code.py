"""Which of kbtool's own files a record depends on, found from the code, never listed by hand.

A record kind names the module that produces its values. The code it depends on is that
module and every kbtool module it imports, directly or through others (imports inside
functions included), plus the data files (templates, assets) of the packages among them.
Their digest is part of every key of that kind, so editing any of those files in an editable
install makes exactly those records stale. Imports are read as text with one regular
expression, not by importing or compiling anything: the whole package takes milliseconds,
once per process.

>>> "kbtool.parse.page" in closure("kbtool.parse.page")
True
>>> "kbtool.render.pages" in closure("kbtool.parse.page")
False
"""

from __future__ import annotations

import hashlib
import re
from functools import cache
from pathlib import Path

from kbtool import __version__

PACKAGE = Path(__file__).resolve().parent.parent

_IMPORT = re.compile(
    r"^[ \t]*(?:from[ \t]+(kbtool(?:\.\w+)*)[ \t]+import[ \t]+(\([^)]*\)|[^\n#]*)"
    r"|import[ \t]+(kbtool(?:\.\w+)*))",
    re.MULTILINE,
)
_NAME = re.compile(r"\w+")
#: Third-party files `make vendor` copies into the package (Mermaid): not kbtool's code. The
#: outputs that ship them are keyed by their content, the whole build by their stat.
_NOT_CODE = frozenset({"vendor", "__pycache__"})


@cache
def _read(path: Path) -> bytes:
    return path.read_bytes()


@cache
def modules() -> dict[str, Path]:
    """Every module of the package by dotted name (a package by its ``__init__``)."""
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        if parts[-1] == "__init__":
            parts = parts[:-1]
        found[".".join(parts)] = path
    return found


@cache
def imports_of(module: str) -> frozenset[str]:
    """The kbtool modules that ``module``'s text imports."""
    found_modules = modules()
    text = _read(found_modules[module]).decode("utf-8")
    found: set[str] = set()
    for match in _IMPORT.finditer(text):
        base = match.group(1) or match.group(3)
        if base in found_modules:
            found.add(base)
        for name in _NAME.findall(match.group(2) or ""):
            if f"{base}.{name}" in found_modules:  # `from kbtool.render import urls`
                found.add(f"{base}.{name}")
        # `import kbtool.a.b` and `from kbtool.a.b import x` run kbtool.a's __init__ too
        parts = base.split(".")
        found.update(".".join(parts[:n]) for n in range(2, len(parts)) if ".".join(parts[:n]))
    found.discard(module)
    return frozenset(found & set(found_modules))


@cache
def closure(module: str) -> frozenset[str]:
    """``module`` and every kbtool module it imports, transitively."""
    seen = {module}
    todo = [module]
    while todo:
        for name in imports_of(todo.pop()):
            if name not in seen:
                seen.add(name)
                todo.append(name)
    return frozenset(seen)


def _data_files(folder: Path) -> list[Path]:
    """The files of ``folder``'s subfolders that are not Python packages (templates/, ...)."""
    files = []
    for sub in sorted(folder.iterdir()):
        if sub.is_dir() and not (sub / "__init__.py").exists() and sub.name not in _NOT_CODE:
            files += sorted(p for p in sub.rglob("*") if p.is_file())
    return files


@cache
def code_digest(module: str) -> str:
    """A hash of kbtool's version and of every file in ``module``'s closure, data included."""
    paths = sorted(modules()[name] for name in closure(module))
    folders = sorted({path.parent for path in paths})
    digest = hashlib.blake2b(__version__.encode(), digest_size=12)
    for path in paths + [f for folder in folders for f in _data_files(folder)]:
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(_read(path))
    return digest.hexdigest()
