"""``kbtool mcp``: the wiki as Model Context Protocol tools for agents, on stdio (agents start
it) or streamable HTTP on 127.0.0.1; read-only unless ``--write``."""

from __future__ import annotations

import argparse
import sys
import threading

EPILOG = """\
tools: search, read_page, list_pages, links, neighbourhood, similar_pages, orphans,
wanted_pages, hubs, unlinked_mentions, source, cited_by, uncited_sources, stale_pages,
check (a draft too), changes_since, run_cells; with --write: write_page, edit_section,
move_page (each checked before it lands). Resources: kbtool://page/<path>. Prompts: ingest,
answer, lint. Set-ups for agent clients: docs/agents.md.

example, in an agent's MCP configuration:
  {"command": "kbtool", "args": ["-C", "/path/to/wiki", "mcp", "--write"]}
"""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.formatter_class = argparse.RawDescriptionHelpFormatter
    parser.epilog = EPILOG
    parser.add_argument(
        "--write",
        action="store_true",
        help="offer write_page, edit_section and move_page (else the server only reads)",
    )
    parser.add_argument(
        "--allow-sources",
        action="store_true",
        help="with --write: pages under the sources folder may be written too",
    )
    parser.add_argument(
        "--max-bytes",
        type=int,
        default=None,
        metavar="N",
        help="the largest page a write may make (default 1,000,000 bytes)",
    )
    parser.add_argument(
        "--http",
        type=int,
        default=None,
        metavar="PORT",
        help="serve streamable HTTP on 127.0.0.1:PORT/mcp instead of stdio",
    )
    parser.add_argument(
        "--no-watch",
        action="store_true",
        help="do not watch the folders: edits made meanwhile by others go unseen",
    )


def run(args: argparse.Namespace) -> int:
    try:
        import mcp  # noqa: F401
    except ImportError:
        print("kbtool mcp needs the 'mcp' extra: pip install 'kbtool[mcp]'", file=sys.stderr)
        return 2
    from kbtool.agent.server import make_server, warm_up, watch
    from kbtool.agent.state import MAX_WRITE_BYTES, AgentWiki, Permissions
    from kbtool.commands import load_project_config
    from kbtool.errors import UsageError

    if args.allow_sources and not args.write:
        raise UsageError("--allow-sources needs --write")
    config = load_project_config(args)
    permissions = Permissions(
        write=args.write, sources=args.allow_sources, max_bytes=args.max_bytes or MAX_WRITE_BYTES
    )
    wiki = AgentWiki(config, permissions)
    server, index = make_server(wiki)
    stop = threading.Event()
    if not args.no_watch:
        watch(wiki, stop)
    warm_up(wiki, index)
    try:
        if args.http is not None:
            server.run("streamable-http", host="127.0.0.1", port=args.http)
        else:
            server.run()
    finally:
        stop.set()
        with wiki.lock:
            index.close()
            try:
                wiki.settle()
            finally:
                wiki.close()
    return 0
