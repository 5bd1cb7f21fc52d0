"""What the site of an Obsidian vault shows besides a wiki's: its home note as the front page,
its folders, the notes not created yet. Decided here once, so that a wiki that is no vault
renders as it always did.

>>> from pathlib import Path
>>> home_note(Config(root=Path("."), wiki="."), ["Notes/a.md", "README.md", "Home.md"])
'Home.md'
>>> folder_of("Notes/Deep/a.md"), folder_of("a.md")
('Notes/Deep', '')
>>> missing_note("Projects/Missing%20plan.md#Goals")
'Projects/Missing plan'
"""

from __future__ import annotations

import posixpath
import re
from collections.abc import Container
from urllib.parse import unquote

from kbtool.config import WHOLE, Config

#: The notes Obsidian users make their vault's start, in the order they are looked for.
HOME_NAMES = ("Home.md", "index.md", "README.md", "首页.md")
#: The folder pages' and the notes-not-created-yet page's outputs.
FOLDERS_FOLDER = "folders"
UNRESOLVED = "unresolved.html"
#: A file name's extension that is no note's: ``picture.png``, ``paper.pdf``.
_ATTACHMENT = re.compile(r"\.(?!md$)[A-Za-z0-9]{1,5}$")


def is_vault(config: Config) -> bool:
    """Whether the wiki is an Obsidian vault (or a folder of notes read as one)."""
    return config.wiki == WHOLE or config.flavor == "obsidian"


def home_note(config: Config, pages: Container[str]) -> str | None:
    """The vault's home note among ``pages`` (paths): the ``home`` setting, else the first of
    :data:`HOME_NAMES` at the wiki's root; None in a wiki that is no vault, or without one."""
    if not is_vault(config):
        return None
    if config.home:
        return config.home if config.home in pages else None
    top = "" if config.wiki == WHOLE else config.wiki.rstrip("/") + "/"
    return next((top + name for name in HOME_NAMES if top + name in pages), None)


def tag_and_parents(tag: str) -> list[str]:
    """A nested tag and the tags it is under, as Obsidian lists a note tagged ``#a/b`` under
    ``#a`` too.

    >>> tag_and_parents("area/home/garden")
    ['area/home/garden', 'area/home', 'area']
    """
    parts = [part for part in tag.split("/") if part]
    if not parts:
        return [tag]
    return ["/".join(parts[:end]) for end in range(len(parts), 0, -1)]


def folder_of(path: str) -> str:
    """The folder that holds ``path`` ('' for the root)."""
    return posixpath.dirname(path)


def folder_output(folder: str) -> str:
    """The page of ``folder``'s notes: ``folders/index.html`` for the root, else
    ``folders/<folder>/index.html``."""
    return posixpath.join(FOLDERS_FOLDER, folder, "index.html")


def missing_note(target: str) -> str | None:
    """The note a link that leads nowhere names, as Obsidian would create it (its path
    without ``.md``, its anchor and label); None for an attachment or a link to nothing."""
    name = unquote(target.split("|", 1)[0].split("#", 1)[0]).strip().strip("<>").strip()
    if not name or _ATTACHMENT.search(name) or "://" in name:
        return None
    name = name.removeprefix("./")
    return name[:-3] if name.lower().endswith(".md") else name
