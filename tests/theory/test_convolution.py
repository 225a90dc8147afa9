"""The convolution algebra (theory/polyexp.py, theory/univariate.py) and the quadrature it feeds:
algebraic laws checked with hypothesis, closed forms from the literature as second routes."""

from fractions import Fraction as Q

import mpmath
import pytest
import sympy as sp
from flint import arb, ctx
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.theory.budget import SymbolicTimeout, symbolic_budget
from fstheory.theory.laws import Exponential, Logistic, Normal
from fstheory.theory.polyexp import INF, PolyExp, gauss_smooth
from fstheory.theory.quadrature import certified, flint_precision, integrate, integrate_vector
from fstheory.theory.univariate import Accuracy, linear_combination

BITS = 120
TOL = arb(10) ** -28


def _arb(q):
    return arb(q.numerator) / q.denominator


def _mass(pe: PolyExp, moment: int = 0):
    lo, hi = pe.support
    lo = lo if lo != -INF else Q(-600)
    hi = hi if hi != INF else Q(600)
    pts = [_arb(p) for p in sorted({lo, hi, *[b for b in pe.breakpoints() if lo < b < hi]})]
    v, _ = integrate(lambda x: pe.value(x) * (x if moment else 1), pts, TOL)
    return v


rationals = st.fractions(min_value=Q(1, 4), max_value=Q(3), max_denominator=8)
signs = st.sampled_from([Q(1), Q(-1), Q(1, 2), Q(-3, 2)])


def _component(kind, scale, sign):
    if kind == "uniform":
        return PolyExp.uniform(-scale, scale / 2).affine(sign, Q(0)), sign * (-scale / 4)
    if kind == "laplace":
        return PolyExp.laplace(Q(1, 3), scale).affine(sign, Q(0)), sign * Q(1, 3)
    return PolyExp.exponential(1 / scale).affine(sign, Q(0)), sign * scale


@settings(max_examples=12, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["uniform", "laplace", "exponential"]), rationals, signs),
                min_size=2, max_size=3))
def test_sums_are_densities_with_additive_means(parts):
    """int f = 1 and E[sum] = sum of means, for random sums of scaled laws; convolution commutes."""
    with flint_precision(BITS):
        comps = [_component(*p) for p in parts]
        total = comps[0][0]
        for c, _ in comps[1:]:
            total = total.convolve(c)
        assert abs(_mass(total) - 1) < arb(10) ** -25
        mean = sum((m for _, m in comps), Q(0))
        assert abs(_mass(total, 1) - _arb(mean)) < arb(10) ** -24
        swapped = comps[1][0].convolve(comps[0][0])
        first = comps[0][0].convolve(comps[1][0])
        for x in ("-0.7", "0.1", "1.3"):
            assert abs(first.value(arb(x)) - swapped.value(arb(x))) < arb(10) ** -30


@settings(max_examples=8, deadline=None)
@given(rationals, rationals)
def test_cdf_plus_survival_is_one(a, b):
    with flint_precision(BITS):
        pe = PolyExp.laplace(Q(0), a).convolve(PolyExp.uniform(-b, b))
        cdf, sf = pe.cdf(), pe.sf()
        for x in ("-3", "-0.2", "0", "0.9", "4"):
            assert abs(cdf.value(arb(x)) + sf.value(arb(x)) - 1) < arb(10) ** -30


def test_three_uniforms_give_the_piecewise_quadratic_density():
    """U1 + U2 + U3, Ui ~ U(-1, 1): (3 - s^2)/8 on |s| <= 1, (3 - |s|)^2/16 on 1 <= |s| <= 3."""
    with flint_precision(BITS):
        u = PolyExp.uniform(Q(-1), Q(1))
        t = u.convolve(u).convolve(u)
        for s, f in (("0.5", (3 - arb("0.25")) / 8), ("-2", arb(1) / 16), ("2.5", arb("0.25") / 16)):
            assert abs(t.value(arb(s)) - f) < arb(10) ** -32


def test_normal_plus_uniform_density_and_tails():
    """N(0, 1) + U(-1, 1): f(z) = (Phi(z + 1) - Phi(z - 1))/2 (erfc form for precision); its
    survival function deep in the upper tail keeps full relative precision."""
    with flint_precision(BITS):
        u = PolyExp.uniform(Q(-1), Q(1))
        r2 = arb(2).sqrt()
        for z in ("0.3", "-4", "7"):
            zz = arb(z)
            expect = ((-(zz + 1) / r2).erfc() - (-(zz - 1) / r2).erfc()) / 4
            assert abs(gauss_smooth(u, arb(0), arb(1), zz) - expect) < arb(10) ** -32
        sf = gauss_smooth(u.sf(), arb(0), arb(1), arb(12))
        with mpmath.workdps(40):
            ref = mpmath.quad(lambda y: mpmath.ncdf(-(12 - y)) / 2, [-1, 1])
        assert abs(sf - arb(mpmath.nstr(ref, 40))) < sf * arb(10) ** -30


def test_linear_combination_of_normals_merges_exactly():
    X, Y = sp.symbols("X Y", real=True)
    laws = {X: Normal(1, 2), Y: Normal(-1, 3)}
    with flint_precision(BITS):
        law = linear_combination({X: 2, Y: -1}, 5, laws, Accuracy.from_bits(BITS))
        assert abs(law.m - 8) < arb(10) ** -30 and abs(law.s - arb(25).sqrt()) < arb(10) ** -30


def test_logistic_convolution_against_the_closed_density():
    """X + Y for i.i.d. Logistic(0, 1): f(x) = e^x ((x - 2) e^x + x + 2)/(e^x - 1)^3 (the one
    level of numerical convolution against a closed form)."""
    X, Y = sp.symbols("X Y", real=True)
    with flint_precision(BITS):
        law = linear_combination({X: 1, Y: 1}, 0, {X: Logistic(0, 1), Y: Logistic(0, 1)},
                                 Accuracy.from_bits(BITS))
        for x in ("0.7", "3", "-5"):
            t = arb(x)
            e = t.exp()
            closed = e * ((t - 2) * e + t + 2) / (e - 1) ** 3
            assert abs(law.pdf(t) - closed) < arb(10) ** -26


def test_exponential_sum_is_hypoexponential():
    """Exp(2) + Exp(3): density 6 (e^-2t - e^-3t); P(> t) = 3 e^-2t - 2 e^-3t."""
    X, Y = sp.symbols("X Y", real=True)
    with flint_precision(BITS):
        law = linear_combination({X: 1, Y: 1}, 0, {X: Exponential(2), Y: Exponential(3)},
                                 Accuracy.from_bits(BITS))
        t = arb("1.5")
        assert abs(law.pdf(t) - 6 * ((-2 * t).exp() - (-3 * t).exp())) < arb(10) ** -32
        assert abs(law.sf(t) - (3 * (-2 * t).exp() - 2 * (-3 * t).exp())) < arb(10) ** -32


def test_quadrature_endpoint_singularities_and_certified_bounds():
    with flint_precision(BITS):
        v, e = integrate(lambda x: x * x.log() if x > 0 else arb(0), [arb(0), arb(1)], TOL)
        assert abs(v + arb(1) / 4) < TOL and e < TOL
        v, e = integrate(lambda x: 1 / x.sqrt(), [arb(0), arb(1)], TOL)
        assert abs(v - 2) < arb(10) ** -20
        (a, b), _ = integrate_vector(lambda x: (x, x * x), [arb(0), arb(2)], TOL, 2)
        assert abs(a - 2) < TOL and abs(b - arb(8) / 3) < TOL
        v, e = certified(lambda m: (lambda z, an: (-z * z).exp()), [arb(-10), arb(10)], TOL)
        assert abs(v - arb.pi().sqrt()) < e + arb(10) ** -40 and e < TOL


def test_precision_and_budget_are_restored():
    before = ctx.prec
    with flint_precision(300):
        assert ctx.prec == 300
    assert ctx.prec == before
    import signal
    handler = signal.getsignal(signal.SIGPROF)
    with pytest.raises(SymbolicTimeout, match="a long step"):
        with symbolic_budget(0.05, "a long step"):
            while True:
                pass
    assert signal.getsignal(signal.SIGPROF) == handler


def test_numerical_convolution_cdf_and_survival():
    """Logistic(0, 1/2) + N(0, 1/5): CDF + SF = 1, and the CDF against mpmath's integral of the
    logistic density times the normal CDF (the tails beyond the normal's box included)."""
    X, Y = sp.symbols("X Y", real=True)
    with flint_precision(BITS):
        law = linear_combination({X: 1, Y: Q(1, 5)}, 0, {X: Logistic(0, Q(1, 2)), Y: Normal(0, 1)},
                                 Accuracy.from_bits(BITS))
        for x in ("-3", "0", "0.4", "6"):
            assert abs(law.cdf(arb(x)) + law.sf(arb(x)) - 1) < arb(10) ** -25
        with mpmath.workdps(30):
            f = lambda u: mpmath.exp(-2 * abs(u)) * 2 / (1 + mpmath.exp(-2 * abs(u))) ** 2  # noqa
            ref = mpmath.quad(lambda u: f(u) * mpmath.ncdf((mpmath.mpf("0.4") - u) * 5), [-60, 0, 0.4, 60])
        assert abs(law.cdf(arb("0.4")) - arb(mpmath.nstr(ref, 30))) < arb(10) ** -25
