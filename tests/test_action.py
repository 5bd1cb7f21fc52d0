"""The composite action at the repository root, run against the bundled wiki.

GitHub itself is not here: `uses:` steps are checked for what they would receive, `run:`
steps are executed (see ``action_support``). The install step runs as users meet it by
default, from a checkout of this repository with Mermaid fetched by npm.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.action_support import load_action, run_action
from tests.dist_support import ROOT, copy_bundled_wiki, copy_checkout, fresh_venv

ACTION = load_action(ROOT / "action.yml")
#: What a checkout needs for `make vendor` and `pip install .` (not the wiki or the tests).
PACKAGE_FILES = (
    "kbtool",
    "pyproject.toml",
    "README.md",
    "Makefile",
    "package.json",
    "package-lock.json",
    ".npmrc",
)


def test_every_expression_names_a_declared_input_or_a_known_context() -> None:
    text = (ROOT / "action.yml").read_text(encoding="utf-8")
    names = set(re.findall(r"\$\{\{\s*([\w.-]+)\s*\}\}", text))
    names |= set(re.findall(r"\b((?:inputs|steps)\.[\w.-]+)", text))
    inputs = {name.removeprefix("inputs.") for name in names if name.startswith("inputs.")}
    assert inputs <= set(ACTION["inputs"])
    assert {name for name in names if name.split(".")[0] not in ("inputs", "steps")} <= {
        "github.action_path",
        "github.sha",
        "runner.os",
    }
    assert ACTION["runs"]["using"] == "composite"


def test_the_cached_folder_is_the_store_kbtool_writes() -> None:
    from kbtool.config import config_from_table

    (cache,) = [
        s for s in ACTION["runs"]["steps"] if s.get("uses", "").startswith("actions/cache@")
    ]
    assert cache["with"]["path"] == "${{ inputs.working-directory }}/" + str(
        config_from_table(ROOT, {}).cache_dir
    )


@pytest.mark.slow
def test_the_action_checks_tests_builds_and_hands_over_the_site(tmp_path: Path) -> None:
    if not shutil.which("npm"):
        pytest.skip("npm is needed to install kbtool from a checkout, as the action does")
    action_path = copy_checkout(tmp_path / "action", *PACKAGE_FILES)
    assert not (action_path / "kbtool/render/vendor").exists()
    bin_dir = fresh_venv(tmp_path / "venv")
    env = {"PATH": f"{bin_dir}:/usr/bin:/bin", "HOME": str(tmp_path), "LANG": "C.UTF-8"}
    workspace = copy_bundled_wiki(tmp_path / "workspace")
    context = {"github.action_path": str(action_path), "github.sha": "0" * 40, "runner.os": "Linux"}

    inputs = {"requirements": "numpy matplotlib", "upload-pages": "true"}
    run = run_action(ACTION, inputs, context, env, workspace)
    assert run.failed is None, run.log
    assert run.ran == [
        "actions/setup-python@v5",
        "Install kbtool",
        "actions/cache@v4",
        "kbtool check",
        "kbtool test",
        "kbtool build",
        "actions/upload-pages-artifact@v3",
    ]
    assert (workspace / run.uses["actions/cache@v4"]["path"] / "store.sqlite").is_file()
    site = workspace / run.uses["actions/upload-pages-artifact@v3"]["path"]
    assert (site / "index.html").is_file()
    assert (site / "assets/vendor/mermaid.min.js").is_file()  # installed from the checkout

    # SARIF on a wiki with a broken link: the log is written and uploaded, then the job fails.
    page = workspace / "wiki/concepts/transformer.md"
    page.write_text(page.read_text(encoding="utf-8") + "\n[gone](missing.md)\n", encoding="utf-8")
    inputs = {"package": "kbtool", "check-format": "sarif", "python-version": ""}
    run = run_action(ACTION, inputs, context, env, workspace)
    assert run.ran == [
        "Install kbtool",
        "actions/cache@v4",
        "kbtool check",
        "github/codeql-action/upload-sarif@v3",
        "Fail on the check's errors",
    ]
    assert run.failed == "Fail on the check's errors"
    assert run.outputs["check"]["status"] == "1"
    sarif = Path(run.uses["github/codeql-action/upload-sarif@v3"]["sarif_file"])
    results = json.loads(sarif.read_text(encoding="utf-8"))["runs"][0]["results"]
    assert any(result["ruleId"] == "KB207" for result in results)
    assert "KB207" in run.log  # the last step says it in the log's own words
