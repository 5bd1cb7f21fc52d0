"""The environment cells see: the documented few variables, never the rest of the caller's."""

from __future__ import annotations

from kbtool.execute.environment import PINNED_THREADS, page_environment, worker_environment

CALLER = {
    "PATH": "/usr/bin",
    "LANG": "zh_CN.UTF-8",
    "LC_ALL": "C.UTF-8",
    "TZ": "Asia/Shanghai",
    "HOME": "/home/me",
    "TMPDIR": "/scratch",
    "HF_HOME": "/data/hf",
    "GITHUB_TOKEN": "ghp_secret",
    "AWS_SECRET_ACCESS_KEY": "secret",
    "PYTHONPATH": "/home/me/lib",
}


def test_the_worker_gets_what_cells_may_see_and_its_own_folders() -> None:
    env = worker_environment(CALLER, ["HF_HOME"])
    assert "GITHUB_TOKEN" not in env and "AWS_SECRET_ACCESS_KEY" not in env
    assert "PYTHONPATH" not in env
    for name in ("PATH", "LANG", "LC_ALL", "TZ", "HOME", "TMPDIR", "HF_HOME"):
        assert env[name] == CALLER[name]
    assert all(env[name] == "1" for name in PINNED_THREADS)
    assert env["MPLBACKEND"] == "Agg"
    assert "HF_HOME" not in worker_environment(CALLER)


def test_a_page_gets_its_own_home_and_tmpdir() -> None:
    inherited = worker_environment(CALLER, ["HF_HOME"])
    env = page_environment(inherited, ["HF_HOME"], "/tmp/kbtool-page-1", "/repo/wiki/a.md")
    assert env["HOME"] == env["TMPDIR"] == "/tmp/kbtool-page-1"
    assert env["KBTOOL_PAGE"] == "/repo/wiki/a.md"
    assert env["KBTOOL_PAGE_DIR"] == "/repo/wiki"
    assert env["HF_HOME"] == "/data/hf"
    assert set(env) == {
        *("PATH", "LANG", "LC_ALL", "TZ", "HOME", "TMPDIR", "HF_HOME", "MPLBACKEND"),
        *("KBTOOL_PAGE", "KBTOOL_PAGE_DIR", *PINNED_THREADS),
    }


def test_a_worker_started_elsewhere_still_cannot_leak() -> None:
    # Whatever the worker was given, a page keeps only the documented names.
    env = page_environment(CALLER, [], "/tmp/p", "/repo/wiki/a.md")
    assert not {"GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "PYTHONPATH", "HF_HOME"} & set(env)
