"""Frontmatter values read the same way by every stage that shows or searches them."""

from __future__ import annotations

from kbtool.model import Page


def page_type(page: Page) -> str:
    """The page's type: ``source`` for a source page, else its ``type:`` (or ``""``)."""
    if page.kind == "source":
        return "source"
    value = page.meta.get("type")
    return value if isinstance(value, str) else ""


def tags_of(page: Page) -> tuple[str, ...]:
    """The page's tags, in order, each once: its frontmatter's (a single string is one tag,
    and values that are not text or numbers are left out), then those of its text (a
    vault's ``#tags``)."""
    value = page.meta.get("tags")
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        value = []
    seen: dict[str, None] = {}
    for tag in value:
        if isinstance(tag, str | int | float) and not isinstance(tag, bool) and str(tag).strip():
            seen.setdefault(str(tag).strip(), None)
    for tag in page.inline_tags:
        seen.setdefault(tag, None)
    return tuple(seen)


def aliases_of(page: Page) -> tuple[str, ...]:
    """The page's ``aliases``, in order: a list of them, or one as a string (Obsidian reads
    both); values that are not text, empty or hold a NUL are left out."""
    value = page.meta.get("aliases")
    if isinstance(value, str):
        value = [value]
    if not isinstance(value, list):
        return ()
    return tuple(a.strip() for a in value if isinstance(a, str) and a.strip() and "\x00" not in a)
