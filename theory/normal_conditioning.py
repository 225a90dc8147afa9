"""MI(C, V) for a feature V linear in normal base variables and a nonlinear class rule: given V
the normal variables are V's share plus independent normal residuals, so P(C = 1 | V = v) is
the class probability of the rule rewritten in v and the residuals (a disc X^2 + Y^2 <= r given
X + Y = v is a quadratic in one normal residual: closed).

Formulas. Let D = X_S - mu_S be the centred normal variables of V = a . X_S + e, covariance
Sigma = diag(sigma_b^2) (rational). Take a basis v_0 = a, v_1, ..., v_(n-1) orthogonal for
<x, y> = x^T Sigma y (Gram-Schmidt, exact rationals) and T_k = v_k . D: independent,
T_k ~ N(0, d_k), d_k = v_k^T Sigma v_k, and T_0 = V - E[V]. Since V^T Sigma V = diag(d), the
identity ``sum_k Sigma v_k v_k^T / d_k = I`` gives

    X_S = mu_S + sum_k Sigma v_k T_k / d_k,

so the rule is a polynomial in v and the residuals T_1, ..., T_(n-1) (with the rule's other
variables), and P(C = 1 | V = v) is :class:`fstheory.theory.class_probability.ClassProbability`
of that form, the residuals its remaining variables. Then
MI(C, V) = H(C) - E[H_b(P(C = 1 | V))], one certified integral against V's normal law.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import arb

from fstheory.theory.laws import Normal

__all__ = ["conditioned_class_average", "normal_residuals"]


def normal_residuals(expr, laws: dict):
    """(v, substitution, residuals, mean, var) for V = expr linear in two or more normal base
    variables with rational means and variances: ``substitution`` maps each of them to
    ``mu + (Sigma v_0)(v - E V)/d_0 + sum_k (Sigma v_k) T_k / d_k``; residuals = [(T_k, d_k)].
    None when these hypotheses fail."""
    expr = sp.expand(sp.sympify(expr))
    bases = sorted((b for b in expr.free_symbols if b in laws), key=str)
    if len(bases) < 2 or not all(isinstance(laws[b], Normal) for b in bases):
        return None
    coefs = [sp.diff(expr, b) for b in bases]
    if any(c.free_symbols or not c.is_Rational for c in coefs):
        return None
    const = sp.expand(expr - sum(c * b for c, b in zip(coefs, bases)))
    if const.free_symbols:
        return None
    mus = [sp.sympify(laws[b].params[0]) for b in bases]
    var = [sp.sympify(laws[b].params[1]) ** 2 for b in bases]
    if not all(t.is_Rational for t in mus + var):
        return None

    def dot(x, y):
        return sum((xi * yi * s for xi, yi, s in zip(x, y, var)), sp.Integer(0))

    basis = [list(coefs)]
    n = len(bases)
    for i in range(n):
        e = [sp.Integer(1 if j == i else 0) for j in range(n)]
        for w in basis:
            e = [ej - dot(e, w) / dot(w, w) * wj for ej, wj in zip(e, w)]
        if any(t != 0 for t in e) and len(basis) < n:
            basis.append(e)
    v = sp.Symbol("V_", real=True)
    mean = sum((c * m for c, m in zip(coefs, mus)), const)
    d = [dot(w, w) for w in basis]
    ts = [v - mean] + [sp.Symbol(f"T{k}_", real=True) for k in range(1, n)]
    sub = {b: mus[j] + sum((var[j] * basis[k][j] * ts[k] / d[k] for k in range(n)), sp.Integer(0))
           for j, b in enumerate(bases)}
    return v, sub, list(zip(ts[1:], d[1:])), mean, d[0]


def conditioned_class_average(expr, laws: dict, rule, acc):
    """(E[H_b(P(C = 1 | V))], error, method, proved) for V = expr linear in normal variables
    and a rule that is not linear (see the module docstring), or None where the hypotheses do
    not hold or the rewritten rule leaves a class probability that is not closed."""
    from fstheory.theory.class_probability import ClassProbability
    from fstheory.theory.coordinates import Coordinate, System
    from fstheory.theory.expectation import expect
    from fstheory.theory.integrands import class_mixture
    from fstheory.theory.univariate import base_law

    bases = list(laws)
    if rule.linear(bases) is not None:
        return None
    found = normal_residuals(expr, laws)
    if found is None:
        return None
    v, sub, residuals, mean, var = found
    if not set(sub) & set(rule.bases(bases)):
        return None
    form = sp.expand(rule.form.xreplace(sub))
    others = sorted(rule.bases(bases) - set(sub), key=str)
    remaining = [Coordinate(t, {}, _normal(Fraction(0), d), True) for t, d in residuals
                 if t in form.free_symbols]
    remaining += [Coordinate(b, {b: sp.Integer(1)}, base_law(laws[b], acc), True) for b in others]
    for r in remaining:
        if sp.degree(form, r.symbol) > 2:
            return None
    law = _normal(Fraction(int(mean.p), int(mean.q)), var)
    coord = Coordinate(v, {}, law, False)
    system = System([coord], [v], form, None, remaining)
    q = ClassProbability(system, acc)
    if not q.closed or q.remaining[:-1]:
        return None  # an inner numerical integral: left to the routes of several coordinates
    F = class_mixture(system, [{v: v}], sp.Integer(1), q)
    val, err, how, proved = expect([coord], F, q.cuts(), acc)
    return val, err, f"E[H_b(P(C=1|V))], V normal, the rule given V in its residuals, {how}", proved


def _normal(mean: Fraction, var):
    from fstheory.theory.law1d import Normal as NormalLaw

    var = sp.Rational(var)
    sd = arb(int(var.p)).sqrt() / arb(int(var.q)).sqrt()
    return NormalLaw(arb(mean.numerator) / mean.denominator, sd, mean, var)
