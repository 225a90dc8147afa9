"""Joint entropies h(V1, V2) of pairs of features of two coordinates (the numerical route's
change of variables), against independent closed forms derived by hand through a different
decomposition: h(V1, V2) = h(V1) + h(V2 | V1) with the conditional law known (a scale or
location family given V1), or the law of a linear form, and the textbook constants
E ln|N(0, 1)| = -(gamma + ln 2)/2, int_0^oo ln t e^(-t) dt = -gamma.

Also the two algebraic steps the route rests on: the factorisation of ln|J| (hypothesis) and
the partner maps of features holding |.| (every preimage found, checked at random points)."""

from __future__ import annotations

import mpmath
import pytest
import sympy as sp
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.theory import laws as L
from fstheory.theory.coordinates import build, partner_maps
from fstheory.theory.log_jacobian import log_factors
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.univariate import Accuracy

X, Y, Z = sp.symbols("X Y Z", real=True)
DPS = 30

U01 = {X: L.Uniform(0, 1), Y: L.Uniform(0, 1)}
U11 = {X: L.Uniform(-1, 1), Y: L.Uniform(-1, 1)}
NN = {X: L.Normal(0, 1), Y: L.Normal(0, 1)}
EE = {X: L.Exponential(1), Y: L.Exponential(2)}


def _refs():
    """(laws, V1, V2, h(V1, V2) by hand) at DPS digits."""
    ln2, g = mpmath.log(2), mpmath.euler
    h_normal = mpmath.log(2 * mpmath.pi * mpmath.e) / 2
    elog_normal = -(g + ln2) / 2  # E ln|N(0, 1)|
    return [
        # given |X - Y| the two orders are equally likely; |J| = X + Y, E ln(X + Y) = 2 ln 2 - 3/2
        (U01, X * Y, sp.Abs(X - Y), 2 * ln2 - mpmath.mpf(3) / 2 - ln2),
        # four preimages of equal weight; E ln|X + Y| = ln 2 - 3/2 for the triangular law on [-2, 2]
        (U11, X * Y, sp.Abs(X - Y), 2 * ln2 + ln2 - mpmath.mpf(3) / 2 - 2 * ln2),
        # given |Y| = r, X Y is r X (X symmetric): h(|Y|) + h(X) + E ln|Y| = 0 + ln 2 - 1
        (U11, sp.Abs(Y), X * Y, ln2 - 1),
        # the swap, equal weights: h(X) + h(Y) + E ln|X - Y| - ln 2
        (U11, X + Y, X * Y, 2 * ln2 + (ln2 - mpmath.mpf(3) / 2) - ln2),
        (NN, sp.Abs(Y), X * Y, (2 * h_normal - ln2) + elog_normal),
        (NN, X + Y, X * Y, 2 * h_normal + (ln2 / 2 + elog_normal) - ln2),
        # one-to-one on the support: h(X) + h(Y) + E ln(X + Y), X + Y of density 2(e^-t - e^-2t)
        (EE, X - Y, X * Y, (1) + (1 - ln2) + (ln2 - g)),
        # preimages (x, y), (1 - x, 1 - y) always, (x, 2x - y) and (1 - x, 1 - 2x + y) both
        # where 2x - 1 <= y <= 2x (area 1/2), all of weight 1/|2x - 1|; E ln|2X - 1| = -1:
        # h = 0 - 1 - (ln 2 + ln 4) / 2
        (U01, (X - sp.Rational(1, 2)) ** 2, sp.Abs(X - Y), -1 - 3 * ln2 / 2),
    ]


def _route_value(laws, e1, e2):
    route = NumericRoute(laws)
    with mpmath.workdps(DPS + 6):
        r = route.joint_entropy((e1, e2))
    return r


@pytest.mark.parametrize("case", range(8))
def test_joint_entropy_of_two_coordinates_matches_the_hand_derivation(case):
    with mpmath.workdps(DPS + 10):
        laws, e1, e2, ref = _refs()[case]
        r = _route_value(laws, e1, e2)
        assert r.certified, r.describe()
        assert r.error < mpmath.mpf(10) ** -(DPS - 2)
        assert abs(r.value - ref) <= r.error + mpmath.mpf(10) ** -(DPS + 4), (r.value, ref)


def test_mi_of_a_scale_family_pair_is_euler_gamma():
    """MI(|Y|, X Y) for X, Y ~ U(-1, 1): h(X Y) - h(X) - E ln|Y| = (gamma + ln 2 - 1) - ln 2 + 1."""
    route = NumericRoute(U11)
    with mpmath.workdps(DPS + 6):
        r = route.mi_pair(sp.Abs(Y), X * Y)
        assert r.certified
        assert abs(r.value - mpmath.euler) < mpmath.mpf(10) ** -DPS


def test_the_swapped_exponentials_need_the_branch_entropy():
    """(X + Y, X Y), X ~ Exp(1), Y ~ Exp(2): the two preimages weigh f(x, y) and f(y, x), in
    ratio e^(-(x - y)); second route: one integral in D = X - Y (density 2/3 e^-d for d > 0,
    2/3 e^(2d) below), h = h(X) + h(Y) + E ln|D| - E[H_b(1 / (1 + e^-D))]."""
    with mpmath.workdps(DPS + 10):
        def f(d):
            return 2 * mpmath.exp(-d) / 3 if d > 0 else 2 * mpmath.exp(2 * d) / 3

        def hb(d):
            # binary entropy of 1 / (1 + e^-d), written without cancellation
            a = abs(d)
            return mpmath.log1p(mpmath.exp(-a)) + a * mpmath.exp(-a) / (1 + mpmath.exp(-a))

        elog = mpmath.quad(lambda d: f(d) * mpmath.log(abs(d)), [-mpmath.inf, 0, mpmath.inf])
        branch = mpmath.quad(lambda d: f(d) * hb(d), [-mpmath.inf, 0, mpmath.inf])
        ref = 2 - mpmath.log(2) + elog - branch
        r = _route_value(EE, X + Y, X * Y)
        assert abs(r.value - ref) <= r.error + mpmath.mpf(10) ** -(DPS + 4), (r.value, ref)
        assert r.error < mpmath.mpf(10) ** -(DPS - 2)
        assert r.certified, r.describe()


_factor_terms = st.sampled_from([X, Y, X - Y, X + 2 * Y, X * Y + 1, sp.Abs(X - Y), sp.sign(Y),
                                 sp.Abs(X) * Y])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.tuples(_factor_terms, st.integers(1, 3)), min_size=1, max_size=3),
       st.sampled_from([1, -2, sp.Rational(1, 3)]),
       st.floats(-3, 3).filter(lambda v: abs(v) > 1e-3),
       st.floats(-3, 3).filter(lambda v: abs(v) > 1e-3))
def test_log_factors_reproduce_ln_abs_j(terms, c, x, y):
    jac = c * sp.Mul(*[t ** m for t, m in terms])
    const, factors = log_factors(jac)
    point = {X: sp.Float(x), Y: sp.Float(y)}
    direct = sp.log(abs(jac.subs(point)))
    if not direct.is_finite:
        return
    split = sp.log(abs(const)) + sum(m * sp.log(abs(f.subs(point))) for f, m in factors)
    assert abs(float(direct - split)) < 1e-9


@settings(max_examples=12, deadline=None)
@given(st.floats(-0.95, 0.95), st.floats(-0.95, 0.95))
def test_partner_maps_with_folds_find_every_preimage(x, y):
    """The preimages of (X Y, |X - Y|) on (-1, 1)^2 are found by solving x' y' = t, x' - y' = +-d
    (two quadratics, four roots): the partner maps must produce all of them."""
    acc = Accuracy.from_bits(120)
    with flint_precision(acc.bits):
        system = build([X * Y, sp.Abs(X - Y)], U11, None, acc)
        maps = partner_maps(system)
    t, d = x * y, abs(x - y)
    roots = set()
    for s in (1, -1):
        # x' - y' = s d, x' y' = t: y'^2 + s d y' - t = 0
        disc = d * d + 4 * t
        for r in ((-s * d + disc ** 0.5) / 2, (-s * d - disc ** 0.5) / 2):
            roots.add((round(r + s * d, 9), round(r, 9)))
    images = {(round(float(p[X].subs({X: x, Y: y})), 9), round(float(p[Y].subs({X: x, Y: y})), 9))
              for p in maps}
    assert images == roots


def _mixture_of_uniforms_entropy(a, b, pa, pb, symmetric):
    """h of pa U(0, a) + pb U(0, b) (0 < a < b), or of pa U(-a, a) + pb U(-b, b)."""
    width = 2 if symmetric else 1
    c1 = pa / (width * a) + pb / (width * b)
    c2 = pb / (width * b)
    out = -width * a * c1 * mpmath.log(c1)
    if pb > 0:
        out -= width * (b - a) * c2 * mpmath.log(c2)
    return out


@pytest.mark.slow
def test_a_rational_partner_map_unit_square():
    """(X Y, (X - 1/2)^2), X, Y ~ U(0, 1): the preimages (x, y) and (1 - x, x y / (1 - x)).
    Second route: h(V2) + E h(V1 | V2); given (X - 1/2)^2 = t^2, X = 1/2 +- t with equal
    weights and X Y | X = x ~ U(0, x): a mixture of two uniforms. With t = |X - 1/2| ~ U(0, 1/2)
    and f_{V2}(s) = 1/sqrt(s): h(V1, V2) = int_0^(1/2) 2 (ln t + h(mixture)) dt."""
    with mpmath.workdps(DPS + 10):
        half = mpmath.mpf(1) / 2
        ref = mpmath.quad(lambda t: 2 * (mpmath.log(t) + _mixture_of_uniforms_entropy(
            half - t, half + t, half, half, False)), [0, half])
        r = _route_value(U01, X * Y, (X - sp.Rational(1, 2)) ** 2)
        assert r.certified, r.describe()
        assert r.error < mpmath.mpf(10) ** -(DPS - 2)
        assert abs(r.value - ref) <= r.error + mpmath.mpf(10) ** -(DPS + 4), (r.value, ref)


@pytest.mark.slow
def test_a_rational_partner_map_with_unequal_weights():
    """(X Y, (X - 1/2)^2), X ~ Exp(1), Y ~ U(-1, 1): given (X - 1/2)^2 = t^2, X = 1/2 + t, or
    1/2 - t (while t < 1/2), in ratio e^-(1/2 + t) : e^-(1/2 - t), and X Y | X = x ~ U(-x, x).
    Second route: h(V1, V2) = -int f_{V2} ln f_{V2} + E h(V1 | V2) in s = t^2."""
    with mpmath.workdps(DPS + 10):
        half = mpmath.mpf(1) / 2

        def parts(t):
            a, b = half - t, half + t
            wa = mpmath.exp(-a) if t < half else mpmath.mpf(0)
            wb = mpmath.exp(-b)
            f = (wa + wb) / (2 * t)  # density of V2 at s = t^2
            cond = _mixture_of_uniforms_entropy(abs(a), b, wa / (wa + wb), wb / (wa + wb), True) \
                if wa > 0 else mpmath.log(2 * b)
            return f, cond

        def integrand(t):  # ds = 2 t dt
            f, cond = parts(t)
            return 2 * t * f * (-mpmath.log(f) + cond)

        ref = mpmath.quad(integrand, [0, half, 2, 10, 40, 120])
        laws = {X: L.Exponential(1), Y: L.Uniform(-1, 1)}
        r = _route_value(laws, X * Y, (X - sp.Rational(1, 2)) ** 2)
        assert r.certified, r.describe()
        assert abs(r.value - ref) <= r.error + mpmath.mpf(10) ** -(DPS + 4), (r.value, ref)


def _scale_family_cases():
    """(laws, V1, V2, h(W), E ln|a|): given V1, V2 = a W with W independent of V1 (X Z given X,
    or given X^2 or |X| when Z is symmetric), so MI(V1, V2) = h(V2) - h(W) - E ln|a|."""
    g, ln2 = mpmath.euler, mpmath.log(2)
    h_normal = mpmath.log(2 * mpmath.pi * mpmath.e) / 2
    uu = {X: L.Uniform(-1, 1), Z: L.Uniform(-1, 1)}
    nn = {X: L.Normal(0, 1), Z: L.Normal(0, 1)}
    eu = {X: L.Exponential(1), Z: L.Uniform(-1, 1)}
    ee = {X: L.Exponential(1), Z: L.Exponential(2)}
    return [
        (uu, X, X * Z, ln2, -1), (uu, X ** 2, X * Z, ln2, -1), (uu, sp.Abs(X), X * Z, ln2, -1),
        (nn, X, X * Z, h_normal, -(g + ln2) / 2), (nn, X ** 2, X * Z, h_normal, -(g + ln2) / 2),
        (eu, X, X * Z, ln2, -g), (eu, Z, X * Z, 1, -1),
        (ee, X, X * Z, 1 - ln2, -g), (ee, Z, X * Z, 1, -g - ln2),
    ]


@pytest.mark.parametrize("case", range(9))
def test_mi_with_a_product_is_a_scale_family_identity(case):
    """MI(V1, X Z) from h(V1) + h(X Z) - h(V1, X Z) (the route's change of variables) against
    h(X Z) - h(W) - E ln|a| with h(W) and E ln|a| in closed form (E ln|N(0, 1)| =
    -(gamma + ln 2)/2, E ln X = -gamma - ln rate for X exponential, -1 for U(-1, 1))."""
    with mpmath.workdps(DPS + 10):
        laws, v1, v2, h_w, elog = _scale_family_cases()[case]
        route = NumericRoute(laws)
        with mpmath.workdps(DPS + 6):
            mi = route.mi_pair(v1, v2)
            h2 = route.entropy(v2)
        assert mi.certified and h2.certified, (mi.describe(), h2.describe())
        ref = h2.value - h_w - elog
        assert abs(mi.value - ref) <= mi.error + h2.error + mpmath.mpf(10) ** -(DPS + 2), \
            (mi.value, ref)


@pytest.mark.slow
def test_the_line_route_of_the_branch_entropy_agrees_with_the_cubature(monkeypatch):
    """The swap of Exp(1), Exp(2): the branch entropy as one integral in the log weight ratio
    (theory.branch_line) and as the certified two-dimensional cubature, both proved, agree."""
    from fstheory.theory import numeric

    with mpmath.workdps(DPS + 6):
        line = NumericRoute(EE).joint_entropy((X + Y, X * Y))
        monkeypatch.setattr(numeric, "line_branch_entropy", lambda *args: None)
        cube = NumericRoute(EE).joint_entropy((X + Y, X * Y))
        assert "log weight ratio" in line.method and "cubature" in cube.method
        assert line.certified and cube.certified
        assert abs(line.value - cube.value) <= line.error + cube.error
        assert line.error + cube.error < mpmath.mpf(10) ** -(DPS - 2)
