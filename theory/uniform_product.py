r"""E[H_b(P(C = 1 | V))] for V = c X Y + e, X and Y independent with piecewise polynomial
densities (uniform laws, and sums of them), and a class probability that is a polynomial in
(x, y) on cells cut by polynomial curves: ONE certified one-dimensional integral, the fibre
integrals in closed form.

Formula
-------
V and W = X Y carry the same information on the class (c != 0), so E[H_b(q(V))] = E[H_b(q(W))].
With f_W(w) = int f_X(x) f_Y(w/x) dx / |x| and f_{W,c}(w) = int f_X(x) f_Y(w/x) q_c(x, w/x)
dx / |x| (the change of variables y = w/x along the fibre {x y = w}),

    E[H_b(q(W))] = int [F ln F - F_1 ln F_1 - F_0 ln F_0](w) dw,   F = F_1 + F_0 = f_W,

F_c = f_{W,c}. On a cell of the fibre (x between consecutive ends, all of one sign s) the
integrand is P(x, w/x) / |x| with P(x, y) = f_X(x) f_Y(y) q_c(x, y) = sum c_ij x^i y^j a
polynomial, so

    int_{x1}^{x2} P(x, w/x) dx / |x| = s sum_m C_m(w) A_m(x1, x2),   C_m(w) = sum_j c_{m+j, j} w^j,
    A_m = (x2^m - x1^m) / m  (m != 0),   A_0 = ln(x2 / x1):

powers of the ends and one logarithm. The ends are the kinks and support ends of f_X (x = b),
of f_Y (x = w / b), x = 0, and the real roots in x of the cuts of q_c written on the fibre,
numer(g(x, w/x)) = 0 (:class:`fstheory.theory.cells.CutSet` in the order (w, x)). Between the
roots of the projected polynomials in w (where a root enters or leaves the box, two roots
merge, a box corner is met) the pattern of cells is fixed and every end is an analytic function
of w: a root of degree >= 2 is continued from the real root at the ball's real centre and
enclosed on the complex ball by the Krawczyk operator (K subset X proves one root in X for every
w of the ball, hence the analytic branch through the real root). The outer integral is arb's
rigorous ``acb.integral`` piece by piece (:func:`fstheory.theory.quadrature.arb_integral`); where an
end cannot be enclosed (at a double root, a piece's end) the non-analytic enclosure of the
integrand is 0 <= F H_b(F_1 / F) <= F ln 2, F from the support cells alone.

Which root is which: the real roots of a cut at the ball's real centre w0 are found by Newton's
iteration from the last ones and each proved unique in a disjoint ball (Krawczyk at w0); their
number is constant on a piece, so as many balls are all of them, in increasing order (else
arb's root finder). The order of the ends of different cuts, and the polynomial of each cell,
are decided once per piece at a real point (at higher precision where two ends are closer than
the working precision: a cut through a box corner, r04's ellipse and y = 1). Ends of the order
of w (y = w/x near a box end) are computed as x = w xi, xi a root of numer(g(w xi, w)) / w^e,
and a cell between two of them as ln(xi_2 / xi_1): on the balls of w near 0, wide relative to
|w|, the roots in x cannot be enclosed and their ratio would be lost.

Declined: a rest-type class probability whose cut is tangent to the fibres inside the range
(r09's X + k Y + Z >= 1): the class density vanishes there as |w - w0|^(3/2) and its ball
enclosure, a difference of powers of the ends, is wider than its value unless the balls of w
shrink faster than |w - w0|^(5/4) (arb then exceeds any reasonable budget).

Class probabilities handled (:class:`fstheory.theory.coordinates.System` fields): an indicator
1{form(x, y) >= 0} (no rest); ``form + R >= 0`` with a rest R of piecewise polynomial law:
q_1 = sf_R(-form), q_0 = cdf_R(-form); one remaining variable Z of piecewise polynomial law
entering the form as A(x, y) + B Z with a constant B != 0: q_1 = sf_Z(-A/B) (B > 0) or
cdf_Z(-A/B) (B < 0). The cuts are the level sets -A/B = b at the law's kinks b.

Near w = 0 (when 0 is in the range of W) the density has at most a logarithmic singularity:
F(w) <= M_X M_Y int_{|w|/B_Y <= |x| <= B_X} dx/|x| = 2 M_X M_Y ln(B_X B_Y / |w|) (M a bound of a
density, B of |X|, |Y|), so the band 0 < |w| < delta contributes between 0 and
ln 2 * 2 M_X M_Y delta (ln(B_X B_Y / delta) + 1) on each side (the integrand lies in
[0, F ln 2]); outside it, the pieces touching 0 are integrated in t = ln|w| (w = +-e^t,
dw = e^t dt), where the integrand is analytic and decays.

:func:`uniform_product_class_average` returns (value, error bound) as arb balls, or None when the
system is not of this kind; :class:`fstheory.theory.quadrature.QuadratureError` when an integral
does not converge.
"""

from __future__ import annotations

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.arbexpr import compile_expr
from fstheory.theory.balls import ball, xlogx
from fstheory.theory.cells import CutSet, real_roots
from fstheory.theory.law1d import PELaw
from fstheory.theory.polyexp import INF
from fstheory.theory.quadrature import QuadratureError, arb_integral, flint_precision
from fstheory.theory.univariate import Accuracy

__all__ = ["uniform_product_class_average"]

_W = sp.Symbol("w_fibre", real=True)
#: evaluations arb may spend on one piece (r04's slowest piece, a tangency of the ellipse and
#: the fibres at 36 digits, needs about 5000)
PIECE_EVALUATIONS = 20000


class _NotHere(Exception):
    pass


class _Unordered(Exception):
    """Two cell ends not separated at the working precision."""


# ----- polynomials in (x, y) with arb coefficients: {(i, j): c} ---------------------------------

def _pmul(p: dict, q: dict) -> dict:
    out: dict = {}
    for (i1, j1), c1 in p.items():
        for (i2, j2), c2 in q.items():
            key = (i1 + i2, j1 + j2)
            out[key] = out[key] + c1 * c2 if key in out else c1 * c2
    return out


def _from_sympy(expr, x, y) -> dict:
    poly = sp.Poly(sp.expand(expr), x, y)
    return {m: compile_expr(c, [])() for m, c in poly.terms()}


def _piece_poly(piece, var_index: int, shift=None) -> dict:
    """A piece of a rate-0 PolyExp as a polynomial in x (var_index 0) or y (1)."""
    out = {}
    for (k, r), c in piece.terms.items():
        if r != 0:
            raise _NotHere
        out[(k, 0) if var_index == 0 else (0, k)] = c
    return out


def _polynomial_law(law) -> bool:
    if not isinstance(law, PELaw):
        return False
    lo, hi = law.support()
    if lo == -INF or hi == INF:
        return False
    return all(r == 0 for p in law.pe.pieces for (_, r) in p.terms)


# ----- the class probability on cells ------------------------------------------------------------

class _ClassCells:
    """q_1, q_0 as polynomials on the cells of their cuts."""

    def __init__(self, system, x, y):
        form, rest, remaining = system.form, system.rest, list(system.remaining)
        self.x, self.y = x, y
        syms = {x, y}
        if remaining:
            if rest is not None or len(remaining) != 1 or not _polynomial_law(remaining[0].law):
                raise _NotHere
            z = remaining[0].symbol
            p = sp.Poly(sp.expand(form), z)
            if p.degree() != 1:
                raise _NotHere
            b = p.coeff_monomial(z)
            if b.free_symbols:
                raise _NotHere
            a = sp.expand(form - b * z)
            law, t, flip = remaining[0].law, sp.expand(-a / b), b < 0
        elif rest is not None:
            if not _polynomial_law(rest):
                raise _NotHere
            law, t, flip = rest, sp.expand(-form), False
        else:
            law, t, flip = None, sp.expand(form), False
        if not (t.free_symbols <= syms) or not t.is_polynomial(x, y):
            raise _NotHere
        self.law, self.flip = law, flip
        self.t = t
        self._t_fn = compile_expr(t, [x, y])
        if law is None:
            self.cuts = [t]
        else:
            self.cuts = [t - sp.Rational(b.numerator, b.denominator) for b in law.pe.breakpoints()
                         if b not in (INF, -INF)]
            self._sf, self._cdf = law.pe.sf(), law.pe.cdf()
            self._t_poly = _from_sympy(t, x, y)
            self._cache: dict = {}

    def polys(self, xc: arb, yc: arb):
        """(P_1, P_0): q_1 and q_0 as polynomials on the cell containing the real point."""
        tc = self._t_fn(xc, yc)
        if self.law is None:
            if tc.contains(0):
                raise QuadratureError("a cell's midpoint lies on the class rule's boundary")
            one = {(0, 0): arb(1)}
            return (one, {}) if tc > 0 else ({}, one)
        out = []
        for pe in (self._sf, self._cdf):
            piece = pe.piece_at(tc)
            key = (id(pe), id(piece))
            if key not in self._cache:
                total: dict = {}
                if piece is not None:
                    power = {(0, 0): arb(1)}
                    terms = sorted((k, c) for (k, r), c in piece.terms.items())
                    top = max((k for k, _ in terms), default=0)
                    by_k = dict(terms)
                    for k in range(top + 1):
                        if k in by_k:
                            for m, c in power.items():
                                total[m] = total.get(m, arb(0)) + by_k[k] * c
                        power = _pmul(power, self._t_poly)
                self._cache[key] = {m: c for m, c in total.items() if not c.is_zero()}
            out.append(self._cache[key])
        q1, q0 = out
        return (q0, q1) if self.flip else (q1, q0)


# ----- ends of the cells along a fibre, as analytic functions of w --------------------------------

def _horner(coeffs, x):
    out = coeffs[-1]
    for c in reversed(coeffs[:-1]):
        out = out * x + c
    return out


class _Roots:
    """The real roots of one cut polynomial at real points w of a piece, sorted: Newton's
    iteration from the last roots found, each root then proved unique in a disjoint ball by
    :func:`_krawczyk`; with as many balls as the piece has real roots (their number is fixed
    between the projected breakpoints), they are all of them, in order. Failing that, arb's
    root finder (:func:`fstheory.theory.cells.real_roots`)."""

    def __init__(self, fns, roots):
        self.fns = fns
        self.count = len(roots)
        self._last = (None, [r.mid() for r in roots])

    def at(self, w0: arb):
        last_w, guesses = self._last
        if last_w is not None and w0 == last_w:
            return guesses
        roots = self._newton(w0, guesses)
        if roots is None:
            roots = _sorted_real_roots([f(w0) for f in self.fns])
            if roots is None or len(roots) != self.count:
                return None
        self._last = (w0, roots)
        return roots

    def _newton(self, w0, guesses):
        coeffs = [f(w0) for f in self.fns]
        dcoeffs = [k * coeffs[k] for k in range(1, len(coeffs))]
        small = arb(2) ** (-ctx.prec)
        out = []
        for x in guesses:
            x = arb(x.mid())
            for _ in range(60):
                d = _horner(dcoeffs, x)
                if d.contains(0):
                    return None
                step = (_horner(coeffs, x) / d).mid()
                x = arb((x - step).mid())
                if abs(step) <= small * (1 + abs(x)):
                    break
            k = _krawczyk(self.fns, acb(w0), x)
            if k is None:
                return None
            out.append(k.real)  # real coefficients: the unique root in a ball about R is real
        out.sort(key=lambda r: r.mid())
        for r1, r2 in zip(out, out[1:]):
            if not r1 < r2:
                return None
        return out


class _End:
    """The i-th real root (in increasing order) of one cut polynomial in x, as a function of w."""

    def __init__(self, coef_fns, index: int, roots: _Roots | None, scaled=None,
                 small: bool = False):
        self.fns, self.index, self.roots, self.scaled = coef_fns, index, roots, scaled
        self.degree = len(coef_fns) - 1
        #: the root is of the order of w (|x| <= sqrt|w| at the piece's point, |w| < 1/16): it
        #: is computed as x = w xi, and the cells between two such ends from the ratio of xi
        self.small = small

    def __call__(self, z: acb):
        """(x, xi): the end on the ball z, and xi = x / w when the end is small, else None."""
        if self.degree > 1 and z.imag.is_zero() and z.real.rad().is_zero():
            # an exact real point (a quadrature node): the certified roots there are the ends
            roots = self.roots.at(z.real)
            if roots is None:
                return None, None
            x = acb(roots[self.index])
            return x, (x / z if self.small else None)
        if self.small:
            xi = self._xi(z)
            return (None, None) if xi is None else (z * xi, xi)
        if self.degree == 1:
            return -self.fns[0](z) / self.fns[1](z), None
        roots = self.roots.at(z.real.mid())
        if roots is None:
            return None, None
        return _krawczyk(self.fns, z, roots[self.index]), None

    def _xi(self, z):
        """The root of the scaled polynomial (:meth:`_Product._scaled_fns`) near x0 / w0."""
        if len(self.scaled) == 2:
            return -self.scaled[0](z) / self.scaled[1](z)
        w0 = z.real.mid()
        if w0.is_zero() or z.contains(0):
            return None
        roots = self.roots.at(w0)
        if roots is None:
            return None
        return _krawczyk(self.scaled, z, roots[self.index] / w0)


def _sorted_real_roots(coeffs):
    roots = sorted(real_roots(list(coeffs)), key=lambda r: r.mid())
    for r1, r2 in zip(roots, roots[1:]):
        if not r1 < r2:
            return None
    return roots


def _krawczyk(fns, z: acb, x0: arb):
    """An enclosure of the root of sum fns[k](w) x^k near the real root x0 (at w = Re mid z),
    valid for every w in the ball z, or None. K(X) = c - Y Q(c) + (1 - Y Q'(X)) (X - c) inside X
    proves exactly one root in X for each w (Krawczyk 1969)."""
    coeffs = [f(z) for f in fns]
    dcoeffs = [k * coeffs[k] for k in range(1, len(coeffs))]
    c = acb(x0.mid())
    zm = acb(z.mid())
    dmid = _horner([k * f(zm) for k, f in enumerate(fns)][1:], c)
    if dmid.contains(0):
        return None
    ym = acb((1 / dmid).mid())
    qc = _horner(coeffs, c)
    r = 2 * (abs(ym * qc).upper() + x0.rad()) + arb(2) ** (-ctx.prec - 8)
    for _ in range(6):
        X = acb(arb(c.real.mid(), r), arb(0, r))
        K = c - ym * qc + (1 - ym * _horner(dcoeffs, X)) * (X - c)
        if K.is_finite() and X.contains(K):
            return K
        r = r * 3 / 2
    return None


class _Fixed:
    """A cell end that does not depend on w (a kink or support end of X, or 0)."""

    degree = 0

    def __init__(self, value: arb):
        self.value = acb(value)

    def __call__(self, z):
        return self.value, None


# ----- the product and its fibres ----------------------------------------------------------------

class _Product:
    def __init__(self, system, acc: Accuracy):
        if len(system.coords) != 2 or len(system.features) != 1:
            raise _NotHere
        cx, cy = system.coords
        x, y = cx.symbol, cy.symbol
        feature = sp.expand(system.features[0])
        if not feature.is_polynomial(x, y):
            raise _NotHere
        f = sp.Poly(feature, x, y)
        if set(f.monoms()) - {(1, 1), (0, 0)} or f.coeff_monomial(x * y) == 0:
            raise _NotHere
        if not (_polynomial_law(cx.law) and _polynomial_law(cy.law)):
            raise _NotHere
        self.x, self.y = x, y
        self.lx, self.ly = cx.law.pe, cy.law.pe
        self.cls = _ClassCells(system, x, y)
        self.acc = acc
        xb = [b for b in self.lx.breakpoints()]
        yb = [b for b in self.ly.breakpoints()]
        self.xlo, self.xhi = ball(xb[0]), ball(xb[-1])
        corners = [ball(a) * ball(b) for a in (xb[0], xb[-1]) for b in (yb[0], yb[-1])]
        self.wlo = min(corners, key=lambda t: t.mid())
        self.whi = max(corners, key=lambda t: t.mid())
        w = _W
        rat = [sp.Rational(b.numerator, b.denominator) for b in xb]
        support = [x - b for b in rat] + [x]
        support += [w - sp.Rational(b.numerator, b.denominator) * x for b in yb if b != 0]
        # the class cuts on the fibre y = w / x, as polynomials in (w, x)
        fibre = [sp.numer(sp.together(sp.sympify(g).subs(y, w / x))) for g in self.cls.cuts]
        if self.cls.law is not None and _tangent(fibre, x, self.wlo, self.whi):
            raise _NotHere
        self.cutset = CutSet(support + fibre, [w, x])
        self.support_cuts = CutSet(support, [w, x])
        if not (self.cutset.complete and self.support_cuts.complete):
            raise _NotHere
        self.coef = {id(cs): [self._coef_fns(p) for p in cs.levels[1]]
                     for cs in (self.cutset, self.support_cuts)}
        self.scaled = {id(cs): [self._scaled_fns(p) for p in cs.levels[1]]
                       for cs in (self.cutset, self.support_cuts)}
        self.mx = _sup(self.lx)
        self.my = _sup(self.ly)
        self.bx = max(abs(self.xlo), abs(self.xhi))
        self.by = max(abs(ball(yb[0])), abs(ball(yb[-1])))

    def _coef_fns(self, p):
        up = sp.Poly(p.as_expr(), self.x)
        return [compile_expr(up.coeff_monomial(self.x**k), [_W]) for k in range(up.degree() + 1)]

    def _scaled_fns(self, p):
        """Coefficients in xi of p(w xi, w) / w^e (e the largest power of w dividing it): a root
        proportional to w (y = w / x near a box end) is w times a root xi that moves little
        when w changes by a factor, where the root in x cannot be enclosed on a ball of w that
        is wide relative to |w| (the pieces near w = 0, in ln|w|)."""
        xi = sp.Symbol("xi_fibre")
        q = sp.Poly(sp.expand(p.as_expr().subs(self.x, _W * xi)), _W, xi)
        e = min(m[0] for m in q.monoms())
        up = sp.Poly(sp.expand(q.as_expr() / _W**e), xi)
        return [compile_expr(up.coeff_monomial(xi**k), [_W]) for k in range(up.degree() + 1)]

    def breaks(self) -> list:
        pts = self.cutset.breakpoints(0, (), self.wlo, self.whi)
        pts = [self.wlo, *pts, self.whi]
        if self.wlo < 0 < self.whi:
            pts.append(arb(0))
        out = []
        for p in sorted(pts, key=lambda t: t.mid()):
            if not out or p.mid() > out[-1].mid():
                out.append(p.mid())
        return out

    def _ends(self, cs, m: arb) -> list:
        """The cell ends at the real point w = m, sorted: (value, end function)."""
        ends = [(self.xlo, _Fixed(self.xlo)), (self.xhi, _Fixed(self.xhi))]
        for fns, scaled in zip(self.coef[id(cs)], self.scaled[id(cs)]):
            coeffs = [f(m) for f in fns]
            if len(fns) == 2:
                roots = [-coeffs[0] / coeffs[1]]
            else:
                roots = _sorted_real_roots(coeffs)
                if roots is None:
                    raise _Unordered
            shared = _Roots(fns, roots) if len(fns) > 2 else None
            near_zero = abs(m) < arb(1) / 16
            for i, r in enumerate(roots):
                if self.xlo < r < self.xhi:
                    small = bool(near_zero and abs(r) * abs(r) <= abs(m) and len(scaled) >= 2)
                    ends.append((r, _End(fns, i, shared, scaled, small)))
        ends.sort(key=lambda e: e[0].mid())
        for (a, _), (b, _) in zip(ends, ends[1:]):
            if not a < b:
                raise _Unordered
        return ends

    def cells(self, cs, m: arb, with_class: bool) -> tuple:
        """(ends, [(i, sign, {m: C1_m coefficients}, {m: C0_m})]) at the real point w = m:
        cell i between ends i and i + 1; the coefficients as {(power of x - 1, power of w): c}."""
        # ends of different cuts may be closer than the working precision (a cut tangent to a
        # support end at a corner: r04's ellipse meets y = 1 at x = 0, its root on the fibre
        # is w (1 + O(w^2))): their order, fixed on the piece, is decided at higher precision
        bits = ctx.prec
        for scale in (1, 2, 4, 8):
            try:
                with flint_precision(bits * scale):
                    return self._cells(cs, m, with_class)
            except _Unordered:
                continue
        raise QuadratureError(f"two cell ends cannot be ordered inside a piece {m}")

    def _cells(self, cs, m, with_class):
        ends = self._ends(cs, m)
        out = []
        for i in range(len(ends) - 1):
            xc = (ends[i][0] + ends[i + 1][0]) / 2
            yc = m / xc
            px, py = self.lx.piece_at(xc), self.ly.piece_at(yc)
            if px is None or py is None:
                continue
            dens = _pmul(_piece_poly(px, 0), _piece_poly(py, 1))
            parts = self.cls.polys(xc, yc) if with_class else ({(0, 0): arb(1)}, {})
            groups = tuple(_by_power(_pmul(dens, q)) for q in parts)
            out.append((i, 1 if xc > 0 else -1, groups))
        return [e for _, e in ends], out

    def densities(self, m: arb, with_class: bool):
        """The closed forms on the piece through the real point m: z -> (F_1, F_0) or None."""
        ends, cells = self.cells(self.cutset if with_class else self.support_cuts, m, with_class)

        def at(z):
            vals = []
            for e in ends:
                v = e(z)
                if v[0] is None:
                    return None
                vals.append(v)
            f1, f0 = acb(0), acb(0)
            for i, s, (g1, g0) in cells:
                e1, e2 = vals[i], vals[i + 1]
                f1 += s * _cell_integral(g1, e1, e2, z)
                f0 += s * _cell_integral(g0, e1, e2, z)
            return f1, f0

        empty = tuple(all(not g for _, _, gs in cells for g in [gs[j]]) for j in (0, 1))
        return at, empty


def _tangent(fibre_cuts, x, wlo: arb, whi: arb) -> bool:
    """Whether a cut of a rest-type class probability is tangent to a fibre inside the range of
    w (a real zero of its discriminant in x). There two ends of a cell merge while q_c vanishes
    on them, the class density goes to 0 as |w - w0|^(3/2), and its enclosure on balls of w (a
    difference of powers of the ends) is wider than its value unless the balls shrink faster
    than |w - w0|^(5/4): more work than the other routes, so the route declines."""
    for cut in fibre_cuts:
        poly = sp.Poly(sp.expand(cut), x)
        if poly.degree() < 2:
            continue
        disc = sp.Poly(sp.discriminant(poly.as_expr(), x), _W)
        if disc.degree() <= 0:
            continue
        lo, hi = float(wlo.mid()), float(whi.mid())
        for root in disc.nroots(n=30):
            if abs(sp.im(root)) < 1e-20 and lo - 1e-9 <= float(sp.re(root)) <= hi + 1e-9:
                return True
    return False


def _by_power(p: dict) -> dict:
    """{(m, j): c} with m = i - j (the power of x is m - 1 after dividing by x)."""
    out: dict = {}
    for (i, j), c in p.items():
        out[(i - j, j)] = out.get((i - j, j), arb(0)) + c
    return out


def _cell_integral(groups: dict, e1, e2, w):
    """sum c w^j int_{x1}^{x2} x^(m-1) dx over the keys (m, j); the ends e = (x, xi) with
    xi = x / w when known, so that two ends of the order of w close together (relative to the
    ball of w) give a narrow ratio x2 / x1 = xi2 / xi1."""
    total = acb(0)
    cache: dict = {}
    (x1, xi1), (x2, xi2) = e1, e2
    scaled = xi1 is not None and xi2 is not None
    for (m, j), c in groups.items():
        if m not in cache:
            if m == 0:
                cache[m] = (xi2 / xi1 if scaled else x2 / x1).log(analytic=True)
            elif scaled:
                cache[m] = w**m * (xi2**m - xi1**m) / m if m > 0 else \
                    (1 / xi2**(-m) - 1 / xi1**(-m)) / (m * w**(-m))
            elif m > 0:
                cache[m] = (x2**m - x1**m) / m
            else:
                cache[m] = (1 / x2**(-m) - 1 / x1**(-m)) / m
        total += c * w**j * cache[m]
    return total


def _sup(pe) -> arb:
    best = arb(0)
    for p in pe.pieces:
        lo, hi = ball(p.lo), ball(p.hi)
        val = abs(p(arb((lo + hi) / 2, ((hi - lo) / 2).upper()))).upper()
        best = max(best, val)
    return arb(best)


def _phi(f1, f0, empty, an):
    """F ln F - F_1 ln F_1 - F_0 ln F_0 (the terms of an empty class dropped)."""
    out = _xlogx(f1 + f0, an)
    if not empty[0]:
        out -= _xlogx(f1, an)
    if not empty[1]:
        out -= _xlogx(f0, an)
    return out


def _xlogx(z, an):
    if not an and (z.real.contains(0) or z.real < 0):
        return acb(xlogx(z.real))
    return xlogx(z, an)


def _band(P: _Product, tol: arb):
    """(delta, bound): the band 0 < |w| < delta on one side contributes at most ``bound``."""
    b = P.bx * P.by
    k = 8
    while True:
        delta = arb(2) ** -k
        bound = arb(2).log() * 2 * P.mx * P.my * delta * ((b / delta).log() + 1)
        if delta < b and bound < tol:  # the bound integrates ln(B/|w|) >= 0: delta <= B
            return delta, arb(bound.upper())
        k += 4


def _integrand(P: _Product, m: arb, sigma: int | None):
    """g(z, analytic) on the piece through the real point m (in w, or in t = ln|w| with
    w = sigma e^t when sigma is given)."""
    wm = (m if sigma is None else sigma * m.exp()).mid()
    dens, empty = P.densities(wm, True)
    support, _ = P.densities(wm, False)
    nan = acb("nan")
    ln2 = arb(2).log()

    def g(z, an):
        if sigma is not None:
            r = z.exp()
            w, jac = sigma * r, r
        else:
            w, jac = z, 1
        got = dens(w)
        if got is None:
            if an:
                return nan
            whole = support(w)
            if whole is None:
                return nan
            f = whole[0].real
            top = arb((f * ln2).upper())
            return acb(arb(top / 2, top / 2)) * jac
        return _phi(got[0], got[1], empty, an) * jac
    return g


def _piece(branch, a: arb, b: arb, share: arb):
    g = branch((a + b) / 2)
    for goal in (share / 64, share * arb(2) ** -16):
        re = arb_integral(g, acb(a), acb(b), abs_tol=goal, rel_tol=goal,
                          eval_limit=PIECE_EVALUATIONS).real
        if re.is_finite() and re.rad() <= share:
            return re.mid(), arb(re.rad().upper())
    raise QuadratureError(f"certified quadrature did not converge on [{a.str(8)}, {b.str(8)}]")


def uniform_product_class_average(system, acc: Accuracy):
    """(E[H_b(P(C = 1 | V))], error bound) for the single feature V = c X Y + e of ``system``
    (module docstring), or None when the system is not of that kind."""
    try:
        P = _Product(system, acc)
    except (_NotHere, sp.PolynomialError):
        return None
    tol = acc.tol
    pts = P.breaks()
    jobs = []  # (sigma or None, a, b) in the variable of the piece
    band = arb(0)
    delta = None
    if any(p.is_zero() for p in pts):
        delta, bound = _band(P, tol / 8)
    for a, b in zip(pts, pts[1:]):
        if a.is_zero() or b.is_zero():
            sigma = 1 if b > 0 else -1
            far = abs(b if sigma > 0 else a)
            if not far > delta:
                band += arb(2).log() * 2 * P.mx * P.my * far * ((P.bx * P.by / far).log() + 1)
                continue
            band += bound
            lo, hi = delta.log(), far.log()
            cuts = [lo] + [arb(t) for t in (-64, -32, -16, -8, -4, -2, -1) if lo < t < hi] + [hi]
            jobs += [(sigma, u, v) for u, v in zip(cuts, cuts[1:])]
        else:
            jobs.append((None, a, b))
    share = (tol - band) / max(1, len(jobs)) if band < tol / 2 else tol / (2 * max(1, len(jobs)))
    total, err = arb(0), arb(band.upper())
    for sigma, a, b in jobs:
        v, e = _piece(lambda m, s=sigma: _integrand(P, m, s), a, b, share)
        total, err = total + v, err + e
    return total, arb(err.upper())
