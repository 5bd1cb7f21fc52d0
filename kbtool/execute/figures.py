"""Matplotlib figures a cell left open -> SVG documents, then closed (as notebooks do).

Only touches matplotlib if the cells imported pyplot: a page without figures pays nothing.
"""

from __future__ import annotations

import io
import sys
import warnings


def quiet_show() -> None:
    """The Agg backend warns that ``plt.show()`` cannot show anything; the figure is kept anyway."""
    warnings.filterwarnings("ignore", message=".*non-interactive.*cannot be shown")


def take_figures() -> list[str]:
    pyplot = sys.modules.get("matplotlib.pyplot")
    if pyplot is None:
        return []
    svgs = []
    for number in pyplot.get_fignums():
        figure = pyplot.figure(number)
        buffer = io.StringIO()
        # A fixed hash salt and no date make the SVG the same on every run, so that outputs
        # diff cleanly and the site does not change when nothing did.
        with pyplot.rc_context({"svg.hashsalt": "kbtool"}):
            figure.savefig(buffer, format="svg", metadata={"Date": None})
        svgs.append(buffer.getvalue())
    pyplot.close("all")
    return svgs
