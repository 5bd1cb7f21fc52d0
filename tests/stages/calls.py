"""Counting what a stage does: the calls of one function, recorded as they happen."""

from __future__ import annotations

from collections.abc import Callable
from types import ModuleType
from typing import Any

import pytest


def recorded(
    monkeypatch: pytest.MonkeyPatch,
    module: ModuleType,
    name: str,
    note: Callable[[Any], Any] = lambda result: 1,
) -> list[Any]:
    """From now on, ``note(result)`` of each call of ``module.name``, in order (as the module
    looks the function up: patch the module that calls it)."""
    notes: list[Any] = []
    real = getattr(module, name)

    def call(*args: Any) -> Any:
        result = real(*args)
        notes.append(note(result))
        return result

    monkeypatch.setattr(module, name, call)
    return notes
