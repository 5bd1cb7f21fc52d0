"""What the engine knows of a value before it holds one: inputs and queries, each declared once.

An **input** is set from outside (a page's facts, a file's text, a setting); a **query** is a
function of its key that reads inputs and other queries only through the engine, which
records each read. Every key is a string: a page's path, or ``WHOLE`` for a query of the whole
wiki. A value's **digest** is a string that changes whenever the value does; for small values
the value's own text serves (no hashing), for others the query says how to make it.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Generic, Protocol, TypeVar

V = TypeVar("V")
T = TypeVar("T")

#: the key of a query or input of the whole wiki
WHOLE = ""


def digest_of_repr(value: object) -> str:
    """A digest of ``value``'s ``repr``: enough for values made of strings, numbers, tuples,
    lists and dataclasses of them (not sets, whose order varies between processes)."""
    return hashlib.blake2b(repr(value).encode("utf-8", "surrogatepass"), digest_size=12).hexdigest()


@dataclass(frozen=True, eq=False)
class Input(Generic[V]):
    """A value the front end sets: ``name`` and, for each key, a value with its digest."""

    name: str


class Reads(Protocol):
    """What a query's function reads through: each read is recorded in its trace, and a
    query reads nothing else (not the disk, not a global, not another page's object)."""

    def input(self, input: Input[T], key: str) -> T | None:
        """The input's value for ``key``, or None where it is not set."""

    def get(self, query: Query[T], key: str) -> T:
        """Another query's value for ``key``."""


@dataclass(frozen=True)
class Stored(Generic[V]):
    """How a query's values are kept in the store: to a JSON value and back (``decode``
    raises ``TypeError`` or ``ValueError`` on a value it cannot trust)."""

    encode: Callable[[V], Any]
    decode: Callable[[Any], V]


@dataclass(frozen=True, eq=False)
class Query(Generic[V]):
    """A derived value: ``compute(reads, key)`` reads only through ``reads``. ``stored``: how
    its values are kept between processes (its traces are, unless ``kept`` is False: a
    query made again from its inputs in less time than its traces take to read);
    ``digest``: of a value. ``code``: the module whose code (with all it imports) the values
    depend on, the ``compute`` function's own unless named."""

    name: str
    compute: Callable[[Reads, str], V]
    stored: Stored[V] | None = None
    digest: Callable[[V], str] = digest_of_repr
    code: str = field(default="")
    kept: bool = True

    @property
    def module(self) -> str:
        return self.code or self.compute.__module__
