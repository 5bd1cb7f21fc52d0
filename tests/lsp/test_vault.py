"""``kbtool lsp`` in a vault, end to end over stdio: wikilinks completed as Obsidian offers
them (note names in their shortest form, aliases, headings by text, sub-headings, block
ids, attachments after ``![[``), followed to their heading or block, shown on hover, and
rewritten as Obsidian does when a note moves."""

from __future__ import annotations

import contextlib
import io
import shutil
import sys
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.uris import from_fs_path

from kbtool.cli import main
from kbtool.lsp.text import Lines
from kbtool.lsp.vault_complete import LIMIT
from tests.lsp.test_server import Client, _apply_workspace_edit, _diagnostics, _open, _position

pytestmark = pytest.mark.asyncio(loop_scope="function")

FIXTURE = Path(__file__).parents[1] / "fixtures" / "vault-en"
LINKS = "Notes/Links.md"


@pytest_asyncio.fixture
async def vault(tmp_path: Path) -> Path:
    root = Path(shutil.copytree(FIXTURE, tmp_path / "vault"))
    (root / "expected-diagnostics.txt").unlink()
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(["-C", str(root), "init", "--yes"]) == 0
    return root


@pytest_asyncio.fixture
async def client(vault: Path):
    lsp = Client()
    await lsp.start_io(sys.executable, "-m", "kbtool", "-C", str(vault), "lsp")
    await lsp.initialize_async(
        types.InitializeParams(capabilities=types.ClientCapabilities(), root_uri=_uri(vault, ""))
    )
    lsp.initialized(types.InitializedParams())
    yield lsp
    await lsp.shutdown_async(None)
    lsp.exit(None)
    await lsp.stop()


def _uri(root: Path, path: str) -> str:
    return from_fs_path(str(root / path)) or ""


async def _typed(lsp: Client, root: Path, typed: str) -> tuple[str, types.TextDocumentIdentifier]:
    """Links.md open with ``typed`` written on a line of its own at the end."""
    text = (root / LINKS).read_text() + f"\n{typed}"
    doc = types.TextDocumentIdentifier(uri=_uri(root, LINKS))
    _open(lsp, doc.uri, text)
    await _diagnostics(lsp, doc.uri, lambda found: True)
    return text, doc


async def _complete(lsp: Client, root: Path, typed: str) -> list[tuple[str, str]]:
    """(label, text written) of each item offered at the end of ``typed``."""
    text, doc = await _typed(lsp, root, typed)
    answer = await lsp.text_document_completion_async(
        types.CompletionParams(text_document=doc, position=_position(text, f"\n{typed}"))
    )
    assert isinstance(answer, types.CompletionList)
    found = []
    for item in answer.items:
        assert isinstance(item.text_edit, types.TextEdit)
        found.append((item.label, item.text_edit.new_text))
    return found


async def test_note_names_in_their_shortest_form(client: Client, vault: Path) -> None:
    found = await _complete(client, vault, "See [[Pla")
    # Two notes named Plan: each with its path, as Obsidian writes a shared name.
    assert ("Plan", "Projects/Plan") in found and ("Plan", "Archive/2023/Plan") in found
    assert ("Headings", "Headings") in await _complete(client, vault, "See [[Head")
    # An alias: the note's name, then the alias as the link's label.
    assert ("Start page", "Home|Start page") in await _complete(client, vault, "See [[Start")
    everything = await _complete(client, vault, "See [[")
    assert len(everything) <= LIMIT
    notes = [written for _, written in everything if "." not in written.rsplit("/", 1)[-1]]
    assert "Deep note" in notes and "Links" in notes
    assert everything[0][1] in notes  # notes first after [[


async def test_attachments_first_after_an_embed(client: Client, vault: Path) -> None:
    found = await _complete(client, vault, "![[")
    assert found[0][0] in {"diagram.png", "icon.svg", "paper.pdf", "sound.mp3", "Board.canvas"}
    assert ("diagram.png", "diagram.png") in found and ("Tasks.base", "Tasks.base") in found
    assert "kbtool.toml" not in {label for label, _ in found}  # no file Obsidian shows
    assert ("diagram.png", "diagram.png") in await _complete(client, vault, "![[diag")


async def test_headings_sub_headings_and_blocks(client: Client, vault: Path) -> None:
    headings = await _complete(client, vault, "See [[Headings#")
    assert [label for label, _ in headings] == [
        "Headings",
        "Setup first steps",  # as Obsidian writes it: without the colon
        "Install",
        "Usage",
        "Same words, other section",
        "Install",
    ]
    under = await _complete(client, vault, "See [[Headings#Same words, other section#")
    assert under == [("Install", "Install")]
    blocks = await _complete(client, vault, "See ![[Headings#^")
    assert blocks == [("^para-1", "^para-1"), ("^item-2", "^item-2")]
    own = await _complete(client, vault, "See [[#Fil")
    assert ("Files that are not notes", "Files that are not notes") in own


async def _definition(lsp: Client, root: Path, marker: str) -> types.Location:
    text = (root / LINKS).read_text()
    doc = types.TextDocumentIdentifier(uri=_uri(root, LINKS))
    _open(lsp, doc.uri, text)
    await _diagnostics(lsp, doc.uri, lambda found: True)
    found = await lsp.text_document_definition_async(
        types.DefinitionParams(text_document=doc, position=_position(text, marker))
    )
    assert isinstance(found, types.Location)
    return found


@pytest.mark.parametrize(
    ("marker", "landing"),
    [
        ("A block: [[Headings#^", "A paragraph with a block id. ^para-1"),
        ("embedded: ![[Headings#^", "- a list item with one ^item-2"),
        ("A heading by its text: [[Headings#", "## Usage"),
        ("A sub-heading under a heading: [[Headings#Setup", "### Install"),
        ("[[Headings#Same words, other", "### Install"),
        ("as Obsidian writes it without the colon: [[Headings#Setup", "## Setup: first steps"),
    ],
)
async def test_definition_lands_on_the_heading_or_block(
    client: Client, vault: Path, marker: str, landing: str
) -> None:
    found = await _definition(client, vault, marker)
    assert found.uri == _uri(vault, "Notes/Headings.md")
    lines = Lines.of((vault / "Notes/Headings.md").read_text())
    assert lines.get(found.range.start.line + 1) == landing
    if "other" in marker:  # the second Install, under its own section
        assert found.range.start.line + 1 > 10


async def test_hover_shows_the_block(client: Client, vault: Path) -> None:
    text = (vault / LINKS).read_text()
    doc = types.TextDocumentIdentifier(uri=_uri(vault, LINKS))
    _open(client, doc.uri, text)
    await _diagnostics(client, doc.uri, lambda found: True)
    shown = await client.text_document_hover_async(
        types.HoverParams(text_document=doc, position=_position(text, "A block: [[Headings#^"))
    )
    assert shown is not None and isinstance(shown.contents, types.MarkupContent)
    assert "A paragraph with a block id" in shown.contents.value


async def test_a_note_moved_in_the_editor(client: Client, vault: Path) -> None:
    old, new = "Archive/2023/Plan.md", "Notes/Plan.md"
    edit = await client.workspace_will_rename_files_async(
        types.RenameFilesParams(
            files=[types.FileRename(old_uri=_uri(vault, old), new_uri=_uri(vault, new))]
        )
    )
    assert edit is not None
    assert _apply_workspace_edit(vault, edit) == {LINKS}
    text = (vault / LINKS).read_text()
    assert "same: [[Projects/Plan]] opens" in text  # else it would open the moved one
    assert "[[Notes/Plan]]; from the root: [[Notes/Plan]]" in text


async def test_a_heading_renamed_in_the_editor(client: Client, vault: Path) -> None:
    path = "Notes/Headings.md"
    text = (vault / path).read_text()
    doc = types.TextDocumentIdentifier(uri=_uri(vault, path))
    _open(client, doc.uri, text)
    await _diagnostics(client, doc.uri, lambda found: True)
    edit = await client.text_document_rename_async(
        types.RenameParams(
            text_document=doc, position=_position(text, "## Setup"), new_name="Setup: the basics"
        )
    )
    assert edit is not None
    assert _apply_workspace_edit(vault, edit) == {path, LINKS}
    links = (vault / LINKS).read_text()
    assert "[[Headings#Setup the basics]]" in links
    assert "[[Headings#Setup the basics#Install]]" in links
    assert "[setup](Headings.md#Setup%20the%20basics)" in links
    assert "[[Headings#Same words, other section#Install]]" in links  # another section's


async def test_body_links_as_obsidian_writes_them(client: Client, vault: Path) -> None:
    """A body link's path with its spaces encoded; its anchor a heading's text (Obsidian
    does not know GitHub's slugs) or a block id."""
    found = await _complete(client, vault, "See [x](Deep/Nest")
    assert ("Deep note", "Deep/Nested/Deep%20note.md") in found
    anchors = await _complete(client, vault, "See [x](Headings.md#")
    assert ("Setup first steps", "Setup%20first%20steps") in anchors
    assert ("Same words, other section", "Same%20words,%20other%20section") in anchors
    blocks = await _complete(client, vault, "See [x](Headings.md#^p")
    assert blocks == [("^para-1", "^para-1"), ("^item-2", "^item-2")]  # the editor filters


async def test_definition_of_a_link_in_a_table(client: Client, vault: Path) -> None:
    typed = "| a | b |\n|---|---|\n| [[Home]] | [[Headings#^para-1\\|the block]] |\n"
    text, doc = await _typed(client, vault, typed)
    found = await client.text_document_definition_async(
        types.DefinitionParams(text_document=doc, position=_position(text, "| [[Headings#^p"))
    )
    assert isinstance(found, types.Location)
    assert found.uri == _uri(vault, "Notes/Headings.md") and found.range.start.line == 12
