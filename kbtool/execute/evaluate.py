"""Run one cell in the page's namespace, inside the page process, the way a notebook does.

Each cell is compiled under the page's path after ``line - 1`` blank lines, so every
traceback, ``inspect.getsource`` and warning speaks in Markdown line numbers. If the cell ends
in an expression, that statement is evaluated separately and its value kept (as IPython does).
Future imports carry over to later cells, as in a notebook.

A cell that is not Python goes through IPython's transformer when IPython is installed (see
:mod:`kbtool.execute.ipython`); values and ``display()`` calls become MIME bundles there. As in
Jupyter, a last expression ending in ``;`` shows nothing.
"""

from __future__ import annotations
import __future__

import ast
import builtins
import linecache
import pprint
import sys
import time
import tokenize
import traceback
import types
from dataclasses import asdict, dataclass, replace
from typing import Any

from kbtool.execute import ipython
from kbtool.execute.doctests import run_doctest
from kbtool.execute.figures import take_figures
from kbtool.execute.output import mebibytes
from kbtool.execute.tracebacks import explained, user_traceback

_FUTURE_FLAGS = {
    name: getattr(__future__, name).compiler_flag for name in __future__.all_feature_names
}
_REASON_LENGTH = 300


@dataclass(frozen=True, slots=True)
class Outcome:
    """What the page process reports for one cell (output text is captured by the worker)."""

    status: str
    duration: float = 0.0
    value: str | None = None
    value_data: dict[str, str] | None = None  # the value's MIME bundle beyond text/plain
    displays: tuple[dict[str, str], ...] = ()  # display() calls' MIME bundles
    figures: tuple[str, ...] = ()
    reason: str | None = None
    error: str | None = None
    error_line: int | None = None
    code: str | None = None  # KB4xx, for a failure

    def to_wire(self) -> dict[str, Any]:
        return asdict(self)


class Page:
    """The namespace of one page: a fresh ``__main__`` module shared by its cells in order."""

    def __init__(self, path: str, cells: list[dict[str, Any]], value_limit: int) -> None:
        self.path = path
        self.value_limit = value_limit
        self.flags = 0
        module = types.ModuleType("__main__")
        module.__dict__["__builtins__"] = builtins
        sys.modules["__main__"] = module
        self.module = module
        self.namespace = module.__dict__
        _register_source(path, cells)
        ipython.bind(module, path)

    def run(self, cell: dict[str, Any]) -> Outcome:
        started = time.perf_counter()
        outcome = self._run_doctest(cell) if cell["mode"] == "doctest" else self._run_code(cell)
        outcome = self._with_displays(outcome)
        figures: tuple[str, ...] = ()
        try:
            figures = tuple(take_figures())
        except Exception as error:  # a figure the cell broke: the cell fails, the page goes on
            if outcome.status != "failed":
                reason = f"figure cannot be saved as SVG: {error!r}"
                outcome = Outcome("failed", reason=reason, code="KB404")
        return replace(outcome, duration=time.perf_counter() - started, figures=figures)

    def _run_code(self, cell: dict[str, Any]) -> Outcome:
        value = None
        try:
            value = self._execute(cell["source"], cell["line"])
        except NeedsIPython as missing:
            return _needs_ipython(missing.line, missing.what)
        except BaseException as exc:  # noqa: B036 - SystemExit and KeyboardInterrupt fail the cell too
            if cell["raises"]:
                _, error, _ = describe(exc, self.path, cell)
                return Outcome("passed", error=error)
            if isinstance(exc, NameError) and _needs_the_shell(exc):
                return _needs_ipython(describe(exc, self.path, cell)[2], f"{exc.name}()")
            return _failed(exc, self.path, cell)
        if cell["raises"]:
            reason = "tagged raises-exception, but the cell raised nothing"
            return Outcome("failed", reason=reason, code="KB405")
        if value is None:
            return Outcome("passed")
        if ipython.is_loaded():
            data = self._bundle(value)
            text = self._cut(data.pop("text/plain", ""))
            return Outcome("passed", value=text, value_data=data or None)
        return Outcome("passed", value=self._format_value(value))

    def _bundle(self, value: Any) -> dict[str, str]:
        try:
            return ipython.format_value(value)
        except Exception as error:  # a broken _repr_*_: show that, as IPython does
            return {"text/plain": f"<repr of {type(value).__name__} failed: {error!r}>"}

    def _with_displays(self, outcome: Outcome) -> Outcome:
        """Attach what the cell displayed; a cell whose rich output is over the output limit
        fails (as for text) and keeps only the text forms."""
        displays = tuple(ipython.take_displays())
        outcome = replace(outcome, displays=displays)
        size = sum(len(v) for d in displays for v in d.values())
        size += sum(len(v) for v in (outcome.value_data or {}).values())
        if size <= self.value_limit:
            return outcome
        texts, room = [], self.value_limit
        for display in displays:  # the text forms, as far as they fit
            text = self._cut(display.get("text/plain", ""))[:room]
            room -= len(text)
            if text:
                texts.append({"text/plain": text})
        limit, written = mebibytes(self.value_limit), mebibytes(size)
        reason = (
            f"rich output of {written} (images, HTML) exceeds the output limit of {limit} "
            "a cell (output-limit-kb); not kept"
        )
        kept = replace(outcome, displays=tuple(texts), value_data=None)
        if outcome.status == "failed":
            return kept
        return replace(kept, status="failed", reason=reason, code="KB407")

    def _execute(self, source: str, line: int) -> Any:
        padded = "\n" * (line - 1) + source
        flags = self.flags | ast.PyCF_ONLY_AST
        try:
            tree = compile(padded, self.path, "exec", flags, dont_inherit=True)
        except SyntaxError:
            python = ipython.transform(source, self.module, self.path)
            if python is None:
                offset = ipython.ipython_line(source)
                if offset is not None:
                    raise NeedsIPython(line + offset, source.splitlines()[offset].strip()) from None
                raise
            if python == source:
                raise
            source = python
            padded = "\n" * (line - 1) + source
            tree = compile(padded, self.path, "exec", flags, dont_inherit=True)
        self.flags |= _future_flags(tree)
        last = None
        if tree.body and isinstance(tree.body[-1], ast.Expr) and not _ends_with_semicolon(source):
            last = ast.Expression(tree.body.pop().value)
        exec(compile(tree, self.path, "exec", self.flags, dont_inherit=True), self.namespace)
        if last is None:
            return None
        return eval(compile(last, self.path, "eval", self.flags, dont_inherit=True), self.namespace)

    def _run_doctest(self, cell: dict[str, Any]) -> Outcome:
        name = f"{self.path}::cell-{cell['number']}"
        try:
            result = run_doctest(cell["source"], self.namespace, self.path, cell["line"], name)
        except BaseException as exc:  # noqa: B036 - doctest lets SystemExit through
            return _failed(exc, self.path, cell)
        if cell["raises"]:
            if result.failed:
                return Outcome("passed", error=result.report)
            reason = "tagged raises-exception, but every example passed"
            return Outcome("failed", reason=reason, code="KB405")
        if result.failed:
            report, line = result.report, result.line
            return Outcome(
                "failed", reason=result.summary, error=report, error_line=line, code="KB404"
            )
        return Outcome("passed")

    def _format_value(self, value: Any) -> str:
        try:
            text = pprint.pformat(value, width=100, sort_dicts=False)
        except Exception as error:  # the value's own __repr__ failed: show that, as IPython does
            text = f"<repr of {type(value).__name__} failed: {error!r}>"
        return self._cut(text)

    def _cut(self, text: str) -> str:
        if len(text) > self.value_limit:
            text = text[: self.value_limit] + f"\n… value truncated ({len(text)} characters)"
        return text


class NeedsIPython(Exception):
    """A cell written in IPython syntax, where IPython is not installed."""

    def __init__(self, line: int, what: str) -> None:
        super().__init__(what)
        self.line, self.what = line, what


def _needs_ipython(line: int, what: str) -> Outcome:
    shown = what if len(what) <= 60 else what[:59] + "…"
    reason = (
        f"`{shown}` needs IPython: pip install 'kbtool[ipython]' (or write the cell in plain "
        "Python)"
    )
    return Outcome("failed", reason=reason, error_line=line, code="KB420")


def _needs_the_shell(exc: NameError) -> bool:
    """``display()`` and ``get_ipython()`` are there in Jupyter without an import."""
    return exc.name in ("display", "get_ipython") and not ipython.prepare()


def _ends_with_semicolon(source: str) -> bool:
    """Whether the cell's last token (comments aside) is ``;``: Jupyter's "show nothing"."""
    if ";" not in source:
        return False
    last = None
    try:
        for token in tokenize.generate_tokens(iter(source.splitlines(keepends=True)).__next__):
            if token.type not in (
                tokenize.COMMENT,
                tokenize.NL,
                tokenize.NEWLINE,
                tokenize.ENDMARKER,
                tokenize.INDENT,
                tokenize.DEDENT,
            ):
                last = token
    except (tokenize.TokenError, SyntaxError):
        return False
    return last is not None and last.string == ";"


def _future_flags(tree: ast.Module) -> int:
    flags = 0
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and node.module == "__future__":
            flags |= sum(_FUTURE_FLAGS.get(alias.name, 0) for alias in node.names)
    return flags


def _register_source(path: str, cells: list[dict[str, Any]]) -> None:
    """Give linecache the page's code at its real lines, so tracebacks can quote it."""
    lines: list[str] = []
    for cell in cells:
        code = cell["source"].splitlines(keepends=True)
        start = cell["line"] - 1
        if len(lines) < start + len(code):
            lines.extend("\n" for _ in range(start + len(code) - len(lines)))
        lines[start : start + len(code)] = [c if c.endswith("\n") else c + "\n" for c in code]
    linecache.cache[path] = (sum(map(len, lines)), None, lines, path)


def _cell_lines(cell: dict[str, Any]) -> range:
    return range(cell["line"], cell["line"] + max(1, len(cell["source"].splitlines())))


def _failed(exc: BaseException, path: str, cell: dict[str, Any]) -> Outcome:
    reason, error, line = describe(exc, path, cell)
    return Outcome("failed", reason=reason, error=error, error_line=line, code="KB404")


def describe(exc: BaseException, path: str, cell: dict[str, Any]) -> tuple[str, str, int]:
    """One-line reason, traceback without kbtool's own frames, and the failing statement's line.

    The line is the deepest frame inside this cell: the assert itself, or the call into a
    function defined by an earlier cell (whose own line the traceback shows too).
    """
    tb = exc.__traceback__
    while tb is not None and tb.tb_frame.f_code.co_filename != path:
        tb = tb.tb_next
    text = user_traceback(exc, tb)
    inside = _cell_lines(cell)
    line = cell["line"]
    for frame in traceback.extract_tb(tb) if tb is not None else ():
        if frame.filename == path and frame.lineno in inside:
            line = frame.lineno
    if isinstance(exc, SyntaxError) and exc.filename == path and exc.lineno:
        line = exc.lineno
    return explained(_reason(exc), exc), text, line


def _reason(exc: BaseException) -> str:
    if isinstance(exc, SystemExit):
        return f"the cell called sys.exit({exc.code!r}); cells must not end the page's process"
    kind = type(exc)
    name = (
        kind.__qualname__
        if kind.__module__ in ("builtins", "__main__")
        else f"{kind.__module__}.{kind.__qualname__}"
    )
    try:
        message = str(exc.msg if isinstance(exc, SyntaxError) else exc).strip()
    except Exception:  # the exception's own __str__ is broken
        message = "<unprintable>"
    reason = f"{name}: {message.splitlines()[0]}" if message else name
    return reason if len(reason) <= _REASON_LENGTH else reason[: _REASON_LENGTH - 1] + "…"
