"""Write a :class:`~kbtool.adopt.Proposal` into ``pyproject.toml`` (or ``kbtool.toml``, whose
keys are top-level), changing nothing else.

The file is edited as text through tomlkit, which keeps every byte it is not asked to
change: other tables, comments, blank lines and key order come back as they were. Keys of
``[tool.kbtool]`` that init does not decide are kept; a key whose value is already the
proposed one is left as written, so running init twice changes nothing.
"""

from __future__ import annotations

import re
import tomllib
from typing import Any

import tomlkit
import tomlkit.exceptions
import tomlkit.items

from kbtool.adopt import Proposal
from kbtool.errors import UsageError

#: The order keys are written in.
ORDER = ("wiki", "sources", "flavor", "types", "required", "execute", "source-date", "language")


class PyprojectError(UsageError):
    """pyproject.toml cannot be read or edited; nothing was written (exit 2)."""


def check_toml(text: str, name: str = "pyproject.toml") -> None:
    """Raise with the parser's line and column when ``text`` is not valid TOML."""
    try:
        tomllib.loads(text)
        tomlkit.parse(text)
    except tomlkit.exceptions.ParseError as error:
        raise PyprojectError(
            f"{name}:{error.line}:{error.col}: not valid TOML ({_reason(str(error))}); "
            "nothing was changed"
        ) from None
    except tomllib.TOMLDecodeError as error:
        where = re.search(r"at line (\d+), column (\d+)", str(error))
        line, col = where.groups() if where else ("1", "1")
        raise PyprojectError(
            f"{name}:{line}:{col}: not valid TOML ({_reason(str(error))}); nothing was changed"
        ) from None


def _reason(message: str) -> str:
    return re.sub(r"\s*\(?at line \d+,? col(umn)? \d+\)?", "", message).strip()


def _toml(value: Any) -> str:
    if isinstance(value, dict):
        inner = ", ".join(f"{k} = {tomlkit.item(v).as_string()}" for k, v in value.items())
        return "{ " + inner + " }"
    return str(tomlkit.item(value).as_string())


def _line(key: str, value: Any, comment: str) -> str:
    return f"{key} = {_toml(value)}" + (f"  # {comment}" if comment else "")


def render_section(proposal: Proposal, table: str = "tool.kbtool") -> str:
    """The proposal as a ``[tool.kbtool]`` section of its own (``table=""``: as the top-level
    keys of ``kbtool.toml``)."""
    lines = [f"[{table}]"] if table else []
    for key in ORDER:
        if key not in proposal.values:
            continue
        value = proposal.values[key]
        comment = proposal.comments.get(key, "")
        items = proposal.item_comments.get(key)
        if isinstance(value, list) and items:
            lines.append(f"{key} = [" + (f"  # {comment}" if comment else ""))
            for v in value:
                note = items.get(v, "")
                lines.append(f"    {_toml(v)}," + (f"  # {note}" if note else ""))
            lines.append("]")
        else:
            lines.append(_line(key, value, comment))
    if proposal.severity:
        lines += ["", f"[{table}.severity]" if table else "[severity]"]
        for code in sorted(proposal.severity):
            lines.append(
                _line(code, proposal.severity[code], proposal.severity_comments.get(code, ""))
            )
    return "\n".join(lines) + "\n"


def apply_proposal(text: str, proposal: Proposal) -> str:
    """``text`` with the proposal written into its ``[tool.kbtool]`` (created if needed)."""
    check_toml(text)
    doc = tomlkit.parse(text)
    new = tomlkit.parse(render_section(proposal))["tool"]["kbtool"]
    tool = doc.get("tool")
    if tool is None:
        if text.strip() and not text.endswith("\n\n"):
            doc.add(tomlkit.nl())
        tool = tomlkit.table(is_super_table=True)
        tool["kbtool"] = new
        doc["tool"] = tool
    elif not isinstance(tool, tomlkit.items.Table | tomlkit.container.OutOfOrderTableProxy):
        raise PyprojectError("pyproject.toml: 'tool' is not a table; nothing was changed")
    elif "kbtool" not in tool:
        tool["kbtool"] = new
    else:
        _merge(tool["kbtool"], new)
    result = tomlkit.dumps(doc)
    _verify(text, result)
    return result


def apply_to_kbtool_toml(text: str, proposal: Proposal) -> str:
    """``text`` (a ``kbtool.toml``, maybe empty) with the proposal written into it."""
    check_toml(text, "kbtool.toml")
    if not text.strip():
        return render_section(proposal, table="")
    doc = tomlkit.parse(text)
    new = tomlkit.parse(render_section(proposal, table=""))
    _merge(doc, new)
    return tomlkit.dumps(doc)


def _merge(old: Any, new: Any) -> None:
    tables = (tomlkit.items.Table, tomlkit.container.OutOfOrderTableProxy, tomlkit.TOMLDocument)
    if not isinstance(old, tables):
        raise PyprojectError(
            "pyproject.toml: [tool.kbtool] is not written as a table of its own (an inline "
            "table or dotted keys); write it as a [tool.kbtool] section, then run init again. "
            "Nothing was changed"
        )
    for key, value in new.items():
        if key == "severity" and isinstance(old.get(key), tables):
            _merge(old[key], value)
        elif key not in old or _plain(old[key]) != _plain(value):
            old[key] = value


def _plain(value: Any) -> Any:
    return value.unwrap() if hasattr(value, "unwrap") else value


def _verify(before: str, after: str) -> None:
    """Everything outside ``[tool.kbtool]`` must read the same as before the edit."""
    old, new = tomllib.loads(before), tomllib.loads(after)
    for data in (old, new):
        tool = data.get("tool")
        if isinstance(tool, dict):
            tool.pop("kbtool", None)
            if not tool:
                data.pop("tool")
    if old != new:
        raise PyprojectError("pyproject.toml could not be edited safely; nothing was changed")
