"""The enclosures of the integrals arb cannot evaluate at an end of their range
(theory/special_integrals.py): recognised in the derived closed forms, containing independent
quadrature values (Gauss-Legendre at 45 digits, mpmath's tanh-sinh at 40), radius below 1e-30."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from test_atlas_certify import gauss_legendre_value

from fstheory.theory import special_integrals as C
from fstheory.atlas.certificate.enclose import arb_of, working_precision
from fstheory.engine.derive import derive
from fstheory.scenarios.registry import get_scenario


pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def closed_forms():
    return {name: derive(get_scenario(name)).mi_features[2][3].expr
            for name in ("normal", "laplace")}


def _tanh_sinh_value(expr, dps: int = 40) -> mpmath.mpf:
    with mpmath.workdps(dps):
        ints = {}
        for i in expr.atoms(sp.Integral):
            var, a, b = i.limits[0]
            f = sp.lambdify(var, i.function, "mpmath")
            ends = [mpmath.mpf(sp.N(a, dps + 5)),
                    mpmath.inf if b == sp.oo else mpmath.mpf(sp.N(b, dps + 5))]
            ints[i] = sp.Float(mpmath.quad(f, ends), dps)
        return mpmath.mpf(sp.N(expr.xreplace(ints), dps))


@pytest.mark.parametrize("name, params", [("normal", {"sigma": sp.Rational(3, 2)}),
                                          ("laplace", {"scale": sp.Rational(1, 2)})])
def test_enclosure_contains_independent_quadrature(closed_forms, name, params):
    expr = closed_forms[name]
    expr = expr.subs({s: params[s.name] for s in expr.free_symbols if s.name in params})
    assert all(C.special_integral_ball(i) is not None for i in expr.atoms(sp.Integral))
    for bits in (116, 140):
        with working_precision(bits):
            ball = arb_of(expr)
        assert ball.rad() < 1e-30, (bits, ball.rad())
        with mpmath.workdps(45):
            lo, hi = mpmath.mpf(ball.lower().str(50, radius=False)), \
                mpmath.mpf(ball.upper().str(50, radius=False))
            slack = mpmath.mpf(10) ** -40  # the decimal strings of the ends
            for v in (gauss_legendre_value(expr, 45), _tanh_sinh_value(expr, 40)):
                assert lo - slack <= v <= hi + slack, (name, bits, v, ball)


def test_other_integrals_are_not_recognised():
    th = sp.Symbol("theta", real=True)
    m = sp.Symbol("m", positive=True)
    assert C.special_integral_ball(sp.Integral(sp.cos(th), (th, 0, sp.pi))) is None
    assert C.special_integral_ball(sp.Integral(sp.exp(-m), (m, 0, sp.oo))) is None
    (normal,) = [i for i in C.NORMAL_INTEGRALS if i.limits[0][1] == 0]
    shifted = sp.Integral(normal.function, (th, 0, sp.pi / 3))
    assert C.special_integral_ball(shifted) is None


@pytest.mark.parametrize("m", ["0", "0.3", "2", "17.5", "40"])
def test_laplace_rewrite_is_the_integrand(m):
    # F(m) = (c - log(1 + e^-2m)) e^-m - (pi/2) e^-2m + 2 e^-2m atan(e^-m), c = 1 + 2 log 2
    var = C.LAPLACE_INTEGRAL.limits[0][0]
    with mpmath.workdps(50):
        x = mpmath.mpf(m)
        f = sp.lambdify(var, C.LAPLACE_INTEGRAL.function, "mpmath")(x)
        u = mpmath.exp(-x)
        g = ((1 + 2 * mpmath.log(2) - mpmath.log(1 + u * u)) * u - mpmath.pi / 2 * u * u
             + 2 * u * u * mpmath.atan(u))
        assert abs(f - g) <= mpmath.mpf(10) ** -45 * max(1, abs(g))


@pytest.mark.parametrize("integral", list(C.NORMAL_INTEGRALS))
def test_normal_integrand_on_balls_is_the_closed_form(integral):
    # the integrand on balls, written out in special_integrals.py, against the sympy integrand
    # it stands for (evaluated by mpmath at 50 digits) at three points inside the range
    from flint import acb

    var, a, b = integral.limits[0]
    f = C._normal_integrand_ball(C._NORMAL_SIGN[integral])
    g = sp.lambdify(var, integral.function, "mpmath")
    for t in (sp.Rational(1, 7), sp.Rational(1, 2), sp.Rational(6, 7)):
        theta = a + t * (b - a)
        with working_precision(200):
            ball = f(acb(arb_of(theta)), False).real
            assert ball.rad() < 1e-40
            mid = ball.mid().str(50, radius=False)
        with mpmath.workdps(50):
            mid = mpmath.mpf(mid)
            exact = g(mpmath.mpf(sp.N(theta, 55)))
            assert abs(mid - exact) < mpmath.mpf(10) ** -35 * max(1, abs(exact))
