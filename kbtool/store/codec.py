"""Records as restricted pickles: a store planted in a cloned repository cannot run code.

A page record is a pickle in which only the page model's classes may appear: the unpickler
refuses every other class. A plain record holds no class at all, only what JSON would hold
(strings, numbers, booleans, None, lists, tuples, dicts, sets): a small record is read in
two thirds of JSON's time, one of thousands of rows in a fifth.
"""

from __future__ import annotations

import io
import pickle
from typing import Any

from kbtool import model
from kbtool.model import Page

_MODEL_CLASSES = {"Page", "Frontmatter", "Heading", "Link", "Cell", "Problem", "Span", "Block"}


class _ModelUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if module == "kbtool.model" and name in _MODEL_CLASSES:
            return getattr(model, name)
        raise pickle.UnpicklingError(f"{module}.{name} is not part of the page model")


class _PlainPickler(pickle.Pickler):
    # Called for every object but None, booleans and exact ints, floats, strings, bytes,
    # lists, tuples, dicts and sets: a named tuple or a dataclass is a mistake of the caller.
    def reducer_override(self, obj: Any) -> Any:
        raise TypeError(f"not plain data: {type(obj).__name__}")


class _PlainUnpickler(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        raise pickle.UnpicklingError(f"{module}.{name}: a plain record holds no class")


def dump_plain(value: Any) -> bytes:
    """``value``, plain data only (TypeError for anything else), as a pickle."""
    buffer = io.BytesIO()
    _PlainPickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


def load_plain(data: bytes) -> Any:
    """The value :func:`dump_plain` wrote; None for anything else (corrupt, foreign)."""
    try:
        return _PlainUnpickler(io.BytesIO(data)).load()
    except Exception:  # A damaged or planted record is a miss, never an error.
        return None


def dump_page(page: Page) -> bytes:
    return pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)


def load_page(data: bytes) -> Page | None:
    """The page pickled by :func:`dump_page`; None for anything else (corrupt, foreign)."""
    try:
        page = _ModelUnpickler(io.BytesIO(data)).load()
    except Exception:  # A damaged or planted record is a miss, never an error.
        return None
    return page if isinstance(page, Page) else None
