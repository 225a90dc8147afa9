"""MI(C, alpha X + beta Z + gamma) for uniform X, Z under a rule A(X, Z) Y + B(X, Z) >= 0 with
Y uniform (theory/uniform_bilinear_fibre.py: closed cells along the fibres, certified outer
integral), against a second route: mpmath's nested quadrature of the clipped class
probability P(C = 1 | x, z) = P(A Y + B >= 0), with no closed form and no cell logic."""

import itertools

import mpmath
import pytest
import sympy as sp

from fstheory.theory.laws import Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.rule import Rule

X, Y, Z = sp.symbols("X Y Z", real=True)


def _reference(bx, bz, by, feature, form, dps):
    """(MI(C, V), P(C = 1)) by mpmath: f_{V,c}(v) = int q_c(x, z(x, v)) dx / (L_x L_z |beta|),
    the inner and outer integrals split at every crossing of the lines where q_c or the
    support changes (found numerically: each is linear along a fibre)."""
    with mpmath.workdps(dps):
        mp = [tuple(mpmath.mpf(sp.Rational(t).p) / sp.Rational(t).q for t in b)
              for b in (bx, bz, by)]
        (lx, hx), (lz, hz), (ly, hy) = mp
        alpha = mpmath.mpf(sp.Rational(sp.diff(feature, X)).p) / sp.Rational(sp.diff(feature, X)).q
        beta = mpmath.mpf(sp.Rational(sp.diff(feature, Z)).p) / sp.Rational(sp.diff(feature, Z)).q
        g0 = feature.subs({X: 0, Z: 0})
        gamma = mpmath.mpf(sp.Rational(g0).p) / sp.Rational(g0).q
        A = sp.lambdify((X, Z), sp.diff(form, Y), "mpmath")
        B = sp.lambdify((X, Z), form.subs(Y, 0), "mpmath")

        def z_of(x, v):
            return (v - gamma - alpha * x) / beta

        def q1(x, z):
            a, b = A(x, z), B(x, z)
            if a == 0:
                return mpmath.mpf(1 if b >= 0 else 0)
            t = -b / a
            p = (hy - t) / (hy - ly) if a > 0 else (t - ly) / (hy - ly)
            return min(max(p, mpmath.mpf(0)), mpmath.mpf(1))

        def cut_values(v):
            # x where z hits its ends, A = 0, A y + B = 0 for y = ly, hy (linear in x)
            def root(fn):
                f0, f1 = fn(mpmath.mpf(0)), fn(mpmath.mpf(1))
                return None if f1 == f0 else -f0 / (f1 - f0)
            fns = [lambda x: z_of(x, v) - lz, lambda x: z_of(x, v) - hz,
                   lambda x: A(x, z_of(x, v))]
            fns += [lambda x, y=y: A(x, z_of(x, v)) * y + B(x, z_of(x, v)) for y in (ly, hy)]
            return [r for r in (root(f) for f in fns) if r is not None]

        def parts(v):
            xs = sorted({lx, hx, *cut_values(v)})
            xs = [x for x in xs if lx <= x <= hx]
            pieces = [(a, b) for a, b in zip(xs, xs[1:])
                      if lz < z_of((a + b) / 2, v) < hz]
            s1 = sum(mpmath.quad(lambda x: q1(x, z_of(x, v)), [a, b]) for a, b in pieces)
            s = sum(b - a for a, b in pieces)
            scale = (hx - lx) * (hz - lz) * abs(beta)
            return s / scale, s1 / scale

        corners = [alpha * x + beta * z + gamma for x in (lx, hx) for z in (lz, hz)]
        vlo, vhi = min(corners), max(corners)
        # the crossings of the cut lines x = r(v): each r is linear in v
        r0, r1 = cut_values(mpmath.mpf(0)), cut_values(mpmath.mpf(1))
        lines = [(a, b - a) for a, b in zip(r0, r1)] + [(lx, 0), (hx, 0)]
        vs = {vlo, vhi}
        for (c0, c1), (d0, d1) in itertools.combinations(lines, 2):
            if c1 != d1:
                v = (d0 - c0) / (c1 - d1)
                if vlo < v < vhi:
                    vs.add(v)

        def xlogx(t):
            return t * mpmath.log(t) if t > 0 else mpmath.mpf(0)

        def integrand(v):
            f, f1 = parts(v)
            return xlogx(f) - xlogx(f1) - xlogx(f - f1)

        pts = sorted(vs)
        p1 = mpmath.quad(lambda v: parts(v)[1], pts)
        hc = -xlogx(p1) - xlogx(1 - p1)
        return hc - mpmath.quad(integrand, pts), p1


def _check(laws, feature, form, digits, ref_dps, agree):
    route = NumericRoute(laws, Rule(sp.expand(form)))
    with mpmath.workdps(digits):
        got = route.mi_class(feature)
    assert got.certified and "uniform fibre in closed cells" in got.method, got.method
    assert got.error < mpmath.mpf(10) ** -(digits - 4)
    b = [tuple(laws[s].params) for s in (X, Z, Y)]
    ref, _ = _reference(*b, sp.expand(feature), sp.expand(form), ref_dps)
    assert abs(got.value - ref) < mpmath.mpf(10) ** -agree, (got.value, ref)


@pytest.mark.slow
def test_product_rule_on_the_unit_cube():
    """The r05 file: X, Y, Z ~ Unif(0, 1), C = 1{X Y + Z/2 >= 1/2}, V = X + Z (a cell whose
    class probability vanishes at one end, and A = X reaching 0 at a piece end)."""
    laws = {s: Uniform(0, 1) for s in (X, Y, Z)}
    _check(laws, X + Z, X * Y + Z / 2 - sp.Rational(1, 2), 30, 25, 20)


@pytest.mark.slow
def test_sign_changing_coefficient():
    """X ~ Unif(-1, 1), Z ~ Unif(0, 2), Y ~ Unif(-1, 1/2), C = 1{X Y - Z/3 + 1/4 >= 0},
    V = X - 2 Z + 1/3: A = X changes sign inside the box (the class side flips)."""
    laws = {X: Uniform(-1, 1), Z: Uniform(0, 2), Y: Uniform(-1, sp.Rational(1, 2))}
    _check(laws, X - 2 * Z + sp.Rational(1, 3), X * Y - Z / 3 + sp.Rational(1, 4), 20, 22, 17)


@pytest.mark.slow
def test_coefficient_along_the_fibre():
    """X, Z ~ Unif(0, 1), Y ~ Unif(0, 2), C = 1{Z Y + X/2 >= 4/5}, V = 2 X + Z: on the fibre
    A = Z = v - 2 x depends on both v and x."""
    laws = {X: Uniform(0, 1), Z: Uniform(0, 1), Y: Uniform(0, 2)}
    _check(laws, 2 * X + Z, Z * Y + X / 2 - sp.Rational(4, 5), 20, 22, 17)


def test_not_applicable_leaves_other_routes():
    """A normal coordinate: the route does not apply (None), nothing is claimed."""
    from fstheory.theory.coordinates import build
    from fstheory.theory.laws import Normal
    from fstheory.theory.quadrature import flint_precision
    from fstheory.theory.uniform_bilinear_fibre import uniform_bilinear_class_average

    laws = {X: Normal(0, 1), Y: Uniform(0, 1), Z: Uniform(0, 1)}
    route = NumericRoute(laws, Rule(X * Y + Z - 1))
    acc = route._accuracy()
    with flint_precision(acc.bits):
        system = build([X + Z], laws, Rule(X * Y + Z - 1), acc)
        assert uniform_bilinear_class_average(system, laws, acc) is None
