"""The allow-list for HTML that did not come from our own renderer.

Raw HTML written in pages, and MathML from the TeX converter (which copies ``\\text{...}``
verbatim), pass through nh3 (ammonia): no ``<script>``, no ``on*`` attributes, no
``javascript:`` URLs, only the tags and attributes below.
"""

from __future__ import annotations

import nh3

MATHML_TAGS = frozenset(
    [
        "math",
        "semantics",
        "annotation",
        "mrow",
        "mi",
        "mo",
        "mn",
        "ms",
        "mtext",
        "mspace",
        "mfrac",
        "msqrt",
        "mroot",
        "msup",
        "msub",
        "msubsup",
        "munder",
        "mover",
        "munderover",
        "mtable",
        "mtr",
        "mtd",
        "mstyle",
        "merror",
        "mpadded",
        "mphantom",
        "menclose",
        "mmultiscripts",
        "mprescripts",
        "none",
    ]
)
_MATHML_ATTRS = frozenset(
    [
        "xmlns",
        "display",
        "mathvariant",
        "stretchy",
        "fence",
        "separator",
        "lspace",
        "rspace",
        "width",
        "height",
        "depth",
        "form",
        "accent",
        "accentunder",
        "movablelimits",
        "largeop",
        "symmetric",
        "minsize",
        "maxsize",
        "linethickness",
        "columnalign",
        "rowalign",
        "columnspacing",
        "rowspacing",
        "columnlines",
        "rowlines",
        "frame",
        "notation",
        "scriptlevel",
        "displaystyle",
        "encoding",
        "open",
        "close",
        "separators",
    ]
)
_HTML_TAGS = frozenset(nh3.ALLOWED_TAGS) | {
    "section",
    "figure",
    "figcaption",
    "details",
    "summary",
    "picture",
    "source",
    "video",
    "audio",
    "track",
    "input",  # task-list checkboxes
}
_HTML_ATTRS: dict[str, set[str]] = {
    "*": {"class", "id", "title", "lang", "dir", "aria-label", "aria-hidden", "role"},
    "a": {"href", "name"},
    "img": {"src", "alt", "width", "height", "loading"},
    "td": {"colspan", "rowspan", "align"},
    "th": {"colspan", "rowspan", "align", "scope"},
    "ol": {"start", "type", "reversed"},
    "details": {"open"},
    "video": {"src", "controls", "width", "height", "poster"},
    "audio": {"src", "controls"},
    "source": {"src", "type"},
    "track": {"src", "kind", "srclang", "label"},
    "abbr": {"title"},
    "time": {"datetime"},
    "input": {"type", "checked", "disabled"},
}
_URL_SCHEMES = {"http", "https", "mailto"}


def sanitize_html(html: str) -> str:
    """Clean a fragment of page HTML (raw HTML included), keeping MathML.

    >>> sanitize_html('<p onclick="x()">hi<script>alert(1)</script></p>')
    '<p>hi</p>'
    """
    attributes = {**_HTML_ATTRS, **{tag: set(_MATHML_ATTRS) for tag in MATHML_TAGS}}
    attributes["*"] = _HTML_ATTRS["*"]
    return nh3.clean(
        html,
        tags=set(_HTML_TAGS | MATHML_TAGS),
        attributes=attributes,
        url_schemes=_URL_SCHEMES,
        link_rel="noopener noreferrer",
        strip_comments=True,
    )


def sanitize_mathml(mathml: str) -> str:
    """Clean converter output: escapes text the converter copied raw, drops anything else."""
    return nh3.clean(
        mathml,
        tags=set(MATHML_TAGS),
        attributes={tag: set(_MATHML_ATTRS) for tag in MATHML_TAGS},
        url_schemes=set(),
        link_rel=None,
    )
