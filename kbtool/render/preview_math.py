"""A formula of a link preview as data: the MathML the page shows, as a tree of plain lists,
which the site's preview.js builds with ``createElementNS`` and ``textContent`` (nothing is
parsed as HTML in the reader's browser).

Only MathML's presentation elements and the attributes that change how they look are kept;
anything else (an annotation, an element or attribute MathML does not have here) is left out,
its text kept where it is an element's. A tree is ``[tag, {attribute: value}, child, ...]``,
a child a tree or a string.

>>> math_tree('<math display="inline"><semantics><mrow><msub><mi>a</mi><mi>t</mi></msub>'
...           '</mrow><annotation encoding="application/x-tex">a_t</annotation></semantics></math>')
['math', {}, ['mrow', {}, ['msub', {}, ['mi', {}, 'a'], ['mi', {}, 't']]]]
"""

from __future__ import annotations

from html.parser import HTMLParser
from typing import Any

ELEMENTS = frozenset(
    {
        "math",
        "mrow",
        "mi",
        "mo",
        "mn",
        "ms",
        "mtext",
        "mspace",
        "msub",
        "msup",
        "msubsup",
        "mfrac",
        "msqrt",
        "mroot",
        "mover",
        "munder",
        "munderover",
        "mtable",
        "mtr",
        "mtd",
        "mstyle",
        "mpadded",
        "mphantom",
        "menclose",
        "merror",
    }
)
ATTRIBUTES = frozenset(
    {
        "mathvariant",
        "displaystyle",
        "scriptlevel",
        "stretchy",
        "fence",
        "separator",
        "lspace",
        "rspace",
        "accent",
        "accentunder",
        "linethickness",
        "columnalign",
        "rowalign",
        "width",
        "height",
        "depth",
        "notation",
        "form",
        "largeop",
        "movablelimits",
        "symmetric",
        "minsize",
        "maxsize",
    }
)
#: what is left out with all it holds
_DROPPED = frozenset({"annotation", "annotation-xml", "script", "style"})

Tree = list[Any]


def math_tree(mathml: str) -> Tree:
    """The tree of one ``<math>`` element's HTML (an empty ``math`` if there is none)."""
    parser = _Parser()
    parser.feed(mathml)
    parser.close()
    return parser.root


class _Parser(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root: Tree = ["math", {}]
        self._open: list[Tree | None] = []  # None: an element left out (its text kept)
        self._dropping = 0

    def _parent(self) -> Tree:
        for node in reversed(self._open):
            if node is not None:
                return node
        return self.root

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        if self._dropping or tag in _DROPPED:
            self._dropping += 1
            return
        if tag == "math" and not self._open:
            self._open.append(self.root)
            return
        if tag not in ELEMENTS:
            self._open.append(None)
            return
        kept = {name: value for name, value in attrs if name in ATTRIBUTES and value is not None}
        node: Tree = [tag, kept]
        self._parent().append(node)
        self._open.append(node)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.handle_starttag(tag, attrs)
        self.handle_endtag(tag)

    def handle_endtag(self, tag: str) -> None:
        if self._dropping:
            self._dropping -= 1
            return
        if self._open:
            self._open.pop()

    def handle_data(self, data: str) -> None:
        if self._dropping or not self._open or not data:
            return
        parent = self._parent()
        if parent is self.root and not data.strip():
            return
        parent.append(data)
