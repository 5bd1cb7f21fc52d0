"""What ``kbtool serve`` prints after a build: not the whole wiki's diagnostics again, but
what this save changed — one line for the build, the diagnostics that appeared in full, those
that went in brief, and a count of the rest.

A diagnostic is the same one across saves when its page, code, severity and message are:
its line moves whenever a line is added above it, and that is not news to the author.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from kbtool.diagnostics import Diagnostic

#: past this many, the rest of a list is a count (``kbtool check`` lists them all)
SHOWN = 20
#: diagnostics that went, named one line each up to this many
SHOWN_GONE = 5

Identity = tuple[str, str, str, str]


def identity(d: Diagnostic) -> Identity:
    return (d.path, d.code, d.severity, d.message)


@dataclass(frozen=True)
class Change:
    """The diagnostics that appeared and went between two builds' lists."""

    new: list[Diagnostic]
    gone: list[Diagnostic]

    @classmethod
    def between(cls, before: Sequence[Diagnostic], after: Sequence[Diagnostic]) -> Change:
        had = Counter(map(identity, before))
        has = Counter(map(identity, after))
        return cls(_beyond(after, had), _beyond(before, has))


def _beyond(diagnostics: Iterable[Diagnostic], other: Counter[Identity]) -> list[Diagnostic]:
    """Those of ``diagnostics`` that ``other`` does not hold as many times (in order)."""
    left = Counter(other)
    out = []
    for d in sorted(diagnostics):
        key = identity(d)
        if left[key] > 0:
            left[key] -= 1
        else:
            out.append(d)
    return out


def counts(diagnostics: Sequence[Diagnostic]) -> str:
    """``3 errors, 891 warnings``: the severities present, errors first."""
    by = Counter(d.severity for d in diagnostics)
    parts = [f"{by[s]} {s}{'' if by[s] == 1 else 's'}" for s in ("error", "warning") if by[s]]
    return ", ".join(parts) or "no diagnostics"


def changed_files(changed: Iterable[str], root: Path) -> str:
    """The files a save changed, as the author names them: relative to the project."""
    names = []
    for path in sorted(changed):
        try:
            names.append(Path(path).relative_to(root).as_posix())
        except ValueError:
            names.append(path)
    if len(names) > 2:
        return f"{names[0]}, {names[1]} and {len(names) - 2} more"
    return ", ".join(names) or "files"


def first_lines(diagnostics: Sequence[Diagnostic], build_line: str) -> list[str]:
    """What the first build of a ``serve`` prints: the errors in full (they stop the site),
    every diagnostic when there are few, else a count of the warnings."""
    errors = [d for d in sorted(diagnostics) if d.severity == "error"]
    shown = sorted(diagnostics) if len(diagnostics) <= SHOWN else errors
    lines = [d.format() for d in shown[:SHOWN]]
    if len(shown) > SHOWN:
        lines.append(f"... and {len(shown) - SHOWN} more errors")
    rest = len(diagnostics) - min(len(shown), SHOWN)
    if rest:
        lines.append(
            f"{counts(diagnostics)} in the wiki ({rest} not shown: `kbtool check` lists them)"
        )
    return [*lines, build_line]


def save_lines(
    before: Sequence[Diagnostic], after: Sequence[Diagnostic], what: str, build_line: str
) -> list[str]:
    """What a rebuild after a save prints: ``what`` changed and ``build_line`` with what
    became of the diagnostics on one line, then the new ones in full, the errors that still
    stop the site, and the gone in brief."""
    change = Change.between(before, after)
    news = f"{len(change.new)} new, {len(change.gone)} gone"
    rest = len(after) - len(change.new)
    line = f"{what} changed: {build_line}; diagnostics: {news}, {rest} as before"
    if after:
        line += f" ({counts(after)} in all)"
    lines = [line]
    lines += ["  + " + d.format() for d in change.new[:SHOWN]]
    # Errors stop the site from being published: those the save did not add are named too.
    new = set(change.new)
    still = [d for d in sorted(after) if d.severity == "error" and d not in new]
    lines += ["  ! " + d.format() for d in still[:SHOWN]]
    if len(change.new) > SHOWN:
        lines.append(f"  ... and {len(change.new) - SHOWN} more new")
    lines += [
        f"  - gone: {d.path}:{d.line}: {d.code} {d.message}" for d in change.gone[:SHOWN_GONE]
    ]
    if len(change.gone) > SHOWN_GONE:
        lines.append(f"  ... and {len(change.gone) - SHOWN_GONE} more gone")
    return lines
