"""Where the pages are: the wiki and sources folders, further wiki folders, the page types."""

from __future__ import annotations

import difflib
import os
from collections import Counter
from pathlib import Path

from kbtool.config import WHOLE, Config
from kbtool.wiki import Status, Wiki

#: Folders that never hold the wiki.
_SKIP = {"node_modules", "site", "build", "dist", "venv", "__pycache__", "tests"}


def main_folders(root: Path, base: Config) -> tuple[str, str, list[str]]:
    """(wiki folder, sources folder, reasons). An Obsidian vault (a ``.obsidian/`` folder) is
    a wiki as a whole; else ``wiki/`` and ``sources/`` when they exist; else the folder that
    holds most of the notes, or the whole folder when no one folder does."""
    if (root / ".obsidian").is_dir():
        return WHOLE, "sources", ['wiki = ".": an Obsidian vault (.obsidian/): all its notes']
    reasons = []
    wiki = "wiki" if (root / "wiki").is_dir() else _folder_of_pages(root, base)
    if wiki is None:
        wiki = "wiki"
    elif wiki == WHOLE:
        reasons.append('wiki = ".": a folder of notes, no one folder holds most of them')
    elif wiki != "wiki":
        reasons.append(f'wiki = "{wiki}": the folder with the most pages with frontmatter')
    return wiki, "sources", reasons


def _folder_of_pages(root: Path, base: Config) -> str | None:
    """The top-level folder holding the most Markdown files that start with frontmatter, if
    it holds most of the Markdown files; the whole folder (``"."``) when there are notes but
    no such folder; None when there are none."""
    counts: Counter[str] = Counter()
    notes = 0
    try:
        entries = sorted(os.scandir(root), key=lambda e: e.name)
    except OSError:
        return None
    notes += sum(1 for e in entries if e.name.endswith(".md") and e.is_file() and _a_note(e.name))
    tops = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
    for top in tops:
        if top.startswith(".") or top in _SKIP or top in (base.cache_dir, "sources"):
            continue
        for folder, _, names in os.walk(root / top):
            for name in names:
                if not name.endswith(".md"):
                    continue
                notes += 1
                if _starts_with_frontmatter(Path(folder) / name):
                    counts[top] += 1
    # A project's own folders (node_modules, a venv, build output) hold Markdown that is no
    # note: the whole of such a folder is never proposed.
    project = any(name in _SKIP for name in tops)
    if not counts:
        return WHOLE if notes and not project else None
    top, most = counts.most_common(1)[0]
    return top if most * 2 > notes or project else WHOLE


def _a_note(name: str) -> bool:
    """Whether a Markdown file at the root is a note rather than the repository's own
    documents (a README or a changelog sits beside any wiki)."""
    stem = name.removesuffix(".md").upper()
    return stem not in {"README", "CHANGELOG", "CONTRIBUTING", "LICENSE", "CODE_OF_CONDUCT"}


def _starts_with_frontmatter(path: Path) -> bool:
    try:
        with path.open("rb") as f:
            return f.read(4).lstrip(b"\xef\xbb\xbf").startswith(b"---")
    except OSError:
        return False


def more_wiki_folders(wiki: Wiki) -> tuple[list[str], list[str]]:
    """Top-level folders that `related` entries point into, whose pages have frontmatter."""
    config = wiki.config
    known = {*config.wiki_folders, config.sources}
    links: Counter[str] = Counter()
    for item in wiki.links:
        target = item.target
        path = target.path or ""
        if (
            item.link.kind == "related"
            and target.status is Status.OK
            and target.page is None
            and path.endswith(".md")
            and "/" in path
        ):
            top = path.split("/", 1)[0]
            if top not in known and not top.startswith("."):
                links[top] += 1
    chosen, reasons = [], []
    for top, n in sorted(links.items(), key=lambda item: (-item[1], item[0])):
        pages = [
            Path(folder) / name
            for folder, _, names in os.walk(config.root / top)  # symlinks not followed
            for name in names
            if name.endswith(".md")
        ]
        with_frontmatter = sum(_starts_with_frontmatter(p) for p in pages)
        if pages and with_frontmatter * 2 > len(pages):
            chosen.append(top)
            reasons.append(
                f"wiki: '{top}' added as a further wiki folder: {n} `related` entries point "
                f"into it, and {with_frontmatter} of its {len(pages)} Markdown files have "
                "frontmatter"
            )
        else:
            reasons.append(
                f"wiki: '{top}' not added although {n} `related` entries point into it: "
                f"only {with_frontmatter} of its {len(pages)} Markdown files have frontmatter"
            )
    return chosen, reasons


def page_types(wiki: Wiki) -> tuple[dict[str, int], dict[str, tuple[int, str]]]:
    """(type -> page count, most used first; likely misspellings -> (count, meant type))."""
    counts = Counter(
        p.meta["type"]
        for p in wiki.wiki_pages
        if isinstance(p.meta.get("type"), str) and p.meta["type"].strip()
    )
    ordered = sorted(counts.items(), key=lambda item: (-item[1], item[0]))
    kept: dict[str, int] = {}
    typos: dict[str, tuple[int, str]] = {}
    for name, n in ordered:
        # A rare type one letter or two from a common one is a typo, a real problem to report.
        common = [t for t, m in kept.items() if m >= 5 * n]
        close = difflib.get_close_matches(name, common, n=1, cutoff=0.8) if n <= 2 else []
        if close:
            typos[name] = (n, close[0])
        else:
            kept[name] = n
    return kept, typos
