"""What's new reads git's history once per state of HEAD: a build after an edit that made no
commit runs no ``git log``, and a commit, a checkout or a new branch is seen at once."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

import kbtool.stages.history as history
from kbtool.stages.history import head_state
from tests.stages.test_build import build, page, write


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", "-C", str(root), *args], check=True, capture_output=True)


@pytest.fixture
def logs(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    ran: list[str] = []
    real = history.git_log

    def counting(root, folders):  # type: ignore[no-untyped-def]
        ran.append(str(root))
        return real(root, folders)

    monkeypatch.setattr(history, "git_log", counting)
    return ran


def _checkout(tmp_path: Path) -> Path:
    root = tmp_path / "repo"
    write(root, {"wiki/a.md": page("# A\n\n[B](b.md)\n"), "wiki/b.md": page("# B\n")})
    _git(root, "init", "-q", "-b", "main")
    _git(root, "-c", "user.email=a@b", "-c", "user.name=a", "add", "-A")
    _git(root, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qm", "first")
    return root


def test_git_is_asked_again_only_when_head_moved(tmp_path: Path, logs: list[str]) -> None:
    root = _checkout(tmp_path)
    assert build(root).ok and len(logs) == 1
    (root / "wiki/a.md").write_text(page("# A\n\nEdited, not committed. [B](b.md)\n"))
    assert build(root).ok and len(logs) == 1  # the same HEAD: the stored log
    before = head_state(root)
    _git(root, "-c", "user.email=a@b", "-c", "user.name=a", "commit", "-qam", "second")
    assert head_state(root) != before
    (root / "wiki/b.md").write_text(page("# B\n\nMore.\n"))
    assert build(root).ok and len(logs) == 2  # a commit: read again
    changes = (root / "site" / "changes.html").read_text(encoding="utf-8")
    assert "wiki/a.html" in changes or "a.html" in changes


def test_a_branch_switch_changes_the_fingerprint(tmp_path: Path) -> None:
    root = _checkout(tmp_path)
    first = head_state(root)
    _git(root, "checkout", "-q", "-b", "other")
    assert head_state(root) != first  # HEAD names another ref
    _git(root, "checkout", "-q", "--detach")
    assert head_state(root) not in (first, None)


def test_no_checkout_no_fingerprint(tmp_path: Path) -> None:
    (tmp_path / "plain").mkdir()
    assert head_state(tmp_path / "plain") is None  # (pytest's folders are in no checkout)
