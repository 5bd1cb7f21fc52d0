"""Stage 1, scan: every file of the wiki and the sources read once, with its content digest.

The snapshot is what every record of the run is keyed by; no later stage reads a page's file.
"""

from __future__ import annotations

import hashlib
import os
from dataclasses import dataclass
from functools import cached_property

from kbtool.config import Config
from kbtool.discover import Found, Unreadable, discover
from kbtool.model import Problem
from kbtool.parse.digest import content_digest


@dataclass(frozen=True)
class Snapshot:
    """Every file's bytes and content digest, read once; what all records are keyed by."""

    files: list[tuple[Found, bytes, str]]
    unreadable: list[Unreadable]

    def digest(self) -> str:
        """One hash of every path, kind and content digest, and every unreadable file."""
        text = repr(
            [(f.path, f.kind, digest) for f, _, digest in self.files]
            + [(u.path, u.problem) for u in self.unreadable]
        )
        return hashlib.blake2b(text.encode(), digest_size=16).hexdigest()

    def digests(self) -> dict[str, str]:
        """path -> content digest of every file read: one dict per snapshot, which every
        stage asks for (not to be changed)."""
        return self._digests

    @cached_property
    def _digests(self) -> dict[str, str]:
        return {item.path: digest for item, _, digest in self.files}


def scan(config: Config) -> Snapshot:
    found, unreadable = discover(config)
    files = []
    root = str(config.root)
    for item in found:
        data = _read(root, item, unreadable)
        if data is not None:
            files.append((item, data, content_digest(data)))
    return Snapshot(files, sorted(unreadable, key=lambda u: u.path))


def _read(root: str, item: Found, unreadable: list[Unreadable]) -> bytes | None:
    try:
        with open(os.path.join(root, item.path), "rb") as f:  # plain strings: 7,000 files
            return f.read()
    except OSError as error:
        unreadable.append(Unreadable(item.path, Problem("KB004", f"cannot read: {error.strerror}")))
        return None
