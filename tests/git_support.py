"""A git command for the tests that make a history: fixed dates and names, no user config."""

from __future__ import annotations

import os
import subprocess
from pathlib import Path


def git(root: Path, *args: str, day: str = "2026-03-01") -> None:
    """``git -C root ARGS``, its commits dated ``day`` at noon UTC."""
    stamp = f"{day}T12:00:00+00:00"
    env = {
        **os.environ,
        "GIT_AUTHOR_DATE": stamp,
        "GIT_COMMITTER_DATE": stamp,
        "GIT_AUTHOR_NAME": "t",
        "GIT_AUTHOR_EMAIL": "t@example.org",
        "GIT_COMMITTER_NAME": "t",
        "GIT_COMMITTER_EMAIL": "t@example.org",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_SYSTEM": os.devnull,
    }
    subprocess.run(["git", "-C", str(root), *args], check=True, env=env, capture_output=True)
