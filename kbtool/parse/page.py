"""One file's bytes -> an immutable :class:`Page`. Never raises on bad content."""

from __future__ import annotations

from markdown_it.token import Token

from kbtool.model import Frontmatter, Link, LinkKind, Page, PageKind, Problem, Span
from kbtool.parse.digest import content_digest
from kbtool.parse.frontmatter import blank_frontmatter, load_frontmatter, split_frontmatter
from kbtool.parse.markdown import parse_body

#: Frontmatter lists whose items are links, and the kind each item gets.
LINK_FIELDS: dict[str, LinkKind] = {"related": "related", "sources": "source"}


def parse_page(
    path: str, data: bytes, kind: PageKind, digest: str | None = None, flavor: str = "gfm"
) -> Page:
    """Parse a file given as bytes. ``path`` is repository-relative, POSIX style; ``flavor``
    the Markdown syntax read (the ``flavor`` setting: "gfm" or "obsidian")."""
    return parse_page_tokens(path, data, kind, digest, flavor)[0]


def parse_page_tokens(
    path: str, data: bytes, kind: PageKind, digest: str | None = None, flavor: str = "gfm"
) -> tuple[Page, list[Token]]:
    """The page and its body's markdown-it tokens (none for a file that cannot be decoded)."""
    digest = digest or content_digest(data)
    stem = path.rsplit("/", 1)[-1].removesuffix(".md")
    text, problem = _decode(data)
    if problem:
        return Page(path, kind, digest, stem, None, problems=(problem,)), []
    text = text.replace("\r\n", "\n").replace("\r", "\n")

    problems: list[Problem] = []
    yaml_text, body_start, split_problems = split_frontmatter(text)
    problems += split_problems
    frontmatter = None
    if yaml_text is not None:
        frontmatter, fm_problems = load_frontmatter(yaml_text, first_line=2)
        problems += fm_problems
    body = parse_body(blank_frontmatter(text, body_start), path, flavor)
    problems += body.problems

    links = _frontmatter_links(path, frontmatter) + body.links
    # Obsidian names a note by its file, whatever its first heading says.
    title = _title(frontmatter, None if flavor == "obsidian" else body.first_h1, stem)
    page = Page(
        path=path,
        kind=kind,
        digest=digest,
        title=title,
        frontmatter=frontmatter,
        headings=tuple(body.headings),
        links=tuple(links),
        cells=tuple(body.cells),
        problems=tuple(problems),
        body_line=body_start + 1,
        slugs=frozenset(h.slug for h in body.headings),
        code_paths=tuple(body.code_paths),
        blocks=tuple(body.blocks),
        embeds=tuple(body.embeds),
        inline_tags=tuple(dict.fromkeys(body.tags)),
    )
    return page, body.tokens


def _decode(data: bytes) -> tuple[str, Problem | None]:
    if b"\x00" in data[:8192]:
        return "", Problem("KB002", "file contains NUL bytes: it is binary, not Markdown")
    try:
        return data.decode("utf-8-sig"), None
    except UnicodeDecodeError as error:
        before = data[: error.start]
        line = before.count(b"\n") + 1
        col = error.start - (before.rfind(b"\n") + 1) + 1
        message = (
            f"file is not valid UTF-8 (byte 0x{data[error.start]:02x} at offset {error.start})"
        )
        return "", Problem("KB001", message, line, col)


def _frontmatter_links(path: str, frontmatter: Frontmatter | None) -> list[Link]:
    if frontmatter is None:
        return []
    links = []
    for key, kind in LINK_FIELDS.items():
        value = frontmatter.data.get(key)
        if isinstance(value, str):
            value = [value]  # Wrong type (reported by a check), but still a link to resolve.
            positions: tuple[tuple[int, int], ...] = ((frontmatter.line_of(key), len(key) + 3),)
        else:
            positions = frontmatter.item_lines.get(key, ())
        if not isinstance(value, list):
            continue
        for item, (line, col) in zip(value, positions, strict=False):
            if isinstance(item, str) and item.strip():
                links.append(Link(item.strip(), kind, Span(path, line, col)))
    return links


def _title(frontmatter: Frontmatter | None, first_h1: str | None, stem: str) -> str:
    title = frontmatter.data.get("title") if frontmatter else None
    if isinstance(title, str) and title.strip():
        return title.strip()
    return first_h1 or stem
