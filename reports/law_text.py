r"""A law as the paper writes it in its "Dist." and "Description" columns.

Unif(low, high), Tri(low, high, mode), N(mean, variance) (the paper's convention: the second
argument is the variance), chi^2_(1) for the law of Y^2 with Y ~ N(0, 1) (c chi^2_(1) for a scale
c), the law of U^2 for U ~ Unif(-delta, delta) or Laplace(0, b), Laplace(mu, b), LaplaceDiff(m, s) (a
difference of two Laplace laws of scale s), Logistic(mu, s), SN(loc, scale, shape). Any other law
falls back to its constructor form.

Examples
--------
>>> import sympy as sp
>>> from fstheory.theory.laws import Normal, Uniform, ScaledChiSquared1
>>> law_text(Normal(1, 3))
('N(1, 9)', '\\mathcal{N}\\left(1, 9\\right)')
>>> law_text(Uniform(-sp.Rational(1, 2), sp.Rational(5, 2)))[0]
'Unif(-1/2, 5/2)'
>>> law_text(ScaledChiSquared1(1))[0]
'chi^2_(1)'
>>> law_text(None)
('-', '-')
"""

from __future__ import annotations

import sympy as sp

from fstheory.reports.render import plain, tex
from fstheory.theory.laws import (
    Laplace,
    LaplaceSum,
    Law,
    Logistic,
    Normal,
    ScaledChiSquared1,
    SkewNormal,
    SquareOfLaplace,
    SquareOfUniform,
    Triangular,
    Uniform,
)

__all__ = ["law_text"]


def _args(params) -> tuple[str, str]:
    return (", ".join(plain(p) for p in params),
            r"\left(" + ", ".join(tex(p) for p in params) + r"\right)")


#: laws written as Name(parameters): the plain and the LaTeX name
_NAMED = {
    Uniform: ("Unif", r"\mathrm{Unif}"),
    Triangular: ("Tri", r"\mathrm{Tri}"),
    Laplace: ("Laplace", r"\mathrm{Laplace}"),
    Logistic: ("Logistic", r"\mathrm{Logistic}"),
    SkewNormal: ("SN", r"\mathrm{SN}"),
    LaplaceSum: ("LaplaceDiff", r"\mathrm{LaplaceDiff}"),
}
#: laws of a square U^2: the law of U, centred, from the square's parameter
_SQUARES = {
    SquareOfUniform: lambda d: Uniform(-d, d),
    SquareOfLaplace: lambda b: Laplace(0, b),
}


def law_text(law: Law | None) -> tuple[str, str]:
    """(plain, LaTeX) of ``law``; ('-', '-') when no closed-form law is known."""
    if law is None:
        return "-", "-"
    if type(law) in _NAMED:
        (pname, tname), (p, t) = _NAMED[type(law)], _args(law.params)
        return f"{pname}({p})", f"{tname}{t}"
    if isinstance(law, Normal):
        mu, s = law.params
        p, t = _args((mu, sp.simplify(s**2)))
        return f"N({p})", rf"\mathcal{{N}}{t}"
    if isinstance(law, ScaledChiSquared1):
        (c,) = law.params
        if c == 1:
            return "chi^2_(1)", r"\chi^2_{(1)}"
        return f"{plain(c)} chi^2_(1)", rf"{tex(c)}\,\chi^2_{{(1)}}"
    if type(law) in _SQUARES:
        p, t = law_text(_SQUARES[type(law)](*law.params))
        return f"U^2, U ~ {p}", rf"U^2,\ U\sim{t}"
    p, t = _args(law.params)
    name = type(law).__name__
    return f"{name}({p})", rf"\mathrm{{{name}}}{t}"
