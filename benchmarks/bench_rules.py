"""What a module of five project rules costs a cold `kbtool check`, on a synthetic wiki.

Generates N pages (benchmarks/synth.py, default 7,000), then runs `kbtool check` cold (the
store removed) without rules and with `rules = ["wiki_rules.py"]`: the two rules of
docs/examples/wiki_rules.py and three more (a TODO scan, a missing `##` section, a `related`
page of another type read through the facts view). Prints wall seconds and the CPU seconds of
kbtool and its workers, alternating the two configurations --repeat times; the target
(issue 28) is with ≤ 1.05× without. On a machine shared with other jobs, compare CPU seconds.

    python benchmarks/bench_rules.py [-n 7000] [--repeat 2]
"""

from __future__ import annotations

import argparse
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).parent
EXAMPLES = HERE.parent / "docs" / "examples" / "wiki_rules.py"

MORE = """

@rule("WIKI003", "warning", "a TODO left in a page")
def todo(page: RulePage) -> Iterator[Finding]:
    for number, text in page.lines():
        if "TODO" in text:
            yield Finding("TODO left", number, text.index("TODO") + 1)


@rule("WIKI004", "warning", "a wiki page without a second-level heading")
def sections(page: RulePage) -> list[Finding]:
    if page.kind == "wiki" and not any(h.level == 2 for h in page.headings):
        return [Finding("no ## section", 1)]
    return []


@rule("WIKI005", "warning", "a related page that is a query", "facts")
def related_types(page: RulePage, facts: FactsView) -> list[Finding]:
    related = page.meta.get("related")
    found = []
    for target in related if isinstance(related, list) else []:
        other = facts.linked(target) if isinstance(target, str) else None
        if other is not None and other.type == "query":
            found.append(Finding(f"related to a query page {other.path}", 1))
    return found
"""


def _check(root: Path) -> tuple[float, float]:
    shutil.rmtree(root / ".kbtool", ignore_errors=True)
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    kbtool = [sys.executable, "-m", "kbtool", "-C", str(root), "check", "--format", "json"]
    subprocess.run(kbtool, stdout=subprocess.DEVNULL, check=False)
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime
    return wall, cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("-n", type=int, default=7000)
    parser.add_argument("--repeat", type=int, default=2)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as tmp:
        root = Path(tmp)
        subprocess.run(
            [sys.executable, str(HERE / "synth.py"), str(root), "-n", str(args.n)],
            stdout=subprocess.DEVNULL,
            check=True,
        )
        (root / "wiki_rules.py").write_text(EXAMPLES.read_text() + MORE)
        configs = {
            "without": '[tool.kbtool]\nexecute = "opt-in"\n',
            "with five rules": '[tool.kbtool]\nexecute = "opt-in"\nrules = ["wiki_rules.py"]\n',
        }
        figures: dict[str, list[tuple[float, float]]] = {name: [] for name in configs}
        for _ in range(args.repeat):
            for name, config in configs.items():
                (root / "pyproject.toml").write_text(config)
                figures[name].append(_check(root))
        print(f"{args.n} pages, cold check, best of {args.repeat}")
        for name, runs in figures.items():
            wall, cpu = min(w for w, _ in runs), min(c for _, c in runs)
            print(f"  {name:<16} {wall:7.2f} s wall  {cpu:7.2f} s CPU")
        base, ruled = (min(c for _, c in figures[n]) for n in configs)
        print(f"  ratio (CPU): {ruled / base:.3f} (target <= 1.05)")


if __name__ == "__main__":
    main()
