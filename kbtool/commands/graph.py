"""``kbtool graph``: the link graph as json, graphml or dot, or its statistics."""

from __future__ import annotations

import argparse
import json
from pathlib import Path

from kbtool.commands import add_jobs_argument, load_project_config
from kbtool.report.graph import build_graph, export, format_stats, stats
from kbtool.stages.load import load_wiki


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--format",
        choices=("json", "graphml", "dot"),
        default=None,
        help="graph format (default json); with --stats, json or text (default)",
    )
    parser.add_argument(
        "--stats", action="store_true", help="print statistics instead of the graph"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE instead of stdout")
    add_jobs_argument(parser)


def run(args: argparse.Namespace) -> int:
    config = load_project_config(args)
    graph = build_graph(load_wiki(config, jobs=args.jobs))
    if args.stats:
        data = stats(graph)
        text = (
            json.dumps(data, ensure_ascii=False, indent=2)
            if args.format == "json"
            else format_stats(data)
        )
    else:
        text = export(graph, args.format or "json")
    if args.output:
        Path(args.output).write_text(text if text.endswith("\n") else text + "\n", encoding="utf-8")
    else:
        print(text.removesuffix("\n"))
    return 0
