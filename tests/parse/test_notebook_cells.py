"""One definition of a cell: the python cells kbtool runs are jupytext's code cells."""

from __future__ import annotations

import re
from pathlib import Path

import jupytext
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from jupytext.languages import _JUPYTER_LANGUAGES

from kbtool.parse.page import parse_page
from tests.execute_support import make_repo, run

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
REGIONS = FIXTURES / "notebooks" / "pages" / "regions.md"
# jupytext reads a fence in another Jupyter language as a code cell with that cell magic.
_OTHER_LANGUAGE = re.compile(
    r"^%%({})\s*(\n|$)".format("|".join(map(re.escape, _JUPYTER_LANGUAGES - {"python"})))
)


def _pages() -> list[Path]:
    pages = []
    for folder in (FIXTURES, ROOT / "wiki", ROOT / "sources"):
        for path in sorted(folder.rglob("*.md")):
            try:
                text = path.read_text(encoding="utf-8")
            except (UnicodeDecodeError, OSError):
                continue  # the unreadable-file fixtures: no page, no cells
            if "\0" not in text:
                pages.append(path)
    return pages


def kbtool_cells(path: str, text: str) -> list[str]:
    page = parse_page(path, text.encode("utf-8"), "wiki")
    return [cell.source.rstrip("\n") for cell in page.python_cells]


def jupytext_cells(text: str) -> list[str]:
    """The python code cells of jupytext's reading of ``text``."""
    notebook = jupytext.reads(text, fmt="md")
    code = [cell.source for cell in notebook.cells if cell.cell_type == "code"]
    if notebook.metadata.get("jupytext", {}).get("main_language", "python") != "python":
        # A page whose code is mostly in another language: its python cells carry %%python.
        python = [s.partition("\n")[2] for s in code if s.startswith("%%python\n")]
        return [source.rstrip("\n") for source in python]
    return [source.rstrip("\n") for source in code if not _OTHER_LANGUAGE.match(source)]


PAGES = _pages()


def test_there_are_pages_to_compare() -> None:
    assert len(PAGES) > 40 and any("wiki" in p.parts for p in PAGES)


@pytest.mark.parametrize("path", PAGES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_kbtool_and_jupytext_agree_on_the_code_cells(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    try:
        expected = jupytext_cells(text)
    except Exception as error:  # broken frontmatter: no notebook to compare with
        pytest.skip(f"jupytext cannot read it: {type(error).__name__}")
    assert kbtool_cells(path.name, text) == expected


def test_regions_inactive_cells_and_odd_fences_are_not_cells() -> None:
    text = REGIONS.read_text(encoding="utf-8")
    assert kbtool_cells("regions.md", text) == [
        "x = list(range(10))",
        "assert x[::3] == [0, 3, 6, 9]",
        "assert len(x) == 10",
    ]
    page = parse_page("regions.md", text.encode("utf-8"), "wiki")
    shown = [c for c in page.cells if c.language == "python" and not c.is_python]
    assert len(shown) == 8  # still fenced blocks: the site shows them as code


def test_a_page_with_regions_passes_kbtool_test(tmp_path: Path) -> None:
    root = make_repo(tmp_path, {"regions.md": REGIONS.read_text(encoding="utf-8")})
    result = run(root)["wiki/regions.md"]
    assert result.status == "passed", result.reason
    assert [c.status for c in result.cells] == ["passed"] * 3


_blocks = st.sampled_from(
    [
        "Some prose.",
        "# A heading",
        "```python\nx = 1\n```",
        "``` python\ny = 2\n```",
        '```python tags=["hide-input"]\nz = 3\n```',
        '```python active="py"\nscript_only()\n```',
        '```python active="ipynb,py"\nboth()\n```',
        "```Python\nnot_python()\n```",
        "~~~python\ntilde()\n~~~",
        "- item\n\n  ```python\n  indented()\n  ```",
        "> ```python\n> quoted()\n> ```",
        "```bash\nls\n```",
        "<!-- #region -->",
        "<!-- #endregion -->",
        "<!-- #md -->",
        "<!-- #endmd -->",
        "<!-- a comment -->",
    ]
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_blocks, min_size=1, max_size=10))
def test_generated_pages_agree_with_jupytext(blocks: list[str]) -> None:
    text = "---\ntype: concept\n---\n" + "\n\n".join(blocks) + "\n"
    assert kbtool_cells("a.md", text) == jupytext_cells(text)
