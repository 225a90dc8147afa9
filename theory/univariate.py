"""One-dimensional laws for the numerical route: densities, CDFs and survival functions on arb
balls, for base laws and for linear combinations of independent base variables.

A linear combination ``c_1 B_1 + ... + c_n B_n + e`` of independent base variables has a
one-dimensional density. :func:`linear_combination` builds it from the convolution algebra:

* normal terms merge exactly: ``N(m1, s1^2) + N(m2, s2^2) = N(m1 + m2, s1^2 + s2^2)``;
* uniform, Laplace and exponential terms are piecewise poly-exponential and convolve in closed
  form (:class:`fstheory.theory.polyexp.PolyExp`);
* a normal plus a poly-exponential law has its density, CDF and survival function in closed form
  (error functions, :func:`fstheory.theory.polyexp.gauss_smooth`);
* a logistic term has no closed convolution: the density of ``A + B`` with A logistic is the
  integral ``int f_A(u) f_B(z - u) du`` done numerically (:class:`Convolved`; ``depth`` counts
  such nested levels, and callers refuse what would nest too deep).

Every law gives its support, its interior breakpoints (exact rationals), real-point evaluation
(``pdf``, ``cdf``, ``sf``), the analytic formula of a piece for complex balls when the law is in
closed form (``pdf_branch`` ...), and :meth:`Law1D.box`: a finite interval outside which the law
has mass at most ``eps`` (exact tails, or a union bound over the terms of a numerical
convolution). Lower and upper tails are each computed directly (``cdf`` and ``sf``), never as
``1 -`` the other, so that both keep their relative precision.

Examples
--------
>>> import sympy as sp
>>> from flint import arb
>>> from fstheory.theory.laws import Uniform, Laplace
>>> from fstheory.theory.quadrature import flint_precision
>>> X, Y = sp.symbols("X Y", real=True)
>>> laws = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
>>> with flint_precision(100):
...     law = linear_combination({X: sp.Integer(1), Y: sp.Integer(1)}, 0, laws, Accuracy.from_bits(100))
...     print(law.pdf(arb(1)).str(3, radius=False), law.cdf(arb(0)).str(3, radius=False))
0.250 0.500
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import arb

from fstheory.theory import laws as L
from fstheory.theory.balls import ball
from fstheory.theory.polyexp import PolyExp, end_sum
from fstheory.theory.logistic_sum import logistic_pair, logistic_plus
from fstheory.theory.law1d import (
    Accuracy,
    Convolved,
    GaussPE,
    Law1D,
    Logistic,
    Normal,
    NotClosed,
    PELaw,
    Unsupported,
    to_fraction,
)

__all__ = [
    "Accuracy",
    "Law1D",
    "base_law",
    "linear_combination",
    "to_fraction",
    "NotClosed",
    "Unsupported",
]


# --- construction ----------------------------------------------------------------------------------


def base_law(law: L.Law, acc: Accuracy) -> Law1D:
    """The numerical law of a base variable with numeric parameters (its centre of symmetry
    recorded, for the exact cancellation of equal weights)."""
    out = _base_law(law, acc)
    centre = law.center()
    if centre is not None:
        out.symmetry = to_fraction(centre, acc.bits)
    return out


def _with_symmetry(law: Law1D, centre) -> Law1D:
    law.symmetry = centre
    return law


def _base_law(law: L.Law, acc: Accuracy) -> Law1D:
    bits = acc.bits
    if isinstance(law, L.Uniform):
        lo, hi = (to_fraction(p, bits) for p in law.params)
        return PELaw(PolyExp.uniform(lo, hi), ball(hi - lo).log())
    if isinstance(law, L.Normal):
        mu, s = law.params
        return Normal(_symball(mu, bits), _symball(s, bits), to_fraction(mu, bits),
                      sp.sympify(s) ** 2)
    if isinstance(law, L.Laplace):
        mu, b = (to_fraction(p, bits) for p in law.params)
        return PELaw(PolyExp.laplace(mu, b), 1 + (2 * ball(b)).log())
    if isinstance(law, L.Logistic):
        mu, s = (to_fraction(p, bits) for p in law.params)
        return Logistic(mu, s)
    exp_cls = getattr(L, "Exponential", None)
    if exp_cls is not None and isinstance(law, exp_cls):
        (rate,) = (to_fraction(p, bits) for p in law.params)
        return PELaw(PolyExp.exponential(rate), 1 - ball(rate).log())
    raise Unsupported(f"no numerical form for the law {law!r}")


def _symball(value, bits: int) -> arb:
    value = sp.sympify(value)
    if value.is_Rational:
        return arb(int(value.p)) / int(value.q)
    return arb(str(sp.N(value, int(bits * 0.30103) + 10)))


#: term operations allowed to the exact convolutions of one linear combination's law (the sum of
#: 25 uniform laws, or of 45 Laplace laws, takes about 200,000: a few seconds); beyond it the law
#: is refused with the reason, the same on every machine
CONVOLUTION_BUDGET = 200_000
#: pieces allowed to such a law (uniform laws of distinct widths double them at each term)
CONVOLUTION_PIECES = 512


_REFUSED: dict = {}  # (law, scale) of each term -> why its sum's law is beyond the budget


class _Convolutions:
    """The work budget of the exact convolutions of one linear combination."""

    def __init__(self, terms: int):
        self.left, self.terms = CONVOLUTION_BUDGET, terms

    def convolve(self, a, b):
        self.left -= a.convolution_work(b)
        pieces = len({end_sum(x, y) for x in a.breakpoints() for y in b.breakpoints()})
        if self.left < 0 or pieces > CONVOLUTION_PIECES:
            raise Unsupported(
                f"the exact law of a sum of {self.terms} base variables is beyond the "
                f"convolution budget ({CONVOLUTION_BUDGET:,} term operations, "
                f"{CONVOLUTION_PIECES} pieces)")
        return a.convolve(b)


def _add(x: Law1D, y: Law1D, acc: Accuracy, work: _Convolutions | None = None) -> Law1D:
    """The law of the sum of independent X and Y."""
    conv = (lambda a, b: a.convolve(b)) if work is None else work.convolve
    if isinstance(x, Normal) and isinstance(y, Normal):
        var = None if x.var is None or y.var is None else x.var + y.var
        return Normal(x.m + y.m, (x.s * x.s + y.s * y.s).sqrt(), x.m_frac + y.m_frac, var)
    if isinstance(x, PELaw) and isinstance(y, PELaw):
        return PELaw(conv(x.pe, y.pe))
    for u, v in ((x, y), (y, x)):
        if isinstance(u, Normal) and isinstance(v, PELaw):
            return GaussPE(u, v.pe)
        if isinstance(u, GaussPE) and isinstance(v, Normal):
            return GaussPE(_add(u.normal, v, acc), u.pe)
        if isinstance(u, GaussPE) and isinstance(v, PELaw):
            return GaussPE(u.normal, conv(u.pe, v.pe))
    if isinstance(x, GaussPE) and isinstance(y, GaussPE):
        return GaussPE(_add(x.normal, y.normal, acc), conv(x.pe, y.pe))
    if isinstance(x, Logistic) and isinstance(y, Logistic):
        pair = logistic_pair(x, y)
        if pair is not None:
            return pair
    for u, v in ((x, y), (y, x)):
        if isinstance(u, Logistic) and isinstance(v, PELaw):
            closed = logistic_plus(u, v)
            if closed is not None:
                return closed
    # a logistic (or an already numerical) term: one numerical level
    if isinstance(y, (Logistic, Convolved)) and not isinstance(x, (Logistic, Convolved)):
        x, y = y, x
    return Convolved(x, y, acc)


def linear_combination(coefs: dict, const, laws: dict, acc: Accuracy) -> Law1D:
    """The law of sum_B coefs[B] * B + const for independent base variables B ~ laws[B].

    Closed-form terms are merged first, logistic terms last, so that a combination has at most
    one numerical level per logistic term. The exact convolutions have a work budget
    (:data:`CONVOLUTION_BUDGET` term operations, :data:`CONVOLUTION_PIECES` pieces): a sum
    beyond it is refused (:class:`Unsupported`, with the reason).
    """
    items = [(b, c) for b, c in coefs.items() if c != 0]
    if not items:
        raise Unsupported("a constant has no density")
    parts = []
    for b, c in items:
        law = base_law(laws[b], acc)
        a = to_fraction(c, acc.bits)
        parts.append(_with_symmetry(law.affine(a, Fraction(0)),
                                    None if law.symmetry is None else a * law.symmetry))
    parts.sort(key=lambda p: isinstance(p, (Logistic, Convolved)))
    # the work of the convolutions depends on the terms' laws and scales only: a refusal is kept
    key = tuple(sorted((repr(laws[b]), str(c)) for b, c in items))
    if key in _REFUSED:
        raise Unsupported(_REFUSED[key])
    work = _Convolutions(len(parts))
    total = parts[0]
    try:
        for p in parts[1:]:
            centre = None if total.symmetry is None or p.symmetry is None else total.symmetry + p.symmetry
            total = _with_symmetry(_add(total, p, acc, work), centre)
    except Unsupported as exc:
        if len(_REFUSED) < 1000:
            _REFUSED[key] = str(exc)
        raise
    const = to_fraction(const, acc.bits)
    if const == 0:
        return total
    return _with_symmetry(total.affine(Fraction(1), const),
                          None if total.symmetry is None else total.symmetry + const)
