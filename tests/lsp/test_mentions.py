"""The editor and KB306: an unlinked mention as you type, and the code action that links it."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.uris import from_fs_path

from tests.lsp.test_server import Client, _diagnostics, _open, _page, _write

pytestmark = pytest.mark.asyncio(loop_scope="function")

CONFIG = '[tool.kbtool]\nignore = ["KB301"]\nseverity = { KB306 = "warning" }\n'


@pytest_asyncio.fixture
async def mentions_client(tmp_path: Path):
    root = _write(
        tmp_path / "repo",
        {
            "pyproject.toml": CONFIG,
            "wiki/concepts/attention.md": _page("注意力机制", "定义。\n"),
            "wiki/start.md": _page("起点", "正文。\n"),
        },
    )
    lsp = Client()
    await lsp.start_io(sys.executable, "-m", "kbtool", "lsp")
    folder = from_fs_path(str(root)) or ""
    await lsp.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=folder,
            workspace_folders=[types.WorkspaceFolder(uri=folder, name="repo")],
        )
    )
    lsp.initialized(types.InitializedParams())
    yield lsp, root
    await lsp.shutdown_async(None)
    lsp.exit(None)
    await lsp.stop()


async def test_a_mention_typed_is_reported_and_linked_by_a_code_action(mentions_client) -> None:
    client, root = mentions_client
    doc = types.TextDocumentIdentifier(uri=from_fs_path(str(root / "wiki/start.md")) or "")
    text = (root / "wiki/start.md").read_text(encoding="utf-8") + "𠀀用到注意力机制。\n"
    _open(client, doc.uri, text)
    found = await _diagnostics(client, doc.uri, lambda ds: any(d.code == "KB306" for d in ds))
    (mention,) = [d for d in found if d.code == "KB306"]
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=doc,
            range=mention.range,
            context=types.CodeActionContext(diagnostics=[mention]),
        )
    )
    (link,) = [a for a in actions or [] if isinstance(a, types.CodeAction) and "Link" in a.title]
    assert link.title == "Link to 'concepts/attention.md'"
    assert link.edit is not None and link.edit.changes is not None
    (edit,) = link.edit.changes[doc.uri]
    assert edit.new_text == "[注意力机制](concepts/attention.md)"
    # the character before is outside the BMP: two UTF-16 units
    assert (edit.range.start.character, edit.range.end.character) == (4, 9)
