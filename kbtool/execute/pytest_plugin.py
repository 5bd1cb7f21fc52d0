"""pytest plugin (entry point ``pytest11``): a page's python cells as pytest items.

``pytest wiki/`` collects every page that runs, one item per python cell, numbered among the
page's python cells: ``wiki/concepts/transformer.md::cell-3``. The first item of a page runs
the whole page once, through the same runner and cache as ``kbtool test`` (one warm worker per
pytest process); each item then reports its own cell, at its Markdown line. Cells tagged
``skip-execution`` and cells after a failure are skipped, with the reason.

The plugin is active only in a project whose ``pyproject.toml`` has a ``[tool.kbtool]``
table, and collects only pages under that project's configured wiki and sources folders, so
Markdown elsewhere (test fixtures, documentation) never runs by accident. ``-p no:kbtool``
turns it off. Under pytest-xdist's default ``load`` distribution, a page's cells are kept on
one worker, so that a page runs once. Where cells cannot be fully contained (no Landlock), one
pytest warning (KB411) says which protections are off.
"""

from __future__ import annotations

import threading
import tomllib
from pathlib import Path
from typing import Any

import pytest

from kbtool.config import Config, find_root, load_config
from kbtool.diagnostics import Diagnostic
from kbtool.execute import containment
from kbtool.execute.plan import should_run
from kbtool.execute.results import CellResult, PageResult
from kbtool.execute.runner import Runner, run_pages
from kbtool.model import Cell, Page
from kbtool.parse.page import parse_page


class CellFailed(Exception):
    """A cell's failure, carried to ``repr_failure`` (pytest's own traceback would show
    kbtool's code, not the page)."""

    def __init__(self, result: CellResult, reason: str | None, code: str | None) -> None:
        super().__init__(reason)
        self.result = result
        self.reason = reason
        self.code = code


class _Project:
    """The kbtool configuration of the project pytest runs in, and its warm workers.

    When the test loop starts, every page with a selected cell is handed to one runner at once,
    in a background thread, so pages run in parallel (as with ``kbtool test``) while pytest
    reports cells; each item waits for its own page. Under pytest-xdist a worker does not know
    in advance which items it will get, so it runs each page when its first item comes.
    """

    def __init__(self, config: Config | None, use_store: bool, compare: bool = False) -> None:
        self.config = config
        self.use_store = use_store
        self.compare = compare
        self.folders: dict[Path, str] = {}
        if config is not None:
            self.folders = {(config.root / f).resolve(): "wiki" for f in config.wiki_folders}
            self.folders[(config.root / config.sources).resolve()] = "source"
        self.scheduled: set[str] = set()
        self.results: dict[str, PageResult] = {}
        self.finished = False
        self.failure: BaseException | None = None
        self.changed = threading.Condition()
        self.thread: threading.Thread | None = None
        self.runner: Runner | None = None  # the background run of every scheduled page
        self.solo: Runner | None = None  # pages run one by one, on demand

    def page(self, path: Path) -> Page | None:
        """The parsed page at ``path`` if it belongs to the wiki or sources folder."""
        if self.config is None:
            return None
        real = path.resolve()
        for folder, kind in self.folders.items():
            if folder in real.parents:
                relative = real.relative_to(self.config.root.resolve()).as_posix()
                data, flavor = real.read_bytes(), self.config.flavor
                return parse_page(relative, data, kind, flavor=flavor)  # type: ignore[arg-type]
        return None

    def schedule(self, pages: list[Page]) -> None:
        assert self.config is not None
        self.scheduled = {page.path for page in pages}
        self.runner = Runner(self.config, on_notice=_said_at_configure)
        self.thread = threading.Thread(target=self._run_all, args=(pages,), daemon=True)
        self.thread.start()

    def _run_all(self, pages: list[Page]) -> None:
        assert self.config is not None
        try:
            run_pages(
                self.config,
                pages,
                use_store=self.use_store,
                runner=self.runner,
                on_result=self._done,
                compare=self.compare,
            )
        except Exception as error:  # the items waiting for their page report it
            self.failure = error
        finally:
            with self.changed:
                self.finished = True
                self.changed.notify_all()

    def _done(self, result: PageResult) -> None:
        with self.changed:
            self.results[result.path] = result
            self.changed.notify_all()

    def run(self, page: Page) -> PageResult:
        assert self.config is not None
        if page.path in self.scheduled:
            with self.changed:
                self.changed.wait_for(lambda: page.path in self.results or self.finished)
                if page.path in self.results:
                    return self.results[page.path]
            raise RuntimeError(f"kbtool's runner stopped before {page.path} ran: {self.failure!r}")
        if self.solo is None:
            self.solo = Runner(self.config, jobs=1, on_notice=_said_at_configure)
        [result] = run_pages(
            self.config, [page], use_store=self.use_store, runner=self.solo, compare=self.compare
        )
        return result

    def close(self) -> None:
        running = self.thread is not None and self.thread.is_alive()
        for runner in (self.runner, self.solo):
            if runner is not None:
                runner.close(abort=running)  # -x or Ctrl-C: pages still running are stopped
        if self.thread is not None:
            self.thread.join(timeout=10)


_PROJECT = pytest.StashKey[_Project]()


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("kbtool", "kbtool: the python cells of wiki pages")
    group.addoption(
        "--kbtool-no-cache",
        action="store_true",
        help="run every page, even when its cached result is current",
    )
    group.addoption(
        "--kbtool-compare-outputs",
        action="store_true",
        help="compare imported pages' cell outputs with those saved at import",
    )


def _kbtool_config(rootpath: Path) -> Config | None:
    root = find_root(rootpath)
    try:
        with (root / "pyproject.toml").open("rb") as f:
            if "kbtool" not in tomllib.load(f).get("tool", {}):
                return None
    except (OSError, tomllib.TOMLDecodeError):
        return None
    return load_config(root)  # a ConfigError here is the project's to fix: let pytest say it


class ContainmentWarning(pytest.PytestWarning):
    """Cells run with some protections off (KB411): shown once, in pytest's warnings."""


def _said_at_configure(message: str) -> None:
    """The runner's containment notice was already issued as a pytest warning."""


def pytest_configure(config: pytest.Config) -> None:
    use_store = not config.getoption("kbtool_no_cache")
    compare = config.getoption("kbtool_compare_outputs")
    project = _Project(_kbtool_config(config.rootpath), use_store, compare)
    config.stash[_PROJECT] = project
    if project.config is not None and not hasattr(config, "workerinput"):  # once, not per worker
        notice = containment.warning(containment.probe(project.config))
        if notice is not None:
            config.issue_config_time_warning(ContainmentWarning(notice), stacklevel=2)


@pytest.hookimpl(tryfirst=True)
def pytest_runtestloop(session: pytest.Session) -> None:
    """Start every page with a selected cell, in the background (not in xdist workers)."""
    config = session.config
    if config.option.collectonly or hasattr(config, "workerinput"):
        return
    pages = {
        item.parent.page.path: item.parent.page
        for item in session.items
        if isinstance(item, CellItem)
    }
    if pages:
        config.stash[_PROJECT].schedule(list(pages.values()))


def pytest_unconfigure(config: pytest.Config) -> None:
    if _PROJECT in config.stash:
        config.stash[_PROJECT].close()


def pytest_collect_file(file_path: Path, parent: pytest.Collector) -> PageFile | None:
    if file_path.suffix != ".md":
        return None
    project = parent.config.stash[_PROJECT]
    page = project.page(file_path)
    if page is None or project.config is None or not should_run(project.config, page):
        return None
    return PageFile.from_parent(parent, path=file_path, page=page)


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """Under ``--dist load`` (what ``-n N`` means), send all cells of a page to one worker."""
    if config.getvalue("dist") != "load":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class PageScheduling(LoadScopeScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            path = nodeid.split("::", 1)[0]
            return path if path.endswith(".md") else nodeid

    return PageScheduling(config, log)


class PageFile(pytest.File):
    def __init__(self, *, page: Page, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.page = page
        self._result: PageResult | None = None

    def collect(self) -> list[CellItem]:
        return [
            CellItem.from_parent(self, name=f"cell-{number}", cell=cell, number=number)
            for number, cell in enumerate(self.page.python_cells, start=1)
        ]

    def result(self) -> PageResult:
        """The page's result, run (or read from the cache) on first use."""
        if self._result is None:
            self._result = self.config.stash[_PROJECT].run(self.page)
        return self._result


class CellItem(pytest.Item):
    parent: PageFile

    def __init__(self, *, cell: Cell, number: int, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.cell = cell
        self.number = number

    def runtest(self) -> None:
        page = self.parent.result()
        result = page.cell(self.cell.index)
        assert result is not None, "the runner returned no result for this cell"
        if self._blamed_for_page(page):
            raise CellFailed(result, page.reason, page.code)
        if result.status == "failed":
            raise CellFailed(result, result.reason, result.code)
        if result.status == "skipped":
            raise _skip("skip-execution")
        if result.status == "not-run":
            raise _skip(f"not run: {page.reason}")

    def _blamed_for_page(self, page: PageResult) -> bool:
        """A page can fail with no failing cell (a process left running, a bad option): its
        last cell that ran reports that, or its first cell if none ran."""
        if page.status != "failed" or any(c.status == "failed" for c in page.cells):
            return False
        ran = [c for c in page.cells if c.status == "passed"]
        blamed = ran[-1] if ran else page.cells[0]
        return blamed.index == self.cell.index

    def repr_failure(self, excinfo: pytest.ExceptionInfo[BaseException], style: Any = None) -> str:
        if not isinstance(excinfo.value, CellFailed):
            return str(super().repr_failure(excinfo, style))
        failure = excinfo.value
        cell = failure.result
        line = cell.error_line or cell.line
        problems = self.parent.result().extra.get("problems")
        if problems and cell.status != "failed":  # the page could not run: point at the option
            line = problems[0]["line"]
        own = cell.status == "failed"  # else the page's failure, blamed on this cell
        reason = failure.reason or ("error" if own else "the page did not run")
        message = f"cell-{self.number} failed: {reason}" if own else reason
        found = Diagnostic(
            self.parent.page.path, line, 1, failure.code or "KB404", "error", message
        )
        lines = [found.format()]  # as ``kbtool test`` and ``build`` print it
        if cell.error:
            lines += ["", cell.error.rstrip("\n")]
        for name, text in (("stdout", cell.stdout), ("stderr", cell.stderr)):
            if text:
                lines += ["", f"--- captured {name} ---", text.rstrip("\n")]
        return "\n".join(lines)

    def reportinfo(self) -> tuple[Path, int, str]:
        # The third part heads a failure's report; being no suffix of the node id, it does not
        # change how -v prints the id.
        return (
            self.path,
            self.cell.line - 1,
            f"{self.parent.page.path}::cell-{self.number} (line {self.cell.line})",
        )


def _skip(reason: str) -> BaseException:
    """A skip reported at the cell's Markdown line rather than at this module's."""
    return pytest.skip.Exception(reason, _use_item_location=True)
