"""The compiled templates kept between processes."""

from __future__ import annotations

from pathlib import Path

import jinja2
import pytest

from kbtool.render import templates


def _environment(folder: str) -> jinja2.Environment:
    """A new environment like the package's, with its compiled templates kept in ``folder``."""
    environment = templates.environment().overlay(cache_size=0)
    environment.bytecode_cache = templates._CompiledTemplates(folder)
    return environment


def test_a_second_process_loads_the_compiled_template(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = _environment(str(tmp_path)).get_template("page.html")
    assert list(tmp_path.iterdir())
    compiled: list[str] = []
    monkeypatch.setattr(jinja2.Environment, "compile", lambda *args, **kwargs: compiled.append("x"))
    again = _environment(str(tmp_path)).get_template("page.html")
    assert not compiled
    assert again.blocks.keys() == first.blocks.keys() != set()


def test_a_folder_that_cannot_be_written_costs_only_the_compile(tmp_path: Path) -> None:
    missing = tmp_path / "not-made"
    template = _environment(str(missing)).get_template("page.html")
    assert template.blocks
    assert not missing.exists()


def test_the_package_environment_keeps_them_in_a_private_folder() -> None:
    cache = templates.environment().bytecode_cache
    assert isinstance(cache, jinja2.FileSystemBytecodeCache)
    assert cache.directory != str(templates.TEMPLATES_DIR)
