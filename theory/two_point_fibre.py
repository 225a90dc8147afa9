r"""MI(C; V_S) when the features reveal two base variables up to one affine involution that does
*not* preserve their joint density: H(C | V_S) as a polygon area or as a one-dimensional certified
integral over directions.

Setting. The features of S reveal the base point b = (b_1, b_2) of the class's two variables up to
``{b, tau b}`` with ``tau b = T b + t`` (:func:`affine_partner`, from the fibres of
:mod:`fstheory.theory.determination`). The conditional law on the fibre weighs each point by
``f(p) / |J_phi(p)|``; since ``phi o tau = phi``, ``|J_phi(tau b)| = |J_phi(b)| / |det T|`` and
``|det T| = 1`` for an involution, so

.. math::

    P(C = 1 | V_S) = \frac{f(b) C(b) + f(\tau b) C(\tau b)}{f(b) + f(\tau b)},\qquad
    H(C | V_S) = \int_A f(b)\, H_b\!\Big(\frac{f(b)}{f(b) + f(\tau b)}\Big)\, db,

with ``A = {b : C(b) != C(tau b)}`` (where the classes agree the posterior is 0 or 1). Then
MI(C; V_S) = H(C) - H(C | V_S) (Cover & Thomas, eq. 2.40; conditional laws on fibres: e.g.
Billingsley, *Probability and Measure*, Section 33).

Uniform laws (:func:`uniform_disagreement`). The density is constant on the box S and 0 outside:
the integrand is ln 2 where b and tau b both lie in S and the classes differ, 0 elsewhere, so
``H(C | V_S) = ln 2 * P(b in S, tau b in S, C(b) != C(tau b))``, the area of two convex polygons
(S cut by the half-planes of ``tau^-1 S`` and of the two class conditions) over the area of S,
exact in rational arithmetic. E.g. {Y^2, X-Y} in Scenario I: tau(x, y) = (x - 2y, -y) and
P = (1 + k) / (2 (2 + k)). :func:`uniform_disagreement_on` gives P as an exact piecewise rational
function of one parameter over an interval (the same polygon code, its signs decided exactly by
real-root isolation), :func:`reflection_partner` the partner of a law-preserving reflection.

Radial laws (:func:`cone_entropy`). Both variables i.i.d. centred normal, or i.i.d. centred
Laplace, the class ``1{a . b >= 0}`` and tau linear (t = 0). The density is
``K exp(-N(b)^q)`` with N positively homogeneous (normal: N = |b|_2 / (sigma sqrt 2), q = 2;
Laplace: N = |b|_1 / scale, q = 1) and A is a union of cones. On the ray b = r e (e = (cos theta,
sin theta)) the density ratio is ``exp(-r^q (N(Te)^q - N(e)^q))``; with u = r^q N(e)^q the radial
integral is ``K / (q N(e)^2) g_m(c)``, m = 2/q - 1, c = (N(Te)/N(e))^q - 1, where

.. math::

    g_m(c) = \int_0^\infty u^m e^{-u} H_b(\sigma(c u))\,du
           = \sum_{n\ge1} (-1)^{n+1}\Big[\frac{m!}{n (1 + nc)^{m+1}}
             + \frac{(m+1)!\, c}{(1 + nc)^{m+2}}\Big]\quad (c > 0),

(expand ``H_b(sigma(x)) = ln(1 + e^-x) + x / (1 + e^x)`` in powers of e^-x; the series converges
absolutely), even in c, and g_m(0) = m! ln 2. With ``a = 1/c`` and the alternating sums
``eta_s(a) = sum_{n>=1} (-1)^(n+1) / (n + a)^s = 2^-s (zeta(s, (1+a)/2) - zeta(s, (2+a)/2))``
(``eta_1(a) = (psi((2+a)/2) - psi((1+a)/2)) / 2``), partial fractions give

* g_0(c) = ln 2 - eta_1(a) + a eta_2(a);
* g_1(c) = ln 2 - eta_1(a) - a eta_2(a) + 2 a^2 eta_3(a).

So ``H(C | V_S) = int_{A} w(theta) dtheta`` over the directions where the classes differ, with
``w = g_0(|Te|^2 - 1) / (2 pi)`` (normal) and ``w = g_1(|Te|_1/|e|_1 - 1) / (4 |e|_1^2)``
(Laplace), whatever the common scale. The integral is computed piece by piece between the
directions where a class boundary, a sign of the Laplace norms or c changes (so the integrand is
analytic inside each piece), by mpmath's double-exponential quadrature, g_m evaluated with
python-flint (digamma, Hurwitz zeta); below |c| = 2^-(prec/2) g_m is taken as ln 2
(|g_m(c) - ln 2| <= c^2, from H_b(sigma(x)) >= ln 2 - x^2/8). The error is mpmath's estimate, as
for the nested quadratures of the numerical route; the callers refuse a value whose estimate is
far above the tolerance. Not certified here: g_m is not analytic at c = 0 (its expansion in c is
only asymptotic), which defeats arb's certified quadrature next to those directions;
:mod:`fstheory.theory.cone_enclosure` encloses the same integral, the set of directions over an
interval of the class's parameter exactly and the weight's integrals by Chebyshev models with
proved error bounds (a polynomial bracket of g_m next to c = 0).

Examples
--------
>>> import sympy as sp
>>> from fstheory.theory.laws import Normal, Uniform
>>> from fstheory.theory.determination import ClassEvent
>>> X, Y = sp.symbols("X Y", real=True)
>>> event = ClassEvent(X + Y / 5, 0)
>>> uni = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
>>> tau = affine_partner([Y**2, X - Y], event, uni)
>>> tau.describe(), uniform_disagreement(tau, event, uni)
('(X, Y) -> (X - 2*Y, -Y)', 3/11)
>>> import mpmath
>>> with mpmath.workdps(30):
...     r = cone_entropy(tau, event, {X: Normal(0, 2), Y: Normal(0, 2)})
>>> mpmath.nstr(r.value, 20), r.error < 1e-25
('0.20502799709231241273', True)
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import mpmath
import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory import determination as det
from fstheory.theory.law_algebra import linear_parts
from fstheory.theory.laws import Laplace, Normal, Uniform
from fstheory.theory.quadrature import flint_precision, from_mpf, to_mpf
from fstheory.theory.symbolic import exact_nsimplify

__all__ = ["AffinePartner", "affine_partner", "uniform_disagreement", "uniform_disagreement_on",
           "reflection_partner", "radial_reflection_probability", "cone_entropy", "radial_form",
           "ConeIntegral", "radial_kind", "g_series"]


@dataclass(frozen=True)
class AffinePartner:
    """``tau b = T b + t`` on ``coords``: the second point of every fibre."""

    coords: tuple
    T: sp.ImmutableMatrix
    t: sp.ImmutableMatrix

    def image(self) -> list:
        return list(self.T * sp.Matrix(self.coords) + self.t)

    def describe(self) -> str:
        return f"({', '.join(map(str, self.coords))}) -> ({', '.join(map(str, self.image()))})"


def affine_partner(exprs, event: det.ClassEvent, laws) -> AffinePartner | None:
    """tau when the fibre of ``exprs`` over the two base variables of the features and the class
    is ``{b, T b + t}`` with T an involution (so |det T| = 1) and the class expression linear in
    them (it may use one of the two only: C_0 = 1{X >= 0}); else None."""
    g = event.expr
    gb = det.bases(g, laws)
    for e in exprs:
        gb = gb | det.bases(e, laws)
    if len(gb) != 2 or not det.bases(g, laws):
        return None
    coords = tuple(sorted(gb, key=str))
    if linear_parts(g, list(coords)) is None:
        return None
    f = det.fiber(exprs, laws, coords)
    if f is None or f.free.cols or len(f.branches) != 2 or tuple(f.coords) != coords:
        return None
    br = f.branches[1]
    T, t = sp.ImmutableMatrix(br.T), sp.ImmutableMatrix(br.t)
    if T * T != sp.eye(2) or not (T * t + t).is_zero_matrix:
        return None
    return AffinePartner(coords, T, t)


# ----- uniform laws: polygon areas ---------------------------------------------------------------


def _rational(x):
    x = exact_nsimplify(x)
    return x if x.is_Rational else None


def _rational_sign(v) -> int:
    return 1 if v > 0 else -1 if v < 0 else 0


def _clip(poly: list, h: tuple, sign) -> list:
    """Sutherland-Hodgman: the part of the convex polygon ``poly`` where ``h0 + h1 x + h2 y >= 0``,
    every comparison with 0 made by ``sign`` (-1, 0 or 1)."""
    h0, h1, h2 = h
    out = []
    n = len(poly)
    for i in range(n):
        p, q = poly[i], poly[(i + 1) % n]
        vp, vq = h0 + h1 * p[0] + h2 * p[1], h0 + h1 * q[0] + h2 * q[1]
        inp, inq = sign(vp) >= 0, sign(vq) >= 0
        if inp:
            out.append(p)
        if inp != inq:
            s = vp / (vp - vq)
            out.append((p[0] + s * (q[0] - p[0]), p[1] + s * (q[1] - p[1])))
    return out


def _area(poly: list, sign):
    """The shoelace formula, its sign (the orientation) decided by ``sign``."""
    n = len(poly)
    if n < 3:
        return sp.Integer(0)
    twice = sum(poly[i][0] * poly[(i + 1) % n][1] - poly[(i + 1) % n][0] * poly[i][1]
                for i in range(n))
    return (twice if sign(twice) >= 0 else -twice) / 2


def _disagreement(ends: list, g: list, T: list, t: list, sign):
    """``P(b in S, tau b in S, C(b) != C(tau b))`` for the box ``S = [lo1, hi1] x [lo2, hi2]``
    (``ends``), ``C = 1{g0 + g1 b1 + g2 b2 >= 0}`` and ``tau b = T b + t``: the two convex
    polygons ``S cap tau^-1 S cap {C = c} cap {C o tau != c}`` (c = 1, 0) by Sutherland-Hodgman
    clipping, their shoelace areas over the area of S. Entries may be rationals or elements of a
    field of rational functions; ``sign`` makes every comparison with 0."""
    lo1, hi1, lo2, hi2 = ends
    box = [(lo1, lo2), (hi1, lo2), (hi1, hi2), (lo1, hi2)]

    def image(h):  # the half-plane h(tau b) >= 0 as a half-plane in b
        return (h[0] + h[1] * t[0] + h[2] * t[1],
                h[1] * T[0][0] + h[2] * T[1][0], h[1] * T[0][1] + h[2] * T[1][1])

    cuts = [image((-lo1, 1, 0)), image((hi1, -1, 0)), image((-lo2, 0, 1)), image((hi2, 0, -1))]
    both = box
    for h in cuts:
        both = _clip(both, h, sign)
    pos, neg = tuple(g), tuple(-v for v in g)
    total = sp.Integer(0)
    for first, second in ((pos, image(neg)), (neg, image(pos))):
        total += _area(_clip(_clip(both, first, sign), second, sign), sign)
    return total / ((hi1 - lo1) * (hi2 - lo2))


def _inputs(tau: AffinePartner, event: det.ClassEvent, laws, convert):
    """(ends, g, T, t) of :func:`_disagreement`, each entry through ``convert``; None when a law
    is not uniform, the class not linear in tau's coordinates or ``convert`` refuses an entry."""
    b1, b2 = tau.coords
    if not all(isinstance(laws[b], Uniform) for b in tau.coords):
        return None
    lin = linear_parts(event.expr - event.threshold, list(tau.coords))
    if lin is None:
        return None
    coefs, const = lin
    raw = [*laws[b1].support(), *laws[b2].support(), const, coefs[b1], coefs[b2], *tau.T, *tau.t]
    vals = [convert(v) for v in raw]
    if any(v is None for v in vals):
        return None
    return vals[:4], vals[4:7], [vals[7:9], vals[9:11]], vals[11:13]


def uniform_disagreement(tau: AffinePartner, event: det.ClassEvent, laws):
    """``P(b in S, tau b in S, C(b) != C(tau b))`` for independent uniform laws with rational
    ends and a linear class with rational coefficients (exact, a Rational); None otherwise."""
    parts = _inputs(tau, event, laws, _rational)
    return None if parts is None else _disagreement(*parts, _rational_sign)


def reflection_partner(tau: det.SignedMap) -> AffinePartner | None:
    """The :class:`AffinePartner` ``T = diag(signs)``, ``t = shifts`` of a reflection
    ``b -> sign * b + shift`` of two coordinates (:func:`fstheory.theory.determination.two_point`);
    None for more or fewer than two coordinates or a coordinate sent to another one.

    A law-preserving reflection keeps both points of a fibre in the box, so for uniform laws
    :func:`uniform_disagreement` of it is ``P(C != C o tau)``, the value of
    :func:`fstheory.theory.determination.swap_probability`.

    >>> X, Y = sp.symbols("X Y", real=True)
    >>> r = reflection_partner(det.SignedMap(((X, 1, X, 0), (Y, -1, Y, 1))))
    >>> r.describe()
    '(X, Y) -> (X, 1 - Y)'
    """
    if len(tau.mapping) != 2 or any(img != b for b, _, img, _ in tau.mapping):
        return None
    coords = tuple(b for b, *_ in tau.mapping)
    T = sp.ImmutableMatrix(sp.diag(*(s for _, s, _, _ in tau.mapping)))
    t = sp.ImmutableMatrix([shift for *_, shift in tau.mapping])
    return AffinePartner(coords, T, t)


def radial_reflection_probability(tau: AffinePartner, event: det.ClassEvent, laws):
    """``P(C != C o tau)`` for a reflection ``tau = diag(s_1, s_2)`` without shift of two i.i.d.
    centred normal (or Laplace) variables and the class ``1{a_1 b_1 + a_2 b_2 >= 0}``, as a
    sympy expression in the coefficients (which may hold a parameter); None when these
    hypotheses fail or neither coefficient is a nonzero number.

    The classes differ where the reflected part outweighs the other: for tau = diag(1, -1)
    iff ``|a_1 b_1| < |a_2 b_2|``, so ``P = F(|a_2 / a_1|)`` with ``F(r) = P(|b_1| < r |b_2|)``;
    diag(-1, 1) gives ``1 - F(|a_2 / a_1|)``, diag(-1, -1) 1 and the identity 0. For i.i.d.
    centred normals b_1 / b_2 is standard Cauchy, ``F(r) = (2/pi) atan r``; for Laplace |b_1|
    and |b_2| are i.i.d. exponential, ``F(r) = P(E_1 < r E_2) = r / (1 + r)``. F(1/r) = 1 - F(r)
    in both, so ``F(|a_1/a_2|)`` is used when a_1 is not a nonzero number.

    >>> X, Y = sp.symbols("X Y", real=True)
    >>> k = sp.Symbol("k", positive=True)
    >>> flip = AffinePartner((X, Y), sp.ImmutableMatrix([[1, 0], [0, -1]]), sp.ImmutableMatrix([0, 0]))
    >>> radial_reflection_probability(flip, det.ClassEvent(X + k * Y, 0), {X: Normal(0, 2), Y: Normal(0, 2)})
    2*atan(k)/pi
    >>> radial_reflection_probability(flip, det.ClassEvent(X + k * Y, 0), {X: Laplace(0, 1), Y: Laplace(0, 1)})
    k/(k + 1)
    """
    kind = radial_kind(tau, event, laws)
    T = tau.T
    if kind is None or T[0, 1] != 0 or T[1, 0] != 0 or abs(T[0, 0]) != 1 or abs(T[1, 1]) != 1:
        return None
    s1, s2 = T[0, 0], T[1, 1]
    if s1 == s2:
        return sp.Integer(0 if s1 == 1 else 1)
    coefs, _ = linear_parts(event.expr - event.threshold, list(tau.coords))
    a1, a2 = (sp.sympify(coefs[b]) for b in tau.coords)

    def F(r):
        return 2 * sp.atan(r) / sp.pi if kind == "normal" else r / (1 + r)

    if a1.is_number and a1 != 0:
        p = F(sp.Abs(a2 / a1))
    elif a2.is_number and a2 != 0:
        p = 1 - F(sp.Abs(a1 / a2))
    else:
        return None
    return p if s1 == 1 else 1 - p


# ----- uniform laws with one parameter: exact signs over an interval ----------------------------


class _Split(Exception):
    """A sign decision is not constant on the interval: its roots inside, increasing."""

    def __init__(self, roots: list):
        super().__init__()
        self.roots = roots


def _approx(r, eps):
    """A rational within ``eps`` of the real algebraic number ``r`` (Rational or CRootOf;
    sympy refines the root's isolating interval)."""
    return r if r.is_Rational else r.eval_rational(dx=eps)


def _compare(r, s) -> int:
    """The sign of ``r - s`` for real algebraic numbers given as Rationals or CRootOf of
    irreducible polynomials, exactly: equal ones are the same object (the same minimal
    polynomial and index), distinct ones are told apart by refining rational enclosures."""
    if r == s:
        return 0
    eps = sp.Rational(1, 2**32)
    for _ in range(12):
        d = _approx(r, eps) - _approx(s, eps)
        if abs(d) > 2 * eps:
            return 1 if d > 0 else -1
        eps = eps**2
    raise ArithmeticError(f"could not separate the algebraic numbers {r} and {s}")


def _rational_between(a, b):
    """A rational strictly between the real algebraic numbers ``a < b``."""
    eps = sp.Rational(1, 2**32)
    while True:
        ra, rb = _approx(a, eps), _approx(b, eps)
        if rb - ra > 4 * eps:
            return (ra + rb) / 2
        eps = eps**2


def _roots_inside(p: sp.Poly, a, b) -> list:
    """The distinct real roots of ``p`` strictly between ``a`` and ``b``: none when a Sturm count
    on a rational enclosure of [a, b] finds none, else sympy's exact roots (CRootOf) compared
    with a and b."""
    if p.degree() < 1:
        return []
    eps = sp.Rational(1, 2**32)
    if p.count_roots(_approx(a, eps) - eps, _approx(b, eps) + eps) == 0:
        return []
    return [r for r in p.sqf_part().real_roots(radicals=False)
            if _compare(a, r) < 0 < _compare(b, r)]


class _SignOn:
    """The sign of a rational function of ``sym`` on the open interval (a, b) where it is
    constant (0 for the zero function); raises :class:`_Split` at the roots of its numerator
    and denominator inside (a, b) otherwise."""

    def __init__(self, sym, a, b):
        self.sym, self.a, self.b = sym, a, b
        self.x = _rational_between(a, b)

    def __call__(self, v) -> int:
        if not v:
            return 0
        roots = [r for part in (v.numer, v.denom)
                 for r in _roots_inside(sp.Poly(part.as_expr(), self.sym), self.a, self.b)]
        if roots:
            raise _Split(sorted(set(roots), key=functools.cmp_to_key(_compare)))
        return 1 if v.numer(self.x) * v.denom(self.x) > 0 else -1


def _pieces(compute, sym, a, b) -> list:
    try:
        return [(a, b, compute(_SignOn(sym, a, b)))]
    except _Split as split:
        ends = [a, *split.roots, b]
        return [p for lo, hi in zip(ends, ends[1:]) for p in _pieces(compute, sym, lo, hi)]


def uniform_disagreement_on(tau: AffinePartner, event: det.ClassEvent, laws, sym, lo, hi):
    """:func:`uniform_disagreement` as an exact function of the parameter ``sym`` on [lo, hi].

    The box ends, the class's coefficients and constant, T and t may be rational functions of
    ``sym`` with rational coefficients. Returns ``[(a_0, b_0, P_0), ...]``, ``a_0 = lo``,
    ``b_i = a_(i+1)``, ``b_last = hi``, the ends exact (Rational, or CRootOf where a split falls
    at an irrational root), with ``uniform_disagreement`` at ``sym = x`` equal to ``P_i(x)`` (a
    rational function of ``sym``) for every x in [a_i, b_i]. None when the hypotheses fail: a
    law not uniform, an entry not a rational function of ``sym``, an entry with a pole in
    [lo, hi], a box width that is not positive on all of [lo, hi], ``tau`` not an involution, or
    a class whose coefficients of b1 and b2 vanish together somewhere in [lo, hi] without
    vanishing identically.

    Method. The polygon code of :func:`uniform_disagreement` (Sutherland-Hodgman clipping,
    shoelace areas) runs in the field Q(sym). Each comparison with 0 it makes (a vertex value
    ``h0 + h1 x + h2 y``, the orientation of a polygon) is of a rational function whose numerator
    and denominator have their real roots in (a, b) isolated exactly (Sturm counts and sympy's
    real_roots, CRootOf); with none, the sign is constant on (a, b) and read at one rational
    point; otherwise the interval is split at those roots and each part computed again. So on
    each open piece every decision is that of the numerical code at each point, identically 0
    taking the ``>= 0`` branch as the numerical code does (neighbouring pieces may carry the same
    P where a decision changed without changing the area). At the ends of the pieces the equality
    holds by continuity: the true P is continuous in ``sym`` where the box is non-degenerate and
    the class line ``g1 b1 + g2 b2 = -g0`` exists (the indicators of the half-planes then
    converge almost everywhere), and the numerical code returns the true P at every point.

    Examples
    --------
    >>> X, Y = sp.symbols("X Y", real=True)
    >>> k = sp.Symbol("k", positive=True)
    >>> event, uni = det.ClassEvent(X + k * Y, 0), {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
    >>> tau = affine_partner([Y**2, X - Y], event, uni)
    >>> uniform_disagreement_on(tau, event, uni, k, 0, 3)
    [(0, 3, (k + 1)/(2*k + 4))]

    The reflection (X, Y) -> (X, -Y) changes the class where |X| < k |Y|; the line X + k Y = 0
    reaches the box's corners at k = 1:

    >>> flip = affine_partner([X, Y**2], event, uni)
    >>> uniform_disagreement_on(flip, event, uni, k, 0, 3)
    [(0, 1, k/2), (1, 3, (2*k - 1)/(2*k))]
    """
    lo, hi = sp.sympify(lo), sp.sympify(hi)
    if not (lo.is_Rational and hi.is_Rational and lo < hi):
        raise ValueError(f"uniform_disagreement_on: need rationals lo < hi, got [{lo}, {hi}]")
    field = sp.QQ.frac_field(sym)

    def convert(v):
        try:
            return field.from_sympy(exact_nsimplify(v))
        except ValueError:  # not a rational function of sym with rational coefficients
            return None

    parts = _inputs(tau, event, laws, convert)
    if parts is None:
        return None
    ends, g, T, t = parts

    def roots_in_closed(p) -> bool:
        poly = sp.Poly(p.as_expr(), sym)
        return poly.degree() >= 1 and poly.count_roots(lo, hi) > 0

    lo1, hi1, lo2, hi2 = ends
    entries = [*ends, *g, *T[0], *T[1], *t]
    widths = [hi1 - lo1, hi2 - lo2]
    square = [[sum(T[i][m] * T[m][j] for m in range(2)) for j in range(2)] for i in range(2)]
    if (any(roots_in_closed(v.denom) for v in entries)
            or any(roots_in_closed(w.numer) or w.numer(lo) * w.denom(lo) <= 0 for w in widths)
            or square != [[1, 0], [0, 1]]
            or any(T[i][0] * t[0] + T[i][1] * t[1] + t[i] for i in range(2))):
        return None
    normal = g[1].numer.gcd(g[2].numer)
    if normal and roots_in_closed(normal):
        return None
    pieces = _pieces(lambda sign: _disagreement(ends, g, T, t, sign), sym, lo, hi)
    return [(a, b, p.as_expr()) for a, b, p in pieces]


# ----- radial laws: one integral over directions --------------------------------------------------


def radial_kind(tau: AffinePartner, event: det.ClassEvent, laws) -> str | None:
    """"normal" or "laplace" when :func:`cone_entropy` applies: both laws i.i.d. centred normal
    (or Laplace), tau linear, the class ``1{a . b >= 0}`` with no constant; else None."""
    l1, l2 = (laws[b] for b in tau.coords)
    if type(l1) is not type(l2) or not isinstance(l1, (Normal, Laplace)):
        return None
    if l1.params[0] != 0 or l2.params[0] != 0 or sp.simplify(l1.params[1] - l2.params[1]) != 0:
        return None
    if not tau.t.is_zero_matrix:
        return None
    lin = linear_parts(event.expr - event.threshold, list(tau.coords))
    if lin is None or sp.simplify(lin[1]) != 0:
        return None
    return "normal" if isinstance(l1, Normal) else "laplace"


def _eta(s: int, a):
    if s == 1:
        return (((a + 2) / 2).digamma() - ((a + 1) / 2).digamma()) / 2
    return (acb(s).zeta((a + 1) / 2) - acb(s).zeta((a + 2) / 2)) / 2 ** s


def g_series(m: int, c):
    """g_m(c) for c > 0 (a ball or complex ball), from the closed form in eta_s(1/c)."""
    a = 1 / c
    ln2 = arb.const_log2()
    if m == 0:
        return ln2 - _eta(1, a) + a * _eta(2, a)
    return ln2 - _eta(1, a) - a * _eta(2, a) + 2 * a * a * _eta(3, a)


@dataclass(frozen=True)
class ConeIntegral:
    """H(C | V_S): ``value`` and ``error`` (mpmath's estimate), mpf."""

    value: mpmath.mpf
    error: mpmath.mpf


def angles_of_form(v) -> list:
    """Both angles in [0, 2 pi) of the directions e with v . e = 0, as balls (v exact)."""
    v0, v1 = (arb(sp.Rational(x).p) / sp.Rational(x).q for x in v)
    if v0 == 0 and v1 == 0:
        return []
    th = arb.atan2(v0, -v1)  # the direction e = (-v1, v0) / |v|
    pi = arb.pi()
    out = []
    for x in (th, th + pi, th - pi, th + 2 * pi):
        if x > 0 and x < 2 * pi:
            out.append(x)
    return out


def radial_form(tau: AffinePartner, event: det.ClassEvent, laws) -> tuple[str, list, list]:
    """(kind, a, T) of :func:`cone_entropy`: the kind of :func:`radial_kind`, the class's
    coefficients ``a`` of (b_1, b_2) and the rows of T, exact rationals. ValueError when the
    setting is not radial, ArithmeticError when a coefficient is not rational."""
    kind = radial_kind(tau, event, laws)
    if kind is None:
        raise ValueError("cone_entropy: the laws, tau or the class are not radial")
    b1, b2 = tau.coords
    coefs, _ = linear_parts(event.expr - event.threshold, list(tau.coords))
    a = [exact_nsimplify(coefs[b1]), exact_nsimplify(coefs[b2])]
    T = [[exact_nsimplify(v) for v in tau.T.row(i)] for i in range(2)]
    if not all(x.is_Rational for x in a + T[0] + T[1]):
        raise ArithmeticError("the class weights or the map are not rational")
    return kind, a, T


def cone_entropy(tau: AffinePartner, event: det.ClassEvent, laws) -> ConeIntegral:
    """H(C | V_S) = int over the directions where the classes differ of w(theta) (module
    docstring), at the caller's ``mpmath.workdps`` (mpmath's double-exponential quadrature on
    each piece of the circle between the class boundaries and w's kinks; the error is mpmath's
    estimate); raises ArithmeticError if a piece cannot be decided. The engine's values come
    from :func:`fstheory.theory.cone_enclosure.cone_entropy_at` (the same integral, enclosed,
    its models kept between points); this is the independent route the tests compare it with."""
    kind, a, T = radial_form(tau, event, laws)
    Ta = [a[0] * T[0][0] + a[1] * T[1][0], a[0] * T[0][1] + a[1] * T[1][1]]  # a . T e
    with flint_precision(mpmath.mp.prec + 20):
        pi2 = 2 * arb.pi()
        cuts = [arb(0), pi2, pi2 / 4, pi2 / 2, 3 * pi2 / 4]
        forms = [a, Ta]
        if kind == "normal":
            M = [T[0][0] ** 2 + T[1][0] ** 2 - 1, T[0][0] * T[0][1] + T[1][0] * T[1][1],
                 T[0][1] ** 2 + T[1][1] ** 2 - 1]  # |Te|^2 - 1 = e' (T'T - I) e
            cuts += quadratic_zeros(M[0], 2 * M[1], M[2])
        else:
            forms += [T[0], T[1]]
        for v in forms:
            cuts += angles_of_form(v)
        pieces = _sorted_unique(cuts)
        total, err = mpmath.mpf(0), mpmath.mpf(0)
        for lo, hi in zip(pieces, pieces[1:]):
            value, e = _piece(kind, a, T, lo, hi)
            total += value
            err += e
        return ConeIntegral(total, err)


def quadratic_zeros(A, B, C) -> list:
    """Angles where A cos^2 + B cos sin + C sin^2 = 0 (exact rationals), as balls: tan theta
    solves C t^2 + B t + A = 0, and theta = pi/2, 3pi/2 are zeros when C = 0."""
    out = []
    if A == 0 and B == 0 and C == 0:
        return out
    if C == 0:
        out += angles_of_form([1, 0])  # cos theta = 0
        roots = [sp.Rational(-A) / B] if B != 0 else []
    else:
        disc = B * B - 4 * A * C
        if disc < 0:
            return out
        roots = [(-B + s * sp.sqrt(disc)) / (2 * C) for s in (1, -1)]
    pi = arb.pi()
    for r in roots:
        x = _arb_algebraic(r).atan()
        out += [y for y in (x, x + pi, x + 2 * pi) if y > 0 and y < 2 * pi]
    return out


def _arb_algebraic(r) -> arb:
    r = exact_nsimplify(r)
    if r.is_Rational:
        return arb(int(r.p)) / int(r.q)
    # p + q sqrt(d) with rationals p, q, d
    p, rest = r.as_coeff_Add()
    q, root = rest.as_coeff_Mul()
    d = root.args[0] if isinstance(root, sp.Pow) else root ** 2
    return _arb_algebraic(p) + _arb_algebraic(q) * _arb_algebraic(d).sqrt()


def _sorted_unique(balls: list) -> list:
    """The cut directions in increasing order, overlapping balls kept once: two directions whose
    balls overlap are within 2^-(prec - 20) of each other, so the piece between them (dropped if
    they differ) changes the integral by less than that times max w <= 1/4, far below the
    tolerance 10^-(dps - 6)."""
    out = []
    for x in sorted(balls, key=lambda b: to_mpf(b.mid())):
        if out and x.overlaps(out[-1]):
            continue
        out.append(x)
    return out


def _piece(kind: str, a, T, lo: arb, hi: arb):
    """The integral of w over (lo, hi) if the classes differ there (decided at its midpoint):
    (value, error estimate) as mpf, at the caller's mpmath precision."""
    a = [_arb_algebraic(x) for x in a]
    T = [[_arb_algebraic(x) for x in row] for row in T]
    mid = (lo + hi) / 2
    e = (mid.cos(), mid.sin())
    te = (T[0][0] * e[0] + T[0][1] * e[1], T[1][0] * e[0] + T[1][1] * e[1])
    side = a[0] * e[0] + a[1] * e[1]
    side_t = a[0] * te[0] + a[1] * te[1]
    if (_sign(side) > 0) == (_sign(side_t) > 0):
        return mpmath.mpf(0), mpmath.mpf(0)
    if kind == "normal":
        m, signs = 0, None
    else:
        m, signs = 1, [_sign(e[0]), _sign(e[1]), _sign(te[0]), _sign(te[1])]
    ln2 = arb.const_log2()
    small = arb(2) ** -(ctx.prec // 2 + 2)  # |g_m(c) - ln 2| <= c^2 (module docstring)

    def f(theta):
        z = from_mpf(theta)
        c0, s0 = z.cos(), z.sin()
        t0 = T[0][0] * c0 + T[0][1] * s0
        t1 = T[1][0] * c0 + T[1][1] * s0
        if kind == "normal":
            w, c = 1 / (2 * arb.pi()), t0 * t0 + t1 * t1 - 1
        else:
            n = signs[0] * c0 + signs[1] * s0
            w, c = 1 / (4 * n * n), (signs[2] * t0 + signs[3] * t1) / n - 1
        c = abs(c)
        g = ln2 if c < small else acb(g_series(m, acb(c))).real
        return to_mpf(w * g)

    value, err = mpmath.quad(f, [to_mpf(lo), to_mpf(hi)], error=True)
    return value, mpmath.mpf(err)


def _sign(x: arb) -> int:
    if x > 0:
        return 1
    if x < 0:
        return -1
    raise ArithmeticError("cone_entropy: a sign undecided inside a piece")
