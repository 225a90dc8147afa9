"""The numerical route's quantities for sets of features (the API the joint branch uses):
class_entropy, joint_entropy and mi_class_set, each against an independent second route."""

import mpmath
import pytest
import sympy as sp

from fstheory.scenarios.registry import get_scenario
from fstheory.theory.laws import Normal, Uniform
from fstheory.theory.numeric import NumericRoute, NumericUnsupported
from fstheory.theory.rule import Rule

X, Y, Z = sp.symbols("X Y Z", real=True)
R = sp.Rational


def hb(p):
    return -mpmath.fsum(t * mpmath.log(t) for t in (p, 1 - p) if t > 0)


def route_for(name, **params):
    bound = get_scenario(name).bind(**params)
    return NumericRoute(bound.laws(), bound.class_rule())


@pytest.mark.parametrize("k", ["0.2", "0.8"])
def test_scenario_one_pair_sets(k):
    """Scenario I: given (X, Y^2) the two preimages (x, +-y) weigh the same, so P(C = 1) is
    1/2 exactly where |x| < k|y| (probability k/2) and 0 or 1 elsewhere:
    MI(C; {X, Y^2}) = ln 2 (1 - k/2). {X, Y} determines C; {X, X^2} reduces to X."""
    r = route_for("uniform", k=k)
    with mpmath.workdps(30):
        kk = mpmath.mpf(k)
        assert abs(r.mi_class_set((X, Y**2)).value - mpmath.log(2) * (1 - kk / 2)) < mpmath.mpf(10) ** -25
        assert abs(r.mi_class_set((X, Y)).value - mpmath.log(2)) < mpmath.mpf(10) ** -25
        single = r.mi_class(X).value
        assert abs(r.mi_class_set((X, X**2)).value - single) < mpmath.mpf(10) ** -25
        assert abs(r.mi_class_set((X, Z + 2)).value - single) < mpmath.mpf(10) ** -25
        assert abs(single - (mpmath.log(2) - kk / 2)) < mpmath.mpf(10) ** -25
        assert r.class_entropy().value == mpmath.log(2)


def _polar_reference(k, wedge_test, q):
    """(1/2 pi) int over the wedge of G(2|q(t)|) dt, G(c) = int_0^oo e^-p H_b(sigma(c p)) dp
    = sum_n (-1)^(n+1) [1/(n (1 + n c)) + c/(1 + n c)^2] (expanding H_b(sigma(s)) =
    ln(1 + e^-s) + s e^-s/(1 + e^-s) in powers of e^-s): E[H_b] over i.i.d. N(0, 1) (x, y)
    of a function of s = r^2 q(t) on a wedge, in polar coordinates (r^2/2 ~ Exp(1))."""
    def G(c):
        if c == 0:
            return mpmath.log(2)
        return mpmath.nsum(lambda n: (-1) ** (n + 1) * (1 / (n * (1 + n * c)) + c / (1 + n * c) ** 2),
                           [1, mpmath.inf])

    pts = sorted({mpmath.mpf(0), mpmath.pi / 4, mpmath.pi / 2, mpmath.pi, 5 * mpmath.pi / 4,
                  3 * mpmath.pi / 2, 2 * mpmath.pi, mpmath.atan2(1, -k) % (2 * mpmath.pi),
                  mpmath.atan2(-1, k) % (2 * mpmath.pi), mpmath.atan2(1, 2 + k),
                  mpmath.atan2(-1, -(2 + k)) % (2 * mpmath.pi)})
    total = 0
    for a, b in zip(pts, pts[1:]):
        t = (a + b) / 2
        if wedge_test(mpmath.cos(t), mpmath.sin(t)):
            total += mpmath.quad(lambda t: G(2 * abs(q(t))), [a, b])
    return total / (2 * mpmath.pi)


@pytest.mark.slow
def test_scenario_two_square_and_difference_by_polar_coordinates():
    """MI(C; {Y^2, X - Y}) for i.i.d. N(0, 1), C = 1{X + kY >= 0}: the preimages (x, y) and
    (x - 2y, -y) weigh sigma(-/+ 2y(x - y)); P(C = 1 | .) is 0 or 1 except on the wedge where
    exactly one of x + ky >= 0, x - (2 + k) y >= 0 holds, where H_b = H_b(sigma(2y(x - y)))."""
    k = mpmath.mpf("0.2")
    r = route_for("normal", k="0.2")
    with mpmath.workdps(20):
        got = r.mi_class_set((Y**2, X - Y))
        ref = mpmath.log(2) - _polar_reference(
            k, lambda c, s: (c + k * s >= 0) != (c - (2 + k) * s >= 0),
            lambda t: 2 * mpmath.sin(t) * (mpmath.cos(t) - mpmath.sin(t)))
        # within the stated error, which is the integration's tolerance 10^-(20-6) at least
        assert abs(got.value - ref) <= got.error < mpmath.mpf(2) * mpmath.mpf(10) ** -14
        assert abs(got.value - ref) < mpmath.mpf(10) ** -16


@pytest.mark.slow
def test_joint_entropy_against_the_closed_pair_mi():
    """h(Y^2, X - Y) through MI(Y^2, X - Y) = h(Y^2) + h(X - Y) - h(Y^2, X - Y) against the
    closed form of the derivation (Scenario II, lncosh expectation); h(X, X - Y) = h(X) + h(Y)."""
    from fstheory.engine.evaluate import evaluate

    bound = get_scenario("normal").bind(k="0.2")
    v = evaluate(bound, 20)
    r = NumericRoute(bound.laws(), bound.class_rule())
    with mpmath.workdps(26):
        got = r.mi_pair(Y**2, X - Y)
        assert abs(got.value - v.mi(2, 3).value) < max(10 * got.error, mpmath.mpf(10) ** -19)
        assert got.error < mpmath.mpf(10) ** -18
        h = r.joint_entropy((X, X - Y)).value
        assert abs(h - mpmath.log(2 * mpmath.pi * mpmath.e)) < mpmath.mpf(10) ** -17
        with pytest.raises(NumericUnsupported, match="functionally dependent"):
            r.joint_entropy((X, 3 * X + 1))


def test_circle_rule_against_the_chi_square_law():
    """C = 1{X^2 + Y^2 <= 2} with i.i.d. N(0, 1): P(C = 1) = 1 - e^-1 (chi-square, 2 degrees);
    P(C = 1 | X = x) = erf(sqrt((2 - x^2)/2)) for |x| < sqrt 2; Y^2 and X^2 carry the same."""
    r = NumericRoute({X: Normal(0, 1), Y: Normal(0, 1)}, Rule(2 - X**2 - Y**2))
    with mpmath.workdps(25):
        p = 1 - mpmath.exp(-1)
        assert abs(r.class_entropy().value - hb(p)) < mpmath.mpf(10) ** -20
        s2 = mpmath.sqrt(2)
        ref = hb(p) - 2 * mpmath.quad(lambda x: mpmath.npdf(x) * hb(mpmath.erf(mpmath.sqrt((2 - x * x) / 2))),
                                      [0, s2]) - 2 * mpmath.ncdf(-s2) * 0
        assert abs(r.mi_class(X).value - ref) < mpmath.mpf(10) ** -18
        assert abs(r.mi_class(X**2).value - ref) < mpmath.mpf(10) ** -18
        assert abs(r.mi_class_set((X, Y)).value - hb(p)) < mpmath.mpf(10) ** -18


def test_three_features_and_limits_of_the_api():
    half = Uniform(-R(1, 2), R(1, 2))
    r = NumericRoute({X: half, Y: half, Z: half}, Rule.from_linear({X: 1, Y: 1, Z: 1}, 0))
    with mpmath.workdps(20):
        assert abs(r.mi_class_set((X, Y, Z)).value - mpmath.log(2)) < mpmath.mpf(10) ** -16
        with pytest.raises(NumericUnsupported, match="1 to 3"):
            r.mi_class_set((X, Y, Z, X + Y))


def _partner_disagreement(k, delta):
    """P(the partner (x - 2y, -y) of (x, y) lies in [-delta, delta]^2 and has the other class),
    X, Y i.i.d. Unif(-delta, delta), C = 1{x + k y >= 0}: for fixed y the classes differ for x
    between a = -k y and b = (2 + k) y, and the partner is in the square for x in
    [max(-delta, 2y - delta), min(delta, 2y + delta)]; the length is piecewise linear in y, so
    Gauss-Legendre between its kinks is exact to the working precision."""
    def length(y):
        lo, hi = max(-delta, 2 * y - delta), min(delta, 2 * y + delta)
        clip = lambda t: min(max(t, lo), hi)  # noqa: E731
        return abs(clip(-k * y) - clip((2 + k) * y))

    kinks = {mpmath.mpf(0), -delta, delta}
    for c in (-k, 2 + k):  # the line c*y against lo(y) and hi(y): c y = +-delta, c y = 2y +- delta
        for rhs_slope, rhs_const in ((0, -delta), (0, delta), (2, -delta), (2, delta)):
            if c != rhs_slope:
                kinks.add(rhs_const / (c - rhs_slope))
    pts = sorted(p for p in kinks if -delta <= p <= delta)
    return mpmath.quad(length, pts, method="gauss-legendre") / (2 * delta) ** 2


@pytest.mark.parametrize("k", ["0.2", "0.8", "0.37"])
def test_scenario_one_square_and_difference_by_the_partner_point(k):
    """MI(C; {Y^2, X - Y}) in Scenario I: the fibre of (Y^2, X - Y) over (x, y) is {(x, y),
    (x - 2y, -y)} (equal weights: uniform density), so H(C | V) = ln 2 * P(the partner is in the
    support with the other class) and MI = ln 2 (1 - P); against the engine's joint values."""
    from fstheory.engine.evaluate import evaluate

    v = evaluate(get_scenario("uniform").bind(k=k), 30)
    i, j = v.labels.index("Y^2"), v.labels.index("X-Y")
    with mpmath.workdps(30):
        ref = mpmath.log(2) * (1 - _partner_disagreement(mpmath.mpf(k), mpmath.mpf(1) / 2))
        got = v.mi_c_pair(i, j)
        assert abs(got.value - ref) < mpmath.mpf(10) ** -25
        assert got.value == v.mi_c_pair(j, i).value
