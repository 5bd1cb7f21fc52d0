"""``kbtool new TYPE NAME``: a new wiki page with valid frontmatter, never over an old one."""

from __future__ import annotations

import argparse
import re
from datetime import date

from kbtool.commands import load_project_config
from kbtool.errors import KbtoolError, UsageError

#: The folder each page type lives in, as in the users' wikis.
FOLDERS = {
    "concept": "concepts",
    "method": "methods",
    "entity": "entities",
    "overview": "overview",
    "query": "queries",
    "task": "tasks",
    "comparison": "comparisons",
}

TEMPLATE = """---
type: {type}
summary: "{summary}"
updated: {today}
tags: []
related: []
sources: []
---
# {title}

> **一句话定义**：{summary}
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("type", help="page type, one of the configured types")
    parser.add_argument("name", help="file name without .md, e.g. multi-head-attention")
    parser.add_argument("--title", help="the page's H1 (default: NAME)")
    parser.add_argument("--summary", default="待补充", help="one-line summary")


def run(args: argparse.Namespace) -> int:
    config = load_project_config(args)
    if args.type not in config.types:
        raise UsageError(
            f"type '{args.type}' is not configured (one of: {', '.join(config.types)})"
        )
    if not re.fullmatch(r"[^/\\\s.][^/\\]*", args.name):
        raise UsageError(f"'{args.name}' is not a plain file name")
    name = args.name.removesuffix(".md")
    path = config.root / config.wiki / FOLDERS.get(args.type, args.type + "s") / f"{name}.md"
    if path.exists():
        raise KbtoolError(f"{path.relative_to(config.root)} already exists; not overwritten")
    path.parent.mkdir(parents=True, exist_ok=True)
    summary = args.summary.replace('"', "'")
    text = TEMPLATE.format(
        type=args.type, summary=summary, today=date.today().isoformat(), title=args.title or name
    )
    with path.open("x", encoding="utf-8") as f:  # "x": fail rather than overwrite a racing write
        f.write(text)
    rel = path.relative_to(config.root).as_posix()
    print(f"created {rel}; link it from a related page's `related` so it is not an orphan")
    return 0
