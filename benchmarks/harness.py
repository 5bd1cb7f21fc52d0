"""What the check and build benchmarks share: a synthetic repository, kbtool run as whole
processes (``python -m kbtool``) bounded in time with their peak memory, one-page edits, and
the printed table.

The benchmarks drive kbtool only through its command line, so they measure the same thing
whatever the pipeline underneath looks like. Peak memory is ``ru_maxrss`` from ``wait4``: the
largest single process among kbtool and the workers it waited for, measured by a small
launcher process so that the benchmark's own memory is not counted.
"""

from __future__ import annotations

import contextlib
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

import synth

KIB = 1024
_DIAGNOSTIC = re.compile(r"^\S+:\d+:\d+: KB\d{3} ")


@dataclass
class Run:
    """One kbtool process: wall seconds (``inf`` when stopped at its time limit), CPU
    seconds."""

    seconds: float
    code: int | None
    peak_rss_mb: float
    stdout: str
    stderr: str
    #: CPU seconds (user and system) of the process and of the workers it waited for
    cpu_seconds: float = float("nan")

    @property
    def timed_out(self) -> bool:
        return self.seconds == float("inf")


def kbtool_command(root: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "kbtool", "-C", str(root), *args]


# Started by the benchmark, it starts the measured command and writes that command's wall
# time, exit code and peak memory to the file named by argv[1]. A child forked from a large
# process inherits that process's peak RSS in its own ru_maxrss (Linux keeps the high-water
# mark across exec), so the measured command must be forked from this small one. Its own
# Ctrl-C handler (not SIG_IGN, which exec would pass on) lets SIGINT reach the command alone.
_LAUNCHER = """
import os, signal, subprocess, sys, time
signal.signal(signal.SIGINT, lambda *_: None)
started = time.perf_counter()
child = subprocess.Popen(sys.argv[2:])
_, status, usage = os.wait4(child.pid, 0)
elapsed = time.perf_counter() - started
with open(sys.argv[1], "w") as f:
    cpu = usage.ru_utime + usage.ru_stime  # with the workers it waited for
    f.write(f"{elapsed} {os.waitstatus_to_exitcode(status)} {usage.ru_maxrss} {cpu}")
"""


# kbtool runs as an installed copy does, its compiled modules cached: where the environment
# forbids writing them, every run would compile every module again (0.1-0.2 s each time).
_ENVIRONMENT = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}


class Process:
    """A command in a session of its own, started through the launcher, its output collected
    by threads; stopped, with every worker it started, by signalling the session's group."""

    def __init__(self, command: list[str], on_line: object = None) -> None:
        self.started = time.perf_counter()
        handle, name = tempfile.mkstemp(prefix="kbtool-bench-run-")
        os.close(handle)
        self.result = Path(name)
        self.popen = subprocess.Popen(
            [sys.executable, "-c", _LAUNCHER, name, *command],
            env=_ENVIRONMENT,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
            encoding="utf-8",
            errors="replace",
            start_new_session=True,
        )
        self.out: list[str] = []
        self.err: list[str] = []
        self._readers = [
            threading.Thread(target=self._read, args=(self.popen.stdout, self.out, on_line)),
            threading.Thread(target=self._read, args=(self.popen.stderr, self.err, None)),
        ]
        for reader in self._readers:
            reader.start()

    @staticmethod
    def _read(stream: object, into: list[str], on_line: object) -> None:
        for line in stream:  # type: ignore[attr-defined]
            into.append(line)
            if callable(on_line):
                on_line(line)

    def signal(self, signum: int) -> None:
        with contextlib.suppress(ProcessLookupError):  # already gone
            os.killpg(self.popen.pid, signum)

    def wait(self, timeout: float) -> Run:
        """Wait at most ``timeout`` seconds, then kill the whole process group."""
        timer = threading.Timer(timeout, self.signal, args=(signal.SIGKILL,))
        timer.start()
        self.popen.wait()
        expired = not timer.is_alive()
        timer.cancel()
        self.signal(signal.SIGKILL)  # a worker left behind must not hold the machine
        for reader in self._readers:
            reader.join(timeout=10)
        fields = self.result.read_text(encoding="ascii").split()
        self.result.unlink()
        done = len(fields) == 4 and not expired
        return Run(
            seconds=float(fields[0]) if done else float("inf"),
            code=int(fields[1]) if done else None,
            peak_rss_mb=int(fields[2]) / KIB if done else 0.0,
            stdout="".join(self.out),
            stderr="".join(self.err),
            cpu_seconds=float(fields[3]) if done else float("inf"),
        )


def run_kbtool(root: Path, *args: str, timeout: float, ok: Sequence[int] = (0, 1)) -> Run:
    run = Process(kbtool_command(root, *args)).wait(timeout)
    if not run.timed_out and run.code not in ok:
        tail = "\n".join(run.stderr.splitlines()[-20:])
        raise SystemExit(f"kbtool {' '.join(args)} exited {run.code}:\n{tail}")
    return run


def supports(command: str, option: str) -> bool:
    """Whether ``kbtool COMMAND --help`` lists ``option`` (e.g. ``--timings``)."""
    proc = subprocess.run(
        [sys.executable, "-m", "kbtool", command, "--help"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    return option in proc.stdout


def timings_text(run: Run) -> str:
    """What kbtool printed besides diagnostics, JSON and progress bars: with ``--timings``,
    the seconds of its stages."""
    lines = [line.rsplit("\r", 1)[-1] for line in run.stderr.splitlines()]
    if not run.stdout.lstrip().startswith("{"):
        lines += [line for line in run.stdout.splitlines() if not _DIAGNOSTIC.match(line)]
    return "\n".join("      " + line for line in lines if line.strip())


@dataclass
class Workspace:
    root: Path
    pages: list[Path]
    seconds: float
    edits: int = field(default=0)

    @classmethod
    def create(cls, root: Path, n: int, pyproject: str, vocabulary: str = "real") -> Workspace:
        started = time.perf_counter()
        pages = synth.generate(root, n, vocabulary=vocabulary)
        (root / "pyproject.toml").write_text(pyproject, encoding="utf-8")
        return cls(root, pages, time.perf_counter() - started)

    @property
    def size(self) -> int:
        return sum(p.stat().st_size for p in self.pages)

    def edited_page(self) -> Path:
        """A wiki page in the middle of the wiki, the same one every time."""
        wiki = [p for p in self.pages if p.relative_to(self.root).parts[0] == "wiki"]
        return wiki[len(wiki) // 2]

    def edit(self) -> str:
        """Add a sentence to the body of :meth:`edited_page`; return a word only it contains."""
        self.edits += 1
        marker = f"kbtoolbench{self.edits}x{os.getpid()}"
        with self.edited_page().open("a", encoding="utf-8") as f:
            f.write(f"\n补充说明：一句新的话 {marker}。\n")
        return marker

    def forget(self, cache_dir: str = ".kbtool") -> None:
        """Remove what kbtool remembers, so that the next run is cold."""
        shutil.rmtree(self.root / cache_dir, ignore_errors=True)


def header(title: str, n: int, workspace: Workspace) -> list[str]:
    load = load_average()
    return [
        f"{title}",
        f"command: {shlex.join(['python', *sys.argv])}",
        f"cores: {len(os.sched_getaffinity(0))}; load average at start: {load}",
        f"N = {n:,} pages ({workspace.size / 1e6:.1f} MB), generated in {workspace.seconds:.1f} s",
    ]


@dataclass
class Row:
    step: str
    seconds: float | None
    ratio: str = ""
    target: str = ""
    met: bool | None = None
    note: str = ""


def format_seconds(seconds: float | None, limit: float) -> str:
    if seconds is None:
        return "-"
    if seconds == float("inf"):
        return f">{limit:.0f}"
    return f"{seconds:.2f}"


def table(rows: list[Row], limit: float) -> str:
    lines = [f"  {'step':<46}{'seconds':>9}  {'ratio':<22}{'target':<20}met"]
    for row in rows:
        met = {True: "yes", False: "NO", None: ""}[row.met]
        lines.append(
            f"  {row.step:<46}{format_seconds(row.seconds, limit):>9}  {row.ratio:<22}"
            f"{row.target:<20}{met}"
        )
        if row.note:
            lines.append(f"      {row.note}")
    return "\n".join(lines)


def load_average() -> str:
    return " ".join(Path("/proc/loadavg").read_text(encoding="ascii").split()[:3])


def share(part: float, whole: float, template: str) -> str:
    """``template`` filled with ``part / whole``, or "-" when a step was stopped at its limit."""
    if float("inf") in (part, whole):
        return "-"
    return template.format(part / whole)


def within(part: float, whole: float, most: float) -> bool | None:
    """Whether ``part <= most * whole``; unknown when a step was stopped at its limit."""
    if float("inf") in (part, whole):
        return None if whole == float("inf") else False
    return part <= most * whole


def median(values: list[float]) -> float:
    ordered = sorted(values)
    return ordered[len(ordered) // 2]
