"""Page records as restricted pickles.

A page record is a pickle in which only the page model's classes may appear: the unpickler
refuses every other class, so a store planted in a cloned repository cannot run code.
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


def dump_page(page: Page) -> bytes:
    return pickle.dumps(page, protocol=pickle.HIGHEST_PROTOCOL)


def load_page(data: bytes) -> Page | None:
    """The page pickled by :func:`dump_page`; None for anything else (corrupt, foreign)."""
    try:
        page = _ModelUnpickler(io.BytesIO(data)).load()
    except Exception:  # A damaged or planted record is a miss, never an error.
        return None
    return page if isinstance(page, Page) else None
