r"""TeX commands that latex2mathml lacks, rewritten into ones it has before converting.

Authors write formulas for GitHub (MathJax) and for papers, so pages use commands that
latex2mathml does not know (``\arg\min``, ``\operatorname*{…}``, ``\R``) or that it would
pass through wrongly (``\operatorname*`` becomes a stray ``*``; ``\mathds`` drops the
double-struck face). Each rewrite keeps the meaning and gives the converter a command it
renders; the TeX shown for copying is still the author's.

>>> print(supply_commands(r"\arg\min_x f(x)"))
\argmin_x f(x)
>>> print(supply_commands(r"x \in \R^n"))
x \in \mathbb{R}^n
"""

from __future__ import annotations

import re

#: Operator names written as commands of their own, usually declared with
#: ``\DeclareMathOperator`` in a paper's preamble, which a page cannot have.
OPERATORS = (
    "sign",
    "sgn",
    "softmax",
    "relu",
    "ReLU",
    "Var",
    "Cov",
    "diag",
    "tr",
    "Tr",
    "trace",
    "rank",
    "erf",
    "KL",
    "lcm",
    "vol",
    "span",
    "argsup",
    "arginf",
)
#: (pattern, replacement), in order. ``(?![A-Za-z])`` keeps ``\R`` from matching ``\Rightarrow``.
_REWRITES: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(pattern), replacement)
    for pattern, replacement in (
        (r"\\arg\s*\\(min|max)(?![A-Za-z])", r"\\arg\1"),  # \arg\min -> \argmin (limits below)
        (r"\\arg(?![A-Za-z])", r"\\operatorname{arg}"),
        (r"\\(?:operatorname|DeclareMathOperator)\s*\{\s*\}", ""),
        (rf"\\({'|'.join(OPERATORS)})(?![A-Za-z])", r"\\operatorname{\1}"),
        (r"(?<!\\)\\([RNZQCE])(?![A-Za-z])", r"\\mathbb{\1}"),  # not `\\` + letter
        (r"\\mathds(?![A-Za-z])", r"\\mathbb"),
        # Environments latex2mathml does not know, as ones it does with the same layout.
        (
            r"\\begin\{(?:aligned|alignedat|flalign\*?|eqnarray\*?)\}(?:\[[tbc]\]|\{\d+\})?",
            r"\\begin{align*}",
        ),
        (r"\\end\{(?:aligned|alignedat|flalign\*?|eqnarray\*?)\}", r"\\end{align*}"),
        (r"\\begin\{(?:gathered|gather\*?|multline\*?)\}(?:\[[tbc]\])?", r"\\begin{matrix}"),
        (r"\\end\{(?:gathered|gather\*?|multline\*?)\}", r"\\end{matrix}"),
        (r"\\(?:begin|end)\{(?:equation\*?|subequations)\}", ""),
        (r"\\label\s*\{[^{}]*\}", ""),  # a formula on a web page has no number to refer to
        (r"\\(?:nonumber|notag)(?![A-Za-z])", ""),
        (r"\\hdots(?![A-Za-z])", r"\\ldots"),
        (r"\\displaylimits(?![A-Za-z])", r"\\limits"),
        (r"\\ensuremath(?![A-Za-z])", ""),
        (r"\\sfrac(?![A-Za-z])", r"\\tfrac"),
        (r"\\micro(?![A-Za-z])", r"\\mu"),
        (r"\\textdegree(?![A-Za-z])", r"\\degree"),
    )
)
#: A cheap test first: most formulas contain none of the names above.
_ANY = re.compile(
    r"\\(?:arg|operatorname|DeclareMathOperator|[RNZQCE](?![A-Za-z])|mathds|label|nonumber|begin"
    rf"|notag|hdots|displaylimits|ensuremath|sfrac|micro|textdegree|{'|'.join(OPERATORS)})"
)


#: ``\operatorname{…}`` / ``\operatorname*{…}`` with plain text inside.
_OPERATOR_NAME = re.compile(r"\\operatorname\s*(\*?)\s*\{([^{}]*)\}")
#: TeX spaces inside an operator name: latex2mathml would break the name into letters.
_NAME_SPACE = re.compile(r"\\[,;:> ]|~")


def _operator_name(match: re.Match[str]) -> str:
    name = _NAME_SPACE.sub("\u2009", match.group(2)).replace("\\!", "")
    # The starred form puts sub- and superscripts under and over the name (limits).
    command = "operatornamewithlimits" if match.group(1) else "operatorname"
    return f"\\{command}{{{name}}}"


def supply_commands(tex: str) -> str:
    """``tex`` with the commands latex2mathml lacks replaced by ones it renders."""
    if not _ANY.search(tex):
        return tex
    tex = _OPERATOR_NAME.sub(_operator_name, tex)
    for pattern, replacement in _REWRITES:
        tex = pattern.sub(replacement, tex)
    return tex
