"""Helpers for the tests of what users install: the wheel (`make dist`) and the action.

The wheel is built as `make dist` builds it (`python -m build`: the sdist, then the wheel from
the sdist), and installed into a fresh virtual environment with pip's ordinary configuration.
That environment is made without `--system-site-packages`: it must get every dependency from
the wheel's own metadata, so a dependency missing from `pyproject.toml` fails the test instead
of being found among this environment's packages.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
MERMAID = "kbtool/render/vendor/mermaid.min.js"


def copy_checkout(dest: Path, *only: str, vendor: bool = False) -> Path:
    """This repository's tracked files (or those under ``only``) copied to ``dest``, as a clone
    has them; with ``vendor``, also the Mermaid files `make vendor` puts in the package."""
    listed = subprocess.run(
        ["git", "ls-files", "-z", *only], cwd=ROOT, capture_output=True, check=True
    ).stdout.decode()
    names = [name for name in listed.split("\0") if name]
    if vendor:
        names += [str(p.relative_to(ROOT)) for p in (ROOT / MERMAID).parent.iterdir()]
    for name in names:
        (dest / name).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(ROOT / name, dest / name)
    return dest


def build_dist(out: Path) -> tuple[Path, Path]:
    """Build the sdist and the wheel into ``out``, as `make dist` does; return both paths.

    The build runs in a copy of the checkout: setuptools writes its release tree and egg-info
    into the source folder, and two builds of one folder at once (parallel tests) collide."""
    if not (ROOT / MERMAID).is_file():
        pytest.fail(f"{MERMAID} is missing: `make vendor` (npm) must run before the wheel test")
    source = copy_checkout(out / "source", vendor=True)
    run([sys.executable, "-m", "build", "--outdir", str(out), str(source)], cwd=source)
    (sdist,) = out.glob("kbtool-*.tar.gz")
    (wheel,) = out.glob("kbtool-*.whl")
    return sdist, wheel


def wheel_names(wheel: Path) -> set[str]:
    with zipfile.ZipFile(wheel) as archive:
        return set(archive.namelist())


def fresh_venv(where: Path) -> Path:
    """A new virtual environment with nothing but pip; returns its ``bin`` folder."""
    run([sys.executable, "-m", "venv", str(where)], cwd=where.parent)
    return where / "bin"


def isolated_env(bin_dir: Path, home: Path) -> dict[str, str]:
    """An environment whose PATH is the venv's ``bin`` alone: no npm, no node, no make."""
    env = {"PATH": str(bin_dir), "HOME": str(home), "LANG": "C.UTF-8"}
    # pip's own configuration (the index it may use) is kept; nothing else of the caller.
    env |= {key: value for key, value in os.environ.items() if key.startswith("PIP_")}
    assert shutil.which("npm", path=env["PATH"]) is None
    return env


def copy_bundled_wiki(dest: Path) -> Path:
    """The bundled wiki, its sources and its configuration, outside this repository."""
    dest.mkdir(parents=True)
    shutil.copytree(ROOT / "wiki", dest / "wiki")
    shutil.copytree(ROOT / "sources", dest / "sources")
    shutil.copy2(ROOT / "pyproject.toml", dest / "pyproject.toml")
    return dest


def run(
    argv: list[str], cwd: Path, env: dict[str, str] | None = None, timeout: float = 600
) -> subprocess.CompletedProcess[str]:
    """Run ``argv``; on failure, fail the test with its output."""
    done = subprocess.run(
        argv, cwd=cwd, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )
    if done.returncode != 0:
        pytest.fail(
            f"{argv} exited {done.returncode}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        )
    return done
