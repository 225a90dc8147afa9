"""h(V1, V2) of a product feature and an affine one of three independent uniform variables:
``V1 = c S T + a S + e`` and ``V2 = b S + g W + d`` (T only in V1, W only in V2, S shared, its
support on one side of 0; ``X*Y`` with ``X + Z``), certified.

The density (formula)
---------------------
Along the fibre {(V1, V2) = v}, parametrised by s = S, the other coordinates are
``t = (v1 - e - a s) / (c s)`` and ``w = (v2 - d - b s) / g``; the change of variables
(s, t, w) -> (s, v1, v2) has Jacobian |c s g|. Every box constraint on t and w becomes affine in
(s, v) after multiplication by c s (of known sign), so the admissible s form one interval
[L(v), U(v)] with L, U affine on each cell of the plane cut by the images of the box's edges
(the map is affine along each edge, so these images are segments), and

    f(v) = kappa ln(U(v) / L(v)),     kappa = 1 / (vol(box) |c g|),

with 0 < L <= U on the support (for S < 0, S -> -S first).

The entropy (formula)
---------------------
On a triangle T of a cell, with rho = U / L, the coarea formula gives
``int_T G(rho) dA = int G(R) m(R) dR``, ``m(R) = int_{rho = R} L / |grad U - R grad L| dl``: the
level set is the chord {U = R L} of T (endpoints p, q rational in R), so
``m(R) = |mu(R)| (L(p) + L(q)) / 2`` with ``p - q = mu(R) J (grad U - R grad L)``, J the quarter
turn: rational in R, analytic between the vertex values of rho. With R = e^sigma and
G(R) = -kappa sigma ln(kappa sigma), h = sum_T int G m e^sigma dsigma, each piece by arb's
certified quadrature (x ln x at sigma = 0, where f vanishes, enclosed on real balls).

Where L vanishes at a vertex, rho is unbounded; the piece stops at sigma0 and the rest is bounded:
the set {rho >= R} lies in {L <= Umax / R}, whose area is at most ``K R^-p`` (p = 2 when L
vanishes at one vertex: a homothetic corner; p = 1 along an edge), and by parts
``int_{rho >= R0} |G| dA <= |G(R0)| K R0^-p + K kappa e^(-p sigma0) (kappa (sigma0 / p + 1/p^2)
+ 1/p)`` (|G| increasing there, ln x <= x). The mass ``int f`` is computed the same way and must
be 1 within its error, so a missed cell cannot pass silently.

:func:`uniform_product_pair_entropy` returns (value, error bound) or None when the pair is not of
this form; :class:`~fstheory.theory.quadrature.QuadratureError` when a piece does not converge.
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp
from flint import acb, arb

from fstheory.theory.balls import ball, xlogx
from fstheory.theory.laws import Uniform
from fstheory.theory.quadrature import certified
from fstheory.theory.uniform_linear_pair import _frac, area, triangles

__all__ = ["uniform_product_pair_entropy"]


def _form(e, syms):
    """The polynomial e in syms as {monomial exponents: Fraction}, or None (not rational)."""
    try:
        poly = sp.Poly(sp.expand(e), *syms)
    except sp.PolynomialError:
        return None
    out = {}
    for monom, coef in poly.terms():
        q = _frac(coef)
        if q is None:
            return None
        out[monom] = q
    return out


class _Pair:
    """The parsed pair: coefficients of V1 = c s t + a s + e, V2 = b s + g w + d (s > 0), the box,
    and the constraints alpha s + beta0 + beta1 v1 + beta2 v2 >= 0 of the fibre."""

    def __init__(self, c, a, e, b, g, d, box, flip: bool):
        self.c, self.a, self.e, self.b, self.g, self.d = c, a, e, b, g, d
        self.box = box  # [(lo, hi)] for s, t, w
        self.flip = flip  # the pair is (V2, V1) in the caller's order
        (s0, s1), (t0, t1), (w0, w1) = box
        sc, sg = (1 if c > 0 else -1), (1 if g > 0 else -1)
        self.cons = [
            (Fraction(1), -s0, Fraction(0), Fraction(0)),
            (Fraction(-1), s1, Fraction(0), Fraction(0)),
            # c s t = v1 - e - a s, t >= t0 and t <= t1
            (-sc * (a + c * t0), -sc * e, Fraction(sc), Fraction(0)),
            (sc * (a + c * t1), sc * e, Fraction(-sc), Fraction(0)),
            # g w = v2 - d - b s, w >= w0 and w <= w1
            (-sg * b, -sg * (d + g * w0), Fraction(0), Fraction(sg)),
            (sg * b, sg * (d + g * w1), Fraction(0), Fraction(-sg)),
        ]
        vol = (s1 - s0) * (t1 - t0) * (w1 - w0)
        self.kappa = 1 / (vol * abs(c * g))

    def image(self, s, t, w):
        v = (self.c * s * t + self.a * s + self.e, self.b * s + self.g * w + self.d)
        return v

    def segments(self):
        corners = list(itertools.product(*self.box))
        out = []
        for p, q in itertools.combinations(corners, 2):
            if sum(x != y for x, y in zip(p, q)) == 1:
                a, b = self.image(*p), self.image(*q)
                if a != b:
                    out.append((a, b) if a <= b else (b, a))
        return out

    def bounds_at(self, v):
        """(U form, L form) of the admissible s near the interior point v, or None."""
        lo = hi = None
        for alpha, b0, b1, b2 in self.cons:
            val = b0 + b1 * v[0] + b2 * v[1]
            if alpha == 0:
                if val < 0:
                    return None
                continue
            t = -val / alpha
            form = (-b0 / alpha, -b1 / alpha, -b2 / alpha)
            if alpha > 0 and (lo is None or t > lo[0]):
                lo = (t, form)
            elif alpha < 0 and (hi is None or t < hi[0]):
                hi = (t, form)
        if hi[0] <= lo[0]:
            return None
        if lo[0] <= 0:
            raise ArithmeticError("the fibre reaches s = 0 inside a cell (internal error)")
        return hi[1], lo[1]


def _parse(exprs, laws):
    syms = sorted(set().union(*(sp.sympify(e).free_symbols for e in exprs)) & set(laws),
                  key=sp.default_sort_key)
    if len(syms) != 3 or any(not isinstance(laws[s], Uniform) for s in syms):
        return None
    box = {s: tuple(_frac(p) for p in laws[s].params) for s in syms}
    if any(p is None for lh in box.values() for p in lh):
        return None
    forms = [_form(e, syms) for e in exprs]
    if any(f is None for f in forms):
        return None
    for flip in (False, True):
        f1, f2 = (forms[1], forms[0]) if flip else (forms[0], forms[1])
        got = _match(f1, f2, syms, box)
        if got is not None:
            c, a, e, b, g, d, (s, t, w) = got
            (s0, s1) = box[s]
            if s0 >= 0:
                sbox = (s0, s1)
            elif s1 <= 0:  # S -> -S
                sbox, c, a, b = (-s1, -s0), -c, -a, -b
            else:
                return None
            return _Pair(c, a, e, b, g, d, [sbox, box[t], box[w]], flip)
    return None


def _match(f1, f2, syms, box):
    """V1 = c s t + a s + e and V2 = b s + g w + d for some assignment (s, t, w) of syms."""
    def unit(*idx):
        m = [0, 0, 0]
        for i in idx:
            m[i] += 1
        return tuple(m)

    for si, ti, wi in itertools.permutations(range(3)):
        c = f1.get(unit(si, ti), 0)
        allowed1 = {unit(si, ti), unit(si), unit()}
        allowed2 = {unit(si), unit(wi), unit()}
        g = f2.get(unit(wi), 0)
        if c == 0 or g == 0 or set(f1) - allowed1 or set(f2) - allowed2:
            continue
        return (c, f1.get(unit(si), Fraction(0)), f1.get(unit(), Fraction(0)),
                f2.get(unit(si), Fraction(0)), g, f2.get(unit(), Fraction(0)),
                (syms[si], syms[ti], syms[wi]))
    return None


def _affine(form, p):
    return form[0] + form[1] * p[0] + form[2] * p[1]


def _ratio_integral(tri, U, L, kappa, G, tail, tol):
    """int_T G(rho) dA for rho = U / L on the triangle (see the module docstring): (value, error).
    ``G(sigma, an)`` is the integrand in sigma = ln rho; ``tail(sigma0, K, p)`` bounds the part
    rho > e^sigma0."""
    us = [_affine(U, p) for p in tri]
    ls = [_affine(L, p) for p in tri]
    centre = [i for i in range(3) if us[i] == 0 and ls[i] == 0]
    others = [i for i in range(3) if i not in centre]
    rhos = {i: (us[i] / ls[i] if ls[i] != 0 else None) for i in others}
    finite = sorted({r for r in rhos.values() if r is not None})
    unbounded = any(r is None for r in rhos.values())
    size = area(tri)
    if not unbounded and len(finite) == 1:
        sigma = ball(finite[0]).log()
        return G(sigma, False) * ball(size), arb(0)
    if len(finite) == 0:
        raise ArithmeticError("rho unbounded on a whole triangle (internal error)")
    grad_u, grad_l = (U[1], U[2]), (L[1], L[2])
    value, err = arb(0), arb(0)
    ends = finite + ([None] if unbounded else [])
    pieces = list(zip(ends, ends[1:]))
    for ra, rb in pieces:
        rm = (ra + rb) / 2 if rb is not None else ra + 1
        makers = []
        for i in centre:
            makers.append(("point", tri[i]))
        for i, j in itertools.combinations(range(3), 2):
            gi, gj = us[i] - rm * ls[i], us[j] - rm * ls[j]
            if gi * gj < 0:
                makers.append(("edge", i, j))
        if len(makers) != 2:
            raise ArithmeticError("a chord of a cell with other than two ends (internal error)")

        def ends_at(R, makers=makers):
            pts = []
            for mk in makers:
                if mk[0] == "point":
                    pts.append((acb(ball(mk[1][0])), acb(ball(mk[1][1]))))
                    continue
                _, i, j = mk
                gi = ball(us[i]) - R * ball(ls[i])
                gj = ball(us[j]) - R * ball(ls[j])
                t = gi / (gi - gj)
                pts.append(tuple(ball(tri[i][k]) + t * ball(tri[j][k] - tri[i][k])
                                 for k in range(2)))
            return pts

        def density(R, sign):
            (px, py), (qx, qy) = ends_at(R)
            nx = ball(grad_u[0]) - R * ball(grad_l[0])
            ny = ball(grad_u[1]) - R * ball(grad_l[1])
            mu = ((px - qx) * (-ny) + (py - qy) * nx) / (nx * nx + ny * ny)
            lp = ball(L[0]) + ball(L[1]) * px + ball(L[2]) * py
            lq = ball(L[0]) + ball(L[1]) * qx + ball(L[2]) * qy
            return sign * mu * (lp + lq) / 2

        probe = density(acb(ball(rm)), 1).real
        if probe.contains(0):
            raise ArithmeticError("a chord of zero weight inside a piece (internal error)")
        sign = 1 if probe > 0 else -1

        def branch(_m, sign=sign):
            def g(z, an):
                R = z.exp()
                return G(z, an) * density(R, sign) * R
            return g

        sa = ball(ra).log()
        if rb is not None:
            v, e = certified(branch, [sa, ball(rb).log()], tol / len(pieces))
        else:
            K, p = _corner_area(tri, us, ls, size)
            sigma0 = max(sa + 1, arb(8))
            while True:
                bound = tail(sigma0, K, p)
                if bound < tol / (4 * len(pieces)):
                    break
                sigma0 = sigma0 * 2
            v, e = certified(branch, [sa, sigma0], tol / (2 * len(pieces)))
            e = e + bound
        value, err = value + v, err + e
    return value, err


def _corner_area(tri, us, ls, size):
    """(K, p) with area(T & {L <= Umax / R}) <= K R^-p (see the module docstring)."""
    zeros = [i for i in range(3) if ls[i] == 0]
    umax = max(us)
    rest = [ls[i] for i in range(3) if ls[i] != 0]
    if len(zeros) == 1:
        return ball(size) * ball(umax / min(rest)) ** 2, 2
    return 2 * ball(size) * ball(umax / rest[0]), 1


def _entropy_integrand(kappa):
    k = ball(kappa)

    def G(sigma, an):
        x = k * sigma
        if isinstance(sigma, acb) and not an and (x.real.contains(0) or x.real < 0):
            return -acb(xlogx(x.real))
        return -xlogx(x, an)
    return G


def _entropy_tail(kappa):
    k = ball(kappa)

    def tail(s0, K, p):
        x = k * s0
        if x < 1:
            return arb("inf")
        head = x * x.log() * K * (-p * s0).exp()
        rest = K * k * (-p * s0).exp() * (k * (s0 / p + arb(1) / p ** 2) + arb(1) / p)
        return head + rest
    return tail


def _mass_integrand(kappa):
    k = ball(kappa)
    return lambda sigma, an: k * sigma


def _mass_tail(kappa):
    k = ball(kappa)
    return lambda s0, K, p: K * (-p * s0).exp() * (k * s0 + k / p)


def uniform_product_pair_entropy(exprs, laws: dict, tol: arb):
    """(h(V1, V2), error bound) as arb balls, or None when the pair is not of this module's form
    (see the module docstring)."""
    pair = _parse(exprs, laws)
    if pair is None:
        return None
    cells = list(triangles(pair.segments(), pair.bounds_at))
    n = len(cells)
    value, err = arb(0), arb(0)
    mass, mass_err = arb(0), arb(0)
    G, tail = _entropy_integrand(pair.kappa), _entropy_tail(pair.kappa)
    M, mtail = _mass_integrand(pair.kappa), _mass_tail(pair.kappa)
    for tri, (U, L) in cells:
        v, e = _ratio_integral(tri, U, L, pair.kappa, G, tail, tol / n)
        value, err = value + v, err + e
        v, e = _ratio_integral(tri, U, L, pair.kappa, M, mtail, tol / n)
        mass, mass_err = mass + v, mass_err + e
    if abs(mass - 1) > mass_err + arb(10) ** -10 * tol:
        raise ArithmeticError(f"the cells carry mass {mass.str(10)}, not 1 (internal error)")
    return arb(value.mid()), arb((err + value.rad()).upper())
