"""A page's neighbourhood in the link graph as a small SVG, drawn at build time.

No script: every neighbour is an SVG link, the full title is in its ``<title>`` (a tooltip
and what screen readers read). The page sits in the middle and its neighbours on two arcs,
left and right of it, each label on the outer side of its node: labels of one side are a
line apart at the least and clipped to the room left of (or right of) their node, so no two
labels overlap, nor a label and the page's own. Past :data:`MAX_SHOWN` the rest are
counted, not drawn.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from html import escape

from kbtool.render.card import Ref
from kbtool.render.site import PageInfo

MAX_SHOWN = 16
_WIDTH, _HEIGHT = 360, 290
#: Room above the first and below the last row; 8 rows a side are then 32 px apart, and a
#: label is 11 px high.
_TOP, _BOTTOM = 2, 2
#: How far from the middle a node sits, at the arc's ends and at its middle.
_INNER, _OUTER = 56, 78
#: A label's length in Latin characters (a CJK character counts two): at 11 px up to 7 px
#: each with the ellipsis, it fits in the 180 - 78 - 9 px beside the outermost node.
_LABEL_UNITS = 12
_KIND_ORDER = {"related": 0, "link": 1, "source": 2}


def _label(title: str, width: int = 16) -> str:
    """Clip a title to about ``width`` Latin characters; a CJK character counts as two."""
    used, out = 0, list[str]()
    for char in title:
        used += 2 if unicodedata.east_asian_width(char) in "WF" else 1
        if used > width:
            return "".join(out).rstrip() + "…"
        out.append(char)
    return title


def _place(index: int, count: int, cx: float) -> tuple[float, float, int]:
    """(x, y, side) of neighbour ``index`` of ``count``: the first half on the right arc, top
    to bottom, the rest on the left; side is 1 (right) or -1 (left)."""
    right = (count + 1) // 2
    side, row, rows = (1, index, right) if index < right else (-1, index - right, count - right)
    t = (row + 1) / (rows + 1)  # 0 < t < 1, top to bottom
    y = _TOP + t * (_HEIGHT - _TOP - _BOTTOM)
    bulge = math.sin(math.pi * t)  # the arc: furthest out level with the page
    return cx + side * (_INNER + (_OUTER - _INNER) * bulge), y, side


def _css_type(value: str) -> str:
    return "".join(c if c.isalnum() else "-" for c in value.lower()) or "none"


def neighbourhood_svg(info: PageInfo, href: Callable[[Ref], str], title: str) -> str:
    """The SVG, or '' for a page with no neighbours."""
    neighbours = sorted(
        info.neighbours,
        key=lambda item: (min(_KIND_ORDER.get(k, 3) for k in item[1].split("+")), item[0].title),
    )
    if not neighbours:
        return ""
    shown = neighbours[:MAX_SHOWN]
    cx, cy = _WIDTH / 2, _HEIGHT / 2
    lines, nodes = [], []
    for i, (ref, kind) in enumerate(shown):
        x, y, side = _place(i, len(shown), cx)
        dash = ' stroke-dasharray="4 3"' if kind == "source" else ""
        lines.append(
            f'<line x1="{cx:.0f}" y1="{cy:.0f}" x2="{x:.0f}" y2="{y:.0f}" '
            f'class="edge edge-{_css_type(kind)}"{dash}/>'
        )
        anchor, dx = ("start", 9) if side > 0 else ("end", -9)
        nodes.append(
            f'<a href="{escape(href(ref))}"><title>{escape(ref.title)}</title>'
            f'<circle cx="{x:.0f}" cy="{y:.0f}" r="6" class="node type-{_css_type(ref.type)}"/>'
            f'<text x="{x + dx:.0f}" y="{y + 4:.0f}" text-anchor="{anchor}">'
            f"{escape(_label(ref.title, _LABEL_UNITS))}</text></a>"
        )
    centre = (
        f'<circle cx="{cx:.0f}" cy="{cy:.0f}" r="9" '
        f'class="node node-self type-{_css_type(info.ref.type)}"/>'
        f'<text x="{cx:.0f}" y="{cy + 24:.0f}" text-anchor="middle" class="self-label">'
        f"{escape(_label(info.ref.title, 20))}</text>"
    )
    return (
        f'<svg class="neighbourhood" viewBox="0 0 {_WIDTH} {_HEIGHT}" role="img" '
        f'aria-label="{escape(title)}" xmlns="http://www.w3.org/2000/svg">'
        f'<g class="edges">{"".join(lines)}</g><g class="nodes">{"".join(nodes)}{centre}</g></svg>'
    )


def hidden_count(info: PageInfo) -> int:
    return max(0, len(info.neighbours) - MAX_SHOWN)
