"""``changes``: what changed since a git revision or a time: the pages added, edited and
removed (the working tree against that revision, from git), and the diagnostics that
appeared or went, found by the session's own check with the pages' former texts laid over
the files, as a draft is."""

from __future__ import annotations

import re
import subprocess
from collections import Counter

from kbtool.agent.checking import out
from kbtool.agent.errors import Refused
from kbtool.agent.models import ChangesAnswer
from kbtool.agent.state import AgentWiki
from kbtool.diagnostics import Diagnostic

#: Past this many changed pages the diagnostics are not compared (the answer says so).
MAX_COMPARED = 2_000
#: The most diagnostics listed each way.
MAX_LISTED = 300
_TIME = re.compile(r"^\d{4}-\d{2}-\d{2}([ T].*)?$")
_EMPTY_TREE = "4b825dc642cb6eb9a060e54bf8d69288fbee4904"


def _git(wiki: AgentWiki, *args: str) -> str:
    try:
        done = subprocess.run(
            ["git", "-C", str(wiki.config.root), *args],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise Refused(f"cannot run git: {error}") from None
    if done.returncode != 0:
        message = done.stderr.decode("utf-8", "replace").strip().splitlines()
        raise Refused(f"git {args[0]} failed: {message[-1] if message else done.returncode}")
    return done.stdout.decode("utf-8", "replace")


def _revision(wiki: AgentWiki, since: str) -> str:
    if since.startswith("-"):
        raise Refused(f"'{since}' is not a revision: give a commit, a branch, a tag or a date")
    try:
        _git(wiki, "rev-parse", "--git-dir")
    except Refused:
        raise Refused(
            f"{wiki.config.root} is not in a git repository: changes_since reads the history "
            "git keeps; list_pages with 'updated >= DATE' finds the pages dated since"
        ) from None
    if _TIME.match(since.strip()):
        found = _git(wiki, "rev-list", "-1", f"--before={since.strip()}", "HEAD").strip()
        return found or _EMPTY_TREE
    return _git(wiki, "rev-parse", "--verify", "--end-of-options", since + "^{commit}").strip()


def _folders(wiki: AgentWiki) -> list[str]:
    return [*wiki.config.wiki_folders, wiki.config.sources]


def changed_pages(wiki: AgentWiki, revision: str) -> tuple[list[str], list[str], list[str]]:
    """(added, edited, removed) pages between ``revision`` and the working tree."""
    pages = wiki.checked().disk.digests()
    diff = _git(
        wiki, "diff", "--relative", "--no-renames", "--name-status", revision, "--", *_folders(wiki)
    )
    added, edited, removed = set(), set(), set()
    for line in diff.splitlines():
        status, _, path = line.partition("\t")
        if not path.endswith(".md"):
            continue
        if status.startswith("A"):
            added.add(path)
        elif status.startswith("D"):
            removed.add(path)
        else:
            edited.add(path)
    untracked = _git(wiki, "ls-files", "--others", "--exclude-standard", "--", *_folders(wiki))
    added.update(p for p in untracked.splitlines() if p.endswith(".md"))
    return (
        sorted(p for p in added if p in pages),
        sorted(p for p in edited if p in pages),
        sorted(p for p in removed if wiki.state.kind_of(p) is not None),
    )


def _key(d: Diagnostic) -> tuple[str, str, str]:
    return (d.path, d.code, d.message)


def _difference(one: list[Diagnostic], other: list[Diagnostic]) -> list[Diagnostic]:
    """What of ``one`` is not in ``other`` (lines aside: an edit moves them)."""
    left = Counter(_key(d) for d in other)
    found = []
    for d in one:
        if left[_key(d)] > 0:
            left[_key(d)] -= 1
        else:
            found.append(d)
    return found


def changes(wiki: AgentWiki, since: str) -> ChangesAnswer:
    revision = _revision(wiki, since)
    added, edited, removed = changed_pages(wiki, revision)
    now = [d for ds in wiki.diagnostics().values() for d in ds]
    appeared: list[Diagnostic] = []
    went: list[Diagnostic] = []
    if len(edited) + len(removed) <= MAX_COMPARED and revision != _EMPTY_TREE:
        former = {p: _git_bytes(wiki, revision, p) for p in [*edited, *removed]}
        then_found = wiki.check_overlay(former)
        new = set(added)
        then = [d for ds in then_found.values() for d in ds if d.path not in new]
        appeared, went = _difference(now, then), _difference(then, now)
    return ChangesAnswer(
        since=revision,
        added=added,
        edited=edited,
        removed=removed,
        appeared=out(sorted(appeared)[:MAX_LISTED]),
        went=out(sorted(went)[:MAX_LISTED]),
    )


def _git_bytes(wiki: AgentWiki, revision: str, path: str) -> bytes:
    try:
        done = subprocess.run(
            ["git", "-C", str(wiki.config.root), "show", f"{revision}:./{path}"],
            capture_output=True,
            stdin=subprocess.DEVNULL,
            timeout=30,
        )
    except (OSError, subprocess.SubprocessError) as error:
        raise Refused(f"cannot run git: {error}") from None
    return done.stdout if done.returncode == 0 else b""
