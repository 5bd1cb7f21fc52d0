"""The upkeep checks of the check stage (KB306–KB308): unlinked mentions, pages of the same
title, pages of nearly the same body. Off until the configuration turns them on; then they
cost a pass over the text of the pages whose records are stale, in the run's workers on a
cold check.

Each reads the whole wiki, but through what each page's record depends on, so that an edit
makes few again: a page's mentions depend on its own text and on every page's title and
aliases (the record's key holds a digest of them: a title that changes finds every page's
mentions again), its sketch on its text alone; pages of the same title are found from the
facts every run holds, and near duplicates from the sketches.
"""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, TypeVar

from kbtool.checks import Enabled
from kbtool.checks.base import diagnostic
from kbtool.checks.duplicates import (
    boilerplate,
    near_duplicate_diagnostics,
    near_duplicates,
    pairs_with,
    same_titles,
    sketch,
    unpack,
)
from kbtool.checks.mentions import Named, Names, names_digest, names_of, written_message
from kbtool.checks.upkeep import body_of
from kbtool.codes import RULES
from kbtool.diagnostics import Diagnostic
from kbtool.model import Span
from kbtool.reuse.values import WHOLE, Reusable
from kbtool.stages.facts import Facts
from kbtool.stages.reused import MENTIONS, NAMES, SKETCHES
from kbtool.stages.run import Run
from kbtool.stages.scan import ChangedSinceScan
from kbtool.stages.workers import chunked
from kbtool.store import records

#: the codes of this stage
CODES = ("KB306", "KB307", "KB308")
#: Below this many pages to read, forking workers costs more than it saves.
_PARALLEL_THRESHOLD = 256


@dataclass(frozen=True)
class _Work:
    """What the workers share: the snapshot to read pages from, the names (None: no mentions
    wanted), and the pages whose mentions, and whose sketches, are wanted."""

    run: Run
    names: Names | None
    mentions: frozenset[str]
    sketches: frozenset[str]


def upkeep_diagnostics(
    run: Run, facts: Mapping[str, Facts], keys: Mapping[str, str], enabled: Enabled
) -> list[Diagnostic]:
    """The upkeep checks' diagnostics at their default severities; ``facts``: every page's,
    ``keys``: every page's check record key; ``enabled(code)``: whether a code is wanted."""
    wanted = {code for code in CODES if enabled(code)}
    if not wanted:
        return []
    found: list[Diagnostic] = []
    if "KB307" in wanted:
        found += same_titles({path: (f.kind, f.title) for path, f in facts.items()})
    mentions = "KB306" in wanted
    sketches = "KB308" in wanted
    named = [Named(p, f.kind, names_of(f.title, f.aliases)) for p, f in sorted(facts.items())]
    digest = names_digest(named) if mentions else ""
    mention_keys = {
        path: records.MENTIONS.key(keys[path], digest)
        for path, f in facts.items()
        if mentions and f.kind == "wiki" and path in keys
    }
    digests = run.snapshot.digests()
    sketch_keys = {
        path: records.SKETCH.key(digests[path]) for path in facts if sketches and path in digests
    }
    held_mentions = _held(run, MENTIONS, records.MENTIONS, mention_keys, _decode_rows)
    held_sketches = _held(run, SKETCHES, records.SKETCH, sketch_keys, lambda _, data: unpack(data))
    to_read = sorted(
        (set(mention_keys) - set(held_mentions)) | (set(sketch_keys) - set(held_sketches))
    )
    if to_read:
        names = None
        want_mentions = frozenset(mention_keys) - set(held_mentions)
        if want_mentions:
            names = run.reuse.made(NAMES, WHOLE, digest, lambda *_: Names(named))
        want_sketches = frozenset(sketch_keys) - set(held_sketches)
        made = _read_pages(run, _Work(run, names, want_mentions, want_sketches), to_read)
        _keep(run, mention_keys, sketch_keys, held_mentions, held_sketches, made)
    found += [d for path in sorted(held_mentions) for d in held_mentions[path]]
    if sketches:
        kinds = {p: (facts[p].kind, values) for p, values in held_sketches.items()}
        found += near_duplicate_diagnostics(_pairs(run, kinds, sketch_keys))
    return found


#: Up to this share of pages with a new sketch, the stored pairs are kept for the others and
#: only those pages meet the others, through their probes.
_FEW = 0.05


def _pairs(
    run: Run, sketches: dict[str, tuple[str, tuple[int, ...]]], keys: Mapping[str, str]
) -> list[tuple[str, str, float]]:
    """The near-duplicate pairs: those stored, where few sketches and no boilerplate value
    changed since, with the pairs of the pages whose sketch changed found again; else all
    found afresh."""
    threshold = run.config.duplicate_threshold
    key = records.DUPLICATES.key(repr(threshold))
    stored = run.store.get(records.DUPLICATES, WHOLE, key) if run.use_store else None
    before = records.DUPLICATES.codec.decode(stored) if stored else None
    common = boilerplate(sketches)
    pairs = None
    if isinstance(before, dict) and isinstance(before.get("sketches"), dict):
        old = before["sketches"]
        changed = {p for p in keys if old.get(p) != keys[p]} | (set(old) - set(keys))
        same_common = before.get("common") == sorted(common)
        if same_common and len(changed) <= _FEW * len(keys):
            with contextlib.suppress(TypeError, ValueError):
                kept = [
                    (str(a), str(b), float(score))
                    for a, b, score in before.get("pairs", [])
                    if a not in changed and b not in changed
                ]
                found = pairs_with(sketches, changed & set(sketches), threshold, common)
                pairs = kept + found
                if not changed:
                    return sorted(pairs)
    if pairs is None:
        pairs = near_duplicates(sketches, threshold, common)
    pairs.sort()
    if run.use_store:
        value = {"sketches": dict(keys), "pairs": pairs, "common": sorted(common)}
        with run.store.transaction():
            run.store.put(
                records.DUPLICATES, [(WHOLE, key, records.DUPLICATES.codec.encode(value))]
            )
    return pairs


#: One mention as its page's record holds it: line, column, the name as written, the page
#: it names (the record's name is the page; the code, the rest of the message and the
#: severity are KB306's)
_Row = list[Any]


def _decode_rows(path: str, data: bytes) -> list[Diagnostic]:
    rows = records.MENTIONS.codec.decode(data)
    if not isinstance(rows, list):
        raise ValueError("not a list of mentions")
    return [_mention(path, row) for row in rows]


def _mention(path: str, row: _Row) -> Diagnostic:
    line, col, written, target = row
    if not (isinstance(line, int) and isinstance(col, int)):
        raise TypeError(f"not a mention: {row!r}")
    message = written_message(str(written), str(target))
    if not message.isprintable():  # a control character: shown escaped
        return diagnostic("KB306", Span(path, line, col), message)
    return Diagnostic(path, line, col, "KB306", _SEVERITY, message)


_SEVERITY = RULES["KB306"].severity


V = TypeVar("V")


def _held(
    run: Run,
    value: Reusable[str, V],
    kind: records.RecordKind,
    keys: Mapping[str, str],
    decode: Callable[[str, bytes], V],
) -> dict[str, V]:
    """The values under ``keys`` that this run holds or the store keeps; a damaged record is
    left out (made again)."""
    found: dict[str, V] = {}
    for path, key in keys.items():
        got = run.reuse.get(value, path, key)
        if got is not None:
            found[path] = got
    wanted = [p for p in keys if p not in found]
    if not wanted or not run.use_store:
        return found
    stored = run.store.keys_of(kind, wanted)
    valid = [p for p in wanted if stored.get(p) == keys[p]]
    many = len(valid) * 4 > len(keys)
    values = run.store.all(kind) if many else run.store.some(kind, valid)
    for path in valid:
        with contextlib.suppress(TypeError, ValueError):
            key, data = values.get(path, (keys[path], b""))
            if key == keys[path]:
                found[path] = run.reuse.put(value, path, key, decode(path, data))
    return found


def _read_pages(
    run: Run, work: _Work, paths: list[str]
) -> dict[str, tuple[list[_Row] | None, tuple[int, ...] | None]]:
    """Each page's mentions (if names are given) and sketch, made from its text."""
    if not run.workers.worth_forking(len(paths), _PARALLEL_THRESHOLD):
        return _read_chunk(work, paths)
    chunks = [paths[r.start : r.stop] for r in chunked(len(paths), run.workers.jobs, 16, 128)]
    made: dict[str, tuple[list[_Row] | None, tuple[int, ...] | None]] = {}
    for part in run.workers.map(_read_chunk, work, chunks):
        made.update(part)
    return made


def _read_chunk(
    work: _Work, paths: list[str]
) -> dict[str, tuple[list[_Row] | None, tuple[int, ...] | None]]:
    made: dict[str, tuple[list[_Row] | None, tuple[int, ...] | None]] = {}
    for path in paths:
        try:
            data = work.run.snapshot.data(path)
        except ChangedSinceScan:
            continue
        text = data.decode("utf-8-sig", errors="replace").replace("\r\n", "\n")
        mentions = None
        if work.names is not None and path in work.mentions:
            mentions = [[m.line, m.col, m.written, m.target] for m in work.names.find(path, text)]
        values = unpack(sketch(body_of(text))) if path in work.sketches else None
        made[path] = (mentions, values)
    return made


def _keep(
    run: Run,
    mention_keys: Mapping[str, str],
    sketch_keys: Mapping[str, str],
    held_mentions: dict[str, list[Diagnostic]],
    held_sketches: dict[str, tuple[int, ...]],
    made: Mapping[str, tuple[list[_Row] | None, tuple[int, ...] | None]],
) -> None:
    """Hold and store what was made now."""
    mention_rows, sketch_rows = [], []
    for path, (mentions, values) in made.items():
        if path in mention_keys and path not in held_mentions and mentions is not None:
            found = [_mention(path, row) for row in mentions]
            held_mentions[path] = run.reuse.put(MENTIONS, path, mention_keys[path], found)
            encoded = records.MENTIONS.codec.encode(mentions)
            mention_rows.append((path, mention_keys[path], encoded))
        if path in sketch_keys and path not in held_sketches and values is not None:
            held_sketches[path] = run.reuse.put(SKETCHES, path, sketch_keys[path], values)
            sketch_rows.append((path, sketch_keys[path], _pack(values)))
    if run.use_store and (mention_rows or sketch_rows):
        with run.store.transaction():
            run.store.put(records.MENTIONS, mention_rows)
            run.store.put(records.SKETCH, sketch_rows)
    run.reuse.keep_only(MENTIONS, mention_keys)
    run.reuse.keep_only(SKETCHES, sketch_keys)


def _pack(values: tuple[int, ...]) -> bytes:
    from array import array

    return array("I", values).tobytes()
