"""Every closed-form law entropy and CDF against the numerical integral of its own density."""

import mpmath
import pytest
import sympy as sp

from fstheory.theory.laws import (
    BASE_LAWS,
    Exponential,
    Laplace,
    LawParameterError,
    Logistic,
    Normal,
    LaplaceSum,
    ScaledChiSquared1,
    SquareOfLaplace,
    SkewNormal,
    SquareOfUniform,
    Triangular,
    Uniform,
)

R = sp.Rational
LAWS = [
    Uniform(-R(1, 2), R(1, 2)),
    Uniform(1, 4),
    Normal(0, 1),
    Normal(2, R(1, 3)),
    Laplace(0, R(1, 2)),
    Laplace(1, 2),
    Logistic(0, 1),
    Logistic(-1, R(3, 10)),
    Exponential(1),
    Exponential(R(7, 2)),
    Triangular(-1, 1, 0),
    Triangular(0, 3, 1),
    SquareOfUniform(R(1, 2)),
    SquareOfUniform(2),
    ScaledChiSquared1(1),
    ScaledChiSquared1(R(1, 25)),
    SquareOfLaplace(R(1, 2)),
    SquareOfLaplace(3),
    LaplaceSum(0, R(1, 2)),
    LaplaceSum(3, 2),
]
x = sp.Symbol("x", real=True)


def _integrate(law, g):
    """int g(f(t), t) dt over the support; for the laws of squares, with t = s^2 (the density's
    1/sqrt(t) singularity at 0 then disappears and tanh-sinh reaches full precision)."""
    f = sp.lambdify(x, law.pdf(x), "mpmath")
    if isinstance(law, (SquareOfUniform, ScaledChiSquared1, SquareOfLaplace)):
        lo, hi = law.support()
        top = mpmath.sqrt(mpmath.mpf(sp.N(hi, 40))) if hi.is_finite else mpmath.inf
        return mpmath.quad(lambda s: g(f(s * s), s * s) * 2 * s, [0, top])
    return mpmath.quad(lambda t: g(f(t), t), _points(law))


def _points(law):
    lo, hi = law.support()
    pts = [mpmath.mpf(sp.N(p, 40)) if p.is_finite else (mpmath.inf if p > 0 else -mpmath.inf)
           for p in (lo, hi)]
    return [pts[0], *[mpmath.mpf(sp.N(p, 40)) for p in law.breakpoints()], pts[1]]


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_entropy_closed_form_equals_integral_of_minus_f_ln_f(law):
    with mpmath.workdps(40):
        numeric = _integrate(law, lambda fx, t: -fx * mpmath.log(fx))
        closed = mpmath.mpf(sp.N(law.entropy(), 40))
        assert abs(numeric - closed) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("law", LAWS, ids=repr)
def test_density_integrates_to_one(law):
    with mpmath.workdps(40):
        assert abs(_integrate(law, lambda fx, t: fx) - 1) < mpmath.mpf(10) ** -30


@pytest.mark.parametrize("law", [l for l in LAWS if l.cdf(x) is not None], ids=repr)
def test_cdf_is_the_integral_of_the_density(law):
    f = sp.lambdify(x, law.pdf(x), "mpmath")
    F = sp.lambdify(x, law.cdf(x), "mpmath")
    pts = _points(law)
    with mpmath.workdps(40):
        lo = pts[0]
        inner = [p for p in pts[1:-1]]
        for q in (mpmath.mpf("0.25"), mpmath.mpf("0.6")):
            # a point inside the support
            t = q if not mpmath.isfinite(lo) else lo + q * (min(pts[-1], lo + 3) - lo)
            if isinstance(law, (SquareOfUniform, ScaledChiSquared1, SquareOfLaplace)):
                val = mpmath.quad(lambda s: f(s * s) * 2 * s, [0, mpmath.sqrt(t)])
            else:
                val = mpmath.quad(f, [lo, *[p for p in inner if p < t], t])
            assert abs(val - F(t)) < mpmath.mpf(10) ** -30


def test_skew_normal_density_integrates_to_one_and_has_azzalini_mean():
    law = SkewNormal(0, 1, 3)
    f = sp.lambdify(x, law.pdf(x), "mpmath")
    with mpmath.workdps(30):
        assert abs(mpmath.quad(f, [-mpmath.inf, 0, mpmath.inf]) - 1) < 1e-25
        mean = mpmath.quad(lambda t: t * f(t), [-mpmath.inf, 0, mpmath.inf])
        # E[SN(0,1,a)] = sqrt(2/pi) a / sqrt(1 + a^2)
        assert abs(mean - mpmath.sqrt(2 / mpmath.pi) * 3 / mpmath.sqrt(10)) < 1e-25


@pytest.mark.parametrize(
    "law, name",
    [(Normal(0, -1), "sigma"), (Laplace(0, 0), "b"), (Logistic(1, -2), "s")],
)
def test_non_positive_scale_is_rejected_naming_the_parameter(law, name):
    with pytest.raises(LawParameterError, match=f"'{name}' must be > 0"):
        law.check()


def test_uniform_needs_low_below_high():
    with pytest.raises(LawParameterError, match="low < high"):
        Uniform(1, 1).check()


def test_registry_of_base_laws():
    assert sorted(BASE_LAWS) == ["exponential", "laplace", "logistic", "normal", "uniform"]


@pytest.mark.parametrize("a", [R(3), R(-2), R(1, 7)])
def test_affine_image_of_uniform_keeps_width_for_either_sign(a):
    law = Uniform(-R(1, 2), R(1, 2)).affine(a, R(1))
    assert law.params[1] - law.params[0] == abs(a)
    assert law.entropy() == sp.log(abs(a))
