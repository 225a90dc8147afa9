r"""The skew-normal expectation of Scenario II as arb balls: F(mu) = E[ln 2 Phi(mu A)],
A ~ SN(0, 1, mu), which is MI(C, V) when V is standard normal and P(C = 1 | V = v) = Phi(mu v)
(:func:`fstheory.theory.law_algebra.skew_normal_mi` writes it as a sympy integral). The engine's
point values and the atlas certificate's leaves both read it from here.

Formulas (H_b the binary entropy in nats, phi and Phi the standard normal density and law):

* F(mu) = ln 2 - 2 int_0^oo phi(v) H_b(Phi(mu v)) dv, and for mu > 1 after w = mu v,
  ln 2 - (2/mu) int_0^oo phi(w/mu) H_b(Phi(w)) dw; the range is cut at T with the tail bounded
  by 2 ln 2 phi(T)/T, and 4 phi(T) / (mu sqrt(2 pi)) (docs/atlas.md);
* small mu (mu <= 2^-8), without the cancellation of ln 2 against an integral close to it:
  with t = erf(x / sqrt 2) = 2 Phi(x) - 1,

  .. math::

      \ln 2 - H_b\big(\tfrac{1+t}{2}\big) = t^2 G(t^2), \qquad
      G(s) = \sum_{n \ge 1} \frac{s^{n-1}}{2n(2n-1)}

  (integrate ln(1+t) - ln(1-t) = 2 sum t^(2n-1)/(2n-1) twice), and t = x E(x) with
  E(x) = erf(x/sqrt 2)/x = sqrt(2/pi) sum_n (-1)^n (x^2/2)^n / (n! (2n+1)), so

  .. math::

      F(\mu) = \mu^2 \cdot 2\int_0^\infty \varphi(v)\, v^2 E(\mu v)^2 G(t^2)\, dv,

  an integrand with no cancellation (F(mu) ~ mu^2/pi). For real x, E(x)^2 <= 2/pi and
  G(s) <= G(1) = ln 2, so the tail past T is at most (4 ln 2 / pi) phi(T) (T + 1/T)
  (int_T^oo v^2 phi = T phi(T) + 1 - Phi(T) <= phi(T) (T + 1/T)). Both series are summed to a
  term below 2^-(prec+10) with the rest bounded geometrically (coefficients at most 1 in
  absolute value once |x^2/2| < 1 and |s| < 1, checked on the ball);
* F'(mu) and the slope at a pole, for the certificate (:func:`skew_normal_mi_derivative_ball`,
  :func:`skew_normal_mi_pole_slope_ball`).

Examples
--------
>>> from fstheory.theory.quadrature import flint_precision
>>> with flint_precision(80):
...     b = skew_normal_mi_ball(arb(1) / 5)
>>> b.overlaps(arb("0.012395307153215386090698424")), b.rad() < 1e-20
(True, True)
>>> with flint_precision(120):
...     tiny = skew_normal_mi_ball(arb(10) ** -30)     # mu^2 / pi (1 + O(mu^2))
...     r = tiny * arb.pi() * arb(10) ** 60 - 1
>>> r.abs_upper() < 1e-30
True
"""

from __future__ import annotations

import math

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.interrupts import acb_integral
from fstheory.theory.arbexpr import NoEnclosure

__all__ = ["skew_normal_mi_ball", "skew_normal_mi_derivative_ball",
           "skew_normal_mi_pole_slope_ball", "skew_normal_argument", "SMALL_MU"]

#: below this mu the cancellation-free form is used
SMALL_MU = arb(2) ** -8


def _tail_cut() -> int:
    """Truncation T of the half line: phi(T) < 2^-(prec+10)."""
    return int(math.sqrt(2 * (ctx.prec + 10) * math.log(2))) + 2


def _phi_bound(T: int) -> arb:
    return (-(arb(T) ** 2) / 2).exp() / (2 * arb.pi()).sqrt()


def skew_normal_mi_ball(mu: arb) -> arb:
    r"""F(mu) = E[ln 2 Phi(mu A)], A ~ SN(0, 1, mu), for a ball mu >= 0 (a point or an interval of
    mu: the ball contains F at every mu in it); the module docstring gives the formulas."""
    if not mu.is_finite():
        raise NoEnclosure("mu is not finite")
    if mu.is_zero():
        return arb(0)
    if mu.upper() <= SMALL_MU and mu.lower() >= 0:
        return _small_mu_ball(mu)
    T = _tail_cut()
    s2 = arb(2).sqrt()
    rt = (2 * arb.pi()).sqrt()
    big = mu.lower() > 1
    m = acb(mu)

    def hb(x, analytic):  # H_b(Phi(x)), Phi(x) = erfc(-x/sqrt 2)/2, 1 - Phi(x) = erfc(x/sqrt 2)/2
        p = (-x / s2).erfc() / 2
        q = (x / s2).erfc() / 2
        # log has a branch cut: acb.integral needs it to say where it is not analytic
        return -(p * p.log(analytic=analytic) + q * q.log(analytic=analytic))

    if big:
        def f(w, analytic):
            v = w / m
            return 2 * (-(v * v) / 2).exp() / rt * hb(w, analytic) / m
        tail = 4 * _phi_bound(T) / (mu * rt)
    else:
        def f(v, analytic):
            return 2 * (-(v * v) / 2).exp() / rt * hb(m * v, analytic)
        tail = 2 * arb(2).log() * _phi_bound(T) / T
    val = acb_integral(f, 0, T)
    if not val.real.is_finite():
        raise NoEnclosure("the skew-normal integral was not enclosed")
    return arb(2).log() - val.real - arb(0, tail)  # the tail is >= 0: widen down by it


def bounded_series(z: acb, coefficient) -> acb:
    """sum_n c_n z^n with |c_n| <= 1 and |z| < 1/2: summed until |z|^n falls below
    2^-(prec+10), the rest bounded by 2 |z|^n (geometric). A non-finite ball where |z| may
    reach 1/2 (inside ``acb.integral`` that makes it bisect the box; an integrand must not
    raise)."""
    r = abs(z).upper()
    if not r < arb(1) / 2:
        return acb("nan")
    eps = arb(2) ** -(ctx.prec + 10)
    total, power, n = acb(0), acb(1), 0
    bound = arb(1)
    while True:
        total += coefficient(n) * power
        n += 1
        power = power * z
        bound = bound * r
        if n > 2 and bound < eps:
            break
    tail = 2 * bound
    return total + acb(arb(0, tail), arb(0, tail))


def _erf_ratio(x: acb) -> acb:
    """E(x) = erf(x / sqrt 2) / x = sqrt(2/pi) sum_n (-1)^n (x^2/2)^n / (n! (2n+1))."""
    y2 = x * x / 2
    terms = bounded_series(y2, lambda n: arb(-1 if n % 2 else 1) / (arb.fac_ui(n) * (2 * n + 1)))
    return (2 / arb.pi()).sqrt() * terms


def g_ratio(s: acb) -> acb:
    """G(s) = sum_{n >= 1} s^(n-1) / (2n (2n-1))."""
    return bounded_series(s, lambda n: arb(1) / ((2 * n + 2) * (2 * n + 1)))


def _small_mu_ball(mu: arb) -> arb:
    T = _tail_cut()
    rt = (2 * arb.pi()).sqrt()
    m = acb(mu)

    def f(v, analytic):
        x = m * v
        e = _erf_ratio(x)
        t = x * e
        return 2 * (-(v * v) / 2).exp() / rt * v * v * e * e * g_ratio(t * t)

    val = acb_integral(f, 0, T)
    if not val.real.is_finite():
        raise NoEnclosure("the skew-normal integral (small mu) was not enclosed")
    tail = 4 * arb(2).log() / arb.pi() * _phi_bound(T) * (T + arb(1) / T)
    return mu * mu * (val.real + arb(tail / 2, tail / 2))  # the tail is >= 0


def skew_normal_mi_derivative_ball(mu: arb) -> arb:
    r"""F'(mu) = 2 int_0^oo v phi(v) phi(mu v) ln(Phi(mu v) / Phi(-mu v)) dv >= 0 over a ball of
    mu >= 0 (0 at mu = 0; for mu > 1 after w = mu v: (2/mu^2) int_0^oo w phi(w/mu) phi(w) ln(Phi(w)/Phi(-w)) dw),
    the range cut at T with the tail bounded by 2 (T^2 + 2) phi(T) / sqrt(2 pi) (for x >= 3,
    ln(Phi(x)/Phi(-x)) <= x^2 by Mills' ratio, and int_T^oo v^3 phi(v) dv = (T^2 + 2) phi(T)).

    Only a coarse enclosure is needed (the sign of a derivative over a cell): the quadrature
    stops at a relative tolerance 2^-24, which keeps a wide ball of mu cheap."""
    m = acb(mu)
    if mu.lower() > 1:
        def f(w, analytic, phi, logit):
            return 2 * w * phi(w / m) * phi(w) * logit(w, analytic) / (m * m)
    else:
        def f(v, analytic, phi, logit):
            return 2 * v * phi(v) * phi(m * v) * logit(m * v, analytic)
    return _logit_quadrature(f)


def skew_normal_mi_pole_slope_ball(s: arb) -> arb:
    r"""L(s) = F'(1/s) / s^2 = 2 int_0^oo w phi(s w) phi(w) ln(Phi(w) / Phi(-w)) dw for a point
    s >= 0 (the form of :func:`skew_normal_mi_derivative_ball` for mu > 1 with s = 1/mu, which
    stays finite as mu -> +inf: L(0) = 2 phi(0) int_0^oo H_b(Phi(w)) dw = 0.72065...).

    The integrand is >= 0 and decreasing in s (phi(s w) is, for w >= 0), so L is decreasing in s
    and L(s) for s in [s0, s1] lies in [L(s1), L(s0)]. The tail past T is bounded as in
    :func:`skew_normal_mi_derivative_ball` (phi(s w) <= phi(0))."""
    sc = acb(s)

    def f(w, analytic, phi, logit):
        return 2 * w * phi(sc * w) * phi(w) * logit(w, analytic)

    return _logit_quadrature(f)


def _logit_quadrature(f) -> arb:
    """int_0^T f(w, analytic, phi, logit) dw (phi the normal density, logit(x) =
    ln(Phi(x)/Phi(-x))) at relative tolerance 2^-24, widened by the tail bound
    2 (T^2 + 2) phi(T) / sqrt(2 pi) of :func:`skew_normal_mi_derivative_ball`."""
    T = _tail_cut()
    s2 = arb(2).sqrt()
    rt = (2 * arb.pi()).sqrt()

    def logit(x, analytic):
        return ((-x / s2).erfc()).log(analytic=analytic) - ((x / s2).erfc()).log(
            analytic=analytic)

    def phi(x):
        return (-(x * x) / 2).exp() / rt

    val = acb_integral(lambda w, analytic: f(w, analytic, phi, logit), 0, T,
                       rel_tol=arb(2) ** -24, eval_limit=4000)
    if not val.real.is_finite():
        raise NoEnclosure("the derivative integral was not enclosed")
    tail = 2 * (arb(T) ** 2 + 2) * _phi_bound(T) / rt
    return val.real + arb(0, tail)


def skew_normal_argument(expr: sp.Expr):
    """mu(t) >= 0 with ``expr`` = F(mu(t)) exactly as :func:`fstheory.theory.law_algebra.skew_normal_mi`
    writes it, or None when ``expr`` is not such an expectation."""
    from fstheory.theory.law_algebra import skew_normal_mi

    if not isinstance(expr, sp.Integral) or len(expr.limits) != 1:
        return None
    u = expr.limits[0][0]
    args = {a.args[0] for a in expr.function.atoms(sp.erfc)}
    if len(args) != 1:
        return None
    mu = sp.simplify(args.pop() * sp.sqrt(2) / u)
    if mu.has(u):
        return None
    d = sp.Dummy("mu", positive=True)
    target = skew_normal_mi(d)
    arg0 = list(expr.function.atoms(sp.erfc))[0].args[0]
    if expr.function.xreplace({arg0: d * u / sp.sqrt(2)}) != target.function.xreplace(
            {target.limits[0][0]: u}):
        return None
    return sp.Abs(mu)
