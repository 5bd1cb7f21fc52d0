"""Safe automatic fixes: edits that keep what the author meant and only repair the form.

- a `related`, `sources` or `tags` value written as one string becomes a one-item YAML list;
- an entry listed twice in `related` or `sources` loses its repeat;
- an `#anchor` that differs from a heading's slug only by case or punctuation is rewritten to
  the slug (only when exactly one heading matches);
- where KB306 is on (it is off by default), the first unlinked mention of each other page
  becomes a link to it;
- the edits the project's rules offer with their findings (``Finding(..., edit=Edit(...))``),
  of the rules that are on, where no other fix changed those lines and no two overlap (what
  is left is offered again by the next run).

Fixes are line edits on the file's own text, so comments, key order, quoting and line endings
are kept. Nothing is written when nothing changes.
"""

from __future__ import annotations

import difflib
import os
import stat
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from kbtool.checks.mentions import Names, link_text
from kbtool.checks.project import decode_edit, project_diagnostics
from kbtool.checks.upkeep import wiki_names
from kbtool.diagnostics import enabled_codes
from kbtool.parse.slugs import slugify
from kbtool.rule_loader import project_rules
from kbtool.rules import Edit
from kbtool.wiki import Status, Wiki

LIST_KEYS = ("related", "sources", "tags")
# Every fix edits lines by their original number; dropped lines are marked, removed at the end.
_DROPPED = "\0"


@dataclass(frozen=True)
class PageFix:
    path: str
    before: str
    after: str
    descriptions: tuple[str, ...]

    def diff(self) -> str:
        return "".join(
            difflib.unified_diff(
                self.before.splitlines(keepends=True),
                self.after.splitlines(keepends=True),
                fromfile=f"a/{self.path}",
                tofile=f"b/{self.path}",
            )
        )


def plan_fixes(wiki: Wiki) -> list[PageFix]:
    """Every page's fixes, computed without writing anything."""
    edits = rule_edits(wiki)
    fixes = []
    for page in wiki.pages.values():
        full = wiki.config.root / page.path
        try:
            raw = full.read_bytes()
        except OSError:
            continue
        if raw.startswith(b"\xef\xbb\xbf"):
            raw = raw[3:]
        try:
            text = raw.decode("utf-8")
        except UnicodeDecodeError:
            continue
        fix = fix_text(wiki, page.path, text, edits.get(page.path, ()))
        if fix is not None:
            fixes.append(fix)
    return fixes


def fix_text(
    wiki: Wiki, path: str, text: str, edits: Sequence[tuple[str, Edit]] = ()
) -> PageFix | None:
    """The fixes of one page whose text (without a BOM) is ``text``: the file's, or an
    editor's unsaved text that ``wiki.pages[path]`` was parsed from; ``edits``: (code, edit)
    of the project rules' findings on it."""
    newline = "\r\n" if "\r\n" in text else "\n"
    lines = text.split(newline)
    original = list(lines)
    described: list[str] = []
    _link_mentions(wiki, path, lines, described)  # first: the other fixes find their text
    _listify(wiki, path, lines, described, newline)
    _drop_repeats(wiki, path, lines, described)
    _fix_anchors(wiki, path, lines, described)
    _apply_rule_edits(lines, original, edits, described)
    after = newline.join(line for line in lines if line != _DROPPED)
    return PageFix(path, text, after, tuple(described)) if after != text else None


def apply_fix(root: Path, fix: PageFix) -> None:
    """Replace the file atomically, keeping a BOM if it had one and its permissions."""
    full = root / fix.path
    bom = b"\xef\xbb\xbf" if full.read_bytes().startswith(b"\xef\xbb\xbf") else b""
    fd, tmp = tempfile.mkstemp(dir=full.parent, prefix=".kbtool-fix.")
    with os.fdopen(fd, "wb") as f:
        f.write(bom + fix.after.encode("utf-8"))
    os.chmod(tmp, stat.S_IMODE(full.stat().st_mode))  # mkstemp made it private (0600)
    os.replace(tmp, full)


_NAMES: list[tuple[Wiki, Names]] = []


def wiki_names_of(wiki: Wiki) -> Names:
    """The names of the wiki's pages, made once per wiki."""
    if not _NAMES or _NAMES[0][0] is not wiki:
        _NAMES[:] = [(wiki, wiki_names(wiki))]
    return _NAMES[0][1]


def mention_edit(wiki: Wiki, path: str, text: str, line: int, col: int) -> tuple[int, str] | None:
    """(length replaced, link) that links the mention written at ``line``:``col`` of ``text``."""
    for mention in wiki_names_of(wiki).find(path, text):
        if (mention.line, mention.col) == (line, col):
            return len(mention.written), link_text(path, mention)
    return None


def _link_mentions(wiki: Wiki, path: str, lines: list[str], described: list[str]) -> None:
    if wiki.config.level("KB306") == "off" or wiki.pages[path].kind != "wiki":
        return
    found = wiki_names_of(wiki).find(path, "\n".join(lines))
    for mention in sorted(found, key=lambda m: (m.line, -m.col)):
        line, start = lines[mention.line - 1], mention.col - 1
        end = start + len(mention.written)
        if line[start:end] == mention.written:
            lines[mention.line - 1] = line[:start] + link_text(path, mention) + line[end:]
            described.append(f"line {mention.line}: '{mention.written}' linked")


def _listify(wiki: Wiki, path: str, lines: list[str], described: list[str], newline: str) -> None:
    page = wiki.pages[path]
    if page.frontmatter is None:
        return
    for key in LIST_KEYS:
        value = page.meta.get(key)
        line = page.frontmatter.key_lines.get(key)
        if not isinstance(value, str) or line is None or not value.strip():
            continue
        text = lines[line - 1]
        if not text.startswith(f"{key}:"):
            continue  # Not the plain one-line form; leave it to the author.
        written = text[len(key) + 1 :].strip()
        lines[line - 1] = f"{key}:{newline}  - {written}"  # one element: later line numbers hold
        described.append(f"line {line}: '{key}' written as a list")


def _drop_repeats(wiki: Wiki, path: str, lines: list[str], described: list[str]) -> None:
    seen: set[tuple[str, str | None]] = set()
    repeats = []
    for item in wiki.links:
        if item.page.path != path or not item.link.in_frontmatter:
            continue
        key = (item.link.kind, item.target.path or item.link.target)
        if key in seen:
            repeats.append(item.link.span.line)
        seen.add(key)
    for line in sorted(repeats, reverse=True):
        if lines[line - 1].lstrip().startswith("- "):
            described.append(f"line {line}: repeated entry removed")
            lines[line - 1] = _DROPPED


def _fix_anchors(wiki: Wiki, path: str, lines: list[str], described: list[str]) -> None:
    for item in wiki.links:
        target = item.target
        if item.page.path != path or item.link.kind not in ("link", "image"):
            continue
        if target.status is not Status.OK or target.page is None or not target.anchor:
            continue
        if target.anchor in target.page.slugs:
            continue
        matches = [s for s in target.page.slugs if s == slugify(target.anchor)]
        if len(matches) != 1:
            continue
        raw_anchor = item.link.target.partition("#")[2]
        line = item.link.span.line - 1
        old, new = f"#{raw_anchor}", f"#{matches[0]}"
        start = item.link.span.col - 1
        position = lines[line].find(old, start)
        if position >= 0:
            lines[line] = lines[line][:position] + new + lines[line][position + len(old) :]
            described.append(f"line {line + 1}: anchor '{old}' -> '{new}'")


def rule_edits(wiki: Wiki) -> dict[str, list[tuple[str, Edit]]]:
    """(code, edit) of each finding of the project's rules that are on that offers an edit,
    by page."""
    rules = project_rules(wiki.config)
    found: dict[str, list[tuple[str, Edit]]] = {}
    for d in project_diagnostics(wiki, rules, enabled_codes(wiki.config, (), ())):
        edit = decode_edit(d.fix)
        if edit is not None:
            found.setdefault(d.path, []).append((d.code, edit))
    return found


def _apply_rule_edits(
    lines: list[str], original: list[str], edits: Sequence[tuple[str, Edit]], described: list[str]
) -> None:
    """Apply the rules' edits, the last first, each where it lies inside the text, on lines
    no other fix changed, and apart from the edits applied before it."""
    below = (len(lines) + 1, 1)  # the start of the edit applied last (edits go upwards)
    for code, edit in sorted(set(edits), key=lambda item: _place(item[1]), reverse=True):
        first, last = edit.line - 1, edit.end_line - 1
        if not 0 <= first <= last < len(lines) or (edit.end_line, edit.end_col) > below:
            continue
        if lines[first : last + 1] != original[first : last + 1]:
            continue  # another fix changed these lines: the next run offers it again
        if not (
            1 <= edit.col <= len(lines[first]) + 1 and 1 <= edit.end_col <= len(lines[last]) + 1
        ):
            continue
        if (edit.line, edit.col) > (edit.end_line, edit.end_col):
            continue
        text = lines[first][: edit.col - 1] + edit.new + lines[last][edit.end_col - 1 :]
        lines[first : last + 1] = [text] if "\n" not in text else text.split("\n")
        below = (edit.line, edit.col)
        described.append(f"line {edit.line}: {code}")


def _place(edit: Edit) -> tuple[int, int, int, int]:
    return edit.line, edit.col, edit.end_line, edit.end_col
