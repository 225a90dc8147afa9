"""h(V1, V2) of a product feature and an affine one, or of two products, of three independent
uniform variables: ``V1 = c S T + a S + e`` and ``V2 = b S + g W + d`` or ``V2 = c2 S W + b S + d``
(T only in V1, W only in V2, S shared, its support on one side of 0; ``X*Y`` with ``X + Z``, or
with ``X*Z``), certified.

The density (formula)
---------------------
Along the fibre {(V1, V2) = v}, parametrised by s = S, the other coordinates are
``t = (v1 - e - a s) / (c s)`` and ``w = (v2 - d - b s) / g``; the change of variables
(s, t, w) -> (s, v1, v2) has Jacobian |c s g|. Every box constraint on t and w becomes affine in
(s, v) after multiplication by c s (of known sign), so the admissible s form one interval
[L(v), U(v)] with L, U affine on each cell of the plane cut by the images of the box's edges
(the map is affine along each edge, so these images are segments), and

    f(v) = kappa ln(U(v) / L(v)),     kappa = 1 / (vol(box) |c g|),

with 0 < L <= U on the support (for S < 0, S -> -S first). For a second product the Jacobian is
|c c2| s^2 and ``f = kappa (1/L - 1/U)``, kappa = 1 / (vol(box) |c c2|).

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

For two products, on the chord f = k / L with k = kappa (R - 1) / R, so the chord's integral is
closed: ``mu (-k ln k + k mean(ln L))`` (:class:`_InverseDifference`); where rho is constant on
a triangle, f = k / L is a function of the affine L and Hermite-Genocchi applies again. The tail
near a vertex where L vanishes: {rho >= R0} lies in {L <= delta = Umax / R0}, of area at most
K l^2 below l, and |f ln f| <= H(L) = (kappa / L) ln(kappa / L) there, so by layer cake the tail
is at most ``K kappa delta (2 ln(kappa / delta) + 2)`` (and ``2 K kappa delta`` for the mass).

:func:`uniform_product_pair_entropy` returns (value, error bound) or None when the pair is not of
this form; :class:`~fstheory.theory.quadrature.QuadratureError` when a piece does not converge.

Examples
--------
For X, Y, Z ~ Unif(0, 1), h(X Y, X + Z) = gamma - 1 + (ln 2) / 2 (by hand: f = ln(b / a) below
b = 1, -ln max(a, b - 1) above):

>>> import sympy as sp
>>> from fstheory.theory.laws import Uniform
>>> from fstheory.theory.quadrature import flint_precision
>>> X, Y, Z = sp.symbols("X Y Z", real=True)
>>> with flint_precision(80):
...     v, e = uniform_product_pair_entropy((X * Y, X + Z), {s: Uniform(0, 1) for s in (X, Y, Z)},
...                                         arb(10) ** -15)
>>> print(v.str(15, radius=False), e < 1e-15)
-0.0762107448184945 True
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.balls import ball, xlogx_density
from fstheory.theory.laws import Uniform
from fstheory.theory.quadrature import QuadratureError, certified
from fstheory.theory.uniform_linear_pair import area, exact_fraction, second_divided_difference, triangles

__all__ = ["uniform_product_pair_entropy"]


def _form(e, syms):
    """The polynomial e in syms as {monomial exponents: Fraction}, or None (not rational)."""
    try:
        poly = sp.Poly(sp.expand(e), *syms)
    except sp.PolynomialError:
        return None
    out = {}
    for monom, coef in poly.terms():
        q = exact_fraction(coef)
        if q is None:
            return None
        out[monom] = q
    return out


class _Pair:
    """The parsed pair: coefficients of V1 = c s t + a s + e, V2 = c2 s w + b s + g w + d (s > 0;
    one of c2, g zero), the box, and the constraints alpha s + beta0 + beta1 v1 + beta2 v2 >= 0
    of the fibre."""

    def __init__(self, c, a, e, c2, b, g, d, box):
        self.c, self.a, self.e, self.c2, self.b, self.g, self.d = c, a, e, c2, b, g, d
        self.box = box  # [(lo, hi)] for s, t, w
        self.second_product = c2 != 0
        (s0, s1), (t0, t1), (w0, w1) = box
        sc, sg = (1 if c > 0 else -1), (1 if (c2 or g) > 0 else -1)
        self.cons = [
            (Fraction(1), -s0, Fraction(0), Fraction(0)),
            (Fraction(-1), s1, Fraction(0), Fraction(0)),
            # c s t = v1 - e - a s, t >= t0 and t <= t1
            (-sc * (a + c * t0), -sc * e, Fraction(sc), Fraction(0)),
            (sc * (a + c * t1), sc * e, Fraction(-sc), Fraction(0)),
            # (c2 s + g) w = v2 - d - b s, w >= w0 and w <= w1
            (-sg * (b + c2 * w0), -sg * (d + g * w0), Fraction(0), Fraction(sg)),
            (sg * (b + c2 * w1), sg * (d + g * w1), Fraction(0), Fraction(-sg)),
        ]
        vol = (s1 - s0) * (t1 - t0) * (w1 - w0)
        self.kappa = 1 / (vol * abs(c * (c2 or g)))

    def image(self, s, t, w):
        return (self.c * s * t + self.a * s + self.e,
                self.c2 * s * w + self.b * s + self.g * w + self.d)

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
    box = {s: tuple(exact_fraction(p) for p in laws[s].params) for s in syms}
    if any(p is None for lh in box.values() for p in lh):
        return None
    forms = [_form(e, syms) for e in exprs]
    if any(f is None for f in forms):
        return None
    for flip in (False, True):
        f1, f2 = (forms[1], forms[0]) if flip else (forms[0], forms[1])
        got = _match(f1, f2, syms, box)
        if got is not None:
            c, a, e, c2, b, g, d, (s, t, w) = got
            (s0, s1) = box[s]
            if s0 >= 0:
                sbox = (s0, s1)
            elif s1 <= 0:  # S -> -S
                sbox, c, a, c2, b = (-s1, -s0), -c, -a, -c2, -b
            else:
                return None
            return _Pair(c, a, e, c2, b, g, d, [sbox, box[t], box[w]])
    return None


def _match(f1, f2, syms, box):
    """V1 = c s t + a s + e and V2 = c2 s w + b s + g w + d (exactly one of c2, g not zero) for
    some assignment (s, t, w) of syms."""
    def unit(*idx):
        m = [0, 0, 0]
        for i in idx:
            m[i] += 1
        return tuple(m)

    for si, ti, wi in itertools.permutations(range(3)):
        c = f1.get(unit(si, ti), 0)
        allowed1 = {unit(si, ti), unit(si), unit()}
        allowed2 = {unit(si, wi), unit(si), unit(wi), unit()}
        c2, g = f2.get(unit(si, wi), Fraction(0)), f2.get(unit(wi), Fraction(0))
        if c == 0 or (c2 == 0) == (g == 0) or set(f1) - allowed1 or set(f2) - allowed2:
            continue
        return (c, f1.get(unit(si), Fraction(0)), f1.get(unit(), Fraction(0)),
                c2, f2.get(unit(si), Fraction(0)), g, f2.get(unit(), Fraction(0)),
                (syms[si], syms[ti], syms[wi]))
    return None


def _affine(form, p):
    return form[0] + form[1] * p[0] + form[2] * p[1]


def _ratio_integral(tri, U, L, kind, tol):
    """int_T g dA over the triangle, for an integrand g constant on the chords {U = R L} apart
    from a factor in L (see the module docstring): (value, error). ``kind.chord(z, an, R, mu,
    lp, lq)`` is the chord's integral of g L / |grad U - R grad L| at sigma = z = ln R;
    ``kind.constant(rho, size)`` the integral where rho is constant on the triangle;
    ``kind.tail(sigma0, K, p, umax)`` bounds the part rho > e^sigma0."""
    us = [_affine(U, p) for p in tri]
    ls = [_affine(L, p) for p in tri]
    centre = [i for i in range(3) if us[i] == 0 and ls[i] == 0]
    others = [i for i in range(3) if i not in centre]
    rhos = {i: (us[i] / ls[i] if ls[i] != 0 else None) for i in others}
    finite = sorted({r for r in rhos.values() if r is not None})
    unbounded = any(r is None for r in rhos.values())
    size = area(tri)
    if not unbounded and len(finite) == 1:
        return kind.constant(finite[0], size, ls), arb(0)
    if len(finite) == 0:
        raise ArithmeticError("rho unbounded on a whole triangle (internal error)")
    grad_u, grad_l = (U[1], U[2]), (L[1], L[2])
    # grad U parallel to grad L: L is constant along every chord
    parallel = grad_u[0] * grad_l[1] - grad_u[1] * grad_l[0] == 0
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
            """Each chord end as (base vertex, t, direction, L at base, L step): the end is
            base + t direction, based at the edge's vertex of smaller L (where U - R L stays
            bounded as R grows: no cancellation in t or in the differences below)."""
            out = []
            for mk in makers:
                if mk[0] == "point":
                    out.append((mk[1], acb(0), (0, 0), Fraction(0), Fraction(0)))
                    continue
                _, i, j = mk
                if ls[j] < ls[i]:
                    i, j = j, i
                gi = ball(us[i]) - R * ball(ls[i])
                gj = ball(us[j]) - R * ball(ls[j])
                direction = (tri[j][0] - tri[i][0], tri[j][1] - tri[i][1])
                out.append((tri[i], gi / (gi - gj), direction, ls[i], ls[j] - ls[i]))
            return out

        def chord(R):
            """(mu, L(p), L(q)): p - q = mu J n (L = 0 exactly at a centre)."""
            (bp, tp, dp, lbp, ldp), (bq, tq, dq, lbq, ldq) = ends_at(R)
            dx = ball(bp[0] - bq[0]) + tp * ball(dp[0]) - tq * ball(dq[0])
            dy = ball(bp[1] - bq[1]) + tp * ball(dp[1]) - tq * ball(dq[1])
            nx = ball(grad_u[0]) - R * ball(grad_l[0])
            ny = ball(grad_u[1]) - R * ball(grad_l[1])
            mu = (dx * (-ny) + dy * nx) / (nx * nx + ny * ny)
            lp = acb(0) if lbp == 0 and ldp == 0 else ball(lbp) + tp * ball(ldp)
            lq = ball(lbq) + tq * ball(ldq)
            return mu, lp, lq

        probe = chord(acb(ball(rm)))[0].real
        if probe.contains(0):
            raise ArithmeticError("a chord of zero length inside a piece (internal error)")
        sign = 1 if probe > 0 else -1

        def branch(_m, sign=sign):
            def g(z, an):
                R = z.exp()
                mu, lp, lq = chord(R)
                return kind.chord(z, an, R, sign * mu, lp, lq, parallel) * R
            return g

        sa = ball(ra).log()
        if rb is not None:
            v, e = certified(branch, [sa, ball(rb).log()], tol / len(pieces))
        else:
            K, p = _corner_area(tri, us, ls, size)
            sigma0 = max(sa + 1, arb(8))
            while True:
                bound = kind.tail(sigma0, K, p, ball(max(us)))
                if bound < tol / (4 * len(pieces)):
                    break
                if sigma0 > 10 ** 4:
                    raise QuadratureError("the part of a cell where U/L is unbounded is not "
                                          "bounded below the tolerance")
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




class _LogRatio:
    """f = kappa ln(U / L) (a sum sharing the product's coordinate). On a chord f is
    kappa sigma and int_chord L / |n| dl = mu (L(p) + L(q)) / 2."""

    def __init__(self, kappa, mass: bool):
        self.k, self.mass = ball(kappa), mass

    def _g(self, sigma, an):
        x = self.k * sigma
        return x if self.mass else -xlogx_density(x, an)

    def chord(self, z, an, R, mu, lp, lq, parallel):
        return self._g(z, an) * mu * (lp + lq) / 2

    def constant(self, rho, size, ls):
        return self._g(ball(rho).log(), False) * ball(size)

    def tail(self, s0, K, p, umax):
        k = self.k
        if self.mass:
            return K * (-p * s0).exp() * (k * s0 + k / p)
        x = k * s0
        if x < 1:
            return arb("inf")
        head = x * x.log() * K * (-p * s0).exp()
        return head + K * k * (-p * s0).exp() * (k * (s0 / p + arb(1) / p ** 2) + arb(1) / p)


def _mean_log(lp, lq, an):
    """The mean of ln over the segment [lp, lq]: with m the midpoint and r = (lq - lp) / (2 m),
    ``ln m + atanh(r) / r + ln(1 - r^2) / 2 - 1``; atanh(r) / r by its series
    sum r^(2n) / (2n + 1) for |r| <= 1/4 (the tail after N terms at most |r|^(2N) / (1 - r^2)),
    so that a chord shrinking to a point (lp -> lq) is no 0/0."""
    m = (lp + lq) / 2
    r = (lq - lp) / (2 * m)
    r2 = r * r
    if abs(r).upper() <= 0.25:
        terms = max(4, ctx.prec // 4 + 2)
        total, power = acb(0), acb(1)
        for n in range(terms):
            total += power / (2 * n + 1)
            power *= r2
        bound = abs(power).upper() / (1 - abs(r2).upper())
        ratio = total + acb(arb(0, bound), arb(0, bound))
    else:
        ratio = r.atanh() / r
    return m.log(analytic=an) + ratio + (1 - r2).log(analytic=an) / 2 - 1


class _InverseDifference:
    """f = kappa (1/L - 1/U) (a second product sharing the coordinate). On the chord
    {U = R L}, f = k / L with k = kappa (R - 1) / R, so f L = k and -f ln f L = -k ln k + k ln L:
    int_chord f L / |n| = k mu, int_chord -f ln f L / |n| = mu (-k ln k + k avg ln L), the mean
    of ln L along the chord ``(Psi(L(q)) - Psi(L(p))) / (L(q) - L(p))``, Psi(x) = x ln x - x."""

    def __init__(self, kappa, mass: bool):
        self.kappa, self.mass = ball(kappa), mass

    def chord(self, z, an, R, mu, lp, lq, parallel):
        k = self.kappa * (R - 1) / R
        if self.mass:
            return k * mu
        if parallel:
            mean = lq.log(analytic=an)
        elif isinstance(lp, acb) and lp == 0:
            mean = lq.log(analytic=an) - 1
        else:
            mean = _mean_log(lp, lq, an)
        return mu * (-xlogx_density(k, an) + k * mean)

    def constant(self, rho, size, ls):
        """U = rho L on the cell, f = k / L with k = kappa (rho - 1) / rho: by Hermite-Genocchi
        in L, with Phi'' = -(k / x) ln(k / x) (or k / x for the mass)."""
        k = self.kappa * ball(rho - 1) / ball(rho)
        if k == 0:
            return arb(0)
        lk = k.log()

        def phi(order, x):
            if x == 0:
                if order == 0:
                    return arb(0)
                raise ArithmeticError("f unbounded along an edge of a cell (internal error)")
            b = ball(x)
            lx = b.log()
            if self.mass:
                return k * (b * lx - b) if order == 0 else k * (lx if order == 1 else 1 / b)
            if order == 0:
                return -k * lk * (b * lx - b) + k * (b * lx * lx - 2 * b * lx + 2 * b) / 2
            if order == 1:
                return -k * lk * lx + k * lx * lx / 2
            return -(k / b) * (lk - lx)
        return 2 * ball(size) * second_divided_difference(*ls, phi=phi)

    def tail(self, s0, K, p, umax):
        if p != 2:
            return arb("inf")
        delta = umax * (-s0).exp()
        ratio = self.kappa / delta
        if ratio < arb(1).exp():
            return arb("inf")
        if self.mass:
            return 2 * K * self.kappa * delta
        return K * self.kappa * delta * (2 * ratio.log() + 2)


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
    kind = _InverseDifference if pair.second_product else _LogRatio
    entropy, total = kind(pair.kappa, False), kind(pair.kappa, True)
    for tri, (U, L) in cells:
        v, e = _ratio_integral(tri, U, L, entropy, tol / n)
        value, err = value + v, err + e
        v, e = _ratio_integral(tri, U, L, total, tol / n)
        mass, mass_err = mass + v, mass_err + e
    if abs(mass - 1) > mass_err + arb(10) ** -10 * tol:
        raise ArithmeticError(f"the cells carry mass {mass.str(10)}, not 1 (internal error)")
    return arb(value.mid()), arb((err + value.rad()).upper())
