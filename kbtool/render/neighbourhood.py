"""A page's neighbourhood in the link graph as a small SVG, drawn at build time.

No script: every neighbour is an SVG link, the full title is in its ``<title>`` (a tooltip
and what screen readers read). Neighbours sit on one ring, or two when there are many, so
labels do not collide; past :data:`MAX_SHOWN` the rest are counted, not drawn.
"""

from __future__ import annotations

import math
import unicodedata
from collections.abc import Callable
from html import escape

from kbtool.render.site import PageInfo, Ref

MAX_SHOWN = 16
_WIDTH, _HEIGHT = 360, 290
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
    two_rings = len(shown) > 8
    lines, nodes = [], []
    for i, (ref, kind) in enumerate(shown):
        angle = -math.pi / 2 + 2 * math.pi * i / len(shown)
        radius = (1.0 if i % 2 else 0.62) if two_rings else 0.85
        x, y = cx + radius * 80 * math.cos(angle), cy + radius * 118 * math.sin(angle)
        dash = ' stroke-dasharray="4 3"' if kind == "source" else ""
        lines.append(
            f'<line x1="{cx:.0f}" y1="{cy:.0f}" x2="{x:.0f}" y2="{y:.0f}" '
            f'class="edge edge-{_css_type(kind)}"{dash}/>'
        )
        anchor = "start" if x > cx + 8 else "end" if x < cx - 8 else "middle"
        dx = 8 if anchor == "start" else -8 if anchor == "end" else 0
        dy = -9 if (anchor == "middle" and y < cy) else 14 if anchor == "middle" else 4
        nodes.append(
            f'<a href="{escape(href(ref))}"><title>{escape(ref.title)}</title>'
            f'<circle cx="{x:.0f}" cy="{y:.0f}" r="6" class="node type-{_css_type(ref.type)}"/>'
            f'<text x="{x + dx:.0f}" y="{y + dy:.0f}" text-anchor="{anchor}">'
            f"{escape(_label(ref.title, 13))}</text></a>"
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
