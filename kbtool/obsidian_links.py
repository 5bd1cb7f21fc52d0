"""Obsidian's rules for a link's target, on paths alone: which file ``[[name]]``,
``[[Folder/Note]]`` or ``[text](Note%20name.md)`` opens, and what its ``#…`` part names.

Obsidian finds a link's file by its name anywhere in the vault, in any case; a link that
holds a folder (``[[Folder/Note]]``) takes the files whose path ends so. Where several
files qualify it opens one all the same: the one at the path written from the vault's root,
else the one in the linking note's folder, else the one with the shortest path. Only when
that still leaves several is the link ambiguous. A name without an extension names a note
(``.md``); any other file is named with its extension (``picture.png``, ``Board.canvas``).

The ``#`` part is a heading by its text (``#Heading``), a heading under another
(``#A#B``), or a block (``#^id``).
"""

from __future__ import annotations

import json
import posixpath
from pathlib import Path
from typing import Any, NamedTuple

from kbtool.link_status import files_by_name


class Choice(NamedTuple):
    """The file a link opens (None: none), and the others it could have meant when Obsidian
    could not tell them apart (empty unless ambiguous)."""

    path: str | None
    ties: tuple[str, ...] = ()


def link_name(linkpath: str) -> str:
    """The lower-case file name a link path looks for: ``Folder/Note`` -> ``note``
    (a note's stem), ``img/a.PNG`` -> ``a.png`` (a file's whole name)."""
    return linkpath.rstrip("/").rsplit("/", 1)[-1].lower()


def note_name(linkpath: str) -> str:
    """The lower-case stem of the note a link path names: ``Folder/Note.md`` -> ``note``."""
    name = link_name(linkpath)
    return name[:-3] if name.endswith(".md") else name


def choose(linkpath: str, reader: str, candidates: list[str], note: bool) -> Choice:
    """Which of ``candidates`` (paths from the root, all with the name looked for) the link
    ``linkpath`` of the page ``reader`` opens, as Obsidian chooses. ``note``: the
    candidates are notes, named without ``.md``."""
    wanted = linkpath.strip().strip("/").lower()
    relative = wanted.startswith(("./", "../"))  # newLinkFormat "relative": from the note
    if relative:
        wanted = posixpath.normpath(posixpath.join(posixpath.dirname(reader).lower(), wanted))
    if note and wanted.endswith(".md"):
        wanted = wanted[:-3]

    def written(path: str) -> str:
        path = path.lower()
        return path[:-3] if note and path.endswith(".md") else path

    if relative:
        return Choice(next((p for p in candidates if written(p) == wanted), None))
    fitting = [p for p in candidates if _ends_with(written(p), wanted)]
    if len(fitting) <= 1:
        return Choice(fitting[0] if fitting else None)
    exact = [p for p in fitting if written(p) == wanted]
    if exact:
        return Choice(exact[0])
    folder = posixpath.dirname(reader)
    near = [p for p in fitting if posixpath.dirname(p) == folder]
    if near:
        return Choice(near[0])
    depth = min(p.count("/") for p in fitting)
    shallowest = sorted(p for p in fitting if p.count("/") == depth)
    if len(shallowest) == 1:
        return Choice(shallowest[0])
    return Choice(shallowest[0], tuple(shallowest))


def _ends_with(path: str, wanted: str) -> bool:
    return path == wanted or path.endswith("/" + wanted)


def subpath_parts(anchor: str) -> list[str]:
    """``A#B`` -> ``["A", "B"]``; ``^id`` -> ``["^id"]``: the headings (outermost first) or
    the block a link's ``#`` part names."""
    return [part.strip() for part in anchor.split("#") if part.strip()]


def new_attachment_folder(setting: str, reader: str) -> str:
    """Where Obsidian puts a new attachment of a note at ``reader``, from the vault's
    ``attachmentFolderPath`` ("/" or "": the root; "./x": beside the note; else a folder)."""
    setting = setting.strip()
    if setting in ("", "/"):
        return ""
    if setting == "." or setting.startswith("./"):
        setting = posixpath.join(posixpath.dirname(reader), setting)
    folder = posixpath.normpath(setting.strip("/"))
    return "" if folder == "." else folder


def attachment_setting(root: Path) -> str:
    """Obsidian's ``attachmentFolderPath`` (``.obsidian/app.json``): where new attachments
    go; "/" (the vault's root) when unset or unreadable."""
    try:
        value = json.loads((root / ".obsidian" / "app.json").read_bytes())["attachmentFolderPath"]
    except (OSError, ValueError, KeyError, TypeError):
        return "/"
    return value if isinstance(value, str) else "/"


def vault_files(root: Path, left_out: frozenset[str]) -> dict[str, Any]:
    """What resolving files by name needs of the disk, read once a check: every file that
    is not a note by its lower-case name, and where new attachments go."""
    return {"files": files_by_name(str(root), left_out), "new": attachment_setting(root)}


def choose_file(vault: dict[str, Any], linkpath: str, reader: str) -> tuple[Choice, list[str]]:
    """The file ``linkpath`` of ``reader`` opens among ``vault``'s (:func:`vault_files`), and
    the paths whose status decides it: each file of that name, and where Obsidian would put
    a new one (so that a check looks again where one appears), the chosen one last."""
    name = linkpath.strip().rstrip("/").rsplit("/", 1)[-1]
    files: list[str] = vault["files"].get(name.lower(), [])
    found = choose(linkpath, reader, files, note=False)
    new = new_attachment_folder(vault["new"], reader)
    watched = sorted({*files, posixpath.join(new, name) if new else name} - {found.path})
    return found, [*watched, *([found.path] if found.path else [])]


def link_anchors(page: Any) -> frozenset[str]:
    """What a link's ``#`` part may name on ``page`` (a :class:`~kbtool.model.Page`): its
    headings' slugs and its blocks as ``^id``. A stand-in holds them all in its slugs."""
    slugs: frozenset[str] = page.slugs
    blocks = getattr(page, "blocks", ())
    return slugs | {f"^{block.id}" for block in blocks} if blocks else slugs
