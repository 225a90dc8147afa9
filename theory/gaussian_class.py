r"""MI(C, V) for V linear in normal base variables and a linear threshold class C = 1{L >= t}
(L linear in normal base variables, any threshold), as an arb ball: one integral against the
normal law, enclosed by arb (steep transitions included: ``acb.integral`` bisects where the
integrand changes fast, with proved error bounds, within :data:`EVAL_LIMIT` evaluations).

(V, L) is bivariate normal. With z = (V - m_V) / s_V standard normal, E[L | z] = m_L + (cov/s_V) z
and var(L | z) = resid / s_V^2, resid = s_V^2 s_L^2 - cov^2 > 0, so

.. math::

    P(C = 1 | z) = \Phi(a z + c), \qquad a = \frac{\mathrm{cov}}{\sqrt{\mathrm{resid}}},\quad
    c = \frac{(m_L - t)\, s_V}{\sqrt{\mathrm{resid}}},

    P(C = 1) = E\,\Phi(a z + c) = \Phi\big(c / \sqrt{1 + a^2}\big),

    \mathrm{MI}(C, V) = H_b\big(\Phi(c/\sqrt{1+a^2})\big) - \int \varphi(z)\, H_b(\Phi(a z + c))\, dz.

The integral is cut to [-T, T] with phi(T) < 2^-(prec+10); since H_b <= ln 2 the rest is at most
2 ln 2 (1 - Phi(T)) <= 2 ln 2 phi(T) / T. For |a| > 1 (a steep step at z = -c/a) the variable is
u = a z + c instead: the integral is (1/|a|) int phi((u - c)/a) H_b(Phi(u)) du, whose second
factor has width 1 wherever the step is; cut to [-T, T] in u, the rest is at most
(2/|a|) phi(0) phi(T), since for u >= 4, q = Phi(-u) <= phi(u)/u and
ln(1/q) <= u^2/2 + ln(sqrt(2 pi)(1 + u^2)/u) (Mills' ratio) give
H_b(q) <= q (1 + ln(1/q)) <= u phi(u), whose integral from T on is phi(T). Phi and 1 - Phi are
written with erfc, so each keeps its relative precision in the tails. (At t = m_L this is Scenario II's skew-normal expectation
with lambda = a: :mod:`fstheory.theory.skew_normal`.)

Examples
--------
>>> import sympy as sp
>>> from fstheory.theory.quadrature import flint_precision
>>> X, Y = sp.symbols("X Y", real=True)
>>> from fstheory.theory.laws import Normal
>>> laws = {X: Normal(0, 1), Y: Normal(0, 1)}
>>> a, c = threshold_parameters(X, {X: 1, Y: sp.Rational(9, 10)}, 1, laws)
>>> a, c
(10/9, -10/9)
>>> with flint_precision(100):
...     b = threshold_class_mi_ball(arb(10) / 9, -arb(10) / 9)
>>> b.str(12, radius=False)
'0.174623522939'
"""

from __future__ import annotations

import math

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.interrupts import acb_integral
from fstheory.theory.arbexpr import NoEnclosure
from fstheory.theory.law_algebra import linear_parts
from fstheory.theory.laws import Normal

__all__ = ["threshold_parameters", "threshold_class_mi_ball", "EVAL_LIMIT"]

#: integrand evaluations arb's quadrature may spend (a steep step, |a| large, needs many
#: bisections around z = -c/a): the work budget, the same on every machine
EVAL_LIMIT = 1_000_000


def threshold_parameters(v: sp.Expr, weights: dict, threshold, laws: dict):
    """(a, c) of the module docstring for the feature ``v`` and the class
    1{sum w_b B_b >= threshold}, exact sympy numbers or expressions; None when a base variable
    involved is not normal, ``v`` or the rule is not linear, or the pair is degenerate
    (resid = 0: the class is a function of V, or V is constant)."""
    bases = sorted(set(v.free_symbols & set(laws)) | set(weights), key=str)
    if not bases or not all(isinstance(laws[b], Normal) for b in bases):
        return None
    lin = linear_parts(sp.expand(v), bases)
    if lin is None:
        return None
    cv, _ = lin
    var = {b: laws[b].params[1] ** 2 for b in bases}
    mean_l = sum(sp.sympify(w) * laws[b].params[0] for b, w in weights.items())
    cov = sum(cv[b] * sp.sympify(weights.get(b, 0)) * var[b] for b in bases)
    var_v = sum(cv[b] ** 2 * var[b] for b in bases)
    var_l = sum(sp.sympify(weights.get(b, 0)) ** 2 * var[b] for b in bases)
    resid = sp.simplify(var_v * var_l - cov**2)
    if resid == 0 or var_v == 0:
        return None
    root = sp.sqrt(resid)
    return sp.simplify(cov / root), sp.simplify((mean_l - sp.sympify(threshold)) * sp.sqrt(var_v)
                                                / root)


def _tail_cut() -> int:
    return int(math.sqrt(2 * (ctx.prec + 10) * math.log(2))) + 2


def threshold_class_mi_ball(a: arb, c: arb) -> arb:
    """MI(C, V) = H_b(Phi(c / sqrt(1 + a^2))) - int phi(z) H_b(Phi(a z + c)) dz (module
    docstring) for balls a, c."""
    if not (a.is_finite() and c.is_finite()):
        raise NoEnclosure("the threshold parameters are not finite")
    s2 = arb(2).sqrt()
    rt = (2 * arb.pi()).sqrt()
    T = _tail_cut()
    aa, cc = acb(a), acb(c)

    def hb_phi(x, analytic):  # H_b(Phi(x)), both probabilities by erfc
        p = (-x / s2).erfc() / 2
        q = (x / s2).erfc() / 2
        return -(p * p.log(analytic=analytic) + q * q.log(analytic=analytic))

    phi_t = (-(arb(T) ** 2) / 2).exp() / rt
    if abs(a) > 1:  # a steep step: u = a z + c, where H_b(Phi(u)) has width 1
        def f(u, analytic):
            z = (u - cc) / aa
            return (-(z * z) / 2).exp() / rt * hb_phi(u, analytic) / abs(a)

        tail = 2 * phi_t / (rt * abs(a))
    else:
        def f(z, analytic):
            return (-(z * z) / 2).exp() / rt * hb_phi(aa * z + cc, analytic)

        tail = 2 * arb(2).log() * phi_t / T
    val = acb_integral(f, -T, T, eval_limit=EVAL_LIMIT)
    if not val.real.is_finite():
        raise NoEnclosure(f"the threshold class integral was not enclosed within "
                          f"{EVAL_LIMIT:,} integrand evaluations")
    h_c = hb_phi(acb(c / (1 + a * a).sqrt()), False).real
    return h_c - val.real - arb(tail / 2, tail / 2)  # the rest of the integral is in [0, tail]
