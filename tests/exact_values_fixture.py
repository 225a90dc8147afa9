"""ScenarioValues for Scenario I and II computed here from the paper's closed forms (Section 6),
independently of engine/evaluate.py, for fast ordering tests at arbitrary parameters; and
:func:`evaluated`, the engine's own values (fstheory.engine.evaluate), cached for the test session.

Scenario I (X, Y, Z, W i.i.d. Unif(-delta, delta)):
  h = [ln 2d, ln 2|a|d, ln(2d^2)-1, 1/2+ln 2d, ln 2d, ln(2d^2)-1, ln 2d, ln(2d^2)-1, ln 2d, 1/2+ln 2d]
  (d = delta); MI(C,X) = MI(C,aX+b) = ln 2 - k/2,
  MI(C,Y) = ((k^2+1) ln((1+k)/(1-k)) + 2k(ln(1-k^2)-1))/(4k), MI(C,X-Y) = -(1-k)^2 ln(1-k)/(4k),
  0 for the others. MI between features: +inf on the diagonal and for a feature and a measurable
  function of it; 1/2 for (X,X-Y), (aX+b,X-Y), (Y,X-Y), (Z,Z+W), (W+d,Z+W);
  (1-ln 2)/2 for (Y^2,X-Y), (X^2,X-Y), (Z^2,Z+W); 0 otherwise.
Scenario II (i.i.d. N(0, sigma^2)): h(N(0,s^2)) = ln(2 pi e s^2)/2, h(aX+b) adds ln|a|,
  h(X-Y) = ln(4 pi e s^2)/2, h(Y^2) = (1 + ln pi - gamma)/2 + ln s^2 (s^2 chi^2_1);
  MI(C,V) = E[ln 2 Phi(lam A)], A ~ SN(0,1,lam), lam = 1/k (X), k (Y), (1-k)/(1+k) (X-Y);
  MI = ln2/2 where Scenario I has 1/2; MI(Y^2,X-Y) = -1 + ln2/2 + E[ln cosh((X-Y)|Y|)].

The last expectation is a double integral that takes ~40 s with mpmath; here it is computed in
double precision with scipy (about 1e-12 absolute), which is all an ordering needs. Every other
value is computed with mpmath at ``DIGITS`` significant digits.
"""

from __future__ import annotations

import functools
from fractions import Fraction

import mpmath

from fstheory.scenarios.declaration import render_label
from fstheory.theory.extended import POS_INF, ZERO, xr
from fstheory.engine.values import ScenarioValues

DIGITS = 30

GENERIC = ("X", "{a}X{+b}", "Y^2", "X-Y", "Z", "Z^2", "Y", "X^2", "W{+d}", "Z+W")
X, AXB, Y2, XMY, Z, Z2, Y, X2, WD, ZW = range(10)
INFINITE_PAIRS = [(X, AXB), (X, X2), (AXB, X2), (Y, Y2), (Z, Z2)]
HALF_PAIRS = [(X, XMY), (AXB, XMY), (Y, XMY), (Z, ZW), (WD, ZW)]
SQUARE_PAIRS = [(Y2, XMY), (X2, XMY), (Z2, ZW)]


def _labels(a, b, d) -> tuple[str, ...]:
    params = {"a": _rat(a), "b": _rat(b), "d": _rat(d)}
    return tuple(render_label(t, params) for t in GENERIC)


def _rat(x):
    import sympy as sp

    f = Fraction(str(x))
    return sp.Rational(f.numerator, f.denominator)


def _mp(x) -> mpmath.mpf:
    f = Fraction(str(x))
    return mpmath.mpf(f.numerator) / f.denominator


def _assemble(scenario, params, labels, h, mic, pair_value):
    n = len(labels)
    ent = tuple(xr(h[j], f"h({labels[j]})") for j in range(n))
    mc = tuple(xr(mic[j], f"MI(C,{labels[j]})") for j in range(n))
    matrix = [[ZERO] * n for _ in range(n)]
    value = {}
    for p in INFINITE_PAIRS:
        value[p] = POS_INF
    for p in HALF_PAIRS:
        value[p] = pair_value["half"]
    for p in SQUARE_PAIRS:
        value[p] = pair_value["square"]
    for r in range(n):
        for c in range(n):
            if r == c:
                v = POS_INF
            else:
                v = value.get((r, c), value.get((c, r), ZERO))
            matrix[r][c] = xr(v, f"MI({labels[r]},{labels[c]})")
    return ScenarioValues(
        scenario=scenario,
        params=params,
        labels=labels,
        entropy=ent,
        mi_class=mc,
        mi_features=tuple(tuple(row) for row in matrix),
        digits=DIGITS,
    )


@functools.lru_cache(maxsize=None)
def scenario_i(k="0.2", delta="0.5", a="3", b="1", d="2") -> ScenarioValues:
    """Scenario I values from the closed forms (0 < k < 1)."""
    with mpmath.workdps(DIGITS + 10):
        K, dl, A = _mp(k), _mp(delta), _mp(a)
        ln = mpmath.log
        hx = ln(2 * dl)
        hsq = ln(2 * dl**2) - 1
        htri = mpmath.mpf(1) / 2 + ln(2 * dl)
        h = [hx, ln(2 * abs(A) * dl), hsq, htri, hx, hsq, hx, hsq, hx, htri]
        mix = ln(2) - K / 2
        miy = ((K**2 + 1) * ln((1 + K) / (1 - K)) + 2 * K * (ln(1 - K**2) - 1)) / (4 * K)
        mixy = -((1 - K) ** 2) * ln(1 - K) / (4 * K)
        mic = [mix, mix, 0, mixy, 0, 0, miy, 0, 0, 0]
        pairs = {"half": mpmath.mpf(1) / 2, "square": (1 - ln(2)) / 2}
        h = [+x for x in h]
    with mpmath.workdps(DIGITS):
        params = {"k": k, "delta": delta, "a": a, "b": b, "d": d}
        return _assemble("uniform", params, _labels(a, b, d), h, mic, pairs)


def skew_normal_mi(lam) -> mpmath.mpf:
    """E[ln 2 Phi(lam A)], A ~ SN(0, 1, lam)."""

    def f(u):
        p = mpmath.ncdf(lam * u)
        return 2 * mpmath.npdf(u) * p * mpmath.log(2 * p) if p > 0 else mpmath.mpf(0)

    return mpmath.quad(f, [-mpmath.inf, 0, mpmath.inf])


@functools.lru_cache(maxsize=None)
def mi_square_difference_normal() -> float:
    """MI(Y^2, X-Y) for X, Y i.i.d. normal: -1 + ln2/2 + E[ln cosh((X-Y)|Y|)] (scipy, ~1e-12)."""
    import numpy as np
    from scipy import integrate

    def lncosh(z):
        z = abs(z)
        return z - np.log(2) + np.log1p(np.exp(-2 * z))

    phi = lambda t: np.exp(-t * t / 2) / np.sqrt(2 * np.pi)  # noqa: E731

    def inner(y):
        val, _ = integrate.quad(lambda x: phi(x) * lncosh((x - y) * y), -np.inf, np.inf,
                                points=None, epsabs=1e-14, epsrel=1e-13, limit=200)
        return phi(y) * val

    outer, _ = integrate.quad(inner, 0, np.inf, epsabs=1e-14, epsrel=1e-13, limit=200)
    return -1 + np.log(2) / 2 + 2 * outer


@functools.lru_cache(maxsize=None)
def scenario_ii(k="0.2", sigma="1", a="3", b="1", d="2") -> ScenarioValues:
    """Scenario II values (0 < k < 1)."""
    with mpmath.workdps(DIGITS + 3):
        K, s, A = _mp(k), _mp(sigma), _mp(a)
        ln, pi, e = mpmath.log, mpmath.pi, mpmath.e
        hn = ln(2 * pi * e * s**2) / 2
        hsq = (1 + ln(pi) - mpmath.euler) / 2 + ln(s**2)
        hdiff = ln(4 * pi * e * s**2) / 2
        h = [hn, hn + ln(abs(A)), hsq, hdiff, hn, hsq, hn, hsq, hn, hdiff]
        mix = skew_normal_mi(1 / K)
        miy = skew_normal_mi(K)
        mixy = skew_normal_mi((1 - K) / (1 + K))
        mic = [mix, mix, 0, mixy, 0, 0, miy, 0, 0, 0]
        pairs = {"half": ln(2) / 2, "square": mpmath.mpf(mi_square_difference_normal())}
    with mpmath.workdps(DIGITS):
        params = {"k": k, "sigma": sigma, "a": a, "b": b, "d": d}
        return _assemble("normal", params, _labels(a, b, d), h, mic, pairs)


@functools.lru_cache(maxsize=None)
def evaluated(scenario: str, **params) -> ScenarioValues:
    """fstheory.engine.evaluate.evaluate at 30 digits (cached: Scenario II takes a few seconds)."""
    from fstheory.engine.evaluate import evaluate
    from fstheory.scenarios.registry import get_scenario

    return evaluate(get_scenario(scenario).bind(**params), DIGITS)
