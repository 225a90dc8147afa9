r"""E[H(branch | V)] for two preimages whose log weight ratio is an affine form: one integral.

A pair V = phi(U) of two coordinates with two preimages u and p(u) has the branch entropy
H(branch | V = phi(u)) = H_2(delta(u)), where delta = ln(w_2 / w_1) is the log ratio of the weights
w_j = f_U(p_j(u)) / |J(p_j(u))| and H_2(d) = ln(1 + e^d) - d e^d / (1 + e^d) is the entropy of
the two normalised weights (1, e^d) / (1 + e^d). When

* p maps the support box of U onto itself, coordinate by coordinate (u_i -> +-u_k + c), so that
  both preimages lie in the support wherever u does (no weight switches to 0);
* every coordinate's log-density is one polynomial A + c_1 x + c_2 x^2 on its whole support (no
  interior breakpoint); and
* |J(p(u))| / |J(u)| is a constant,

then delta(u) is a polynomial in u, exactly (the constants cancel symbolically). If it is affine,
delta(u) = a . u + b, then E[H_2(delta(U))] is ONE integral against the law of the linear
combination T = a . U + b of independent base variables (convolution algebra):
E[H(branch | V)] = E[H_2(T)]. Example: (X + Y, X Y) with X ~ Exp(1), Y ~ Exp(2) under the swap
(x, y) -> (y, x): w_2 / w_1 = f_X(y) f_Y(x) / (f_X(x) f_Y(y)) = e^(y - x), so T = Y - X (the
two-dimensional cubature along the switch line needed about 300,000 evaluations; this one
integral a few thousand).
"""

from __future__ import annotations

import sympy as sp
from flint import acb, arb

from fstheory.theory.coordinates import Coordinate
from fstheory.theory.expectation import Integrand, expect
from fstheory.theory.integrands import Weights, num, rat
from fstheory.theory.polyexp import INF
from fstheory.theory.univariate import Unsupported, linear_combination

__all__ = ["line_branch_entropy"]


def _support(c: Coordinate) -> tuple:
    lo, hi = c.law.support()
    return (-sp.oo if lo == -INF else rat(lo)), (sp.oo if hi == INF else rat(hi))


def _preserves_support(system, p) -> bool:
    """p maps the product of the coordinates' supports onto itself, coordinate by coordinate."""
    for c in system.coords:
        image = sp.expand(p[c.symbol])
        own = [s for s in system.symbols if s in image.free_symbols]
        if len(own) != 1:
            return False
        k = own[0]
        a = sp.diff(image, k)
        if a not in (1, -1) or sp.diff(image, k, 2) != 0:
            return False
        shift = image - a * k
        lo, hi = _support(system.coordinate(k))
        ends = sorted((a * lo + shift, a * hi + shift), key=lambda e: (e != -sp.oo, e))
        if tuple(ends) != _support(c):
            return False
    return True


def _h2_value(d: arb) -> arb:
    a = abs(d)
    e = (-a).exp()
    return (e.log1p() + a * e / (1 + e))


def _h2_branch(sign: int):
    """H_2(d) = ln(1 + e^-s) + s e^-s / (1 + e^-s) with s = sign * d (H_2 is even), analytic
    where 1 + e^-s != 0 (|Im s| < pi)."""

    def g(d):
        s = sign * d
        e = (-s).exp()
        return e.log1p() + s * e / (1 + e)

    return g


def line_branch_entropy(system, maps, jac, laws: dict, acc):
    """(E[H(branch | V)], error, method, proved) by one integral (module docstring), or None
    when the hypotheses do not hold."""
    if len(maps) != 2 or len(system.coords) != 2:
        return None
    p = maps[1]
    if not _preserves_support(system, p):
        return None
    for c in system.coords:
        if c.law.breakpoints() or not c.law.closed:
            return None
    jac = sp.sympify(jac)
    if jac.free_symbols:
        ratio = sp.cancel(jac.subs(p, simultaneous=True) / jac)
        if ratio.free_symbols:
            return None
    W = Weights(system, maps, jac)
    mid = []
    for c in system.coords:
        lo, hi = _support(c)
        inner = 0 if lo == -sp.oo and hi == sp.oo else (lo + 1 if hi == sp.oo else
                                                          (hi - 1 if lo == -sp.oo else (lo + hi) / 2))
        mid.append(num(inner))
    mid = tuple(mid)
    if W.live(mid) != [0, 1]:
        return None
    ratios = W.log_ratios(mid, [0, 1], 0)
    if ratios is None:
        return None
    delta, const = ratios[1]
    delta = sp.expand(delta)
    syms = system.symbols
    if not delta.free_symbols or not delta.is_polynomial(*syms) \
            or sp.Poly(delta, *syms).total_degree() != 1:
        return None
    # T = delta(U) - const as a linear combination of the base variables
    poly = sp.Poly(delta, *syms)
    coefs: dict = {}
    for s in syms:
        a = poly.coeff_monomial(s)
        for b, w in system.coordinate(s).coefs.items():
            coefs[b] = coefs.get(b, 0) + a * w
    try:
        law = linear_combination(coefs, poly.coeff_monomial(1), laws, acc)
    except Unsupported:
        return None
    t = sp.Symbol("T_branch_", real=True)
    line = Coordinate(t, coefs, law, False)

    def value(u):
        return _h2_value(u[0] + const)

    def branch(m):
        sign = 1 if (m[0] + const) >= 0 else -1
        g = _h2_branch(sign)
        return lambda z, an: g(acb(z[0]) + const)

    # the two written forms of H_2 are one analytic function: no cut where delta = 0
    F = Integrand(value, branch, arb(2).log(), bounded=True)
    v, e, how, proved = expect([line], F, [], acc)
    return v, e, f"one integral in the log weight ratio, {how}", proved
