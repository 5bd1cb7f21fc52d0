"""What a file watcher saw between two builds of a long-running process (``kbtool serve``).

When the watcher ran all along, a file's status on disk (there, a folder, missing) can only
have changed if the watcher reported its path or a folder above it, so the check need not ask
the disk about the other files links lead to: at 7,000 pages that is most of a tenth of a
second per save. Files outside the watched folders are asked about every time.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from dataclasses import dataclass
from functools import cached_property


@dataclass(frozen=True)
class Watched:
    """The watched folders, the folders under them the watcher ignores, and the paths it
    reported since the last build, all relative to the root, with ``/``."""

    folders: tuple[str, ...]
    ignored: tuple[str, ...]
    changed: frozenset[str]

    @classmethod
    def of(
        cls, root: str, folders: Iterable[str], ignored: Iterable[str], changed: Iterable[str]
    ) -> Watched:
        """From absolute paths (the ones outside ``root`` are dropped)."""

        base = os.path.abspath(root)

        def relative(paths: Iterable[str]) -> tuple[str, ...]:
            found = (os.path.abspath(p) for p in paths)
            # The root itself is "" (a vault's one wiki folder is the whole of it).
            return tuple(
                "" if p == base else p[len(base) + 1 :].replace(os.sep, "/")
                for p in found
                if p == base or p.startswith(base + os.sep)
            )

        return cls(relative(folders), relative(ignored), frozenset(relative(changed)))

    def unchanged(self, name: str) -> bool:
        """Whether the watcher would have reported a change to the status of ``name`` (a path
        relative to the root) and did not."""
        if not name.startswith(self._under) or name.startswith(self._ignored) or _climbs(name):
            return False
        # The path itself, or a folder above it (moved, removed, made a symlink).
        return name not in self.changed and not name.startswith(self._changed)

    def notes_only(self, root: str) -> bool:
        """Whether every path reported is a note (a Markdown file there now) or hidden: no
        other file came, went or moved, so a vault's files by name are as they were."""
        return all(
            _hidden(name) or (name.endswith(".md") and os.path.isfile(os.path.join(root, name)))
            for name in self.changed
        )

    # Prefixes as tuples: str.startswith tries them all in one call (thousands of names).
    @cached_property
    def _under(self) -> tuple[str, ...]:
        return tuple(f"{folder}/" if folder else "" for folder in self.folders)

    @cached_property
    def _ignored(self) -> tuple[str, ...]:
        return tuple(folder + "/" for folder in self.ignored)

    @cached_property
    def _changed(self) -> tuple[str, ...]:
        return tuple(path + "/" for path in self.changed)


def _climbs(name: str) -> bool:
    """Whether ``name`` has a ``..`` part (it may lead out of the watched folders)."""
    return name == ".." or name.startswith("../") or "/../" in name or name.endswith("/..")


def _hidden(name: str) -> bool:
    """Whether ``name`` is or lies in a hidden entry (``.obsidian/workspace.json``)."""
    return name.startswith(".") or "/." in name
