"""IPython inside the page process: notebook syntax, magics, ``display()`` and MIME bundles.

Optional (``pip install 'kbtool[ipython]'``). The warm worker makes one ``InteractiveShell``
before it forks (importing IPython and making a shell costs ~0.2 s; a page then pays only for
pointing it at its own namespace). A cell that compiles as Python runs as it is; one that does
not goes through IPython's input transformer (``%timeit x`` becomes
``get_ipython().run_line_magic('timeit', 'x')``, ``!ls`` a ``system`` call, a child process of
the page) and is compiled at its Markdown line like any cell, so tracebacks keep page lines.
The last expression's value and every ``display()`` are formatted by IPython's display
formatter, as Jupyter does: a MIME bundle (``_repr_html_``, ``_repr_png_``, ... and text).

No history file is kept and the profile folder IPython insists on is a temporary one, removed
once the shell exists. ``%matplotlib`` does nothing: figures are collected as SVG anyway.
"""

from __future__ import annotations

import ast
import base64
import re
import shutil
import sys
import tempfile
import types
from typing import Any

#: The MIME types kept from a bundle (strings all); the site and notebooks show these.
KEPT_TYPES = (
    "text/html",
    "image/svg+xml",
    "image/png",
    "image/jpeg",
    "text/latex",
    "text/markdown",
    "text/plain",
)
#: Lines that are IPython syntax, not Python: magics, shell escapes, help (``x?``, ``?x``) and
#: captured output (``files = !ls``, ``t = %timeit -o f()``).
_SYNTAX = re.compile(r"^\s*(%%?[A-Za-z_]|!|\?)|^\s*[\w.]+\?\??\s*$|^\s*[\w.]+\s*=\s*[!%]", re.M)

_shell: Any = None
_missing = False


def prepare() -> bool:
    """Make the shell (once); False when IPython is not installed."""
    global _shell, _missing
    if _shell is None and not _missing:
        try:
            shell_class, config = _shell_class()
        except ImportError:
            _missing = True
            return False
        _shell = _make(shell_class, config)
    return _shell is not None


def _shell_class() -> tuple[Any, Any]:
    """IPython's InteractiveShell as a page needs it, and its configuration."""
    from IPython.core.compilerop import CachingCompiler
    from IPython.core.displaypub import DisplayPublisher
    from IPython.core.interactiveshell import InteractiveShell
    from traitlets import Type
    from traitlets.config import Config

    class Collector(DisplayPublisher):
        """Keeps each display()'s bundle for the cell instead of printing its text."""

        def __init__(self, **kwargs: Any) -> None:
            super().__init__(**kwargs)  # type: ignore[no-untyped-call]
            self.bundles: list[dict[str, Any]] = []

        def publish(self, data: dict[str, Any], *args: Any, **kwargs: Any) -> None:
            self.bundles.append(data)

        def clear_output(self, wait: bool = False) -> None:
            self.bundles.clear()

    class PageCompiler(CachingCompiler):
        """``%time`` and ``%%time`` compile their code themselves: at the page's lines, too."""

        page = ""  # the page's path, while a page runs

        def ast_parse(self, source: str, filename: str = "<unknown>", symbol: str = "exec") -> Any:
            tree = super().ast_parse(source, filename, symbol)
            offset = _magic_offset(self.page)
            if offset:
                ast.increment_lineno(tree, offset)
            return tree

        def __call__(self, source: Any, filename: str, *args: Any, **kwargs: Any) -> Any:
            if self.page and filename in ("<timed exec>", "<timed eval>"):
                filename = self.page
            return super().__call__(source, filename, *args, **kwargs)

    class PageShell(InteractiveShell):
        display_pub_class = Type(Collector)  # type: ignore[assignment]
        compiler_class = Type(PageCompiler)
        # A plain child process on the page's own pipes, as the terminal's IPython does (the
        # default runs it on a pseudo-terminal, which a contained page may not open).
        system = InteractiveShell.system_raw

    config = Config()
    config.HistoryManager.enabled = False
    return PageShell, config


def _make(shell_class: Any, config: Any) -> Any:
    """The shell, leaving nothing behind: its profile folder, ``__main__``, the hooks."""
    saved = sys.modules.get("__main__"), sys.displayhook, sys.excepthook
    folder = tempfile.mkdtemp(prefix="kbtool-ipython-")
    try:
        module = types.ModuleType("__main__")
        shell = shell_class.instance(
            config=config, ipython_dir=folder, user_module=module, user_ns=module.__dict__
        )
    finally:
        shutil.rmtree(folder, ignore_errors=True)
        if saved[0] is not None:
            sys.modules["__main__"] = saved[0]
        sys.displayhook, sys.excepthook = saved[1], saved[2]
    shell.register_magic_function(_no_matplotlib, "line", "matplotlib")
    return shell


def _no_matplotlib(line: str) -> None:
    """Figures are collected (as SVG) after every cell whatever the backend: nothing to do."""


def _magic_offset(page: str) -> int:
    """Lines before the code a magic compiles: the magic's own line is the page line of a line
    magic's code; a cell magic's code starts on the line after it."""
    frame: types.FrameType | None = sys._getframe(2)
    cell_magic = False
    while frame is not None and page:
        if frame.f_code.co_filename == page:
            return frame.f_lineno if cell_magic else frame.f_lineno - 1
        cell_magic = cell_magic or frame.f_code.co_name == "run_cell_magic"
        frame = frame.f_back
    return 0


def bind(module: types.ModuleType, path: str) -> None:
    """Point the shell (if IPython was preloaded) at the page's namespace."""
    if _shell is not None:
        _attach(module, path)


def _attach(module: types.ModuleType, path: str) -> None:
    _shell.compile.page = path
    _shell.user_module = module
    _shell.user_ns = module.__dict__
    _shell.init_user_ns()
    _shell.display_pub.bundles.clear()


def transform(source: str, module: types.ModuleType, path: str) -> str | None:
    """``source`` as Python, through IPython's transformer; None without IPython."""
    if _shell is None:
        if not prepare():
            return None
        _attach(module, path)  # made in the page process: IPython was not preloaded
    return str(_shell.transform_cell(source))


def ipython_line(source: str) -> int | None:
    """0-based line of ``source`` that is IPython syntax, if any."""
    match = _SYNTAX.search(source)
    return source.count("\n", 0, match.start()) if match else None


def is_loaded() -> bool:
    return _shell is not None


def format_value(value: Any) -> dict[str, str]:
    """The MIME bundle Jupyter shows for ``value`` (empty without IPython)."""
    if _shell is None:
        return {}
    data, _ = _shell.display_formatter.format(value)
    return kept(data)


def take_displays() -> list[dict[str, str]]:
    """The bundles the cell displayed, in order; cleared for the next cell."""
    if _shell is None:
        return []
    bundles = [kept(data) for data in _shell.display_pub.bundles]
    _shell.display_pub.bundles.clear()
    return [bundle for bundle in bundles if bundle]


def kept(data: dict[str, Any]) -> dict[str, str]:
    """The bundle's kinds that are shown, as text: images base64-encoded, as in a notebook."""
    bundle = {}
    for kind in KEPT_TYPES:
        value = data.get(kind)
        if isinstance(value, bytes) and kind.startswith("image/"):
            value = base64.b64encode(value).decode("ascii")
        if isinstance(value, str):
            bundle[kind] = value
    return bundle
