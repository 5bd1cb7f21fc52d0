"""Edits the editor applies: what ``kbtool fix`` would fix, "did you mean" for a broken
target, a renamed heading, renamed or moved files (all through :mod:`kbtool.edits`)."""

from __future__ import annotations

import difflib
import posixpath
import re
from collections.abc import Sequence

from lsprotocol import types

from kbtool.checks.fixes import fix_text, mention_edit
from kbtool.checks.project import decode_edit
from kbtool.edits.headings import plan_heading_rename
from kbtool.edits.moves import MovePlan, plan_move
from kbtool.lsp.navigate import uri_of
from kbtool.lsp.state import WikiState
from kbtool.lsp.text import Lines
from kbtool.wiki import Wiki

_SUGGESTION = re.compile(r"\((?:did you mean '([^']+)'\?|a page '([^']+)' exists)\)")


class RenameRefused(Exception):
    """The rename asked for cannot be done; the message says why."""


def workspace_edit(state: WikiState, plan: MovePlan) -> types.WorkspaceEdit:
    """The plan's edits, by the URI each page has before the rename."""
    changes: dict[str, list[types.TextEdit]] = {}
    for path, edits in plan.edits.items():
        lines = Lines.of(state.text(path))
        changes[uri_of(state, path)] = [
            types.TextEdit(
                range=types.Range(
                    types.Position(*lines.position(e.line, e.col)),
                    types.Position(*lines.position(e.line, e.end_col)),
                ),
                new_text=e.new,
            )
            for e in sorted(edits)
        ]
    return types.WorkspaceEdit(changes=changes)


def rename_files(state: WikiState, moves: dict[str, str]) -> types.WorkspaceEdit:
    """``workspace/willRenameFiles``: every link to what moves, and every relative link in
    it, as one edit."""
    return workspace_edit(state, plan_move(state.wiki, moves, state.read))


def heading_at(state: WikiState, path: str, line: int) -> tuple[int, str] | None:
    page = state.pages.get(path)
    for heading in page.headings if page else ():
        if heading.line == line:
            return heading.line, heading.text
    return None


def rename_heading(state: WikiState, path: str, line: int, new_name: str) -> types.WorkspaceEdit:
    if heading_at(state, path, line) is None:
        raise RenameRefused(
            "kbtool renames a heading (and every anchor to it); rename a page by renaming its file"
        )
    if not new_name.strip() or "\n" in new_name:
        raise RenameRefused("a heading's new text must be one line, not empty")
    plan = plan_heading_rename(state.wiki, path, line, new_name.strip(), state.read)
    if plan.problems and not plan.edits:
        raise RenameRefused(plan.problems[0])
    return workspace_edit(state, plan)


def code_actions(
    state: WikiState, path: str, lines: Lines, asked: Sequence[types.Diagnostic]
) -> list[types.CodeAction]:
    uri = uri_of(state, path)
    actions = []
    for diagnostic in asked:
        if diagnostic.code == "KB306":
            actions += _mention_action(state, path, lines, diagnostic)
        rule_fix = _rule_fix(uri, lines, diagnostic)
        if rule_fix is not None:
            actions.append(rule_fix)
            continue
        match = _SUGGESTION.search(diagnostic.message)
        if match is None:
            continue
        suggestion = match.group(1) or match.group(2)
        old = _range_text(lines, diagnostic.range)
        new = _replacement(state, path, old, suggestion)
        if new is None or new == old:
            continue
        edit = types.TextEdit(range=diagnostic.range, new_text=new)
        actions.append(
            types.CodeAction(
                title=f"Change to '{new}'",
                kind=types.CodeActionKind.QuickFix,
                diagnostics=[diagnostic],
                is_preferred=True,
                edit=types.WorkspaceEdit(changes={uri: [edit]}),
            )
        )
    fix = _page_fix(state, path)
    if fix is not None:
        actions.append(fix)
    return actions


def _mention_action(
    state: WikiState, path: str, lines: Lines, diagnostic: types.Diagnostic
) -> list[types.CodeAction]:
    """KB306: the mention the diagnostic is at, made a link to the page it names."""
    if path not in state.pages:
        return []
    line, col = lines.place(diagnostic.range.start.line, diagnostic.range.start.character)
    text = state.text(path).replace("\r\n", "\n")
    wiki = Wiki(state.config, state.pages, checked=frozenset({path}))
    found = mention_edit(wiki, path, text, line, col)
    if found is None:
        return []
    length, link = found
    start = types.Position(*lines.position(line, col))
    end = types.Position(*lines.position(line, col + length))
    edit = types.TextEdit(range=types.Range(start, end), new_text=link)
    return [
        types.CodeAction(
            title=f"Link to '{link.rpartition('](')[2][:-1]}'",
            kind=types.CodeActionKind.QuickFix,
            diagnostics=[diagnostic],
            is_preferred=True,
            edit=types.WorkspaceEdit(changes={uri_of(state, path): [edit]}),
        )
    ]


def _rule_fix(uri: str, lines: Lines, diagnostic: types.Diagnostic) -> types.CodeAction | None:
    """The edit a project rule offered with its finding, as a quick fix."""
    data = diagnostic.data
    edit = decode_edit(data.get("fix")) if isinstance(data, dict) else None
    if edit is None:
        return None
    start, end = lines.position(edit.line, edit.col), lines.position(edit.end_line, edit.end_col)
    change = types.TextEdit(
        range=types.Range(types.Position(*start), types.Position(*end)), new_text=edit.new
    )
    return types.CodeAction(
        title=f"{diagnostic.code}: fix",
        kind=types.CodeActionKind.QuickFix,
        diagnostics=[diagnostic],
        is_preferred=True,
        edit=types.WorkspaceEdit(changes={uri: [change]}),
    )


def _range_text(lines: Lines, where: types.Range) -> str:
    if where.start.line != where.end.line:
        return ""
    number = where.start.line + 1
    start = lines.place(where.start.line, where.start.character)[1]
    end = lines.place(where.end.line, where.end.character)[1]
    return lines.get(number)[start - 1 : end - 1]


def _replacement(state: WikiState, path: str, old: str, suggestion: str) -> str | None:
    """The target ``old`` with the suggested page (a repository path) or anchor in place."""
    target, hash_sign, anchor = old.partition("#")
    if suggestion in state.pages:
        relative = posixpath.relpath(suggestion, posixpath.dirname(path) or ".")
        return relative + hash_sign + anchor
    if hash_sign:  # a suggested heading slug
        return f"{target}#{suggestion}"
    return None


def _page_fix(state: WikiState, path: str) -> types.CodeAction | None:
    """``kbtool fix`` on this page's text as the editor has it, as line edits."""
    if path not in state.pages:
        return None
    wiki = Wiki(state.config, state.pages, checked=frozenset({path}))
    text = state.text(path)
    fix = fix_text(wiki, path, text)
    if fix is None:
        return None
    before, after = Lines.of(text).lines, Lines.of(fix.after).lines
    newline = "\r\n" if "\r\n" in text else "\n"
    edits = []
    matcher = difflib.SequenceMatcher(a=before, b=after, autojunk=False)
    for op, a1, a2, b1, b2 in matcher.get_opcodes():
        if op == "equal":
            continue
        new_text = "".join(line + newline for line in after[b1:b2])
        edits.append(
            types.TextEdit(
                range=types.Range(types.Position(a1, 0), types.Position(a2, 0)), new_text=new_text
            )
        )
    return types.CodeAction(
        title="kbtool fix: " + "; ".join(fix.descriptions),
        kind=types.CodeActionKind.SourceFixAll,
        edit=types.WorkspaceEdit(changes={uri_of(state, path): edits}),
    )
