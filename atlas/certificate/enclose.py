r"""Rigorous enclosures of a scenario's inputs over a cell of the swept parameter: the leaves of
the atlas certificate's interval world (:mod:`fstheory.atlas.certificate.interval`).

Every quantity (h(V_i), MI(C, V_i), MI(V_i, V_j)) of a sweep becomes a *leaf*, one per distinct
function of the swept parameter t (MI(C, X) and MI(C, 3X+1) share one), enclosed over a
:class:`Cell` with python-flint's arb balls (every rounding error bounded):

structure
    0 (identically: the exact world's exact zero) or +inf.
constants
    closed forms without t: evaluated as arb balls (:func:`arb_of`, integrals over finite ranges
    by ``acb.integral``, the integrals of MI(Y^2, X-Y) in Scenarios II and III, singular at an end
    or over the half line, with the proved end bounds of :mod:`fstheory.atlas.certificate.constants`);
    the skew-normal expectations by :func:`skew_normal_mi_ball`.
:class:`GenericLeaf`
    an elementary closed form in t (entropies over delta or sigma; ln 2 - k/2): the expression
    and its derivative evaluated on the cell as a ball (a valid, if wide, enclosure). Where the
    derivative's enclosure excludes 0 the value's range is the hull of the two end values,
    strict at an end that is excluded from the cell.
:class:`UniformClassLeaf`
    Scenario I's MI(C_k, Y) and MI(C_k, X-Y), 0/0 at k = 0 and with ln(1-k) at k = 1. Both are
    power series with the signs below (docs/atlas.md proves them), so on [0, 1] each value and
    each derivative is monotone, and the range over a cell is the hull of the end values:

    * MI(C_k, Y) = sum_{n odd >= 3} k^(n-1) / (n (n-1) (n-2)): increasing and convex;
    * 4 MI(C_k, X-Y) = 1 - 3k/2 + sum_{j >= 2} 2 k^j / ((j-1) j (j+1)): decreasing and convex
      (its derivative rises to 0 at k = 1).

    Point values: the series with a geometric tail bound for k <= 1/2, the closed form in arb
    above, the limits at k = 1.
:class:`SkewNormalLeaf`
    Scenario II's MI(C, V) = F(|lambda(t)|) with F(mu) = E[ln 2 Phi(mu A)], A ~ SN(0, 1, mu),
    strictly increasing in mu >= 0 (docs/atlas.md), and |lambda(t)| monotone between its
    critical points (found exactly with sympy). The range over a cell is the hull of F at the
    ends (and at a critical point inside); F(0) = 0 and F(+inf) = ln 2 exactly. The derivative
    F'(mu) |lambda|'(t) uses F' over the cell's range of mu as one certified integral with mu a
    ball.

A value that cannot be enclosed (a numerical-route value, an integral over an infinite range
that is not a skew-normal expectation) raises :class:`NoEnclosure` with the reason: the
certificate then does not apply.

Examples
--------
>>> import sympy as sp
>>> k = sp.Symbol("k", positive=True)
>>> with working_precision(80):
...     b = skew_normal_mi_ball(arb_of(sp.Rational(1, 5)))
>>> b.overlaps(arb("0.012395307153215386090698424")), b.rad() < 1e-20
(True, True)
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass
from fractions import Fraction

import mpmath
import sympy as sp
from flint import acb, arb, ctx

from fstheory.atlas.certificate.interval import IX
from fstheory.atlas.values import man_exp
from fstheory.theory.interrupts import acb_integral
from fstheory.theory.symbolic import exact_nsimplify

__all__ = ["Cell", "NoEnclosure", "arb_of", "to_ix", "working_precision", "skew_normal_mi_ball",
           "skew_normal_mi_derivative_ball", "skew_normal_mi_pole_slope_ball", "uniform_series",
           "Leaf", "ConstLeaf", "GenericLeaf", "UniformClassLeaf", "SkewNormalLeaf",
           "CellMemoLeaf", "skew_normal_argument"]


class NoEnclosure(Exception):
    """A quantity has no rigorous enclosure here (the reason is the message)."""


@contextlib.contextmanager
def working_precision(bits: int):
    old = ctx.prec
    ctx.prec = bits
    try:
        yield
    finally:
        ctx.prec = old


@dataclass(frozen=True)
class Cell:
    """[lo, hi] in the swept parameter (mpf or exact sympy numbers); ``open_lo``/``open_hi``
    exclude an end (a special point whose own values differ). ``lo is hi`` (or equal) for a
    point."""

    lo: object
    hi: object
    open_lo: bool = False
    open_hi: bool = False

    @property
    def is_point(self) -> bool:
        return self.lo == self.hi


# ----- numbers -------------------------------------------------------------------------------------


def _arb_from_mpf(x: mpmath.mpf) -> arb:
    if mpmath.isinf(x):
        return arb.pos_inf() if x > 0 else arb.neg_inf()
    man, exp = man_exp(x)
    return arb(man) * arb(2) ** exp if exp >= 0 else arb(man) / arb(2) ** (-exp)


def arb_of(x, env: dict | None = None):
    """A ball (arb, or acb inside an integral) containing the value of the sympy expression,
    number, Fraction or mpf ``x``; ``env`` maps free symbols to balls."""
    if isinstance(x, mpmath.mpf):
        return _arb_from_mpf(x)
    if isinstance(x, Fraction):
        return arb(x.numerator) / x.denominator
    if isinstance(x, int):
        return arb(x)
    return _compile(sp.sympify(x), env or {})


_FUNCS = {sp.log: "log", sp.exp: "exp", sp.erfc: "erfc", sp.erf: "erf", sp.sin: "sin",
          sp.cos: "cos"}


def _branch(x, name: str, analytic: bool):
    """log or sqrt of a ball; inside an integrand (acb) with acb.integral's ``analytic`` flag, so
    that a ball that meets the branch cut is not taken as analytic there."""
    return getattr(x, name)(analytic=analytic) if isinstance(x, acb) else getattr(x, name)()


def _compile(e: sp.Expr, env: dict, analytic: bool = False):
    if e.is_Symbol:
        if e not in env:
            raise NoEnclosure(f"free symbol {e} in a constant")
        return env[e]
    if e.is_Integer:
        return arb(int(e))
    if e.is_Rational:
        return arb(int(e.p)) / int(e.q)
    if e is sp.pi:
        return arb.pi()
    if e is sp.E:
        return arb.const_e()
    if e is sp.EulerGamma:
        return arb.const_euler()
    if e.is_Float:
        return _arb_from_mpf(mpmath.mpf(e))
    if e.is_Add:
        out = arb(0)
        for a in e.args:
            out = out + _compile(a, env, analytic)
        return out
    if e.is_Mul:
        out = arb(1)
        for a in e.args:
            out = out * _compile(a, env, analytic)
        return out
    if e.is_Pow:
        base = _compile(e.base, env, analytic)
        if e.exp.is_Integer:
            n = int(e.exp)
            out = arb(1) if not isinstance(base, acb) else acb(1)
            for _ in range(abs(n)):
                out = out * base
            return 1 / out if n < 0 else out
        if e.exp == sp.Rational(1, 2):
            return _branch(base, "sqrt", analytic)
        if e.exp == sp.Rational(-1, 2):
            return 1 / _branch(base, "sqrt", analytic)
        return (_compile(e.exp, env, analytic) * _branch(base, "log", analytic)).exp()
    if isinstance(e, sp.Abs):
        v = _compile(e.args[0], env, analytic)
        if isinstance(v, acb):
            raise NoEnclosure("|x| inside an integrand is not analytic")
        return abs(v)
    if isinstance(e, sp.atan):  # (branch cuts off the real line: not inside an integrand)
        v = _compile(e.args[0], env, analytic)
        if isinstance(v, acb):
            raise NoEnclosure("atan inside an integrand")
        return v.atan()
    if isinstance(e, sp.polygamma) and e.args[0] == 0:
        return _compile(e.args[1], env, analytic).digamma()
    if isinstance(e, sp.expint):  # E_s(z) (Scenario III's h(X-Y) has E_1(1))
        return _compile(e.args[1], env, analytic).expint(_compile(e.args[0], env, analytic))
    for f, name in _FUNCS.items():
        if isinstance(e, f):
            x = _compile(e.args[0], env, analytic)
            return _branch(x, name, analytic) if name == "log" else getattr(x, name)()
    if isinstance(e, sp.Integral):
        return _integral(e, env)
    raise NoEnclosure(f"no ball rule for {e.func.__name__}")


def _integral(e: sp.Integral, env: dict) -> arb:
    if len(e.limits) != 1 or len(e.limits[0]) != 3:
        raise NoEnclosure("only one-dimensional definite integrals")
    from fstheory.atlas.certificate.constants import special_integral_ball

    special = special_integral_ball(e)
    if special is not None:  # an integrand arb cannot evaluate at an end: proved end bounds
        return special
    var, a, b = e.limits[0]
    if not (a.is_finite and b.is_finite):
        raise NoEnclosure("an integral over an infinite range (not a skew-normal expectation)")
    lo, hi = _compile(a, env), _compile(b, env)
    body = e.function

    def f(z, analytic):
        inner = dict(env)
        inner[var] = z
        return acb(_compile(body, inner, analytic))

    val = acb_integral(f, acb(lo), acb(hi))
    if not val.real.is_finite() or not val.imag.contains(0):
        raise NoEnclosure(f"the integral {e} was not enclosed")
    return val.real


def to_ix(a: arb, dlo=None, dhi=None, slo=False, shi=False) -> IX:
    """An arb ball as an IX enclosure (ends rounded outward at mpmath's precision)."""
    if not a.is_finite():
        raise NoEnclosure("a ball is not finite")
    lo = _mpf_down(a.lower())
    hi = _mpf_up(a.upper())
    return IX("finite", lo, hi, slo, shi, False, dlo, dhi)


def _mpf_round(x: arb, rnd: str) -> mpmath.mpf:
    man, exp = x.mid().man_exp()
    return mpmath.mpf(mpmath.libmp.from_man_exp(int(man), int(exp), mpmath.mp.prec, rnd))


def _mpf_down(x: arb) -> mpmath.mpf:
    return _mpf_round(x, "f")


def _mpf_up(x: arb) -> mpmath.mpf:
    return _mpf_round(x, "c")


def _hull(balls) -> arb:
    """A ball containing every ball of ``balls``."""
    out = None
    for b in balls:
        out = b if out is None else out.union(b)
    return out


def _inf_ix(sign: int, strict: bool) -> tuple:
    return (mpmath.inf if sign > 0 else -mpmath.inf), strict


# ----- Scenario II: the skew-normal expectation F(mu) and its derivative -----------------------------


def _tail_cut() -> int:
    """Truncation T of the half line: phi(T) < 2^-(prec+10)."""
    return int(math.sqrt(2 * (ctx.prec + 10) * math.log(2))) + 2


def _phi_bound(T: int) -> arb:
    return (-(arb(T) ** 2) / 2).exp() / (2 * arb.pi()).sqrt()


def skew_normal_mi_ball(mu: arb) -> arb:
    r"""F(mu) = E[ln 2 Phi(mu A)], A ~ SN(0, 1, mu), for a ball mu >= 0 (a point or an interval of
    mu: the ball contains F at every mu in it).

    F(mu) = ln 2 - 2 int_0^oo phi(v) H_b(Phi(mu v)) dv (H_b the binary entropy in nats), and for
    mu > 1 after w = mu v: ln 2 - (2/mu) int_0^oo phi(w/mu) H_b(Phi(w)) dw. The range is cut at T
    with the tail bounded (docs/atlas.md): 2 ln 2 phi(T)/T, and 4 phi(T) / (mu sqrt(2 pi)).
    """
    if not mu.is_finite():
        raise NoEnclosure("mu is not finite")
    if mu.is_zero():
        return arb(0)
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


# ----- Scenario I: the two series ------------------------------------------------------------------


def uniform_series(which: str, k: arb, derivative: bool = False) -> arb:
    """MI(C_k, Y) (``which`` "Y") or MI(C_k, X-Y) ("X-Y") of Scenario I, or its derivative, by
    the power series of the module docstring, for 0 <= k <= 1/2: each coefficient is at most 1
    in absolute value, so the tail from k^m on is at most k^m / (1 - k)."""
    if not (k.upper() <= arb(1) / 2):
        raise NoEnclosure("the series is used for k <= 1/2 only")
    total = arb(0)
    power = arb(1)  # k^e
    e = 0
    eps = arb(2) ** -(ctx.prec + 10)
    kk = abs(k).upper()
    while True:
        c = _series_coefficient(which, e, derivative)
        if c:
            total += arb(c.numerator) / c.denominator * power
        e += 1
        power = power * k
        bound = kk**e / (1 - kk)
        if e > 3 and bound < eps:
            break
    return total + arb(0, kk**e / (1 - kk))


def _series_coefficient(which: str, e: int, derivative: bool) -> Fraction:
    """Coefficient of k^e in the series (or in its derivative)."""
    if derivative:
        return (e + 1) * _series_coefficient(which, e + 1, False)
    if which == "Y":  # k^(n-1)/(n(n-1)(n-2)), n odd >= 3: e = n - 1 even >= 2
        if e < 2 or e % 2:
            return Fraction(0)
        n = e + 1
        return Fraction(1, n * (n - 1) * (n - 2))
    # 4 MI(C_k, X-Y) = 1 - 3k/2 + sum_{j>=2} 2k^j/((j-1)j(j+1))
    if e == 0:
        return Fraction(1, 4)
    if e == 1:
        return Fraction(-3, 8)
    return Fraction(2, (e - 1) * e * (e + 1)) / 4


# ----- leaves --------------------------------------------------------------------------------------


class Leaf:
    """An input function of the swept parameter, enclosed over cells (values memoised)."""

    def enclose(self, cell: Cell, der: bool) -> IX:
        raise NotImplementedError

    def exact(self, x) -> sp.Expr:
        """The exact value at a special point (sympy; limits at the ends of the range), used to
        recognise exact ties there."""
        raise NoEnclosure("no exact value")

    def direction(self, cell: Cell) -> int | None:
        """+1 (-1) if the leaf is proved strictly increasing (decreasing) on the cell, else
        None."""
        return None


class ConstLeaf(Leaf):
    """A value that does not depend on the swept parameter (derivative 0)."""

    def __init__(self, value, exact=None):
        self._value = value  # IX, or a callable giving the ball (evaluated on first use)
        self._ix = value if isinstance(value, IX) else None
        self._exact = exact

    def exact(self, x) -> sp.Expr:
        if self._exact is None:
            raise NoEnclosure("no exact value")
        return self._exact

    def enclose(self, cell: Cell, der: bool) -> IX:
        if self._ix is None:
            ball = self._value()
            z = mpmath.mpf(0)
            self._ix = to_ix(ball, z, z)
        return self._ix


def _end(x):
    """A cell end (mpf or exact sympy number) as a ball."""
    return arb_of(x)


class _PointMemo:
    def __init__(self):
        self._memo: dict = {}

    def key(self, x):
        return (man_exp(x), ctx.prec) if isinstance(x, mpmath.mpf) else (sp.srepr(x), ctx.prec)

    def get(self, x, fn):
        key = self.key(x)
        if key not in self._memo:
            if len(self._memo) > 20000:
                self._memo.clear()
            self._memo[key] = fn(x)
        return self._memo[key]


def _monotone_ix(vals: list, ends_open: tuple, direction: int | None, dlo=None, dhi=None) -> IX:
    """The hull of end values of a function monotone on the cell (``direction`` +1 increasing,
    -1 decreasing, strictly; None: not strict) with strictness at excluded ends. ``vals`` are
    (ball or "+inf"/"-inf"/"zero") at (lo, hi)."""
    lo_v, hi_v = vals
    open_lo, open_hi = ends_open
    if direction is None:
        left, right = lo_v, hi_v
        slo = shi = False
    elif direction > 0:
        left, right, slo, shi = lo_v, hi_v, open_lo, open_hi
    else:
        left, right, slo, shi = hi_v, lo_v, open_hi, open_lo
    lo = _mpf_down(left.lower()) if isinstance(left, arb) else (-mpmath.inf if left == "-inf" else mpmath.mpf(0))
    hi = _mpf_up(right.upper()) if isinstance(right, arb) else (mpmath.inf if right == "+inf" else mpmath.mpf(0))
    if direction is None:
        lo2 = _mpf_down(right.lower()) if isinstance(right, arb) else lo
        hi2 = _mpf_up(left.upper()) if isinstance(left, arb) else hi
        lo, hi = min(lo, lo2), max(hi, hi2)
    return IX("finite", lo, hi, slo, shi, False, dlo, dhi)


class GenericLeaf(Leaf):
    """An elementary closed form ``expr`` in the swept symbol ``sym`` (see the module docstring).

    ``exact_at(x)`` gives the exact sympy value at a special point (limits at the ends of a
    parameter's range), so that a value exactly 0 there is the exact world's exact zero.
    """

    def __init__(self, expr: sp.Expr, sym: sp.Symbol, exact_at):
        self.expr, self.sym = expr, sym
        self.dexpr = sp.diff(expr, sym)
        self.exact_at = exact_at
        self._points = _PointMemo()

    def _ball(self, e, x: arb) -> arb:
        return arb_of(e, {self.sym: x})

    def exact(self, x) -> sp.Expr:
        return self.exact_at(x)

    def point(self, x):
        def fn(x):
            if not isinstance(x, mpmath.mpf):
                v = self.exact_at(x)
                if v == sp.oo:
                    return "+inf"
                if v == -sp.oo:
                    return "-inf"
                from fstheory.theory.symbolic import is_exact_zero

                if is_exact_zero(v):
                    return "zero"
                return arb_of(v)
            return self._ball(self.expr, _end(x))
        return self._points.get(x, fn)

    def direction(self, cell: Cell) -> int | None:
        d = self._ball(self.dexpr, _hull([_end(cell.lo), _end(cell.hi)]))
        if d.is_finite() and d.lower() > 0:
            return 1
        if d.is_finite() and d.upper() < 0:
            return -1
        return None

    def enclose(self, cell: Cell, der: bool) -> IX:
        if cell.is_point:
            v = self.point(cell.lo)
            if v == "zero":
                return IX.ZERO
            if v in ("+inf", "-inf"):
                return IX.POS_INF if v == "+inf" else IX.NEG_INF
            d = self._ball(self.dexpr, _end(cell.lo)) if der else None
            if d is not None and d.is_finite():
                return to_ix(v, _mpf_down(d.lower()), _mpf_up(d.upper()))
            return to_ix(v)
        a, b = _end(cell.lo), _end(cell.hi)
        ball = _hull([a, b])
        d = self._ball(self.dexpr, ball)
        if d.is_finite() and (d.lower() > 0 or d.upper() < 0):
            direction = 1 if d.lower() > 0 else -1
            vals = [self.point(cell.lo), self.point(cell.hi)]
            if any(isinstance(v, str) and v != "zero" for v in vals):
                raise NoEnclosure("an infinite end value")
            vals = [arb(0) if v == "zero" else v for v in vals]
            return _monotone_ix(vals, (cell.open_lo, cell.open_hi), direction,
                                _mpf_down(d.lower()), _mpf_up(d.upper()))
        v = self._ball(self.expr, ball)
        if not v.is_finite():
            return IX.undecided("the closed form is not enclosed on the cell")
        if d.is_finite():
            return to_ix(v, _mpf_down(d.lower()), _mpf_up(d.upper()))
        return to_ix(v)


class UniformClassLeaf(Leaf):
    """Scenario I's MI(C_k, Y) or MI(C_k, X-Y) (``which`` "Y" or "X-Y"), monotone with monotone
    derivative on [0, 1] (module docstring)."""

    LIMITS = {"Y": ((0, 0), (None, Fraction(1, 2))), "X-Y": ((Fraction(1, 4), Fraction(-3, 8)),
                                                              (0, 0))}

    def __init__(self, which: str, expr: sp.Expr, sym: sp.Symbol):
        self.which, self.expr, self.sym = which, expr, sym
        self.dexpr = sp.diff(expr, sym)
        self.way = 1 if which == "Y" else -1
        self._points = _PointMemo()

    def exact(self, x) -> sp.Expr:
        from fstheory.theory.symbolic import exact_value

        return exact_value(self.expr, {self.sym: x}, {self.sym: "+" if x == 0 else "-"})

    def direction(self, cell: Cell) -> int | None:
        return self.way

    def _value(self, x, derivative: bool):
        xs = exact_nsimplify(x) if not isinstance(x, mpmath.mpf) else None
        if xs is not None and xs in (0, 1):
            v = self.LIMITS[self.which][int(xs)][1 if derivative else 0]
            if v is None:  # MI(C_1, Y) = ln 2 - 1/2
                return arb(2).log() - arb(1) / 2
            return "zero" if v == 0 and not derivative else arb(v.numerator) / v.denominator
        k = _end(x)
        if k.upper() <= arb(1) / 2:
            return uniform_series(self.which, k, derivative)
        return arb_of(self.dexpr if derivative else self.expr, {self.sym: k})

    def point(self, x, derivative: bool = False):
        return self._points.get(x, lambda x: (self._value(x, False), self._value(x, True)))[
            1 if derivative else 0]

    def enclose(self, cell: Cell, der: bool) -> IX:
        if cell.is_point:
            v, d = self.point(cell.lo), self.point(cell.lo, True)
            if v == "zero":
                return IX.ZERO
            return to_ix(v, _mpf_down(d.lower()), _mpf_up(d.upper()))
        vals = [self.point(cell.lo), self.point(cell.hi)]
        vals = [arb(0) if v == "zero" else v for v in vals]
        ders = [self.point(cell.lo, True), self.point(cell.hi, True)]
        d = _hull(ders)
        return _monotone_ix(vals, (cell.open_lo, cell.open_hi), self.way,
                            _mpf_down(d.lower()), _mpf_up(d.upper()))


class CellMemoLeaf(Leaf):
    """A leaf whose enclosures are kept per cell and precision (every pair of candidates asks
    again on the same cell): subclasses set ``self._cells = {}`` and implement ``_enclose``."""

    def enclose(self, cell: Cell, der: bool) -> IX:
        key = (cell, der, ctx.prec)
        if key not in self._cells:
            if len(self._cells) > 20000:
                self._cells.clear()
            self._cells[key] = self._enclose(cell, der)
        return self._cells[key]

    def _enclose(self, cell: Cell, der: bool) -> IX:
        raise NotImplementedError


class SkewNormalLeaf(CellMemoLeaf):
    """Scenario II's MI(C, V) = F(mu(t)), mu = |lambda(t)| = sqrt(mu2(t)) (module docstring)."""

    def __init__(self, mu: sp.Expr, sym: sp.Symbol, lo, hi, exact_at):
        self.sym = sym
        self.mu2 = sp.simplify(mu**2)
        self.mu = sp.sqrt(self.mu2)
        self.dmu = sp.diff(self.mu2, sym) / (2 * self.mu)
        # s = 1/mu and ds/dt for t > 0 (next to a pole of mu, where mu' is unbounded but
        # dF/dt = -L(s) ds/dt is not: _der_near_pole)
        tp = sp.Dummy("tp", positive=True)
        s_pos = sp.sqrt(sp.cancel(1 / self.mu2)).subs(sym, tp)
        self.ds_pos = sp.simplify(sp.diff(s_pos, tp)).subs(tp, sym)
        self.exact_at = exact_at
        # |lambda| is monotone between the zeros of (mu^2)', of mu^2 (a kink of |lambda|) and of
        # its denominator (a pole, where F = ln 2): those are the critical points
        crit = set()
        d2, m2 = sp.together(sp.diff(self.mu2, sym)), sp.together(self.mu2)
        for e in (sp.numer(d2), sp.numer(m2), sp.denom(m2)):
            sol = sp.solveset(e, sym, sp.Interval.open(lo, hi))
            if sol is sp.S.EmptySet:
                continue
            if not isinstance(sol, sp.FiniteSet):
                raise NoEnclosure(f"the monotone pieces of |lambda| = {self.mu} were not found "
                                  "exactly")
            crit |= set(sol)
        self.critical = sorted(crit, key=lambda c: float(c))
        self._points = _PointMemo()
        self._cells: dict = {}

    def exact(self, x) -> sp.Expr:
        from fstheory.theory.law_algebra import skew_normal_mi

        mu2 = self.exact_at(self.mu2, x)
        if mu2 == sp.oo:
            return sp.log(2)
        return skew_normal_mi(sp.sqrt(mu2))

    def _mu_at(self, x):
        """|lambda| at a cell end: a ball, or "+inf" at a pole."""
        if not isinstance(x, mpmath.mpf):
            lim = self.exact_at(self.mu2, x)
            if lim == sp.oo:
                return "+inf"
            return arb_of(sp.sqrt(lim))
        v = arb_of(self.mu, {self.sym: _end(x)})
        if not v.is_finite():
            raise NoEnclosure("|lambda| is not finite at an interior point")
        return v

    def point(self, x):
        def fn(x):
            mu = self._mu_at(x)
            if mu == "+inf":
                return arb(2).log()
            if mu.is_zero():
                return "zero"
            return skew_normal_mi_ball(mu)
        return self._points.get(x, fn)

    def _mu_range(self, cell: Cell):
        ends = [self._mu_at(cell.lo), self._mu_at(cell.hi)]
        return ends

    def _enclose(self, cell: Cell, der: bool) -> IX:
        if cell.is_point:
            v = self.point(cell.lo)
            if v == "zero":
                return IX.ZERO
            dl = dh = None
            if der and isinstance(cell.lo, mpmath.mpf):
                d = self._der(cell, [self._mu_at(cell.lo)])
                if d is not None:
                    dl, dh = d
            return to_ix(v, dl, dh)
        inside = [c for c in self.critical if _lt(cell.lo, c) and _lt(c, cell.hi)]
        pts = [cell.lo] + inside + [cell.hi]
        vals = [self.point(p) for p in pts]
        vals = [arb(0) if v == "zero" else v for v in vals]
        dl = dh = None
        if der:
            d = self._der(cell, [self._mu_at(p) for p in pts])
            if d is not None:
                dl, dh = d
        direction = None if inside else self.direction(cell)
        if direction is None:
            return to_ix(_hull(vals), dl, dh)
        return _monotone_ix(vals, (cell.open_lo, cell.open_hi), direction, dl, dh)

    def direction(self, cell: Cell) -> int | None:
        """F is strictly increasing in mu and mu is monotone between the critical points: the
        direction is that of mu from one end of the cell to the other."""
        if any(_lt(cell.lo, c) and _lt(c, cell.hi) for c in self.critical):
            return None
        m0, m1 = self._mu_at(cell.lo), self._mu_at(cell.hi)
        if m0 == "+inf":
            return -1
        if m1 == "+inf" or m1.lower() > m0.upper():
            return 1
        if m0.lower() > m1.upper():
            return -1
        return None

    def _der(self, cell: Cell, mus):
        """Enclosure of d/dt F(mu(t)) over the cell: F'(mu range) * mu'(t range)."""
        if any(m == "+inf" for m in mus):
            return self._der_near_pole(cell, mus)
        mu_ball = _hull(mus)
        if mu_ball.lower() < 0:  # |lambda| >= 0: F' (0 at mu = 0) on [0, upper]
            mu_ball = arb(0).union(mu_ball.upper())
        t = _hull([_end(cell.lo), _end(cell.hi)])
        with working_precision(max(64, ctx.prec // 2)):
            try:
                fd = skew_normal_mi_derivative_ball(mu_ball)
            except NoEnclosure:  # too wide a ball of mu: the cell is split
                return None
        dmu = arb_of(self.dmu, {self.sym: t})
        d = fd * dmu
        if not d.is_finite():
            return None
        return _mpf_down(d.lower()), _mpf_up(d.upper())

    def _der_near_pole(self, cell: Cell, mus):
        """d/dt F(mu(t)) on a cell in t > 0 that ends at a pole of mu (mu -> +inf there): with
        s = 1/mu, F'(mu) = s^2 L(s) (:func:`skew_normal_mi_pole_slope_ball`) and
        mu' = -s'/s^2, so dF/dt = -L(s) s'(t), where L is finite and decreasing in s: over the
        cell L(s) lies in [L(s_max), L(0)], s_max = 1/(least mu at the cell's ends), since mu is
        monotone on the cell (no critical point inside). For mu = 1/k (MI(C, X) of Scenario II)
        s' = 1 and dF/dk -> -L(0) = -0.72065... as k -> 0."""
        if _lt(cell.lo, 0) or any(_lt(cell.lo, c) and _lt(c, cell.hi) for c in self.critical):
            return None
        finite = [m for m in mus if m != "+inf"]
        if not finite:
            return None
        m_min = _hull(finite)
        if m_min.lower() <= 0:
            return None
        s_max = (1 / m_min).upper()
        t = _hull([_end(cell.lo), _end(cell.hi)])
        with working_precision(max(64, ctx.prec // 2)):
            slope = skew_normal_mi_pole_slope_ball(arb(0)).union(
                skew_normal_mi_pole_slope_ball(s_max))
        try:
            ds = arb_of(self.ds_pos, {self.sym: t})
        except (NoEnclosure, ValueError, TypeError, ZeroDivisionError):
            return None
        d = -slope * ds
        if not d.is_finite():
            return None
        return _mpf_down(d.lower()), _mpf_up(d.upper())


def _lt(a, b) -> bool:
    return float(a) < float(b) if not (isinstance(a, mpmath.mpf) and isinstance(b, mpmath.mpf)) \
        else a < b
