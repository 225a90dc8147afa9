"""Logarithms of normal tails and of normal smoothings (theory/polyexp.py log_gauss_smooth,
tail_integral; theory/univariate.py Normal and GaussPE log branches) against independent routes:
closed forms evaluated by mpmath at 200 digits, and mpmath quadrature on a fine grid."""

from fractions import Fraction as Q

import mpmath
import pytest
from flint import acb, arb

from fstheory.theory.balls import ball
from fstheory.theory.polyexp import PolyExp, tail_integral
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.univariate import GaussPE, Normal

BITS = 150
S = Q(3, 10)


@pytest.fixture(autouse=True)
def _digits():
    with mpmath.workdps(60):
        yield


def _mp(q):
    return mpmath.mpf(q.numerator) / q.denominator


def _value(b):
    return mpmath.mpf(b.real.mid().str(60, radius=False)) if isinstance(b, acb) else mpmath.mpf(
        b.mid().str(60, radius=False))


def _uniform_refs(x, s):
    """ln sf, ln cdf, ln pdf of N(0, s^2) + Unif(-1, 1) at x: sf = s/2 (H((x-1)/s) - H((x+1)/s)),
    H(t) = int_t^oo Phi-bar = phi(t) - t Phi-bar(t), at 200 digits (the cancellation is far
    below them)."""
    with mpmath.workdps(200):
        def H(t):
            return mpmath.npdf(t) - t * mpmath.ncdf(-t)
        sf = s / 2 * (H((x - 1) / s) - H((x + 1) / s))
        cdf = s / 2 * (H(-(x + 1) / s) - H(-(x - 1) / s))
        pdf = (mpmath.ncdf(-(x - 1) / s) - mpmath.ncdf(-(x + 1) / s)) / 2
        return [mpmath.log(v) for v in (sf, cdf, pdf)]


def _laplace_refs(x, s):
    """The same for N(0, s^2) + Laplace(0, 1/2), by mpmath quadrature on a grid of step s/4
    around the peak of each integrand (an independent route: no closed form)."""
    with mpmath.workdps(50):
        dens = lambda y: mpmath.exp(-2 * abs(y))  # noqa: E731
        grid = sorted({mpmath.mpf(0), *[x + s * j / 4 for j in range(-60, 61)]})
        pts = [-mpmath.inf, *[g for g in grid], mpmath.inf]
        pts = sorted(set(pts))
        sf = mpmath.quad(lambda y: dens(y) * mpmath.ncdf(-(x - y) / s), pts)
        cdf = mpmath.quad(lambda y: dens(y) * mpmath.ncdf((x - y) / s), pts)
        pdf = mpmath.quad(lambda y: dens(y) * mpmath.npdf(x - y, 0, s), pts)
        return [mpmath.log(v) for v in (sf, cdf, pdf)]


def _law(pe):
    return GaussPE(Normal(arb(0), ball(S), Q(0), None), pe)


@pytest.mark.parametrize("x", [Q(-9), Q(-7), Q(-2), Q(0), Q(1, 2), Q(17, 10), Q(5), Q(9)])
def test_log_tails_of_normal_plus_uniform_to_40_digits(x):
    """ln sf, ln cdf, ln pdf of N(0, 0.09) + Unif(-1, 1) down to e^-400, at real points and
    on a complex ball (whose enclosure must contain the value at its centre)."""
    refs = _uniform_refs(_mp(x), _mp(S))
    with flint_precision(BITS):
        law = _law(PolyExp.uniform(Q(-1), Q(1)))
        x0 = ball(x)
        for branch, ref in zip((law.log_sf_branch, law.log_cdf_branch, law.log_pdf_branch), refs):
            got = branch(x0)(acb(x0))
            assert got.real.rad() < arb(10) ** -38 * max(1, abs(float(ref)))
            assert abs(_value(got) - ref) < mpmath.mpf(10) ** -38 * max(1, abs(ref))
            wide = branch(x0)(acb(arb(x0, "0.01"), arb(0, "0.01")))
            assert wide.is_finite() and wide.real.contains(arb(mpmath.nstr(ref, 50)))


# slow: the quadrature reference costs 5 s per point (the engine's side, milliseconds); the
# edit loop keeps the normal + uniform tails above, on the same GaussPE branches
@pytest.mark.slow
@pytest.mark.parametrize("x", [Q(-7), Q(-2), Q(1, 2), Q(17, 10), Q(5)])
def test_log_tails_of_normal_plus_laplace_to_30_digits(x):
    refs = _laplace_refs(_mp(x), _mp(S))
    with flint_precision(BITS):
        law = _law(PolyExp.laplace(Q(0), Q(1, 2)))
        x0 = ball(x)
        for branch, ref in zip((law.log_sf_branch, law.log_cdf_branch, law.log_pdf_branch), refs):
            got = branch(x0)(acb(x0))
            assert abs(_value(got) - ref) < mpmath.mpf(10) ** -30 * max(1, abs(ref))


@pytest.mark.parametrize("t", [Q(1), Q(3), Q(12), Q(40), Q(300)])
def test_log_normal_tail_by_erfcx(t):
    """ln Phi-bar(t) of N(0, 1) as -t^2/2 + ln(erfcx(t/sqrt 2)/2), against mpmath's erfc at
    the point and on a complex ball."""
    with mpmath.workdps(60):
        ref = mpmath.log(mpmath.erfc(_mp(t) / mpmath.sqrt(2)) / 2)
    with flint_precision(BITS):
        law = Normal(arb(0), arb(1), Q(0), 1)
        x0 = ball(t)
        got = law.log_sf_branch(x0)(acb(x0))
        assert abs(_value(got) - ref) < mpmath.mpf(10) ** -38 * abs(ref)
        mirror = law.log_cdf_branch(-x0)(acb(-x0))
        assert abs(_value(mirror) - ref) < mpmath.mpf(10) ** -38 * abs(ref)
        wide = law.log_sf_branch(x0)(acb(arb(x0, "0.01"), arb(0, "0.01")))
        assert wide.is_finite() and wide.real.contains(arb(mpmath.nstr(ref, 50)))


@pytest.mark.parametrize("i", [0, 1, 2, 3])
@pytest.mark.parametrize("a", [Q(1, 2), Q(3), Q(50)])
def test_tail_integral_against_quadrature(i, a):
    """K_i(a) = int_0^oo v^i e^(-a v - v^2/2) dv, and its enclosure of a ball contains the
    values at the ball's points."""
    with mpmath.workdps(50):
        ref = mpmath.quad(lambda v: v**i * mpmath.exp(-_mp(a) * v - v * v / 2), [0, 1, mpmath.inf])
        near = mpmath.quad(lambda v: v**i * mpmath.exp(-(_mp(a) + mpmath.mpc("0.004", "-0.003")) * v - v * v / 2),
                           [0, 1, mpmath.inf])
    with flint_precision(BITS):
        got = tail_integral(i, ball(a))
        assert abs(_value(got) - ref) < mpmath.mpf(10) ** -40 * ref
        wide = tail_integral(i, acb(arb(ball(a), "0.005"), arb(0, "0.005")))
        assert wide.real.contains(arb(mpmath.nstr(near.real, 45)))
        assert wide.imag.contains(arb(mpmath.nstr(near.imag, 45)))


def _mixed_mi_reference(k):
    """MI(C, X) of scenarios/mixed.toml (X Laplace(0, 1/2), Y N(0, 1), Z Unif(-1, 1), C = 1{X +
    kY + Z >= 0}) by a route of its own: P(C = 1 | X = x) = k/2 (G((x+1)/k) - G((x-1)/k)) with
    G(t) = t Phi(t) + phi(t) at 60 digits, H(C) = ln 2 and the symmetry x -> -x, then mpmath
    quadrature on [0, 80] (the rest is below e^-160)."""
    with mpmath.workdps(60):
        k = mpmath.mpf(k)

        def G(t):
            return t * mpmath.ncdf(t) + mpmath.npdf(t)

        def q1(x):
            return k / 2 * (G((x + 1) / k) - G((x - 1) / k))

        def hb(x):
            a, b = q1(x), q1(-x)
            return -(a * mpmath.log(a) + b * mpmath.log(b))

        pts = [0, 0.25, 0.5, 1, 1.5, 2, 3, 4, 6, 10, 20, 40, 80]
        return mpmath.log(2) - 2 * mpmath.quad(lambda x: mpmath.exp(-2 * x) * hb(x), pts)


@pytest.mark.slow
@pytest.mark.parametrize("k", ["0.3", "0.8"])
def test_mixed_scenario_mi_with_x_is_proved(k):
    """The class probability given X is a normal smoothing of a uniform law, far in its tails
    on most of X's range: its logarithm on complex balls (above) lets certified quadrature
    prove MI(C, X) to 34 digits, where it used to fall back to an estimate."""
    import sympy as sp

    from fstheory.theory.laws import Laplace, Normal as NormalLaw, Uniform
    from fstheory.theory.numeric import NumericRoute
    from fstheory.theory.rule import Rule

    X, Y, Z = sp.symbols("X Y Z", real=True)
    route = NumericRoute({X: Laplace(0, sp.Rational(1, 2)), Y: NormalLaw(0, 1), Z: Uniform(-1, 1)},
                         Rule.from_linear({X: 1, Y: sp.Rational(k), Z: 1}, 0))
    with mpmath.workdps(36):
        got = route.mi_class(X)
    ref = _mixed_mi_reference(k)
    assert got.certified
    assert got.error < mpmath.mpf(10) ** -34
    assert abs(got.value - ref) <= got.error


def _pieces_law(kind):
    """N(1/3, s^2) + P for poly-exponential laws P with polynomial pieces (convolutions)."""
    from fstheory.theory.polyexp import PolyExp as P

    pe = {"laplace+exp": P.laplace(Q(1, 2), Q(1)).convolve(P.exponential(Q(2))),
          "laplace+laplace": P.laplace(Q(0), Q(1, 3)).convolve(P.laplace(Q(1), Q(1, 3))),
          "uniform*3": P.uniform(Q(-1), Q(1)).convolve(P.uniform(Q(0), Q(1, 2))).convolve(
              P.uniform(Q(-1, 4), Q(1, 4)))}[kind]
    return GaussPE(Normal(ball(Q(1, 3)), ball(Q(1, 4)), Q(1, 3), None), pe)


@pytest.mark.parametrize("kind", ["laplace+exp", "laplace+laplace", "uniform*3"])
@pytest.mark.parametrize("x", [Q(-6), Q(-3, 2), Q(1, 3), Q(2), Q(7)])
def test_log_branches_agree_with_the_moments_at_high_precision(kind, x):
    """On real points the truncated-moment form (polyexp.gauss_smooth) is exact, its
    cancellation only costs bits: at 1200 bits it is a second route for the tail form at 150."""
    with flint_precision(1200):
        law = _pieces_law(kind)
        x0 = ball(x)
        refs = [law.sf_branch(x0)(x0).log(), law.cdf_branch(x0)(x0).log(),
                law.pdf_branch(x0)(x0).log()]
        assert all(r.rad() < arb(10) ** -60 for r in refs)
    with flint_precision(BITS):
        law = _pieces_law(kind)
        x0 = ball(x)
        for branch, ref in zip((law.log_sf_branch, law.log_cdf_branch, law.log_pdf_branch), refs):
            got = branch(x0)(acb(x0)).real
            assert got.rad() < arb(10) ** -38 * max(1, abs(ref.mid()))
            assert got.overlaps(ref) and abs(got.mid() - ref.mid()) < arb(10) ** -38 * max(1, abs(ref.mid()))
            wide = branch(x0)(acb(arb(x0, "0.003"), arb(0, "0.003")))
            assert wide.is_finite() and wide.real.overlaps(ref)


def _laplace_normal_cdf(x, b):
    """CDF of Laplace(0, b) + N(0, 1) in closed form (normal smoothing of each exponential
    side, completed squares)."""
    return (mpmath.ncdf(x) - mpmath.exp(-x / b + 1 / (2 * b * b)) * mpmath.ncdf(x - 1 / b) / 2
            + mpmath.exp(x / b + 1 / (2 * b * b)) * mpmath.ncdf(-x - 1 / b) / 2)


def _mixed_sum_entropy_reference():
    """h(2X - 3Y + Z), X Laplace(0, 1), Y Unif(-1, 1), Z N(0, 1): with A = 2X + Z, the density is
    (F_A(s + 3) - F_A(s - 3)) / 6 (each tail from the CDF's symmetric form), integrated by
    mpmath on [-240, 240] (the rest is below e^-115)."""
    b = mpmath.mpf(2)

    def f(s):
        if s > 0:
            s = -s
        return (_laplace_normal_cdf(s + 3, b) - _laplace_normal_cdf(s - 3, b)) / 6

    return -mpmath.quad(lambda s: f(s) * mpmath.log(f(s)), mpmath.linspace(-240, 240, 193))


def _mixed_sum_mi_reference():
    """MI(C, X) for C = 1{X + Y/2 + Z >= 0} (laws as above): P(C = 1 | X = x) = G(x + 1/2) -
    G(x - 1/2), G(t) = t Phi(t) + phi(t), H(C) = ln 2 and the symmetry x -> -x."""
    def G(t):
        return t * mpmath.ncdf(t) + mpmath.npdf(t)

    def hb(x):
        a, c = G(x + 0.5) - G(x - 0.5), G(-x + 0.5) - G(-x - 0.5)
        return -(a * mpmath.log(a) + c * mpmath.log(c))

    pts = [0, 0.5, 1, 2, 3, 5, 8, 12, 20, 40, 100, 200]
    return mpmath.log(2) - mpmath.quad(lambda x: mpmath.exp(-x) * hb(x), pts)


@pytest.mark.slow
def test_entropy_and_class_mi_of_a_normal_smoothing_are_proved():
    """h(2X - 3Y + Z) integrates -f ln f with ln f from the tail form, split where its
    formulas change (it used to fall back to an estimate over one piece [-194, 194]); MI(C, X)
    with a normal-plus-uniform rest likewise. Both to 34 digits against mpmath routes."""
    import sympy as sp

    from fstheory.theory.laws import Laplace, Normal as NormalLaw, Uniform
    from fstheory.theory.numeric import NumericRoute
    from fstheory.theory.rule import Rule

    X, Y, Z = sp.symbols("X Y Z", real=True)
    route = NumericRoute({X: Laplace(0, 1), Y: Uniform(-1, 1), Z: NormalLaw(0, 1)},
                         Rule.from_linear({X: 1, Y: sp.Rational(1, 2), Z: 1}, 0))
    with mpmath.workdps(36):
        h = route.entropy(2 * X - 3 * Y + Z)
        mi = route.mi_class(X)
    for got, ref in ((h, _mixed_sum_entropy_reference()), (mi, _mixed_sum_mi_reference())):
        assert got.certified and got.error < mpmath.mpf(10) ** -34
        assert abs(got.value - ref) <= got.error


def test_class_entropy_through_a_numerical_convolution_is_proved():
    """H(C) for C = 1{X + Y/2 >= 1}, X, Y logistic: the law of X + Y/2 is a numerical
    convolution, whose survival function at the threshold is now one certified integral of
    closed branches (it was an estimate, so every MI(C, V) of such a rule was only estimated).
    Second route: mpmath quadrature of f_X(x) P(Y > 2(1 - x)) at 50 digits."""
    import sympy as sp

    from fstheory.theory.laws import Logistic
    from fstheory.theory.numeric import NumericRoute
    from fstheory.theory.rule import Rule

    X, Y = sp.symbols("X Y", real=True)
    route = NumericRoute({X: Logistic(0, 1), Y: Logistic(0, 1)},
                         Rule.from_linear({X: 1, Y: sp.Rational(1, 2)}, -1))
    with mpmath.workdps(36):
        got = route.class_entropy()
    with mpmath.workdps(50):
        def pdf(t):
            return mpmath.exp(-abs(t)) / (1 + mpmath.exp(-abs(t))) ** 2

        p = mpmath.quad(lambda x: pdf(x) / (1 + mpmath.exp(2 * (1 - x))),
                        [-mpmath.inf, -20, 0, 1, 20, mpmath.inf])
        ref = -(p * mpmath.log(p) + (1 - p) * mpmath.log(1 - p))
        assert got.certified and got.error < mpmath.mpf(10) ** -34
        assert abs(got.value - ref) <= got.error


def test_entropy_of_the_square_of_a_logistic_variable():
    """h(X^2) = h(X) + E ln|X| for X symmetric (2 E ln|2X| ... the fold's ln 2 cancels the
    Jacobian's): the band at the singular point x = 0 needs a bound of the density on a ball
    touching 0, which the logistic density now gives (it was nan, and h(X^2) refused).
    Second route: h(X) = 2 and E ln|X| by mpmath quadrature."""
    import sympy as sp

    from fstheory.theory.laws import Logistic
    from fstheory.theory.numeric import NumericRoute

    X = sp.Symbol("X", real=True)
    route = NumericRoute({X: Logistic(0, 1)}, None)
    with mpmath.workdps(36):
        got = route.entropy(X**2)
    with mpmath.workdps(45):
        def f(x):
            return mpmath.exp(-x) / (1 + mpmath.exp(-x)) ** 2

        ref = 2 + 2 * mpmath.quad(lambda x: mpmath.log(x) * f(x),
                                  [0, 1e-10, 1e-5, 1e-2, 1, 10, 50, 200])
        assert got.certified and got.error < mpmath.mpf(10) ** -30
        assert abs(got.value - ref) <= got.error
    with flint_precision(BITS):
        from fstheory.theory.univariate import Logistic as LogisticLaw

        law = LogisticLaw(Q(0), Q(1))
        band = law.pdf(arb(0, 1))  # contains the density on [-1, 1], whose largest value is 1/4
        assert band.is_finite() and band.contains(arb(1) / 4) and band.upper() <= 1


@pytest.mark.parametrize("power, ref", [
    (3, lambda: 1 + mpmath.log(2) + mpmath.log(3) - 2 * mpmath.euler),
    (2, lambda: 1 + mpmath.log(2) - mpmath.euler)])
def test_entropy_of_a_power_with_a_multiple_zero_of_its_derivative(power, ref):
    """h(Y^3) = h(Y) + ln 3 + 2 E ln|Y| for Y Laplace(0, 1) (E ln|Y| = -gamma): the derivative
    3Y^2 has a double zero, whose logarithmic singularity is now banded like a simple one
    (m ln|y| + ln|h|); it used to be an estimate. h(Y^2) = h(Y) - gamma likewise."""
    import sympy as sp

    from fstheory.theory.laws import Laplace
    from fstheory.theory.numeric import NumericRoute

    Y = sp.Symbol("Y", real=True)
    route = NumericRoute({Y: Laplace(0, 1)}, None)
    with mpmath.workdps(36):
        got = route.entropy(Y**power)
    with mpmath.workdps(45):
        assert got.certified and got.error < mpmath.mpf(10) ** -30
        assert abs(got.value - ref()) <= got.error


@pytest.mark.parametrize("feature, ref", [
    ("log(X)", lambda: 1 + mpmath.euler),
    ("sqrt(Y)", lambda: 1 - 2 * mpmath.log(2) + (mpmath.euler + mpmath.log(2)) / 2)])
def test_entropy_of_a_map_whose_derivative_has_a_pole(feature, ref):
    """h(ln X) = h(X) - E ln X = 1 + gamma for X ~ Exp(1); h(sqrt Y) = h(Y) - ln 2 - E ln(Y)/2
    for Y ~ Exp(2) (E ln Y = -gamma - ln 2): ln|g'| = -ln x or -ln 2 - ln(y)/2 has a
    logarithmic singularity at the support's end, now banded (a pole or a power of x, not only
    a polynomial's zero); they used to be estimates."""
    import sympy as sp

    from fstheory.theory.laws import Exponential
    from fstheory.theory.numeric import NumericRoute

    X, Y = sp.symbols("X Y", real=True)
    route = NumericRoute({X: Exponential(1), Y: Exponential(2)}, None)
    with mpmath.workdps(36):
        got = route.entropy(sp.sympify(feature, locals={"X": X, "Y": Y}))
    with mpmath.workdps(45):
        assert got.certified and got.error < mpmath.mpf(10) ** -30
        assert abs(got.value - ref()) <= got.error
