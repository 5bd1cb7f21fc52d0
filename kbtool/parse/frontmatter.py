"""Split the YAML frontmatter off a page and load it with positions.

PyYAML's composer gives a node tree with marks; we walk it once to find each key's line, each
list item's line, keys given twice (which the constructor would silently collapse) and alias
bombs, then construct plain values with the safe constructor. Timestamps are kept as the
strings the author wrote, so a bad date is a diagnostic instead of a constructor error.
"""

from __future__ import annotations

from typing import Any

import yaml
from yaml.constructor import SafeConstructor
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode

from kbtool.model import Frontmatter, Problem

try:  # The C loader is several times faster; fall back when libyaml is missing.
    from yaml import CSafeLoader as _Loader
except ImportError:  # pragma: no cover - depends on the PyYAML build
    from yaml import SafeLoader as _Loader  # type: ignore[assignment]

#: Values a frontmatter may expand to through aliases before it counts as a bomb.
MAX_EXPANDED_NODES = 10_000
#: Deeper than this is refused: no page needs it, and later stages (the constructor, pickling
#: pages to the cache and between processes) recurse once per level.
MAX_DEPTH = 64


class _Constructor(SafeConstructor):
    """Safe constructor that leaves dates as the strings written in the file."""


_Constructor.add_constructor(
    "tag:yaml.org,2002:timestamp",
    SafeConstructor.construct_yaml_str,  # type: ignore[type-var]
)


def split_frontmatter(text: str) -> tuple[str | None, int, list[Problem]]:
    """Return (YAML text or None, number of lines before the body, problems).

    The frontmatter starts with ``---`` on the first line and ends at the next line that is
    ``---`` or ``...``. An unclosed fence is a problem and the whole file is treated as body.
    """
    if text.partition("\n")[0].rstrip(" \t") != "---":
        return None, 0, []
    lines = text.split("\n")
    for index in range(1, len(lines)):
        if lines[index].rstrip(" \t") in ("---", "..."):
            return "\n".join(lines[1:index]) + "\n", index + 1, []
    return None, 0, [Problem("KB102", "frontmatter opened with '---' on line 1 is never closed")]


def blank_frontmatter(text: str, body_start: int) -> str:
    """``text`` with its first ``body_start`` lines (the frontmatter) emptied, so that
    markdown-it's line numbers in the body are the file's."""
    if not body_start:
        return text
    lines = text.split("\n", body_start)
    return "\n" * body_start + (lines[-1] if len(lines) > body_start else "")


def load_frontmatter(yaml_text: str, first_line: int) -> tuple[Frontmatter | None, list[Problem]]:
    """Load YAML that starts at file line ``first_line`` (the line after ``---``)."""
    offset = first_line - 1
    try:
        node = yaml.compose(yaml_text, Loader=_Loader)
    except yaml.YAMLError as error:
        return None, [_yaml_problem("frontmatter is not valid YAML", error, first_line)]
    last_line = first_line + yaml_text.count("\n")
    if node is None:  # An empty frontmatter is an empty mapping.
        return Frontmatter({}, {}, {}, first_line, last_line), []
    try:
        expanded = _expanded_size(node)
    except _TooDeep:
        message = f"frontmatter cannot be loaded: it nests deeper than {MAX_DEPTH} levels"
        return None, [Problem("KB103", message, node.start_mark.line + first_line)]
    if expanded > MAX_EXPANDED_NODES:
        message = f"frontmatter aliases expand to over {MAX_EXPANDED_NODES:,} values; refusing"
        return None, [Problem("KB112", message, node.start_mark.line + first_line)]
    if not isinstance(node, MappingNode):
        kind = "a list" if isinstance(node, SequenceNode) else "a single value"
        message = f"frontmatter is {kind}, not a mapping of keys to values"
        return None, [Problem("KB104", message, node.start_mark.line + first_line)]

    problems: list[Problem] = []
    first_lines: dict[str, int] = {}
    key_lines: dict[str, int] = {}
    item_lines: dict[str, tuple[tuple[int, int], ...]] = {}
    for key_node, value_node in node.value:
        key = key_node.value if isinstance(key_node, ScalarNode) else str(key_node.value)
        line = key_node.start_mark.line + 1 + offset
        if key in first_lines:
            message = (
                f"key '{key}' is given twice (first on line {first_lines[key]}); "
                "YAML keeps only the last one"
            )
            problems.append(Problem("KB105", message, line, key_node.start_mark.column + 1))
        else:
            first_lines[key] = line
        # YAML keeps the last value given, so positions are the last one's too.
        key_lines[key] = line
        item_lines.pop(key, None)
        if isinstance(value_node, SequenceNode):
            item_lines[key] = tuple(
                (item.start_mark.line + 1 + offset, item.start_mark.column + 1)
                for item in value_node.value
            )
    try:
        data = _Constructor().construct_document(node)
    except (yaml.YAMLError, ValueError, TypeError, RecursionError) as error:
        return None, [_yaml_problem("frontmatter cannot be loaded", error, first_line)]
    if not isinstance(data, dict):  # A mapping with merge keys into a non-mapping.
        return None, [Problem("KB104", "frontmatter is not a mapping", first_line)]
    data = {str(k): v for k, v in data.items()}
    return Frontmatter(data, key_lines, item_lines, first_line, last_line), problems


def _yaml_problem(what: str, error: Exception, first_line: int) -> Problem:
    """KB103 at the error's own place, in one line (PyYAML's text spans several, with
    positions relative to the YAML text rather than to the file)."""
    if isinstance(error, yaml.MarkedYAMLError):
        mark = error.problem_mark or error.context_mark
        reason = " ".join(str(part) for part in (error.context, error.problem) if part)
    else:
        mark, reason = None, str(error)
    line, col = (mark.line + first_line, mark.column + 1) if mark else (first_line, 1)
    return Problem("KB103", f"{what}: {' '.join(reason.split())}", line, col)


class _TooDeep(Exception):
    pass


def _expanded_size(root: Node) -> int:
    """How many nodes the tree has once aliases are expanded, stopping past the limit.

    Aliases make the tree a graph that shares nodes (or has cycles); sizes are memoised per
    node so the walk is linear in the YAML text, not in its expansion. Raises ``_TooDeep``
    when the expanded tree is more than ``MAX_DEPTH`` levels deep.
    """
    sizes: dict[int, tuple[int, int]] = {}  # id -> (expanded size, height)
    in_progress: set[int] = set()
    limit = MAX_EXPANDED_NODES + 1

    def size(node: Node, depth: int) -> tuple[int, int]:
        key = id(node)
        if key in in_progress:  # A recursive alias expands without end.
            return limit, 0
        if key not in sizes:
            if depth > MAX_DEPTH:
                raise _TooDeep
            in_progress.add(key)
            total, height = 1, 0
            children: list[Any] = []
            if isinstance(node, SequenceNode):
                children = node.value
            elif isinstance(node, MappingNode):
                children = [child for pair in node.value for child in pair]
            for child in children:
                child_total, child_height = size(child, depth + 1)
                total, height = total + child_total, max(height, child_height + 1)
                if total >= limit:
                    break
            in_progress.discard(key)
            sizes[key] = (min(total, limit), height)
        if depth + sizes[key][1] > MAX_DEPTH:  # An alias can graft a deep tree on deep down.
            raise _TooDeep
        return sizes[key]

    return size(root, 0)[0]
