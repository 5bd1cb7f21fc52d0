"""``kbtool lsp``: the language server, on stdin and stdout (editors start it)."""

from __future__ import annotations

import argparse
import sys


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--stdio",
        action="store_true",
        help="talk over stdin and stdout (the default, and only, way)",
    )


def run(args: argparse.Namespace) -> int:
    try:
        import lsprotocol  # noqa: F401
        import pygls  # noqa: F401
    except ImportError:
        print(
            "kbtool lsp needs the 'lsp' extra: pip install 'kbtool[lsp]'",
            file=sys.stderr,
        )
        return 2
    from kbtool.commands import load_project_config
    from kbtool.lsp.server import make_server

    config = load_project_config(args) if args.root else None
    make_server(config).start_io()
    return 0
