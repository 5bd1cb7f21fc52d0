"""Run the steps of `action.yml` as GitHub's runner would, as far as this machine can.

`run:` steps are executed with bash, with their `${{ ... }}` expressions substituted, their
`env:` and `working-directory:`, and a `GITHUB_OUTPUT` file read back into `steps.<id>.outputs`.
`uses:` steps (setup-python, the cache, the uploads) need GitHub: they are recorded with their
evaluated `with:` values, so that a test can check what they would have received. Only the
expressions the action uses are understood (contexts, `''` strings, `==`, `!=`, `&&`); anything
else fails loudly, so the test cannot silently skip a step it did not understand.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

_EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
_COMPARISON = re.compile(r"^(\S+)\s*(==|!=)\s*'([^']*)'$")


@dataclass
class Run:
    """What one run of the action did: step names in order, and the `uses:` steps' inputs."""

    ran: list[str] = field(default_factory=list)
    uses: dict[str, dict[str, str]] = field(default_factory=dict)
    failed: str | None = None
    outputs: dict[str, dict[str, str]] = field(default_factory=dict)
    log: str = ""


def load_action(path: Path) -> dict[str, Any]:
    action: dict[str, Any] = yaml.safe_load(path.read_text(encoding="utf-8"))
    return action


def run_action(
    action: dict[str, Any],
    inputs: dict[str, str],
    context: dict[str, str],
    env: dict[str, str],
    workspace: Path,
) -> Run:
    """Run the action's steps in ``workspace`` until one fails, as the runner does."""
    declared = action["inputs"]
    unknown = set(inputs) - set(declared)
    assert not unknown, f"inputs the action does not declare: {unknown}"
    values = {name: str(spec.get("default", "")) for name, spec in declared.items()} | inputs
    result = Run()
    for number, step in enumerate(action["runs"]["steps"]):
        name = step.get("name") or step.get("uses") or f"step {number}"
        scope = _scope(values, context, result.outputs)
        if "if" in step and not _condition(step["if"], scope):
            continue
        result.ran.append(name)
        if "uses" in step:
            result.uses[step["uses"]] = {
                key: _substitute(str(value), scope) for key, value in step.get("with", {}).items()
            }
            continue
        if not _run_step(step, scope, env, workspace, result):
            result.failed = name
            break
    return result


def _scope(
    inputs: dict[str, str], context: dict[str, str], outputs: dict[str, dict[str, str]]
) -> dict[str, str]:
    scope = {f"inputs.{key}": value for key, value in inputs.items()} | context
    for step_id, values in outputs.items():
        scope |= {f"steps.{step_id}.outputs.{key}": value for key, value in values.items()}
    return scope


def _value(name: str, scope: dict[str, str]) -> str:
    if name.startswith("steps."):
        return scope.get(name, "")  # an output never written is empty, as on GitHub
    assert name in scope, f"expression names {name!r}, which this runner does not know"
    return scope[name]


def _substitute(text: str, scope: dict[str, str]) -> str:
    return _EXPRESSION.sub(lambda match: _value(match.group(1), scope), text)


def _condition(expression: str, scope: dict[str, str]) -> bool:
    results = []
    for part in expression.split("&&"):
        match = _COMPARISON.match(part.strip())
        assert match, f"condition {part.strip()!r} is not understood by this runner"
        left, operator, right = match.groups()
        results.append((_value(left, scope) == right) == (operator == "=="))
    return all(results)


def _run_step(
    step: dict[str, Any], scope: dict[str, str], env: dict[str, str], workspace: Path, into: Run
) -> bool:
    assert step.get("shell") == "bash", "a composite action's run step must name its shell"
    folder = workspace / _substitute(step.get("working-directory", "."), scope)
    output = workspace.parent / f"github-output-{len(into.ran)}"
    output.write_text("", encoding="utf-8")
    step_env = env | {key: _substitute(str(v), scope) for key, v in step.get("env", {}).items()}
    step_env["GITHUB_OUTPUT"] = str(output)
    script = _substitute(step["run"], scope)
    # The runner's own bash invocation for `shell: bash`.
    done = subprocess.run(
        ["/bin/bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", script],
        cwd=folder,
        env=step_env,
        capture_output=True,
        text=True,
        timeout=900,
        check=False,
    )
    into.log += f"--- {step.get('name')}\n{done.stdout}{done.stderr}"
    if "id" in step:
        lines = output.read_text(encoding="utf-8").splitlines()
        into.outputs[step["id"]] = dict(line.split("=", 1) for line in lines if "=" in line)
    return done.returncode == 0
