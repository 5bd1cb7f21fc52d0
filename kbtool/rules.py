"""The public API of a wiki's own rules: a function with a code, a default severity, a one-line
description and what it reads.

A rule reads its own page (a :class:`RulePage`) and, if it says so (``reads="facts"``), other
pages through a read-only :class:`FactsView`: their kind, title, type, tags and ``updated``
date, never their text. What it reads of other pages is recorded, so that its findings are
reused while its page and what it read are unchanged, as a built-in check's are.

>>> @rule("WIKI900", "warning", "a page says TODO")
... def todo(page: RulePage) -> list[Finding]:
...     found = [line for line, text in page.lines() if "TODO" in text]
...     return [Finding("TODO left in the page", line) for line in found]
>>> todo.kbtool_rule.code, todo.kbtool_rule.reads
('WIKI900', 'page')

Load a file of rules from ``[tool.kbtool] rules = ["wiki_rules.py"]``, or from an installed
package's entry point in the group ``kbtool.rules`` (see ``docs/rules.md``).
"""

from __future__ import annotations

import posixpath
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, Protocol

__all__ = [
    "Edit",
    "FactsView",
    "Finding",
    "OtherPage",
    "Reads",
    "RulePage",
    "RuleSpec",
    "rule",
]

Reads = Literal["page", "facts"]
Severity = Literal["error", "warning", "off"]


@dataclass(frozen=True, slots=True)
class Edit:
    """Replace the text from (``line``, ``col``) up to (``end_line``, ``end_col``), 1-based,
    the end excluded, with ``new``. ``kbtool lsp`` offers it as a quick fix."""

    line: int
    col: int
    end_line: int
    end_col: int
    new: str


@dataclass(frozen=True, slots=True)
class Finding:
    """What a rule found: a message at a line and column of its page (1-based), and
    optionally an edit that fixes it."""

    message: str
    line: int = 1
    col: int = 1
    edit: Edit | None = None


@dataclass(frozen=True, slots=True)
class Section:
    """A heading of the page: its level (1 for ``#``), text, slug and line."""

    level: int
    text: str
    slug: str
    line: int


@dataclass(frozen=True)
class RulePage:
    """The page a rule checks: where it is, what its frontmatter says, its text."""

    path: str
    #: "wiki" or "source"
    kind: str
    title: str
    #: the whole file, as the author wrote it (no BOM)
    text: str
    #: the frontmatter, read-only ({} without one)
    meta: Mapping[str, Any]
    headings: tuple[Section, ...]
    #: the file line where the body starts (after the frontmatter)
    body_line: int = 1
    type: str = ""
    tags: tuple[str, ...] = ()
    #: ``updated`` as an ISO date, or ""
    updated: str = ""

    def lines(self, body_only: bool = True) -> Iterator[tuple[int, str]]:
        """(line number, text) of each line of the body (or of the whole file)."""
        first = self.body_line if body_only else 1
        for number, line in enumerate(self.text.splitlines(), 1):
            if number >= first:
                yield number, line

    @property
    def body(self) -> str:
        return "\n".join(text for _, text in self.lines())


@dataclass(frozen=True, slots=True)
class OtherPage:
    """What a rule may read of another page."""

    path: str
    kind: str
    title: str
    type: str = ""
    tags: tuple[str, ...] = ()
    updated: str = ""


class _Reader(Protocol):
    def read_fact(self, reader: str, name: str) -> None: ...
    def other(self, path: str) -> OtherPage | None: ...
    def pages_with(self, name: str) -> tuple[OtherPage, ...]: ...


@dataclass(frozen=True)
class FactsView:
    """Other pages, read-only, as a rule of ``reader`` may see them. Every question is
    recorded: the page's findings are made again only when an answer changes."""

    reader: str
    _source: _Reader = field(repr=False)

    def page(self, path: str) -> OtherPage | None:
        """The page at repository path ``path``, or None."""
        self._source.read_fact(self.reader, f"page:{path}")
        return self._source.other(path)

    def linked(self, target: str) -> OtherPage | None:
        """The page a relative link ``target`` of the page leads to (no anchor), or None."""
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(self.reader), target))
        return self.page(joined.partition("#")[0])

    def with_tag(self, tag: str) -> list[OtherPage]:
        """The other pages tagged ``tag``, by path."""
        return self._many(f"tag:{tag}")

    def with_type(self, type_: str) -> list[OtherPage]:
        """The other pages of ``type``, by path."""
        return self._many(f"type:{type_}")

    def _many(self, name: str) -> list[OtherPage]:
        self._source.read_fact(self.reader, name)
        return [page for page in self._source.pages_with(name) if page.path != self.reader]


RuleFunction = Callable[..., Iterable[Finding]]


@dataclass(frozen=True)
class RuleSpec:
    """A rule as declared by :func:`rule`."""

    code: str
    severity: Severity
    summary: str
    reads: Reads
    function: RuleFunction = field(compare=False)
    #: where it was loaded from (a file of the project, or an entry point); set on loading
    origin: str = ""

    @property
    def name(self) -> str:
        return getattr(self.function, "__qualname__", repr(self.function))


def rule(
    code: str, severity: Severity = "warning", summary: str = "", reads: Reads = "page"
) -> Callable[[RuleFunction], RuleFunction]:
    """Declare a rule: ``function(page)`` (``reads="page"``) or ``function(page, facts)``
    (``reads="facts"``) returns or yields :class:`Finding`\\ s. The code is the project's
    own (``WIKI001``: letters, then three digits; ``KB`` is kbtool's)."""

    def declare(function: RuleFunction) -> RuleFunction:
        doc = (function.__doc__ or "").strip().splitlines()
        text = summary or (doc[0] if doc else function.__name__)
        function.kbtool_rule = RuleSpec(code, severity, text, reads, function)  # type: ignore[attr-defined]
        return function

    return declare


def frozen_meta(meta: dict[str, Any]) -> Mapping[str, Any]:
    """A read-only view of frontmatter data (a rule may not change the page it reads)."""
    return MappingProxyType(meta)
