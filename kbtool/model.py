"""The page model: immutable values built once by :mod:`kbtool.parse` and read by every stage.

Positions are 1-based and refer to the file as written (frontmatter lines included), so a
diagnostic can point at the exact line of a ``related`` item or the column of a body link.

The classes have no ``__slots__`` on purpose: pages are pickled into the store, and
unpickling slotted frozen dataclasses costs a ``__setattr__`` per field, several times slower.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

PageKind = Literal["wiki", "source"]
#: Where a link was written: a frontmatter list or the body.
LinkKind = Literal["related", "source", "link", "image", "wikilink"]


@dataclass(frozen=True, order=True)
class Span:
    """A place in a file: repository-relative POSIX path, 1-based line and column."""

    path: str
    line: int = 1
    col: int = 1


@dataclass(frozen=True)
class Heading:
    level: int
    text: str
    slug: str
    line: int


@dataclass(frozen=True)
class Block:
    """A block named by a trailing ``^id`` (Obsidian's block reference): ``Note#^id`` links to
    it, and the site gives it the HTML id ``^id``. ``span`` is where ``^id`` is written;
    ``lines`` the block's first and last file line."""

    id: str
    span: Span
    lines: tuple[int, int]


@dataclass(frozen=True)
class Link:
    """A link as written. ``target`` is the raw destination, before any decoding."""

    target: str
    kind: LinkKind
    span: Span

    @property
    def in_frontmatter(self) -> bool:
        return self.kind in ("related", "source")


@dataclass(frozen=True)
class Cell:
    """A fenced code block. ``line`` is the file line of the first line of code.

    ``code_cell`` is False for a python fence that jupytext reads as Markdown or as an inactive
    cell (see :mod:`kbtool.parse.notebook_cells`): it is shown, never run.
    """

    index: int
    language: str
    info: str
    options: dict[str, Any]
    source: str
    fence_line: int
    line: int
    code_cell: bool = True

    @property
    def is_python(self) -> bool:
        return self.language == "python" and self.code_cell


@dataclass(frozen=True)
class Problem:
    """Something wrong found while parsing; the checks turn it into a diagnostic."""

    code: str
    message: str
    line: int = 1
    col: int = 1


@dataclass(frozen=True)
class Frontmatter:
    """Loaded YAML plus the file line of each key and of each item of a list value."""

    data: dict[str, Any]
    key_lines: dict[str, int]
    item_lines: dict[str, tuple[tuple[int, int], ...]]
    first_line: int
    last_line: int

    def line_of(self, key: str) -> int:
        return self.key_lines.get(key, self.first_line)


@dataclass(frozen=True)
class Page:
    """One Markdown file of the wiki or of the source archive, parsed once."""

    path: str
    kind: PageKind
    digest: str
    title: str
    frontmatter: Frontmatter | None
    headings: tuple[Heading, ...] = ()
    links: tuple[Link, ...] = ()
    cells: tuple[Cell, ...] = ()
    problems: tuple[Problem, ...] = ()
    #: File line where the body starts (after the closing frontmatter fence).
    body_line: int = 1
    slugs: frozenset[str] = field(default_factory=frozenset)
    #: (path as written, line, col) of each inline code span that may name a file of the
    #: repository (``wiki/concepts/x.md``): KB212 and ``kbtool mv`` read them
    code_paths: tuple[tuple[str, int, int], ...] = ()
    #: the blocks named by a ``^id`` (flavor "obsidian"), in the order written; an id given
    #: twice is listed twice (KB231), links land on the first
    blocks: tuple[Block, ...] = ()
    #: the notes it shows in place (``![[Note#part]]``), as written
    embeds: tuple[str, ...] = ()
    #: the ``#tags`` of its text (flavor "obsidian"), each once, in order
    inline_tags: tuple[str, ...] = ()

    @property
    def meta(self) -> dict[str, Any]:
        """Frontmatter data, or an empty mapping when the page has none."""
        return self.frontmatter.data if self.frontmatter else {}

    @property
    def stem(self) -> str:
        return stem_of(self.path)

    @property
    def python_cells(self) -> tuple[Cell, ...]:
        return tuple(c for c in self.cells if c.is_python)


def stem_of(path: str) -> str:
    """A page's file name without ``.md``: the name a wikilink writes."""
    name = path.rsplit("/", 1)[-1]
    return name[:-3] if name.endswith(".md") else name
