"""Cells in IPython syntax, display() and rich outputs, in the page process (the ipython extra)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from kbtool.execute.results import PageResult, from_dict, to_dict
from tests.execute_support import line_of, make_repo, run

pytest.importorskip("IPython")

HEAD = "---\ntype: concept\nsummary: s\nupdated: 2026-01-01\n---\n# Page\n\n"


def page(*cells: str) -> str:
    return HEAD + "\n".join(f"```python\n{cell}\n```\n" for cell in cells)


MAGICS = page(
    "%matplotlib inline\nimport numpy as np\nx = np.arange(6)",
    "%timeit -n 1 -r 1 x.sum()",
    "%%time\ntotal = int(x.sum())",
    "!echo shell says $total",
    "files = !echo one two\nfiles",
    "display(x.reshape(2, 3))",
    "total;",
    "%time y = 1\nundefined_name",
)


@pytest.fixture(scope="module")
def magics(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, PageResult]]:
    root = make_repo(tmp_path_factory.mktemp("magics"), {"magics.md": MAGICS})
    return root, run(root)


def test_magics_shell_commands_and_display_run_as_in_jupyter(
    magics: tuple[Path, dict[str, PageResult]],
) -> None:
    _, results = magics
    result = results["wiki/magics.md"]
    cells = result.cells
    assert [c.status for c in cells] == ["passed"] * 7 + ["failed"]
    assert "per loop" in cells[1].stdout
    assert "Wall time" in cells[2].stdout
    assert cells[3].stdout.strip() == "shell says 15"
    assert cells[4].value == "['one two']"
    assert cells[5].displays == ({"text/plain": "array([[0, 1, 2],\n       [3, 4, 5]])"},)
    assert cells[6].value is None  # a trailing `;` shows nothing, as in Jupyter


def test_a_failure_after_a_magic_is_at_its_markdown_line(
    magics: tuple[Path, dict[str, PageResult]],
) -> None:
    root, results = magics
    last = results["wiki/magics.md"].cells[-1]
    line = line_of(root, "magics.md", "undefined_name")
    assert last.code == "KB404" and last.error_line == line
    assert f'File "wiki/magics.md", line {line}, in <module>' in last.error
    assert "NameError: name 'undefined_name' is not defined" in last.error


def test_an_unknown_magic_fails_with_ipythons_message_at_its_line(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"a.md": page("x = 1", "y = 2\n%nosuchmagic 3")})
    cell = run(root)["wiki/a.md"].cells[1]
    assert cell.status == "failed" and cell.code == "KB404"
    assert "Line magic function `%nosuchmagic` not found" in (cell.reason or "")
    assert cell.error_line == line_of(root, "a.md", "%nosuchmagic")


def test_timeit_is_bounded_by_the_cell_timeout(tmp_path: Path) -> None:
    text = HEAD + "```python timeout=1\nimport time\n%timeit time.sleep(0.3)\n```\n"
    root = make_repo(tmp_path, {"a.md": text})
    result = run(root)["wiki/a.md"]
    assert result.code == "KB406" and result.cells[0].status == "failed"


def test_without_ipython_a_magic_is_kb420_at_its_line_naming_the_extra(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    blocker = tmp_path / "no-ipython" / "IPython"
    blocker.mkdir(parents=True)
    (blocker / "__init__.py").write_text("raise ImportError('not installed')\n", encoding="utf-8")
    monkeypatch.setenv("PYTHONPATH", str(blocker.parent))
    pages = {
        "magic.md": page("x = 1", "import numpy\n%timeit x + 1"),
        "display.md": page("display(1)"),
        "plain.md": page("x = 1\nx + 1"),
    }
    # Cells see only the variables the configuration names: PYTHONPATH must be one of them.
    root = make_repo(tmp_path / "repo", pages, **{"cell-env": ["PYTHONPATH"]})
    results = run(root)
    magic = results["wiki/magic.md"].cells[1]
    assert magic.code == "KB420" and magic.error_line == line_of(root, "magic.md", "%timeit")
    assert "kbtool[ipython]" in (magic.reason or "") and "%timeit x + 1" in (magic.reason or "")
    assert results["wiki/display.md"].cells[0].code == "KB420"
    plain = results["wiki/plain.md"]
    assert plain.status == "passed" and plain.cells[0].value == "2"


RICH = page(
    "from IPython.display import HTML, Markdown, Math\n"
    "display(HTML('<b>bold</b><script>alert(1)</script>'))\n"
    "display(Math(r'\\frac{a}{b}'))\n"
    "Markdown('*hi*')",
    "import base64\n"
    "class Dot:\n"
    "    def _repr_png_(self):\n"
    "        return b'\\x89PNG\\r\\n\\x1a\\n' + bytes(8)\n"
    "    def _repr_svg_(self):\n"
    "        return '<svg xmlns=\"http://www.w3.org/2000/svg\"/>'\n"
    "Dot()",
)


def test_rich_outputs_are_mime_bundles_kept_as_plain_data(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"rich.md": RICH})
    result = run(root, use_store=True)["wiki/rich.md"]
    first, second = result.cells
    assert [list(d) for d in first.displays] == [
        ["text/html", "text/plain"],
        ["text/latex", "text/plain"],
    ]
    assert first.value_data == {"text/markdown": "*hi*"}
    assert second.value_data is not None
    assert second.value_data["image/svg+xml"].startswith("<svg")
    assert second.value_data["image/png"].startswith("iVBORw0KGgo")  # base64, as notebooks keep
    assert from_dict(json.loads(json.dumps(to_dict(result)))) == result
    cached = run(root, use_store=True)["wiki/rich.md"]
    assert cached.cached and cached.cells == result.cells


def test_a_50_mb_image_is_capped_by_the_output_limit(tmp_path: Path) -> None:
    big = page(
        "class Big:\n"
        "    def _repr_png_(self):\n"
        "        return b'\\x89PNG' + bytes(50 * 2**20)\n"
        "display(Big())"
    )
    root = make_repo(tmp_path, {"big.md": big})
    result = run(root)["wiki/big.md"]
    cell = result.cells[0]
    assert cell.status == "failed" and cell.code == "KB407"
    assert "exceeds the output limit" in (cell.reason or "")
    assert all("image/png" not in d for d in cell.displays)
    assert len(json.dumps(to_dict(result))) < 64 * 1024


def test_a_dataframe_is_a_table(tmp_path: Path) -> None:
    pytest.importorskip("pandas")
    root = make_repo(
        tmp_path, {"df.md": page("import pandas as pd\npd.DataFrame({'a': [1, 2], 'b': [3, 4]})")}
    )
    cell = run(root)["wiki/df.md"].cells[0]
    assert cell.status == "passed", cell.reason
    assert cell.value_data is not None and "<table" in cell.value_data["text/html"]
    assert cell.value is not None and "a  b" in cell.value


def test_code_timed_by_time_magics_fails_at_its_markdown_line(tmp_path: Path) -> None:
    pages = {
        "cell.md": page("%%time\nx = 1\ny = undefined_one"),
        "line.md": page("x = 1", "%time z = undefined_two"),
    }
    root = make_repo(tmp_path, pages)
    results = run(root)
    for name, text in (("cell.md", "undefined_one"), ("line.md", "undefined_two")):
        cell = [c for c in results[f"wiki/{name}"].cells if c.status == "failed"][0]
        line = line_of(root, name, text)
        assert cell.error_line == line, cell.error
        assert f'File "wiki/{name}", line {line}, in <module>' in (cell.error or "")
