"""Pages as notebooks: page -> .ipynb -> page gives the same bytes; options and outputs travel."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from kbtool.notebooks.export import notebook_text, notebook_to_page, page_to_notebook, read_notebook
from kbtool.parse.page import parse_page
from tests.execute_support import make_repo, run

WIKI = Path(__file__).resolve().parents[2] / "wiki"
BUNDLED = sorted(p for p in WIKI.rglob("*.md") if "```python" in p.read_text(encoding="utf-8"))


def round_trip(text: str) -> str:
    return notebook_to_page(read_notebook(notebook_text(page_to_notebook(text))))


@pytest.mark.parametrize("path", BUNDLED, ids=lambda p: p.relative_to(WIKI).as_posix())
def test_every_bundled_page_with_cells_survives_the_round_trip(path: Path) -> None:
    data = path.read_bytes()
    assert round_trip(data.decode("utf-8")).encode("utf-8") == data


OPTIONS_PAGE = """\
---
type: concept
summary: 选项
updated: 2026-01-01
---
# Options

```python tags=["raises-exception", "hide-output"] timeout=5
1 / 0
```

```python tags=["skip-execution"]
never()
```

```python
>>> 1 + 1
2
```
"""


def test_cell_options_become_notebook_metadata_and_come_back() -> None:
    notebook = page_to_notebook(OPTIONS_PAGE)
    code = [cell for cell in notebook.cells if cell.cell_type == "code"]
    assert [cell.metadata for cell in code] == [
        {"tags": ["raises-exception", "hide-output"], "timeout": 5},
        {"tags": ["skip-execution"]},
        {},
    ]
    assert notebook.cells[0].cell_type == "raw" and "summary: 选项" in notebook.cells[0].source
    assert notebook.metadata["kernelspec"]["language"] == "python"
    assert round_trip(OPTIONS_PAGE) == OPTIONS_PAGE


_words = (
    st.text(alphabet="abcxyz 中文注意力机制", min_size=1, max_size=30).map(str.strip).filter(bool)
)
_code = st.lists(st.from_regex(r"[a-z]{1,8} = [0-9]{1,4}", fullmatch=True), min_size=1, max_size=4)
_tags = st.lists(
    st.sampled_from(
        ["skip-execution", "raises-exception", "hide-input", "hide-output", "remove-cell"]
    ),
    unique=True,
    max_size=3,
)


@st.composite
def _cell(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    options: dict[str, Any] = {}
    tags = draw(_tags)
    if tags:
        options["tags"] = tags
    if draw(st.booleans()):
        options["timeout"] = draw(st.integers(1, 600))
    info = "".join(f" {k}={json.dumps(v)}" for k, v in options.items())
    return f"```python{info}\n" + "\n".join(draw(_code)) + "\n```", options


@settings(max_examples=40, deadline=None)
@given(
    title=_words,
    blocks=st.lists(st.one_of(_words, _cell()), min_size=1, max_size=6),
)
def test_generated_pages_keep_text_and_options(title: str, blocks: list[Any]) -> None:
    parts = [f"# {title}"] + [b if isinstance(b, str) else b[0] for b in blocks]
    text = "---\ntype: concept\n---\n" + "\n\n".join(parts) + "\n"
    assert round_trip(text) == text
    expected = [b[1] for b in blocks if not isinstance(b, str)]
    notebook = page_to_notebook(text)
    assert [dict(c.metadata) for c in notebook.cells if c.cell_type == "code"] == expected
    assert [
        c.options for c in parse_page("wiki/a.md", text.encode(), "wiki").python_cells
    ] == expected


def test_the_command_writes_the_notebook_beside_the_page_and_back(
    tmp_path: Path, run_kbtool: Callable[..., Any]
) -> None:
    root = make_repo(tmp_path / "repo", {"a.md": OPTIONS_PAGE})
    page = root / "wiki" / "a.md"
    assert run_kbtool("-C", root, "notebook", page).code == 0
    notebook = root / "wiki" / "a.ipynb"
    assert json.loads(notebook.read_text(encoding="utf-8"))["nbformat"] == 4
    page.unlink()
    assert run_kbtool("-C", root, "notebook", notebook, "--to", "md").code == 0
    assert page.read_text(encoding="utf-8") == OPTIONS_PAGE


def test_a_notebook_carries_the_cached_outputs(
    tmp_path: Path, run_kbtool: Callable[..., Any]
) -> None:
    text = OPTIONS_PAGE + "\n```python\nprint('out')\n41 + 1\n```\n"
    root = make_repo(tmp_path / "repo", {"a.md": text})
    run(root, use_store=True)
    out = tmp_path / "a.ipynb"
    assert run_kbtool("-C", root, "notebook", root / "wiki" / "a.md", "--out", out).code == 0
    cells = [
        c for c in json.loads(out.read_text(encoding="utf-8"))["cells"] if c["cell_type"] == "code"
    ]
    kinds = [[o["output_type"] for o in c["outputs"]] for c in cells]
    assert kinds == [["error"], [], [], ["stream", "execute_result"]]
    assert cells[0]["outputs"][0]["ename"] == "ZeroDivisionError"
    assert "".join(cells[3]["outputs"][1]["data"]["text/plain"]) == "42"
    back = tmp_path / "back.md"
    assert run_kbtool("-C", root, "notebook", out, "--to", "md", "--out", back).code == 0
    assert back.read_text(encoding="utf-8") == text


def test_the_command_refuses_to_overwrite_its_input(
    tmp_path: Path, run_kbtool: Callable[..., Any]
) -> None:
    root = make_repo(tmp_path / "repo", {"a.md": OPTIONS_PAGE})
    page = root / "wiki" / "a.md"
    result = run_kbtool("-C", root, "notebook", page, "--to", "md")
    assert result.code == 2 and "overwrite" in result.err
    assert run_kbtool("-C", root, "notebook", root / "wiki" / "missing.md").code == 2
