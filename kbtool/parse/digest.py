"""The content hash that keys every cache: of the bytes, never of the mtime."""

from __future__ import annotations

import hashlib


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=16).hexdigest()
