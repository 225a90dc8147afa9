"""How a scenario is declared: base variables and their laws, features as sympy expressions of
them, the class rule, and the parameters with their allowed ranges.

A scenario is data, not code that computes: :mod:`fstheory.engine.evaluate` derives every value from the
declaration (structure of the MI matrix, closed forms through law algebra, the numerical route),
using the scenario's own closed forms for MI with the class where it declares them.

Examples
--------
>>> from fstheory.scenarios.registry import get_scenario
>>> s = get_scenario("uniform")
>>> [f.label for f in s.features][:4]
['X', 'aX+b', 'Y^2', 'X-Y']
>>> b = s.bind(k="0.2")
>>> b.params["delta"], b.params["k"]
(1/2, 1/5)
>>> b.display_labels()[1], b.display_labels()[8]
('3X+1', 'W+2')
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping

import sympy as sp

from fstheory.errors import UserInputError
from fstheory.scenarios.domains import DOMAINS
from fstheory.theory.laws import Law, LawParameterError
from fstheory.user_numbers import NumberTextError, check_exact, parse_rational

__all__ = [
    "ParameterError",
    "RESERVED_PARAMETER_NAMES",
    "Parameter",
    "Feature",
    "ClassRule",
    "Scenario",
    "BoundScenario",
    "to_rational",
    "check_law",
    "param_symbol",
    "param_text",
]


class ParameterError(UserInputError):
    """A scenario parameter that is missing, not a number, or outside its allowed range."""


#: names a scenario parameter cannot have: the method options and the other names written next
#: to the parameters (``--vary beta`` is the method's beta; ``order --json`` puts ``reading`` and
#: ``zero_beta`` among the params), so that one name never means two things
RESERVED_PARAMETER_NAMES = ("beta", "gamma", "zero_beta", "reading", "method", "digits")


def param_symbol(name: str, domain: str) -> sp.Symbol:
    """The sympy symbol of a parameter, with the assumptions its domain implies."""
    return sp.Symbol(name, **DOMAINS[domain].assumptions)


def to_rational(name: str, value) -> sp.Rational:
    """An exact rational from a number or a decimal string ('0.5' -> 1/2, '1e-3' -> 1/1000).

    Floats (Python's, numpy's) are read through their shortest decimal repr, so 0.2 means 1/5,
    as a user means it; integers (Python's, numpy's), Fractions and Decimals are exact, with at
    most :data:`fstheory.user_numbers.MAX_VALUE_DIGITS` digits in the numerator and the
    denominator. Strings are read by :func:`fstheory.user_numbers.parse_rational` (ASCII digits,
    exponent and digit limits, never ``10**exponent`` from an unchecked exponent).

    >>> to_rational("k", "0.2"), to_rational("a", -1e-3), to_rational("k", "1/3")
    (1/5, -1/1000, 1/3)
    >>> import numpy as np
    >>> to_rational("k", np.float64(0.2)), to_rational("d", np.int64(-3))
    (1/5, -3)
    >>> to_rational("k", "1e5000")
    Traceback (most recent call last):
    ...
    fstheory.scenarios.declaration.ParameterError: parameter 'k': the exponent of '1e5000' is out of range (expected at most 1000 in absolute value)
    >>> to_rational("k", 10**10000)
    Traceback (most recent call last):
    ...
    fstheory.scenarios.declaration.ParameterError: parameter 'k': the number ~10^10000 has too many digits (expected a numerator and a denominator of at most 2001 digits)
    """
    import numbers
    from decimal import Decimal

    def exact(q: Fraction) -> sp.Rational:
        try:
            q = check_exact(q, name)
        except NumberTextError as exc:
            raise ParameterError(str(exc)) from None
        return sp.Rational(q.numerator, q.denominator)

    if isinstance(value, bool) or type(value).__name__ == "bool_":
        raise ParameterError(f"parameter '{name}' must be a number (got {value!r})")
    if isinstance(value, sp.Expr):
        if value.is_Rational:
            return exact(Fraction(int(value.p), int(value.q)))
        raise ParameterError(f"parameter '{name}' must be a finite rational number (got {value})")
    if isinstance(value, numbers.Integral):
        return exact(Fraction(int(value)))
    if isinstance(value, Fraction):
        return exact(value)
    if isinstance(value, Decimal):
        if not value.is_finite():
            raise ParameterError(f"parameter '{name}' must be a finite number (got {value!r})")
        value = str(value)
    elif isinstance(value, numbers.Real):
        value = float(value)
        if not math.isfinite(value):
            raise ParameterError(f"parameter '{name}' must be a finite number (got {value!r})")
        value = repr(value)
    if isinstance(value, str):
        try:
            f = parse_rational(value, name)
        except NumberTextError as exc:
            raise ParameterError(str(exc)) from None
        return sp.Rational(f.numerator, f.denominator)
    raise ParameterError(f"parameter '{name}' must be a finite number (got {_short_repr(value)})")


def _short_repr(value) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:50] + "..."


def check_law(law: Law) -> None:
    """:meth:`Law.check`, after making sure that every parameter that is a number is a finite
    real one (``1/k`` or ``log(k)`` at k = 0 is not), so that the check can decide.

    Raises
    ------
    fstheory.theory.laws.LawParameterError
        Naming the law and the parameter.
    """
    for pname, v in zip(law.param_names, law.params):
        if v.is_number and (v.has(sp.zoo, sp.nan, sp.oo, -sp.oo) or v.is_extended_real is not True):
            raise LawParameterError(
                f"{law.name} law: parameter '{pname}' = {v} is not a finite real number"
            )
    law.check()


@dataclass(frozen=True)
class Parameter:
    """A scenario parameter: its symbol name, default, domain and meaning."""

    name: str
    default: object | None
    domain: str = "real"
    description: str = ""

    def __post_init__(self):
        if self.domain not in DOMAINS:
            raise ValueError(f"unknown parameter domain {self.domain!r}")
        if self.name in RESERVED_PARAMETER_NAMES:
            raise ValueError(f"parameter name {self.name!r} is reserved "
                             f"({', '.join(RESERVED_PARAMETER_NAMES)})")

    @property
    def symbol(self) -> sp.Symbol:
        return param_symbol(self.name, self.domain)

    @property
    def allowed(self) -> str:
        return DOMAINS[self.domain].text

    def validate(self, value) -> sp.Rational:
        v = to_rational(self.name, value)
        if not DOMAINS[self.domain].contains(v):
            raise ParameterError(f"parameter '{self.name}' must be {self.allowed} (got {_show(v)})")
        return v


def param_text(v) -> str:
    """An exact rational parameter as a short decimal when it terminates (in scientific notation,
    every digit kept, when the plain decimal would be longer than 24 characters), else p/q.

    >>> param_text(sp.Rational(1, 5)), param_text(sp.Rational(1, 3)), param_text(sp.Integer(-3))
    ('0.2', '1/3', '-3')
    >>> param_text(sp.Integer(10) ** 1000), param_text(-sp.Rational(25, 10**300))
    ('1e1000', '-2.5e-299')
    """
    f = Fraction(int(v.p), int(v.q))
    q = f.denominator
    twos = fives = 0
    while q % 2 == 0:
        q //= 2
        twos += 1
    while q % 5 == 0:
        q //= 5
        fives += 1
    if q != 1:
        return f"{f.numerator}/{f.denominator}"
    scale = max(twos, fives)
    n = abs(f.numerator) * 10**scale // f.denominator
    sign = "-" if f < 0 else ""
    digits = str(n).rjust(scale + 1, "0")
    plain = f"{sign}{digits[:-scale]}.{digits[-scale:]}" if scale else f"{sign}{digits}"
    if len(plain) <= 24 or n == 0:
        return plain
    mantissa = str(n).rstrip("0")
    exponent = len(str(n)) - 1 - scale
    point = f".{mantissa[1:]}" if len(mantissa) > 1 else ""
    return f"{sign}{mantissa[0]}{point}e{exponent}"


def _show(v: sp.Rational) -> str:
    if v.q == 1:
        return param_text(v)
    shown = f"{float(v):g}"
    return shown if shown not in ("0", "-0", "inf", "-inf") else param_text(v)


@dataclass(frozen=True)
class Feature:
    """A feature: a display label template and a sympy expression of the base variables.

    ``label`` may name parameters in braces, e.g. ``"{a}X{+b}"``; :meth:`display` fills them in
    ("3X+1"). ``generic`` is the label with parameter names ("aX+b").
    """

    label: str
    expr: sp.Expr
    template: str | None = None

    def display(self, params: Mapping[str, sp.Rational]) -> str:
        return render_label(self.template, params) if self.template else self.label


def _coef(v: sp.Rational) -> str:
    return "" if v == 1 else "-" if v == -1 else _num(v)


def _num(v: sp.Rational) -> str:
    return str(v) if v.q == 1 else f"{float(v):g}"


def render_label(template: str, params: Mapping[str, sp.Rational]) -> str:
    """Fill ``{a}`` (a coefficient: '' for 1, '-' for -1) and ``{+b}`` (a signed term, dropped
    when zero) in a label template.

    >>> from sympy import Rational
    >>> render_label("{a}X{+b}", {"a": Rational(3), "b": Rational(1)})
    '3X+1'
    >>> render_label("{a}X{+b}", {"a": Rational(-1), "b": Rational(-1, 2)})
    '-X-0.5'
    >>> render_label("W{+d}", {"d": Rational(0)})
    'W'
    """

    def repl(m: re.Match) -> str:
        signed, name = m.group(1), m.group(2)
        v = params[name]
        if signed:
            return "" if v == 0 else (f"+{_num(v)}" if v > 0 else f"-{_num(-v)}")
        return _coef(v)

    return re.sub(r"\{(\+?)(\w+)\}", repl, template)


@dataclass(frozen=True)
class ClassRule:
    """The class rule C = 1{rule}: a linear threshold ``C = 1{sum_b w_b * b >= threshold}`` (the
    paper's C_k = 1{X + kY >= 0}, eq. (class_Ck)) given by ``weights`` and ``threshold``, or a
    polynomial rule ``C = 1{form >= 0}`` (``X*Y >= 0``, ``r - X^2 - Y^2 >= 0``) given by ``form``.

    >>> import sympy as sp
    >>> X, Y = sp.symbols("X Y", real=True)
    >>> ClassRule({X: 1, Y: 2}, 1).describe(), ClassRule(form=X * Y).describe()
    ('C = 1{X + 2*Y >= 1}', 'C = 1{X*Y >= 0}')
    >>> ClassRule(form=X * Y).is_linear, ClassRule({X: 1}).rule_form()
    (False, X)
    """

    weights: Mapping[sp.Symbol, sp.Expr] = field(default_factory=dict)
    threshold: sp.Expr = sp.Integer(0)
    form: sp.Expr | None = None

    @property
    def is_linear(self) -> bool:
        return self.form is None

    def linear_form(self) -> sp.Expr:
        return sp.Add(*(w * b for b, w in self.weights.items()))

    def rule_form(self) -> sp.Expr:
        """F with C = 1{F >= 0}."""
        if self.form is not None:
            return self.form
        return self.linear_form() - sp.sympify(self.threshold)

    def describe(self) -> str:
        if self.form is not None:
            return f"C = 1{{{sp.sstr(self.form)} >= 0}}"
        return f"C = 1{{{sp.sstr(self.linear_form())} >= {sp.sstr(self.threshold)}}}"


@dataclass(frozen=True)
class Scenario:
    """A declared analytic scenario.

    Parameters
    ----------
    name, title, source : str
        Registry key, human title, where it comes from (paper section).
    parameters : tuple of Parameter
    base : dict Symbol -> Law
        Independent base variables and their laws (laws may use parameter symbols).
    features : tuple of Feature
    class_rule : ClassRule
    closed_forms : dict, optional
        Scenario-specific closed forms: ``{"mi_class": {feature expression: MI(C; feature)}}``
        (as Scenario I declares them, :mod:`fstheory.scenarios.uniform`); the derivation
        (:func:`fstheory.engine.derive.derive`) takes them in place of its own.
    checks : tuple of callables
        Extra cross-parameter checks raising :class:`ParameterError`.
    """

    name: str
    title: str
    source: str
    parameters: tuple[Parameter, ...]
    base: Mapping[sp.Symbol, Law]
    features: tuple[Feature, ...]
    class_rule: ClassRule
    closed_forms: object | None = None
    checks: tuple = field(default=())

    def parameter(self, name: str) -> Parameter:
        for p in self.parameters:
            if p.name == name:
                return p
        raise ParameterError(
            f"unknown parameter '{name}' for scenario '{self.name}' "
            f"(allowed: {', '.join(p.name for p in self.parameters)})"
        )

    @property
    def symbols(self) -> dict[str, sp.Symbol]:
        return {p.name: p.symbol for p in self.parameters}

    def bind(self, **values) -> "BoundScenario":
        """Validate parameter values (defaults filled in) and return the bound scenario."""
        for name in values:
            self.parameter(name)
        params: dict[str, sp.Rational] = {}
        for p in self.parameters:
            value = values.get(p.name)
            if value is None:
                if p.default is None:
                    raise ParameterError(f"parameter '{p.name}' is required ({p.allowed})")
                value = p.default
            params[p.name] = p.validate(value)
        subs = {self.symbols[n]: v for n, v in params.items()}
        for sym, law in self.base.items():
            bound_law = law.subs(subs)
            try:
                check_law(bound_law)
            except LawParameterError as exc:
                at = ", ".join(f"{n} = {param_text(v)}" for n, v in params.items()
                               if self.symbols[n] in law.free_symbols)
                raise ParameterError(f"base variable {sym}: {exc}{f' at {at}' if at else ''}") from None
        for check in self.checks:
            check(params)
        bound = BoundScenario(self, params)
        _check_bound(bound)
        return bound


@dataclass(frozen=True)
class BoundScenario:
    """A scenario with validated, exact (rational) parameter values."""

    scenario: Scenario
    params: dict

    @property
    def subs(self) -> dict:
        return {self.scenario.symbols[n]: v for n, v in self.params.items()}

    def laws(self) -> dict:
        """Base symbol -> law with numeric parameters."""
        return {s: law.subs(self.subs) for s, law in self.scenario.base.items()}

    def feature_exprs(self) -> list[sp.Expr]:
        return [f.expr.subs(self.subs) for f in self.scenario.features]

    def class_weights(self) -> dict:
        """The weights of a linear rule (a ParameterError for a polynomial rule)."""
        rule = self.scenario.class_rule
        if not rule.is_linear:
            raise ParameterError(
                f"scenario '{self.scenario.name}': the class rule {rule.describe()} is not a "
                "linear threshold (this use needs one)")
        return {b: sp.sympify(w).subs(self.subs) for b, w in rule.weights.items()}

    def class_threshold(self) -> sp.Expr:
        self.class_weights()
        return sp.sympify(self.scenario.class_rule.threshold).subs(self.subs)

    def class_rule(self):
        """The bound rule (:class:`fstheory.theory.rule.Rule`): C = 1{form >= 0}."""
        from fstheory.theory.rule import Rule

        return Rule(sp.expand(sp.sympify(self.scenario.class_rule.rule_form()).subs(self.subs)))

    def display_labels(self) -> list[str]:
        return [f.display(self.params) for f in self.scenario.features]


def _finite(expr) -> bool:
    expr = sp.sympify(expr)
    if expr.has(sp.zoo, sp.oo, -sp.oo, sp.nan):
        return False
    return all(a.is_finite is not False for a in sp.preorder_traversal(expr) if a.is_number)


def _check_bound(bound: BoundScenario) -> None:
    """At the bound values: every feature and the rule are finite real expressions, and each
    feature is real on the support of its base variables (``sqrt(Y)`` with Y ~ Unif(-a, 1) is
    refused when a > 0)."""
    from fstheory.scenarios.grammar import MAX_MAGNITUDE, magnitude_problem
    from fstheory.theory.feature_maps import domain_problem

    laws = bound.laws()
    params = ", ".join(f"{k} = {param_text(v)}" for k, v in bound.params.items())
    limit = f"(constants are limited to 10^-{MAX_MAGNITUDE} .. 10^{MAX_MAGNITUDE})"
    for sym, law in laws.items():
        for pname, v in zip(law.param_names, law.params):
            why = magnitude_problem(v)
            if why:
                raise ParameterError(f"base variable {sym}: {law.name} law parameter '{pname}' is "
                                     f"{why} at {params} {limit}")
    for f, expr in zip(bound.scenario.features, bound.feature_exprs()):
        if not _finite(expr):
            raise ParameterError(f"feature {f.label} = {expr} is not finite at {params}")
        why = magnitude_problem(expr)
        if why:
            raise ParameterError(f"feature {f.label}: a constant is {why} at {params} {limit}")
        why = domain_problem(expr, laws)
        if why:
            raise ParameterError(f"feature {f.label}: {why} (at {params})")
    form = sp.expand(sp.sympify(bound.scenario.class_rule.rule_form()).subs(bound.subs))
    if not _finite(form):
        raise ParameterError(f"class rule {bound.scenario.class_rule.describe()}: a coefficient "
                             f"is not finite at {params}")
    why = magnitude_problem(form)
    if why:
        raise ParameterError(f"class rule {bound.scenario.class_rule.describe()}: a coefficient is "
                             f"{why} at {params} {limit}")
