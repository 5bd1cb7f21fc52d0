"""What isolating each page costs: ``kbtool test`` and ``pytest`` against a fresh interpreter.

Generates a repository of N pages (default 200) with 4 small cells each, half of them using
numpy, then times, in one run:

- each page's cells run in-process, one after the other: the cells' own work;
- each page run as a script in a fresh interpreter (``python page.py``), serially: the cost of
  isolation by a new process per page, which is what a notebook-per-page runner pays;
- ``kbtool test`` cold (no cache) with one job and with two, then again with the cache;
- ``pytest`` with the plugin, serially and with ``-n 2``, cold, then serially with the cache.

Per-page overhead is (wall time - the cells' own work) / N; with two workers, the cells' work
is divided between them. The last line is the worker's own overhead per page (fork, pipes,
scratch folder, cleanup), from the page and cell durations ``kbtool test --format json`` reports.
Then it times containment alone: a forked process (as the worker forks a page process) calls
``sandbox.contain`` for a page without network (environment, Landlock ruleset with its rules,
``restrict_self``), and the same with ``sandbox = "off"`` (environment, patched socket module).
This is a script that prints figures, not a test: ``python benchmarks/bench_test.py [-n 200]``.
Where IPython is installed (the ipython extra) the warm worker preloads it and values are
formatted by it; ``--without-ipython`` hides it from every process, for comparison.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

NUMPY_CELLS = [
    "import numpy as np\n\nvalues = np.arange(64.0)\n",
    "grid = values.reshape(8, 8) @ np.ones(8)\nassert grid.shape == (8,)\n",
    "total = float(grid.sum())\nprint(f'total = {total}')\n",
    "{'mean': float(values.mean()), 'max': float(values.max())}\n",
]
PLAIN_CELLS = [
    "import math\n\nvalues = [i * 0.5 for i in range(64)]\n",
    "squares = [v * v for v in values]\nassert len(squares) == 64\n",
    "total = math.fsum(squares)\nprint(f'total = {total}')\n",
    "{'mean': total / len(squares), 'max': max(squares)}\n",
]
PYPROJECT = """\
[tool.kbtool]
wiki = "wiki"
cell-env = ["PYTHONPATH"]  # so that --without-ipython reaches the cells

[tool.pytest.ini_options]
testpaths = ["wiki"]
"""


def generate(root: Path, count: int) -> list[list[str]]:
    """Write ``count`` pages under ``root/wiki``; return each page's cells."""
    (root / "wiki").mkdir(parents=True)
    (root / "pyproject.toml").write_text(PYPROJECT, encoding="utf-8")
    pages = []
    for number in range(count):
        cells = NUMPY_CELLS if number % 2 == 0 else PLAIN_CELLS
        body = "\n".join(f"Step {i}.\n\n```python\n{code}```\n" for i, code in enumerate(cells, 1))
        meta = f"---\ntype: concept\nsummary: page {number}\nupdated: 2026-01-01\n---\n"
        text = f"{meta}# Page {number}\n\n{body}"
        (root / "wiki" / f"page-{number:04d}.md").write_text(text, encoding="utf-8")
        pages.append(cells)
    return pages


def cells_own_work(pages: list[list[str]]) -> float:
    """Seconds to run every page's cells in this process, modules already imported."""
    import numpy  # noqa: F401 - imported once, as the warm worker does: not the cells' work

    started = time.perf_counter()
    with contextlib.redirect_stdout(io.StringIO()):
        for cells in pages:
            namespace: dict[str, object] = {"__name__": "__main__"}
            for code in cells:
                exec(compile(code, "<cell>", "exec"), namespace)
    return time.perf_counter() - started


def timed(command: list[str], cwd: Path) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(command, cwd=cwd, capture_output=True, text=True, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"failed: {' '.join(command)}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}")
    return seconds, done.stdout


def fresh_interpreters(root: Path, pages: list[list[str]]) -> float:
    scripts = root / "scripts"
    scripts.mkdir()
    paths = []
    for number, cells in enumerate(pages):
        path = scripts / f"page_{number:04d}.py"
        path.write_text("\n".join(cells), encoding="utf-8")
        paths.append(path)
    started = time.perf_counter()
    for path in paths:
        subprocess.run([sys.executable, str(path)], cwd=scripts, capture_output=True, check=True)
    return time.perf_counter() - started


def worker_overhead(report: str) -> list[float]:
    """Per page: the worker's wall time for it minus its cells' own durations, in ms."""
    pages = json.loads(report)["pages"]
    return [1000 * (p["duration"] - sum(c["duration"] for c in p["cells"])) for p in pages]


def containment_cost(mode: str, samples: int = 200) -> list[float]:
    """Milliseconds ``sandbox.contain`` takes in a freshly forked process, one per sample."""
    from kbtool.execute import landlock, sandbox
    from kbtool.execute.environment import replace_environ, worker_environment

    sandbox.system_rules()  # as the warm worker does, once
    landlock.abi_version()
    replace_environ(worker_environment())  # the worker's environment is small
    request = {
        "file": str(Path.cwd() / "wiki" / "page.md"),
        "root": str(Path.cwd()),
        "inputs": [],
        "network": False,
        "sandbox": mode,
        "abi": landlock.abi_version() if mode != "off" else 0,
        "cell_env": [],
    }
    costs = []
    for _ in range(samples):
        workdir = tempfile.mkdtemp(prefix="kbtool-bench-page-")
        read, write = os.pipe()
        pid = os.fork()
        if pid == 0:
            started = time.perf_counter()
            sandbox.contain(request, workdir, namespaced=False)
            os.write(write, str(1000 * (time.perf_counter() - started)).encode())
            os._exit(0)
        os.close(write)
        os.waitpid(pid, 0)
        costs.append(float(os.read(read, 64)))
        os.close(read)
        os.rmdir(workdir)
    return costs


def has_ipython() -> str:
    found = subprocess.run([sys.executable, "-c", "import IPython"], capture_output=True)
    return "preloaded in the warm worker" if found.returncode == 0 else "not installed"


def hide_ipython(folder: Path) -> str:
    """A package named IPython that fails to import, first on every process's path."""
    (folder / "no-ipython" / "IPython").mkdir(parents=True)
    (folder / "no-ipython" / "IPython" / "__init__.py").write_text("raise ImportError\n")
    os.environ["PYTHONPATH"] = str(folder / "no-ipython")
    return "hidden (--without-ipython)"


IPYTHON_COST = """
import gc, os, statistics, time, types
import numpy, matplotlib.pyplot

def median_ms(action, times=300):
    spent = []
    for _ in range(times):
        started = time.perf_counter()
        action()
        spent.append(time.perf_counter() - started)
    return 1000 * statistics.median(spent)

def fork():
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    os.waitpid(pid, 0)

gc.freeze()
before = median_ms(fork, 100)
from kbtool.execute import ipython
ipython.prepare()
gc.collect()
gc.freeze()
after = median_ms(fork, 100)
bind = median_ms(lambda: ipython.bind(types.ModuleType("__main__"), "page.md"))
value = median_ms(lambda: ipython.format_value({"mean": 1.5, "max": 2.0}))
print(f"fork {before:.2f} ms without IPython loaded, {after:.2f} ms with; "
      f"binding the shell to a page {bind:.3f} ms; formatting a value {value:.3f} ms")
"""


def ipython_cost() -> str:
    """IPython's own share of a page, measured apart (the timings above drown it)."""
    done = subprocess.run([sys.executable, "-c", IPYTHON_COST], capture_output=True, text=True)
    return done.stdout.strip() or done.stderr.strip().splitlines()[-1]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("-n", "--pages", type=int, default=200)
    parser.add_argument(
        "--without-ipython", action="store_true", help="run as if IPython were not installed"
    )
    args = parser.parse_args()
    count = args.pages
    kbtool = [sys.executable, "-m", "kbtool", "test", "--format", "json"]
    pytest = [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider"]

    with tempfile.TemporaryDirectory(prefix="kbtool-bench-") as folder:
        ipython = hide_ipython(Path(folder)) if args.without_ipython else has_ipython()
        root = Path(folder) / "repo"
        pages = generate(root, count)
        # Warm the disk cache and matplotlib's font cache, so the first timed run pays neither.
        subprocess.run([sys.executable, "-c", "import numpy, matplotlib.pyplot"], check=True)

        work = cells_own_work(pages)
        rows: list[tuple[str, float, int]] = []
        rows.append(
            ("fresh interpreter per page, serial", fresh_interpreters(Path(folder), pages), 1)
        )
        seconds, _ = timed([*kbtool, "-j", "1", "--no-cache"], root)
        rows.append(("kbtool test -j 1, cold", seconds, 1))
        seconds, report = timed([*kbtool, "-j", "2", "--no-cache"], root)
        rows.append(("kbtool test -j 2, cold", seconds, 2))
        cached, _ = timed(kbtool, root)
        rows.append(("kbtool test, cached", cached, 0))
        rows.append(("pytest, serial, cold", timed([*pytest, "--kbtool-no-cache"], root)[0], 1))
        rows.append(
            ("pytest -n 2, cold", timed([*pytest, "-n", "2", "--kbtool-no-cache"], root)[0], 2)
        )
        rows.append(("pytest, serial, cached", timed(pytest, root)[0], 0))

    print(
        f"{count} pages x 4 cells ({(count + 1) // 2} import numpy); "
        f"Python {sys.version.split()[0]}, {os.cpu_count()} cores, load {os.getloadavg()[0]:.1f}; "
        f"IPython: {ipython}"
    )
    print(f"cells' own work: {work:.3f} s in all, {1000 * work / count:.2f} ms a page\n")
    fresh_overhead = (rows[0][1] - work) / count
    print(f"{'':38} {'wall s':>8} {'overhead/page ms':>17} {'fresh / this':>13}")
    for name, seconds, workers in rows:
        own = work / workers if workers else 0.0
        overhead = max(seconds - own, 0.0) / count
        print(
            f"{name:38} {seconds:8.2f} {1000 * overhead:17.2f} {fresh_overhead / overhead:12.1f}x"
        )
    print(f"\ncached / cold (kbtool test -j 2): {100 * cached / rows[2][1]:.1f}%")
    if not args.without_ipython and ipython.startswith("preloaded"):
        print(f"IPython's part of a page: {ipython_cost()}")
    inside = worker_overhead(report)
    print(
        f"worker overhead a page (fork to result, minus cells), -j 2: "
        f"median {statistics.median(inside):.2f} ms, mean {statistics.mean(inside):.2f} ms, "
        f"95th percentile {sorted(inside)[int(0.95 * len(inside))]:.2f} ms"
    )
    from kbtool.execute import landlock

    medians = {}
    for mode in ("auto", "off"):
        costs = sorted(containment_cost(mode))
        medians[mode] = statistics.median(costs)
        what = f"Landlock ABI {landlock.abi_version()}" if mode == "auto" else "no Landlock"
        print(
            f"containment set-up a page ({what}, sandbox = {mode!r}): "
            f"median {medians[mode]:.3f} ms, "
            f"95th percentile {costs[int(0.95 * len(costs))]:.3f} ms, max {costs[-1]:.3f} ms"
        )
    print(f"Landlock's share (auto - off, medians): {medians['auto'] - medians['off']:.3f} ms")


if __name__ == "__main__":
    main()
