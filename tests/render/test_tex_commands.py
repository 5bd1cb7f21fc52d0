"""Formulas with commands latex2mathml lacks: supplied, converted, and shown as formulas."""

from __future__ import annotations

import pytest

from kbtool.render.mathml import tex_fallback, to_mathml
from kbtool.render.tex_commands import supply_commands

# (TeX, a piece the MathML must contain): each failed or converted wrongly before.
SUPPLIED = [
    (r"\hat\theta = \arg\min_\theta L(\theta)", "arg"),
    (r"\arg\max_{a} Q(s, a)", "arg"),
    (r"\arg(z)", "<mo>arg</mo>"),
    (r"\operatorname*{arg\,min}_x f(x)", '<mo movablelimits="true">arg\u2009min</mo>'),
    (r"\operatorname*{argmax}_{a} Q(s,a)", '<mo movablelimits="true">argmax</mo>'),
    (r"\operatorname{arg\,max}_v p", "<mo>arg\u2009max</mo>"),
    (r"x \in \R^n, \; k \in \N", "<mi>ℕ</mi>"),
    (r"\E_{x \sim p}[f(x)]", "<mi>𝔼</mi>"),
    (r"\mathds{1}[y = k]", 'mathvariant="double-struck"'),
    (r"\sign(x) \cdot \softmax(z)", "<mo>sign</mo>"),
    (r"\Var(X) = \E[X^2] - \E[X]^2", "<mo>Var</mo>"),
    (r"\relu(x) = \max(0, x)", "<mo>relu</mo>"),
    (r"\tr(AB) = \tr(BA)", "<mo>tr</mo>"),
    (r"\begin{aligned} a &= b \label{eq:a} \\ c &= d \nonumber \end{aligned}", "<mtable"),
    (r"\begin{aligned}[t] x &= 1 \\[4pt] y &= 2 \end{aligned}", "<mtable"),
    (r"\begin{alignedat}{2} x &= 1 & y &= 2 \end{alignedat}", "<mtable"),
    (r"\begin{gathered} x = 1 \\ y = 2 \end{gathered}", "<mtable"),
    (r"\begin{equation} E = mc^2 \end{equation}", "<msup>"),
    (r"x_1, \hdots, x_n", "<mo>"),
    (r"\sum\displaylimits_{i=1}^n i", "<munderover>"),
    (r"\ensuremath{x^2}", "<msup>"),
    (r"\sfrac{1}{2}", "<mfrac"),
    (r"30\textdegree", "°"),
]


@pytest.mark.parametrize(("tex", "piece"), SUPPLIED, ids=[t for t, _ in SUPPLIED])
def test_supplied_commands_convert(tex: str, piece: str) -> None:
    formula = to_mathml(tex, True)
    assert formula.error is None
    assert piece in formula.html
    assert "<mi>\\" not in formula.html and "<mo>*</mo>" not in formula.html
    # The annotation keeps what the author wrote, not the rewrite.
    assert tex.replace("&", "&amp;").replace("<", "&lt;") in formula.html


@pytest.mark.parametrize(
    "tex", [r"a \Rightarrow b", r"\Rho", r"\Nu", r"\Zeta", r"a \\R", r"\Cap", r"\Expect"]
)
def test_longer_commands_and_line_breaks_are_left_alone(tex: str) -> None:
    assert "mathbb" not in supply_commands(tex)


def test_formulas_without_such_commands_are_untouched() -> None:
    tex = r"\operatorname{Attention}(Q, K, V) = \frac{QK^\top}{\sqrt{d_k}}"
    assert supply_commands(tex) == tex


def test_an_alignment_the_converter_drops_is_an_error_not_a_wrong_formula() -> None:
    # latex2mathml turns a stray `&` into a letter; reporting it beats publishing it.
    assert to_mathml("a & b", True).error is not None


def test_a_formula_that_still_fails_is_shown_as_a_formula_not_code() -> None:
    assert to_mathml(r"\prescript{a}{b}{c}", True).error == "unknown command \\prescript"
    html = tex_fallback(r"\prescript{a}{b}{<c>}", "not converted")
    assert html.startswith('<span class="math-tex math-error" role="math"')
    assert "<code" not in html and "&lt;c&gt;" in html
