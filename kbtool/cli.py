"""``kbtool`` command line: argv -> a command's ``run`` -> exit code.

Each command lives in ``kbtool/commands/<name>.py`` with ``add_arguments(parser)`` and
``run(args) -> int``; this module only wires them together and turns a
:class:`~kbtool.errors.KbtoolError` into its message and exit code.
"""

from __future__ import annotations

import argparse
import importlib
import os
import sys
from collections.abc import Sequence
from typing import NoReturn

from kbtool import __version__, collector, lifecycle
from kbtool.errors import ConfigError, KbtoolError, UsageError

#: name -> (module under kbtool.commands, one-line help)
COMMANDS: dict[str, tuple[str, str]] = {
    "check": ("check", "validate frontmatter, links, anchors and the link graph"),
    "graph": ("graph", "export the link graph (json, graphml, dot) or print its statistics"),
    "build": ("build", "check, run the cells, and publish the static site if both pass"),
    "serve": ("serve", "build, serve the site on 127.0.0.1, rebuild and reload on changes"),
    "test": ("test", "run the pages' python cells (cached) and report per page and cell"),
    "notebook": (
        "notebook",
        "convert a page to a Jupyter notebook (.ipynb) and back, via jupytext",
    ),
    "new": ("new", "create a wiki page with valid frontmatter"),
    "fix": ("fix", "apply safe automatic fixes (list-ify a string `related`, ...)"),
    "init": ("init", "configure kbtool for an existing wiki from what it finds there"),
    "search": ("search", "search the built site's index from the terminal"),
    "mv": ("mv", "move a page or folder and rewrite every link to it and inside it"),
    "related": ("related", "the pages most like a page that it does not link, for `related`"),
    "lsp": ("lsp", "the language server for editors (stdio): diagnostics, completion, rename"),
    "mcp": ("mcp", "the wiki as Model Context Protocol tools for agents, with checked writes"),
}


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # type: ignore[override]
        self.print_usage(sys.stderr)
        raise _UsageExit(f"{self.prog}: error: {message}")


class _UsageExit(Exception):
    pass


def _chosen_command(argv: Sequence[str]) -> str | None:
    """The command named on the command line, found before parsing."""
    tokens = iter(argv)
    for token in tokens:
        if token in ("-C", "--root"):
            next(tokens, None)
        elif not token.startswith("-"):
            return token if token in COMMANDS else None
    return None


def build_parser(chosen: str | None = None) -> argparse.ArgumentParser:
    """The parser; only the chosen command's module is imported (some import heavy libraries)."""
    parser = _Parser(
        prog="kbtool", description="Check, test and publish a Markdown knowledge base."
    )
    parser.add_argument("--version", action="version", version=f"kbtool {__version__}")
    parser.add_argument(
        "-C",
        "--root",
        default=None,
        metavar="DIR",
        help="run as if started in DIR: paths given are relative to it, and the repository is "
        "the nearest folder at or above it with a pyproject.toml (as git -C)",
    )
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name, (module, help_text) in COMMANDS.items():
        command_parser = sub.add_parser(name, help=help_text, description=help_text)
        if name == chosen:
            importlib.import_module(f"kbtool.commands.{module}").add_arguments(command_parser)
    return parser


def run() -> NoReturn:
    """The ``kbtool`` script and ``python -m kbtool``: :func:`main`, then the process ends."""
    lifecycle.exit_at_once(main())


def main(argv: Sequence[str] | None = None) -> int:
    collector.collect_less_often()  # before the command's imports, which make thousands
    argv = sys.argv[1:] if argv is None else list(argv)
    parser = build_parser(_chosen_command(argv))
    try:
        args = parser.parse_args(argv)
    except _UsageExit as error:
        print(error, file=sys.stderr)
        return 2
    if not args.command:
        parser.print_help()
        return 2
    module = importlib.import_module(f"kbtool.commands.{COMMANDS[args.command][0]}")
    published = lifecycle.publications()
    started_in = os.getcwd()
    try:
        if args.root is not None:
            _change_folder(args.root)
            args.root = None  # the repository is now found from here, as from any folder
        with lifecycle.signals_as_interrupts():  # SIGTERM cleans up as Ctrl-C does
            return int(module.run(args))
    except ConfigError as error:
        for problem in error.problems:
            print(f"kbtool: configuration error: {problem}", file=sys.stderr)
        return error.exit_code
    except KbtoolError as error:
        print(f"kbtool: {error}", file=sys.stderr)
        return error.exit_code
    except KeyboardInterrupt as interrupt:
        line = lifecycle.interrupted_line(interrupt, lifecycle.publications() > published)
        print(line, file=sys.stderr)
        return lifecycle.exit_code(interrupt)
    except BrokenPipeError:  # `kbtool graph | head`: the reader left; not an error of ours.
        sys.stdout = open(os.devnull, "w")  # noqa: SIM115 - silences the flush at exit
        return 0
    finally:
        os.chdir(started_in)  # for callers in this process (tests, editors' plugins)


def _change_folder(folder: str) -> None:
    try:
        os.chdir(folder)
    except OSError as error:
        raise UsageError(f"-C {folder}: {error.strerror}") from None
