"""Where a path goes when files and folders move: shared by the plans of a move."""

from __future__ import annotations


def moved_path(moves: dict[str, str], path: str) -> str | None:
    """Where ``path`` goes when ``moves`` are done: moved itself, or inside a moved folder."""
    for old, new in moves.items():
        if path == old:
            return new
        if path.startswith(old.rstrip("/") + "/"):
            return new.rstrip("/") + path[len(old.rstrip("/")) :]
    return None
