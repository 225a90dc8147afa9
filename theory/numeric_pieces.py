"""Pieces of the numerical route (:class:`fstheory.theory.numeric.NumericRoute`) that stand on
their own: the error it raises for what it cannot do (:class:`NumericUnsupported`), the extra
working precision of laws located far from 0 (:func:`location_bits`), the class probability of
a rule with several remaining variables as an expectation
(:func:`class_probability_by_expectation`), the fibre form of one feature (:func:`fibre_form`),
and the closed routes of linear features of normal variables (:func:`gaussian_class_average`,
:func:`gaussian_joint_entropy`)."""

from __future__ import annotations


from fractions import Fraction

import mpmath
import sympy as sp
from flint import arb

from fstheory.theory.class_probability import ClassProbability
from fstheory.theory.expectation import (
    Fibre,
    Integrand,
    expect,
)
from fstheory.theory.feature_maps import bases_of, classify
from fstheory.theory.integrands import (
    class_mixture,
    num,
    rat,
)
from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.univariate import Normal as NormalLaw


__all__ = ["NumericUnsupported", "MAX_EXTRA_BITS", "location_bits",
           "class_probability_by_expectation", "fibre_form", "gaussian_class_average",
           "gaussian_joint_entropy"]


class NumericUnsupported(ValueError):
    """The numerical route has no reliable method for this quantity (the message says why)."""


#: largest extra working precision for laws located far from 0 relative to their scale
MAX_EXTRA_BITS = 4000


def location_bits(laws: dict) -> int:
    """Bits needed beyond the target to resolve a law located at m with scale s: log2(|m|/s)
    (N(1e300, 1) needs about 1000 more bits; values differ by O(1) around 1e300)."""
    extra = 0
    for law in laws.values():
        lo, hi = law.support()
        centre = law.center()
        if centre is None:
            centre = lo if lo.is_finite else (hi if hi.is_finite else sp.Integer(0))
        scale = hi - lo if (lo.is_finite and hi.is_finite) else law.params[-1]
        try:
            ratio = abs(sp.N(centre / scale, 30))
        except (TypeError, ZeroDivisionError):
            continue
        if ratio > 1:
            extra = max(extra, int(mpmath.log(mpmath.mpf(str(ratio)), 2)) + 10)
    if extra > MAX_EXTRA_BITS:
        raise NumericUnsupported(
            f"a law is located at {2**extra:.1e} times its scale: more than {MAX_EXTRA_BITS} extra "
            "bits of working precision would be needed")
    return extra


def class_probability_by_expectation(system, acc):
    """((P(C = 1), P(C = 0)), method, proved) for a rule with two or more remaining variables:
    the first becomes the coordinate of an expectation, E[q_c(r_1)], with q the class
    probability given r_1 (certified when the others allow it). None when that fails."""
    from fstheory.theory.coordinates import System

    q, first = _shallowest(system, acc, System)
    out, how, proved = [], "", True
    for c in (0, 1):
        def value(u, c=c):
            return q.value(u)[c]

        branch = None
        if q.closed:
            def branch(m, c=c):
                qb = q.branch(m)
                if qb is None:
                    return None
                return lambda z, an: _acb(qb(z, an)[c])

        v, e, how, ok = expect([first], Integrand(value, branch, arb(1), bounded=True),
                               q.cuts(), acc)
        out.append(arb(v, arb(e).upper()) if not e.is_zero() else v)
        proved = proved and ok
    return tuple(out), how, proved


def _shallowest(system, acc, System):
    """(q, r): the class probability given one remaining variable r, r chosen so that q is
    closed and least nested (given X, the rule X Y + k Z >= 0 is a linear form of normal Y and
    Z: q is closed; given Z it is an integral over X); ties keep the order of the variables."""
    best = None
    for i, first in enumerate(system.remaining):
        rest = system.remaining[:i] + system.remaining[i + 1:]
        q = ClassProbability(System([first], [], system.form, None, list(rest)), acc)
        score = (not q.closed, q.depth + (1 if q.remaining else 0) + len(q.remaining))
        if best is None or score < best[0]:
            best = (score, q, first)
    return best[1], best[2]


def _acb(t):
    from flint import acb

    return t if isinstance(t, acb) else acb(t)


def fibre_form(system) -> Fibre:
    """The fibre parametrisation of the single feature: solve it for a coordinate it is affine
    in (a constant coefficient preferred)."""
    (f,) = system.features
    best = None
    for i, c in enumerate(system.coords):
        a = sp.diff(f, c.symbol)
        if c.symbol in a.free_symbols or a == 0:
            continue
        if not a.free_symbols:
            return Fibre(system.coords, f, i)
        if best is None:
            best = i
    if best is None:
        raise NumericUnsupported(f"{f} is not affine in any of its coordinates (no fibre form)")
    return Fibre(system.coords, f, best)


def gaussian_class_average(system, acc):
    """E[H_b(P(C = 1 | V))] for V linear in normal coordinates and a linear rule whose rest is
    normal (or absent): (V, L) is bivariate normal, so P(C = 1 | V = v) = P(R >= -(E[L | v]))
    with R ~ N(0, var(L | v)), L = form(U) + R; the average is one integral against the normal
    law of V, with the rest's window cuts (certified). None when these hypotheses do not hold
    (or a coefficient is not rational, which the cuts need)."""
    from fstheory.theory.coordinates import Coordinate, System

    coords = system.coords
    if not all(isinstance(c.law, NormalLaw) for c in coords):
        return None
    if system.rest is not None and not isinstance(system.rest, NormalLaw):
        return None
    (f,) = system.features
    syms = system.symbols
    a = [sp.diff(f, u) for u in syms]
    b = [sp.diff(system.form, u) for u in syms]
    if any(t.free_symbols for t in a + b):
        return None
    mean = [rat(c.law.m_frac) for c in coords]
    var = [c.law.var for c in coords]
    if None in var:
        return None
    mv = f.subs(dict(zip(syms, mean)))
    ml = system.form.subs(dict(zip(syms, mean)))
    vv = sum((ai * ai * w for ai, w in zip(a, var)), sp.Integer(0))
    vl = sum((bi * bi * w for bi, w in zip(b, var)), sp.Integer(0))
    cov = sum((ai * bi * w for ai, bi, w in zip(a, b, var)), sp.Integer(0))
    rest_sd = None
    if system.rest is not None:
        ml += rat(system.rest.m_frac)
        if system.rest.var is None:
            return None
        vl += system.rest.var
    resid = sp.simplify(vl - cov * cov / vv)
    if not all(t.is_Rational for t in (mv, ml, vv, cov)) or not resid.is_positive:
        return None
    slope = cov / vv
    rest_sd = num(sp.sqrt(resid))
    v = sp.Symbol("V_", real=True)
    law = NormalLaw(num(mv), num(sp.sqrt(vv)), Fraction(int(mv.p), int(mv.q)), vv)
    coord = Coordinate(v, {}, law, False)
    rest = NormalLaw(arb(0), rest_sd, Fraction(0), resid)
    one = System([coord], [v], sp.expand(ml + slope * (v - mv)), rest)
    q = ClassProbability(one, acc)
    F = class_mixture(one, [{v: v}], sp.Integer(1), q)
    val, err, how, proved = expect([coord], F, q.cuts(), acc)
    return val, err, f"E[H_b(P(C=1|V))], bivariate normal, {how}", proved


def gaussian_joint_entropy(exprs, laws):
    """h of linear features of normal base variables: ln(2 pi e) + ln(det Sigma)/2."""
    from fstheory.theory.laws import Normal

    bases = sorted(set().union(*(bases_of(e, laws) for e in exprs)), key=str)
    if not all(isinstance(laws[b], Normal) for b in bases):
        return None
    rows = []
    for e in exprs:
        kind, data = classify(e, laws)
        if kind != "linear":
            return None
        rows.append([data[0].get(b, 0) for b in bases])
    A = sp.Matrix(rows)
    S = sp.diag(*[laws[b].params[1] ** 2 for b in bases])
    det = exact_nsimplify(sp.simplify((A * S * A.T).det()))
    if det == 0:
        return None
    return (2 * arb.pi() * arb(1).exp()).log() + num(det).log() / 2


def rotated_normal_class_average(system, acc):
    """E[H_b(P(C = 1 | V))] for V = a1 U1 + a2 U2 (+ c) of two independent normal coordinates
    of equal variance s^2, under any rule of U1, U2 alone (a disc X^2 + Y^2 <= r, a quadratic):
    the rotation V = a.U, W = a_perp.U (a_perp = (-a2, a1)) gives independent normals V, W of
    variance |a|^2 s^2 (an isotropic normal law is invariant under rotations), and
    U = (a V + a_perp W) / |a|^2, so P(C = 1 | V = v) integrates the rule over W alone: one
    coordinate V with one remaining variable W (:class:`ClassProbability`), the average one
    certified integral against V's law. None when these hypotheses do not hold."""
    from fstheory.theory.coordinates import Coordinate, System

    coords = system.coords
    if len(coords) != 2 or system.rest is not None or system.remaining or system.inner:
        return None
    if not all(isinstance(c.law, NormalLaw) and c.law.var is not None for c in coords):
        return None
    if sp.simplify(coords[0].law.var - coords[1].law.var) != 0:
        return None
    (f,) = system.features
    u1, u2 = system.symbols
    a1, a2 = sp.diff(f, u1), sp.diff(f, u2)
    if not (a1.is_Rational and a2.is_Rational) or a1 == 0 or a2 == 0:
        return None
    if sp.expand(f - a1 * u1 - a2 * u2).free_symbols:
        return None
    var = coords[0].law.var
    m1, m2 = (rat(c.law.m_frac) for c in coords)
    norm2 = a1 * a1 + a2 * a2
    v, w = sp.Symbol("V_", real=True), sp.Symbol("W_", real=True)
    form = sp.expand(system.form.subs({u1: (a1 * v - a2 * w) / norm2,
                                       u2: (a2 * v + a1 * w) / norm2}, simultaneous=True))
    if not form.is_polynomial(v, w):
        return None  # |.|, sign, ...: left to the routes that resolve them piecewise
    vv = sp.nsimplify(norm2 * var)
    if not vv.is_Rational:
        return None
    sd = num(sp.sqrt(vv))

    def normal(mean):
        return NormalLaw(num(mean), sd, Fraction(int(mean.p), int(mean.q)), vv)

    coord = Coordinate(v, {}, normal(a1 * m1 + a2 * m2), False)
    other = Coordinate(w, {}, normal(-a2 * m1 + a1 * m2), True)
    one = System([coord], [v], form, None, [other])
    from fstheory.theory.arbexpr import UnsupportedExpression
    from fstheory.theory.quadrature import QuadratureError, QuadratureTimeout

    try:
        q = ClassProbability(one, acc)
        F = class_mixture(one, [{v: v}], sp.Integer(1), q)
        val, err, how, proved = expect([coord], F, q.cuts(), acc)
    except QuadratureTimeout:
        raise
    except (UnsupportedExpression, QuadratureError):
        return None  # a class probability this form cannot give on complex balls: other routes
    if not proved:
        return None
    return val, err, f"E[H_b(P(C=1|V))], rotated normal pair, {how}", proved
