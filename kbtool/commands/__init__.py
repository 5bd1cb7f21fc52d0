"""One module per ``kbtool`` command: ``add_arguments(parser)`` and ``run(args) -> int``."""

from __future__ import annotations

import argparse
from pathlib import Path

from kbtool.config import Config, find_root, load_config


def load_project_config(args: argparse.Namespace) -> Config:
    """The configuration of the repository named by ``--root``, or found from the cwd."""
    root = Path(args.root) if args.root else find_root(Path.cwd())
    return load_config(root)


def add_jobs_argument(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "-j",
        "--jobs",
        type=int,
        default=None,
        metavar="N",
        help="worker processes (default: the configured 'jobs', else the number of cores)",
    )
