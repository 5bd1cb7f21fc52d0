"""Rich outputs on the site and in notebooks: HTML cleaned, LaTeX as MathML, images as files."""

from __future__ import annotations

import base64
import json
import shutil
from collections.abc import Callable
from pathlib import Path
from typing import Any

import nbformat
import pytest

from kbtool.render.rich import render_bundle
from tests.execute_support import make_repo

pytest.importorskip("IPython")

NOTEBOOKS = Path(__file__).parent.parent / "fixtures" / "notebooks"
PNG = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(16)).decode()


def shown(bundle: dict[str, str]) -> tuple[str, dict[str, bytes]]:
    images: dict[str, bytes] = {}
    html = render_bundle(bundle, images, lambda name: f"../{name}", "a figure")
    return html, images


def test_html_is_cleaned_and_tables_stay() -> None:
    html, _ = shown(
        {"text/html": '<table onclick="x()"><tr><td>1</td></tr></table><script>1</script>'}
    )
    assert "<table><tbody><tr><td>1</td></tr></tbody></table>" in html
    assert "script" not in html and "onclick" not in html


def test_latex_goes_through_the_mathml_converter() -> None:
    html, _ = shown({"text/latex": "$$\\frac{a}{b}$$", "text/plain": "<Math>"})
    assert "<math" in html and "<mfrac>" in html
    bad, _ = shown({"text/latex": "$\\frac{a$", "text/plain": "<Math>"})
    assert "<math" not in bad and "&lt;Math&gt;" in bad  # unconvertible: its text instead


def test_markdown_is_rendered_and_cleaned() -> None:
    html, _ = shown({"text/markdown": "*hi* <img src=x onerror=alert(1)>"})
    assert "<em>hi</em>" in html and "onerror" not in html


def test_images_become_files_shown_with_img() -> None:
    html, images = shown({"image/png": PNG, "text/plain": "<Dot>"})
    [(name, data)] = images.items()
    assert name.startswith("figures/") and name.endswith(".png")
    assert data.startswith(b"\x89PNG") and f'src="../{name}"' in html
    html, images = shown({"image/svg+xml": "<svg><script>1</script></svg>"})
    [(name, data)] = images.items()
    assert name.endswith(".svg") and b"<svg>" in data and "<script" not in html


def test_text_alone_is_preformatted_and_escaped() -> None:
    assert shown({"text/plain": "<b>"})[0] == '<pre class="cell-value">&lt;b&gt;</pre>'


def imported(tmp_path: Path, run_kbtool: Callable[..., Any], *notebooks: Path) -> Path:
    root = make_repo(tmp_path / "repo", {})
    for notebook in notebooks:
        shutil.copy(notebook, root / "wiki" / notebook.name)
        result = run_kbtool("-C", root, "notebook", root / "wiki" / notebook.name, "--to", "md")
        assert result.code == 0, result.out
    return root


def test_the_site_shows_rich_outputs_and_a_dataframe_as_a_table(
    tmp_path: Path, run_kbtool: Callable[..., Any]
) -> None:
    pytest.importorskip("pandas")
    rich = NOTEBOOKS / "book" / "04-rich-outputs.ipynb"
    root = imported(tmp_path, run_kbtool, rich, NOTEBOOKS / "pandas.ipynb")
    build = run_kbtool("-C", root, "build")
    assert build.code == 0, build.out + build.err
    page = (root / "site" / "wiki" / "04-rich-outputs.html").read_text(encoding="utf-8")
    assert "<th>k</th><td>v</td>" in page and "<script>alert" not in page
    assert "<mfrac>" in page and "<em>emphasis</em>" in page
    pngs = list((root / "site" / "figures").glob("*.png"))
    assert len(pngs) == 1 and pngs[0].read_bytes().startswith(b"\x89PNG")
    assert f"figures/{pngs[0].name}" in page
    frame = (root / "site" / "wiki" / "pandas.html").read_text(encoding="utf-8")
    assert '<table class="dataframe">' in frame and "<th>a</th>" in frame


def test_a_notebook_of_the_page_carries_the_rich_outputs(
    tmp_path: Path, run_kbtool: Callable[..., Any]
) -> None:
    root = imported(tmp_path, run_kbtool, NOTEBOOKS / "book" / "04-rich-outputs.ipynb")
    assert run_kbtool("-C", root, "test").code == 0
    out = tmp_path / "out.ipynb"
    page = root / "wiki" / "04-rich-outputs.md"
    assert run_kbtool("-C", root, "notebook", page, "--out", out).code == 0
    notebook = json.loads(out.read_text(encoding="utf-8"))
    nbformat.validate(nbformat.from_dict(notebook))
    outputs = [
        (o["output_type"], sorted(o.get("data", {})))
        for c in notebook["cells"]
        if c["cell_type"] == "code"
        for o in c["outputs"]
    ]
    assert outputs == [
        ("display_data", ["text/html", "text/plain"]),
        ("display_data", ["text/latex", "text/plain"]),
        ("execute_result", ["text/markdown", "text/plain"]),
        ("display_data", ["image/png", "text/plain"]),
        ("execute_result", ["image/svg+xml", "text/plain"]),
    ]
