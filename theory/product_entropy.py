"""h(c X Y + e) for independent base variables X, Y, through logarithms.

The translation e and the factor c only shift: h(c X Y + e) = ln|c| + h(X Y). Each factor is
written as a sign times a scale times a standard nonnegative variable, X = sigma_X s_X R_X with

==========================  ==========  =====  ===================================
law of X                    sign        s_X    R_X
==========================  ==========  =====  ===================================
Unif(0, a) / Unif(-a, 0)    + / -       a      U ~ Unif(0, 1)
Unif(-a, a)                 symmetric   a      U
Exp(rate)                   +           1/rate E ~ Exp(1)
Laplace(0, b)               symmetric   b      E (|X| ~ Exp(1/b))
N(0, s^2)                   symmetric   s      H = |N(0, 1)|
==========================  ==========  =====  ===================================

The sign of X Y is a fixed sign when neither factor is symmetric (H(sign) = 0); when one factor,
say Y, is symmetric, sign(Y) is a fair coin independent of (|Y|, X), so sign(X Y) is a fair coin
independent of |X Y| (H(sign) = ln 2). The law of X Y is then that of the sign times |X Y|, and
h(X Y) = H(sign) + h(|X Y|). With A = ln R_X, B = ln R_Y (independent), |X Y| = s_X s_Y e^(A+B)
and the change of variables r = e^w gives h(e^W) = h(W) + E[W]:

    h(c X Y + e) = ln|c s_X s_Y| + H(sign) + h(A + B) + E[A] + E[B].

The logarithms of the standard variables have closed densities (U: e^a on (-inf, 0], E:
exp(a - e^a), H: sqrt(2/pi) exp(a - e^(2a)/2)) and means E[A] = -1, -gamma, -(gamma + ln 2)/2
(the digamma function at 1 and 1/2). h(A + B) = -int g ln g is one certified integral
(:func:`fstheory.theory.quadrature.certified`) of the density g(w) = e^w f_R(e^w) of
W = ln R, R = R_X R_Y, whose density f_R(r) = int p_X(x) p_Y(r/x) / x dx is closed for the
pairs U E, U H (E1), E E, H H (K_0) (:func:`log_product_density`); the logarithmic singularity of f_R
at 0 is W's exponential tail at -inf, and the tails beyond the integration range are bounded by
:func:`_truncation`. For U, U it is exact: A + B = -Gamma(2, 1), h = 1 + gamma. The pair E H
(an exponential or Laplace factor with a normal one) has no closed f_R: None.

:func:`product_entropy` returns (value, error bound) as arb balls, or None when the feature is
not such a product or a factor's law is not in the table.
"""

from __future__ import annotations

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory import laws as L
from fstheory.theory.arbexpr import compile_expr
from fstheory.theory.feature_maps import classify
from fstheory.theory.quadrature import certified, flint_precision
from fstheory.theory.univariate import Accuracy

__all__ = ["product_entropy", "standard_factor", "log_product_density"]


def standard_factor(law: L.Law):
    """(name, sign, scale) with X = sign * scale * R_name ("+", "-" or "sym" for a fair sign
    independent of |X|), or None when the law is not in the module's table."""
    p = [sp.sympify(q) for q in law.params]
    if isinstance(law, L.Uniform):
        lo, hi = p
        if lo == 0 and hi.is_positive:
            return "U", "+", hi
        if hi == 0 and lo.is_negative:
            return "U", "-", -lo
        if sp.simplify(lo + hi) == 0 and hi.is_positive:
            return "U", "sym", hi
        return None
    if isinstance(law, L.Exponential):
        return "E", "+", 1 / p[0]
    if isinstance(law, L.Laplace) and p[0] == 0:
        return "E", "sym", p[1]
    if isinstance(law, L.Normal) and p[0] == 0:
        return "H", "sym", p[1]
    return None


#: E[ln R] of the standard factors
_MEAN_LOG = {
    "U": lambda: arb(-1),
    "E": lambda: -arb.const_euler(),
    "H": lambda: -(arb.const_euler() + arb(2).log()) / 2,
}


#: sup of the density of R_name (the left tails: P(A < t) <= M e^t)
_SUP_DENSITY = {"U": lambda: arb(1), "E": lambda: arb(1), "H": lambda: (2 / arb.pi()).sqrt()}


def _right_tail(name: str, t: arb) -> tuple:
    """(bound of P(A > t), bound of E[(A - t)+]) for t >= 0: 0 for U; e^(-e^t) and
    E1(e^t) <= e^(-e^t - t) for E; erfc(e^t / sqrt 2) <= e^(-e^(2t)/2) and
    E1(e^(2t)/2)/2 <= e^(-e^(2t)/2 - 2t) for H."""
    if name == "U":
        return arb(0), arb(0)
    if name == "E":
        x = t.exp()
        return (-x).exp(), (-x - t).exp()
    x = (2 * t).exp() / 2
    return (-x).exp(), (-x - 2 * t).exp()


def _tail_entropy(m: arb, mu: arb) -> arb:
    """An upper bound of -int g ln g over a half line beyond a point, for a sub-density g <= 1
    of mass m <= e^(-1/2) whose mean distance to the point times m is mu: the contribution lies
    in [0, m (1 - 2 ln m) + m max(0, ln mu)] (the exponential law has the largest entropy on a
    half line for a given mean; -g ln g >= 0 where g <= 1)."""
    m, mu = arb(m.upper()), arb(mu.upper())
    if m.is_zero():
        return arb(0)
    out = m * (1 - 2 * m.log())
    if mu > 1:
        out += m * mu.log()
    return arb(out.upper())


def _truncation(n1: str, n2: str, tol: arb) -> tuple:
    """(w_lo, w_hi, bound): W = A + B truncated to [w_lo, w_hi] changes h(W) by a number in
    [0, bound], bound <= tol. Left: P(W < w) <= P(A < w/2) + P(B < w/2) <= (M_1 + M_2)
    e^(w/2), and E[(w - W)+] <= E[(w/2 - A)+] + E[(w/2 - B)+] <= (M_1 + M_2) e^(w/2). Right:
    the same split at w/2 with :func:`_right_tail`."""
    ms = _SUP_DENSITY[n1]() + _SUP_DENSITY[n2]()
    w_lo = arb(-20)
    while True:
        m = ms * (w_lo / 2).exp()
        left = _tail_entropy(m, m)
        if left <= tol / 2:
            break
        w_lo -= 10
    if n1 == n2 == "U":
        return w_lo, arb(0), left
    t = arb(1)
    while True:
        (p1, e1), (p2, e2) = _right_tail(n1, t), _right_tail(n2, t)
        right = _tail_entropy(p1 + p2, e1 + e2)
        if right <= tol / 2:
            break
        t += arb(1) / 4
    return w_lo, 2 * t, arb((left + right).upper())


def _scaled(name: str, z: acb) -> acb:
    """u(z) = e^z E1(z) = U(1, 1, z) ("E1") or e^z K_0(z) = sqrt(pi) U(1/2, 1, 2z) ("K0",
    DLMF 13.6.10; arb's K_0 loses its digits for |z| between about 30 and 100) on a complex
    ball with Re z > 0, as u(centre) plus the radius times a bound of |u'| on the ball (arb's
    own propagation of a wide input is far too wide). At the centre, below |z| = 60,
    e^z E1(z) and arb's scaled K_0 with the extra bits their cancellation costs (faster than U
    there). For Re z >= x > 0:
    e^z E1(z) = int_0^oo e^(-z t) / (1 + t) dt, |u'| <= int t e^(-x t) dt <= min(1/x, 1/x^2);
    e^z K_0(z) = int_0^oo e^(-z (cosh t - 1)) dt, so with s = cosh t - 1,
    |u'| <= int_0^oo sqrt(s / (s + 2)) e^(-x s) ds <= min(1/x, sqrt(pi/8) x^(-3/2))."""
    x = z.real.lower()
    if not x > 0:
        return acb("nan")
    z0 = acb(z.real.mid(), z.imag.mid())
    root_pi = arb.pi().sqrt()
    size = float(abs(z0).upper())
    if name == "E1":
        if size < 60:
            # e^z E1(z) directly (several times faster than U there), with the bits its
            # cancellation costs
            with flint_precision(ctx.prec + int(1.5 * size) + 20):
                v0 = z0.exp() * z0.expint(1)
            v0 = +v0
        else:
            v0 = z0.hypgeom_u(1, 1)
        d = min(1 / x, 1 / (x * x))
    else:
        if size < 60:
            with flint_precision(ctx.prec + int(2.5 * size) + 20):
                v0 = z0.bessel_k(0, scaled=True)
            v0 = +v0
        else:
            v0 = root_pi * (2 * z0).hypgeom_u(arb(1) / 2, 1)
        d = min(1 / x, (arb.pi() / 8).sqrt() / (x * x.sqrt()))
    r = arb((z.real.rad() + z.imag.rad()) * arb(d.upper())).upper()
    if r == 0:
        return v0
    return v0 + acb(arb(0, r), arb(0, r))


def log_product_density(n1: str, n2: str):
    """(w, r) -> ln g(w), g(w) = e^w f_R(e^w) the density of W = ln R for R = R_1 R_2
    (standard factors), r = e^w, on complex balls, from f_R(r) = int p_1(x) p_2(r/x) / x dx in
    closed form: U E: E1(r); U H: E1(r^2/2) / sqrt(2 pi) (f = int_r^oo 2 phi(t)/t dt);
    E E: 2 K_0(2 sqrt r); H H: (2/pi) K_0(r) (int_0^oo exp(-a t - b/t) dt/t = 2 K_0(2 sqrt(ab))).
    Written as ln c + w - z + ln u(z) with the slowly varying u of :func:`_scaled` (the factor
    e^(-z) kept as its logarithm: no phase of e^(-z) wraps on a complex ball). None for other
    pairs."""
    pair = "".join(sorted((n1, n2)))
    table = {
        "EU": (arb(0), lambda r: r, "E1"),
        "HU": (-(2 * arb.pi()).log() / 2, lambda r: r * r / 2, "E1"),
        "EE": (arb(2).log(), lambda r: 2 * (r.log(analytic=True) / 2).exp(), "K0"),
        "HH": ((2 / arb.pi()).log(), lambda r: r, "K0"),
    }
    if pair not in table:
        return None
    log_c, zof, name = table[pair]

    def log_g(w, r, analytic):
        z = zof(r)
        return log_c + w - z + _scaled(name, z).log(analytic=analytic)

    return log_g


def _closed_log_entropy(n1: str, n2: str, tol: arb):
    """(h(A + B), error bound): -int g ln g by certified integrals, in w up to w = 0 and in
    r = e^w beyond (where g falls doubly exponentially in w, singly in r: dw = dr / r),
    truncated as :func:`_truncation` says; None for a pair without a closed density."""
    log_g = log_product_density(n1, n2)
    if log_g is None:
        return None
    w_lo, w_hi, bound = _truncation(n1, n2, tol / 4)

    def in_w(m):
        def f(w, an):
            lg = log_g(w, w.exp(), an)
            return -(lg.exp() * lg)
        return f

    def in_r(m):
        def f(r, an):
            lg = log_g(r.log(analytic=an), r, an)
            return -(lg.exp() * lg) / r
        return f

    pts_w = [w_lo, *(arb(p) for p in (-40, -20, -10, -5, -2) if w_lo < p), arb(0)]
    r_hi = w_hi.exp()
    pts_r = [arb(1), *(arb(p) for p in (2, 4, 8, 16, 32, 64, 128, 256, 512, 1024, 2048, 4096)
                       if p < r_hi), r_hi]
    v1, e1 = certified(in_w, pts_w, tol / 4)
    v2, e2 = certified(in_r, pts_r, tol / 4)
    return v1 + v2 + bound / 2, arb((e1 + e2 + bound / 2).upper())


def product_entropy(expr, laws: dict, acc: Accuracy):
    """(h(expr), error bound) for expr = c X Y + e (module docstring), or None."""
    kind, data = classify(expr, laws)
    if kind != "product":
        return None
    b1, b2, c, _ = data
    f1, f2 = standard_factor(laws[b1]), standard_factor(laws[b2])
    if f1 is None or f2 is None:
        return None
    (n1, s1, k1), (n2, s2, k2) = f1, f2
    shift = compile_expr(sp.log(sp.Abs(c) * k1 * k2), [])()
    if "sym" in (s1, s2):
        shift += arb(2).log()
    means = _MEAN_LOG[n1]() + _MEAN_LOG[n2]()
    if n1 == n2 == "U":
        # A + B = -Gamma(2, 1): h = ln Gamma(2) + (1 - 2) psi(2) + 2 = 1 + gamma
        return shift + means + 1 + arb.const_euler(), arb(0)
    got = _closed_log_entropy(n1, n2, acc.tol)
    if got is None:
        return None
    value, error = got
    return shift + means + value, error
