"""``kbtool notebook PATH [--to ipynb|md] [--out FILE]``: a page as a notebook, and back.

``kbtool notebook wiki/concepts/transformer.md`` writes ``wiki/concepts/transformer.ipynb``
(with the cells' cached outputs, when the page's result is current);
``kbtool notebook wiki/concepts/transformer.ipynb --to md`` writes the page back.
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from kbtool.commands import load_project_config
from kbtool.config import Config
from kbtool.diagnostics import Diagnostic
from kbtool.errors import UsageError
from kbtool.execute import cached_result
from kbtool.execute.compare import saved_outputs_path
from kbtool.execute.results import PageResult
from kbtool.model import Page, PageKind
from kbtool.notebooks.export import notebook_text, page_to_notebook
from kbtool.notebooks.importing import (
    NotebookProblem,
    has_frontmatter,
    heading_anchors,
    import_notebook,
    load_notebook,
)
from kbtool.parse.page import parse_page


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "path", metavar="PATH", help="a page (.md), or a notebook (.ipynb) with --to md"
    )
    parser.add_argument(
        "--to", choices=("ipynb", "md"), help="target format (default: the other one)"
    )
    parser.add_argument("-o", "--out", metavar="FILE", help="where to write (default: beside PATH)")
    parser.add_argument(
        "--no-outputs", action="store_true", help="leave cached cell outputs out of the notebook"
    )
    parser.add_argument(
        "--type",
        help="importing: the `type` of pages made from notebooks (default: the first type)",
    )
    parser.add_argument(
        "--force", action="store_true", help="importing: overwrite pages that exist"
    )


def run(args: argparse.Namespace) -> int:
    source = Path(args.path)
    if source.is_dir() and args.to in (None, "md"):
        return import_notebooks(args, load_project_config(args), source)
    if not source.is_file():
        raise UsageError(f"{args.path}: no such file")
    target_format = args.to or ("md" if source.suffix == ".ipynb" else "ipynb")
    out = Path(args.out) if args.out else source.with_suffix(f".{target_format}")
    if out.resolve() == source.resolve():
        raise UsageError(f"{args.path}: converting it would overwrite it; give --out")
    try:
        text = source.read_text(encoding="utf-8")
    except UnicodeDecodeError as error:
        raise UsageError(f"{args.path}: not UTF-8 text ({error.reason})") from None
    if target_format == "md":
        return import_notebooks(args, load_project_config(args), source)
    page, result = (None, None) if args.no_outputs else _page_and_result(args, source)
    written = notebook_text(page_to_notebook(text, page, result))
    out.write_text(written, encoding="utf-8")
    print(f"wrote {out}")
    return 0


def _page_and_result(
    args: argparse.Namespace, source: Path
) -> tuple[Page | None, PageResult | None]:
    """The parsed page and its cached result, when the page belongs to the repository."""
    config = load_project_config(args)
    try:
        relative = source.resolve().relative_to(config.root).as_posix()
    except ValueError:
        return None, None
    page = parse_page(relative, source.read_bytes(), _kind(config, relative), flavor=config.flavor)
    return page, cached_result(config, page)


def _kind(config: Config, path: str) -> PageKind:
    return "source" if path.startswith(config.sources.rstrip("/") + "/") else "wiki"


def import_notebooks(args: argparse.Namespace, config: Config, source: Path) -> int:
    page_type = args.type or config.types[0]
    if page_type not in config.types:
        allowed = ", ".join(config.types)
        raise UsageError(f"--type {page_type}: not one of the configured types ({allowed})")
    if source.is_dir():
        notebooks = sorted(
            p for p in source.rglob("*.ipynb") if ".ipynb_checkpoints" not in p.parts
        )
        out_dir = Path(args.out) if args.out else source
        targets = {nb: out_dir / nb.relative_to(source).with_suffix(".md") for nb in notebooks}
    else:
        targets = {source: Path(args.out) if args.out else source.with_suffix(".md")}
    loaded, problems = {}, []
    for notebook_path in targets:
        try:
            text = notebook_path.read_text(encoding="utf-8")
            loaded[notebook_path] = load_notebook(text)
        except UnicodeDecodeError as error:
            problems.append(_problem(notebook_path, NotebookProblem(f"not UTF-8 ({error.reason})")))
        except NotebookProblem as problem:
            problems.append(_problem(notebook_path, problem))
    anchors = {path: heading_anchors(nb) for path, nb in loaded.items()}
    written = 0
    for notebook_path, notebook in loaded.items():
        target = targets[notebook_path]
        folder = notebook_path.parent
        links = {_rel(other, folder): _rel(targets[other], target.parent) for other in loaded}
        by_link = {_rel(other, folder): anchors[other] for other in loaded}
        imported = import_notebook(notebook, page_type, links, anchors=by_link)
        if target.exists() and not args.force and _read(target) != imported.page:
            problems.append(
                Diagnostic(
                    str(target), 1, 1, "KB421", "error", "page exists; not overwritten (--force)"
                )
            )
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(imported.page, encoding="utf-8")
        has_text = any(c["stdout"] or c["value"] or c["displays"] for c in imported.saved)
        if has_text and not has_frontmatter(notebook):
            saved = {"notebook": notebook_path.name, "cells": imported.saved}
            text = json.dumps(saved, ensure_ascii=False, indent=1) + "\n"
            saved_outputs_path(target).write_text(text, encoding="utf-8")
        print(f"wrote {target}")
        written += 1
    for diagnostic in sorted(problems):
        print(diagnostic.format())
    if source.is_dir():
        print(f"{written} notebooks imported, {len(problems)} not")
    return 1 if problems else 0


def _problem(path: Path, problem: NotebookProblem) -> Diagnostic:
    message = f"cannot import {path.name}: {problem.reason}; nothing written"
    return Diagnostic(str(path), problem.line, problem.col, "KB421", "error", message)


def _rel(path: Path, folder: Path) -> str:
    return Path(os.path.relpath(path, folder)).as_posix()


def _read(path: Path) -> str | None:
    try:
        return path.read_text(encoding="utf-8")
    except (OSError, UnicodeDecodeError):
        return None
