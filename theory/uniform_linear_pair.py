"""h(V1, V2) of two piecewise-linear features of three independent uniform base variables, exact
up to the rounding of the final ball sum.

Each feature is an affine form plus multiples of absolute values of affine forms,
``V = a.u + c + sum_j k_j |l_j.u + d_j|`` (``X + Y + Z``, ``abs(X - Y)``, ``2X - 3Y + Z``), and the
pair depends on exactly three base variables U, independent and uniform on a box B.

The density (formula)
---------------------
Split B by the signs sigma of the absolute values: on each piece P_sigma (a polytope) the pair is
an affine map ``v = M u + b`` of rank 2. Its fibre {M u + b = v} is a line; parametrised by the
coordinate s = u_k whose kernel component n_k (n = row1 x row2) is not zero, the change of
variables (u_i, u_j, s) -> (v1, v2, s) has Jacobian |n_k|, so

    f(v) = sum_sigma len{s : u(s; v) in P_sigma} / (vol(B) |n_k|),

each length ``max(0, min_upper(v) - max_lower(v))`` with every bound affine in v. f is therefore
affine on every cell of the plane cut by the images of the edges of the polytopes P_sigma (where
the active bounds change; the outline of each projected polytope is among them). The cells are
found exactly (rational arithmetic): vertical slabs between the abscissae of the segments' ends
and crossings, trapezoids between consecutive segments, two triangles each; on each, f is the
affine function read from the bounds active at an interior point (so a jump of f across a
segment, where a face of P_sigma contains the kernel direction, is respected).

The entropy (formula)
---------------------
For an affine f with values a, b, c at the vertices of a triangle T, the Hermite-Genocchi formula
(the second divided difference is the mean of the second derivative over the simplex) gives

    int_T phi(f) dA = 2 |T| Phi[a, b, c],     Phi'' = phi,

with phi(x) = x ln x, Phi(x) = x^3 ln x / 6 - 5 x^3 / 36 (confluent divided differences where
vertex values coincide, all exact rationals). So h(V1, V2) = -sum_T 2 |T| Phi[a, b, c]: no
quadrature, the only error is the rounding of ball arithmetic (the returned radius). The total
mass sum_T |T| (a + b + c) / 3 is checked to be exactly 1, so a missed cell cannot pass silently.

:func:`uniform_linear_pair_entropy` returns (value, error bound) or None when the pair is not of
this form. :func:`uniform_square_pair_entropy` extends it to a feature ``k (X - x0)^2 + c`` of one
uniform X: the map |X - x0| -> k |X - x0|^2 + c has derivative 2 k |X - x0|, so
``h(V1, V2) = h(|X - x0|, V2) + ln|2 k| + E ln|X - x0|``, the last a closed form
(``[u ln|u| - u]`` between the ends of X - x0, over the width).

Examples
--------
>>> import sympy as sp
>>> from fstheory.theory.laws import Uniform
>>> from fstheory.theory.quadrature import flint_precision
>>> X, Y, Z = sp.symbols("X Y Z", real=True)
>>> laws = {s: Uniform(0, 1) for s in (X, Y, Z)}
>>> with flint_precision(120):
...     v, e = uniform_linear_pair_entropy((X + Y + Z, sp.Abs(X - Y)), laws)
>>> print(v.str(20, radius=False), e < 1e-30)
0.45833333333333333333 True
"""

from __future__ import annotations

import itertools
from fractions import Fraction

import sympy as sp
from flint import arb

from fstheory.theory.balls import ball
from fstheory.theory.laws import Uniform

__all__ = ["uniform_linear_pair_entropy", "uniform_square_pair_entropy", "pair_density", "pieces",
           "triangles", "area", "second_divided_difference", "exact_fraction"]

#: most absolute values in a pair (2^m sign pieces)
MAX_FOLDS = 3


def exact_fraction(x) -> Fraction | None:
    """A sympy rational, or the exact binary value a Float holds, as a Fraction; None for
    anything else (a symbol, an irrational constant)."""
    x = sp.sympify(x)
    if x.is_Rational:
        return Fraction(int(x.p), int(x.q))
    if x.is_Float:
        r = sp.Rational(x)
        return Fraction(int(r.p), int(r.q))
    return None


def _affine(e, syms):
    """(coefficients, constant) of an affine form in syms, as Fractions, or None."""
    try:
        poly = sp.Poly(sp.expand(e), *syms)
    except sp.PolynomialError:
        return None
    if poly.total_degree() > 1:
        return None
    coefs = [exact_fraction(poly.coeff_monomial(s)) for s in syms]
    const = exact_fraction(poly.coeff_monomial(1))
    if const is None or any(c is None for c in coefs):
        return None
    return coefs, const


def _parse(e, syms):
    """e = a.u + c + sum_j k_j |l_j.u + d_j| as (affine, [(k_j, affine_j)]), or None."""
    e = sp.expand(e)
    folds = sorted(e.atoms(sp.Abs), key=sp.default_sort_key)
    ts = sp.symbols(f"_t0:{len(folds)}")
    lin = _affine(e.subs(dict(zip(folds, ts))), [*syms, *ts])
    if lin is None:
        return None
    coefs, const = lin
    parts = []
    for k, fold in zip(coefs[len(syms):], folds):
        inner = _affine(fold.args[0], syms)
        if inner is None:
            return None
        parts.append((k, inner))
    return (coefs[:len(syms)], const), parts


def _solve3(rows, rhs):
    """The solution of a 3x3 rational system, or None when singular."""
    m = sp.Matrix(rows)
    if m.det() == 0:
        return None
    sol = m.LUsolve(sp.Matrix(rhs))
    return tuple(Fraction(int(sp.Rational(x).p), int(sp.Rational(x).q)) for x in sol)


def _dot(a, b):
    return sum(x * y for x, y in zip(a, b))


class _Piece:
    """One sign piece: v = M u + b on the polytope {g.u + h >= 0 for (g, h) in cons}."""

    def __init__(self, rows, consts, cons, inv_vol):
        self.rows, self.consts, self.cons = rows, consts, cons
        n = (rows[0][1] * rows[1][2] - rows[0][2] * rows[1][1],
             rows[0][2] * rows[1][0] - rows[0][0] * rows[1][2],
             rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0])
        self.n = n
        self.k = next(i for i in range(3) if n[i] != 0)
        self.scale = inv_vol / abs(n[self.k])
        i, j = [t for t in range(3) if t != self.k]
        # u_i, u_j from (v - b - M_k s): the 2x2 inverse of the (i, j) minor
        det = rows[0][i] * rows[1][j] - rows[0][j] * rows[1][i]
        self.ij = (i, j)
        self.inv = ((rows[1][j] / det, -rows[0][j] / det), (-rows[1][i] / det, rows[0][i] / det))
        # each constraint as alpha s + beta0 + beta.v >= 0
        self.bounds = [self._bound(g, h) for g, h in cons]

    def _bound(self, g, h):
        """g.u + h in terms of (s, v): (alpha, beta0, (beta1, beta2))."""
        i, j = self.ij
        k = self.k
        # u_i = inv[0].(v - b - M_k s), u_j = inv[1].(v - b - M_k s), u_k = s
        mk = (self.rows[0][k], self.rows[1][k])
        b = self.consts
        alpha = g[k] - g[i] * _dot(self.inv[0], mk) - g[j] * _dot(self.inv[1], mk)
        beta = (g[i] * self.inv[0][0] + g[j] * self.inv[1][0],
                g[i] * self.inv[0][1] + g[j] * self.inv[1][1])
        beta0 = h - beta[0] * b[0] - beta[1] * b[1]
        return alpha, beta0, beta

    def length(self, v):
        """The affine function (c0, c1, c2) of the fibre length near the interior point v (None
        when the fibre misses the piece there)."""
        lo = hi = None
        for alpha, beta0, beta in self.bounds:
            val = beta0 + beta[0] * v[0] + beta[1] * v[1]
            if alpha == 0:
                if val < 0:
                    return None
                continue
            t = -val / alpha  # alpha s + val >= 0
            form = (-beta0 / alpha, -beta[0] / alpha, -beta[1] / alpha)
            if alpha > 0 and (lo is None or t > lo[0]):
                lo = (t, form)
            elif alpha < 0 and (hi is None or t < hi[0]):
                hi = (t, form)
        if lo is None or hi is None:
            raise ArithmeticError("the fibre is not bounded (internal error)")
        if hi[0] <= lo[0]:
            return None
        return tuple((x - y) * self.scale for x, y in zip(hi[1], lo[1]))

    def segments(self):
        """The images of the edges of the polytope: ((x0, y0), (x1, y1)) in v."""
        verts = []
        for trio in itertools.combinations(range(len(self.cons)), 3):
            got = _solve3([self.cons[t][0] for t in trio], [-self.cons[t][1] for t in trio])
            if got is None or any(_dot(g, got) + h < 0 for g, h in self.cons):
                continue
            if got not in [p for p, _ in verts]:
                tight = frozenset(t for t, (g, h) in enumerate(self.cons) if _dot(g, got) + h == 0)
                verts.append((got, tight))
        out = []
        for (p, tp), (q, tq) in itertools.combinations(verts, 2):
            if len(tp & tq) >= 2:
                a, b = self.image(p), self.image(q)
                if a != b:
                    out.append((a, b) if a <= b else (b, a))
        return out

    def image(self, u):
        return tuple(_dot(r, u) + c for r, c in zip(self.rows, self.consts))


def pieces(exprs, laws: dict):
    """The sign pieces of the pair (list of _Piece), or None when the pair is not three uniform
    base variables with piecewise-linear features."""
    syms = sorted(set().union(*(sp.sympify(e).free_symbols for e in exprs)) & set(laws),
                  key=sp.default_sort_key)
    if len(syms) != 3 or any(not isinstance(laws[s], Uniform) for s in syms):
        return None
    box = [tuple(exact_fraction(p) for p in laws[s].params) for s in syms]
    if any(p is None for lh in box for p in lh):
        return None
    parsed = [_parse(e, syms) for e in exprs]
    if any(p is None for p in parsed):
        return None
    nfold = sum(len(p[1]) for p in parsed)
    if nfold > MAX_FOLDS:
        return None
    inv_vol = Fraction(1)
    box_cons = []
    for i, (lo, hi) in enumerate(box):
        inv_vol /= hi - lo
        unit = tuple(Fraction(int(t == i)) for t in range(3))
        box_cons += [(unit, -lo), (tuple(-x for x in unit), hi)]
    out = []
    for signs in itertools.product((1, -1), repeat=nfold):
        rows, consts, cons = [], [], list(box_cons)
        it = iter(signs)
        for (coefs, const), folds in parsed:
            row, c = list(coefs), const
            for k, (lc, ld) in folds:
                sg = next(it)
                row = [r + k * sg * x for r, x in zip(row, lc)]
                c += k * sg * ld
                cons.append((tuple(sg * x for x in lc), sg * ld))
            rows.append(tuple(row))
            consts.append(c)
        n = (rows[0][1] * rows[1][2] - rows[0][2] * rows[1][1],
             rows[0][2] * rows[1][0] - rows[0][0] * rows[1][2],
             rows[0][0] * rows[1][1] - rows[0][1] * rows[1][0])
        if n == (0, 0, 0):
            return None  # dependent on a piece: no joint density there
        out.append(_Piece(rows, tuple(consts), cons, inv_vol))
    return out


def pair_density(parts, v):
    """f(v) at a point v interior to a cell (exact Fractions), from the pieces."""
    total = Fraction(0)
    for p in parts:
        form = p.length(v)
        if form is not None:
            total += form[0] + form[1] * v[0] + form[2] * v[1]
    return total


def _affine_at(parts, v):
    c = [Fraction(0)] * 3
    for p in parts:
        form = p.length(v)
        if form is not None:
            c = [x + y for x, y in zip(c, form)]
    return c


def _crossing_x(s, t):
    """Abscissa where two non-vertical segments cross strictly inside both x-ranges, or None."""
    (x0, y0), (x1, y1) = s
    (u0, w0), (u1, w1) = t
    m1 = (y1 - y0) / (x1 - x0)
    m2 = (w1 - w0) / (u1 - u0)
    if m1 == m2:
        return None
    x = (w0 - m2 * u0 - y0 + m1 * x0) / (m1 - m2)
    if max(x0, u0) < x < min(x1, u1):
        return x
    return None


def _y(seg, x):
    (x0, y0), (x1, y1) = seg
    return y0 + (y1 - y0) * (x - x0) / (x1 - x0)


def triangles(segments, cell_at):
    """The triangles of the plane cut by ``segments`` (exact; ((x0, y0), (x1, y1)) with
    x0 <= x1), as (vertices, payload) with ``payload = cell_at(v)`` at an interior point v of the
    triangle's trapezoid; trapezoids where it is None are left out. Vertical slabs between the
    abscissae of the ends and crossings; trapezoids between consecutive segments; two triangles
    each. Outside the outermost segments nothing is returned."""
    segs = sorted(set(segments))
    xs = {x for s in segs for x in (s[0][0], s[1][0])}
    slanted = [s for s in segs if s[0][0] != s[1][0]]
    for s, t in itertools.combinations(slanted, 2):
        x = _crossing_x(s, t)
        if x is not None:
            xs.add(x)
    xs = sorted(xs)
    for x0, x1 in zip(xs, xs[1:]):
        xm = (x0 + x1) / 2
        span = sorted((s for s in slanted if s[0][0] <= x0 and s[1][0] >= x1),
                      key=lambda s: _y(s, xm))
        for lo, hi in zip(span, span[1:]):
            if _y(hi, xm) == _y(lo, xm):
                continue
            payload = cell_at((xm, (_y(lo, xm) + _y(hi, xm)) / 2))
            if payload is None:
                continue
            a0, a1, b0, b1 = _y(lo, x0), _y(lo, x1), _y(hi, x0), _y(hi, x1)
            for tri in (((x0, a0), (x1, a1), (x1, b1)), ((x0, a0), (x1, b1), (x0, b0))):
                if area(tri) != 0:
                    yield tri, payload


def _linear_cells(parts):
    """(triangle, vertex values of f) over the support of f."""
    def cell_at(v):
        c = _affine_at(parts, v)
        return None if c == [0, 0, 0] else c

    for tri, c in triangles([s for p in parts for s in p.segments()], cell_at):
        yield tri, tuple(c[0] + c[1] * p[0] + c[2] * p[1] for p in tri)


def area(tri):
    (x0, y0), (x1, y1), (x2, y2) = tri
    return abs((x1 - x0) * (y2 - y0) - (x2 - x0) * (y1 - y0)) / 2


def _phi(k: int, x: Fraction) -> arb:
    """Phi^(k) for phi(x) = x ln x: k = 0: x^3 ln x / 6 - 5 x^3 / 36; 1: x^2 ln x / 2 - x^2 / 4;
    2: x ln x (all 0 at x = 0)."""
    if x == 0:
        return arb(0)
    b = ball(x)
    lx = b.log()
    if k == 0:
        return b ** 3 * (lx / 6 - arb(5) / 36)
    if k == 1:
        return b * b * (lx / 2 - arb(1) / 4)
    return b * lx


def second_divided_difference(a: Fraction, b: Fraction, c: Fraction, phi=None) -> arb:
    """Phi[a, b, c] (confluent where values coincide); ``phi(k, x)`` is Phi^(k) (default: the
    second antiderivative of x ln x)."""
    phi = _phi if phi is None else phi
    a, b, c = sorted((a, b, c))
    if a == c:
        return phi(2, a) / 2
    if a == b:
        a, c = c, a  # Phi[c, c, a] with c != a
        b = c
    if b == c:
        # Phi[a, c, c] = (Phi'(c) - Phi[a, c]) / (c - a)
        first = (phi(0, c) - phi(0, a)) / ball(c - a)
        return (phi(1, c) - first) / ball(c - a)
    first_ab = (phi(0, b) - phi(0, a)) / ball(b - a)
    first_bc = (phi(0, c) - phi(0, b)) / ball(c - b)
    return (first_bc - first_ab) / ball(c - a)


def uniform_linear_pair_entropy(exprs, laws: dict):
    """(h(V1, V2), error bound) as arb balls at the working precision, or None when the pair is
    not of this module's form (see the module docstring)."""
    parts = pieces(exprs, laws)
    if parts is None:
        return None
    total, mass = arb(0), Fraction(0)
    for tri, vals in _linear_cells(parts):
        size = area(tri)
        if min(vals) < 0:
            raise ArithmeticError("a negative density on a cell (internal error)")
        mass += size * sum(vals) / 3
        total += 2 * ball(size) * second_divided_difference(*vals)
    if mass != 1:
        raise ArithmeticError(f"the cells carry mass {float(mass)}, not 1 (internal error)")
    value = -total
    return arb(value.mid()), arb(value.rad())


def _square(e, syms):
    """(x, k, x0) when e = k (x - x0)^2 + c for one x in syms (rational k != 0, x0), or None."""
    e = sp.expand(e)
    free = e.free_symbols & set(syms)
    if len(free) != 1:
        return None
    (x,) = free
    try:
        poly = sp.Poly(e, x)
    except sp.PolynomialError:
        return None
    if poly.degree() != 2:
        return None
    k, b = exact_fraction(poly.coeff_monomial(x ** 2)), exact_fraction(poly.coeff_monomial(x))
    if k is None or b is None or poly.free_symbols - {x}:
        return None
    return x, k, -b / (2 * k)


def _expected_log_abs(lo: Fraction, hi: Fraction) -> arb:
    """E ln|U| for U ~ Unif(lo, hi): [u ln|u| - u]_lo^hi / (hi - lo)."""
    def antiderivative(u):
        if u == 0:
            return arb(0)
        b = ball(u)
        return b * abs(b).log() - b
    return (antiderivative(hi) - antiderivative(lo)) / ball(hi - lo)


def uniform_square_pair_entropy(exprs, laws: dict):
    """(h(V1, V2), error bound) when one feature is k (X - x0)^2 + c of one uniform X and the pair
    (|X - x0|, other) is of :func:`uniform_linear_pair_entropy`'s form; else None."""
    syms = sorted(set().union(*(sp.sympify(e).free_symbols for e in exprs)) & set(laws),
                  key=sp.default_sort_key)
    for i in (0, 1):
        got = _square(exprs[i], syms)
        if got is None or not isinstance(laws[got[0]], Uniform):
            continue
        x, k, x0 = got
        fold = sp.Abs(x - sp.Rational(x0.numerator, x0.denominator))
        inner = uniform_linear_pair_entropy((fold, exprs[1 - i]), laws)
        if inner is None:
            return None
        lo, hi = (exact_fraction(p) for p in laws[x].params)
        if lo is None or hi is None:
            return None
        value = inner[0] + ball(2 * abs(k)).log() + _expected_log_abs(lo - x0, hi - x0)
        return arb(value.mid()), arb((inner[1] + value.rad()).upper())
    return None
