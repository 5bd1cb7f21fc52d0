"""Cell options: jupytext's Markdown cell-metadata syntax in the fence info string.

```python tags=["hide-input"] timeout=5``` -> language "python",
options {"tags": ["hide-input"], "timeout": 5}. The common ``key=<json>`` form is parsed here
directly; anything else goes to jupytext itself (slower to import), so pages keep exactly
the metadata a notebook round trip keeps.
"""

from __future__ import annotations

import json
import re
from typing import Any

_SIMPLE = re.compile(r'\s*([A-Za-z_][\w\-]*)=("(?:[^"\\]|\\.)*"|\[[^\]]*\]|[\w.\-]+)')


class CellOptionsError(ValueError):
    pass


def split_info(info: str) -> tuple[str, dict[str, Any]]:
    """Language and options of a fence info string.

    >>> split_info('python tags=["raises-exception"] timeout=2')
    ('python', {'tags': ['raises-exception'], 'timeout': 2})
    """
    info = info.strip()
    if not info:
        return "", {}
    language, _, rest = info.replace("\t", " ").partition(" ")
    language = language.strip("{}").lower()
    rest = rest.strip()
    if not rest:
        return language, {}
    options = _parse_simple(rest)
    if options is None:
        options = _parse_with_jupytext(f"{language} {rest}")
    return language, options


def _parse_simple(text: str) -> dict[str, Any] | None:
    options: dict[str, Any] = {}
    pos = 0
    while pos < len(text):
        match = _SIMPLE.match(text, pos)
        if not match:
            return None if text[pos:].strip() else options
        key, raw = match.groups()
        try:
            options[key] = json.loads(raw)
        except json.JSONDecodeError:
            return None
        pos = match.end()
    return options


def _parse_with_jupytext(info: str) -> dict[str, Any]:
    from jupytext.cell_metadata import text_to_metadata

    try:
        _, metadata = text_to_metadata(info, allow_title=False)
    except Exception as error:  # jupytext raises several kinds on bad input
        raise CellOptionsError(f"cannot read cell options {info!r}: {error}") from None
    if "incorrectly_encoded_metadata" in metadata:  # jupytext's way of saying it could not
        unread = metadata["incorrectly_encoded_metadata"]
        raise CellOptionsError(
            f"cannot read cell options {info!r}: {unread!r} is not key=value "
            '(write e.g. tags=["hide-input"] timeout=5)'
        )
    return dict(metadata)


def cell_tags(options: dict[str, Any]) -> frozenset[str]:
    """The cell's tags (Jupyter Book names: skip-execution, raises-exception, ...)."""
    tags = options.get("tags", [])
    if isinstance(tags, str):
        tags = [tags]
    return frozenset(t for t in tags if isinstance(t, str))
