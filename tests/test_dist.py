"""`make dist`'s wheel draws diagrams: installed where there is no npm, its site has Mermaid."""

from __future__ import annotations

import tarfile
import zipfile
from pathlib import Path

import pytest

from tests.dist_support import (
    MERMAID,
    build_dist,
    copy_bundled_wiki,
    fresh_venv,
    isolated_env,
    run,
    wheel_names,
)

pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def dist(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, Path]:
    return build_dist(tmp_path_factory.mktemp("dist"))


def test_sdist_and_wheel_carry_mermaid_and_its_licence(dist: tuple[Path, Path]) -> None:
    sdist, wheel = dist
    names = wheel_names(wheel)
    assert {MERMAID, "kbtool/render/vendor/mermaid.LICENSE.txt", "kbtool/py.typed"} <= names
    assert any(name.startswith("kbtool/render/templates/") for name in names)
    with tarfile.open(sdist) as archive:
        assert f"{sdist.name.removesuffix('.tar.gz')}/{MERMAID}" in archive.getnames()
    metadata = next(name for name in names if name.endswith(".dist-info/METADATA"))
    with zipfile.ZipFile(wheel) as archive:
        assert "License-Expression: MIT" in archive.read(metadata).decode()


def test_installed_wheel_builds_a_site_that_draws_diagrams(
    dist: tuple[Path, Path], tmp_path: Path
) -> None:
    _, wheel = dist
    bin_dir = fresh_venv(tmp_path / "venv")
    env = isolated_env(bin_dir, tmp_path)
    # The cells extra: the bundled wiki's cells import numpy and matplotlib.
    run([str(bin_dir / "python"), "-m", "pip", "install", f"{wheel}[cells]"], tmp_path, env)
    wiki = copy_bundled_wiki(tmp_path / "wiki")

    where = run([str(bin_dir / "python"), "-c", "import kbtool; print(kbtool.__file__)"], wiki, env)
    assert Path(where.stdout.strip()).is_relative_to(tmp_path / "venv")

    done = run([str(bin_dir / "kbtool"), "build"], wiki, env)
    assert "KB510" not in done.stdout + done.stderr  # KB510: diagrams but no Mermaid
    site = wiki / "site"
    library = site / "assets" / "vendor" / "mermaid.min.js"
    assert library.stat().st_size > 1_000_000
    assert "mermaid" in library.read_text(encoding="utf-8")[:100_000]
    # A page with a diagram loads the script that loads the library.
    page = (site / "wiki" / "concepts" / "transformer.html").read_text(encoding="utf-8")
    assert "assets/diagrams.js" in page
    assert "vendor/mermaid.min.js" in (site / "assets" / "diagrams.js").read_text(encoding="utf-8")
