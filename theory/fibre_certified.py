"""Certified integrals along fibres: h(V) and E[H_b(P(C = 1 | V))] for one feature V of two
independent coordinates, V = a(x) s + r(x) affine in the coordinate s (a product c X Y + e, a
sum with a coefficient that depends on x), as certified outer integrals over v of certified
inner integrals along the fibre {V = v}.

The density of V and its parts on each class (the change of variables s -> v on each fibre):

    f_V(v) = int f_x(x) f_s((v - r(x)) / a(x)) / |a(x)| dx,
    f_{V,c}(v) = int f_x(x) f_s(.) q_c(x, s) / |a(x)| dx,

and h(V) = -int f_V ln f_V dv, E[H_b] = int (f ln f - f_1 ln f_1 - f_0 ln f_0) dv. Both levels
use arb's rigorous integration (:func:`fstheory.theory.quadrature.certified` outside,
``acb.integral`` inside): the inner cells lie between consecutive roots of the cuts in x, each
root an analytic function of v on an outer piece (:meth:`fstheory.theory.cells.CutSet.
root_branches`), so the inner integral is an analytic function of v there, evaluated on the
outer quadrature's complex balls with complex end points.

Truncations, each bounded:

* both coordinates to their boxes of mass ``eps`` (the solved one's box ends are cuts of the
  fibre: for a product s = (v - e)/(c x), |s| <= T keeps every cell at |x| >= |v - e|/(|c| T),
  away from the singular point x = 0). The truncated law differs from the true one by at most
  ``eta = 2 eps`` in total variation, bounded as :func:`_truncation` says;
* near the value v_s = r(x_s) at a zero x_s of a linear coefficient a(x) = alpha (x - x_s) (the
  fibre through the singular point; f_V has a logarithmic singularity there),
  ``f_V(v) <= A ln(B / |v - v_s|)`` with ``A = 2 M_x M_s / |alpha|``, ``B = |alpha| X T``
  (M the densities' bounds on the boxes, X and T the boxes' extents), so the band
  ``|v - v_s| <= v0`` contributes at most ``int |f ln f| <= 2 A (|ln A| I1 + I2)``,
  ``I1 = v0 (ln(B/v0) + 1)``, ``I2 = v0 (ln(B/v0)^2 + 2 ln(B/v0) + 2)`` to h(V), and
  ``2 ln 2 A I1`` to E[H_b]; the pieces next to the band are integrated in
  ``sigma = ln |v - v_s|``, where the logarithmic singularity becomes a linear growth.

:func:`fibre_entropy` and :func:`fibre_class_average` return (value, error bound) or None when
the fibre is not of this form (more than two coordinates, a cut of degree > 2, a coefficient a
that is not linear, a law not in closed form); :class:`~fstheory.theory.quadrature.
QuadratureError` when the certified integrals do not converge (the caller then estimates).
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.arbexpr import UnsupportedExpression, compile_expr, constant_ball
from fstheory.theory.balls import ball, entropy_integrand, exact_rational
from fstheory.theory.cells import ConstantEnd, CutSet
from fstheory.theory.expectation import feature_range, box_of, support_cuts
from fstheory.theory.fibre_sum_cells import closed_sum_cell
from fstheory.theory.polyexp import INF
from fstheory.theory.quadrature import QuadratureError, arb_integral, certified, spend
from fstheory.theory.univariate import Accuracy

__all__ = ["fibre_entropy", "fibre_class_average", "Fibre"]

#: evaluations arb may spend on one inner integral
INNER_EVAL_LIMIT = 20000


class _Fibre:
    """The fibre form of one feature of two coordinates, its cuts and its singular values."""

    def __init__(self, system, q, acc: Accuracy):
        (f,) = system.features
        self.acc, self.q = acc, q
        self.fold = None
        if 0 in system.inner:
            # V = g(W) with W linear: integrate the fibres of W, folded by g's level maps
            w, g, form = system.inner[0]
            self.fold = (w, g)
            f = form
        coords = list(system.coords)
        choice = _solved_index(f, coords)
        if choice is None:
            raise _NotHere
        self.s = coords[choice]
        self.o = coords[1 - choice]
        x, s = self.o.symbol, self.s.symbol
        a = sp.expand(sp.diff(f, s))
        r = sp.expand(f - a * s)
        if a.free_symbols - {x} or r.free_symbols - {x}:
            raise _NotHere
        if not (self.s.law.closed and self.o.law.closed):
            raise _NotHere
        if q is not None and (q.remaining or not q.closed):
            raise _NotHere
        self.a, self.r = a, r
        v = sp.Symbol("v_", real=True)
        self.v = v
        solved = (v - r) / a
        self.sbox = box_of(self.s, acc)
        self.obox = box_of(self.o, acc)
        cuts = list(support_cuts(self.o)) + [x - exact_rational(self.obox[0]), x - exact_rational(self.obox[1])]
        ends = [c for c in support_cuts(self.s)]
        ends += [s - exact_rational(self.sbox[0]), s - exact_rational(self.sbox[1])]
        for cut in ends:
            cuts.append(sp.numer(sp.together(cut.subs(s, solved))))
        if a.free_symbols:
            cuts.append(a)
        if q is not None:
            for cut in q.cuts():
                cuts.append(sp.numer(sp.together(sp.sympify(cut).subs(s, solved))))
        self.cutset = CutSet(cuts, [v, x])
        if not self.cutset.complete:
            raise _NotHere  # a cut that is no polynomial's zero set (v = s + sqrt(x)): missing breakpoints
        self.solved = compile_expr(solved, [v, x])
        self.a_fn = compile_expr(a, [x])
        self.order = [None, None]
        self.order[choice] = "s"
        self.order[1 - choice] = "o"
        # singular values v_s = r(x_s) at zeros of a linear coefficient a(x)
        self.singular = []
        if a.free_symbols:
            poly = sp.Poly(a, x)
            if poly.degree() != 1:
                raise _NotHere
            alpha, beta = poly.all_coeffs()
            x_s = -beta / alpha
            lo, hi = (exact_rational(t) for t in self.obox)
            if lo <= x_s <= hi:
                if r.free_symbols:
                    raise _NotHere
                self.singular.append((r, alpha))
        lo, hi = feature_range(f, [c.symbol for c in coords],
                                [box_of(c, acc) for c in coords])
        self.vlo, self.vhi = arb(lo), arb(hi)
        if self.fold is not None:
            if self.singular:
                raise _NotHere
            self._fold_maps(exact_rational(arb(lo)), exact_rational(arb(hi)))

    def _fold_maps(self, lo, hi):
        """The level maps w -> m w + q of g on W's range and g's fundamental piece [c, hi]
        (one critical point c) or the whole range (g monotone)."""
        from fstheory.theory.feature_maps import critical_points, level_maps

        w, g = self.fold
        crit = critical_points(g, w, lo, hi)
        if len(crit) > 1:
            raise _NotHere
        maps = level_maps(g, w, lo, hi)
        self.maps = [(constant_ball(m), constant_ball(q)) for m, q in maps]
        self.piece = (constant_ball(crit[0]) if crit else self.vlo, self.vhi)
        dg = sp.diff(g, w)
        mid = (self.piece[0] + self.piece[1]) / 2
        point = {w: sp.Float(mid.mid().str(40, radius=False), 40)}
        from fstheory.theory.arbexpr import resolve_abs

        dg = resolve_abs(dg, point).replace(
            lambda e: isinstance(e, sp.sign),
            lambda e: sp.Integer(1) if sp.N(e.args[0].subs(point), 30) >= 0 else sp.Integer(-1))
        sign = 1 if sp.N(dg.subs(point), 30) > 0 else -1
        dg = sp.simplify(sign * dg)
        self.log_dg = None if dg == 1 else compile_expr(sp.log(dg), [w])

    def point(self, v, x):
        """The coordinates (in the system's order) at (v, x)."""
        sv = self.solved(v, x)
        return (sv, x) if self.order[0] == "s" else (x, sv)

    def cells(self, m):
        """Inner cells at the real outer point m: (lower, upper, x midpoint) with lower and upper
        analytic functions of v."""
        lo, hi = arb(self.obox[0]), arb(self.obox[1])
        roots = self.cutset.root_branches(1, (m,), lo, hi)
        if roots is None:
            raise _NotHere
        ends = [(lo, ConstantEnd(lo)), *roots, (hi, ConstantEnd(hi))]
        out = []
        for (x0, lower), (x1, upper) in zip(ends, ends[1:]):
            if not x0 < x1:
                continue
            xm = (x0 + x1) / 2
            sv = self.solved(m, xm)
            if not (arb(self.sbox[0]) < sv < arb(self.sbox[1])):
                continue  # outside the solved coordinate's box: truncated
            if self.s.law.pdf(sv).is_zero() or self.o.law.pdf(xm).is_zero():
                continue
            out.append((lower, upper, xm))
        return out

    def integrands(self, m, cell, with_class: bool):
        """The inner integrand(s) on a cell: functions (x, v) -> acb; with the class, the
        parts on C = 1 and C = 0 (an indicator class gives one of them, the other None)."""
        _, _, xm = cell
        sm = self.solved(m, xm)
        f_o = self.o.law.pdf_branch(xm)
        f_s = self.s.law.pdf_branch(sm)
        sign = 1 if self.a_fn(xm) > 0 else -1
        solved, a_fn = self.solved, self.a_fn

        def base(x, v):
            return f_o(x) * f_s(solved(v, x)) / (sign * a_fn(x))

        if not with_class:
            return [base]
        q = self.q
        pm = self.point(m, xm)
        if q.rest is None:
            one = q.value(pm)[0] > 0
            return [base, None] if one else [None, base]
        qb = q.branch(pm)

        def part(c):
            def g(x, v):
                pt = self.point(v, x)
                return base(x, v) * qb(pt, True)[1 - c]
            return g

        return [part(1), part(0)]


#: the fibre form, public for the tests of the closed cells
Fibre = _Fibre


class _NotHere(Exception):
    """The fibre is not of the form this module integrates."""


def _solved_index(f, coords) -> int | None:
    """The coordinate to solve the feature for: one it is affine in, preferring a bounded
    support (its box ends then keep the fibre away from singular points), then a constant
    coefficient."""
    best, best_key = None, None
    for i, c in enumerate(coords):
        a = sp.diff(f, c.symbol)
        if c.symbol in a.free_symbols or a == 0:
            continue
        lo, hi = c.law.support()
        bounded = lo != -INF and hi != INF
        key = (0 if bounded else 1, 0 if not a.free_symbols else 1)
        if best_key is None or key < best_key:
            best, best_key = i, key
    return best


def _inner(g, lower, upper, v, tol):
    """int_{lower(v)}^{upper(v)} g(x, v) dx by arb's rigorous integration (complex ends)."""
    lo, hi = acb(lower(v)), acb(upper(v))
    return arb_integral(lambda z, an: g(z, v), lo, hi, abs_tol=tol, rel_tol=tol,
                        eval_limit=INNER_EVAL_LIMIT)


def _constant_and_exponential(F, m, cell):
    """(c_s, c_o, r) when, on ``cell``, the solved variable's density is the constant c_s and
    the other's is c_o e^(r x) (one term each, no power of x); None otherwise."""
    _, _, xm = cell
    ps, po = F.s.law.pe.piece_at(F.solved(m, xm)), F.o.law.pe.piece_at(xm)
    if ps is None or po is None or len(ps.terms) != 1 or len(po.terms) != 1:
        return None
    ((ks, rs), cs), = ps.terms.items()
    ((ko, ro), co), = po.terms.items()
    if ks != 0 or rs != 0 or ko != 0:
        return None
    return cs, co, ro


def _closed_cell(F: _Fibre, m, cell):
    """The inner integral of a cell in closed form, as a function of v, when the solved
    coordinate's density is constant there (uniform) and the other's is c e^(r x), the
    coefficient a = alpha x (a product): with sigma the sign of x on the cell and y = sigma x,
    int c e^(r x) / |alpha x| dx = c / |alpha| int_(y0)^(y1) e^(rho y) / y dy, rho = sigma r,
    which is ln(y1 / y0) for rho = 0 and E1(-rho y0) - E1(-rho y1) for rho < 0 (Ei(rho y1) -
    Ei(rho y0) for rho > 0). None otherwise."""
    from fstheory.theory.univariate import PELaw

    if not (isinstance(F.s.law, PELaw) and isinstance(F.o.law, PELaw)) or F.r.free_symbols:
        return None
    x = F.o.symbol
    poly = sp.Poly(F.a, x)
    if poly.degree() != 1 or poly.coeff_monomial(1) != 0:
        return None
    terms = _constant_and_exponential(F, m, cell)
    if terms is None:
        return None
    cs, co, ro = terms
    alpha = abs(constant_ball(poly.coeff_monomial(x)))
    sigma = 1 if cell[2] > 0 else -1
    rho = sigma * ro
    factor = cs * co / alpha
    lower, upper, _ = cell
    # y0 = sigma x at the lower end of y, y1 at the upper
    end0, end1 = (lower, upper) if sigma > 0 else (upper, lower)

    def special(y):
        r = ball(rho)
        return _e1(-r * y) if rho < 0 else _ei(r * y)

    kept = {}

    def at_end(end, v):
        """E1(-rho y) (rho < 0) or Ei(rho y) at the end; at a box end the same for every v
        and kept (per precision): half of the special functions a product's fibres take."""
        if not isinstance(end, ConstantEnd):
            return special(sigma * acb(end(v)))
        key = (id(end), ctx.prec)
        if key not in kept:
            kept[key] = special(sigma * acb(end.value))
        return kept[key]

    def value(v):
        if rho == 0:
            y0, y1 = sigma * acb(end0(v)), sigma * acb(end1(v))
            return factor * (y1.log(analytic=True) - y0.log(analytic=True))
        if rho < 0:
            return factor * (at_end(end0, v) - at_end(end1, v))
        return factor * (at_end(end1, v) - at_end(end0, v))

    return value


def _closed_sum_cell(F: _Fibre, m, cell):
    """The inner integral of a cell in closed form, as a function of v, when the coefficient a
    is a constant (a sum V = a s + r(x)), the solved coordinate's density is constant on the cell
    (uniform) and the other's is c e^(r x): int c e^(r x) / |a| dx over [x0, x1] is
    c (x1 - x0) / |a| for r = 0 and c (e^(r x1) - e^(r x0)) / (|a| r) otherwise. None
    otherwise."""
    from fstheory.theory.univariate import PELaw

    if not (isinstance(F.s.law, PELaw) and isinstance(F.o.law, PELaw)) or F.a.free_symbols:
        return None
    terms = _constant_and_exponential(F, m, cell)
    if terms is None:
        return None
    cs, co, ro = terms
    factor = cs * co / abs(constant_ball(F.a))
    lower, upper, _ = cell
    if ro == 0:
        return lambda v: factor * (acb(upper(v)) - acb(lower(v)))

    def value(v):
        r = ball(ro)
        return factor * ((r * acb(upper(v))).exp() - (r * acb(lower(v))).exp()) / r

    return value


def _about_centre(z: acb, f, derivative) -> acb:
    """f on a complex ball as f(centre) plus |z - centre| times a bound of |f'| on the ball
    (arb's own propagation of an input radius through E1 and Ei is many orders too wide)."""
    z0 = acb(z.real.mid(), z.imag.mid())
    v0 = f(z0)
    r = z.real.rad() + z.imag.rad()
    if r == 0:
        return v0
    d = abs(derivative(z)).upper() * arb(r)
    return v0 + acb(arb(0, d.upper()), arb(0, d.upper()))


def _e1(z):
    """E1(z), E1'(z) = -e^(-z) / z."""
    return _about_centre(acb(z), lambda t: t.expint(1), lambda t: (-t).exp() / t)


def _ei(z):
    """Ei(z), Ei'(z) = e^z / z."""
    return _about_centre(acb(z), lambda t: t.ei(), lambda t: t.exp() / t)


def _densities_at(F: _Fibre, m, with_class: bool, tol, single_class_none: bool = True):
    """v -> (f, f1, f0) (or (f,)) on complex balls v of the outer piece of the real point m:
    the cells, their integrands and closed forms are found once, at m."""
    terms = []  # (part index, closed form or None, its work, integrand, lower, upper)
    for cell in F.cells(m):
        lower, upper, _ = cell
        closed, work = None, 0
        if not with_class or F.q.rest is None:
            # the work of a closed form: about four integrand evaluations for E1 or Ei, one
            # for a difference of the ends or of two exponentials
            closed, work = _closed_cell(F, m, cell), 4
            if closed is None:
                closed, work = _closed_sum_cell(F, m, cell), 1
            if closed is None:
                closed = closed_sum_cell(F, m, cell)
                work = getattr(closed, "work", 4)
        elif F.q.rest is not None:
            # a rest with exponential pieces: each class part in closed form
            parts = [closed_sum_cell(F, m, cell, klass) for klass in (1, 0)]
            if None not in parts:
                terms += [(i, part, part.work, None, lower, upper) for i, part in enumerate(parts)]
                continue
        for i, g in enumerate(F.integrands(m, cell, with_class)):
            if g is not None:
                terms.append((i, closed, work, g, lower, upper))

    present = {i for i, *_ in terms}
    if single_class_none and with_class and len(present) < 2:
        return None  # one class on the whole piece: H_b = 0 there

    def at(v):
        parts = [acb(0)] * (2 if with_class else 1)
        for i, closed, work, g, lower, upper in terms:
            if closed is not None:
                parts[i] += closed(v)
                spend(work)
            else:
                parts[i] += _inner(g, lower, upper, v, tol)
        if not with_class:
            return (parts[0],)
        return parts[0] + parts[1], parts[0], parts[1]

    at.closed = [closed for _i, closed, *_ in terms]
    return at


def _outer(F: _Fibre, with_class: bool, tol: arb):
    """The outer integral over v (pieces between the projected breakpoints; bands around the
    singular values excised and their neighbours integrated in sigma = ln|v - v_s|)."""
    inner_tol = tol * arb(10) ** -8
    pts = [F.vlo, *F.cutset.breakpoints(0, (), F.vlo, F.vhi), F.vhi]
    pieces = [(a, b) for a, b in zip(pts, pts[1:]) if a < b]
    total, err = arb(0), arb(0)
    excluded = []
    for v_s, alpha in F.singular:
        v0, bound = _band(F, v_s, alpha, tol / 100, with_class)
        vs = ball(Fraction(int(v_s.p), int(v_s.q))) if v_s.is_Rational else arb(str(sp.N(v_s, 40)))
        excluded.append((vs, v0))
        err += bound

    def integrand_at(m):
        densities = _densities_at(F, m, with_class, inner_tol)
        if densities is None:
            return lambda v, an: acb(0)

        def g(v, an):
            if not an and isinstance(v, acb) and v.imag.is_zero():
                # a real segment (the last tiny pieces): real balls, whose cell ends enclose a
                # square root at its branch point (a double root of a cut)
                v = v.real
            return entropy_integrand(densities(v), an)
        return g

    for a, b in pieces:
        near = [(vs, v0) for vs, v0 in excluded if a <= vs <= b]
        if not near:
            share = tol / len(pieces)
            for lo, hi, bound in _runs(F, a, b, with_class, inner_tol, share / 4):
                if bound is not None:
                    total, err = total + bound / 2, err + bound / 2
                    continue
                v, e = certified(integrand_at, [lo, hi], share / 2)
                total, err = total + v, err + e
            continue
        ((vs, v0),) = near
        for side, (lo, hi) in ((-1, (a, vs - v0)), (1, (vs + v0, b))):
            if not lo < hi:
                continue
            # v = vs + side * e^sigma for |v - vs| <= 1 (the logarithmic singularity becomes a
            # linear growth in sigma); beyond, v itself (in sigma, e^(-v) would turn through
            # its phase |v| times faster)
            far = (hi - vs) if side > 0 else (vs - lo)
            s0, s1 = v0.log(), min(far, arb(1)).log()

            def branch(ms, side=side, vs=vs):
                mv = vs + side * ms.exp()
                g = integrand_at(mv)
                return lambda s, an: g(vs + side * s.exp(), an) * s.exp()

            v, e = certified(branch, [s0, s1], tol / (4 * len(pieces)))
            total, err = total + v, err + e
            if far > 1:
                rest = [vs + 1, hi] if side > 0 else [lo, vs - 1]
                v, e = certified(integrand_at, rest, tol / (4 * len(pieces)))
                total, err = total + v, err + e
    return total, err


#: longest sub-piece whose class parts are bounded at once on a real ball (the closed forms'
#: real enclosures over wider balls grow like e^(rate * width))
RUN_WIDTH = 1
#: real balls per run in the negligibility test
NEGLIGIBLE_BALLS = 8


def _runs(F: _Fibre, a, b, with_class: bool, inner_tol, allowed):
    """The piece [a, b] as runs (lo, hi, bound): ``bound`` not None where one class part is
    negligible on the whole run, which then contributes between 0 and ``bound`` to
    E[H_b] = int f H_b(f_1 / f) dv. With F >= f and F_c >= f_c upper bounds on the run (one
    real-ball evaluation of each sub-piece of width <= RUN_WIDTH, closed forms only), and
    -(1 - p) ln(1 - p) <= p, f H_b(f_c / f) <= f_c (1 + ln(f / f_c)) <= F_c (1 + ln(F / F_c)),
    increasing in f_c below f. Runs whose parts are not negligible stay whole (bound None),
    merged, for the certified quadrature."""
    if not with_class or F.q.rest is None and F.q.remaining:
        return [(a, b, None)]
    n = max(1, min(int(float((b - a).upper()) / RUN_WIDTH) + 1, 512))
    if n == 1:
        return [(a, b, None)]
    edges = [a + (b - a) * i / n for i in range(n)] + [b]
    out = []
    for lo, hi in zip(edges, edges[1:]):
        try:
            bound = _negligible(F, lo, hi, inner_tol, allowed * (hi - lo) / (b - a))
        except (UnsupportedExpression, ArithmeticError, ValueError):
            bound = None  # a closed form not defined on real balls here: no bound, integrate
        if bound is None and out and out[-1][2] is None:
            out[-1] = (out[-1][0], hi, None)
        else:
            out.append((lo, hi, bound))
    return out


def _negligible(F: _Fibre, lo, hi, inner_tol, allowed):
    """The bound of the run's contribution (see :func:`_runs`) when it is at most ``allowed``,
    else None."""
    m = (lo + hi) / 2
    densities = _densities_at(F, m, True, inner_tol, False)
    if densities is None or any(closed is None for closed in getattr(densities, "closed", [None])):
        return None
    # upper bounds from NEGLIGIBLE_BALLS real balls covering the run (one wide ball's
    # enclosure of the closed forms can reach below 0 by dependency)
    ups = [arb(0), arb(0), arb(0)]
    step = (hi - lo) / NEGLIGIBLE_BALLS
    for i in range(NEGLIGIBLE_BALLS):
        # a little wider than half a step: the balls overlap and cover the run
        ball_i = arb(lo + step * (i + arb(1) / 2), (step * arb("0.5001")).upper())
        for j, p in enumerate(densities(ball_i)):
            up = acb(p).real.upper()
            if not up.is_finite():
                return None
            ups[j] = max(ups[j], arb(up))
    top = ups[0]
    best = None
    for up in ups[1:]:
        up = min(up, top)
        if not up.is_finite():
            continue
        if up <= 0:
            bound = arb(0)
        else:
            bound = (hi - lo) * up * (1 + (top / up).log())
        if bound.is_finite() and (best is None or bound < best):
            best = bound
    if best is None or not best <= allowed:
        return None
    return arb(best.upper())


def _outer_folded(F: _Fibre, with_class: bool, tol: arb):
    """The outer integral for V = g(W) over g's fundamental piece of w: with the level maps
    p_j(w) = m_j w + q_j, f_V(g(w)) |g'(w)| = sum_j |m_j| f_W(p_j(w)) =: Phi(w), so
    h(V) = -int Phi ln Phi dw + int Phi ln|g'| dw and E[H_b] = int (Phi ln Phi - Phi_1 ln Phi_1
    - Phi_0 ln Phi_0) dw (the |g'| cancel in the class ratio)."""
    inner_tol = tol * arb(10) ** -8
    a0, b0 = F.piece
    breaks = F.cutset.breakpoints(0, (), F.vlo, F.vhi)
    pts = {a0.mid(), b0.mid()}
    for m_j, q_j in F.maps:
        for beta in breaks:
            w = ((beta - q_j) / m_j).mid()
            if a0 < w < b0:
                pts.add(w)
    pts = sorted(pts, key=lambda t: t)
    pieces = [(a, b) for a, b in zip(pts, pts[1:]) if a < b]

    def integrand_at(m):
        parts_at = []
        for m_j, q_j in F.maps:
            mj = m_j * m + q_j
            if F.vlo < mj < F.vhi:
                parts_at.append((abs(m_j), m_j, q_j,
                                 _densities_at(F, mj, with_class, inner_tol, False)))
        if not parts_at:
            return lambda v, an: acb(0)

        def g(w, an):
            if not an and isinstance(w, acb) and w.imag.is_zero():
                w = w.real
            n = 3 if with_class else 1
            total = [acb(0)] * n
            for weight, m_j, q_j, dens in parts_at:
                for i, d in enumerate(dens(m_j * w + q_j)):
                    total[i] += weight * d
            out = entropy_integrand(total, an)
            if not with_class and F.log_dg is not None:
                out += total[0] * F.log_dg(w, analytic=an)
            return out

        return g

    total, err = arb(0), arb(0)
    for a, b in pieces:
        v, e = certified(integrand_at, [a, b], tol / len(pieces))
        total, err = total + v, err + e
    return total, err


def _band(F: _Fibre, v_s, alpha, tol: arb, with_class: bool):
    """(v0, bound): the half-width of the band excised around the singular value v_s, and the
    bound of its contribution (see the module docstring)."""
    ms = abs(F.s.law.pdf(arb((arb(F.sbox[0]) + arb(F.sbox[1])) / 2,
                             ((arb(F.sbox[1]) - arb(F.sbox[0])) / 2).upper()))).upper()
    mo = abs(F.o.law.pdf(arb((arb(F.obox[0]) + arb(F.obox[1])) / 2,
                             ((arb(F.obox[1]) - arb(F.obox[0])) / 2).upper()))).upper()
    al = abs(ball(Fraction(int(sp.Rational(alpha).p), int(sp.Rational(alpha).q))))
    X = max(abs(arb(F.obox[0])), abs(arb(F.obox[1])))
    T = max(abs(arb(F.sbox[0])), abs(arb(F.sbox[1])))
    A = 2 * ms * mo / al
    B = al * X * T
    v0 = tol / (A + 1) / arb(10) ** 4
    for _ in range(200):
        L = (B / v0).log()
        i1 = v0 * (L + 1)
        i2 = v0 * (L * L + 2 * L + 2)
        bound = 2 * arb(2).log() * A * i1 if with_class else 2 * A * (abs(A.log()) * i1 + i2)
        if bound <= tol:
            return v0, arb(bound.upper())
        v0 = v0 / 1024
    raise QuadratureError("no band around the singular fibre meets the tolerance")


def _truncation(F: _Fibre, with_class: bool) -> arb:
    """The bound of the effect of truncating both coordinates to their boxes (mass eta <= 2 eps
    outside, the density of V changed by delta >= 0 with int delta <= eta and delta <= D).

    E[H_b]: H(C | V) is concave in the joint law and at most H(C | V, Z) + H(Z) for the switch
    Z between the box and the tail parts, so it moves by at most 2 eta ln 2 + H_b(eta).
    h(V): with phi(t) = -t ln t concave and phi(0) = 0, phi(f) - phi(f_box) lies between
    -delta (1 + ln+ f) and phi(delta); int phi(delta) <= eta ln(1/eta) + eta/2 ln(2 pi e
    E[V^2] / eta) (the maximal entropy for a second moment) and int delta ln+ f <= D int f = D.
    """
    eta = 2 * F.acc.eps
    hb = -(eta * eta.log()) - (1 - eta) * (-eta).log1p()
    if with_class:
        return (2 * eta * arb(2).log() + hb).upper()
    if F.fold is not None and sp.simplify(F.fold[1] - sp.Abs(F.fold[0])) != 0:
        raise _NotHere  # E[g(W)^2] is not the second moment of W
    m2 = _second_moment(F)
    above = eta * (1 / eta).log() + eta / 2 * (2 * arb.pi() * arb(1).exp() * m2 / eta).log()
    below = eta + _delta_bound(F)
    return max(above.upper(), below.upper())


def _second_moment(F: _Fibre) -> arb:
    """E[V^2] for V = (alpha x + beta) s + gamma x + delta (a and r linear in x)."""
    x = F.o.symbol
    if not (sp.sympify(F.a).is_polynomial(x) and sp.sympify(F.r).is_polynomial(x)):
        raise _NotHere  # sqrt(x) and the like: not this route's form
    pa, pr = sp.Poly(F.a, x), sp.Poly(F.r, x)
    if pa.degree() > 1 or pr.degree() > 1:
        raise _NotHere
    al, be = (constant_ball(pa.coeff_monomial(x)), constant_ball(pa.coeff_monomial(1)))
    ga, de = (constant_ball(pr.coeff_monomial(x)), constant_ball(pr.coeff_monomial(1)))
    x1, x2 = F.o.law.moments()
    s1, s2 = F.s.law.moments()
    aa = al * al * x2 + 2 * al * be * x1 + be * be
    ar = al * ga * x2 + (al * de + be * ga) * x1 + be * de
    rr = ga * ga * x2 + 2 * ga * de * x1 + de * de
    return aa * s2 + 2 * ar * s1 + rr


def _delta_bound(F: _Fibre) -> arb:
    """sup_v delta(v): the solved coordinate's tail (at most M_x P(|s| > T) / T for a product,
    or the density's value beyond its box for a constant coefficient) plus the other's (at most
    M_s P(x outside its box) / min |a| there)."""
    eps = F.acc.eps
    ms = _sup_density(F.s.law, F.sbox)
    mo = _sup_density(F.o.law, F.obox)
    x = F.o.symbol
    o_cut = _truncated_ends(F.o.law, F.obox)
    s_cut = _truncated_ends(F.s.law, F.sbox)
    if not F.a.free_symbols:
        a_min = abs(constant_ball(F.a))
        s_tail = max([F.s.law.pdf(t).upper() for t in s_cut] + [arb(0)])
    else:
        poly = sp.Poly(F.a, x)
        alpha, x_s = constant_ball(poly.coeff_monomial(x)), -constant_ball(poly.coeff_monomial(1) / poly.coeff_monomial(x))
        a_min = min([abs(alpha) * abs(t - x_s) for t in o_cut] + [arb("inf")])
        s_tail = mo * eps / min([abs(t) for t in s_cut] + [arb("inf")])
    return s_tail + ms * eps / a_min


def _truncated_ends(law, box) -> list:
    """The ends of the box that cut an unbounded support (the others are support ends)."""
    lo, hi = law.support()
    out = []
    if lo == -INF:
        out.append(arb(box[0]))
    if hi == INF:
        out.append(arb(box[1]))
    return out


def _sup_density(law, box) -> arb:
    lo, hi = arb(box[0]), arb(box[1])
    return abs(law.pdf(arb((lo + hi) / 2, ((hi - lo) / 2).upper()))).upper()


def fibre_entropy(system, acc: Accuracy):
    """(h(V), error bound) or None (see the module docstring)."""
    try:
        F = _Fibre(system, None, acc)
        trunc = _truncation(F, False)
        v, e = (_outer_folded if F.fold else _outer)(F, False, acc.tol)
    except _NotHere:
        return None
    return v, e + trunc


def fibre_class_average(system, q, acc: Accuracy):
    """(E[H_b(P(C = 1 | V))], error bound) or None (see the module docstring)."""
    try:
        F = _Fibre(system, q, acc)
        trunc = _truncation(F, True)
        v, e = (_outer_folded if F.fold else _outer)(F, True, acc.tol)
    except _NotHere:
        return None
    return v, e + trunc
