"""How the index is spelled on disk: numbers as short text, terms to shards, JS files.

Every file under ``site/search/`` is a script that hands its data to the client:
``__kbSearch("s/1f", {...});``. A page opened from a folder (``file://``) may load scripts but
not ``fetch`` files, so this is what makes search work there; ``kbtool search`` reads the
same files by stripping the call.

A posting list is a string of integers in a variable-length base-32 code over 64 characters
that need no escaping in JSON: a digit from ``FINAL`` ends a number, digits from ``MORE``
come before it, most significant first. Numbers below 32 take one character. The same
decoder is in ``assets/search.js``.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from functools import cache
from typing import Any

MORE = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdef"
FINAL = "ghijklmnopqrstuvwxyz0123456789-_"
_VALUE = {c: i for i, c in enumerate(MORE)} | {c: i for i, c in enumerate(FINAL)}
_FINAL_SET = frozenset(FINAL)
CALL = "__kbSearch"


def _encode(n: int) -> str:
    digits = [FINAL[n & 31]]
    n >>= 5
    while n:
        digits.append(MORE[n & 31])
        n >>= 5
    return "".join(reversed(digits))


@cache
def codes() -> tuple[str, ...]:
    """The spelling of every number below 32,768: what a hot loop looks numbers up in."""
    return tuple(_encode(n) for n in range(1 << 15))


def encode(numbers: Iterable[int]) -> str:
    """
    >>> encode([0, 31, 32, 1000])
    'g_Bgfo'
    >>> decode(encode([0, 31, 32, 1000, 10**9]))
    [0, 31, 32, 1000, 1000000000]
    """
    table = codes()
    size = len(table)
    return "".join(table[n] if n < size else _encode(n) for n in numbers)


def decode(text: str) -> list[int]:
    out: list[int] = []
    value = 0
    for char in text:
        value = value * 32 + _VALUE[char]
        if char in _FINAL_SET:
            out.append(value)
            value = 0
    return out


def fnv1a(text: str) -> int:
    """32-bit FNV-1a over the code points of ``text`` (the same in search.js).

    >>> fnv1a("注意")
    1364798472
    """
    h = 0x811C9DC5
    for char in text:
        h = ((h ^ ord(char)) * 0x01000193) & 0xFFFFFFFF
    return h


def shard_of(term: str, shards: int) -> str:
    """The shard file that holds ``term`` (``shards`` is a power of two)."""
    return f"{fnv1a(term) & (shards - 1):x}"


def script(name: str, data: Any) -> bytes:
    """The JS file that registers ``data`` under ``name``."""
    text = json.dumps(data, ensure_ascii=False, separators=(",", ":"), sort_keys=True)
    # U+2028/9 are valid in JSON and (since ES2019) in JS strings; escaped for older readers.
    text = text.replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")
    return f'{CALL}("{name}",{text});\n'.encode("utf-8", errors="replace")  # lone surrogates


def unscript(data: bytes) -> Any:
    """The data a file written by :func:`script` registers."""
    text = data.decode("utf-8")
    start = text.index(",", len(CALL) + 2) + 1
    return json.loads(text[start : text.rindex(")")])
