"""A cell's traceback as its author should see it: their frames only, and why access was refused.

Frames of kbtool's own modules (the page process running the cell, and in the fallback the
patched ``socket`` module of :mod:`kbtool.execute.limits`) are dropped, so the traceback ends
in the user's code or the library it called. A ``PermissionError`` raised while the page is
contained gets a short note saying what the sandbox allows.
"""

from __future__ import annotations

import os
import traceback
from types import TracebackType

_OWN = os.path.dirname(os.path.abspath(__file__)) + os.sep
_hint: str | None = None


def set_hint(text: str | None) -> None:
    """What to tell the author of a cell that hit a refusal (set by the sandbox)."""
    global _hint
    _hint = text


def user_traceback(exc: BaseException, tb: TracebackType | None) -> str:
    """``traceback.format_exception`` from ``tb`` on, without kbtool's frames."""
    summary = traceback.TracebackException(type(exc), exc, tb, compact=True)
    _drop_own(summary)
    return "".join(summary.format())


def _drop_own(summary: traceback.TracebackException) -> None:
    seen: set[int] = set()
    todo = [summary]
    while todo:  # the exception and those chained to it (cause, context, groups)
        current = todo.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        frames = [frame for frame in current.stack if not frame.filename.startswith(_OWN)]
        current.stack = traceback.StackSummary.from_list(frames)
        todo.extend(e for e in (current.__cause__, current.__context__) if e is not None)
        todo.extend(getattr(current, "exceptions", None) or ())


def explained(reason: str, exc: BaseException) -> str:
    """``reason``, with the sandbox's note if ``exc`` is a refusal while contained."""
    if _hint is not None and isinstance(exc, PermissionError):
        return f"{reason} ({_hint})"
    return reason
