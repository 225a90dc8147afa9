"""The class rule of a bound scenario: C = 1{form >= 0} for a polynomial ``form`` of the base
variables with numeric coefficients.

Linear thresholds (``X + k*Y + Z >= 1``), products and signs (``X*Y >= 0``, ``X*Y*Z >= 0``) and
quadratic forms (``X^2 + Y^2 <= r``, stored as ``r - X^2 - Y^2 >= 0``) are all of this form. The
numerical route needs the form to be of degree at most 2 in each base variable, so that the set
where the rule holds is, along any one variable, a union of at most two intervals with ends in
closed form (:func:`fstheory.theory.class_probability.interval_probability`). ``>`` and ``>=`` give
the same class almost surely (continuous laws).

Examples
--------
>>> import sympy as sp
>>> X, Y = sp.symbols("X Y", real=True)
>>> r = Rule.from_linear({X: 1, Y: sp.Rational(1, 5)}, 1)
>>> r.form, r.linear([X, Y])
(X + Y/5 - 1, ({X: 1, Y: 1/5}, 1))
>>> Rule(X * Y).linear([X, Y]) is None, Rule(X * Y).check([X, Y]) is None
(True, True)
>>> Rule(X**3 - Y).check([X, Y])
'the class rule has degree 3 in X (at most 2 in each base variable is supported)'
"""

from __future__ import annotations

from dataclasses import dataclass

import sympy as sp

__all__ = ["Rule"]


@dataclass(frozen=True)
class Rule:
    """C = 1{form >= 0}."""

    form: sp.Expr

    @staticmethod
    def from_linear(weights: dict, threshold) -> "Rule":
        form = sp.Add(*(sp.sympify(w) * b for b, w in weights.items())) - sp.sympify(threshold)
        return Rule(sp.expand(form))

    def bases(self, bases) -> frozenset:
        return frozenset(s for s in self.form.free_symbols if s in bases)

    def linear(self, bases):
        """(weights, threshold) when the form is affine in the base variables, else None."""
        form = sp.expand(self.form)
        used = [b for b in bases if b in form.free_symbols]
        weights = {}
        for b in used:
            w = sp.diff(form, b)
            if w.free_symbols & set(used):
                return None
            weights[b] = w
        const = sp.expand(form - sum(w * b for b, w in weights.items()))
        if const.free_symbols & set(used):
            return None
        return weights, -const

    def check(self, bases) -> str | None:
        """Why the numerical route cannot use this rule, or None."""
        form = sp.expand(self.form)
        if not form.is_polynomial(*bases):
            return f"the class rule {form} >= 0 is not a polynomial in the base variables"
        for b in bases:
            d = sp.degree(form, b) if b in form.free_symbols else 0
            if d > 2:
                return (f"the class rule has degree {d} in {b} (at most 2 in each base variable "
                        f"is supported)")
        return None

    def subs(self, mapping) -> "Rule":
        return Rule(sp.expand(self.form.subs(mapping)))

    def describe(self) -> str:
        return f"C = 1{{{sp.sstr(self.form)} >= 0}}"
