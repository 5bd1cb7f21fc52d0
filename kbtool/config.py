"""``kbtool.toml`` (top-level keys) or ``[tool.kbtool]`` in ``pyproject.toml`` -> a frozen
:class:`Config`, every key defaulted.

The schema below is also the documentation: each option has a TOML name, a type check, a
default that fits the ``wiki/`` + ``sources/`` layout, and one line of help. Unknown keys and
wrong values are collected and reported together (exit 2).
"""

from __future__ import annotations

import hashlib
import os
import posixpath
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from kbtool.codes import RULES, rule_of
from kbtool.errors import ConfigError

#: The ``wiki`` folder that is the whole repository: every folder but the sources, the site's
#: and the cache's (see :func:`kbtool.discover.left_out`).
WHOLE = "."
#: The configuration file of a repository that is not a Python project (a vault).
KBTOOL_TOML = "kbtool.toml"
DEFAULT_TYPES = ("concept", "method", "entity", "overview", "query", "task", "comparison")
LEVELS = ("error", "warning", "off")


@dataclass(frozen=True)
class Config:
    root: Path
    wiki: str = "wiki"
    #: Further folders of wiki pages (`wiki = ["wiki", "roadmap"]`): the first is `wiki`.
    wiki_more: tuple[str, ...] = ()
    sources: str = "sources"
    exclude: tuple[str, ...] = ()
    types: tuple[str, ...] = DEFAULT_TYPES
    type_labels: dict[str, str] = field(default_factory=dict)
    required: tuple[str, ...] = ("type", "summary", "updated")
    severity: dict[str, str] = field(default_factory=dict)
    ignore: tuple[str, ...] = ()
    cache_dir: str = ".kbtool"
    jobs: int = 0
    execute: str = "all"
    cell_timeout: float = 60.0
    memory_limit_mb: int = 4096
    output_limit_kb: int = 1024
    allow_network: bool = False
    sandbox: str = "auto"
    cell_env: tuple[str, ...] = ()
    preload: tuple[str, ...] = ("numpy", "matplotlib", "matplotlib.pyplot")
    site_dir: str = "site"
    site_title: str = "Wiki"
    language: str = "zh"
    #: The Markdown syntax read: GitHub's ("gfm"), or Obsidian's beyond it ("obsidian").
    flavor: str = "gfm"
    base_url: str = ""
    search: bool = True
    #: Where a source page says when it was ingested: ("key", name) or ("label", name).
    source_date: tuple[str, str] | None = None
    #: KB308: the resemblance of two bodies (0-1) from which they are nearly the same
    duplicate_threshold: float = 0.8
    #: The project's own rules: Python files in the repository (`wiki_rules.py`).
    rules: tuple[str, ...] = ()
    #: Seconds one project rule may take on one page.
    rule_timeout: float = 2.0
    #: A vault's home note, the site's front page (else Home.md, index.md or README.md).
    home: str = ""

    @property
    def wiki_folders(self) -> tuple[str, ...]:
        return (self.wiki, *self.wiki_more)

    @property
    def site_path(self) -> Path:
        return (self.root / self.site_dir).resolve()

    @property
    def cache_path(self) -> Path:
        return self.root / self.cache_dir

    def workers(self, asked: int | None = None) -> int:
        """Worker processes: ``asked`` (``-j``), else the configured ``jobs``, else one per
        core this process may use."""
        return asked or self.jobs or len(os.sched_getaffinity(0))

    def level(self, code: str) -> str:
        """The configured severity of ``code``: exact code first, then its prefixes."""
        for end in range(len(code), 0, -1):
            if code[:end] in self.severity:
                return self.severity[code[:end]]
        rule = rule_of(code)
        return rule.severity if rule is not None else "error"

    def fingerprint(self) -> str:
        """A hash of every setting, for caches that depend on the configuration."""
        text = repr([(f.name, getattr(self, f.name)) for f in fields(self) if f.name != "root"])
        return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def _str(value: Any) -> str | None:
    return value if isinstance(value, str) and value.strip() else None


def _folder(value: Any) -> str | None:
    """A folder inside the repository (not the root itself), as a normalised POSIX path."""
    if not isinstance(value, str) or not value.strip():
        return None
    path = posixpath.normpath(value.strip().replace("\\", "/"))
    if path in (".", "..") or path.startswith(("/", "../")) or re.match(r"^[a-zA-Z]:", path):
        return None
    return path


def _folders(value: Any) -> tuple[str, ...] | None:
    """One folder, or a non-empty list of distinct folders; ``"."`` alone is the whole
    repository (an Obsidian vault, a folder of notes)."""
    items = [value] if isinstance(value, str) else value
    if not isinstance(items, list) or not items:
        return None
    if items == ["."] or (isinstance(value, str) and value.strip() in (".", "./")):
        return (WHOLE,)
    folders = tuple(_folder(item) for item in items)
    if any(f is None for f in folders) or len(set(folders)) != len(folders):
        return None
    return folders  # type: ignore[return-value]


def _source_date(value: Any) -> tuple[str, str] | None:
    """``{ key = "ingested" }`` or ``{ label = "入库日期" }``."""
    if isinstance(value, dict) and len(value) == 1:
        ((how, name),) = value.items()
        if how in ("key", "label") and isinstance(name, str) and name.strip():
            return how, name.strip()
    return None


def _str_list(value: Any) -> tuple[str, ...] | None:
    if isinstance(value, list) and all(isinstance(v, str) for v in value):
        return tuple(value)
    return None


def _rule_files(value: Any) -> tuple[str, ...] | None:
    """Python files inside the repository, each at most once."""
    files = _str_list(value)
    if files is None:
        return None
    paths = tuple(_folder(f) for f in files)
    if any(p is None or not p.endswith(".py") for p in paths) or len(set(paths)) != len(paths):
        return None
    return paths  # type: ignore[return-value]


def _home_note(value: Any) -> str | None:
    path = _folder(value)
    return path if path is not None and path.endswith(".md") else None


def _positive_number(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and value > 0
    return float(value) if ok else None


def _positive_int(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value > 0
    return value if ok else None


def _count(value: Any) -> int | None:
    ok = isinstance(value, int) and not isinstance(value, bool) and value >= 0
    return value if ok else None


def _share(value: Any) -> float | None:
    ok = isinstance(value, int | float) and not isinstance(value, bool) and 0 < value <= 1
    return float(value) if ok else None


def _bool(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _choice(*choices: str) -> Callable[[Any], str | None]:
    return lambda value: value if value in choices else None


def _label_table(value: Any) -> dict[str, str] | None:
    if isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) and v.strip() for k, v in value.items()
    ):
        return {k: v.strip() for k, v in value.items()}
    return None


def _severity_table(value: Any) -> dict[str, str] | None:
    if not isinstance(value, dict):
        return None
    if all(isinstance(k, str) and v in LEVELS for k, v in value.items()):
        return dict(value)
    return None


# TOML key -> (field name, converter returning None when the value is wrong, expected, help)
SCHEMA: dict[str, tuple[str, Callable[[Any], Any], str, str]] = {
    "wiki": (
        "wiki",
        _folders,
        'a folder in the repository, a list of them, or "." (all of it)',
        "folder (or folders) of wiki pages",
    ),
    "sources": ("sources", _folder, "a folder in the repository", "folder of source-archive pages"),
    "exclude": ("exclude", _str_list, "a list of globs", "files to skip, as globs"),
    "types": ("types", _str_list, "a list of strings", "allowed values of `type`"),
    "type-labels": (
        "type_labels",
        _label_table,
        'a table of type = "label"',
        "names the site shows for page types",
    ),
    "required": ("required", _str_list, "a list of keys", "frontmatter keys a wiki page needs"),
    "severity": (
        "severity",
        _severity_table,
        'a table of code = "error" | "warning" | "off"',
        "per-code (or prefix) severity",
    ),
    "ignore": ("ignore", _str_list, "a list of codes", "codes or prefixes never reported"),
    "cache-dir": ("cache_dir", _str, "a folder path", "where caches live"),
    "jobs": ("jobs", _count, "an integer >= 0", "worker processes; 0 = number of cores"),
    "execute": ("execute", _choice("all", "opt-in"), '"all" or "opt-in"', "which pages run"),
    "cell-timeout": ("cell_timeout", _positive_number, "seconds > 0", "wall time per cell"),
    "memory-limit-mb": ("memory_limit_mb", _positive_int, "MiB > 0", "memory per page"),
    "output-limit-kb": ("output_limit_kb", _positive_int, "KiB > 0", "output kept per cell"),
    "allow-network": ("allow_network", _bool, "true or false", "let cells open sockets"),
    "sandbox": (
        "sandbox",
        _choice("auto", "required", "off"),
        '"auto", "required" or "off"',
        "contain cells with Landlock where the kernel can; refuse to run without; never",
    ),
    "cell-env": ("cell_env", _str_list, "a list of names", "caller's variables cells may see"),
    "preload": ("preload", _str_list, "a list of modules", "imported once by the warm worker"),
    "site-dir": ("site_dir", _str, "a folder path", "where `kbtool build` writes"),
    "site-title": ("site_title", _str, "a string", "the site's name"),
    "language": ("language", _choice("zh", "en"), '"zh" or "en"', "language of UI strings"),
    "flavor": (
        "flavor",
        _choice("gfm", "obsidian"),
        '"gfm" or "obsidian"',
        "Markdown syntax: GitHub's, or Obsidian's too (callouts, highlights, comments, block ids)",
    ),
    "base-url": ("base_url", lambda v: v if isinstance(v, str) else None, "a URL", "for sitemap"),
    "search": ("search", _bool, "true or false", "build the site's search index"),
    "source-date": (
        "source_date",
        _source_date,
        '{ key = "NAME" } or { label = "NAME" }',
        "where a source page gives the date it was ingested (for KB304)",
    ),
    "duplicate-threshold": (
        "duplicate_threshold",
        _share,
        "a number > 0 and <= 1",
        "KB308: the share of alike sentences from which two bodies are nearly the same",
    ),
    "rules": (
        "rules",
        _rule_files,
        "a list of .py files in the repository",
        "the project's own rules (see docs/rules.md)",
    ),
    "rule-timeout": (
        "rule_timeout",
        _positive_number,
        "seconds > 0",
        "time one project rule may take on one page",
    ),
    "home": (
        "home",
        _home_note,
        "a .md file in the repository",
        "a vault's home note, the site's front page (else Home.md, index.md or README.md)",
    ),
}


def _may_be_a_project_code(code: str, values: dict[str, Any]) -> bool:
    """Whether ``code`` may be a project rule's: outside KB, and the project has rules."""
    if code.upper().startswith("KB") or "KB".startswith(code.upper()):
        return False
    if values.get("rules"):
        return True
    from importlib.metadata import entry_points

    return bool(entry_points(group="kbtool.rules"))


def find_root(start: Path) -> Path:
    """The nearest folder at or above ``start`` with a ``kbtool.toml`` or a
    ``pyproject.toml``; else ``start``."""
    start = start.resolve()
    for folder in (start, *start.parents):
        if (folder / KBTOOL_TOML).is_file() or (folder / "pyproject.toml").is_file():
            return folder
    return start


def _pyproject_table(pyproject: Path) -> Any:
    """``[tool.kbtool]`` of ``pyproject`` (None: the file or the table is absent)."""
    if not pyproject.is_file():
        return None
    try:
        with pyproject.open("rb") as f:
            tool = tomllib.load(f).get("tool", {})
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as error:
        raise ConfigError([f"{pyproject.name}: cannot read: {error}"]) from None
    return tool.get("kbtool") if isinstance(tool, dict) else None


def _kbtool_toml_table(path: Path) -> dict[str, Any]:
    try:
        with path.open("rb") as f:
            return tomllib.load(f)
    except (tomllib.TOMLDecodeError, OSError, UnicodeDecodeError) as error:
        raise ConfigError([f"{path.name}: cannot read: {error}"]) from None


def load_config(root: Path) -> Config:
    """Read ``root/kbtool.toml`` (its top-level keys), else ``[tool.kbtool]`` of
    ``root/pyproject.toml`` (neither: defaults). Both at once is refused: which one wins
    would be a guess."""
    root = root.resolve()
    if not root.is_dir():
        raise ConfigError([f"{root}: no such folder"])
    pyproject = root / "pyproject.toml"
    table = _pyproject_table(pyproject)
    if (root / KBTOOL_TOML).is_file():
        if table is not None:
            raise ConfigError(
                [
                    f"both {KBTOOL_TOML} and {pyproject.name} [tool.kbtool] configure kbtool: "
                    "keep one of them"
                ]
            )
        return config_from_table(root, _kbtool_toml_table(root / KBTOOL_TOML), where=KBTOOL_TOML)
    if table is None:
        table = {}
    if not isinstance(table, dict):
        raise ConfigError([f"{pyproject.name}: [tool.kbtool] must be a table"])
    return config_from_table(root, table, where=f"{pyproject.name} [tool.kbtool]")


def config_from_table(root: Path, table: dict[str, Any], where: str = "[tool.kbtool]") -> Config:
    problems: list[str] = []
    values: dict[str, Any] = {}
    for key, value in table.items():
        if key not in SCHEMA:
            close = [k for k in SCHEMA if k.replace("-", "_") == key.replace("-", "_")]
            hint = f" (did you mean '{close[0]}'?)" if close else ""
            problems.append(f"{where}: unknown key '{key}'{hint}")
            continue
        name, convert, expected, _ = SCHEMA[key]
        converted = convert(value)
        if converted is None:
            problems.append(f"{where}: '{key}' must be {expected}, got {value!r}")
        else:
            values[name] = converted
    for key in ("severity", "ignore"):
        for code in values.get(key, ()):
            # A code outside KB may be a project rule's, known once the rules are loaded (a
            # code no rule has is a KB605 then).
            if _may_be_a_project_code(code, values):
                continue
            if not any(rule.startswith(code) for rule in RULES):
                problems.append(f"{where}: {key}: no diagnostic code matches '{code}'")
    folders = values.pop("wiki", (Config.wiki,))
    values["wiki"], values["wiki_more"] = folders[0], folders[1:]
    sources = values.get("sources", Config.sources)
    for i, wiki in enumerate(folders):
        # The whole repository holds the sources folder: its pages are sources all the same.
        others = [] if wiki == WHOLE else [(sources, "sources")]
        for other, name in [*others, *((f, "wiki") for f in folders[i + 1 :])]:
            if wiki == other or wiki.startswith(other + "/") or other.startswith(wiki + "/"):
                problems.append(f"{where}: 'wiki' ({wiki}) and '{name}' ({other}) must not overlap")
    if problems:
        raise ConfigError(problems)
    return Config(root=root, **values)
