"""The engine: every derived value is a query's, valid while everything it read is unchanged.

To answer ``get(query, key)`` the engine takes the value it holds if its trace still
verifies, else computes it, recording each read (an input's digest, another query's digest)
as the function runs. A trace verifies when every read gives the digest it gave then; a read
of another query is verified first, recursively. When a value computed again has the digest
it had, everything that read it stays valid (early cutoff): an edit to a page's body leaves
its title's digest as it was, so nothing that reads titles is made again.

A **revision** counts the changes to inputs. The engine knows, for each input and query,
the values that read it: a change marks them, and what read them, as *suspect*. A value
verified once in this process and not suspect since is taken without walking its reads, so a
save that changes one page's inputs verifies only what that page reaches, not every value of
the wiki. A value read from the store is verified by its reads the first time it is asked for.
Traces and stored values come from, and go to, the store (``engine/persist.py``): a value
held in memory is taken first, then one the store kept, then the value is made.
"""

from __future__ import annotations

import json
from collections import Counter
from collections.abc import Callable, Collection, Iterable, Mapping
from typing import Any, TypeVar, cast

from kbtool.engine.declare import Input, Query

V = TypeVar("V")

#: an input or query, and a key
Id = tuple[str, str]
#: the digest of an input not set (a page gone)
ABSENT = "\x00absent"
UNSET: Any = object()
#: an input's entry for a key: its digest, its value, what loads the value when first read
#: (or None), and its id
_Entry = tuple[str, Any, Callable[[], Any] | None, Id]


class Cycle(Exception):
    """A query read itself, directly or through others: the ids on the loop, in order."""

    def __init__(self, ids: list[Id]) -> None:
        super().__init__(" -> ".join(f"{name}({key})" for name, key in ids))
        self.ids = ids


class Trace:
    """One value of a query with its trace: its digest, and each read (``read_ids``) with
    the digest it gave (``read_digests``, in the same order: two tuples weigh less than a
    pair a read, by megabytes at 7,000 pages). ``encoded``: the value as the store kept it,
    decoded when first asked for."""

    __slots__ = ("value", "encoded", "digest", "read_ids", "read_digests", "verified")

    def __init__(
        self,
        value: Any,
        encoded: bytes | None,
        digest: str,
        reads: tuple[tuple[Id, ...], tuple[str, ...]],
        at: int,
    ) -> None:
        self.value = value
        self.encoded = encoded
        self.digest = digest
        self.read_ids, self.read_digests = reads
        self.verified = at


class Recorder:
    """The :class:`~kbtool.engine.declare.Reads` a query's function is given: each read
    recorded in its trace."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine
        self.ids: list[Id] = []
        self.digests: list[str] = []

    def input(self, input: Input[V], key: str) -> V | None:
        """The input's value for ``key``, or None where it is not set."""
        id, digest, value = self._engine.read_input(input, key)
        self.ids.append(id)
        self.digests.append(digest)
        return cast("V | None", value)

    def get(self, query: Query[V], key: str) -> V:
        """Another query's value for ``key``."""
        value, digest = self._engine.read(query, key)
        self.ids.append((query.name, key))
        self.digests.append(digest)
        return value


class Unrecorded:
    """A :class:`~kbtool.engine.declare.Reads` that records nothing: for a function run
    outside any query (an output written after its key was made from the same reads)."""

    def __init__(self, engine: Engine) -> None:
        self._engine = engine

    def input(self, input: Input[V], key: str) -> V | None:
        return cast("V | None", self._engine.input_entry(input, key)[1])

    def get(self, query: Query[V], key: str) -> V:
        return self._engine.get(query, key)


class Given:
    """A :class:`~kbtool.engine.declare.Reads` of inputs given as mappings (input -> key ->
    value), recording nothing, and of queries computed through it: for a run whose values
    are not reused (a one-shot build), where an engine would set every input and record every
    read for nothing."""

    def __init__(self, inputs: Mapping[Input[Any], Mapping[str, Any]]) -> None:
        self._get = {input: values.get for input, values in inputs.items()}

    def input(self, input: Input[V], key: str) -> V | None:
        return cast("V | None", self._get[input](key))

    def get(self, query: Query[V], key: str) -> V:
        return query.compute(self, key)


class Engine:
    """The inputs set, and the values of queries with their traces, held for a run or, by a
    session, for its life."""

    def __init__(self) -> None:
        self.revision = 1
        #: input -> key -> its entry
        self._inputs: dict[str, dict[str, _Entry]] = {}
        self.traces: dict[str, dict[str, Trace]] = {}
        self.queries: dict[str, Query[Any]] = {}
        self._active: list[Id] = []
        #: by input or query, the queries whose held values read it (a superset: a value
        #: made again may no longer read all it once did): one, or a set of them (most
        #: inputs of a page are read by one value, and a set each would weigh megabytes)
        self._readers: dict[Id, Id | set[Id]] = {}
        #: the queries whose values read, maybe through others, an input changed since they
        #: were last verified
        self._suspect: set[Id] = set()
        #: by query, the keys whose traces were made since they were last written to the
        #: store, and the keys forgotten (pages gone)
        self.dirty: dict[str, set[str]] = {}
        self.gone: dict[str, set[str]] = {}
        #: how many values each query computed (rather than verified), for the tests and
        #: ``--timings``
        self.made: Counter[str] = Counter()
        #: how many values each query verified by walking their reads
        self.walked: Counter[str] = Counter()

    # -- inputs ----------------------------------------------------------------------------
    def set(self, input: Input[V], key: str, value: V, digest: str) -> None:
        """Set an input; a new digest starts a new revision."""
        self._set(input.name, key, digest, value, None)

    def set_to(self, input: Input[V], values: Mapping[str, V], digest: Callable[[V], str]) -> None:
        """Make the input ``values``: each key set to its value, passing over a value set
        already (the very object: ``digest`` is asked only of the others, and a save that
        sets every page's value from the objects it kept makes a few), and the keys not in
        ``values`` unset."""
        name, held = input.name, self._held(input.name)
        for key, value in values.items():
            entry = held.get(key)
            if entry is None or entry[1] is not value:
                self._set(name, key, digest(value), value, None)
        if len(held) > len(values):
            self.unset(input, held.keys() - values.keys())

    def set_lazy(self, input: Input[V], key: str, digest: str, load: Callable[[], V]) -> None:
        """Set an input whose value ``load()`` gives when a query first reads it (a file's
        text: most are never read, as the values that read them still verify)."""
        self._set(input.name, key, digest, UNSET, load)

    def differing(self, input: Input[Any], digests: Mapping[str, str]) -> list[str]:
        """The keys of ``digests`` whose digest is not the one the input is set with (not set
        included): a caller holding every page's digests sets only these, in one sweep (a
        save changes a few pages of thousands)."""
        held = self._held(input.name)
        return [
            key
            for key, digest in digests.items()
            if (entry := held.get(key)) is None or entry[0] != digest
        ]

    def _held(self, name: str) -> dict[str, _Entry]:
        """The input's entries by key."""
        return self._inputs.setdefault(name, {})

    def _set(
        self, name: str, key: str, digest: str, value: Any, load: Callable[[], Any] | None
    ) -> None:
        held = self._held(name)
        entry = held.get(key)
        id = (name, key) if entry is None else entry[3]
        if entry is None or entry[0] != digest:
            self.revision += 1
            held[key] = (digest, value, load, id)
            self._changed(id)
        elif load is None or entry[1] is UNSET:
            # An equal value, but this one, or what loads it, is current (a store's
            # connection); a value loaded already is kept.
            held[key] = (digest, value, load, id)

    def unset(self, input: Input[Any], keys: Iterable[str]) -> None:
        """Take the input away for ``keys`` (pages gone): reads of it give ``ABSENT``."""
        held = self._held(input.name)
        for key in keys:
            if held.pop(key, None) is not None:
                self.revision += 1
                self._changed((input.name, key))

    def _changed(self, id: Id) -> None:
        """Mark every value that read ``id``, directly or through others, as suspect."""
        todo = [id]
        while todo:
            found = self._readers.pop(todo.pop(), None)
            for reader in found if isinstance(found, set) else () if found is None else (found,):
                if reader not in self._suspect:
                    self._suspect.add(reader)
                    todo.append(reader)

    def input_entry(self, input: Input[Any], key: str) -> tuple[str, Any]:
        """The input's digest and value for ``key`` (``ABSENT``, None where not set)."""
        _, digest, value = self.read_input(input, key)
        return digest, value

    def read_input(self, input: Input[Any], key: str) -> tuple[Id, str, Any]:
        """:meth:`input_entry`, with the input's id for ``key``: the one object the traces
        that read it hold (tens of thousands of reads at 7,000 pages)."""
        held = self._held(input.name)
        entry = held.get(key)
        if entry is None:
            return (input.name, key), ABSENT, None
        digest, value, load, id = entry
        if value is UNSET and load is not None:
            value = load()
            held[key] = (digest, value, None, id)
        return id, digest, value

    # -- queries ---------------------------------------------------------------------------
    def get(self, query: Query[V], key: str) -> V:
        """The query's value for ``key``: held and verified, or made now."""
        return self.read(query, key)[0]

    def get_all(self, query: Query[V], keys: Iterable[str]) -> dict[str, V]:
        """The query's value for each of ``keys``, as :meth:`get` gives it; a value verified
        in this process and not suspect since is taken at once (a save asks for every
        page's, and finds all but a few so)."""
        self.know(query)
        held, suspect, unset = self.traces.get(query.name, {}), self._suspect_keys(query), UNSET
        found: dict[str, V] = {}
        asked = False
        for key in keys:
            trace = held.get(key)
            if trace is None or key in suspect or not trace.verified or trace.value is unset:
                found[key] = self.get(query, key)
                asked = True
            else:
                found[key] = trace.value
        if asked:  # a value made again with another digest made what read it suspect
            while late := [key for key in self._suspect_keys(query) if key in found]:
                for key in late:
                    found[key] = self.get(query, key)
        return found

    def _suspect_keys(self, query: Query[Any]) -> Collection[str]:
        return {key for name, key in self._suspect if name == query.name}

    def read(self, query: Query[V], key: str) -> tuple[V, str]:
        """The query's value for ``key`` and its digest."""
        trace = self.fresh(query, key)
        if trace.value is UNSET:
            trace = self._held_or_made(query, key, trace)
        return cast("V", trace.value), trace.digest

    def know(self, query: Query[Any]) -> None:
        """Declare ``query`` to the engine (so that a trace read from the store that names
        it can be verified)."""
        self.queries.setdefault(query.name, query)

    def fresh(self, query: Query[Any], key: str) -> Trace:
        """The query's trace for ``key``, verified in this revision (its value perhaps not
        held: a trace from the store)."""
        self.know(query)
        trace = self.traces.get(query.name, {}).get(key)
        if trace is not None:
            id = (query.name, key)
            if trace.verified and id not in self._suspect:
                return trace
            self.walked[query.name] += 1
            if self._reads_hold(trace):
                trace.verified = self.revision
                self._suspect.discard(id)
                self._listen(id, trace)
                return trace
        return self._make(query, key, trace)

    def _listen(self, id: Id, trace: Trace) -> None:
        """Note ``id`` as a reader of all ``trace`` read: a change to one marks it."""
        readers = self._readers
        for read in trace.read_ids:
            held = readers.get(read)
            if held is None:
                readers[read] = id
            elif isinstance(held, set):
                held.add(id)
            elif held != id:
                readers[read] = {held, id}

    def _held_or_made(self, query: Query[Any], key: str, trace: Trace) -> Trace:
        """A verified trace with its value: decoded from the store's, or made again."""
        if trace.encoded is not None and query.stored is not None:
            try:
                trace.value = query.stored.decode(json.loads(trace.encoded))
                trace.encoded = None
                return trace
            except (TypeError, ValueError, KeyError):  # damaged or foreign: made again
                self.dirty.setdefault(query.name, set()).add(key)
        return self._make(query, key, trace)

    def _reads_hold(self, trace: Trace) -> bool:
        reads = zip(trace.read_ids, trace.read_digests, strict=True)
        return all(self._digest(id) == digest for id, digest in reads)

    def _digest(self, id: Id) -> str:
        held = self._inputs.get(id[0])
        entry = held.get(id[1]) if held is not None else None
        if entry is not None:
            return entry[0]
        query = self.queries.get(id[0])
        return ABSENT if query is None else self.fresh(query, id[1]).digest

    def _make(self, query: Query[V], key: str, old: Trace | None) -> Trace:
        id = (query.name, key)
        if id in self._active:
            raise Cycle([*self._active[self._active.index(id) :], id])
        self._active.append(id)
        reads = Recorder(self)
        try:
            value = query.compute(reads, key)
        finally:
            self._active.pop()
        made = (tuple(reads.ids), tuple(reads.digests))
        trace = Trace(value, None, query.digest(value), made, self.revision)
        self.traces.setdefault(query.name, {})[key] = trace
        self._suspect.discard(id)
        self._listen(id, trace)
        self.made[query.name] += 1
        if old is not None and old.digest != trace.digest:
            self._changed(id)  # what read the value before reads another now
        if query.kept and (
            old is None or old.digest != trace.digest or (old.read_ids, old.read_digests) != made
        ):
            self.dirty.setdefault(query.name, set()).add(key)
            self.gone.get(query.name, set()).discard(key)
        return trace

    def retain(self, query: Query[Any], keys: Iterable[str]) -> None:
        """Forget the query's values for keys not among ``keys`` (pages gone)."""
        self.retain_where(query, set(keys).__contains__)

    def retain_where(self, query: Query[Any], keep: Callable[[str], bool]) -> None:
        """Forget the query's values for the keys ``keep`` refuses."""
        held = self.traces.get(query.name, {})
        gone = [key for key in held if not keep(key)]
        for key in gone:
            del held[key]
            self._changed((query.name, key))
        if gone and query.kept:
            self.gone.setdefault(query.name, set()).update(gone)
