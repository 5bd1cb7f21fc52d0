"""The one mapping of values got when first asked for: some at hand, the rest each with what
makes it (a stored page's work, an encoded body, a record's key), got in batches.

After a one-page edit a build needs few whole values: the pages it checks, renders or runs,
and the pages those link to; the bodies and site facts of the pages it renders. The rest are
never read or decoded. Asking for every value (``values``, ``items``) still works, and gets
the missing ones in one batch. What makes a value is dropped once it is got.
"""

from __future__ import annotations

from collections.abc import Callable, ItemsView, Iterable, Iterator, Mapping, ValuesView
from typing import Generic, TypeVar

T = TypeVar("T")
S = TypeVar("S")

#: ``get({name: what makes it})``: the values of a batch, one for every name given
Getter = Callable[[dict[str, S]], Mapping[str, T]]


class Lazy(Mapping[str, T], Generic[T, S]):
    """Values by name, in ``order`` (else the ``known`` names, then the ``pending`` ones): the
    ``known`` ones at hand, the ``pending`` ones got by ``get`` on first use."""

    def __init__(
        self,
        get: Getter[S, T],
        known: Mapping[str, T] | None = None,
        pending: Mapping[str, S] | None = None,
        order: Iterable[str] | None = None,
    ) -> None:
        self._get = get
        self._values: dict[str, T] = dict(known or {})
        self._pending = {name: s for name, s in (pending or {}).items() if name not in self._values}
        self._order = list(order) if order is not None else [*self._values, *self._pending]

    def __getitem__(self, name: str) -> T:
        if name not in self._values:
            if name not in self._pending:
                raise KeyError(name)
            self.load([name])
        return self._values[name]

    def __contains__(self, name: object) -> bool:
        return name in self._values or name in self._pending

    def __iter__(self) -> Iterator[str]:
        return iter(self._order)

    def __len__(self) -> int:
        return len(self._order)

    def values(self) -> ValuesView[T]:
        self.load(self._pending)
        return {name: self._values[name] for name in self._order}.values()

    def items(self) -> ItemsView[str, T]:
        self.load(self._pending)
        return {name: self._values[name] for name in self._order}.items()

    def load(self, names: Iterable[str]) -> dict[str, T]:
        """The values of ``names`` held here, the pending ones among them got in one batch."""
        names = list(names)
        batch = {name: self._pending.pop(name) for name in names if name in self._pending}
        if batch:
            self._values.update(self._get(batch))
        return {name: self._values[name] for name in names if name in self._values}

    def got(self, name: str) -> T | None:
        """The value of ``name`` if it is at hand (got already, or given so), else None."""
        return self._values.get(name)

    def at_hand(self) -> dict[str, T]:
        """The values got so far (or given), by name."""
        return dict(self._values)

    def subset(self, names: Iterable[str]) -> Lazy[T, S]:
        """The values of those of ``names`` held here, got or not as they are now."""
        names = [name for name in names if name in self]
        known = {name: self._values[name] for name in names if name in self._values}
        pending = {name: self._pending[name] for name in names if name in self._pending}
        return Lazy(self._get, known, pending, names)

    def clear(self) -> None:
        """Let go of every value and every source (what asks afterwards finds none)."""
        self._values.clear()
        self._pending.clear()
        self._order.clear()

    def update(self, values: Mapping[str, T]) -> None:
        """Hold ``values`` as got (new names go last)."""
        for name, value in values.items():
            if name not in self:
                self._order.append(name)
            self._pending.pop(name, None)
            self._values[name] = value


def decoding(
    decode: Callable[[bytes], T],
    known: Mapping[str, T] | None = None,
    encoded: Mapping[str, bytes] | None = None,
) -> Lazy[T, bytes]:
    """Values decoded from their bytes when first asked for."""

    def get(batch: dict[str, bytes]) -> dict[str, T]:
        return {name: decode(data) for name, data in batch.items()}

    return Lazy(get, known, encoded)
