r"""A law as the paper writes it in its "Dist." and "Description" columns.

Unif(low, high), Tri(low, high, mode), N(mean, variance) (the paper's convention: the second
argument is the variance), chi^2_(1) for the law of Y^2 with Y ~ N(0, 1) (c chi^2_(1) for a scale
c), the law of U^2 for U ~ Unif(-delta, delta), Laplace(mu, b), Logistic(mu, s), SN(loc, scale,
shape). Any other law falls back to its constructor form.

Examples
--------
>>> import sympy as sp
>>> from theory.laws import Normal, Uniform, ScaledChiSquared1
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

from reports.render import plain, tex
from theory.laws import (
    Laplace,
    Law,
    Logistic,
    Normal,
    ScaledChiSquared1,
    SkewNormal,
    SquareOfUniform,
    Triangular,
    Uniform,
)

__all__ = ["law_text"]


def _args(params) -> tuple[str, str]:
    return (", ".join(plain(p) for p in params),
            r"\left(" + ", ".join(tex(p) for p in params) + r"\right)")


def law_text(law: Law | None) -> tuple[str, str]:
    """(plain, LaTeX) of ``law``; ('-', '-') when no closed-form law is known."""
    if law is None:
        return "-", "-"
    if isinstance(law, Uniform):
        p, t = _args(law.params)
        return f"Unif({p})", rf"\mathrm{{Unif}}{t}"
    if isinstance(law, Triangular):
        p, t = _args(law.params)
        return f"Tri({p})", rf"\mathrm{{Tri}}{t}"
    if isinstance(law, Normal):
        mu, s = law.params
        p, t = _args((mu, sp.simplify(s**2)))
        return f"N({p})", rf"\mathcal{{N}}{t}"
    if isinstance(law, ScaledChiSquared1):
        (c,) = law.params
        if c == 1:
            return "chi^2_(1)", r"\chi^2_{(1)}"
        return f"{plain(c)} chi^2_(1)", rf"{tex(c)}\,\chi^2_{{(1)}}"
    if isinstance(law, SquareOfUniform):
        (d,) = law.params
        p, t = _args((-d, d))
        return f"U^2, U ~ Unif({p})", rf"U^2,\ U\sim\mathrm{{Unif}}{t}"
    if isinstance(law, Laplace):
        p, t = _args(law.params)
        return f"Laplace({p})", rf"\mathrm{{Laplace}}{t}"
    if isinstance(law, Logistic):
        p, t = _args(law.params)
        return f"Logistic({p})", rf"\mathrm{{Logistic}}{t}"
    if isinstance(law, SkewNormal):
        p, t = _args(law.params)
        return f"SN({p})", rf"\mathrm{{SN}}{t}"
    p, t = _args(law.params)
    name = type(law).__name__
    return f"{name}({p})", rf"\mathrm{{{name}}}{t}"
