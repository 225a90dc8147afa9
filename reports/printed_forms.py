r"""The value of a printed cell's machine-readable form, at a parameter point.

Forms (see :mod:`fstheory.reports.paper_data`) are read without ``eval`` or ``sympify``: expressions go
through the whitelisted parser of :mod:`fstheory.scenarios.grammar` with a vocabulary of the scenario's
parameters, its base variables and three constants (``pi``, ``e``, ``gamma`` = Euler's
constant); "+inf" is the one literal outside the grammar.

The Scenario II general table prints MI(C_k, V) as E[ln(2 Phi(c0 A0) Phi(c1 A1))] with
A0 ~ SN(0, 1, s0), A1 ~ SN(0, 1, s1) (independent); :func:`sn_product` evaluates that printed
expression by quadrature, as printed:

    ln 2 + E[ln Phi(c0 A0)] + E[ln Phi(c1 A1)],
    E[ln Phi(c A)] = int 2 phi(a) Phi(s a) ln Phi(c a) da   (A ~ SN(0, 1, s), Azzalini 1985).

Examples
--------
>>> import mpmath
>>> from fstheory.scenarios.registry import get_scenario
>>> s = get_scenario("uniform")
>>> parse("(1-log(2))/2", s)
1/2 - log(2)/2
>>> parse("__import__('os')", s)
Traceback (most recent call last):
...
fstheory.reports.printed_forms.FormError: printed form "__import__('os')": unknown name '__import__' at column 1: expected a number, a parameter (a, b, d, delta, e, gamma, k, pi), a base variable (W, X, Y, Z), a function (abs, exp, log, sqrt) or '('
>>> with mpmath.workdps(20):
...     v = sn_product("-1/k", "-1/k", "1/k", "1/k", get_scenario("normal"), {"k": "0.2"})
...     print(mpmath.nstr(v, 10))
0.4108883959
"""

from __future__ import annotations

import functools

import mpmath
import sympy as sp

from fstheory.scenarios.declaration import BoundScenario, Scenario
from fstheory.scenarios.grammar import GrammarError, Vocabulary, parse_expression
from fstheory.theory.laws import Law, Normal, ScaledChiSquared1, Triangular, Uniform

__all__ = ["FormError", "CONSTANTS", "vocabulary", "parse", "exact_number", "sn_product",
           "printed_law", "LAW_FAMILIES"]

#: named constants a printed form may use
CONSTANTS = {"pi": sp.pi, "e": sp.E, "gamma": sp.EulerGamma}


class FormError(ValueError):
    """A printed form that cannot be read (a transcription error in the data file)."""


def vocabulary(scenario: Scenario) -> Vocabulary:
    params = {p.name: p.symbol for p in scenario.parameters}
    clash = set(params) & set(CONSTANTS)
    if clash:
        raise FormError(f"scenario parameter(s) {sorted(clash)} clash with constant names")
    params.update(CONSTANTS)
    variables = {str(s): s for s in scenario.base}
    return Vocabulary(parameters=params, variables=variables)


def parse(text: str, scenario: Scenario) -> sp.Expr:
    """A printed expression as sympy (``"+inf"`` -> oo)."""
    if text.strip() == "+inf":
        return sp.oo
    try:
        return parse_expression(text, vocabulary(scenario))
    except GrammarError as exc:
        raise FormError(f"printed form {text!r}: {exc}") from None


def _subs(bound: BoundScenario) -> dict:
    return bound.subs


def exact_number(text: str, bound: BoundScenario):
    """The printed expression at the bound parameters: sympy number (oo for '+inf'), or None when
    it is not a real number there (e.g. ln of a negative number)."""
    expr = parse(text, bound.scenario)
    if expr == sp.oo:
        return sp.oo
    value = expr.xreplace(_subs(bound))
    if value.has(sp.zoo, sp.nan):
        return None
    if value.is_real is False or value.has(sp.I) or sp.im(sp.N(value, 30)) != 0:
        return None
    return value


def _ln_phi_expectation(c: mpmath.mpf, shape: mpmath.mpf) -> mpmath.mpf:
    """E[ln Phi(c A)], A ~ SN(0, 1, shape). As -A ~ SN(0, 1, -shape), the value at (-c, -shape)
    is the same: one integral serves both (kept per precision)."""
    if shape < 0:
        c, shape = -c, -shape
    return _ln_phi_integral(c, shape, mpmath.mp.prec)


@functools.lru_cache(maxsize=None)
def _ln_phi_integral(c: mpmath.mpf, shape: mpmath.mpf, prec: int) -> mpmath.mpf:
    """The integral of :func:`_ln_phi_expectation` at ``prec`` bits (a pure function of its
    arguments: cached)."""

    def f(a):
        return 2 * mpmath.npdf(a) * mpmath.ncdf(shape * a) * mpmath.log(mpmath.ncdf(c * a))

    with mpmath.workprec(prec):
        return mpmath.quad(f, [-mpmath.inf, 0, mpmath.inf])


def sn_product(c0: str, shape0: str, c1: str, shape1: str, scenario: Scenario,
               params: dict) -> mpmath.mpf:
    """E[ln(2 Phi(c0 A0) Phi(c1 A1))], A0 ~ SN(0,1,shape0), A1 ~ SN(0,1,shape1) independent, at
    the current mpmath precision (the Scenario II general table's printed expression)."""
    bound = scenario.bind(**params)

    def num(text):
        v = exact_number(text, bound)
        if v is None or v == sp.oo:
            raise FormError(f"printed coefficient {text!r} is not a finite real number at {params}")
        return mpmath.mpf(sp.N(v, mpmath.mp.dps + 5))

    return (mpmath.log(2) + _ln_phi_expectation(num(c0), num(shape0))
            + _ln_phi_expectation(num(c1), num(shape1)))


def _uniform(lo, hi):
    return Uniform(lo, hi)


def _normal(mean, variance):
    return Normal(mean, sp.sqrt(variance))


#: family -> (number of parameters, constructor); the paper writes N(mean, variance)
LAW_FAMILIES = {
    "uniform": (2, _uniform),
    "triangular": (3, Triangular),
    "normal": (2, _normal),
    "chi2_1": (0, lambda: ScaledChiSquared1(1)),
}


def printed_law(law_form: dict, bound: BoundScenario) -> Law | None:
    """The printed law at the bound parameters, or None when its parameters are not valid there
    (e.g. Unif(low, high) with low > high)."""
    family = law_form.get("family")
    if family not in LAW_FAMILIES:
        raise FormError(f"unknown law family {family!r} (known: {', '.join(LAW_FAMILIES)})")
    n, make = LAW_FAMILIES[family]
    params = law_form.get("params", [])
    if len(params) != n:
        raise FormError(f"law {family} takes {n} parameters (got {params!r})")
    values = [exact_number(p, bound) for p in params]
    if any(v is None or v == sp.oo for v in values):
        return None
    law = make(*values)
    try:
        law.check()
    except ValueError:
        return None
    if family == "uniform" and not bool(values[1] > values[0]):
        return None
    if family == "normal" and not bool(values[1] > 0):
        return None
    return law
