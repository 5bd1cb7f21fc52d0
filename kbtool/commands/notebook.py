"""``kbtool notebook PATH [--to ipynb|md] [--out FILE]``: a page as a notebook, and back.

``kbtool notebook wiki/concepts/transformer.md`` writes ``wiki/concepts/transformer.ipynb``
(with the cells' cached outputs, when the page's result is current);
``kbtool notebook wiki/concepts/transformer.ipynb --to md`` writes the page back.
"""

from __future__ import annotations

import argparse
from pathlib import Path

from kbtool.commands import load_project_config
from kbtool.commands.notebook_import import import_notebooks
from kbtool.config import Config
from kbtool.errors import UsageError
from kbtool.execute import cached_result
from kbtool.execute.results import PageResult
from kbtool.model import Page, PageKind
from kbtool.notebook import notebook_text, page_to_notebook
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
    page = parse_page(relative, source.read_bytes(), _kind(config, relative))
    return page, cached_result(config, page)


def _kind(config: Config, path: str) -> PageKind:
    return "source" if path.startswith(config.sources.rstrip("/") + "/") else "wiki"
