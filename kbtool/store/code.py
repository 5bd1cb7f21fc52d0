"""Which of kbtool's own files a record depends on, found from the code, never listed by hand.

A record kind names the module that produces its values. The code it depends on is that
module and every kbtool module it imports, directly or through others (imports inside
functions included), plus the data files (templates, assets) of the packages among them.
Their digest is part of every key of that kind, so editing any of those files in an editable
install makes exactly those records stale. Imports are read as text with one regular
expression, not by importing or compiling anything: the whole package takes milliseconds,
once per process.

Reading the code to make a digest takes tens of milliseconds, which a check with nothing to do
cannot spare; so the store keeps the digests it was given (:func:`remembered`,
:func:`recall`) under a stamp of the package's files' stats, and a process whose stamp is the
same takes them from there, as Python's own bytecode cache trusts a source's stat.

>>> "kbtool.parse.page" in closure("kbtool.parse.page")
True
>>> "kbtool.render.pages" in closure("kbtool.parse.page")
False
"""

from __future__ import annotations

import hashlib
import os
import re
import time
from collections.abc import Mapping
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


#: digests recalled from the store under this process's stamp, and those made here
_recalled: dict[str, str] = {}
_made: dict[str, str] = {}
#: a file changed this recently may change again with the same stat (git's "racy" files)
_SETTLED_NS = 2_000_000_000


@cache
def files_stamp() -> str | None:
    """A digest of where the package is and of every file's stat under it (path, size,
    mtime, inode, ctime: git's index rule), or None while a file changed in the last two
    seconds."""
    digest = hashlib.blake2b(f"{__version__}\0{PACKAGE}".encode(), digest_size=16)
    newest = 0
    for folder, subfolders, files in os.walk(PACKAGE):
        subfolders[:] = sorted(name for name in subfolders if name != "__pycache__")
        for name in sorted(files):
            stat = os.stat(os.path.join(folder, name))
            size, mtime, ino, ctime = stat.st_size, stat.st_mtime_ns, stat.st_ino, stat.st_ctime_ns
            newest = max(newest, mtime, ctime)
            digest.update(f"{folder}/{name}\0{size}\0{mtime}\0{ino}\0{ctime}\n".encode())
    return None if time.time_ns() - newest < _SETTLED_NS else digest.hexdigest()


def recall(digests: Mapping[str, str]) -> None:
    """Take ``digests`` (module -> digest), stored under this process's :func:`files_stamp`."""
    _recalled.update(digests)


def made_here() -> bool:
    """Whether this process made a digest the store was not given."""
    return bool(_made.keys() - _recalled.keys())


def remembered() -> dict[str, str]:
    """Every digest this process knows, for the store to keep under :func:`files_stamp`."""
    return {**_recalled, **_made}


@cache
def code_digest(module: str) -> str:
    """A hash of kbtool's version and of every file in ``module``'s closure, data included."""
    if module in _recalled:
        return _recalled[module]
    files_stamp()  # before the files are read: a file changed after it changes the stamp
    paths = sorted(modules()[name] for name in closure(module))
    folders = sorted({path.parent for path in paths})
    digest = hashlib.blake2b(__version__.encode(), digest_size=12)
    for path in paths + [f for folder in folders for f in _data_files(folder)]:
        digest.update(path.relative_to(PACKAGE).as_posix().encode() + b"\0")
        digest.update(_read(path))
    _made[module] = digest.hexdigest()
    return _made[module]
