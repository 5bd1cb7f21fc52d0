"""The body parser: markdown-it-py tokens -> headings, links and cells with file positions.

The body is parsed with the frontmatter replaced by blank lines, so markdown-it's 0-based line
maps are file lines minus one. Link tokens carry a normalised ``href`` but no column, so the
column is found by matching the block's own link destinations, in order, against it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from functools import cache
from typing import Any

from markdown_it import MarkdownIt
from markdown_it.common.utils import unescapeAll
from markdown_it.token import Token
from mdit_py_plugins.dollarmath import dollarmath_plugin
from mdit_py_plugins.footnote import footnote_plugin

from kbtool.model import Block, Cell, Heading, Link, LinkKind, Problem, Span
from kbtool.parse.autolink import autolink_plugin
from kbtool.parse.backslash_math import backslash_math_plugin
from kbtool.parse.block_ids import found_blocks
from kbtool.parse.callouts import callout_problems
from kbtool.parse.cells import CellOptionsError, split_info
from kbtool.parse.cjk_emphasis import cjk_emphasis_plugin
from kbtool.parse.embeds import embedded_notes
from kbtool.parse.inline_tags import tags_in
from kbtool.parse.notebook_cells import is_code_cell, region_lines
from kbtool.parse.obsidian import obsidian_plugin
from kbtool.parse.slugs import unique_slugs

WIKILINK = re.compile(r"\[\[([^\[\]|\n]+?)(?:\|([^\[\]\n]*))?\]\]")
# An inline link destination after `](`, or a reference definition's after `]:`.
_DESTINATION = re.compile(
    r"\]\(\s*(<[^>\n]*>|[^\s()]*(?:\([^\s()]*\)[^\s()]*)*)|\]:\s*(<[^>\n]*>|\S+)"
)
# Code spans and HTML comments hold no links, though their text may look like one.
#: Inline code that may be a repository path: no spaces, a folder, a file extension; maybe an
#: anchor or a line number after it (`wiki/concepts/x.md`, `kbtool/cli.py:42`).
CODE_PATH = re.compile(
    r"(?:\./)?[\w\-.]+(?:/[\w\-.]+)+\.[A-Za-z0-9]{1,8}(?P<rest>#[^\s`]*|:\d+(?:[:-]\d+)?)?"
)
_NOT_LINKS = re.compile(r"(?<![`\\])(`+)(?!`).+?(?<!`)\1(?!`)|<!--.*?-->", re.DOTALL)


#: The code of a block id that an earlier block of the page already has.
SHARED_BLOCK_ID = "KB231"


@cache
def markdown_parser(flavor: str = "gfm") -> MarkdownIt:
    """The one parser configuration of each flavor, for the checker and the renderer alike.

    CommonMark with what GitHub renders (tables, ``~~strikethrough~~``, task lists, alert
    blockquotes, bare-URL links, footnotes), CJK-friendly emphasis, and math written
    ``$…$``, ``$$…$$``, ``\\(…\\)`` or ``\\[…\\]``.

    The dollar rule is Pandoc's, so that prices stay prices: an opening ``$`` has no space
    after it, a closing one no space before it and no digit after it (``$0.30/MTok`` and
    ``$3.00/MTok`` in one sentence are two prices). dollarmath's two options give it, and
    also refuse an opening ``$`` right after a digit (``5$/h 和 10$/h``), which Pandoc allows.

    ``flavor="obsidian"`` adds what Obsidian shows (:mod:`kbtool.parse.obsidian`); there
    ``> [!NOTE]`` is a callout like any other type, so GitHub's alerts are off.
    """
    obsidian = flavor == "obsidian"
    options = {"html": True, "tasklists": True, "alerts": not obsidian}
    md = MarkdownIt("commonmark", options).enable(["table", "strikethrough"])
    md.use(cjk_emphasis_plugin).use(autolink_plugin).use(footnote_plugin, inline=False)
    md.use(dollarmath_plugin, allow_space=False, allow_digits=False, double_inline=True)
    md.use(backslash_math_plugin)
    return md.use(obsidian_plugin) if obsidian else md


@dataclass
class Body:
    headings: list[Heading] = field(default_factory=list)
    links: list[Link] = field(default_factory=list)
    cells: list[Cell] = field(default_factory=list)
    #: (path, line, col) of each inline code span that may be a repository path
    code_paths: list[tuple[str, int, int]] = field(default_factory=list)
    problems: list[Problem] = field(default_factory=list)
    #: the blocks given an id (``^id``, Obsidian's flavor only)
    blocks: list[Block] = field(default_factory=list)
    #: the notes shown in place (``![[Note#part]]``, Obsidian's flavor only), as written
    embeds: list[str] = field(default_factory=list)
    #: the ``#tags`` of its text (Obsidian's flavor only), in order
    tags: list[str] = field(default_factory=list)
    first_h1: str | None = None
    #: markdown-it's tokens, for a renderer in the same process (never stored)
    tokens: list[Token] = field(default_factory=list)


def parse_body(source: str, path: str, flavor: str = "gfm") -> Body:
    """Parse ``source`` (the whole file, frontmatter blanked) into headings, links and cells."""
    # One parser per flavor: the cache keys on the arguments as given, and every other
    # caller asks for the default flavor's with none.
    md = markdown_parser() if flavor == "gfm" else markdown_parser(flavor)
    env: dict[str, Any] = {}
    tokens = md.parse(source, env)
    references = env.get("references", {})
    lines = source.split("\n")
    body = Body(tokens=tokens, problems=callout_problems(env))
    _collect_blocks(env, lines, path, body)
    heading_texts: list[tuple[int, str, int]] = []
    blocks: dict[tuple[int, int], _Block] = {}  # table cells share their row's lines
    fences = [tuple(t.map) for t in tokens if t.type == "fence" and t.map]
    in_regions = region_lines(lines, fences)  # type: ignore[arg-type]
    for index, token in enumerate(tokens):
        if token.type == "heading_open" and token.map:
            text = _plain_text(tokens[index + 1])
            heading_texts.append((int(token.tag[1]), text, token.map[0] + 1))
        elif token.type == "inline" and token.map:
            _collect_links(md, token, lines, path, body.links, references, blocks)
            _collect_code_paths(token, lines, body.code_paths)
            body.embeds += embedded_notes(token)
            body.tags += tags_in(token)
        elif token.type == "fence" and token.map:
            _collect_cell(token, len(body.cells), body, lines, in_regions)
    for (level, text, line), slug in zip(
        heading_texts, unique_slugs(t for _, t, _ in heading_texts), strict=True
    ):
        body.headings.append(Heading(level, text, slug, line))
        if level == 1 and body.first_h1 is None:
            body.first_h1 = text
    return body


def _collect_blocks(env: dict[str, Any], lines: list[str], path: str, body: Body) -> None:
    """The page's block ids, each at its ``^id``; a second block with an id is KB231."""
    first: dict[str, Block] = {}
    for found in found_blocks(env):
        text = lines[found.marker_line] if found.marker_line < len(lines) else ""
        col = text.rfind("^" + found.id) + 1 or 1
        block = Block(
            found.id,
            Span(path, found.marker_line + 1, col),
            (found.first_line + 1, found.last_line + 1),
        )
        body.blocks.append(block)
        if found.id in first:
            message = (
                f"block id '^{found.id}' is also the id of the block at line "
                f"{first[found.id].span.line}: links to it land there"
            )
            body.problems.append(Problem(SHARED_BLOCK_ID, message, block.span.line, col))
        else:
            first[found.id] = block


def _plain_text(inline: Token) -> str:
    parts = []
    for child in inline.children or ():
        if child.type in (
            "text",
            "code_inline",
            "math_inline",
            "math_inline_double",
            "html_inline",
        ):
            parts.append(child.content if child.type != "html_inline" else "")
        elif child.type in ("softbreak", "hardbreak"):
            parts.append(" ")
        elif child.type == "obsidian_tag":  # a heading's tag is part of its text
            parts.append("#" + child.content)
    return "".join(parts).strip()


def _collect_code_paths(inline: Token, lines: list[str], out: list[tuple[str, int, int]]) -> None:
    """The inline code spans of a block that look like a repository path, each placed at the
    first place it is written that no earlier one took."""
    assert inline.map is not None
    start, end = inline.map
    for child in inline.children or ():
        if child.type != "code_inline" or "/" not in child.content:
            continue
        match = CODE_PATH.fullmatch(child.content.strip())
        if match is None or child.content.strip().startswith(("/", "../")):
            continue
        text = match.group()
        written = re.compile(r"(?<=`)\s*(" + re.escape(text) + r")\s*(?=`)")
        line, col = start + 1, 1
        taken = {(at_line, at_col) for _, at_line, at_col in out}
        for number in range(start, min(end, len(lines))):
            spots = [m.start(1) + 1 for m in written.finditer(lines[number])]
            free = [spot for spot in spots if (number + 1, spot) not in taken]
            if free:
                line, col = number + 1, free[0]
                break
        out.append((text, line, col))


def _collect_cell(
    token: Token, index: int, body: Body, lines: list[str], in_regions: set[int]
) -> None:
    assert token.map is not None
    fence_line = token.map[0] + 1
    code_cell = token.map[0] not in in_regions
    try:
        language, options = split_info(token.info)
    except CellOptionsError as error:
        language, options = token.info.split(None, 1)[0].strip("{}").lower(), {}
        # Other languages, and python that is Markdown to jupytext, are shown, not run.
        if language == "python" and code_cell and is_code_cell(lines[token.map[0]], {}):
            body.problems.append(Problem("KB401", str(error), fence_line))
    if language == "python":
        code_cell = code_cell and is_code_cell(lines[token.map[0]], options)
    cell = Cell(
        index,
        language,
        token.info.strip(),
        options,
        token.content,
        fence_line,
        fence_line + 1,
        code_cell,
    )
    body.cells.append(cell)


_NORMALISED: dict[str, str] = {}


def _normalise(md: MarkdownIt, raw: str) -> str:
    """markdown-it's own normalisation of a destination, memoised: pages share targets."""
    if raw not in _NORMALISED:
        if len(_NORMALISED) > 100_000:
            _NORMALISED.clear()
        _NORMALISED[raw] = md.normalizeLink(unescapeAll(raw))
    return _NORMALISED[raw]


def _block_lines(lines: list[str], start: int, end: int) -> list[str]:
    """The block's lines with code spans and HTML comments blanked, every column kept."""
    block = lines[start:end]
    text = "\n".join(block)
    if "`" not in text and "<!--" not in text:
        return block
    return _NOT_LINKS.sub(lambda m: re.sub(r"[^\n]", " ", m.group()), text).split("\n")


class _Destinations:
    """The raw link destinations written in one block, consumed in order."""

    def __init__(self, md: MarkdownIt, block: list[str], start: int) -> None:
        self.found: list[tuple[str, str, int, int]] = []  # (normalised, raw, line, col)
        for number, text in enumerate(block, start):
            for match in _DESTINATION.finditer(text):
                group = 1 if match.group(1) is not None else 2
                raw = match.group(group)
                col = match.start(group) + 1
                if raw.startswith("<"):
                    raw, col = raw[1:-1], col + 1
                self.found.append((_normalise(md, raw), raw, number + 1, col))

    def take(self, href: str) -> tuple[str, int, int] | None:
        for position, (normalised, raw, line, col) in enumerate(self.found):
            if normalised == href:
                del self.found[position]
                return raw, line, col
        return None


def _defined_at(
    md: MarkdownIt, lines: list[str], references: dict[str, Any], href: str
) -> tuple[str, int, int] | None:
    """Where a reference-style link's destination is written: in its ``[label]: ...`` line."""
    for definition in references.values():
        if definition.get("href") == href and definition.get("map"):
            start, end = definition["map"]
            return _Destinations(md, lines[start:end], start).take(href)
    return None


class _Block:
    """The lines of one block (code spans and comments blanked) and the links placed in them.

    Every cell of a table row is an inline token of its own over the row's line: they share
    one _Block, so that each cell's link is placed at its own column, and the row is scanned
    once rather than once per cell.
    """

    def __init__(self, md: MarkdownIt, lines: list[str], start: int, end: int) -> None:
        self.md, self.start = md, start
        self.lines = _block_lines(lines, start, end)
        self._destinations: _Destinations | None = None
        self.wikilinks_taken: set[tuple[int, int]] = set()

    @property
    def destinations(self) -> _Destinations:
        if self._destinations is None:
            self._destinations = _Destinations(self.md, self.lines, self.start)
        return self._destinations


def _collect_links(
    md: MarkdownIt,
    inline: Token,
    lines: list[str],
    path: str,
    out: list[Link],
    references: dict[str, Any],
    blocks: dict[tuple[int, int], _Block],
) -> None:
    assert inline.map is not None
    start, end = inline.map
    block: _Block | None = None
    for child in inline.children or ():
        kind: LinkKind
        if child.type == "link_open":
            href, kind = str(child.attrs.get("href", "")), "link"
        elif child.type == "image":
            href, kind = str(child.attrs.get("src", "")), "image"
        elif child.type == "text" and "[[" in child.content or child.type == "wikilink_embed":
            href, kind = child.content, "wikilink"
        else:
            continue
        if child.markup in ("autolink", "linkify"):
            continue  # <https://...> or a bare URL: always external, nothing to check.
        if block is None:
            if (start, end) not in blocks:
                blocks[start, end] = _Block(md, lines, start, end)
            block = blocks[start, end]
        if kind == "wikilink":
            _collect_wikilinks(href, block.lines, start, path, out, block.wikilinks_taken)
            continue
        located = block.destinations.take(href) or _defined_at(md, lines, references, href)
        if located:
            raw, line, col = located
        else:  # Not found textually (e.g. inside a multi-line construct): the block's line.
            from urllib.parse import unquote

            raw, line, col = unquote(href), start + 1, 1
        out.append(Link(raw, kind, Span(path, line, col)))


def _collect_wikilinks(
    text: str, block: list[str], start: int, path: str, out: list[Link], taken: set[tuple[int, int]]
) -> None:
    """Wikilinks of a text token, each placed at the first place written not yet taken."""
    for match in WIKILINK.finditer(text):
        target = match.group(1).strip()
        line, col = start + 1, 1
        needle = match.group(0)
        for number, line_text in enumerate(block, start + 1):
            found = line_text.find(needle)
            while found >= 0 and (number, found + 3) in taken:
                found = line_text.find(needle, found + 1)
            if found >= 0:
                line, col = number, found + 3
                taken.add((line, col))
                break
        out.append(Link(target, "wikilink", Span(path, line, col)))
