"""A logistic plus a uniform, Laplace or exponential variable in closed form
(theory/logistic_sum.py): density, cdf and survival function against mpmath's quadrature of
the convolution integral, and h(X + Z) certified against the numerical convolution (the
estimated second route)."""

from fractions import Fraction as Q

import mpmath
import pytest
import sympy as sp
from flint import acb, arb

from fstheory.theory.balls import ball
from fstheory.theory.integrands import law_entropy
from fstheory.theory.law1d import Convolved, Logistic, PELaw
from fstheory.theory.laws import Exponential, Laplace, Uniform
from fstheory.theory.laws import Logistic as LogisticLaw
from fstheory.theory.logistic_sum import LogisticPair, LogisticPE, logistic_plus
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.polyexp import PolyExp
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.univariate import Accuracy, base_law, linear_combination

X, Z = sp.symbols("X Z", real=True)
BITS = 200


def _mp(q):
    return mpmath.mpf(q.numerator) / q.denominator


# (logistic mu, s), X's law as PolyExp (built at the test's precision), X's density for mpmath, X's support pieces
CASES = {
    "exp(1) + logistic(0, 1/2)": ((Q(0), Q(1, 2)), lambda: PolyExp.exponential(Q(1)),
                                  lambda x: mpmath.exp(-x), [0, mpmath.inf]),
    "unif(-1, 1) + logistic(0, 1)": ((Q(0), Q(1)), lambda: PolyExp.uniform(Q(-1), Q(1)),
                                     lambda x: mpmath.mpf(1) / 2, [-1, 1]),
    "laplace(1, 1/2) + logistic(1/3, 2)": ((Q(1, 3), Q(2)), lambda: PolyExp.laplace(Q(1), Q(1, 2)),
                                           lambda x: mpmath.exp(-2 * abs(x - 1)),
                                           [-mpmath.inf, 1, mpmath.inf]),
    # rate * scale = 1 and 3: the beta parameters b = 0, -2 (the limit forms)
    "exp(1) + logistic(0, 1)": ((Q(0), Q(1)), lambda: PolyExp.exponential(Q(1)),
                                lambda x: mpmath.exp(-x), [0, mpmath.inf]),
    "exp(3) + logistic(0, 1)": ((Q(0), Q(1)), lambda: PolyExp.exponential(Q(3)),
                                lambda x: 3 * mpmath.exp(-3 * x), [0, mpmath.inf]),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_density_cdf_and_sf_against_the_convolution_integral(name):
    (mu, s), pe, fx, support = CASES[name]
    # mpmath at 70 digits: at 45 its quadrature of the far tails was seen off in the 33rd
    with flint_precision(BITS), mpmath.workdps(70):
        mu_, s_ = _mp(mu), _mp(s)
        law = logistic_plus(Logistic(mu, s), PELaw(pe()))
        assert isinstance(law, LogisticPE)

        def logistic_pdf(z):
            e = mpmath.exp(-abs(z - mu_) / s_)
            return e / (s_ * (1 + e) ** 2)

        def logistic_cdf(z):
            return 1 / (1 + mpmath.exp(-(z - mu_) / s_))

        for v in (-30, -1, Q(3, 10), 9, 40):
            v_ = _mp(Q(v))
            pts = sorted({*support, *[p for p in (v_ - mu_ - 5, v_ - mu_, v_ - mu_ + 5)
                                      if support[0] < p < support[-1]]})
            ref_pdf = mpmath.quad(lambda x, v_=v_: fx(x) * logistic_pdf(v_ - x), pts)
            ref_cdf = mpmath.quad(lambda x, v_=v_: fx(x) * logistic_cdf(v_ - x), pts)
            ref_sf = mpmath.quad(lambda x, v_=v_: fx(x) * logistic_cdf(x - v_ + 2 * mu_), pts)
            for got, ref in ((law.pdf(ball(Q(v))), ref_pdf), (law.cdf(ball(Q(v))), ref_cdf),
                             (law.sf(ball(Q(v))), ref_sf)):
                assert got.rad() < abs(ref) * arb(10) ** -40
                rel = abs(mpmath.mpf(got.mid().str(50, radius=False)) - ref) / ref
                assert rel < mpmath.mpf(10) ** -38, (name, v, rel)


def test_linear_combinations_take_the_closed_law_and_negative_weights():
    """-2 X + Z + 1 for X ~ Exp(2) (a piece towards -inf after the sign change): the closed
    density against the integral over X's law."""
    acc = Accuracy.from_bits(BITS)
    with flint_precision(BITS), mpmath.workdps(45):
        law = linear_combination({X: -2, Z: 1}, 1, {X: Exponential(2), Z: LogisticLaw(0, 1)}, acc)
        assert isinstance(law, LogisticPE) and law.closed
        for v in ("-3", "0.5", "4"):
            v_ = mpmath.mpf(v)

            def integrand(x, v_=v_):  # density of Z at v - 1 + 2x, X ~ Exp(2)
                z = v_ - 1 + 2 * x
                return 2 * mpmath.exp(-2 * x) * mpmath.exp(-abs(z)) / (1 + mpmath.exp(-abs(z))) ** 2
            ref = mpmath.quad(integrand, sorted({0, max(0, (1 - v_) / 2), mpmath.inf}))
            got = law.pdf(arb(v))
            assert abs(mpmath.mpf(got.mid().str(50, radius=False)) - ref) < mpmath.mpf(10) ** -38


def test_laws_with_powers_of_x_stay_numerical():
    """Exp(1) + Exp(1) has the term x e^(-x): no incomplete beta form, the convolution stays."""
    two = PolyExp.exponential(Q(1)).convolve(PolyExp.exponential(Q(1)))
    assert logistic_plus(Logistic(Q(0), Q(1)), PELaw(two)) is None


def test_the_strip_of_analyticity_is_guarded():
    """The logistic density has poles at Im t = +-pi: a complex ball reaching the strip's edge
    |Im v| = pi s gives a non-finite value (certified quadrature must not cross it)."""
    with flint_precision(BITS):
        law = logistic_plus(Logistic(Q(0), Q(1, 2)), PELaw(PolyExp.exponential(Q(1))))
        assert law.pdf_branch(arb(0))(acb(0, "1.5")).is_finite()
        assert not law.pdf_branch(arb(0))(acb(0, "1.6")).is_finite()


@pytest.mark.slow
def test_entropy_certified_and_the_numerical_convolution_agrees():
    """h(X + Z), X ~ Exp(1), Z ~ Logistic(0, 1/2): certified by the numerical route at 30
    digits; the numerical convolution (double-exponential outer quadrature, estimated) gives
    the same value to 18 digits."""
    route = NumericRoute({X: Exponential(1), Z: LogisticLaw(0, Q(1, 2))})
    with mpmath.workdps(36):
        r = route.entropy(X + Z)
    assert r.certified and r.error < mpmath.mpf(10) ** -30
    acc = Accuracy.from_bits(100, 20)
    with flint_precision(100):
        conv = Convolved(base_law(LogisticLaw(0, Q(1, 2)), acc), base_law(Exponential(1), acc),
                         acc)
        v, e, _how, proved = law_entropy(conv, acc)
    assert not proved
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(v.mid().str(30, radius=False)) - r.value) < mpmath.mpf(10) ** -18


def test_mixed_uniform_sum_entropy_against_mpmath():
    """h(X + Z), X ~ Unif(-1, 1), Z ~ Logistic(0, 1): f = (F(v + 1) - F(v - 1))/2 with F the
    logistic cdf; -int f ln f by mpmath at 45 digits."""
    route = NumericRoute({X: Uniform(-1, 1), Z: LogisticLaw(0, 1)})
    with mpmath.workdps(36):
        r = route.entropy(X + Z)
    assert r.certified
    with mpmath.workdps(45):
        def f(v):
            # F(a) - F(b) = sinh((a - b)/2) / (2 cosh(a/2) cosh(b/2)): no cancellation
            return mpmath.sinh(1) / (4 * mpmath.cosh((v + 1) / 2) * mpmath.cosh((v - 1) / 2))
        # beyond |v| = 300, f < e^-299: no digit of the 30 checked
        ref = mpmath.quad(lambda v: -f(v) * mpmath.log(f(v)), [-300, -20, -5, 0, 5, 20, 300])
        assert abs(r.value - ref) < mpmath.mpf(10) ** -30


def test_laplace_sum_keeps_its_law_family():
    law = linear_combination({X: 1, Z: 1}, 0, {X: Laplace(0, 1), Z: LogisticLaw(0, 1)},
                             Accuracy.from_bits(100))
    assert isinstance(law, LogisticPE)


def test_logistic_pair_against_the_closed_convolution():
    """X + Y for Logistic(1/3, 2) and Logistic(0, 2): density, cdf and sf against the
    literature's closed forms in z = (v - 1/3)/2 (mpmath at 80 digits, away from z = 0 where
    they cancel), and the exact values at the centre (the removable singularity): the density
    of 2 (L1 + L2) at 0 is (1/6)/2 = 1/12, the cdf 1/2."""
    Y = sp.Symbol("Y", real=True)
    with flint_precision(BITS), mpmath.workdps(80):
        law = linear_combination({X: 1, Y: 1}, 0, {X: LogisticLaw(Q(1, 3), 2),
                                                   Y: LogisticLaw(0, 2)}, Accuracy.from_bits(BITS))
        assert isinstance(law, LogisticPair)
        for v in ("-40", "-3", "0.2", "1", "5", "80"):
            z = (mpmath.mpf(v) - mpmath.mpf(1) / 3) / 2
            e = mpmath.exp(z)
            pdf = e * ((z - 2) * e + z + 2) / (e - 1) ** 3 / 2
            cdf = e * (e - 1 - z) / (e - 1) ** 2
            em = mpmath.exp(-z)
            sf = em * (em - 1 + z) / (em - 1) ** 2
            for got, ref in ((law.pdf(arb(v)), pdf), (law.cdf(arb(v)), cdf), (law.sf(arb(v)), sf)):
                rel = abs(mpmath.mpf(got.mid().str(70, radius=False)) - ref) / ref
                assert rel < mpmath.mpf(10) ** -45 and got.rad() < abs(got.mid()) * arb(10) ** -45
        centre = ball(Q(1, 3))
        assert abs(law.pdf(centre) - arb(1) / 12) < arb(10) ** -50
        assert abs(law.cdf(centre) - arb(1) / 2) < arb(10) ** -50
        assert abs(law.sf(centre) - arb(1) / 2) < arb(10) ** -50
        # a complex ball across the removable singularity stays finite and tight
        near = law.pdf_branch(centre)(acb(centre, 0) + acb(arb(0, "0.1"), arb(0, "0.1")))
        assert near.is_finite() and near.real.rad() < arb("0.01")


def test_logistic_difference_entropy():
    """h(X - Y), X, Y ~ Logistic(0, 1): certified, against mpmath's -int f ln f of the closed
    density (t cosh t - sinh t)/(2 sinh^3 t), t = v/2, at 120 digits (near t = 0 the series)."""
    Y = sp.Symbol("Y", real=True)
    route = NumericRoute({X: LogisticLaw(0, 1), Y: LogisticLaw(0, 1)})
    with mpmath.workdps(36):
        r = route.entropy(X - Y)
    assert r.certified
    with mpmath.workdps(120):
        def f(v):
            t = v / 2
            if abs(t) < mpmath.mpf(10) ** -25:
                return mpmath.mpf(1) / 6
            return (t * mpmath.cosh(t) - mpmath.sinh(t)) / (2 * mpmath.sinh(t) ** 3)
        with mpmath.workdps(50):
            ref = 2 * mpmath.quad(lambda v: -f(v) * mpmath.log(f(v)), [0, 1, 5, 20, 80, 300])
        assert abs(r.value - ref) < mpmath.mpf(10) ** -30
