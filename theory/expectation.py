"""Expectations over independent coordinates and densities along fibres: the integrals that
every quantity of the numerical route reduces to.

* :func:`expect` -- ``E[F(U)] = int f_1(u_1) ... int f_g(u_g) F(u) du`` over the coordinates' boxes
  (mass outside at most ``eps`` each), split at the breakpoints of the cut polynomials
  (:class:`fstheory.theory.cells.CutSet`). One coordinate and closed-form factors: certified
  quadrature (:func:`fstheory.theory.quadrature.certified`); otherwise nested double-exponential
  quadrature, each inner integral carried as a ball whose radius is its error estimate.
* :func:`fibre_densities` -- for a feature V = a(u') u_s + r(u') affine in one coordinate u_s, the
  density of V and its parts on each class,
  ``f_{V,c}(v) = int prod_{i != s} f_i(u_i) f_s((v - r)/a) q_c(u) / |a| du'``
  (the change of variables u_s -> v on each fibre {V = v}).

The truncation to boxes adds at most ``K * sum eps`` to an expectation when |F| <= K; callers
pass K (ln 2 for a binary entropy) and the result's error includes it.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from fractions import Fraction

import sympy as sp
from flint import arb

from fstheory.theory.arbexpr import compile_expr
from fstheory.theory.balls import ball
from fstheory.theory.cells import CutSet
from fstheory.theory.cubature import cell, rectangle
from fstheory.theory.polyexp import INF, product_integral
from fstheory.theory.quadrature import (
    QuadratureError,
    QuadratureTimeout,
    best,
    work_limit,
    certified,
    integrate,
    integrate_ball,
    integrate_vector_balls,
)
from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.univariate import Accuracy, PELaw, Unsupported

__all__ = ["Integrand", "expect", "support_cuts", "box_of", "fibre_densities", "Fibre",
           "CUBATURE_EVALUATIONS"]

#: work the certified cubature of a two-coordinate expectation may spend before the
#: expectation falls back to nested estimated quadrature (an integrand whose analytic
#: continuation has poles near the real plane, as H_b of a steep mixture, needs many small
#: rectangles)
CUBATURE_EVALUATIONS = 150_000
#: use the certified cubature for two coordinates (False: the nested estimated quadrature, the
#: independent second route of the tests; see :func:`fstheory.theory.numeric.estimated_nested`)
CUBATURE = True


def _rat(q: Fraction):
    return sp.Rational(q.numerator, q.denominator)


@dataclass
class Integrand:
    """F on the coordinates: ``value(u)`` at real arb points; ``branch(m)`` (optional) returns
    ``g(z, analytic)`` on complex balls for the cell containing the real point m."""

    value: object
    branch: object = None
    bound: arb = arb(1)  # |F| <= bound (for the truncation error)
    #: ``tail(balls)``: a bound of |F| on the whole product of real balls (one per coordinate)
    #: when it is negligible there (a class probability within eps of 0 or 1), else None
    tail: object = None
    #: ``constant(m)``: F's value (a ball) when F is constant on the cell of the real point m
    #: (equal weights, an indicator class), else None
    constant: object = None
    #: ``bound`` is a proved bound of |F| everywhere (not an assumed one)
    bounded: bool = False
    #: one coordinate: points c where F = ln|x - c| + ln|h(x)| has a logarithmic singularity,
    #: as [(c, ln|h| compiled)] (see :func:`_log_singular_piece`)
    log_zeros: list = field(default_factory=list)


def box_of(coord, acc: Accuracy) -> tuple:
    lo, hi = coord.law.box(acc.eps)
    return ball(lo), ball(hi)



def support_cuts(coord) -> list:
    """Cuts u - p at the finite support ends and breakpoints of a coordinate's law."""
    lo, hi = coord.law.support()
    pts = [p for p in (lo, hi) if p not in (INF, -INF)] + list(coord.law.breakpoints())
    return [coord.symbol - _rat(p) for p in pts]


def expect(coords: list, F: Integrand, cuts: list, acc: Accuracy, certify: bool = True,
           cubature_evaluations: int | None = None):
    """(E[F(U)], error, method, proved) over the coordinates ``coords`` (outer first);
    ``proved``: the error is a bound (certified quadrature, bounded truncations).
    ``cubature_evaluations``: the certified cubature's share of the work for two coordinates
    (default :data:`CUBATURE_EVALUATIONS`)."""
    syms = [c.symbol for c in coords]
    all_cuts = list(cuts)
    for c in coords:
        all_cuts += support_cuts(c)
    boxes = [box_of(c, acc) for c in coords]
    tail = F.bound * acc.eps * len(coords)
    if not coords:
        v = F.value(())
        return v.mid(), v.rad(), "closed form", True
    if len(coords) == 1:
        cutset = CutSet(all_cuts, syms)
        lo, hi = boxes[0]
        pts = [lo, *cutset.breakpoints(0, (), lo, hi), hi]
        law = coords[0].law
        pts, skipped = _drop_tails(F, law, pts)
        branch = None
        if certify and F.branch is not None and law.closed and cutset.complete:
            def branch(m):
                f = law.pdf_branch(m)
                g = F.branch((m,))
                if g is None:
                    raise QuadratureError("no analytic form of the integrand on this piece")
                return lambda z, an: f(z) * g((z,), an)

        total, err, how, proved = arb(0), arb(0), "bounded tails", True
        runs = _split_at_log_zeros(pts, F.log_zeros) if branch is not None else pts
        for run in runs:
            share = acc.tol / len(runs)
            if isinstance(run, tuple):  # a piece next to a logarithmic singularity
                v, e = _log_singular_piece(law, F, branch, run, share)
                total, err = total + v, err + e
                continue
            v, e, how, ok = best(branch, lambda x: _density_times(law.pdf(x),
                                                                  lambda d: F.value((x,))),
                                 run, share)
            total, err, proved = total + v, err + e, proved and ok
        return total, err + tail + skipped, how, proved
    if (CUBATURE and len(coords) == 2 and certify and F.branch is not None
            and all(c.law.closed for c in coords)):
        got = None
        with work_limit(cubature_evaluations or CUBATURE_EVALUATIONS) as budget:
            try:
                got = _expect_two(coords, F, all_cuts, boxes, acc)
            except QuadratureTimeout:
                if budget[0] >= 0:
                    raise  # the quantity's own budget, not the cubature's share
            except QuadratureError:
                pass  # not certified here (an edge singularity the rectangles cannot resolve)
        if got is not None:
            v, e = got
            return v, e + tail, "certified cubature", True
    cutset = CutSet(all_cuts, syms)
    laws = [c.law for c in coords]
    g = len(coords)

    lengths = [hi - lo for lo, hi in boxes]

    def level(i, outer, weight):
        """The level-i integral at the outer values; ``weight`` bounds the product of the outer
        densities there, so that the inner error, averaged against them, stays within tol/10."""
        lo, hi = boxes[i]
        pts = [lo, *cutset.breakpoints(i, outer, lo, hi), hi]
        law = laws[i]
        if i == g - 1:
            f = lambda x: _density_times(law.pdf(x), lambda d: F.value(outer + (x,)))  # noqa: E731
        else:
            f = lambda x: _density_times(  # noqa: E731
                law.pdf(x), lambda d: level(i + 1, outer + (x,), weight * d.upper() * lengths[i]))
        if i == 0:
            return integrate(f, pts, acc.tol)
        return integrate_ball(f, pts, acc.tol / (10 * weight))

    v, e = level(0, (), arb(1))
    return v, e + tail, "nested double-exponential quadrature", False


def _expect_two(coords, F: Integrand, cuts: list, boxes, acc: Accuracy):
    """Certified E[F(U)] over two coordinates (:mod:`fstheory.theory.cubature`): the plane is cut
    into cells between consecutive roots of the cuts in the inner coordinate, each root an
    analytic function of the outer one between the projected breakpoints; cells where F is
    negligible (``F.tail``) are bounded, the others integrated. None when a cut has degree > 2
    in the inner coordinate (the caller then nests estimated quadrature)."""
    (lo0, hi0), (lo1, hi1) = boxes
    syms = [c.symbol for c in coords]
    inner = syms[1]
    # the inner box ends as cuts: a root leaving the box is then a breakpoint of the outer level
    cutset = CutSet(list(cuts) + [inner - _exact_rational(lo1), inner - _exact_rational(hi1)],
                    syms)
    if not cutset.complete:
        raise QuadratureError("a breakpoint that is no polynomial's root: not certified here")
    laws = [c.law for c in coords]
    outer = [lo0, *cutset.breakpoints(0, (), lo0, hi0), hi0]
    cells = []
    for a, b in zip(outer, outer[1:]):
        if not a < b:
            continue
        m0 = (a + b) / 2
        roots = cutset.root_branches(1, (m0,), lo1, hi1)
        if roots is None:
            return None
        ends = [(lo1, _constant(lo1)), *roots, (hi1, _constant(hi1))]
        for (y0, lower), (y1, upper) in zip(ends, ends[1:]):
            if y0 < y1:
                cells.append((a, b, lower, upper, m0, (y0 + y1) / 2))
    total, err = arb(0), arb(0)
    share = acc.tol / max(1, len(cells))
    for a, b, lower, upper, m0, m1 in cells:
        xb = arb((a + b) / 2, ((b - a) / 2).upper())
        ylo, yhi = lower(xb), upper(xb)
        yb = arb((ylo.lower() + yhi.upper()) / 2, ((yhi.upper() - ylo.lower()) / 2).upper())
        if F.tail is not None:
            bound = F.tail((xb, yb))
            if bound is not None:
                if bound != 0:
                    err += bound * (laws[0].cdf(b) - laws[0].cdf(a)).upper()
                continue
        const = F.constant((m0, m1)) if F.constant is not None else None
        if const is not None:
            if const != 0:
                v, e = _cell_probability(laws, a, b, lower, upper, m0, m1, share / (1 + abs(const)))
                total, err = total + const * v, err + abs(const).upper() * e + abs(v) * const.rad()
            continue
        f0, f1 = laws[0].pdf_branch(m0), laws[1].pdf_branch(m1)
        g = F.branch((m0, m1))
        if g is None:
            raise QuadratureError("no analytic form of the integrand on this cell")

        def integrand(x, y, an, f0=f0, f1=f1, g=g):
            if isinstance(x, arb) and isinstance(y, arb):
                # real balls (nodes, enclosures of a rectangle): the real formula, which
                # encloses F where a density vanishes on the ball (x ln x near 0)
                return _density_times(laws[0].pdf(x) * laws[1].pdf(y), lambda d: F.value((x, y)))
            return f0(x) * f1(y) * g((x, y), an)

        try:
            v, e = rectangle(cell(integrand, lower, upper), a, b, arb(0), arb(1), share)
        except QuadratureTimeout:
            raise
        except QuadratureError:
            if not F.bounded:
                raise
            # a sliver (two cuts about to meet, roots not separable): |F| <= its bound, and the
            # densities are enclosed on the cell's box
            dens = abs(laws[0].pdf(xb) * laws[1].pdf(yb)).upper()
            v, e = arb(0), (xb.rad() * 2 * yb.rad() * 2 * dens * F.bound).upper()
            if not e <= share:
                raise
        total, err = total + v, err + e
    return total, arb(err.upper())


def _cell_probability(laws, a, b, lower, upper, m0, m1, tol):
    """P(a <= U0 <= b, L(U0) <= U1 <= U(U0)) = int_a^b f0(x) (F1(U(x)) - F1(L(x))) dx, certified;
    F1 from the tail of the law that keeps precision at the cell."""
    law0, law1 = laws
    f0 = law0.pdf_branch(m0)
    upper_tail = law1.cdf(m1) > arb("0.5")
    F1 = law1.sf_branch(m1) if upper_tail else law1.cdf_branch(m1)

    def branch(m):
        def g(z, an):
            lo, hi = lower(z, analytic=an), upper(z, analytic=an)
            mass = F1(lo) - F1(hi) if upper_tail else F1(hi) - F1(lo)
            return f0(z) * mass
        return g

    return certified(branch, [a, b], tol)


def _constant(c: arb):
    return lambda *z, analytic=True: c


def _exact_rational(x: arb):
    """An exact arb (a box end) as a sympy Rational."""
    m, e = x.mid().man_exp()
    m, e = int(m), int(e)
    return sp.Integer(m) * sp.Integer(2) ** e


def _split_at_log_zeros(runs: list, zeros: list) -> list:
    """The runs of pieces with every piece that ends at a logarithmic singularity taken out
    as a tuple (a, b, c, h, m), c the singular end (of multiplicity m)."""
    if not zeros:
        return runs
    out = []
    for run in runs:
        current = [run[0]]
        for a, b in zip(run, run[1:]):
            hit = next(((c, h, m) for c, h, m in zeros if abs(c - a) < arb(10) ** -30
                        or abs(c - b) < arb(10) ** -30), None)
            if hit is None:
                current.append(b)
                continue
            if len(current) > 1:
                out.append(current)
            out.append((a, b, *hit))
            current = [b]
        if len(current) > 1:
            out.append(current)
    return out


def _log_singular_piece(law, F: Integrand, branch, piece, tol: arb):
    """int f(x) F(x) dx over [a, b] with F = m ln|x - c| + ln|h(x)|, c = a or b: the band of
    width delta at c is bounded, |int| <= sup f (m delta (|ln delta| + 1) + delta sup
    |ln|h||), and the rest integrated (certified) in s = ln|x - c|, where the singularity
    becomes a linear decay."""
    a, b, c, log_h, mult = piece
    side = 1 if abs(c - a) < abs(c - b) else -1
    length = (b - a)
    band = arb((a + b) / 2, ((b - a) / 2).upper())
    sup_f = abs(law.pdf(band)).upper()
    delta = tol / 1000
    for _ in range(100):
        near = arb(c + side * delta / 2, (delta / 2).upper()) if side > 0 else \
            arb(c - delta / 2, (delta / 2).upper())
        h_near = abs(log_h(near))
        # a bound of sup |ln|h|| on the band (h is the cofactor itself, not its logarithm):
        # |ln| at the two ends of |h|'s range, added
        sup_h = (abs(h_near.upper().log()) + abs(h_near.lower().log())).upper() \
            if h_near.lower() > 0 else arb("inf")
        bound = sup_f * (mult * delta * (abs(delta.log()) + 1) + delta * sup_h)
        if bound.is_finite() and bound <= tol / 4:
            break
        delta = delta / 1024
    else:
        raise QuadratureError("no band around a logarithmic singularity meets the tolerance")
    s0, s1 = delta.log(), length.log()

    def in_s(ms):
        g = branch(c + side * ms.exp())
        return lambda s, an: g(c + side * s.exp(), an) * s.exp()

    v, e = certified(in_s, [s0, s1], tol / 2)
    return v, e + arb(bound.upper())


def _drop_tails(F: Integrand, law, pts: list):
    """The pieces of ``pts`` on which F is negligible (``F.tail``) dropped, with the bound of
    their contribution (|F| bound times the piece's probability): (runs of consecutive
    pieces left, each a list of points; total bound)."""
    if F.tail is None:
        return [pts], arb(0)
    runs, current, skipped = [], [pts[0]], arb(0)
    for a, b in zip(pts, pts[1:]):
        bound = F.tail((arb((a + b) / 2, (b - a) / 2),))
        if bound is None:
            current.append(b)
            continue
        if bound != 0:
            skipped += bound * (law.cdf(b) - law.cdf(a)).upper()
        if len(current) > 1:
            runs.append(current)
        current = [b]
    if len(current) > 1:
        runs.append(current)
    return runs, arb(skipped.upper())


def _density_times(density: arb, rest) -> arb:
    """density * rest(density), skipping the work where the density is exactly 0."""
    if density.is_zero():
        return arb(0)
    return density * rest(density)


@dataclass
class Fibre:
    """V = a(u') u_s + r(u') over coordinates ``coords``; ``solved`` is the index of u_s."""

    coords: list
    feature: sp.Expr
    solved: int


def fibre_densities(fibre: Fibre, q, acc: Accuracy, with_class: bool):
    """Functions of v giving f_V(v) (and f_{V,1}, f_{V,0} when ``with_class``), as balls, with
    the outer breakpoints in v; ``q`` is a :class:`ClassProbability` (or None)."""
    coords = fibre.coords
    s = fibre.solved
    us = coords[s]
    others = [c for i, c in enumerate(coords) if i != s]
    v = sp.Symbol("v_", real=True)
    a = sp.diff(fibre.feature, us.symbol)
    r = sp.expand(fibre.feature - a * us.symbol)
    solved_expr = (v - r) / a
    osyms = [c.symbol for c in others]
    cuts = []
    for c in others:
        cuts += support_cuts(c)
    for cut in support_cuts(us):
        cuts.append(sp.numer(sp.together(cut.subs(us.symbol, solved_expr))))
    if a.free_symbols:
        cuts.append(a)
    if q is not None:
        for cut in q.cuts():
            cuts.append(sp.numer(sp.together(sp.sympify(cut).subs(us.symbol, solved_expr))))
    order = [v] + osyms
    cutset = CutSet(cuts, order)
    if not cutset.complete:
        # a breakpoint that is no polynomial's root is missing: the nested quadrature would
        # integrate across it and its error estimate would not see it (S + sqrt(X))
        raise Unsupported("the fibres of this feature meet a support end on a curve that is no "
                          "polynomial's zero set (its breakpoints cannot be placed)")
    solved_fn = compile_expr(solved_expr, order)
    abs_a = compile_expr(a, osyms)
    boxes = [box_of(c, acc) for c in others]
    full_syms = [c.symbol for c in coords]

    def point(vv, u_other):
        us_val = solved_fn(vv, *u_other)
        vals = list(u_other)
        vals.insert(s, us_val)
        return tuple(vals), us_val

    n_out = 2 if with_class else 1

    def integrand(vv, u_other):
        full, us_val = point(vv, u_other)
        dens = us.law.pdf(us_val)
        if dens.is_zero():
            return (arb(0),) * n_out
        dens = dens / abs(abs_a(*u_other))
        if not with_class:
            return (dens,)
        q1, q0 = q.value(full)
        return dens * q1, dens * q0

    # zeros of the coefficient a in each inner variable (products: u_s = v / x): the density
    # along the fibre has a near-singularity there, so the pieces next to it are graded
    singular = [[r for r in _roots_in(a, c.symbol)] if a.free_symbols == {c.symbol} else []
                for c in others]

    def level(i, vv, outer):
        lo, hi = boxes[i]
        pts = _graded([lo, *cutset.breakpoints(i + 1, (vv,) + outer, lo, hi), hi], singular[i])
        law = others[i].law
        last = i == len(others) - 1

        def f(x):
            d = law.pdf(x)
            if d.is_zero():
                return (arb(0),) * n_out
            inner = integrand(vv, outer + (x,)) if last else level(i + 1, vv, outer + (x,))
            return tuple(d * t for t in inner)

        return integrate_vector_balls(f, pts, acc.inner_tol, n_out, acc.inner_rel)

    closed = _closed_fibre(us, others, a, r, q)

    def densities(vv):
        """(f_V, f_{V,1}, f_{V,0}) at v (or f_V alone without the class)."""
        if closed is not None:
            lo, hi = boxes[0]
            pts = [lo, *cutset.breakpoints(1, (vv,), lo, hi), hi]
            parts = closed(vv, pts, n_out, point)
        else:
            parts = level(0, vv, ())
        if with_class:
            return parts[0] + parts[1], parts[0], parts[1]
        return parts[0]

    vbox = feature_range(fibre.feature, full_syms, [box_of(c, acc) for c in coords])

    def breakpoints(lo, hi):
        return cutset.breakpoints(0, (), lo, hi)

    return densities, vbox, breakpoints


def _roots_in(expr, x) -> list:
    """Real roots of a polynomial in one variable (arb balls)."""
    from fstheory.theory.cells import real_roots

    p = sp.Poly(expr, x)
    coeffs = [compile_expr(p.coeff_monomial(x**k), [])() for k in range(p.degree() + 1)]
    return real_roots(coeffs)


def _graded(points: list, singular: list) -> list:
    """Split pieces that end at a distance d from a singular point s (outside the piece) at
    s +- d 4^j, so that each piece is at most a few times longer than its distance to s."""
    out = [points[0]]
    for a, b in zip(points, points[1:]):
        for s_ in singular:
            if s_ <= a:
                d = a - s_
                t = d * 4
                while d > 0 and s_ + t < b:
                    if s_ + t > out[-1]:
                        out.append(s_ + t)
                    t *= 4
            elif s_ >= b:
                d = s_ - b
                ts = []
                t = d * 4
                while d > 0 and s_ - t > a:
                    ts.append(s_ - t)
                    t *= 4
                out += [p for p in reversed(ts) if p > out[-1]]
        out.append(b)
    return sorted(out, key=lambda t: t.mid()) if singular else points


def _closed_fibre(us, others, a, r, q):
    """The inner integral in closed form, when it is one integral of a product of two
    poly-exponential densities on each cell (u_s = alpha(v) + beta x, a constant coefficient)
    and the class is an indicator on each cell; else None (numerical inner integral)."""
    if len(others) != 1 or a.free_symbols:
        return None
    (other,) = others
    if not (isinstance(us.law, PELaw) and isinstance(other.law, PELaw)):
        return None
    if q is not None and (q.rest is not None or q.remaining):
        return None
    x = other.symbol
    slope = sp.diff(r, x)
    if slope.free_symbols or sp.diff(slope, x) != 0:
        return None
    beta = exact_nsimplify(sp.simplify(-slope / a))
    if not beta.is_Rational:
        return None
    beta = Fraction(int(beta.p), int(beta.q))
    a_arb = compile_expr(a, [])()
    const = compile_expr(sp.expand(r - slope * x), [])()

    def inner(vv, pts, n_out, point):
        alpha = (vv - const) / a_arb
        scale = 1 / abs(a_arb)
        out = [arb(0)] * n_out
        for lo, hi in zip(pts, pts[1:]):
            if not lo < hi:
                continue
            mid = (lo + hi) / 2
            p1 = other.law.pe.piece_at(mid)
            p2 = us.law.pe.piece_at(alpha + ball(beta) * mid)
            if p1 is None or p2 is None:
                continue
            val = product_integral(p1, p2, alpha, beta, lo, hi) * scale
            if n_out == 1:
                out[0] += val
                continue
            full, _ = point(vv, (mid,))
            q1, _q0 = q.value(full)
            out[0 if q1 == 1 else 1] += val
        return out

    return inner


def feature_range(feature, syms, boxes) -> tuple:
    """An interval containing the feature's values on the product of the boxes."""
    f = compile_expr(feature, syms)
    balls = [arb((lo + hi) / 2, (hi - lo) / 2) for lo, hi in boxes]
    val = f(*balls)
    return val.lower(), val.upper()
