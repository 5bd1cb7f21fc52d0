"""One output of the site as the plan has it: its name, its key, and what renders it, one
type for each kind of output.

A page's HTML and its link-preview data are rendered from the page's body in the workers; an
index page and the graph's data in the build's own process, from what the plan made of them
(None when they were planned from the last build's keys, and made only if one is stale:
:func:`kbtool.stages.index_plan.with_data`); an output row's file by its row, here too; an
asset is its bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, ClassVar

if TYPE_CHECKING:
    from kbtool.render.graphpage import GraphData
    from kbtool.render.indexes import IndexPage


@dataclass(frozen=True)
class PageOutput:
    """A page's HTML (``page:<path>``)."""

    kind: ClassVar[str] = "page"
    name: str
    key: str
    path: str


@dataclass(frozen=True)
class PreviewOutput:
    """A page's link-preview data (``preview:<path>``)."""

    kind: ClassVar[str] = "preview"
    name: str
    key: str
    path: str


@dataclass(frozen=True)
class IndexOutput:
    """An index page: home, a type's or tag's list, sources, the graph page, what's new."""

    kind: ClassVar[str] = "index"
    name: str
    key: str
    page: IndexPage | None


@dataclass(frozen=True)
class GraphOutput:
    """The graph's data (``graph-data.js``)."""

    kind: ClassVar[str] = "graph"
    name: str
    key: str
    data: GraphData | None


@dataclass(frozen=True)
class RowOutput:
    """A file an output row makes (``render/output_rows.py``): ``<row>:<path>`` for a page
    row's, the row's name for a site row's (``path`` ""); its key the digest of its content."""

    kind: ClassVar[str] = "row"
    name: str
    key: str
    row: str
    path: str
    file: str


@dataclass(frozen=True)
class StaticOutput:
    """An asset shipped in the package, or the highlighting colours."""

    kind: ClassVar[str] = "static"
    name: str
    key: str
    content: bytes


#: the outputs rendered from one page's body, in the workers
PerPage = PageOutput | PreviewOutput
Planned = PageOutput | PreviewOutput | IndexOutput | GraphOutput | RowOutput | StaticOutput
