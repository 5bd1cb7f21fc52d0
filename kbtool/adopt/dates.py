"""Where source pages record when they were ingested: the ``source-date`` proposal."""

from __future__ import annotations

from collections import Counter
from typing import Any

from kbtool.parse.source_dates import ANY_FIELD, parse_date
from kbtool.stages.scan import Snapshot
from kbtool.wiki import Wiki

#: A key or label must give a date on more than this share of source pages.
MAJORITY = 0.5


def propose_source_date(wiki: Wiki, snapshot: Snapshot) -> tuple[dict[str, str], str, str] | None:
    """(``{key = ...}`` or ``{label = ...}``, comment, reason), or None."""
    sources = {p.path: p for p in wiki.pages.values() if p.kind == "source"}
    if not sources:
        return None
    keys: Counter[str] = Counter()
    labels: Counter[str] = Counter()
    for found, _ in snapshot.files:
        page = sources.get(found.path)
        if page is None:
            continue
        data = snapshot.data(found.path)
        keys.update({k for k, v in page.meta.items() if _is_date(v)})
        text = data.decode("utf-8", errors="replace")
        body = text.split("\n", page.body_line - 1)[-1] if page.body_line > 1 else text
        labels.update(
            {m["label"].strip() for m in ANY_FIELD.finditer(body) if _is_date(m["value"])}
        )
    best: list[tuple[int, str, str]] = []
    if keys:
        key, n = keys.most_common(1)[0]
        best.append((n, "key", key))
    if labels:
        label, n = labels.most_common(1)[0]
        best.append((n, "label", label))
    if not best:
        return None
    n, how, name = max(best)
    if n <= MAJORITY * len(sources):
        return None
    where = f"frontmatter key '{name}'" if how == "key" else f"field '{name}'"
    counted = f"a date on {n} of {len(sources)} source pages"
    reason = (
        f'source-date = {{ {how} = "{name}" }}: the {where} gives {counted}; KB304 reports '
        "wiki pages last updated before a source they cite"
    )
    return {how: name}, counted, reason


def _is_date(value: Any) -> bool:
    return parse_date(value) is not None
