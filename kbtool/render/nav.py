"""How many page types fit in the navigation's line; the others go in its "more" menu.

The site has no script for its header, so the split is made at build time from the labels'
lengths: a CJK character is about one em wide in the header's font, a Latin one about 0.6 em
(generous, so a long English type name does not spill). It is made twice: for a 960 px
window (60rem, the narrowest that shows the line) and for a 1280 px one (80rem, the header's
full width); the stylesheet shows the types between the two counts only on the wider screen.
Below 60rem every type is in the menu, so a phone's line holds four links whatever the types.
"""

from __future__ import annotations

import unicodedata
from collections.abc import Sequence

#: Window widths the split is made for: where the line first shows, and the header's widest.
NARROW, WIDE = 960, 1280
_TITLE_EM = 1.1 / 0.95  # the site title is set at 1.1rem, bold
_GAP_EM = 0.9
_MENU_MARK_EM = 1.2  # the menu's ▾ and padding


def text_em(text: str) -> float:
    """The width of ``text`` in ems, estimated: 1 for a wide (CJK) character, 0.6 otherwise.

    >>> text_em("概念"), text_em("method")
    (2.0, 3.6)
    """
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in text)


#: The theme switch at the end of the header (style.css): three 1.75rem buttons, the gaps
#: between them, its padding and border, and the (narrowed) gap before it.
_SWITCH_PX = 3 * 1.75 * 16 + 4 + 6 + 12


def _line_em(window: int) -> float:
    """The navigation's share of the header, in ems of its font (0.95rem, 15.2 px): the
    header's padding, its two gaps, the search box, which gives way down to 8rem (the
    navigation never does), and the theme switch taken off."""
    return (window - 32 - 40 - 128 - _SWITCH_PX) / 15.2


def inline_count(title: str, fixed: Sequence[str], types: Sequence[str], window: int) -> int:
    """How many of ``types`` (in order) fit on the line at ``window`` px with ``fixed`` links
    (home, sources, graph, and the menu's label, needed only when a type does not fit).

    >>> inline_count("知识库", ["首页", "来源", "图谱", "更多"], ["概念", "方法"], NARROW)
    2
    >>> inline_count("知识库", ["首页", "来源", "图谱", "更多"], ["type-name"] * 10, NARROW)
    4
    >>> inline_count("知识库", ["首页", "来源", "图谱", "更多"], ["type-name"] * 10, WIDE)
    7
    """
    room = _line_em(window) - text_em(title) * _TITLE_EM * 1.05
    *links, menu = fixed
    used = sum(text_em(label) + _GAP_EM for label in links)
    widths = [text_em(label) + _GAP_EM for label in types]
    if used + sum(widths) <= room:
        return len(types)
    used += text_em(menu) + _MENU_MARK_EM + _GAP_EM
    for count, width in enumerate(widths):
        used += width
        if used > room:
            return count
    return len(types)
