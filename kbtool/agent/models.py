"""The tools' answers, as pydantic models: the SDK gives each tool's its output schema and
sends them as structured content (and as JSON text, for clients that read only text)."""

from __future__ import annotations

from typing import Any

from pydantic import BaseModel, Field

from kbtool.diagnostics import Diagnostic


class DiagnosticOut(BaseModel):
    path: str
    line: int
    col: int
    code: str
    severity: str
    message: str
    fix: str | None = Field(None, description="what to do about it, when kbtool knows")

    @classmethod
    def of(cls, d: Diagnostic, fix: str | None = None) -> DiagnosticOut:
        return cls(
            path=d.path,
            line=d.line,
            col=d.col,
            code=d.code,
            severity=d.severity,
            message=d.message,
            fix=fix or d.fix,
        )


class PageCardOut(BaseModel):
    path: str
    title: str
    type: str | None = None
    summary: str | None = None
    tags: list[str] = []
    updated: str | None = None


class SearchHit(BaseModel):
    path: str
    title: str
    type: str
    label: str = Field("", description="what the site calls the page's type")
    excerpt: str


class SearchAnswer(BaseModel):
    query: str
    total: int = Field(description="how many pages match in all")
    hits: list[SearchHit]
    next_offset: int | None = Field(None, description="pass as offset for the next hits")


class HeadingOut(BaseModel):
    level: int
    text: str
    anchor: str = Field(description="the heading's slug: link to it as page.md#anchor")
    line: int


class PageAnswer(BaseModel):
    path: str
    title: str
    kind: str = Field(description="'wiki' or 'source'")
    digest: str = Field(description="the file's content digest: pass as if_match to write")
    frontmatter: dict[str, Any]
    outline: list[HeadingOut]
    section: str | None = Field(None, description="the anchor of the section shown, if one")
    text: str = Field(description="the lines shown, as written")
    first_line: int
    last_line: int
    next_offset: int | None = Field(None, description="the line to read on from, if more")


class PageList(BaseModel):
    total: int
    pages: list[PageCardOut]
    next_offset: int | None = None


class LinkOut(BaseModel):
    path: str = Field(description="the page at the other end")
    line: int = Field(description="the line of the link on the page that has it")
    kind: str = Field(description="related, source, link, image or wikilink")
    anchor: str | None = None
    status: str = "ok"
    target: str = Field("", description="the link as written")


class LinksAnswer(BaseModel):
    path: str
    outgoing: list[LinkOut]
    backlinks: list[LinkOut]
    backlinks_total: int = Field(description="all the backlinks, of which at most 200 are listed")


class ScoredPage(BaseModel):
    path: str
    title: str = ""
    score: float = 0.0
    detail: str = ""


class PagesAnswer(BaseModel):
    """A list of pages with what made each one be listed."""

    what: str
    total: int
    pages: list[ScoredPage]


class CheckAnswer(BaseModel):
    errors: int
    warnings: int
    pages: int = Field(description="the pages the answer is about")
    diagnostics: list[DiagnosticOut]
    added: list[DiagnosticOut] = Field(
        [], description="for a draft: the errors it has that the wiki as written does not"
    )
    truncated: bool = Field(False, description="more diagnostics than listed: give a path")


class WriteAnswer(BaseModel):
    path: str
    digest: str = Field(description="the new content digest (if_match of the next write)")
    created: bool
    diagnostics: list[DiagnosticOut] = Field(description="the page's diagnostics now")


class MoveAnswer(BaseModel):
    source: str
    destination: str
    links_rewritten: int
    pages_changed: list[str]
    problems: list[str]


class CellOut(BaseModel):
    line: int
    status: str
    stdout: str = ""
    stderr: str = ""
    value: str | None = None
    figures: int = 0
    reason: str | None = None
    error: str | None = None
    error_line: int | None = None


class CellsAnswer(BaseModel):
    path: str
    status: str
    cached: bool
    reason: str | None = None
    cells: list[CellOut]
    notices: list[str] = []


class ChangesAnswer(BaseModel):
    since: str
    added: list[str]
    edited: list[str]
    removed: list[str]
    appeared: list[DiagnosticOut] = Field(description="diagnostics that are new since then")
    went: list[DiagnosticOut] = Field(description="diagnostics that were there then, not now")


class SourceAnswer(BaseModel):
    path: str
    title: str
    frontmatter: dict[str, Any]
    cited_by: list[str]
    date: str | None = Field(None, description="when the source was ingested, if the wiki says")
