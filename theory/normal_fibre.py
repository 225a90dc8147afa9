r"""H(C | V_S) for a two-point fibre of two i.i.d. centred normal variables with unequal densities
at its two points, and a class boundary off the origin: one nested certified integral whose
outer variable is the log-likelihood ratio of the two points.

Setting. b = (X, Y) i.i.d. N(0, sigma^2); the features reveal b up to a linear involution
``tau b = T b`` (T^2 = I, T != +-I), and the class is ``C = 1{a . b >= theta}`` with theta != 0
(theta = 0 is the cone of :mod:`fstheory.theory.two_point_fibre`). Write b = u e+ + w e- with
T e+ = e+, T e- = -e- (E = [e+ e-], J = |det E|); then tau(u, w) = (u, -w) and

    phi(b) + phi(tau b) = (1/(2 pi sigma^2)) e^{-p u^2 - q w^2} 2 cosh(rho u w),
    p = |e+|^2/(2 sigma^2), q = |e-|^2/(2 sigma^2), rho = e+ . e- / sigma^2,

while P(b | its fibre) = sigmoid(2 rho u w) (the log-ratio of the two densities is
(|tau b|^2 - |b|^2)/(2 sigma^2) = 2 rho u w). The two points' classes differ where
|A u - theta| < B |w| (A = a . e+, B = |a . e-|), so, with H_b the binary entropy,

    H(C | V_S) = (J / (pi sigma^2)) int int_{w > 0, |A u - theta| < B w}
                 e^{-p u^2 - q w^2} g(rho u w) du dw,
    g(x) = cosh(x) H_b(sigmoid(2x)) = cosh(x) ln(2 cosh x) - x sinh x
         = x e^{-x} + cosh(x) log1p(e^{-2x})    (x >= 0; g is even).

Take x = |rho| u w and r = sqrt(q) w as variables (du dw = dx dr / (|rho| r)):

    H(C | V_S) = (J / (pi sigma^2 |rho|)) int_0^oo g(x) [W_c(x) + W_{-c}(x)] dx,
    W_c(x) = int_{r > 0, |x - c r| < b r^2} e^{-r^2 - beta x^2 / r^2} dr / r,

beta = p q / rho^2, c = theta / alpha, b = B / (sqrt(q) |alpha|), alpha = A sqrt(q) / |rho|
(g and the kernel are even in x, so the signs of rho and alpha only swap W_c and W_-c). With
c > 0, x* = c^2 / (4 b), s+- = sqrt(c^2 +- 4 b x), the roots r1 = 2x / (c + s+),
r2- = 2x / (c + s-), r2+ = (c + s-) / (2b), R1 = (c + s+) / (2b):

    W_c + W_-c = J(r1, r2-) + J(r2+, oo) + J(R1, oo)   (0 < x < x*),
               = J(r1, oo) + J(R1, oo)                (x > x*),

J(lo, hi) the integral of the kernel over (lo, hi). Every end is analytic on the pieces
[0, x*/2] (J(r1, r2-) written with r = x v, so that it stays finite at x = 0, where the wedge's
apex is), [x*/2, X] (J(r1, oo) + J(R1, oo)) minus the subtracted middle J(r2-, r2+) over
[x*/2, x*], written with delta = s- / (2b) (x = x* - b delta^2) so that the square root at x*
becomes analytic. When alpha = 0 the region is r > |theta| / (B / sqrt(q)) for every x.

Bounds (added to the radii). The inner integrals stop at r = R: the rest is at most
e^{beta max(0, -Re x^2) / R^2} sqrt(pi) erfc(R) / (2R). The outer one stops at X: since
W_c + W_-c <= 2 K_0(2 sqrt(beta) x) <= 2 sqrt(pi / (4 sqrt(beta) x)) e^{-2 sqrt(beta) x}
(K_0 <= K_{1/2}) and 0 <= g(x) <= (1 + x) e^{-x}, the rest is at most
2 sqrt(pi / (4 sqrt(beta) X)) e^{-l X} ((1 + X)/l + 1/l^2), l = 1 + 2 sqrt(beta).

The outer integrand is itself a certified integral (:func:`fstheory.theory.interrupts.acb_integral`)
at the outer nodes; on the outer integrator's bounding balls (wide or complex x) it is enclosed
by the kernel on a few boxes (a rigorous, coarser bound: the integral of a function over a
segment lies in the segment's length times the convex hull of its values), with the branch
cuts of the square roots and of ln checked (non-finite when one is touched).

Example (threshold.toml, C = 1{X + kY >= 1}, the set {X - Y, Y^2} at k = 0.3; a direct 2-D
quadrature in double precision gives 0.149470434982602):

>>> import sympy as sp
>>> from fstheory.theory.laws import Normal
>>> from fstheory.theory.determination import ClassEvent
>>> from fstheory.theory.quadrature import flint_precision
>>> X, Y = sp.symbols("X Y", real=True)
>>> laws = {X: Normal(0, 1), Y: Normal(0, 1)}
>>> fib = normal_fibre([X - Y, Y**2], ClassEvent(X + sp.Rational(3, 10) * Y - 1, 0), laws)
>>> with flint_precision(64):
...     print(conditional_entropy_ball(fib).str(12, radius=False))
0.149470434983
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import dataclass

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory import determination as det
from fstheory.theory import two_point_fibre as tpf
from fstheory.theory.balls import NoEnclosure
from fstheory.theory.interrupts import acb_integral, interrupted
from fstheory.theory.law_algebra import linear_parts
from fstheory.theory.laws import Normal

__all__ = ["NormalFibre", "normal_fibre", "conditional_entropy_ball"]


@dataclass(frozen=True)
class NormalFibre:
    """The constants of the module docstring (exact sympy numbers): ``scale`` = J/(pi sigma^2
    |rho|), ``beta``, ``c`` (>= 0; None when alpha = 0), ``b`` (the wedge's slope; when alpha = 0,
    ``b`` is the bound |theta| sqrt(q) / B below which r is outside the region)."""

    scale: sp.Expr
    beta: sp.Expr
    c: sp.Expr | None
    b: sp.Expr


def normal_fibre(exprs, event: det.ClassEvent, laws) -> NormalFibre | None:
    """The :class:`NormalFibre` of the features ``exprs`` and the class, when they are in the
    module's setting (two i.i.d. centred normal base variables, a linear involution with
    unequal densities at the two points, a linear class with a non-zero threshold); else None."""
    tau = tpf.affine_partner(exprs, event, laws)
    if tau is None or not tau.t.is_zero_matrix:
        return None
    l1, l2 = (laws[v] for v in tau.coords)
    if not (isinstance(l1, Normal) and isinstance(l2, Normal)):
        return None
    if l1.params[0] != 0 or l2.params[0] != 0 or sp.simplify(l1.params[1] - l2.params[1]) != 0:
        return None
    sigma2 = l1.params[1] ** 2
    lin = linear_parts(event.expr - event.threshold, list(tau.coords))
    if lin is None:
        return None
    a = sp.Matrix([lin[0][v] for v in tau.coords])
    theta = sp.nsimplify(-lin[1])
    if theta == 0 or not theta.is_number:
        return None
    T = sp.Matrix(tau.T)
    plus, minus = (T - sp.eye(2)).nullspace(), (T + sp.eye(2)).nullspace()
    if len(plus) != 1 or len(minus) != 1:
        return None
    ep, em = plus[0], minus[0]
    rho = sp.simplify(ep.dot(em) / sigma2)
    if rho == 0:
        return None  # equal densities at the two points: the reflection routes
    p = sp.simplify(ep.dot(ep) / (2 * sigma2))
    q = sp.simplify(em.dot(em) / (2 * sigma2))
    J = abs(sp.Matrix.hstack(ep, em).det())
    A, B = sp.simplify(a.dot(ep)), sp.Abs(sp.simplify(a.dot(em)))
    if B == 0:
        return None  # the class is a function of u: determined by the features
    scale = sp.simplify(J / (sp.pi * sigma2 * sp.Abs(rho)))
    beta = sp.simplify(p * q / rho**2)
    alpha = sp.simplify(A * sp.sqrt(q) / sp.Abs(rho))
    if alpha == 0:
        fib = NormalFibre(scale, beta, None, sp.simplify(sp.Abs(theta) * sp.sqrt(q) / B))
    else:
        fib = NormalFibre(scale, beta, sp.simplify(sp.Abs(theta / alpha)),
                          sp.simplify(B / (sp.sqrt(q) * sp.Abs(alpha))))
    numbers = [fib.scale, fib.beta, fib.b] + ([] if fib.c is None else [fib.c])
    if not all(e.is_number and e.is_positive for e in numbers):
        return None  # a symbolic parameter (a parametric structure) or a degenerate wedge
    return fib


# ----- the integrands ----------------------------------------------------------------------------


def _g(x: acb) -> acb:
    """g(x) = cosh(x) ln(2 cosh x) - x sinh x (even), analytic where |Im x| < pi/2; non-finite
    where a branch cut of ln is touched."""
    if x.real.mid() < 0:
        x = -x
    if x.real > 1:  # ln(2 cosh x) = x + log1p(e^{-2x}), |e^{-2x}| < 1: no cancellation
        u = (-2 * x).exp()
        return x * (-x).exp() + x.cosh() * u.log1p()
    ex, emx = x.exp(), (-x).exp()
    return (ex + emx) / 2 * (ex + emx).log(analytic=True) - x * (ex - emx) / 2


def _kernel(r: acb, x2b: acb) -> acb:
    """e^{-r^2 - beta x^2 / r^2} / r, with ``x2b`` = beta x^2."""
    return (-(r * r) - x2b / (r * r)).exp() / r


def _kernel_v(v: acb, x2: acb, beta: acb) -> acb:
    """The same kernel with r = x v: e^{-x^2 v^2 - beta / v^2} / v."""
    return (-(x2 * v * v) - beta / (v * v)).exp() / v


def _disc(log_m: arb, modulus: arb) -> acb:
    """The complex disc (a box) of radius e^{log_m} / modulus about 0; non-finite if the modulus
    may vanish."""
    if not modulus > 0:
        return acb(arb("nan"), arb("nan"))
    m = (log_m.exp() / modulus).upper()
    return acb(arb(0, m), arb(0, m))


def _kernel_bound(r: acb, x2b: acb) -> acb:
    """A box about 0 containing :func:`_kernel` on the box ``r`` (from the real part of the
    exponent in real interval arithmetic: a complex ball's inverse is far too wide when its
    radius is a sizeable fraction of its distance to 0)."""
    a, b = r.real, r.imag
    re2, im2, mod2 = a * a - b * b, 2 * a * b, a * a + b * b
    expo = -re2 - (x2b.real * re2 + x2b.imag * im2) / (mod2 * mod2)
    return _disc(expo.upper(), mod2.sqrt().lower())


def _kernel_v_bound(v: acb, x2: acb, beta: arb) -> acb:
    """The same for :func:`_kernel_v`."""
    a, b = v.real, v.imag
    re2, im2, mod2 = a * a - b * b, 2 * a * b, a * a + b * b
    expo = -(x2.real * re2 - x2.imag * im2) - beta * re2 / (mod2 * mod2)
    return _disc(expo.upper(), mod2.sqrt().lower())


class _Integrals:
    """The inner and outer integrals at the current precision for one :class:`NormalFibre`."""

    def __init__(self, fib: NormalFibre, prec: int):
        self.beta = _ball(fib.beta)
        self.c = None if fib.c is None else _ball(fib.c)
        self.b = _ball(fib.b)
        self.scale = _ball(fib.scale)
        # the inner integrals' errors stay well below the outer goal, else the outer
        # integrator subdivides in vain to reduce them
        self.inner_tol = arb(2) ** -(prec + 6)
        self.outer_tol = arb(2) ** -(prec + 2)
        self.wide = arb(2) ** -(prec // 3)
        sb = self.beta.sqrt()
        self.lam = 1 + 2 * sb
        # cuts: the outer X where the tail is below 2^-(prec+12), the inner R past every end
        lam_f = float(self.lam.mid())
        self.X = math.ceil(((prec + 12) * math.log(2) + 5) / lam_f) + 1
        if self.c is not None:
            cf, bf = float(self.c.mid()), float(self.b.mid())
            far = (cf + math.sqrt(cf * cf + 4 * bf * self.X)) / (2 * bf)
        else:
            far = float(self.b.mid())
        self.R = max(math.ceil(math.sqrt((prec + 30) * math.log(2))) + 1, math.ceil(far) + 2)

    # --- inner: J(lo, R) and friends ---------------------------------------------------------
    def _inner_tail(self, x: acb) -> acb:
        R = arb(self.R)
        re = (x * x).real
        grow = arb(0) if re > 0 else (-re).upper()
        bound = (self.beta * grow / (R * R)).exp() * arb.pi().sqrt() * R.erfc() / (2 * R)
        return acb(arb(0, bound.upper()))

    def _segment(self, f, bound, lo: acb, hi: acb, crude: bool) -> acb:
        """int_lo^hi f(r) dr along the segment (r = lo + (hi - lo) t); when ``crude``, the sum
        over boxes of ``bound`` (an enclosure of f on a box) times the box's length."""
        d = hi - lo
        if crude:
            total = acb(0)
            for t in _boxes(abs(float(lo.real.mid())), abs(float(d.real.mid()))):
                if interrupted():
                    return acb(0)  # discarded: a signal ends the integral
                r = _on_segment(lo, hi, t)
                v, w = f(r), bound(r)  # two enclosures: the tighter one
                if not v.is_finite() or (w.is_finite() and w.abs_upper() < v.abs_upper()):
                    v = w
                total += v * t.rad() * 2
            return total * d

        def h(t, analytic):
            return d * f(lo + d * t)
        return acb_integral(h, 0, 1, abs_tol=self.inner_tol, rel_tol=self.inner_tol)

    def _r(self, x2b, lo, hi, crude):
        return self._segment(lambda r: _kernel(r, x2b), lambda r: _kernel_bound(r, x2b), lo, hi,
                             crude)

    def _crude(self, x: acb, analytic: bool) -> bool:
        return analytic or not (x.rad() < self.wide)

    def _sqrt(self, z: acb) -> acb:
        return z.sqrt(analytic=True)

    # --- the three outer integrands ------------------------------------------------------------
    def near(self, x: acb, analytic: bool) -> acb:
        """g(x) [J(r1, r2-) + J(r2+, R) + J(R1, R)] on [0, x*/2] (+ the tails)."""
        crude = self._crude(x, analytic)
        c, b = self.c, self.b
        sp_, sm = self._sqrt(c * c + 4 * b * x), self._sqrt(c * c - 4 * b * x)
        x2 = x * x
        x2b = self.beta * x2
        beta = acb(self.beta)
        w = self._segment(lambda v: _kernel_v(v, x2, beta),
                          lambda v: _kernel_v_bound(v, x2, self.beta), 2 / (c + sp_), 2 / (c + sm),
                          crude)
        R = acb(self.R)
        w += self._r(x2b, (c + sm) / (2 * b), R, crude)
        w += self._r(x2b, (c + sp_) / (2 * b), R, crude)
        return _g(x) * (w + 2 * self._inner_tail(x))

    def far(self, x: acb, analytic: bool) -> acb:
        """g(x) [J(r1, R) + J(R1, R)] on [x*/2, X] (+ the tails)."""
        crude = self._crude(x, analytic)
        c, b = self.c, self.b
        sp_ = self._sqrt(c * c + 4 * b * x)
        x2b = self.beta * x * x
        R = acb(self.R)
        # r1 = 2x/(c + s+) = (s+ - c)/(2b): the second (no division by a wide complex ball) once
        # s+ is well above c, the first (no cancellation) below
        r1 = 2 * x / (c + sp_) if x.real.mid() < c.mid() else (sp_ - c) / (2 * b)
        w = self._r(x2b, r1, R, crude)
        w += self._r(x2b, (c + sp_) / (2 * b), R, crude)
        return _g(x) * (w + 2 * self._inner_tail(x))

    def middle(self, d: acb, analytic: bool) -> acb:
        """g(x) J(m - delta, m + delta) 2 b delta, x = x* - b delta^2, m = c/(2b)."""
        crude = self._crude(d, analytic)
        c, b = self.c, self.b
        m = c / (2 * b)
        x = c * c / (4 * b) - b * d * d
        x2b = self.beta * x * x
        w = self._r(x2b, m - d, m + d, crude)
        return _g(x) * w * 2 * b * d

    def flat(self, x: acb, analytic: bool) -> acb:
        """alpha = 0: g(x) 2 J(r0, R), r0 = ``b``."""
        crude = self._crude(x, analytic)
        x2b = self.beta * x * x
        w = self._r(x2b, acb(self.b), acb(self.R), crude)
        return _g(x) * 2 * (w + self._inner_tail(x))

    def outer_tail(self) -> arb:
        X, lam, sb = arb(self.X), self.lam, self.beta.sqrt()
        t = 2 * (arb.pi() / (4 * sb * X)).sqrt() * (-lam * X).exp() * ((1 + X) / lam + 1 / lam**2)
        return t.upper()

    def integrate(self, f, lo, hi) -> acb:
        return acb_integral(f, lo, hi, abs_tol=self.outer_tol, rel_tol=self.outer_tol)


def _on_segment(lo: acb, hi: acb, t: acb) -> acb:
    """A box containing lo' + (hi' - lo') t' for every lo' in lo, hi' in hi, t' in t (t real in
    [0, 1]): from the midpoints, plus (lo' - lo)(1 - t') + (hi' - hi) t', whose real and
    imaginary parts are at most the larger of the two ends' radii (the ends' radii count once,
    not twice as in lo + (hi - lo) t)."""
    lm, hm = acb(lo.real.mid(), lo.imag.mid()), acb(hi.real.mid(), hi.imag.mid())
    er = lo.real.rad() if lo.real.rad() > hi.real.rad() else hi.real.rad()  # exact radii
    ei = lo.imag.rad() if lo.imag.rad() > hi.imag.rad() else hi.imag.rad()
    return lm + (hm - lm) * t + acb(arb(0, er.upper()), arb(0, ei.upper()))


def _boxes(start: float, length: float) -> list:
    """Balls covering [0, 1] in t such that r = start + length t varies by at most 30% and by
    at most 1/2 on each (where the kernel's 1/r and e^{-r^2} change little)."""
    edges, t = [0.0], 0.0
    while t < 1.0 and len(edges) < 200:
        step = min(0.3 * (start + length * t), 0.5) / max(length, 1e-300)
        t = min(1.0, t + max(step, 1e-3))
        edges.append(t)
    edges[-1] = 1.0
    return [acb(arb(a).union(arb(b))) for a, b in zip(edges, edges[1:])]


def _ball(e) -> arb:
    from fstheory.theory.arbexpr import compile_expr

    return compile_expr(sp.sympify(e), ())()


def conditional_entropy_ball(fib: NormalFibre) -> arb:
    """A ball containing H(C | V_S) at the current precision (module docstring)."""
    target = ctx.prec
    with _extra_bits(GUARD):  # rounding stays well below both levels' goals
        return _integral(fib, target)


#: working bits above the target precision (the tolerances are set from the target)
GUARD = 10


@contextlib.contextmanager
def _extra_bits(n: int):
    old = ctx.prec
    ctx.prec = old + n
    try:
        yield
    finally:
        ctx.prec = old


def _integral(fib: NormalFibre, prec: int) -> arb:
    I = _Integrals(fib, prec)  # noqa: E741
    X = acb(I.X)
    if I.c is None:
        total = I.integrate(I.flat, acb(0), X)
    else:
        xs = I.c * I.c / (4 * I.b)
        x1 = acb(arb((xs / 2).mid()))  # an exact split point in (0, x*)
        d1 = ((xs - x1.real) / I.b).sqrt()  # delta at x1
        total = I.integrate(I.near, acb(0), x1) + I.integrate(I.far, x1, X)
        total -= I.integrate(I.middle, acb(0), acb(d1))
    if not total.real.is_finite() or not total.imag.contains(0):
        raise NoEnclosure("the normal two-point fibre integral was not enclosed")
    return I.scale * (total.real + arb(0, I.outer_tail()))
