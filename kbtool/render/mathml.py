"""TeX -> MathML at build time, so formulas need no JavaScript and no network to show.

latex2mathml raises on some bad input and passes other bad input through silently (an
unknown command becomes ``<mi>\\foo</mi>``, a missing brace drops an argument); both are
caught here, so the caller can report the formula with its line and show the TeX instead.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache
from html import escape

from kbtool.render.sanitize import sanitize_mathml
from kbtool.render.tex_commands import supply_commands

_UNKNOWN_COMMAND = re.compile(r"<m[io]>(\\[A-Za-z]+)</m[io]>")
_MATH_OPEN = re.compile(r"^<math ([^>]*)>")


@dataclass(frozen=True, slots=True)
class Formula:
    html: str
    error: str | None = None


def _braces_balanced(tex: str) -> bool:
    depth = 0
    escaped = False
    for char in tex:
        if escaped:
            escaped = False
        elif char == "\\":
            escaped = True
        elif char == "{":
            depth += 1
        elif char == "}":
            depth -= 1
            if depth < 0:
                return False
    return depth == 0


@lru_cache(maxsize=65536)
def to_mathml(tex: str, display: bool) -> Formula:
    """MathML for ``tex``, with the TeX kept as an annotation (copy-paste, screen readers).

    >>> to_mathml("x^2", False).html.startswith('<math xmlns="http://www.w3.org/1998/Math/MathML"')
    True
    >>> to_mathml("x^", False).error is not None
    True
    """
    from latex2mathml.converter import convert

    source = tex.strip()
    if not _braces_balanced(source):
        return Formula("", "unbalanced braces")
    try:
        mathml = convert(supply_commands(source), display="block" if display else "inline")
    except Exception as error:  # latex2mathml raises many kinds, all meaning "bad TeX"
        name = type(error).__name__
        return Formula("", f"{name}{': ' + str(error) if str(error) else ''}")
    unknown = _UNKNOWN_COMMAND.search(mathml)
    if unknown:
        return Formula("", f"unknown command {unknown.group(1)}")
    if "<mi>&</mi>" in mathml:  # an alignment `&` the converter did not put in a table
        return Formula("", "`&` outside an environment that aligns (aligned, cases, matrix...)")
    match = _MATH_OPEN.match(mathml)
    if not match or not mathml.endswith("</math>"):
        return Formula("", "unexpected converter output")
    inner = mathml[match.end() : -len("</math>")]
    annotation = (
        f'<annotation encoding="application/x-tex">{escape(source, quote=False)}</annotation>'
    )
    # The converter copies \\text{...} verbatim, markup included: clean before publishing.
    return Formula(
        sanitize_mathml(f"<math {match.group(1)}><semantics>{inner}{annotation}</semantics></math>")
    )


def tex_fallback(tex: str, title: str) -> str:
    """A formula that could not be converted: its TeX, set in the face of a formula (not as
    code), with ``title`` saying why it is not typeset.

    >>> tex_fallback("x <", "not converted")
    '<span class="math-tex math-error" role="math" title="not converted">x &lt;</span>'
    """
    return (
        f'<span class="math-tex math-error" role="math" title="{escape(title)}">'
        f"{escape(tex.strip(), quote=False)}</span>"
    )
