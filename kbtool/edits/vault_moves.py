"""A vault's links after a move, as Obsidian rewrites them on a rename.

A link is rewritten only when, written as it is, it would no longer open the file it opens
now (at that file's new place) once the files have moved, or would become ambiguous: a link
by name alone stays while the name still finds its file, and ``[[Old]]`` becomes ``[[New]]``
when the file's name changes. A link that must change is written in the form it had (by
name, from the vault's root, relative) when that form finds the file, else in the form the
vault's ``newLinkFormat`` (``.obsidian/app.json``) asks for new links: ``shortest`` (the
name, or the path from the root when the name is not enough), ``relative`` or ``absolute``.
Every form is tried against the files as they will be, by :mod:`kbtool.obsidian_links`'s
rules, before it is written. The ``#heading``, ``#^block`` and ``|label`` parts are kept.
"""

from __future__ import annotations

import json
import posixpath
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import quote, unquote

from kbtool import obsidian_links
from kbtool.discover import left_out
from kbtool.edits.moved import moved_path
from kbtool.link_status import files_by_name
from kbtool.model import Link, Page
from kbtool.wiki import Status, Wiki, is_external

#: Characters no link path Obsidian writes can hold (they end or split a wikilink).
_NOT_IN_WIKILINK = re.compile(r"[#|\[\]^]")
#: Characters a body link's destination cannot hold as written (CommonMark).
_UNSAFE_IN_BODY = re.compile(r"[ ()<>]")
#: A percent-encoded byte of a character beyond ASCII: the link was written all encoded.
_ENCODED_WIDE = re.compile(r"%[89A-Fa-f][0-9A-Fa-f]")
FORMATS = ("shortest", "relative", "absolute")


def link_format(root: Path) -> str:
    """The vault's ``newLinkFormat``: how Obsidian writes a new link (``shortest`` when
    unset or unreadable)."""
    try:
        value = json.loads((root / ".obsidian" / "app.json").read_bytes())["newLinkFormat"]
    except (OSError, ValueError, KeyError, TypeError):
        return "shortest"
    return value if value in FORMATS else "shortest"


class LeftAsWritten(ValueError):
    """A link that must change, but that no form of link can write (the message says why)."""


@dataclass(frozen=True)
class VaultAfter:
    """The vault's notes and other files as they will be once the files have moved."""

    #: lower-case stem -> the notes of that name
    notes: dict[str, list[str]]
    #: lower-case file name -> the other files of that name
    files: dict[str, list[str]]
    everything: frozenset[str]
    #: the lower-case names (a note's stem, a file's name) of what moves, before and after:
    #: a link by another name, from a note that stays, finds what it found before
    moved_names: frozenset[str]
    #: ``newLinkFormat``
    format: str

    def find(self, linkpath: str, reader: str) -> obsidian_links.Choice:
        """The file a wikilink's path (or a Markdown link's, by name) of a note at
        ``reader`` opens: a note, else another file."""
        found = obsidian_links.choose(
            linkpath, reader, self.notes.get(obsidian_links.note_name(linkpath), []), note=True
        )
        if found.path is not None:
            return found
        files = self.files.get(obsidian_links.link_name(linkpath), [])
        return obsidian_links.choose(linkpath, reader, files, note=False)

    def unique(self, path: str) -> bool:
        """Whether no other file has the name of the file at ``path``."""
        if path.endswith(".md"):
            return len(self.notes.get(obsidian_links.note_name(path), [])) <= 1
        return len(self.files.get(obsidian_links.link_name(path), [])) <= 1

    def find_markdown(self, path: str, reader: str) -> obsidian_links.Choice:
        """The file a Markdown link's decoded path opens: relative to the note, else from
        the root or by name."""
        joined = posixpath.normpath(posixpath.join(posixpath.dirname(reader), path))
        if joined in self.everything:
            return obsidian_links.Choice(joined)
        if joined == ".." or joined.startswith("../") or path.startswith("/"):
            return obsidian_links.Choice(None)
        return self.find(path, reader)


def vault_after(
    wiki: Wiki, moves: dict[str, str], others: dict[str, list[str]] | None = None
) -> VaultAfter:
    """The vault after ``moves`` (old -> new path, files or folders); ``others``: the files
    that are not notes by name (:func:`kbtool.link_status.files_by_name`), if read already."""
    config = wiki.config
    if others is None:
        others = files_by_name(str(config.root), left_out(config))
    notes: dict[str, list[str]] = {}
    files: dict[str, list[str]] = {}
    every, names = [], set()
    for path in [*wiki.pages, *(p for group in others.values() for p in group)]:
        new = moved_path(moves, path)
        if new is not None:
            names |= {obsidian_links.note_name(path), obsidian_links.note_name(new)}
        new = new or path
        if path in wiki.pages:
            notes.setdefault(obsidian_links.note_name(new), []).append(new)
        else:
            files.setdefault(obsidian_links.link_name(new), []).append(new)
        every.append(new)
    for group in (*notes.values(), *files.values()):
        group.sort()
    return VaultAfter(notes, files, frozenset(every), frozenset(names), link_format(config.root))


def new_vault_target(
    wiki: Wiki,
    after: VaultAfter,
    page: Page,
    new_home: str,
    link: Link,
    moves: dict[str, str],
    line_of: Callable[[int], str],
) -> tuple[str, str] | None:
    """(the link's path as written, its replacement) for a wikilink, an embed or a body
    link of a vault, or None when it stays. ``line_of(n)``: line ``n`` of the page."""
    if link.kind == "wikilink":
        written = link.target.partition("#")[0].strip()
        decoded = written
    else:
        written = re.split(r"[#?]", link.target, maxsplit=1)[0]
        decoded = unquote(written).replace("\\", "/")
        if is_external(link.target.strip()):
            return None
    if not written.strip():
        return None  # `[[#Heading]]`, `(#Heading)`: this note, wherever it goes
    target = wiki.resolve(page, link)
    if target.path is None or target.status not in (Status.OK, Status.AMBIGUOUS, Status.DIRECTORY):
        return None  # a broken link stays as it was
    expected = moved_path(moves, target.path)
    moved_target = expected is not None
    expected = expected or target.path
    name = obsidian_links.note_name(decoded)
    if new_home == page.path and not moved_target and name not in after.moved_names:
        return None  # nothing that decides where it leads has moved
    if link.kind == "wikilink":
        found = after.find(written, new_home)
    else:
        found = after.find_markdown(decoded, new_home)
    stays = found.path == expected and (not found.ties or target.status is Status.AMBIGUOUS)
    if stays and moved_target and "/" not in decoded.strip("/") and after.format == "shortest":
        # Obsidian writes a link to a moved file by its name alone while no other file has it
        stays = after.unique(expected)
    if moved_target and link.kind == "wikilink" and after.format != "shortest":
        # ...and, asked for relative or absolute links, writes each link to it so
        new = _wikilink_path(after, written, expected, new_home, after.format)
        if new is not None:
            return (written, new) if new != written else None
    if stays:
        return None
    if link.kind == "wikilink":
        new = _wikilink_path(after, written, expected, new_home)
    else:
        line = line_of(link.span.line)
        new = _markdown_path(
            after, page, written, decoded, target.path, expected, new_home, line, link.span.col
        )
    if new is None:
        raise LeftAsWritten(f"no link from {new_home} can name {expected} as Obsidian resolves")
    return (written, new) if new != written else None


def _forms(after: VaultAfter, base: str, reader: str, style: str, target: str) -> list[str]:
    """The ways to write ``base`` (``target``'s path from the root, maybe without ``.md``)
    from ``reader``: the form the link had (``style``) first, then those ``newLinkFormat``
    asks for. The name alone only while no other file has it, as Obsidian writes it."""
    name = base.rsplit("/", 1)[-1]
    relative = posixpath.relpath(base, posixpath.dirname(reader) or ".")
    by_name = [name] if after.unique(target) else []
    by_style = {
        "name": by_name,
        "root": [base],
        "relative": [relative, "./" + relative],
        "shortest": [*by_name, base],
        "absolute": [base],
    }
    return [*by_style[style], *by_style[after.format], base, relative]


def _by_name(after: VaultAfter) -> str:
    """The style of a link written without a folder: by name, or (a note beside its target)
    relative or from the root as ``newLinkFormat`` writes it."""
    return {"relative": "relative", "absolute": "root"}.get(after.format, "name")


def _finds(after: VaultAfter, form: str, expected: str, reader: str, markdown: bool) -> bool:
    found = after.find_markdown(form, reader) if markdown else after.find(form, reader)
    return found.path == expected and not found.ties


def link_path(after: VaultAfter, target: str, reader: str) -> str | None:
    """How a new wikilink of the note at ``reader`` names ``target`` (a path from the root),
    as ``newLinkFormat`` asks: a name another file has too is written with its path."""
    base = target[:-3] if target.endswith(".md") else target
    return _wikilink_path(after, base.rsplit("/", 1)[-1], target, reader)


def _wikilink_path(
    after: VaultAfter, written: str, expected: str, reader: str, style: str = ""
) -> str | None:
    """The path part of a wikilink that opens ``expected`` from ``reader``: in the form of
    ``style`` (else of ``written``) if it can, else as ``newLinkFormat`` asks."""
    keep_md = written.lower().endswith(".md")
    base = expected[:-3] if expected.endswith(".md") and not keep_md else expected
    if not style and written.startswith(("./", "../")):
        style = "relative"
    elif not style:
        style = "root" if "/" in written.strip("/") else _by_name(after)
    for form in _forms(after, base, reader, style, expected):
        if not _NOT_IN_WIKILINK.search(form) and _finds(after, form, expected, reader, False):
            return form
    return None


def _markdown_path(
    after: VaultAfter,
    page: Page,
    written: str,
    decoded: str,
    old_target: str,
    expected: str,
    reader: str,
    line: str,
    col: int,
) -> str | None:
    """The destination of a Markdown link that opens ``expected`` from ``reader``, encoded
    as the link was (``%20``, ``<...>``, or as CommonMark needs); ``line``: the line it is
    written on, from ``col``."""
    joined = posixpath.normpath(posixpath.join(posixpath.dirname(page.path), decoded))
    if "/" not in decoded.strip("/"):
        style = _by_name(after)
    else:
        style = "relative" if joined == old_target else "root" if decoded == old_target else "name"
    form = next(
        (
            f
            for f in _forms(after, expected, reader, style, expected)
            if _finds(after, f, expected, reader, True)
        ),
        None,
    )
    if form is None and expected not in after.everything:  # a folder: relative, as before
        form = posixpath.relpath(expected, posixpath.dirname(reader) or ".")
        form += "/" if decoded.endswith("/") and not form.endswith("/") else ""
    if form is None:
        return None
    if style == "relative" and decoded.startswith("./") and not form.startswith("."):
        form = "./" + form
    if _ENCODED_WIDE.search(written):
        return quote(form, safe="/.-_~")
    at = line.find(written, max(col - 1, 0))
    if at > 0 and line[at - 1] == "<":  # in angle brackets: spaces may stay
        return form.replace("<", "%3C").replace(">", "%3E")
    return _UNSAFE_IN_BODY.sub(lambda m: quote(m.group()), form)
