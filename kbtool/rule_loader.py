"""Loading the project's own rules: the files ``[tool.kbtool] rules`` names, and the rules of
installed packages (entry-point group ``kbtool.rules``).

A rule file is the project's own code, trusted as a ``conftest.py`` is: it is imported, with
its folder on ``sys.path`` while it is. What its rules find depends on it and on the modules
it imports from the project, so the :attr:`ProjectRules.digest` of their bytes (and of the
entry points' packages and versions) is part of every page's check key: edit one and every
page is checked again. A file that cannot be imported, an entry point that cannot be loaded,
and a rule whose code is malformed or taken, each become one diagnostic (KB601, KB605) and
the other rules still load.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import importlib.util
import os
import re
import sys
import traceback
from collections.abc import Iterable
from dataclasses import dataclass, replace
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any, get_args

from kbtool.codes import RULES, Rule, register_project_rules
from kbtool.config import Config
from kbtool.diagnostics import Diagnostic

if TYPE_CHECKING:
    from importlib.metadata import EntryPoint

    from kbtool.rules import RuleSpec

GROUP = "kbtool.rules"
#: A project code: capital letters, then digits (WIKI001); KB is kbtool's own.
_CODE = re.compile(r"[A-Z]{1,8}[0-9]{1,4}")


@dataclass(frozen=True)
class ProjectRules:
    rules: tuple[RuleSpec, ...] = ()
    #: what went wrong while loading them (KB601, KB605)
    problems: tuple[Diagnostic, ...] = ()
    #: the rule files, the project modules they import, and the entry points
    digest: str = ""
    timeout: float = 2.0


_loaded: dict[tuple[str, tuple[str, ...], str], ProjectRules] = {}
#: the project modules imported for the rule files last loaded (forgotten before a reload)
_imported: set[str] = set()


def project_rules(config: Config) -> ProjectRules:
    """The project's rules now: loaded again only when a file or entry point changed."""
    points = _entry_points(config.cache_path)
    files = [(name, config.root / name) for name in config.rules]
    digest = _digest(config.root, files, points)
    key = (str(config.root), config.rules, digest)
    if key not in _loaded:
        _loaded.clear()
        _loaded[key] = _load(config, files, points, digest)
    found = _loaded[key]
    register_project_rules([Rule(r.code, r.severity, r.summary) for r in found.rules])
    problems = found.problems + tuple(_unknown_codes(config, found.rules))
    return replace(found, timeout=config.rule_timeout, problems=problems)


def _unknown_codes(config: Config, rules: tuple[RuleSpec, ...]) -> Iterable[Diagnostic]:
    """A KB605 for each code outside KB in ``severity`` or ``ignore`` that no rule has (the
    configuration lets them through: only the loaded rules know their codes)."""
    for key, codes in (("severity", tuple(config.severity)), ("ignore", config.ignore)):
        for code in codes:
            taken = code.upper().startswith("KB") or "KB".startswith(code.upper())
            if not taken and not any(spec.code.startswith(code) for spec in rules):
                message = f"{key}: no project rule's code matches '{code}'"
                yield _problem("KB605", "pyproject.toml", 1, message)


_points: dict[tuple[str, ...], list[EntryPoint]] = {}
#: Where the lookups that found no entry point are remembered, by the stamp of ``sys.path``.
_NONE_FOUND = "rule-entry-points-none"
#: How many stamps are remembered: one per way kbtool is started (its script, ``python -m``,
#: pre-commit's own environment), so that taking turns does not look every time.
_STAMPS_KEPT = 8


def _entry_points(cache_dir: Path) -> list[EntryPoint]:
    """The group's entry points, looked up once per ``sys.path`` (a language server sees a
    package installed while it runs after a restart). Most projects install none: that
    answer is kept in the cache folder while ``sys.path`` and its packages' entry points are
    the same (``_path_stamp``), so a check need not read every installed
    package's metadata (tens of milliseconds) to find none again."""
    key = tuple(sys.path)
    if key not in _points:
        _points.clear()
        _points[key] = _looked_up(cache_dir)
    return _points[key]


def _looked_up(cache_dir: Path) -> list[EntryPoint]:
    stamp = hashlib.blake2b(_path_stamp().encode(errors="surrogatepass")).hexdigest()
    remembered = cache_dir / _NONE_FOUND
    try:
        stamps = remembered.read_text(encoding="utf-8").split()
    except (OSError, UnicodeDecodeError):
        stamps = []
    if stamp in stamps:
        return []
    from importlib.metadata import entry_points

    found = sorted(entry_points(group=GROUP), key=lambda p: (p.name, p.value))
    try:
        if found:
            remembered.unlink(missing_ok=True)
        elif cache_dir.is_dir():
            kept = [*stamps[-(_STAMPS_KEPT - 1) :], stamp]
            remembered.write_text("\n".join(kept) + "\n", encoding="utf-8")
    except OSError:  # a read-only cache: looked up again next time
        pass
    return found


#: the folders of an installed package's metadata
_METADATA = (".dist-info", ".egg-info")


def _path_stamp() -> str:
    """What of ``sys.path`` entry points come from: its entries, each folder's packages
    that declare some (their ``entry_points.txt``, with its time and size), and each
    archive's time. A folder's own time is not used: the working folder, first on the path
    under ``python -m``, changes at every build (the site is swapped in there)."""
    stamps = []
    for entry in sys.path:
        stamps.append(entry)
        with contextlib.suppress(OSError):
            if not os.path.isdir(entry or "."):
                stamps.append(str(os.stat(entry).st_mtime_ns))
                continue
            with os.scandir(entry or ".") as children:
                metadata = sorted(c.path for c in children if c.name.endswith(_METADATA))
            for folder in metadata:
                with contextlib.suppress(OSError):
                    points = os.stat(os.path.join(folder, "entry_points.txt"))
                    stamps.append(f"{folder}\x00{points.st_mtime_ns}\x00{points.st_size}")
    return "\n".join(stamps)


def _digest(root: Path, files: list[tuple[str, Path]], points: list[Any]) -> str:
    h = hashlib.blake2b(digest_size=12)
    for _, path in files:
        for module in sorted(project_modules(root, path)):
            h.update(module.encode() + b"\0")
            try:
                h.update(Path(module).read_bytes())
            except OSError:
                h.update(b"\0missing")
    for point in points:
        dist = point.dist
        h.update(
            repr((point.name, point.value, dist and dist.name, dist and dist.version)).encode()
        )
    return h.hexdigest()


def project_modules(root: Path, path: Path) -> set[str]:
    """``path`` and the files of the project that it imports, and they import (resolved from
    its folder and from ``root``; kbtool itself is not the project's)."""
    found: set[str] = set()
    todo = [path]
    while todo:
        current = todo.pop()
        if str(current) in found:
            continue
        found.add(str(current))
        try:
            tree = ast.parse(current.read_bytes())
        except (OSError, SyntaxError, ValueError):
            continue
        for name, level in _imports(tree):
            todo += _module_files(root, current, name, level)
    return found


def _imports(tree: ast.AST) -> Iterable[tuple[str, int]]:
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            yield from ((alias.name, 0) for alias in node.names)
        elif isinstance(node, ast.ImportFrom):
            base = node.module or ""
            yield base, node.level
            yield from ((f"{base}.{a.name}" if base else a.name, node.level) for a in node.names)


def _module_files(root: Path, importer: Path, name: str, level: int) -> list[Path]:
    if name.split(".")[0] == "kbtool" and level == 0:
        return []
    if level:
        folders = [importer.parent.joinpath(*[".."] * (level - 1)).resolve()]
    else:
        folders = [importer.parent, root]
    parts = [part for part in name.split(".") if part]
    found = []
    for folder in folders:
        for end in range(1, len(parts) + 1):
            stem = folder.joinpath(*parts[:end])
            for candidate in (stem.with_suffix(".py"), stem / "__init__.py"):
                inside = candidate.resolve().is_relative_to(root.resolve())
                if parts and inside and candidate.is_file() and ".venv" not in candidate.parts:
                    found.append(candidate)
    return found


def _load(
    config: Config, files: list[tuple[str, Path]], points: list[Any], digest: str
) -> ProjectRules:
    rules: list[RuleSpec] = []
    problems: list[Diagnostic] = []
    for name in _imported:
        sys.modules.pop(name, None)  # a helper the rule files import may have changed too
    _imported.clear()
    for index, (name, path) in enumerate(files):
        module, problem = _import_file(config.root, name, path, index)
        if problem is not None:
            problems.append(problem)
        if module is not None:
            rules += _rules_in(module, name)
    for point in points:
        where = f"entry point '{point.name} = {point.value}' ({GROUP})"
        try:
            loaded = point.load()
        except Exception as error:  # noqa: BLE001 - a broken plugin is a diagnostic
            problems.append(_problem("KB601", "pyproject.toml", 1, f"{where}: {_said(error)}"))
            continue
        found = _rules_in(loaded, where)
        if not found:
            problems.append(_problem("KB601", "pyproject.toml", 1, f"{where}: holds no rule"))
        rules += found
    valid, bad = validate(rules)
    return ProjectRules(tuple(valid), tuple(problems + bad), digest)


def _import_file(
    root: Path, name: str, path: Path, index: int
) -> tuple[ModuleType | None, Diagnostic | None]:
    if not path.is_file():
        message = f"rules: '{name}' does not exist"
        return None, _problem("KB601", "pyproject.toml", 1, message)
    module_name = f"kbtool_project_rules_{index}_" + re.sub(r"\W", "_", name.removesuffix(".py"))
    spec = importlib.util.spec_from_file_location(module_name, path)
    if spec is None or spec.loader is None:
        return None, _problem("KB601", name, 1, f"rules: '{name}' cannot be imported")
    module = importlib.util.module_from_spec(spec)
    folder = str(path.parent)
    before = set(sys.modules)
    sys.path.insert(0, folder)
    sys.modules[module_name] = module  # as an import has it (dataclasses look it up)
    _imported.add(module_name)
    try:
        spec.loader.exec_module(module)
    except Exception as error:  # noqa: BLE001 - the project's code, reported, not raised
        sys.modules.pop(module_name, None)
        line = _line_in(error, path)
        return None, _problem(
            "KB601", name, line, f"rules: '{name}' failed to import: {_said(error)}"
        )
    finally:
        if sys.path and sys.path[0] == folder:
            del sys.path[0]
        modules = project_modules(root, path)
        _imported.update(
            m
            for m in set(sys.modules) - before
            if getattr(sys.modules[m], "__file__", None) in modules
        )
    return module, None


def _rules_in(loaded: Any, origin: str) -> list[RuleSpec]:
    """The rules a module defines (in order), or the one rule, or a list of rules."""
    if isinstance(loaded, ModuleType):
        items: Iterable[Any] = vars(loaded).values()
    elif isinstance(loaded, list | tuple):
        items = loaded
    else:
        items = [loaded]
    from kbtool.rules import RuleSpec  # here: a project without rules never needs it

    found: list[RuleSpec] = []
    for item in items:
        spec = getattr(item, "kbtool_rule", None)
        if isinstance(spec, RuleSpec) and not any(f.function is item for f in found):
            found.append(replace(spec, origin=origin))  # (a rule bound to two names: once)
    return found


def validate(rules: list[RuleSpec]) -> tuple[list[RuleSpec], list[Diagnostic]]:
    """The rules that can run, and a KB605 for each that cannot."""
    valid: list[RuleSpec] = []
    problems = []
    taken: dict[str, RuleSpec] = {}
    for spec in rules:
        why = _wrong(spec, taken)
        if why is None:
            valid.append(spec)
            taken[spec.code] = spec
        else:
            path = spec.origin if spec.origin.endswith(".py") else "pyproject.toml"
            message = f"rule {spec.name} ({spec.origin}): {why}"
            problems.append(_problem("KB605", path, _def_line(spec), message))
    return valid, problems


def _wrong(spec: RuleSpec, taken: dict[str, RuleSpec]) -> str | None:
    from kbtool.rules import Reads, Severity

    code = spec.code
    if not isinstance(code, str) or not _CODE.fullmatch(code):
        return (
            f"code {code!r} is not capital letters then digits; give the project's rules a "
            "prefix of their own, such as 'WIKI001'"
        )
    if code.startswith("KB") or code in RULES:
        return (
            f"code {code!r} is kbtool's (KB is reserved for built-in checks); give the "
            "project's rules a prefix of their own, such as 'WIKI001'"
        )
    if code in taken:
        return f"code {code!r} is also {taken[code].name}'s ({taken[code].origin})"
    if spec.severity not in get_args(Severity):
        return f"severity {spec.severity!r} is not 'error', 'warning' or 'off'"
    if spec.reads not in get_args(Reads):
        return f"reads {spec.reads!r} is not 'page' or 'facts'"
    if not isinstance(spec.summary, str) or not spec.summary.strip() or "\n" in spec.summary:
        return "its description must be one line of text"
    if not callable(spec.function):
        return "it is not a function"
    return None


def _def_line(spec: RuleSpec) -> int:
    code = getattr(spec.function, "__code__", None)
    return code.co_firstlineno if code is not None else 1


def _line_in(error: BaseException, path: Path) -> int:
    if isinstance(error, SyntaxError) and error.lineno:
        return error.lineno
    lines = [f.lineno for f in traceback.extract_tb(error.__traceback__) if f.filename == str(path)]
    return lines[-1] if lines and lines[-1] else 1


def _said(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    return f"{type(error).__name__}: {text[0]}" if text else type(error).__name__


def _problem(code: str, path: str, line: int, message: str) -> Diagnostic:
    message = re.sub(r"[\x00-\x1f\x7f]", " ", message)
    return Diagnostic(path, max(1, line), 1, code, RULES[code].severity, message)
