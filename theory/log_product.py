"""h(c X Y + e) and E[H_b(P(C = 1 | c X Y + e))] for independent X, Y of any closed laws,
through the logarithm of the product.

With U = X Y (V = c U + e: h(V) = ln|c| + h(U), and V and U carry the same information on the
class), split by the signs: for sigma = sign(U) and s = sign(X), write X = s e^a and
|U| = e^l, so Y = sigma s e^(l - a). The density of U at sigma e^l, times e^l, is

    G_sigma(l) = e^l f_U(sigma e^l) = e^l sum_s int f_X(s e^a) f_Y(sigma s e^(l - a)) da,

(the change of variables x = s e^a, dx / |x| = da, in f_U(u) = int f_X(x) f_Y(u/x) dx / |x|).
The inner integrand has no singular point: x = 0 is at a = -inf, and the box of Y keeps
a >= l - ln|y_max|. With f_U(u) = G(l) e^(-l) and du = e^l dl on each side of 0,

    h(U) = -int f_U ln f_U du = sum_sigma int G_sigma(l) (l - ln G_sigma(l)) dl,
    E[H_b(P(C = 1 | U))] = sum_sigma int (G ln G - G_1 ln G_1 - G_0 ln G_0)(l) dl,

G_c the same integral with the class probability q_c(x, y) inside
(:class:`fstheory.theory.class_probability.ClassProbability`). The sign of U is not independent
of |U| in general (an asymmetric factor): the sum over sigma keeps both parts with their own
densities (h(U) = H(S) + sum_sigma P(sigma) [h(L | sigma) + E(L | sigma)], L = ln|U|, written
without P(sigma) by grouping its terms).

Both levels are arb's rigorous integrals (certified outer pieces over l, ``acb.integral``
inside on the outer complex balls). The inner variable is a = ln|x| where |x| >= |y| and
b = ln|y| where |y| > |x| (the larger factor in t alone, the smaller from l - t: no rectangle of
u = e^l enters the densities). The inner cells lie between the roots in x of the cuts (support
ends and kinks of both laws, the ends of their boxes, |x| = |y|, the class rule's cuts), with
y = u / x substituted (:class:`fstheory.theory.cells.CutSet` in (u, x), and the same cuts in
(u, y) for the ends in b); a root on a cut that scales as |u|^d is exactly d l + const, the
others are analytic root branches of u on an outer piece.

Cost: at the tolerance of 30 proved digits (1e-36), h of an exponential factor times a normal
one needs about 5 million evaluations, and E[H_b] of two exponential factors under a linear
rule 1.6 million (14 s), half of them next to the double root of the class cut, where two cell
ends meet as square roots of u - u0; both are above the numerical route's default work budget
(1.5 million). The outer bisection is driven by arb's bounds of the outer integrand on complex
balls of l, each an inner integral whose parameter is that ball: near a normal factor's tail
(|y| large) the inner integrand moves by a factor e^(y^2 r) over a ball of radius r, so the
enclosures are useless unless r is below about 1 / (4 y^2), whatever the inner tolerance.

Truncations, each bounded (the bounds of :mod:`fstheory.theory.fibre_certified`, written for
V = U: a = x, r = 0, singular value 0):

* both coordinates to their boxes at mass ``eps`` (total variation eta = 2 eps):
  E[H_b] moves by at most 2 eta ln 2 + H_b(eta); h by at most
  max(eta ln(1/eta) + eta/2 ln(2 pi e E[U^2] / eta), eta + D), D a bound of the density lost,
  D = M_Y P(X outside) / min|x end| + M_X P(Y outside) / min|y end| (M the sup of a density
  on its box: the engine's laws are unimodal, their boxes contain the mode);
* the band |u| <= u0 = e^(l_lo): f_U(u) <= A ln(B / |u|), A = 2 M_X M_Y, B = X_max Y_max,
  contributes at most 2 A (|ln A| I1 + I2) to h and 2 ln 2 A I1 to E[H_b], with
  I1 = u0 (ln(B/u0) + 1), I2 = u0 (ln(B/u0)^2 + 2 ln(B/u0) + 2).

:func:`log_product_entropy` and :func:`log_product_class_average` return (value, error bound)
as arb balls, or None when the feature is not c X Y + e of two closed coordinates;
:class:`fstheory.theory.quadrature.QuadratureError` when an integral does not converge.
"""

from __future__ import annotations

import sympy as sp
from flint import acb, arb

from fstheory.theory.arbexpr import constant_ball
from fstheory.theory.balls import ball, entropy_integrand, exact_rational
from fstheory.theory.cells import ConstantEnd, CutSet
from fstheory.theory.expectation import box_of, support_cuts
from fstheory.theory.polyexp import INF
from fstheory.theory.quadrature import EVAL_LIMIT, QuadratureError, arb_integral, certified
from fstheory.theory.univariate import Accuracy

__all__ = ["log_product_entropy", "log_product_class_average"]

#: evaluations arb may spend on one inner integral
INNER_EVAL_LIMIT = 20000


class _NotHere(Exception):
    """The feature is not a product of two closed coordinates."""


def _sup_pdf(law, box, pieces: int = 32) -> arb:
    """An upper bound of the density on the box: the box split at the law's kinks, each piece
    cut into ``pieces`` balls on which the density (the branch of its piece) is enclosed."""
    lo, hi = arb(box[0]), arb(box[1])
    kinks = [ball(b) for b in law.breakpoints()]
    pts = [lo, *sorted((b for b in kinks if lo < b < hi), key=lambda t: t.mid()), hi]
    best = arb(0)
    for a, b in zip(pts, pts[1:]):
        for k in range(pieces):
            x0, x1 = a + (b - a) * k / pieces, a + (b - a) * (k + 1) / pieces
            x = arb((x0 + x1) / 2, ((x1 - x0) / 2).upper())
            val = abs(law.pdf_branch((x0 + x1) / 2)(x)).upper()
            if not val.is_finite():
                raise _NotHere
            best = max(best, val)
    return arb(best)


def _scaling_degree(poly: sp.Poly):
    """d with p(lambda u, lambda^d x) = lambda^k p(u, x) (p in (u, x), every root x(u) then
    scales as |u|^d along a branch), or None."""
    monos = poly.monoms()
    if len(monos) < 2:
        return None
    (i0, j0), rest = monos[0], monos[1:]
    d = None
    for i, j in rest:
        if j != j0:
            d = sp.Rational(i0 - i, j - j0)
            break
    if d is None:
        return None
    if all(i + d * j == i0 + d * j0 for i, j in monos):
        return d
    return None


def _branches(cutset: CutSet, um: arb, lo: arb, hi: arb):
    """:meth:`CutSet.root_branches` at level 1 with, for each root, the scaling degree d of
    its cut (:func:`_scaling_degree`): [(value, function of u, d or None)], sorted; None
    when a cut has degree > 2."""
    roots = cutset.root_branches(1, (um,), lo, hi, with_cuts=True)
    if roots is None:
        return None
    return [(value, fn, _scaling_degree(poly)) for value, fn, poly in roots]


class _Product:
    """The feature c x y + e of two coordinates, its cuts in (u, x), u = x y, and boxes."""

    def __init__(self, system, q, acc: Accuracy):
        if len(system.coords) != 2 or len(system.features) != 1 or system.inner:
            raise _NotHere
        cx, cy = system.coords
        x, y = cx.symbol, cy.symbol
        f = sp.expand(system.features[0])
        c = sp.diff(f, x, y)
        if c.free_symbols or c == 0 or (f - c * x * y).free_symbols:
            raise _NotHere
        if not (cx.law.closed and cy.law.closed):
            raise _NotHere
        if q is not None and not q.closed:
            raise _NotHere
        self.c = c
        self.acc, self.q = acc, q
        self.cx, self.cy = cx, cy
        self.order = [str(s) for s in system.symbols]
        self.x_first = system.symbols[0] == x
        self.xbox, self.ybox = box_of(cx, acc), box_of(cy, acc)
        u = sp.Symbol("u_", real=True)
        cuts = [x, x**2 - u, x**2 + u]
        cuts += support_cuts(cx) + [x - exact_rational(self.xbox[0]), x - exact_rational(self.xbox[1])]
        ycuts = support_cuts(cy) + [y - exact_rational(self.ybox[0]), y - exact_rational(self.ybox[1])]
        if q is not None:
            ycuts += [sp.sympify(cut) for cut in q.cuts()]
        for cut in ycuts:
            cuts.append(sp.numer(sp.together(sp.sympify(cut).subs(y, u / x))))
        self.cutset = CutSet(cuts, [u, x])
        # the same cuts in (u, y): the cell ends of the variables y and ln|y| as analytic
        # functions of u (u / x_end(u) would lose the correlation of u and x_end on wide balls)
        xcuts = [y, y**2 - u, y**2 + u] + support_cuts(cy)
        xcuts += [y - exact_rational(self.ybox[0]), y - exact_rational(self.ybox[1])]
        for cut in cuts[3:]:
            xcuts.append(sp.numer(sp.together(sp.sympify(cut).subs(x, u / y))))
        if q is not None:
            for cut in q.cuts():
                xcuts.append(sp.numer(sp.together(sp.sympify(cut).subs(x, u / y))))
        self.ycutset = CutSet(xcuts, [u, y])
        if not (self.cutset.complete and self.ycutset.complete):
            raise _NotHere
        ends = [arb(t) * arb(s) for t in self.xbox for s in self.ybox]
        self.umin = min(ends, key=lambda t: t.mid()).lower()
        self.umax = max(ends, key=lambda t: t.mid()).upper()
        self.u_breaks = [b for b in self.cutset.breakpoints(0, (), arb(self.umin), arb(self.umax))]

    def point(self, x, y):
        return (x, y) if self.x_first else (y, x)

    def cells(self, um: arb):
        """Inner cells at the real u = um: (lower, upper, x midpoint), the ends analytic
        functions of u, each cell inside one sign of x and inside both boxes."""
        lo, hi = arb(self.xbox[0]), arb(self.xbox[1])
        roots = _branches(self.cutset, um, lo, hi)
        if roots is None:
            raise _NotHere  # a cut of degree > 2 in x
        ends = [(lo, ConstantEnd(lo), 0), *roots, (hi, ConstantEnd(hi), 0)]
        out = []
        for (x0, lower, d0), (x1, upper, d1) in zip(ends, ends[1:]):
            if not x0 < x1:
                continue
            xm = (x0 + x1) / 2
            ym = um / xm
            if not (arb(self.ybox[0]) < ym < arb(self.ybox[1])):
                continue
            if self.cx.law.pdf(xm).is_zero() or self.cy.law.pdf(ym).is_zero():
                continue
            for end in (lower, upper):
                if isinstance(end, ConstantEnd) and end.value.contains(0):
                    raise _NotHere  # a cell reaching x = 0 at u != 0: not a product's fibre
            out.append((lower, upper, xm, x0, x1, d0, d1))
        return out

    def y_ends(self, um: arb, cell):
        """The cell's ends as values of y = u / x, analytic functions of u (in the order of
        the x ends): the roots of the cuts in (u, y) at um / x0 and um / x1."""
        x0, x1 = cell[3], cell[4]
        ylo, yhi = arb(self.ybox[0]), arb(self.ybox[1])
        roots = _branches(self.ycutset, um, ylo - 1, yhi + 1)
        if roots is None:
            raise _NotHere
        out = []
        for xe in (x0, x1):
            target = um / xe
            best = min(roots, key=lambda r: abs(r[0] - target).upper(), default=None)
            if best is None or not abs(best[0] - target) <= abs(target) * arb(2) ** -20:
                raise _NotHere  # no cut in (u, y) for this end: not expected
            out.append(best)
        return out

    def integrands(self, um: arb, cell, with_class: bool):
        """(variable, functions (t, (u, l)) -> acb) on the cell: the integrand of f_U(u) =
        int f_X(x) f_Y(u/x) dx/|x| in the cell's variable t, with dx/|x| = w dt
        (sigma, s, s' the signs of u, x and y on the cell):

        =====  ============  ======================  ======================  ====
        t      where         x                       y                       w
        =====  ============  ======================  ======================  ====
        a      |y| <= |x|    s e^t                   sigma s e^(l - t)       s
        b      |x| < |y|     sigma s' e^(l - t)      s' e^t                  -s
        =====  ============  ======================  ======================  ====

        The larger factor is written in t alone and the smaller from l - t, never from u: on
        the complex balls of l on which arb bounds the outer integrand, e^(l - t) keeps its
        relative width where the rectangle of u = e^l would cover its arc badly. With the
        class, the parts on C = 1 and C = 0 (an indicator class gives one of them, the other
        None)."""
        xm = cell[2]
        ym = um / xm
        s = 1 if xm > 0 else -1
        sy = 1 if ym > 0 else -1
        sigma = 1 if um > 0 else -1
        fx, fy = self.cx.law.pdf_branch(xm), self.cy.law.pdf_branch(ym)
        if abs(xm) >= abs(ym):
            var = "a"

            def coords(t, ul):
                return s * t.exp(), s * sigma * (ul[1] - t).exp()

            def weight(t):
                return s
        else:
            var = "b"

            def coords(t, ul):
                return sy * sigma * (ul[1] - t).exp(), sy * t.exp()

            def weight(t):
                return -s

        def base(t, u):
            x, y = coords(t, u)
            return fx(x) * fy(y) * weight(t)

        if not with_class:
            return var, [base]
        q = self.q
        pm = self.point(xm, ym)
        if q.rest is None and not q.remaining:
            one = q.value(pm)[0] > 0
            return var, ([base, None] if one else [None, base])
        qb = q.branch(pm)

        def part(k):
            def g(t, u):
                x, y = coords(t, u)
                return fx(x) * fy(y) * weight(t) * acb(qb(self.point(x, y), True)[k])
            return g

        return var, [part(0), part(1)]

    def densities_at(self, um: arb, with_class: bool, tol: arb):
        """u -> (f_U,) or (f_U, f_U1, f_U0) on complex balls u of the outer piece of the real
        um; None when the piece lies in one class (H_b = 0 there)."""
        lm = abs(um).log()

        def variable(var, end, s, sy):
            """t at a cell end (an x value for a, a y value for b)."""
            return ((s if var == "a" else sy) * end).log(analytic=True)

        terms = []
        for cell in self.cells(um):
            xm = cell[2]
            s = 1 if xm > 0 else -1
            sy = 1 if um / xm > 0 else -1
            var, gs = self.integrands(um, cell, with_class)
            if var == "b":
                (v0, lower, d0), (v1, upper, d1) = self.y_ends(um, cell)
            else:
                lower, upper, v0, v1, d0, d1 = cell[0], cell[1], cell[3], cell[4], cell[5], cell[6]
            ends = []
            for value, fn, d in ((v0, lower, d0), (v1, upper, d1)):
                if d is not None:
                    # a cut that scales as |u|^d: ln|end| = ln|end(um)| + d (l - ln|um|), exact
                    # on every complex ball of l (u itself is a rectangle that covers its arc
                    # badly)
                    ends.append(_scaled_end(abs(value).log(), sp.Rational(d), lm))
                else:
                    ends.append(lambda u, l, fn=fn, var=var, s=s, sy=sy:
                                variable(var, acb(fn(u)), s, sy))
            for i, g in enumerate(gs):
                if g is not None:
                    terms.append((i, g, ends[0], ends[1], var))
        if with_class and len({t[0] for t in terms}) < 2:
            return None

        def at(u, l):
            parts = [acb(0)] * (2 if with_class else 1)
            for i, g, end0, end1, _ in terms:
                t0, t1 = end0(u, l), end1(u, l)
                parts[i] += arb_integral(lambda z, an, g=g: g(z, (u, l)), t0, t1, abs_tol=tol,
                                         rel_tol=tol, eval_limit=INNER_EVAL_LIMIT)
            if not with_class:
                return (parts[0],)
            return parts[0] + parts[1], parts[0], parts[1]

        return at

    # ----- bounds -------------------------------------------------------------------------------
    def sup_densities(self):
        return _sup_pdf(self.cx.law, self.xbox), _sup_pdf(self.cy.law, self.ybox)

    def band(self, tol: arb, with_class: bool) -> tuple:
        """(l_lo, bound): the band |u| <= e^(l_lo) left out and its contribution's bound."""
        mx, my = self.sup_densities()
        A = 2 * mx * my
        B = max(abs(arb(t)) for t in self.xbox) * max(abs(arb(t)) for t in self.ybox)
        l0 = arb(-20)
        for _ in range(400):
            u0 = l0.exp()
            L = (B / u0).log()
            i1 = u0 * (L + 1)
            i2 = u0 * (L * L + 2 * L + 2)
            bound = 2 * arb(2).log() * A * i1 if with_class else 2 * A * (abs(A.log()) * i1 + i2)
            if bound <= tol:
                return l0, arb(bound.upper())
            l0 -= 5
        raise QuadratureError("no band around u = 0 meets the tolerance")

    def truncation(self, with_class: bool) -> arb:
        eta = 2 * self.acc.eps
        hb = -(eta * eta.log()) - (1 - eta) * (-eta).log1p()
        if with_class:
            return arb((2 * eta * arb(2).log() + hb).upper())
        _, x2 = self.cx.law.moments()
        _, y2 = self.cy.law.moments()
        m2 = x2 * y2
        above = eta * (1 / eta).log() + eta / 2 * (2 * arb.pi() * arb(1).exp() * m2 / eta).log()
        mx, my = self.sup_densities()
        eps = self.acc.eps
        dx = _cut_ends(self.cx.law, self.xbox)
        dy = _cut_ends(self.cy.law, self.ybox)
        delta = arb(0)
        if dx:
            delta += my * eps / min(dx, key=lambda t: t.mid())
        if dy:
            delta += mx * eps / min(dy, key=lambda t: t.mid())
        below = eta + delta
        return arb(max(above.upper(), below.upper()))


def _scaled_end(base: arb, d: sp.Rational, lm: arb):
    """(u, l) -> ln|end| for a cell end on a cut that scales as |u|^d, ln|end(um)| = base at
    ln|um| = lm: base + d (l - lm), exact on every complex ball of l."""
    d = arb(d.p) / d.q

    def end(u, l):
        return acb(base) + d * (l - lm)

    return end


def _cut_ends(law, box) -> list:
    """|end| of the box ends that cut an unbounded support."""
    lo, hi = law.support()
    out = []
    if lo == -INF:
        out.append(abs(arb(box[0])))
    if hi == INF:
        out.append(abs(arb(box[1])))
    for t in out:
        if not t > 0:
            raise _NotHere
    return out


def _outer(P: _Product, with_class: bool, tol: arb):
    """sum over the signs of U of the certified integral over l = ln|u| of e^l phi(f_U(u))
    (phi = -f ln f, or f ln f - f_1 ln f_1 - f_0 ln f_0), plus the band's bound."""
    l_lo, band = P.band(tol / 100, with_class)
    total, err = arb(0), band
    jobs = []  # (sigma, pieces in l)
    for sigma in (1, -1):
        top = arb(P.umax if sigma > 0 else -P.umin)
        if not top > l_lo.exp():
            continue
        l_hi = top.log()
        breaks = [abs(b) for b in P.u_breaks if (b > 0) == (sigma > 0) and not b.contains(0)]
        pts = {l_lo.mid(), l_hi.mid()}
        pts |= {b.log().mid() for b in breaks if l_lo.exp() < b < top}
        pts |= {arb(p) for p in (-40, -20, -10, -5, -2, 0, 1, 2, 3, 4, 5, 6, 7, 8)
                if l_lo < p < l_hi}
        pts = sorted(pts, key=lambda t: t.mid())
        # the pieces inside one class (H_b = 0 on them) take no share of the tolerance
        pieces = [(a, b) for a, b in zip(pts, pts[1:]) if a < b and not (
            with_class and P.densities_at(sigma * ((a + b) / 2).exp(), True, tol) is None)]
        jobs.append((sigma, pieces))
    count = max(1, sum(len(p) for _, p in jobs))
    # the inner integrals' radii enter the outer nodes' values: well below a piece's goal
    # (its share / 64, :func:`_piece`), times |ln f| + 1 for phi
    inner_tol = tol / (count * 64 * 1000)

    for sigma, pieces in jobs:
        def integrand_at(m, sigma=sigma):
            dens = P.densities_at(sigma * m.exp(), with_class, inner_tol)
            if dens is None:
                return lambda t, an: acb(0)

            def g(t, an):
                if not an and isinstance(t, acb) and t.imag.is_zero():
                    # a real segment (arb's last tiny pieces): real balls, whose cell ends
                    # enclose a square root at its branch point (a double root of a cut)
                    t = t.real
                r = t.exp()
                return r * entropy_integrand(dens(sigma * r, acb(t)), an)
            return g

        for a, b in pieces:
            v, e = _piece(integrand_at, a, b, tol / count)
            total, err = total + v, err + e
    return total, err


def _piece(branch, a: arb, b: arb, share: arb):
    """The certified integral over [a, b] with an error at most ``share``: arb asked for
    share / 64 first (its result's radius usually is below what it was asked), and as
    :func:`fstheory.theory.quadrature.certified` does (share * 2^-16) when it is not."""
    g = branch((a + b) / 2)
    goal = share / 64
    re = arb_integral(g, a, b, abs_tol=goal, rel_tol=goal, eval_limit=EVAL_LIMIT).real
    if re.is_finite() and re.rad() <= share:
        return re.mid(), arb(re.rad().upper())
    return certified(branch, [a, b], share)


def _setup(system, q, acc):
    try:
        return _Product(system, q, acc)
    except _NotHere:
        return None


def log_product_entropy(system, acc: Accuracy):
    """(h(V), error bound) for the single feature c X Y + e of ``system``, or None."""
    P = _setup(system, None, acc)
    if P is None:
        return None
    try:
        trunc = P.truncation(False)
        v, e = _outer(P, False, acc.tol)
    except _NotHere:
        return None
    return v + abs(constant_ball(P.c)).log(), arb((e + trunc).upper())


def log_product_class_average(system, q, acc: Accuracy):
    """(E[H_b(P(C = 1 | V))], error bound) for the single feature c X Y + e, or None."""
    P = _setup(system, q, acc)
    if P is None:
        return None
    try:
        trunc = P.truncation(True)
        v, e = _outer(P, True, acc.tol)
    except _NotHere:
        return None
    return v, arb((e + trunc).upper())
