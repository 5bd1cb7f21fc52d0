"""Records decoded when first asked for: the bodies and search texts a load brings back.

A cold build gets every page's body and search text from its page workers as JSON. Decoding
them all at once in the main process would be serial work that grows with the wiki; kept
encoded, a body is decoded by the render worker that fills it, and a search text only when
the build makes a search index.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from typing import TypeVar

T = TypeVar("T")


class Decoded(Mapping[str, T]):
    """Values by path: the ``known`` ones, and the ``encoded`` ones decoded on first use."""

    def __init__(
        self,
        decode: Callable[[bytes], T],
        known: Mapping[str, T] | None = None,
        encoded: Mapping[str, bytes] | None = None,
    ) -> None:
        self._decode = decode
        self._values: dict[str, T] = dict(known or {})
        self._encoded = {p: data for p, data in (encoded or {}).items() if p not in self._values}

    def __getitem__(self, path: str) -> T:
        if path not in self._values:
            self._values[path] = self._decode(self._encoded.pop(path))  # KeyError: not here
        return self._values[path]

    def __contains__(self, path: object) -> bool:
        return path in self._values or path in self._encoded

    def __iter__(self) -> Iterator[str]:
        # Both taken now: decoding while iterating moves a path from one to the other.
        return iter([*self._values, *self._encoded])

    def __len__(self) -> int:
        return len(self._values) + len(self._encoded)

    def decoded(self, path: str) -> T | None:
        """The value of ``path`` if it was decoded already (or given so), else None."""
        return self._values.get(path)

    def subset(self, paths: list[str]) -> Decoded[T]:
        """The values of those of ``paths`` held here, decoded or not as they are now."""
        known = {p: self._values[p] for p in paths if p in self._values}
        encoded = {p: self._encoded[p] for p in paths if p in self._encoded}
        return Decoded(self._decode, known, encoded)

    def update_known(self, values: Mapping[str, T]) -> None:
        self._values.update(values)
        for path in values:
            self._encoded.pop(path, None)
