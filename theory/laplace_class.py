r"""Scenario III's MI(C_k, V) as arb balls, for the class C_k = 1{X + kY >= 0} with X, Y i.i.d.
Laplace(0, s) and V a non-constant affine function of X, of Y or of X - Y: one integral each over
the half line, enclosed by arb. The engine's point values and the atlas certificate's leaves
(:mod:`fstheory.atlas.certificate.laplace`) both read them from here.

Formulas (derived here; H_b is the binary entropy in nats, g(v) = H_b(e^-v / 2), and every value
is free of the scale s, so s = 1 below). H(C) = ln 2, since X + kY is symmetric and continuous,
and MI(C, V) = ln 2 - H(C | V). MI is unchanged by a bijection of V, so MI(C, aX + b) = MI(C, X)
for every a != 0, of either sign.

* V = X. For k > 0, P(C = 1 | X = x) = P(Y >= -x/k) = F(x/k), which is 1 - e^(-|x|/k)/2 or its
  complement, so H(C | X) = int_0^oo e^-u g(u/k) du = k int_0^oo e^(-kw) g(w) dw (u = kw).
* V = Y. P(C = 1 | Y = y) = P(X >= -ky) = F(ky): H(C | Y) = int_0^oo e^-u g(ku) du.
* V = D = X - Y. Given D = d >= 0 the density of Y is proportional to e^(-|y| - |y + d|):
  e^(2y + d) below -d, e^-d on [-d, 0], e^(-2y - d) above 0, of total mass (1 + d) e^-d, so
  f_D(d) = (1 + |d|) e^-|d| / 4. C = 1 iff Y >= -d/(1 + k), a point of [-d, 0], hence

      p_k(d) = P(C = 1 | D = d) = (1/2 + d/(1 + k)) / (1 + d) = (1 + k + 2d) / (2 (1 + k)(1 + d)),
      1 - p_k(d) = (1 + k + 2kd) / (2 (1 + k)(1 + d)),

  and p_k(-d) = 1 - p_k(d) ((X, Y) -> (-X, -Y)), so H(C | D) = (1/2) int_0^oo (1 + d) e^-d
  H_b(p_k(d)) dd.

Monotonicity (strict on [0, 1]; H_b increases on [0, 1/2] and decreases on [1/2, 1]):

* MI(C, X) decreases: e^(-u/k)/2 <= 1/2 increases with k for u > 0, so g(u/k) increases.
* MI(C, Y) increases: e^(-ku)/2 decreases with k, so g(ku) decreases.
* MI(C, X - Y) decreases: p_k(d) - 1/2 = (1 - k) d / (2 (1 + k)(1 + d)) >= 0 decreases with k,
  so H_b(p_k(d)) increases.

Derivatives (under the integral; q(v) = p (v + ln 2 + ln(1 - p)) = p ln((1 - p)/p) >= 0 with
p = e^-v / 2): MI(C, X)' = -int_0^oo e^(-kw) w q(w) dw, MI(C, Y)' = int_0^oo e^-u u q(ku) du,
MI(C, X - Y)' = (1 / (2 (1 + k)^2)) int_0^oo e^-d d ln((1 - p_k)/p_k) dd.

Ends of the range: at k = 0 the class is 1{X >= 0}, a function of X and independent of Y, so
MI(C_0, X) = ln 2 and MI(C_0, Y) = 0; at k = 1 the map (X, Y) -> (-Y, -X) fixes X - Y and swaps
the classes, so MI(C_1, X - Y) = 0, and MI(C_1, X) = MI(C_1, Y) = ln 2 - 1/2 (with p = e^-u/2,
int_0^oo e^-u g(u) du = 2 int_0^(1/2) H_b(p) dp = 1/2, as in Scenario I). The leaves are
continuous there: k int e^(-kw) g(w) dw <= k int g < oo gives MI(C, X) -> ln 2; g(ku) -> g(0)
= ln 2 under the bound ln 2 gives MI(C, Y) -> 0; p_k(d) -> 1/2 as k -> 1 gives MI(C, X - Y) -> 0;
and the X - Y formula holds at k = 0 itself.

Enclosures: each integral is cut at R and enclosed by arb's ``acb.integral`` (with k a ball, the
enclosure holds for every k in the ball); the tails are bounded with g(w) <= e^-w (w + 1 + ln 2)/2
(from -(1 - p) ln(1 - p) <= p) and g <= ln 2: at most ln 2 e^-R (Y), k e^-R (R + 2 + ln 2)/2
(X), (ln 2/2) (R + 2) e^-R (X - Y); for the derivatives q(v) <= p (v + ln 2) and
|ln(p_k/(1 - p_k))| <= 2d/(1 + k) give e^-R (R^2 + 2R + 2 + ln 2 (R + 1))/2 (X, Y) and, for
the integral before its factor, 2 e^-R (R^2 + 2R + 2) (X - Y). Over a cell of k the value is
the hull of the two end values (strict at an excluded end), the derivative one integral with k
the cell's ball, intersected with the sign the integrands give it.

Small parameters, without the cancellation of ln 2 against an integral close to it: with
t = 1 - 2p the distance of P(C = 1 | V) from 1/2, ln 2 - H_b((1 + t)/2) = t^2 G(t^2),
G(s) = sum_{n >= 1} s^(n-1) / (2n (2n-1)) (:mod:`fstheory.theory.skew_normal`), and
int_0^oo e^-u g(ku) du = 1 and (1/2) int_0^oo (1 + d) e^-d dd = 1 give

* MI(C_k, Y) = k^2 int_0^oo e^-u u^2 M(ku)^2 G(t^2) du, t = -expm1(-ku) = ku M(ku),
  M(v) = sum_n (-v)^n / (n+1)!, for k R <= 1/8 (R the cut); the tail past R is at most
  ln 2 e^-R (R^2 + 2R + 2) (M <= 1 and G <= ln 2 on the real line);
* MI(C_k, X - Y) = c^2 (1/2) int_0^oo (1 + d) e^-d (d/(1+d))^2 G(t^2) dd, c = (1-k)/(1+k),
  t = c d/(1 + d), for c <= 1/8; the tail is at most (ln 2 / 2)(R + 2) e^-R.

Examples
--------
>>> from fstheory.theory.quadrature import flint_precision
>>> with flint_precision(100):
...     x, y = class_mi_ball("X", arb(1)), class_mi_ball("Y", arb(1))
...     tiny = class_mi_ball("Y", arb(10) ** -40)
>>> x.overlaps(arb(2).log() - arb(1) / 2), y.overlaps(x), x.rad() < 1e-25
(True, True, True)
>>> tiny.rad() < abs(tiny.mid()) * 1e-25
True
"""

from __future__ import annotations

import math

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.interrupts import acb_integral
from fstheory.theory.arbexpr import NoEnclosure
from fstheory.theory.class_pairs import recognise_pair
from fstheory.theory.skew_normal import g_ratio, bounded_series

__all__ = ["WHICH", "class_mi_ball", "class_mi_derivative_ball", "class_mi_expression",
           "recognise"]

#: The three functions of k, with the sign of their derivative on (0, 1).
WHICH = {"X": -1, "Y": 1, "X-Y": -1}

_U = sp.Symbol("u", positive=True)


def _cut(prec: int) -> int:
    """The cut R of the half line: e^-R R^2 below 2^-(prec + 10)."""
    return int((prec + 10) * math.log(2) + 2 * math.log(prec + 100)) + 4


def _hb(p, analytic):
    return -(p * p.log(analytic=analytic) + (1 - p) * (1 - p).log(analytic=analytic))


def _integral(f, R: int, rel_tol=None) -> arb:
    kw = {} if rel_tol is None else {"rel_tol": rel_tol, "eval_limit": 4000}
    val = acb_integral(f, 0, R, **kw)
    if not val.real.is_finite():
        raise NoEnclosure("the Laplace class integral was not enclosed")
    return val.real


def class_mi_ball(which: str, k: arb, k1: arb | None = None) -> arb:
    """MI(C_k, V) for V = X, Y or X - Y (``which``), a ball containing the value at every k of
    the ball ``k`` (0 <= k <= 1), by the formulas of the module docstring. ``k1`` is 1 - k when
    the caller has it without cancellation (k = 1 - 10^-30 given exactly), else computed."""
    R = _cut(ctx.prec)
    ln2 = arb(2).log()
    kk = acb(k)
    e = (-arb(R)).exp()
    if which == "Y" and k.lower() >= 0 and k.upper() * R <= arb(1) / 8:
        return _small_y(k, R)
    if which == "X-Y":
        c = (1 - k if k1 is None else k1) / (1 + k)
        if c.lower() >= 0 and c.upper() <= arb(1) / 8:
            return _small_difference(c, R)
    if which == "X":
        def f(w, analytic):  # e^(-kw) g(w), g(w) = p (w + ln 2) - (1 - p) ln(1 - p)
            p = (-w).exp() / 2
            return (-kk * w).exp() * (p * (w + ln2) - (1 - p) * (1 - p).log(analytic=analytic))
        return ln2 - k * _integral(f, R) - arb(0, abs(k).upper() * e * (R + 2 + ln2) / 2)
    if which == "Y":
        def f(u, analytic):
            v = kk * u
            p = (-v).exp() / 2
            return (-u).exp() * (p * (v + ln2) - (1 - p) * (1 - p).log(analytic=analytic))
        return ln2 - _integral(f, R) - arb(0, ln2 * e)
    if which == "X-Y":
        def f(d, analytic):
            den = 2 * (1 + kk) * (1 + d)
            p = (1 + kk + 2 * d) / den
            return (-d).exp() * (1 + d) * _hb(p, analytic) / 2
        return ln2 - _integral(f, R) - arb(0, ln2 * (R + 2) * e / 2)
    raise ValueError(f"which must be one of {sorted(WHICH)}, got {which!r}")


def _expm1_ratio(v: acb) -> acb:
    """M(v) = -expm1(-v) / v = sum_n (-v)^n / (n+1)!."""
    return bounded_series(-v, lambda n: arb(1) / arb.fac_ui(n + 1))


def _small_y(k: arb, R: int) -> arb:
    """MI(C_k, Y) for k R <= 1/8 (module docstring)."""
    kk = acb(k)

    def f(u, analytic):
        m = _expm1_ratio(kk * u)
        t = kk * u * m
        return (-u).exp() * u * u * m * m * g_ratio(t * t)

    tail = arb(2).log() * (-arb(R)).exp() * (R * R + 2 * R + 2)
    return k * k * (_integral(f, R) + arb(tail / 2, tail / 2))


def _small_difference(c: arb, R: int) -> arb:
    """MI(C_k, X - Y) for c = (1-k)/(1+k) <= 1/8 (module docstring)."""
    cc = acb(c)

    def f(d, analytic):
        r = d / (1 + d)
        t = cc * r
        return (1 + d) * (-d).exp() * r * r * g_ratio(t * t) / 2

    tail = arb(2).log() / 2 * (R + 2) * (-arb(R)).exp()
    return c * c * (_integral(f, R) + arb(tail / 2, tail / 2))


def class_mi_derivative_ball(which: str, k: arb) -> arb:
    """d/dk MI(C_k, V) over the ball ``k`` (module docstring). Only a coarse enclosure is needed
    (the sign of a difference's derivative over a cell): relative tolerance 2^-24."""
    R = _cut(ctx.prec)
    ln2 = arb(2).log()
    kk = acb(k)
    tol = arb(2) ** -24
    e = (-arb(R)).exp()
    qtail = e * (R * R + 2 * R + 2 + ln2 * (R + 1)) / 2

    def q(v, analytic):  # p ln((1 - p)/p), p = e^-v / 2
        p = (-v).exp() / 2
        return p * (v + ln2 + (1 - p).log(analytic=analytic))

    if which == "X":
        return -_integral(lambda w, a: (-kk * w).exp() * w * q(w, a), R, tol) + arb(0, qtail)
    if which == "Y":
        return _integral(lambda u, a: (-u).exp() * u * q(kk * u, a), R, tol) + arb(0, qtail)
    if which == "X-Y":
        def f(d, analytic):
            ratio = (1 + kk + 2 * kk * d) / (1 + kk + 2 * d)  # (1 - p)/p
            return (-d).exp() * d * ratio.log(analytic=analytic)
        val = _integral(f, R, tol) + arb(0, 2 * e * (R * R + 2 * R + 2))
        return val / (2 * (1 + k) ** 2)
    raise ValueError(f"which must be one of {sorted(WHICH)}, got {which!r}")


def class_mi_expression(which: str, k: sp.Expr) -> sp.Expr:
    """The exact value at a point k (sympy): in closed form at k = 0 and 1 (the module
    docstring), else ln 2 minus the integral. MI(C_1, X) = MI(C_1, Y) = ln 2 - 1/2, one
    expression, so the exact world sees their tie."""
    k = sp.sympify(k)
    u = _U

    def hb(p):
        return -p * sp.log(p) - (1 - p) * sp.log(1 - p)

    if which in ("X", "Y") and k == 1:
        return sp.log(2) - sp.Rational(1, 2)
    if which == "X":
        if k == 0:
            return sp.log(2)
        body = sp.exp(-u) * hb(sp.exp(-u / k) / 2)
    elif which == "Y":
        if k == 0:
            return sp.Integer(0)
        body = sp.exp(-u) * hb(sp.exp(-k * u) / 2)
    elif which == "X-Y":
        if k == 1:
            return sp.Integer(0)
        body = sp.exp(-u) * (1 + u) * hb((1 + k + 2 * u) / (2 * (1 + k) * (1 + u))) / 2
    else:
        raise ValueError(f"which must be one of {sorted(WHICH)}, got {which!r}")
    return sp.log(2) - sp.Integral(body, (u, 0, sp.oo))




# ----- recognising the structure ------------------------------------------------------------------


def _same_laplace(l1, l2) -> bool:
    return (l1.name == l2.name == "laplace" and l1.param("mu") == 0 == l2.param("mu")
            and l1.param("b") == l2.param("b"))


def recognise(scenario, fixed: dict, feature: sp.Expr, swept: sp.Symbol | None):
    """(which, k) when MI(C, ``feature``) of ``scenario`` is one of this module's functions: the
    class rule is 1{A + k B >= 0} with A, B base variables of the same Laplace(0, s) law, k the
    swept symbol ``swept`` (a parameter with domain [0, 1]) or a number in [0, 1] once ``fixed``
    (parameter symbol -> value) is substituted, and the feature is c A + e, c B + e or
    c (A - B) + e with c a nonzero number (e free of A and B). None otherwise
    (:func:`fstheory.theory.class_pairs.recognise_pair`)."""
    return recognise_pair(scenario, fixed, feature, swept, _same_laplace)
