"""The static files' outputs are read once a process, and again when one of their files
changed."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kbtool.render import diagrams
from kbtool.stages import plan
from kbtool.stages.planned import StaticOutput


def _vendored(outputs: tuple[StaticOutput, ...]) -> dict[str, bytes]:
    return {o.name: o.content for o in outputs if o.name.startswith("assets/vendor/")}


def test_a_changed_vendor_file_is_read_again(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(diagrams, "VENDOR_DIR", tmp_path)
    monkeypatch.setattr(plan, "VENDOR_DIR", tmp_path)
    library = tmp_path / "mermaid.min.js"
    library.write_bytes(b"one")
    first = plan.static_outputs()
    assert _vendored(first) == {"assets/vendor/mermaid.min.js": b"one"}
    assert plan.static_outputs() is first  # nothing changed: nothing read
    library.write_bytes(b"three")
    os.utime(library, ns=(1, 1))
    again = plan.static_outputs()
    assert _vendored(again) == {"assets/vendor/mermaid.min.js": b"three"}
    assert {o.name: o.key for o in again} != {o.name: o.key for o in first}
