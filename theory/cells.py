"""Where a piecewise integrand stops being analytic: cut polynomials and their projections.

Every integrand of the numerical route is analytic except on the zero sets of finitely many
polynomials in the integration variables ("cuts"): support ends and kinks of the laws
(``u - a``), indicator boundaries of the class rule (``x + k y``, ``x^2 + y^2 - r``), their images
under the level-set maps of the features, and zeros of Jacobians. Nested quadrature integrates
the innermost variable between consecutive real roots of the cuts at fixed outer values; the
inner integral is then analytic in the outer variables except where the pattern of those roots
changes: where a leading coefficient or a discriminant vanishes, or two cuts meet. These are the
roots of the projected polynomials (leading coefficients, discriminants and pairwise resultants,
as in the projection step of cylindrical algebraic decomposition, Collins 1975 / McCallum 1988),
computed once with sympy inside the symbolic time budget. Extra breakpoints are harmless (a
piece split in two), missing ones only slow the quadrature, so the projection may over-shoot.

Examples
--------
>>> import sympy as sp
>>> from flint import arb
>>> x, y = sp.symbols("x y", real=True)
>>> cuts = CutSet([x + y / 5, x - 11 * y / 5, y], [y, x])
>>> [str(p.as_expr()) for p in cuts.levels[0]]
['y']
>>> [b.str(5, radius=False) for b in cuts.breakpoints(1, (arb(1),), arb(-10), arb(10))]
['-0.20000', '2.2000']
"""

from __future__ import annotations

import itertools

import sympy as sp
from flint import acb, acb_poly, arb, ctx

from fstheory.theory.budget import symbolic_budget
from fstheory.theory.arbexpr import compile_expr

__all__ = ["CutSet", "ConstantEnd", "real_roots"]


class ConstantEnd:
    """A cell end that does not move with the outer variable (a box end, a kink of a law),
    called like the root branches of :meth:`CutSet.root_branches`."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value

    def __call__(self, *z):
        return self.value


class CutSet:
    """Cut polynomials in ``order`` (outermost variable first) and their projections.

    ``levels[i]`` holds the polynomials whose roots in ``order[i]`` (outer variables fixed) are
    the breakpoints of the level-i integral.
    """

    def __init__(self, polys, order, seconds: float = 20.0):
        self.order = list(order)
        dropped: list = []
        with symbolic_budget(seconds, "the breakpoints of an integrand (projection of its cuts)"):
            current = _squarefree_factors(polys, self.order, dropped)
            levels = [None] * len(self.order)
            for i in range(len(self.order) - 1, -1, -1):
                var = self.order[i]
                levels[i] = [p for p in current if p.degree(var) > 0]
                rest = [p for p in current if p.degree(var) == 0]
                if i > 0:
                    rest += _project(levels[i], var, self.order)
                    current = _squarefree_factors([p.as_expr() for p in rest], self.order,
                                                  dropped)
        self.levels = levels
        #: every cut is a polynomial's zero set (else some breakpoints are missing, and an
        #: integrand taken as analytic between the others may not be: no certified route)
        self.complete = not dropped
        self._compiled = [
            [_compile_in(p, self.order[i], self.order[:i]) for p in lvl] for i, lvl in enumerate(levels)
        ]

    def breakpoints(self, level: int, outer: tuple, lo: arb, hi: arb) -> list:
        """Sorted real roots in (lo, hi) of the level's cuts, the outer variables at ``outer``.

        Roots are found at twice the working precision from the exact midpoints of the outer
        values: near a double root (two cuts about to merge) a root is only known to the square
        root of the precision, and that must still be the working precision."""
        pts = []
        bits = ctx.prec
        outer = tuple(o.mid() for o in outer)
        with _precision(2 * bits):
            for coeff_fns in self._compiled[level]:
                coeffs = [f(*outer) for f in coeff_fns]
                for r in real_roots(coeffs):
                    r = r.mid()
                    if lo < r < hi:
                        pts.append(r)
        pts.sort(key=lambda t: t.mid())
        return pts


    def root_branches(self, level: int, outer: tuple, lo: arb, hi: arb, with_cuts: bool = False):
        """The breakpoints of :meth:`breakpoints` as analytic functions of the outer variables:
        a sorted list of ``(value at outer, function of complex balls)``, each function the
        branch of a root of one cut (linear, or quadratic with the square root's sign fixed at
        ``outer``), analytic near ``outer`` while the pattern of roots does not change (between
        the projected breakpoints of the outer levels). None when a cut has degree > 2.

        A function takes the keyword ``analytic`` (default True) of arb's integrands: with
        False, the square root of a discriminant is enclosed on the whole ball, so that a
        piece ending at a double root (a square-root branch point) is still bounded there.
        With ``with_cuts`` each entry also names its cut: ``(value, function, polynomial)``."""
        out = []
        bits = ctx.prec
        mid = tuple(o.mid() for o in outer)
        with _precision(2 * bits):
            for poly, coeff_fns in zip(self.levels[level], self._compiled[level]):
                coeffs = [f(*mid) for f in coeff_fns]
                while coeffs and coeffs[-1].contains(0):
                    coeffs = coeffs[:-1]
                deg = len(coeffs) - 1
                if deg > 2:
                    return None
                for value, fn in _root_functions(coeff_fns[: deg + 1], coeffs):
                    if lo < value < hi:
                        out.append((value.mid(), fn, poly) if with_cuts else (value.mid(), fn))
        out.sort(key=lambda t: t[0].mid())
        return out


def _root_functions(coeff_fns, coeffs) -> list:
    """(root at the real point, analytic root function) for a polynomial of degree 1 or 2."""
    deg = len(coeffs) - 1
    if deg <= 0:
        return []
    if deg == 1:
        c0, c1 = coeff_fns
        return [(-coeffs[0] / coeffs[1], lambda *z, analytic=True: -c0(*z) / c1(*z))]
    c, b, a = coeffs
    disc = b * b - 4 * a * c
    if not disc > 0:
        return []  # a double root (the projection's breakpoint) or none: no cut inside
    fc, fb, fa = coeff_fns
    sign = 1 if b >= 0 else -1

    def parts(z, analytic):
        bz, az, cz = fb(*z), fa(*z), fc(*z)
        return bz, az, cz, _sqrt(bz * bz - 4 * az * cz, analytic)

    def first(*z, analytic=True):
        bz, az, _, root = parts(z, analytic)
        return -(bz + sign * root) / (2 * az)

    def second(*z, analytic=True):
        # c / q keeps precision when b^2 >> 4ac; at a double root with b = 0 (a symmetric cut)
        # q is 0 and c / q is 0/0, where (-b + sign sqrt(d)) / 2a is the same root, enclosed
        bz, az, cz, root = parts(z, analytic)
        q = -(bz + sign * root) / 2
        if q.contains(0):
            return (sign * root - bz) / (2 * az)
        return cz / q

    q = -(b + sign * disc.sqrt()) / 2
    return [(q / a, first), (c / q, second)]


def _sqrt(d, analytic: bool = True):
    """The square root of a discriminant: on complex balls the analytic branch (non-finite
    where the ball meets the branch cut), or with ``analytic`` False arb's enclosure of the
    principal root over the whole ball; on a real ball, sqrt(max(d, 0)) (the discriminant is
    >= 0 at the real points where the root is used, and a ball around a double root reaches
    below 0 only by its radius)."""
    if isinstance(d, acb):
        return d.sqrt(analytic=analytic)
    if d > 0:
        return d.sqrt()
    top = d.upper()
    if top < 0:
        return arb("nan")
    r = arb(top).sqrt().upper()
    return arb(r / 2, r / 2)


def _precision(bits):
    from fstheory.theory.quadrature import flint_precision

    return flint_precision(bits)


def _poly(expr, order):
    return sp.Poly(sp.expand(expr), *order)


def _polynomial_variants(e, order, dropped: list | None = None) -> list:
    """e as polynomials: |a| replaced by +a and -a (one cut each, a superset of the true
    breakpoints) with a itself added; a non-polynomial remainder is dropped and appended to
    ``dropped`` (its breakpoints are then missing: an estimating quadrature still converges,
    only slower, but no certified one may rely on these cuts)."""
    e = sp.sympify(e)
    abs_terms = list(e.atoms(sp.Abs))
    if abs_terms:
        a = abs_terms[0]
        return (_polynomial_variants(a.args[0], order, dropped)
                + _polynomial_variants(e.xreplace({a: a.args[0]}), order, dropped)
                + _polynomial_variants(e.xreplace({a: -a.args[0]}), order, dropped))
    num = sp.numer(sp.together(e))
    if num.is_polynomial(*order):
        return [num]
    if dropped is not None:
        dropped.append(num)
    return []


def _squarefree_factors(polys, order, dropped: list | None = None) -> list:
    out = []
    seen = set()
    for e in [v for p in polys for v in _polynomial_variants(p, order, dropped)]:
        e = sp.sympify(e)
        if not e.free_symbols & set(order):
            continue
        _, factors = sp.factor_list(sp.expand(e), *order)
        for f, _mult in factors:
            p = _poly(f, order)
            if p.total_degree() == 0:
                continue
            key = _normalised(p)
            if key not in seen:
                seen.add(key)
                out.append(p)
    return out


def _normalised(p: sp.Poly):
    lc = p.LC()
    q = (p * (1 / lc)) if lc != 0 else p
    return tuple(sorted(q.terms()))


def _project(polys, var, order) -> list:
    out = []
    for p in polys:
        d = p.degree(var)
        up = sp.Poly(p.as_expr(), var)
        out.append(_poly(up.LC(), order))
        if d >= 2:
            out.append(_poly(sp.discriminant(p.as_expr(), var), order))
    for p, q in itertools.combinations(polys, 2):
        out.append(_poly(sp.resultant(p.as_expr(), q.as_expr(), var), order))
    return out


def _compile_in(p: sp.Poly, var, outer) -> list:
    """Coefficient functions (constant term first) of p as a polynomial in ``var``."""
    up = sp.Poly(p.as_expr(), var)
    deg = up.degree()
    coeffs = [up.coeff_monomial(var**k) for k in range(deg + 1)]
    return [compile_expr(c, outer) for c in coeffs]


def real_roots(coeffs: list) -> list:
    """Real roots (arb) of sum coeffs[k] x^k with arb coefficients; a degenerate leading
    coefficient (a ball containing 0) lowers the degree."""
    while coeffs and coeffs[-1].contains(0):
        coeffs = coeffs[:-1]
    deg = len(coeffs) - 1
    if deg <= 0:
        return []
    if deg == 1:
        return [-coeffs[0] / coeffs[1]]
    if deg == 2:
        c, b, a = coeffs
        disc = b * b - 4 * a * c
        if disc < 0:
            return []
        if disc.contains(0):
            return [-b / (2 * a)]
        sq = disc.sqrt()
        # the root without cancellation first, the other from the product of the roots
        q = -(b + sq) / 2 if b >= 0 else -(b - sq) / 2
        return [q / a, c / q] if not q.contains(0) else [(-b + sq) / (2 * a), (-b - sq) / (2 * a)]
    roots = acb_poly_roots(coeffs)
    return roots


def acb_poly_roots(coeffs: list) -> list:
    """Real roots of a polynomial of degree >= 3 (arb's Aberth iteration; near a double root,
    where it cannot separate the roots, mpmath's on the midpoints; failing both, no breakpoint:
    quadrature then converges more slowly, never wrongly)."""
    try:
        small = arb(2) ** (-ctx.prec // 2)
        roots = acb_poly([acb(c) for c in coeffs]).roots(tol=small * small, maxprec=4 * ctx.prec)
        return [r.real for r in roots if abs(r.imag) <= small * (1 + abs(r.real))]
    except ValueError:
        pass
    import mpmath

    try:
        with mpmath.workprec(ctx.prec):
            mids = [mpmath.mpf(c.mid().str(ctx.prec // 3, radius=False)) for c in reversed(coeffs)]
            roots = mpmath.polyroots(mids, maxsteps=200, extraprec=ctx.prec)
            scale = max(abs(r) for r in roots) + 1
            return [arb(mpmath.nstr(mpmath.re(r), ctx.prec // 3)) for r in roots
                    if abs(mpmath.im(r)) <= scale * mpmath.mpf(2) ** (-ctx.prec // 2)]
    except mpmath.libmp.NoConvergence:
        return []
