"""The pre-commit hooks, run as a user's repository would run them: ``pre-commit try-repo``.

try-repo clones this repository (with its uncommitted changes) into pre-commit's cache and
pip-installs it into a fresh environment, from the configured package index. That takes a
minute; both hooks run in one invocation so that they share the one environment.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

KBTOOL = Path(__file__).resolve().parent.parent

PAGE = """---
type: concept
summary: "{title}"
updated: 2020-01-01
related: {related}
---
# {title}
"""


def _git(root: Path, *args: str) -> None:
    subprocess.run(["git", *args], cwd=root, check=True, capture_output=True)


def _pip_reaches_an_index(tmp: Path) -> bool:
    probe = [sys.executable, "-m", "pip", "download", "--no-deps", "-q", "-d", str(tmp)]
    try:
        done = subprocess.run([*probe, "setuptools"], capture_output=True, timeout=120)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0


@pytest.fixture
def wiki_repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None or not (KBTOOL / ".git").exists():
        pytest.skip("needs git and kbtool's own git repository")
    if not _pip_reaches_an_index(tmp_path / "probe"):
        pytest.skip("pip cannot reach a package index to install the hook's environment")
    root = tmp_path / "wiki-repo"
    (root / "wiki").mkdir(parents=True)
    (root / "pyproject.toml").write_text('[tool.kbtool]\nwiki = "wiki"\n', encoding="utf-8")
    # a.md: a string `related` (fixable) and a missing page; b.md: the same, not staged.
    for name, other in (("a", "b"), ("b", "a")):
        related = f"{other}.md" if name == "a" else f"[{other}.md, nope-{name}.md]"
        text = PAGE.format(title=name.upper(), related=related)
        if name == "a":
            text += "\n见 [缺失](missing-a.md)。\n"
        (root / "wiki" / f"{name}.md").write_text(text, encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    _git(root, "-c", "user.name=t", "-c", "user.email=t@example.com", "commit", "-qm", "wiki")
    return root


@pytest.mark.timeout(900)
def test_try_repo_runs_both_hooks_on_the_changed_files(wiki_repo: Path, tmp_path: Path) -> None:
    b_before = (wiki_repo / "wiki" / "b.md").read_bytes()
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("PRE_COMMIT", None)
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "try-repo", str(KBTOOL), "--files", "wiki/a.md"],
        cwd=wiki_repo,
        env=env,
        capture_output=True,
        text=True,
        timeout=840,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    # kbtool-check: a.md's problems, at their places; b.md read (a's link to it resolves)
    # but not reported.
    assert "wiki/a.md:9:8: KB207 error link target 'missing-a.md' does not exist" in out
    assert not any(line.startswith("wiki/b.md") for line in out.splitlines())
    assert "nope-b.md" not in out and "KB201" not in out
    assert "1 page checked" in out
    # kbtool-fix: a.md's string `related` became a list; b.md was not touched.
    assert "kbtool fix" in out and "files were modified by this hook" in out
    fixed = (wiki_repo / "wiki" / "a.md").read_text(encoding="utf-8")
    assert "related:\n  - b.md\n" in fixed
    assert (wiki_repo / "wiki" / "b.md").read_bytes() == b_before


def test_the_hooks_file_names_both_hooks() -> None:
    import yaml

    hooks = yaml.safe_load((KBTOOL / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
    by_id = {hook["id"]: hook for hook in hooks}
    assert set(by_id) == {"kbtool-check", "kbtool-fix"}
    for hook in hooks:
        assert hook["language"] == "python" and hook["types"] == ["markdown"]
        assert hook["entry"].startswith("kbtool ") and hook.get("pass_filenames", True)


RULE = """
from kbtool.rules import Finding, rule

@rule("WIKI040", "error", "a page says TODO")
def todo(page):
    return [Finding("TODO left", n, t.index("TODO") + 1) for n, t in page.lines() if "TODO" in t]
"""


def test_the_check_hook_reports_a_project_rule_on_the_changed_files(tmp_path: Path) -> None:
    """The kbtool-check hook as this repository declares it, run by pre-commit itself on this
    environment's kbtool (a local hook: nothing to install), with a rule of the wiki's own."""
    import yaml

    if shutil.which("git") is None:
        pytest.skip("needs git")
    hook = next(
        h
        for h in yaml.safe_load((KBTOOL / ".pre-commit-hooks.yaml").read_text(encoding="utf-8"))
        if h["id"] == "kbtool-check"
    )
    kbtool = Path(sys.executable).with_name("kbtool")
    local = {**hook, "language": "system", "entry": hook["entry"].replace("kbtool", str(kbtool), 1)}
    root = tmp_path / "wiki-repo"
    (root / "wiki").mkdir(parents=True)
    (root / "pyproject.toml").write_text(
        '[tool.kbtool]\nrules = ["wiki_rules.py"]\nignore = ["KB301"]\n', encoding="utf-8"
    )
    (root / "wiki_rules.py").write_text(RULE, encoding="utf-8")
    for name in ("a", "b"):
        text = PAGE.format(title=name.upper(), related="[]") + "\nTODO: 写完\n"
        (root / "wiki" / f"{name}.md").write_text(text, encoding="utf-8")
    config = {"repos": [{"repo": "local", "hooks": [local]}]}
    (root / ".pre-commit-config.yaml").write_text(yaml.safe_dump(config), encoding="utf-8")
    _git(root, "init", "-q")
    _git(root, "add", "-A")
    env = {**os.environ, "PRE_COMMIT_HOME": str(tmp_path / "pre-commit-home")}
    env.pop("PRE_COMMIT", None)
    done = subprocess.run(
        [sys.executable, "-m", "pre_commit", "run", "kbtool-check", "--files", "wiki/a.md"],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    out = done.stdout + done.stderr
    assert done.returncode == 1, out
    assert "wiki/a.md:9:1: WIKI040 error TODO left" in out
    assert "wiki/b.md" not in out
