"""Reused values, declared once, held by name and key.

Validity is key equality: :meth:`Reuse.made` gives the value held for a name while it was made
of what equals the key asked with, else makes it again and holds it with that key. Nothing else
decides whether a held value still holds: a value that depends on the store's records (as the
stored diagnostics do) has the store's generation of known keys in its key.
"""

from __future__ import annotations

from collections.abc import Callable, Container, Iterable
from dataclasses import dataclass, field
from typing import Any, Generic, Literal, TypeVar, cast

from kbtool.engine import Engine
from kbtool.store.known_keys import KnownKeys

K = TypeVar("K")
V = TypeVar("V")

#: where a reused value lives: in the process only, or also as a record of the store
Where = Literal["process", "process and store"]

#: the name of a value held once per run rather than per page
WHOLE = ""


@dataclass(frozen=True)
class Reusable(Generic[K, V]):
    """The declaration of one reused value: its name, what its key is made of (in words, for
    the documentation), and where it lives (its record kind, and so its codec, when stored)."""

    name: str
    made_of: str
    where: Where = "process"
    record: str | None = None


@dataclass
class Reuse:
    """Every reused value of a run, session or command: declaration -> name -> (key, value);
    and the store's record keys known between connections (see ``store/known_keys.py``)."""

    keys: KnownKeys = field(default_factory=KnownKeys)
    #: the engine, whose values verify themselves (``engine/``)
    engine: Engine = field(default_factory=Engine)
    #: made for one run of a one-shot command, which no run reads after: a value held only
    #: for the next run (a session's patched check state) is not made
    one_run: bool = False
    _held: dict[str, dict[str, tuple[Any, Any]]] = field(default_factory=dict)

    def _of(self, value: Reusable[K, V]) -> dict[str, tuple[K, V]]:
        return cast("dict[str, tuple[K, V]]", self._held.setdefault(value.name, {}))

    def get(self, value: Reusable[K, V], name: str, key: K) -> V | None:
        """The value held for ``name`` if it was made of what equals ``key``, else None."""
        entry = self._of(value).get(name)
        return entry[1] if entry is not None and _same(entry[0], key) else None

    def put(self, value: Reusable[K, V], name: str, key: K, made: V) -> V:
        self._of(value)[name] = (key, made)
        return made

    def made(self, value: Reusable[K, V], name: str, key: K, make: Callable[[str, K], V]) -> V:
        """The value held for ``name`` while made of what equals ``key``, else ``make(name,
        key)``, held with ``key``: only what an edit changed is made again."""
        held = self._of(value)
        entry = held.get(name)
        if entry is None or not _same(entry[0], key):
            entry = held[name] = (key, make(name, key))
        return entry[1]

    def made_all(
        self, value: Reusable[K, V], keys: Iterable[tuple[str, K]], make: Callable[[str, K], V]
    ) -> dict[str, V]:
        """:meth:`made` for each (name, key) of ``keys``, by name; the values held for other
        names are forgotten (pages gone). One loop over them all: a stage asks this of every
        page at every build, where a call a page costs more than the lookup it makes."""
        held = self._of(value)
        found: dict[str, V] = {}
        for name, key in keys:
            entry = held.get(name)
            if entry is None or not (entry[0] is key or entry[0] == key):
                entry = held[name] = (key, make(name, key))
            found[name] = entry[1]
        if len(held) > len(found):  # it holds every name found, so others too
            for name in [n for n in held if n not in found]:
                del held[name]
        return found

    def got(self, value: Reusable[K, V], keys: Iterable[tuple[str, K]]) -> dict[str, V]:
        """:meth:`get` for each (name, key) of ``keys``: the values held, by name."""
        held = self._of(value)
        found: dict[str, V] = {}
        for name, key in keys:
            entry = held.get(name)
            if entry is not None and (entry[0] is key or entry[0] == key):
                found[name] = entry[1]
        return found

    def update(self, value: Reusable[K, V], name: str, change: Callable[[V], V]) -> None:
        """Replace the value held for ``name``, if any, by ``change(value)``, under the key
        it was made with (a part of it read later: a page's body)."""
        held = self._of(value)
        entry = held.get(name)
        if entry is not None:
            held[name] = (entry[0], change(entry[1]))

    def drop(self, value: Reusable[K, V], name: str) -> None:
        self._of(value).pop(name, None)

    def keep_only(self, value: Reusable[K, V], names: Container[str]) -> None:
        """Forget the values held for names no longer among ``names`` (pages gone)."""
        held = self._of(value)
        for name in [n for n in held if n not in names]:
            del held[name]

    def held(self, value: Reusable[K, V]) -> dict[str, tuple[K, V]]:
        """Every name held of ``value``, with its key and value (a copy)."""
        return dict(self._of(value))


def _same(a: object, b: object) -> bool:
    """Key equality, told at once for the very key (mostly so: a dataclass's ``==`` compares
    every field even of an object with itself, thousands of times a build)."""
    return a is b or a == b
