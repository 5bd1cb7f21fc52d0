"""Writes that are checked before they land: ``write_page``, ``edit_section`` and
``move_page``.

A write runs the full check on the wiki as it would be with the new text and is refused if
that adds an error (the answer lists each with its fix); it overwrites a page only when given
the digest of the text it replaces (``if_match``, from ``read_page``), so two agents never
overwrite each other; it lands atomically (a new file renamed into place), only in the wiki's
folders, never through a symbolic link.
"""

from __future__ import annotations

import os
import posixpath

from kbtool.agent.checking import advice, check_draft, out
from kbtool.agent.errors import Refused
from kbtool.agent.models import MoveAnswer, WriteAnswer
from kbtool.agent.paths import page_path, writable_path
from kbtool.agent.reading import section_lines
from kbtool.agent.state import AgentWiki
from kbtool.atomic import write_atomic
from kbtool.diagnostics import Diagnostic
from kbtool.parse.digest import content_digest


def _current(wiki: AgentWiki, path: str) -> bytes | None:
    try:
        return wiki.read(path)
    except FileNotFoundError:
        return None
    except OSError as error:
        raise Refused(f"{path}: cannot read it: {error.strerror}") from None


def _may_replace(path: str, current: bytes | None, if_match: str | None) -> None:
    if current is None:
        if if_match:
            raise Refused(f"{path} does not exist (any more): write it without if_match")
        return
    digest = content_digest(current)
    if not if_match:
        raise Refused(
            f"{path} exists: to replace it, pass if_match={digest!r} (its digest, which "
            "read_page gives) after reading what it says now"
        )
    if if_match != digest:
        raise Refused(
            f"{path} changed since it was read (its digest is now {digest!r}, not "
            f"{if_match!r}): read it again and make the edit on what it says now"
        )


def _listing(problems: list[Diagnostic]) -> str:
    lines = []
    for d in problems[:30]:
        fix = advice(d)
        lines.append(f"- {d.format()}" + (f" (fix: {fix})" if fix else ""))
    if len(problems) > 30:
        lines.append(f"- ... and {len(problems) - 30} more")
    return "\n".join(lines)


def _land(wiki: AgentWiki, path: str, text: str, if_match: str | None) -> WriteAnswer:
    current = _current(wiki, path)
    _may_replace(path, current, if_match)
    draft = check_draft(wiki, path, text)
    if draft.added:
        raise Refused(
            f"{path} not written: the text adds {len(draft.added)} error(s) to the wiki. "
            f"Fix them and write again (check with path and text tries a draft):\n"
            + _listing(draft.added)
        )
    if _current(wiki, path) != current:  # written by someone else during the check
        raise Refused(f"{path} changed while it was checked: read it again and redo the edit")
    data = text.encode("utf-8")
    full = wiki.full_path(path)
    try:
        full.parent.mkdir(parents=True, exist_ok=True)
        mode = full.stat().st_mode & 0o7777 if current is not None else _new_file_mode()
        write_atomic(full, data)
        os.chmod(full, mode)  # the temporary file was made private
    except OSError as error:
        raise Refused(f"{path}: cannot write it: {error.strerror}") from None
    wiki.landed(path, draft.after)
    return WriteAnswer(
        path=path, digest=content_digest(data), created=current is None, diagnostics=out(draft.own)
    )


def _new_file_mode() -> int:
    umask = os.umask(0)
    os.umask(umask)
    return 0o666 & ~umask


def write_page(wiki: AgentWiki, given: str, text: str, if_match: str | None = None) -> WriteAnswer:
    path = writable_path(wiki, given)
    return _land(wiki, path, text, if_match)


def edit_section(
    wiki: AgentWiki, given: str, section: str, text: str, if_match: str | None
) -> WriteAnswer:
    """Replace one section (its heading and what is under it, up to the next heading of its
    level or above) with ``text``; a text that starts with no heading keeps the old one."""
    path = writable_path(wiki, given)
    current = _current(wiki, path)
    if current is None:
        raise Refused(f"{path} does not exist: write it whole with write_page")
    _may_replace(path, current, if_match)
    page = wiki.page(path)
    if page is None:
        raise Refused(f"{path} could not be read as a page")
    lines = current.decode("utf-8-sig", "replace").split("\n")
    first, last, _ = section_lines(page, lines, section)
    new = text.rstrip("\n").split("\n")
    if not section.strip().startswith("^") and not new[0].lstrip().startswith("#"):
        new = [lines[first - 1], *([""] if new[0].strip() else []), *new]
    if last < len(lines) and lines[last - 1].strip() == "" and new[-1].strip():
        new.append("")  # the blank line before the next heading stays
    bom = "\ufeff" if current.startswith(b"\xef\xbb\xbf") else ""
    edited = bom + "\n".join([*lines[: first - 1], *new, *lines[last:]])
    return _land(wiki, path, edited, if_match)


def move_page(wiki: AgentWiki, given: str, destination: str) -> MoveAnswer:
    """Move a page as ``kbtool mv`` does: every link to it and in it rewritten."""
    from kbtool.edits.moves import plan_move
    from kbtool.edits.spans import StaleEdit, apply_edits

    source = page_path(wiki, given)
    writable_path(wiki, source)
    target = writable_path(wiki, destination)
    if _current(wiki, target) is not None or os.path.lexists(wiki.full_path(target)):
        raise Refused(f"{target} exists: move_page never overwrites; choose another path")
    if target == source:
        raise Refused(f"{source} is already there")
    state = wiki.checked()
    plan = plan_move(state.wiki, {source: target}, wiki.read)
    changed: dict[str, bytes] = {}
    try:
        for path, edits in sorted(plan.edits.items()):
            changed[path] = apply_edits(wiki.read(path), edits)
    except (OSError, StaleEdit) as error:
        raise Refused(f"cannot rewrite the links of {path}: {error}; nothing was moved") from None
    try:
        for path, data in changed.items():
            full = wiki.full_path(path)
            mode = full.stat().st_mode & 0o7777
            write_atomic(full, data)
            os.chmod(full, mode)
        wiki.full_path(target).parent.mkdir(parents=True, exist_ok=True)
        os.rename(wiki.full_path(source), wiki.full_path(target))
    except OSError as error:
        raise Refused(f"cannot move {source}: {error.strerror}") from None
    wiki.wrote([*changed, source, target, posixpath.dirname(target)])
    return MoveAnswer(
        source=source,
        destination=target,
        links_rewritten=sum(len(edits) for edits in plan.edits.values()),
        pages_changed=sorted(changed),
        problems=list(plan.problems),
    )
