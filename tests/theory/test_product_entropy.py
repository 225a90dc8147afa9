"""h(c X Y + e) through the logarithms of the factors (fstheory.theory.product_entropy), against
independent routes: mpmath's quadrature of -f ln f in r = |X Y| itself (no logarithmic
variable, no truncation bounds), mpmath's quadrature of the defining integral
f(r) = int p(x) q(r/x) / x dx for the closed densities, and Monte Carlo."""

from __future__ import annotations

import json
from pathlib import Path

import mpmath
import numpy as np
import pytest
import sympy as sp
from flint import acb, arb

from fstheory.theory import laws as L
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.product_entropy import log_product_density, product_entropy
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.univariate import Accuracy

X, Y = sp.symbols("X Y", real=True)


def _accuracy(digits: int) -> Accuracy:
    tol = arb(10) ** -digits
    return Accuracy(int(digits * 3.33) + 60, tol, tol * arb(10) ** -12)


def _certified(expr, laws, digits=20):
    acc = _accuracy(digits)
    with flint_precision(acc.bits):
        got = product_entropy(expr, laws, acc)
    assert got is not None
    value, error = got
    assert error < arb(10) ** -(digits - 2)
    with mpmath.workdps(digits + 8):
        return mpmath.mpf(value.mid().str(digits + 8, radius=False)), error


def _h_of_density(f, dps=30):
    """-int_0^oo f ln f dr by mpmath (tanh-sinh, split where f changes scale)."""
    with mpmath.workdps(dps):
        def g(r):
            v = f(r)
            return -v * mpmath.log(v) if v > 0 else mpmath.mpf(0)
        return mpmath.quad(g, [0, mpmath.mpf(10) ** -20, mpmath.mpf(10) ** -6, mpmath.mpf(10) ** -2,
                               mpmath.mpf(1) / 2, 1, 3, 10, 30, 100, 400, 2000, mpmath.inf])


# standard products R = R_1 R_2 and the density of R in closed form (the module's claims)
_DENSITY = {
    "EU": lambda r: mpmath.e1(r),
    "HU": lambda r: mpmath.e1(r * r / 2) / mpmath.sqrt(2 * mpmath.pi),
    "EE": lambda r: 2 * mpmath.besselk(0, 2 * mpmath.sqrt(r)),
    "HH": lambda r: 2 / mpmath.pi * mpmath.besselk(0, r),
}
_FACTOR = {
    "U": (lambda x: mpmath.mpf(1) if 0 < x < 1 else mpmath.mpf(0), [0, 1]),
    "E": (lambda x: mpmath.exp(-x), [0, 1, mpmath.inf]),
    "H": (lambda x: mpmath.sqrt(2 / mpmath.pi) * mpmath.exp(-x * x / 2), [0, 1, mpmath.inf]),
}


@pytest.mark.parametrize("pair", sorted(_DENSITY))
@pytest.mark.parametrize("r", ["0.05", "1.5", "7"])
def test_closed_density_is_the_product_density(pair, r):
    """f(r) = int p_1(x) p_2(r/x) / x dx by mpmath against the module's ln g(w) = ln(r f(r))."""
    p1, pts = _FACTOR[pair[0]]
    p2, _ = _FACTOR[pair[1]]
    with mpmath.workdps(30):
        rr = mpmath.mpf(r)
        direct = mpmath.quad(lambda x: p1(x) * p2(rr / x) / x,
                             sorted(set(pts + [rr] if pair[1] == "U" else pts)))
    with flint_precision(120):
        w = acb(arb(r)).log()
        lg = log_product_density(*pair)(w, acb(arb(r)), True)
    with mpmath.workdps(30):
        ours = mpmath.mpf(lg.real.mid().str(30, radius=False))
        assert abs(ours - mpmath.log(rr * direct)) < mpmath.mpf(10) ** -18


def _reference() -> dict:
    """h(R) of the standard products by mpmath at 32 digits
    (scripts/product_entropy_reference.py)."""
    data = json.loads((Path(__file__).resolve().parent.parent / "data" /
                       "product_entropy_reference.json").read_text())
    return {k: mpmath.mpf(v) for k, v in data["h_of_R"].items()}


@pytest.mark.parametrize("laws, pair, shift, digits", [
    ((L.Exponential(1), L.Uniform(-1, 1)), "EU", "log(2)", 30),
    ((L.Exponential(3), L.Uniform(0, 2)), "EU", "log(2/3)", 20),
    ((L.Normal(0, 2), L.Uniform(-1, 1)), "HU", "log(4)", 20),
    ((L.Exponential(1), L.Exponential(2)), "EE", "-log(2)", 20),
    ((L.Laplace(0, 1), L.Exponential(1)), "EE", "log(2)", 20),
    ((L.Normal(0, 1), L.Normal(0, 3)), "HH", "log(6)", 30),
])
def test_product_entropy_against_mpmath(laws, pair, shift, digits):
    """Different factors and parameters: h(XY) = h(R) + ln(s_X s_Y) (+ ln 2 for a symmetric
    factor), h(R) from mpmath's quadrature in r itself."""
    with mpmath.workdps(40):
        want = _reference()[pair] + mpmath.mpf(sp.N(sp.sympify(shift), 40))
        got, error = _certified(X * Y, {X: laws[0], Y: laws[1]}, digits)
        assert abs(got - want) < mpmath.mpf(10) ** -(digits - 2)


def test_two_uniform_factors_exact():
    """Unif(0,1) x Unif(0,1): f = -ln r, h = gamma - 1 (exact); Unif(0,1) x Unif(-1,0) has a
    fixed sign (same h); Unif(-1,1)^2 adds ln 2; the factor 3 and the shift add ln 3."""
    with mpmath.workdps(40):
        g = +mpmath.euler
        assert abs(_h_of_density(lambda r: -mpmath.log(r) if r < 1 else 0) - (g - 1)) < 1e-18
        for laws, want in [((L.Uniform(0, 1), L.Uniform(0, 1)), g - 1),
                           ((L.Uniform(0, 1), L.Uniform(-1, 0)), g - 1),
                           ((L.Uniform(-1, 1), L.Uniform(-1, 1)), g - 1 + mpmath.log(2))]:
            got, error = _certified(X * Y, {X: laws[0], Y: laws[1]}, digits=30)
            assert error == 0 and abs(got - want) < mpmath.mpf(10) ** -29
        got, _ = _certified(3 * X * Y + 1, {X: L.Uniform(0, 1), Y: L.Uniform(0, 1)}, digits=30)
        assert abs(got - (g - 1 + mpmath.log(3))) < mpmath.mpf(10) ** -29


def test_monte_carlo_laplace_times_exponential():
    """Laplace(0, 1) x Exp(1/2): |XY| = 2 E_1 E_2, so f(z) = K_0(2 sqrt(|z|/2)) / 2 (a fair
    sign); h = E[-ln f(XY)] by Monte Carlo, within 5 standard errors."""
    from scipy.special import k0

    rng = np.random.default_rng(7)
    n = 200_000
    z = rng.laplace(0, 1, n) * rng.exponential(2, n)
    f = k0(2 * np.sqrt(np.abs(z) / 2)) / 2
    samples = -np.log(f)
    got, _ = _certified(X * Y, {X: L.Laplace(0, 1), Y: L.Exponential(sp.Rational(1, 2))})
    assert abs(float(got) - samples.mean()) < 5 * samples.std() / np.sqrt(n)


def test_laws_outside_the_table_are_left_to_the_fibre_route():
    assert product_entropy(X * Y, {X: L.Normal(1, 1), Y: L.Uniform(-1, 1)}, _accuracy(20)) is None
    assert product_entropy(X * Y, {X: L.Logistic(0, 1), Y: L.Uniform(-1, 1)},
                           _accuracy(20)) is None
    assert product_entropy(X + Y, {X: L.Normal(0, 1), Y: L.Normal(0, 1)}, _accuracy(20)) is None


def test_numeric_route_uses_it_and_mi_with_a_factor():
    """MI(XY, X) = h(XY) - h(Y) - E ln|X| (h(XY | X = x) = h(Y) + ln|x|): for N(0,1)^2,
    h(Y) = ln(2 pi e)/2 and E ln|X| = -(gamma + ln 2)/2."""
    route = NumericRoute({X: L.Normal(0, 1), Y: L.Normal(0, 1)})
    with mpmath.workdps(25):
        h = route.entropy(X * Y)
        mi = route.mi_pair(X * Y, X)
        assert h.certified and "logarithms" in h.method
        want = h.value - mpmath.log(2 * mpmath.pi * mpmath.e) / 2 + (mpmath.euler + mpmath.log(2)) / 2
        assert mi.certified and abs(mi.value - want) < 1e-20
        assert abs(h.value - (_reference()["HH"] + mpmath.log(2))) < 1e-20
