"""A vault's pages by folder: one page per folder with its notes and sub-folders (the root's
shows the whole tree of folders), and the page of notes not created yet, which names each note
the vault's links lead to that does not exist, with the notes that link to it.

Each is an :class:`~kbtool.render.indexes.IndexPage`, its data made of the listings alone, so
an index's key is what it shows: a note added to a folder renders that folder's page and its
parents' (their counts) again, and no other.
"""

from __future__ import annotations

import posixpath
from collections import defaultdict
from collections.abc import Callable
from typing import Any

from kbtool.render import urls
from kbtool.render.site import Listing
from kbtool.render.vault import UNRESOLVED, folder_of, folder_output


class _Folders:
    """The folders of the notes listed: each one's notes, sub-folders, and count of notes in
    it and below. A folder that holds folders alone is one too."""

    def __init__(self, listings: list[Listing]) -> None:
        self.notes: dict[str, list[Listing]] = defaultdict(list)
        for item in listings:
            self.notes[folder_of(item.card.path)].append(item)
        folders = set(self.notes) | {""}
        for folder in list(folders):
            while folder:
                folder = folder_of(folder)
                folders.add(folder)
        self.all = sorted(folders)
        self.children: dict[str, list[str]] = defaultdict(list)
        for folder in self.all:
            if folder:
                self.children[folder_of(folder)].append(folder)
        self.counts: dict[str, int] = {}
        for folder in sorted(folders, key=lambda f: -f.count("/") if f else 1):  # deepest first
            inside = sum(self.counts[child] for child in self.children[folder])
            self.counts[folder] = len(self.notes[folder]) + inside

    def tree(self, folder: str, output: str, depth: int | None = None) -> list[dict[str, Any]]:
        """The folders in ``folder``, ``depth`` levels down (None: all), linked from
        ``output``."""
        below = None if depth is None else depth - 1
        return [
            {
                "name": posixpath.basename(child),
                "url": urls.href(output, folder_output(child)),
                "count": self.counts[child],
                "children": [] if below == 0 else self.tree(child, output, below),
            }
            for child in sorted(self.children[folder], key=str.lower)
        ]


def folder_tree(listings: list[Listing], output: str) -> list[dict[str, Any]]:
    """The tree of every folder of the notes listed, linked from ``output``."""
    return _Folders(listings).tree("", output)


def folder_pages(
    listings: list[Listing],
    t: Callable[..., str],
    entry: Callable[[Listing, str], dict[str, str]],
) -> list[tuple[str, str, dict[str, Any]]]:
    """(output, title, data) of every folder's page, the root's first; ``entry`` shows a
    note in a list from an output."""
    found = _Folders(listings)
    pages = []
    for folder in found.all:
        output = folder_output(folder)
        trail = [(t("folders"), urls.href(output, folder_output("")))]
        parts = folder.split("/") if folder else []
        for depth in range(len(parts) - 1):
            above = "/".join(parts[: depth + 1])
            trail.append((parts[depth], urls.href(output, folder_output(above))))
        listed = sorted(found.notes[folder], key=lambda i: (i.card.title.lower(), i.card.path))
        data = {
            "trail": trail if folder else [],
            # the root's page shows the whole tree; a folder's, its own folders
            "folders": found.tree(folder, output, None if not folder else 1),
            "entries": [entry(item, output) for item in listed],
            "count": found.counts[folder],
        }
        title = parts[-1] if parts else t("folders")
        pages.append((output, title, data))
    return pages


def unresolved_data(listings: list[Listing]) -> dict[str, Any]:
    """The data of :data:`~kbtool.render.vault.UNRESOLVED`: each note not created yet, by
    name, with the notes that link to it (by title)."""
    linking: dict[str, dict[str, Listing]] = defaultdict(dict)
    shown: dict[str, str] = {}
    for item in listings:
        for name in item.missing:
            key = name.lower()  # Obsidian creates one note for [[Idea]] and [[idea]]
            shown.setdefault(key, name)
            linking[key][item.card.path] = item
    notes = []
    for key in sorted(linking, key=lambda k: (k, shown[k])):
        by = sorted(linking[key].values(), key=lambda i: (i.card.title.lower(), i.card.path))
        refs = [(item.card.title, urls.href(UNRESOLVED, item.card.url)) for item in by]
        notes.append({"name": shown[key], "linked_from": refs})
    return {"notes": notes}
