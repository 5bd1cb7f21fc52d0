"""What's new: the wiki's recent changes, grouped by day, telling added pages from edited ones,
and the same as an Atom feed.

When the wiki is a git checkout the changes come from its history, read in one ``git log``
pass (the last :data:`COMMITS` commits that touched a page); otherwise from each page's
frontmatter ``updated`` date, which cannot tell an added page from an edited one.
"""

from __future__ import annotations

import re
import subprocess
import uuid
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from pathlib import Path

from kbtool.render.site import Listing

#: how many commits the history is read back
COMMITS = 300
#: how many days of changes the page and the feed show, and how many feed entries at most
DAYS = 30
FEED_ENTRIES = 50
_GIT_TIMEOUT = 30

ADDED, EDITED, UPDATED = "added", "edited", "updated"
_DAY = re.compile(r"^\d{4}-\d{2}-\d{2}$")
#: what XML 1.0 cannot hold, even escaped
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ufffe\uffff]")


@dataclass(frozen=True, slots=True)
class Change:
    """A page added or edited on a day (``updated``: its frontmatter date, no history)."""

    day: str
    kind: str
    path: str


def git_log(root: Path, folders: Iterable[str]) -> str | None:
    """The output of one ``git log`` of the pages under ``folders`` (paths relative to
    ``root``), or None when ``root`` is not in a git checkout or git cannot be run."""
    command = [
        "git",
        "-C",
        str(root),
        "log",
        f"--max-count={COMMITS}",
        "--no-renames",  # a moved page is added where it is now
        "--name-status",
        "--relative",
        "--format=%x00%aI",
        "--",
        *folders,
    ]
    try:
        done = subprocess.run(
            command,
            capture_output=True,
            timeout=_GIT_TIMEOUT,
            check=False,
            stdin=subprocess.DEVNULL,
        )
    except (OSError, subprocess.SubprocessError):
        return None
    if done.returncode != 0:
        return None
    return done.stdout.decode("utf-8", "replace")


def parse_log(text: str) -> list[Change]:
    """The changes in ``git log --name-status --format=%x00%aI`` output, newest first: one
    per page and day, ``added`` when the page was added that day."""
    found: dict[tuple[str, str], str] = {}
    day = ""
    for line in text.splitlines():
        if line.startswith("\x00"):
            day = line[1:11]
            continue
        status, _, path = line.partition("\t")
        if not (day and path) or status[:1] not in ("A", "M"):
            continue
        key = (day, path)
        # Newest first: an older commit of the same day that added the page says "added".
        if status[:1] == "A" or key not in found:
            found[key] = ADDED if status[:1] == "A" else EDITED
    return [Change(day, kind, path) for (day, path), kind in found.items()]


def from_frontmatter(listings: Mapping[str, Listing]) -> list[Change]:
    """Every page with an ``updated`` date, as a change of that day."""
    return [
        Change(item.updated, UPDATED, path)
        for path, item in listings.items()
        if _DAY.match(item.updated)
    ]


def recent(changes: Iterable[Change], listings: Mapping[str, Listing]) -> list[Change]:
    """The changes of the last :data:`DAYS` days that have any, of pages the wiki still has,
    newest day first; in a day added pages first, then by title."""
    kept = [c for c in changes if c.path in listings]
    days = sorted({c.day for c in kept}, reverse=True)[:DAYS]
    order = {kind: i for i, kind in enumerate((ADDED, EDITED, UPDATED))}
    inverted = {day: _inverted(day) if day else "~" for day in days}
    shown = [c for c in kept if c.day in inverted]

    def key(c: Change) -> tuple[str, int, str, str]:
        title = listings[c.path].card.title.lower()
        return (inverted[c.day], order[c.kind], title, c.path)

    return sorted(shown, key=key)


def _inverted(day: str) -> str:
    """A day that sorts newest first."""
    return "".join(chr(ord("9") - ord(d) + ord("0")) if d.isdigit() else d for d in day)


def xml_text(value: str) -> str:
    """``value`` without the characters XML 1.0 cannot hold (escaping is the template's)."""
    return _NOT_XML.sub("", value)


def entry_id(base_url: str, output: str, day: str, kind: str) -> str:
    """An Atom entry's id: stable for the same change, unique per page, day and kind."""
    name = f"{base_url}|{output}|{day}|{kind}"
    return uuid.uuid5(uuid.NAMESPACE_URL, name).urn


def changes_from_log(log: str | None, listings: Mapping[str, Listing]) -> list[Change]:
    """The recent changes of the pages: from ``log`` (:func:`git_log`'s output) when there
    is one with changes, else from the frontmatter."""
    found = parse_log(log) if log is not None else []
    return recent(found if found else from_frontmatter(listings), listings)
