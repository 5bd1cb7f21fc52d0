"""The edits a move of pages, files or folders needs: every link to what moves, from any
page, and every relative link of the pages that move, pointed at the same place again.

Nothing is written here; :func:`plan_move` returns the edits by the page's current path, so
the caller (``kbtool mv``, or an editor's rename) applies them before or as it moves the files.
"""

from __future__ import annotations

import posixpath
import re
import unicodedata
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from urllib.parse import quote, unquote

from kbtool.checks.code_paths import code_path_target
from kbtool.edits.locate import unplaced_wikilink
from kbtool.edits.moved import moved_path as moved_path  # where the callers find it
from kbtool.edits.spans import TextEdit, decode, split_lines
from kbtool.edits.vault_moves import LeftAsWritten, VaultAfter, new_vault_target, vault_after
from kbtool.model import Link, Page, stem_of
from kbtool.wiki import Status, Wiki, is_external

#: Characters a body link's destination cannot hold as written (CommonMark), encoded when
#: a new path has them.
_UNSAFE_IN_BODY = re.compile(r"[ ()<>]")


@dataclass
class MovePlan:
    """``moves``: what moves (file or folder, old -> new, repository-relative); ``edits``:
    by the path each page has now; ``problems``: links found but left as they were."""

    moves: dict[str, str]
    edits: dict[str, list[TextEdit]] = field(default_factory=dict)
    problems: list[str] = field(default_factory=list)


def plan_move(
    wiki: Wiki, moves: dict[str, str], read: Callable[[str], bytes], code_paths: bool = True
) -> MovePlan:
    """Plan the edits of moving ``moves``; ``read(path)`` gives a page's bytes as they are now
    (the file, or an editor's unsaved text). ``code_paths``: also rewrite the repository
    paths written in inline code (`wiki/concepts/x.md`) that name what moves."""
    plan = MovePlan(dict(moves))
    # In a vault, wikilinks, embeds and body links follow Obsidian's rules (vault_moves).
    after = vault_after(wiki, moves) if wiki.obsidian else None
    names = _names_moved(wiki, moves)
    for page in wiki.pages.values():
        new_home = moved_path(moves, page.path) or page.path
        page_lines = _PageLines(page.path, read)
        wanted = []
        for link in _links_to_resolve(page, new_home != page.path, names):
            try:
                change = _new_target(wiki, after, page, new_home, link, moves, page_lines)
            except LeftAsWritten as why:
                where = f"{page.path}:{link.span.line}:{link.span.col}"
                plan.problems.append(f"{where}: link '{link.target}' left as it was: {why}")
                continue
            if change is not None:
                wanted.append((link, change))
        in_code = _code_path_edits(page, moves) if code_paths else []
        if in_code:
            plan.edits.setdefault(page.path, []).extend(in_code)
        if not wanted:
            continue
        try:
            lines = page_lines.lines()
        except (OSError, UnicodeDecodeError) as error:
            plan.problems.append(f"{page.path}: cannot read: {error}")
            continue
        for link, (old, new) in wanted:
            edit = _locate(page, lines, link, old, new)
            if edit is None:
                plan.problems.append(
                    f"{page.path}:{link.span.line}:{link.span.col}: link '{link.target}' "
                    "not found as written; left as it was"
                )
            else:
                plan.edits.setdefault(page.path, []).append(edit)
    return plan


def _names_moved(wiki: Wiki, moves: dict[str, str]) -> frozenset[str] | None:
    """The names of the pages that move, before and after, folded: a link whose resolution a
    move of pages can change writes one of them (its target's file name, or the name of a
    note another note comes to share). None when a folder or a file that is not a page
    moves (a link to a file in a folder need not name the folder): every link is then
    resolved."""
    if not all(old in wiki.pages for old in moves):
        return None
    return frozenset(_folded(stem_of(path)) for move in moves.items() for path in move)


def _links_to_resolve(page: Page, moves: bool, names: frozenset[str] | None) -> Sequence[Link]:
    """The links of ``page`` whose target the move may change: all of them when the page
    ``moves`` or ``names`` is None, else those naming one of ``names`` (looked for in all
    the page's targets at once first: most pages name none)."""
    if moves or names is None:
        return page.links
    if not _names_one(" ".join(link.target for link in page.links), names):
        return ()
    return [link for link in page.links if _names_one(link.target, names)]


def _names_one(written: str, names: frozenset[str]) -> bool:
    """Whether ``written``, as it is or percent-decoded, holds one of ``names``."""
    text = _folded(f"{written}\n{unquote(written)}")
    return any(name in text for name in names)


def _folded(text: str) -> str:
    return unicodedata.normalize("NFC", text).casefold()


def _code_path_edits(page: Page, moves: dict[str, str]) -> list[TextEdit]:
    """The page's inline code paths that name what moves, each with the path it names now."""
    edits = []
    for written, line, col in page.code_paths:
        target = code_path_target(written)
        new = moved_path(moves, target)
        if new is None or target not in written:
            continue
        replaced = written.replace(target, new, 1)
        edits.append(TextEdit(page.path, line, col, col + len(written), replaced, written))
    return edits


class _PageLines:
    """A page's lines, read when first asked for."""

    def __init__(self, path: str, read: Callable[[str], bytes]) -> None:
        self.path, self.read = path, read
        self._lines: list[str] | None = None

    def lines(self) -> list[str]:
        if self._lines is None:
            self._lines = [line for line, _ in split_lines(decode(self.read(self.path))[1])]
        return self._lines

    def line(self, number: int) -> str:
        """Line ``number`` (1-based); "" past the end or when the page cannot be read."""
        try:
            lines = self.lines()
        except (OSError, UnicodeDecodeError):
            return ""
        return lines[number - 1] if 1 <= number <= len(lines) else ""


def _new_target(
    wiki: Wiki,
    after: VaultAfter | None,
    page: Page,
    new_home: str,
    link: Link,
    moves: dict[str, str],
    page_lines: _PageLines,
) -> tuple[str, str] | None:
    """(the text to replace, its replacement) for one link, or None when it stays."""
    if after is not None and not link.in_frontmatter:
        return new_vault_target(wiki, after, page, new_home, link, moves, page_lines.line)
    if link.kind == "wikilink":
        return _new_wikilink(wiki, page, link, moves)
    raw = link.target
    path_part = re.split(r"[#?]", raw, maxsplit=1)[0]
    if not path_part.strip() or is_external(raw.strip()):
        return None
    target = wiki.resolve(page, link)
    if target.status in (Status.EXTERNAL, Status.OUTSIDE) or target.path is None:
        return None
    new_target = moved_path(moves, target.path) or target.path
    if new_target == target.path and new_home == page.path:
        return None
    relative = posixpath.relpath(new_target, posixpath.dirname(new_home) or ".")
    if path_part.rstrip().endswith("/") and not relative.endswith("/"):
        relative += "/"
    if path_part.startswith("./") and not relative.startswith("."):
        relative = "./" + relative
    if unquote(path_part) != path_part:  # written percent-encoded: keep it so
        relative = quote(relative, safe="/.-_~")
    elif link.kind in ("link", "image") and _UNSAFE_IN_BODY.search(relative):
        relative = _UNSAFE_IN_BODY.sub(lambda m: quote(m.group()), relative)
    return (path_part, relative) if relative != path_part else None


def _new_wikilink(
    wiki: Wiki, page: Page, link: Link, moves: dict[str, str]
) -> tuple[str, str] | None:
    """A wikilink that names a moved page by its file name gets the new name; one that
    names it by title still finds it."""
    target = wiki.resolve(page, link)
    if target.page is None or target.status is not Status.OK:
        return None
    new_path = moved_path(moves, target.page.path)
    if new_path is None:
        return None
    name = link.target.partition("#")[0].strip()
    old_stem, new_stem = target.page.stem, new_path.rsplit("/", 1)[-1].removesuffix(".md")
    if name.removesuffix(".md").lower() != old_stem.lower() or old_stem == new_stem:
        return None
    return name, new_stem + (".md" if name.endswith(".md") else "")


def _locate(page: Page, lines: list[str], link: Link, old: str, new: str) -> TextEdit | None:
    """The edit that replaces ``old`` where the link is written: at its column, or one
    character on for a quoted YAML item; a wikilink the parser could not place, found by
    its name on its line."""
    path, number = page.path, link.span.line
    if not 1 <= number <= len(lines):
        return None
    line = lines[number - 1]
    start = line.find(old, max(link.span.col - 1, 0))
    if start < 0 or (link.kind != "link" and link.kind != "image" and start > link.span.col + 1):
        if link.kind != "wikilink":
            return None
        found = unplaced_wikilink(page, link, line, old)
        if found is None:
            return None
        start = found
    if link.in_frontmatter and start > 0 and line[start - 1] in "'\"":
        new = _quoted(new, line[start - 1])
    return TextEdit(path, number, start + 1, start + 1 + len(old), new, old)


def _quoted(text: str, quote_char: str) -> str:
    """``text`` as it must be written inside a YAML scalar quoted with ``quote_char``."""
    if quote_char == "'":
        return text.replace("'", "''")
    return text.replace("\\", "\\\\").replace('"', '\\"')
