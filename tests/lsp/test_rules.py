"""The project's own rules in the editor: their findings as the text is typed, their edits as
quick fixes, and a broken rule as a diagnostic, never a dead server."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest
import pytest_asyncio
from lsprotocol import types
from pygls.uris import from_fs_path

from tests.lsp.test_server import Client, _apply, _diagnostics, _open, _type, uri

pytestmark = pytest.mark.asyncio(loop_scope="function")

HEAD = "---\ntype: concept\nsummary: 一句话摘要\nupdated: 2020-01-01\n---\n"

RULES = """
from kbtool.rules import Edit, Finding, rule

@rule("WIKI030", "warning", "TODO left in a page")
def todo(page):
    for number, text in page.lines():
        at = text.find("TODO")
        if at >= 0:
            yield Finding("TODO left", number, at + 1, Edit(number, at + 1, number, at + 5, "DONE"))

@rule("WIKI031", "warning", "raises on a page that says BOOM")
def boom(page):
    if "BOOM" in page.text:
        raise RuntimeError("boom")
    return []

@rule("WIKI032", "warning", "loops on a page that says LOOP")
def loop(page):
    while "LOOP" in page.text:
        pass
    return []
"""


@pytest_asyncio.fixture
async def client(tmp_path: Path):
    root = tmp_path / "repo"
    (root / "wiki").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.kbtool]\nrules = ["wiki_rules.py"]\nrule-timeout = 0.3\nignore = ["KB301"]\n'
    )
    (root / "wiki_rules.py").write_text(RULES)
    (root / "wiki/a.md").write_text(HEAD + "# A\n\nfine\n")
    lsp = Client()
    await lsp.start_io(sys.executable, "-m", "kbtool", "lsp")
    await lsp.initialize_async(
        types.InitializeParams(
            capabilities=types.ClientCapabilities(),
            root_uri=from_fs_path(str(root)),
            workspace_folders=[types.WorkspaceFolder(uri=from_fs_path(str(root)) or "", name="r")],
        )
    )
    lsp.initialized(types.InitializedParams())
    lsp.root = root  # type: ignore[attr-defined]
    yield lsp
    await lsp.shutdown_async(None)
    lsp.exit(None)
    await lsp.stop()


def _codes(found: list[types.Diagnostic]) -> set[str]:
    return {str(d.code) for d in found}


async def test_a_rule_finding_as_typed_and_its_edit_as_a_quick_fix(client: Client):
    root: Path = client.root  # type: ignore[attr-defined]
    page = uri(root, "wiki/a.md")
    text = HEAD + "# A\n\nfine\n"
    _open(client, page, text)
    await _diagnostics(client, page, lambda found: "WIKI030" not in _codes(found))
    typed = HEAD + "# A\n\n还有 TODO 要写\n"
    _type(client, page, typed, 2)
    found = await _diagnostics(client, page, lambda found: "WIKI030" in _codes(found))
    todo = next(d for d in found if d.code == "WIKI030")
    assert todo.range.start == types.Position(7, 3)  # after "还有 "
    actions = await client.text_document_code_action_async(
        types.CodeActionParams(
            text_document=types.TextDocumentIdentifier(uri=page),
            range=todo.range,
            context=types.CodeActionContext(diagnostics=[todo]),
        )
    )
    fixes = [
        a for a in actions or [] if isinstance(a, types.CodeAction) and a.title == "WIKI030: fix"
    ]
    assert len(fixes) == 1 and fixes[0].edit and fixes[0].edit.changes
    assert _apply(typed, fixes[0].edit.changes[page]) == HEAD + "# A\n\n还有 DONE 要写\n"


async def test_a_rule_that_raises_or_loops_is_a_diagnostic_and_the_server_lives(client: Client):
    root: Path = client.root  # type: ignore[attr-defined]
    page = uri(root, "wiki/a.md")
    _open(client, page, HEAD + "# A\n\nBOOM TODO\n")
    found = await _diagnostics(client, page, lambda found: "KB602" in _codes(found))
    assert "WIKI030" in _codes(found)  # the other rules still ran
    assert any("WIKI031" in d.message and "wiki/a.md" in d.message for d in found)
    _type(client, page, HEAD + "# A\n\nLOOP TODO\n", 2)
    found = await _diagnostics(client, page, lambda found: "KB603" in _codes(found))
    assert "WIKI030" in _codes(found) and "KB602" not in _codes(found)
    _type(client, page, HEAD + "# A\n\nfine again\n", 3)
    found = await _diagnostics(client, page, lambda found: not _codes(found) & {"KB602", "KB603"})
    assert "WIKI030" not in _codes(found)


async def test_a_rule_file_that_cannot_be_loaded_is_reported_on_the_file(client: Client):
    root: Path = client.root  # type: ignore[attr-defined]
    (root / "wiki_rules.py").write_text(RULES + "\n1 / 0\n")
    page = uri(root, "wiki/a.md")
    _open(client, page, HEAD + "# A\n\nTODO\n")
    found = await _diagnostics(client, uri(root, "wiki_rules.py"), lambda found: bool(found))
    assert [d.code for d in found] == ["KB601"] and "ZeroDivisionError" in found[0].message
    assert found[0].range.start.line == RULES.count("\n") + 1  # the line that raised
    page_found = await _diagnostics(client, page, lambda found: True)
    assert "WIKI030" not in _codes(page_found)  # no rule of the file runs
