"""The one engine for what kbtool derives: inputs, queries, their recorded reads, and the
memory and store tiers (``docs/architecture.md``, "The engine")."""

from kbtool.engine.core import ABSENT, Cycle, Engine, Given
from kbtool.engine.declare import WHOLE, Input, Query, Reads, Stored, digest_of_repr

__all__ = [
    "ABSENT",
    "WHOLE",
    "Cycle",
    "Engine",
    "Given",
    "Input",
    "Query",
    "Reads",
    "Stored",
    "digest_of_repr",
]
