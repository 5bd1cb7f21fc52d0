"""``kbtool lsp`` end to end: a real client (pygls's) talks to the server over stdio.

Not pytest-lsp: its 1.0.1 plugin breaks every pytest item that is not a function (a wiki
page's cell, here) by returning from a hook wrapper without yielding.
"""

from __future__ import annotations

import asyncio
import os
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.lsp.client import LanguageClient
from pygls.uris import from_fs_path, to_fs_path

from kbtool.checks import run_checks
from kbtool.config import load_config
from kbtool.lsp.text import Lines, chars
from kbtool.stages.load import load_wiki

pytestmark = pytest.mark.asyncio(loop_scope="function")

HEAD = "---\ntype: concept\nsummary: {summary}\nupdated: 2020-01-01\n---\n"


def _page(title: str, body: str = "", summary: str = "一句话摘要") -> str:
    return HEAD.format(summary=summary) + f"# {title}\n\n{body}"


def _write(root: Path, files: dict[str, str | bytes]) -> Path:
    for rel, content in files.items():
        path = root / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return root


#: a target with many backlinks, and a page with a Chinese heading to link into
BACKLINKS = 40


def _wiki(root: Path) -> Path:
    files: dict[str, str | bytes] = {
        # orphans and uncited sources are not what these tests are about
        "pyproject.toml": '[tool.kbtool]\nwiki = "wiki"\nignore = ["KB301", "KB303"]\n',
        "wiki/concepts/注意力.md": _page(
            "注意力机制", "## 缩放点积注意力（Scaled Dot-Product）\n\n正文。\n\n## 多头\n"
        ),
        "wiki/concepts/target.md": _page("目标页", "[注意力](注意力.md#多头)\n"),
        "wiki/start.md": _page("起点", "见 [目标](concepts/target.md)。\n"),
        "sources/s.md": "# 来源\n\n[回到目标](../wiki/concepts/target.md)\n",
    }
    for i in range(BACKLINKS):
        files[f"wiki/notes/n{i:02d}.md"] = _page(
            f"笔记 {i}", "[目标页](../concepts/target.md) and [[target]]\n"
        )
    return _write(root, files)


@pytest_asyncio.fixture
async def wiki_root(tmp_path: Path) -> Path:
    return _wiki(tmp_path / "repo")


class Client(LanguageClient):
    """A client that keeps the diagnostics published for each URI, and wakes a waiter."""

    def __init__(self) -> None:
        super().__init__("kbtool-tests", "1")
        self.diagnostics: dict[str, list[types.Diagnostic]] = {}
        self.published = asyncio.Event()

        #: the version of the text each URI's diagnostics were published for
        self.versions: dict[str, int | None] = {}

        @self.feature(types.TEXT_DOCUMENT_PUBLISH_DIAGNOSTICS)
        def _(params: types.PublishDiagnosticsParams) -> None:
            self.diagnostics[params.uri] = list(params.diagnostics)
            self.versions[params.uri] = params.version
            self.published.set()

    async def wait_for_diagnostics(self) -> None:
        self.published.clear()
        await asyncio.wait_for(self.published.wait(), 20)


@pytest_asyncio.fixture
async def client(wiki_root: Path):
    lsp = Client()
    await lsp.start_io(sys.executable, "-m", "kbtool", "lsp")
    await lsp.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=from_fs_path(str(wiki_root)),
            workspace_folders=[
                types.WorkspaceFolder(uri=from_fs_path(str(wiki_root)) or "", name="repo")
            ],
        )
    )
    lsp.initialized(types.InitializedParams())
    yield lsp
    await lsp.shutdown_async(None)
    lsp.exit(None)
    await lsp.stop()


def uri(root: Path, path: str) -> str:
    return from_fs_path(str(root / path)) or ""


async def _diagnostics(lsp: Client, page_uri: str, want) -> list[types.Diagnostic]:
    """Wait until the diagnostics published for ``page_uri`` satisfy ``want``."""
    for _ in range(100):
        found = lsp.diagnostics.get(page_uri)
        if found is not None and want(found):
            return found
        try:
            await lsp.wait_for_diagnostics()
        except TimeoutError:
            break
    raise AssertionError(f"no such diagnostics for {page_uri}: {lsp.diagnostics.get(page_uri)}")


def _open(lsp: Client, page_uri: str, text: str, version: int = 1) -> None:
    lsp.text_document_did_open(
        types.DidOpenTextDocumentParams(
            text_document=types.TextDocumentItem(
                uri=page_uri, language_id="markdown", version=version, text=text
            )
        )
    )


def _type(lsp: Client, page_uri: str, text: str, version: int) -> None:
    lsp.text_document_did_change(
        types.DidChangeTextDocumentParams(
            text_document=types.VersionedTextDocumentIdentifier(uri=page_uri, version=version),
            content_changes=[types.TextDocumentContentChangeWholeDocument(text=text)],
        )
    )


def _position(text: str, marker: str) -> types.Position:
    """Where ``marker`` ends in ``text``, as the protocol counts (UTF-16)."""
    at = text.index(marker) + len(marker)
    line = text[:at].count("\n")
    col = at - (text.rfind("\n", 0, at) + 1)
    line_text = text.split("\n")[line]
    return types.Position(line, len(line_text[:col].encode("utf-16-le")) // 2)


async def test_a_broken_link_typed_is_reported_at_its_range(client: Client, wiki_root):
    path = "wiki/start.md"
    text = (wiki_root / path).read_text()
    _open(client, uri(wiki_root, path), text)
    await _diagnostics(client, uri(wiki_root, path), lambda found: not found)
    typed = text + "再见 [缺失](concepts/缺失.md)\n"
    _type(client, uri(wiki_root, path), typed, 2)
    found = await _diagnostics(client, uri(wiki_root, path), lambda found: len(found) == 1)
    (diagnostic,) = found
    assert client.versions[uri(wiki_root, path)] == 2  # the text they were found in
    assert diagnostic.code == "KB207" and diagnostic.severity == types.DiagnosticSeverity.Error
    start = _position(typed, "再见 [缺失](")
    assert diagnostic.range.start == start
    assert diagnostic.range.end.character == start.character + len("concepts/缺失.md")
    # Unsaved: the file is unchanged, and fixing the text clears the diagnostic.
    assert (wiki_root / path).read_text() == text
    _type(client, uri(wiki_root, path), text, 3)
    await _diagnostics(client, uri(wiki_root, path), lambda found: not found)
    assert client.versions[uri(wiki_root, path)] == 3


async def test_completion_of_a_chinese_anchor_and_of_pages(client: Client, wiki_root):
    path = "wiki/start.md"
    text = (wiki_root / path).read_text() + "看 [点积](concepts/注意力.md#"
    _open(client, uri(wiki_root, path), text)
    await _diagnostics(client, uri(wiki_root, path), lambda found: True)
    answer = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(wiki_root, path)),
            position=_position(text, "注意力.md#"),
        )
    )
    assert isinstance(answer, types.CompletionList)
    labels = [item.label for item in answer.items]
    assert labels == ["注意力机制", "缩放点积注意力scaled-dot-product", "多头"]
    text2 = text.rsplit("\n", 1)[0] + "\n看 [x](concepts/注"
    _type(client, uri(wiki_root, path), text2, 2)
    answer = await client.text_document_completion_async(
        types.CompletionParams(
            text_document=types.TextDocumentIdentifier(uri=uri(wiki_root, path)),
            position=_position(text2, "(concepts/注"),
        )
    )
    assert isinstance(answer, types.CompletionList)
    (item,) = answer.items
    assert item.label == "注意力机制" and item.text_edit is not None
    assert item.text_edit.new_text == "concepts/注意力.md"  # relative to this page
    # The page's summary is read when the editor shows the item, not for every page listed.
    assert item.documentation is None
    shown = await client.completion_item_resolve_async(item)
    assert shown.documentation == "一句话摘要"


def _apply(text: str, edits: list[types.TextEdit]) -> str:
    lines = Lines.of(text).lines
    endings = text.split("\n")
    assert len(endings) == len(lines)
    for edit in sorted(
        edits, key=lambda e: (e.range.start.line, e.range.start.character), reverse=True
    ):
        assert edit.range.start.line == edit.range.end.line
        number = edit.range.start.line
        line = lines[number]
        start = chars(line, edit.range.start.character)
        end = chars(line, edit.range.end.character)
        lines[number] = line[:start] + edit.new_text + line[end:]
    return "\n".join(lines)


def _apply_workspace_edit(root: Path, edit: types.WorkspaceEdit) -> set[str]:
    changed = set()
    for page_uri, edits in (edit.changes or {}).items():
        path = Path(to_fs_path(page_uri) or "")
        path.write_text(_apply(path.read_text(), edits))
        changed.add(path.relative_to(root).as_posix())
    return changed


async def test_renaming_a_page_with_many_backlinks(client: Client, wiki_root):
    assert run_checks(load_wiki(load_config(wiki_root), jobs=1, use_store=False)) == []
    old, new = "wiki/concepts/target.md", "wiki/moved/新目标.md"
    edit = await client.workspace_will_rename_files_async(
        types.RenameFilesParams(
            files=[types.FileRename(old_uri=uri(wiki_root, old), new_uri=uri(wiki_root, new))]
        )
    )
    assert edit is not None
    changed = _apply_workspace_edit(wiki_root, edit)
    assert changed == {f"wiki/notes/n{i:02d}.md" for i in range(BACKLINKS)} | {
        "wiki/start.md",
        "sources/s.md",
        old,  # its own relative link now climbs from another folder
    }
    (wiki_root / new).parent.mkdir(parents=True)
    (wiki_root / old).rename(wiki_root / new)
    assert "[[新目标]]" in (wiki_root / "wiki/notes/n07.md").read_text()
    assert run_checks(load_wiki(load_config(wiki_root), jobs=1, use_store=False)) == []


async def test_renaming_a_heading_rewrites_its_anchors(client: Client, wiki_root):
    path = "wiki/concepts/注意力.md"
    text = (wiki_root / path).read_text()
    _open(client, uri(wiki_root, path), text)
    await _diagnostics(client, uri(wiki_root, path), lambda found: True)
    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=types.TextDocumentIdentifier(uri=uri(wiki_root, path)),
            position=_position(text, "## 多"),
            new_name="多头注意力",
        )
    )
    assert edit is not None
    changed = _apply_workspace_edit(wiki_root, edit)
    assert changed == {path, "wiki/concepts/target.md"}
    assert "## 多头注意力\n" in (wiki_root / path).read_text()
    assert "(注意力.md#多头注意力)" in (wiki_root / "wiki/concepts/target.md").read_text()
    assert run_checks(load_wiki(load_config(wiki_root), jobs=1, use_store=False)) == []


async def test_definition_hover_references_and_symbols(client: Client, wiki_root):
    path = "wiki/concepts/target.md"
    text = (wiki_root / path).read_text()
    doc = types.TextDocumentIdentifier(uri=uri(wiki_root, path))
    _open(client, doc.uri, text)
    await _diagnostics(client, doc.uri, lambda found: True)
    at = _position(text, "(注意")
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc, position=at)
    )
    assert isinstance(found, types.Location)
    assert found.uri == uri(wiki_root, "wiki/concepts/注意力.md")
    assert found.range.start.line == HEAD.count("\n") + 6  # the heading `## 多头`
    shown = await client.text_document_hover_async(
        types.HoverParams(text_document=doc, position=at)
    )
    assert shown is not None and isinstance(shown.contents, types.MarkupContent)
    assert "注意力机制" in shown.contents.value and "一句话摘要" in shown.contents.value
    refs = await client.text_document_references_async(
        types.ReferenceParams(
            text_document=doc,
            position=types.Position(0, 0),
            context=types.ReferenceContext(include_declaration=False),
        )
    )
    assert refs is not None
    # every note links twice (a body link and a wikilink), plus the start page and the source
    assert len(refs) == 2 * BACKLINKS + 2
    symbols = await client.text_document_document_symbol_async(
        types.DocumentSymbolParams(
            text_document=types.TextDocumentIdentifier(
                uri=uri(wiki_root, "wiki/concepts/注意力.md")
            )
        )
    )
    assert [s.name for s in symbols] == ["注意力机制"]  # type: ignore[union-attr]
    assert [c.name for c in symbols[0].children] == ["缩放点积注意力（Scaled Dot-Product）", "多头"]  # type: ignore[union-attr, index]
    pages = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="注意力"))
    assert [p.name for p in pages] == ["注意力机制"]  # type: ignore[union-attr]


async def test_did_you_mean_and_fix_code_actions(client: Client, wiki_root):
    path = "wiki/start.md"
    text = (
        wiki_root / path
    ).read_text() + "[坏](concepts/targte.md) [锚](concepts/注意力.md#多投)\n"
    text = text.replace("updated: 2020-01-01\n", "updated: 2020-01-01\ntags: 机器人\n")
    doc = types.TextDocumentIdentifier(uri=uri(wiki_root, path))
    _open(client, doc.uri, text)
    found = await _diagnostics(client, doc.uri, lambda found: len(found) >= 2)
    titles = []
    for diagnostic in found:
        actions = await client.text_document_code_action_async(
            types.CodeActionParams(
                text_document=doc,
                range=diagnostic.range,
                context=types.CodeActionContext(diagnostics=[diagnostic]),
            )
        )
        titles += [a.title for a in actions or [] if isinstance(a, types.CodeAction)]
    assert "Change to 'concepts/target.md'" in titles
    assert any(t.startswith("kbtool fix: ") and "'tags' written as a list" in t for t in titles)


async def test_bad_input_never_crashes_the_server(client: Client, wiki_root):
    bad = "wiki/bad.md"
    text = "---\ntitle: [unclosed\n---\n# 坏\n"
    _open(client, uri(wiki_root, bad), text)
    found = await _diagnostics(client, uri(wiki_root, bad), lambda found: len(found) > 0)
    assert "KB103" in {d.code for d in found}
    # A binary file and a symbolic link loop on disk, then a save makes the server read them.
    (wiki_root / "wiki/binary.md").write_bytes(b"\x00\x01\x02PNG")
    os.symlink("loop", wiki_root / "wiki/loop")
    os.symlink("../wiki/loop", wiki_root / "wiki/loop2")
    client.text_document_did_save(
        types.DidSaveTextDocumentParams(
            text_document=types.TextDocumentIdentifier(uri=uri(wiki_root, bad))
        )
    )
    found = await _diagnostics(
        client, uri(wiki_root, "wiki/binary.md"), lambda found: len(found) > 0
    )
    assert {d.code for d in found} == {"KB002"}
    # Edits for a file never opened, and for one outside the wiki: ignored, or an error answer.
    _type(client, uri(wiki_root, "wiki/never-opened.md"), "# x\n", 5)
    _type(client, from_fs_path("/nonexistent/elsewhere.md") or "", "# x\n", 5)
    with pytest.raises(Exception):  # noqa: B017 - any error answer will do
        await client.text_document_completion_async(
            types.CompletionParams(
                text_document=types.TextDocumentIdentifier(
                    uri=from_fs_path("/nonexistent/x.md") or ""
                ),
                position=types.Position(0, 0),
            )
        )
    # ...and the server still answers.
    pages = await client.workspace_symbol_async(types.WorkspaceSymbolParams(query="起点"))
    assert [p.name for p in pages] == ["起点"]  # type: ignore[union-attr]


async def test_every_page_gets_its_diagnostics_at_start_in_batches(tmp_path: Path) -> None:
    """More pages with findings than one batch of the server's: each gets its own, with the
    range its page gives (the extent of the link target), the first before the last."""
    count = 130
    files: dict[str, str | bytes] = {
        "pyproject.toml": '[tool.kbtool]\nwiki = "wiki"\nignore = ["KB301", "KB303"]\n'
    }
    for i in range(count):
        files[f"wiki/p{i:03d}.md"] = _page(f"页 {i}", f"见 [缺](gone-{i}.md)。\n")
    root = _write(tmp_path / "repo", files)
    lsp = Client()
    await lsp.start_io(sys.executable, "-m", "kbtool", "-C", str(root), "lsp")
    await lsp.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=uri(root, ""))
    )
    lsp.initialized(types.InitializedParams())
    try:
        last = uri(root, f"wiki/p{count - 1:03d}.md")
        await _diagnostics(lsp, last, lambda found: len(found) == 1)
        for i in range(count):
            (found,) = lsp.diagnostics[uri(root, f"wiki/p{i:03d}.md")]
            assert found.code == "KB207"
            width = found.range.end.character - found.range.start.character
            assert width == len(f"gone-{i}.md"), (i, found.range)
    finally:
        await lsp.shutdown_async(None)
        lsp.exit(None)
        await lsp.stop()
