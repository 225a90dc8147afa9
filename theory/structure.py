"""Structure derived from the declarations: which MIs are +inf, which are 0, and why.

* Two features built on disjoint sets of independent base variables are independent: MI = 0.
* Two features whose Jacobian with respect to the base variables has rank < 2 everywhere are
  functionally dependent (one is a measurable function of the other, locally): their joint law
  is singular while both marginals are continuous, so MI = +inf (Kotz 1966, cited in Section 6).
* MI(C, V) = 0 when V shares no base variable with the class rule, or by a symmetry: if a
  measure-preserving involution tau of the base variables (signed permutation of identically
  distributed, symmetric variables) fixes V and maps the rule's form F (C = 1{F >= 0}) to -F
  (for a linear rule L >= t: L(tau) = 2t - L), then P(C=1 | V) = P(C=0 | V), so C is independent
  of V. This is the paper's Appendix theorem (MI(C_k, X^2) = 0, tau = (X, Y) -> (-X, -Y)) in
  general form; it needs the threshold mapped correctly and laws symmetric about the right
  centre (a non-zero threshold, an asymmetric or exponential law usually break it).
* MI(C, V) = 0 also when V and the rule's linear form are jointly normal and uncorrelated
  (linear in independent base variables, all shared ones normal, covariance 0).
* MI(C, V) = H(C) when C is a function of V: a linear rule whose form is proportional to the
  linear part of V (C = 1{L >= t} with L = lambda (V - e)).

The shortcuts are checked again at the bound parameter values (:mod:`fstheory.engine.evaluate`):
a feature that is constant there (``k*Y`` at k = 0) has h = -inf and MI 0 with everything.

Examples
--------
>>> import sympy as sp
>>> from fstheory.theory.laws import Normal, Exponential
>>> X, Y = sp.symbols("X Y", real=True)
>>> laws = {X: Normal(0, 1), Y: Normal(0, 1)}
>>> class_symmetry(Y**2, X + Y, laws).describe()
'(X -> -X, Y -> -Y)'
>>> from fstheory.theory.laws import Uniform
>>> class_symmetry((X - sp.Rational(1, 2))**2, X + Y - 1, {X: Uniform(0, 1), Y: Uniform(0, 1)}).describe()
'(X -> 1 - X, Y -> 1 - Y)'
>>> class_symmetry(Y**2, X + Y - 1, laws) is None      # a non-zero threshold breaks it
True
>>> class_symmetry(Y**2, X + Y, {X: Exponential(1), Y: Exponential(1)}) is None
True
>>> class_determined(X + Y, X + Y - 1, laws), gaussian_independent(X - Y, X + Y - 1, laws)
(True, True)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import sympy as sp

from fstheory.theory.budget import SymbolicTimeout, symbolic_budget
from fstheory.theory.symbolic import exact_nsimplify

__all__ = [
    "bases_of",
    "classify",
    "is_constant",
    "jacobian_rank_deficient",
    "class_symmetry",
    "class_preserving_map",
    "class_determined",
    "gaussian_independent",
    "linear_direction",
    "linear_in",
    "composite",
    "FORM",
    "Involution",
]


def bases_of(expr: sp.Expr, bases) -> frozenset:
    return frozenset(s for s in sp.sympify(expr).free_symbols if s in bases)


def is_constant(expr: sp.Expr, bases) -> bool:
    """True when the expression uses no base variable (at bound parameters: ``0*Y``)."""
    return not bases_of(sp.expand(sp.sympify(expr)), bases)


def jacobian_rank_deficient(e1: sp.Expr, e2: sp.Expr, bases) -> bool:
    """True if d(e1, e2)/d(bases) has rank < 2 identically (all 2x2 minors vanish)."""
    used = sorted(bases_of(e1, bases) | bases_of(e2, bases), key=str)
    if len(used) < 2:
        return True
    g1 = [sp.diff(e1, b) for b in used]
    g2 = [sp.diff(e2, b) for b in used]
    for i, j in itertools.combinations(range(len(used)), 2):
        if sp.simplify(g1[i] * g2[j] - g1[j] * g2[i]) != 0:
            return False
    return True


@dataclass(frozen=True)
class Involution:
    """b -> image expression for each base variable (a signed permutation, possibly with
    reflections about centres of symmetry: X -> 1 - X for X ~ U(0, 1))."""

    mapping: tuple  # ((b, image expression), ...)

    def subs(self) -> dict:
        return dict(self.mapping)

    def describe(self) -> str:
        return "(" + ", ".join(f"{b} -> {sp.sstr(img)}" for b, img in self.mapping) + ")"


def _images(b, img, laws: dict) -> list:
    """Law-preserving images of b built from the variable img: img itself (same law), -img
    (law of b = law of -img), 2c - img (same law, symmetric about c != 0)."""
    target, source = laws[b], laws[img]
    out = []
    if target == source:
        out.append(img)
    flipped = source.affine(sp.Integer(-1), sp.Integer(0))
    if flipped is not None and target == flipped:
        out.append(-img)
    if target == source:
        c = source.center()
        if c is not None and sp.simplify(c) != 0:
            out.append(2 * c - img)
    return out


def _law_preserving_maps(used: list, laws: dict):
    """Every law-preserving signed permutation (with reflections about centres) of the base
    variables ``used``, as a dict b -> image, identity included; at most five variables (5! maps
    times their signs), else none."""
    if len(used) > 5:
        return
    for perm in itertools.permutations(used):
        options = [_images(b, img, laws) for b, img in zip(used, perm)]
        if all(options):
            for images in itertools.product(*options):
                yield dict(zip(used, images))


def _same(a: sp.Expr, b: sp.Expr) -> bool:
    return sp.expand(a - b) == 0


def class_symmetry(v, form: sp.Expr, laws: dict) -> Involution | None:
    """A law-preserving signed permutation (with reflections about centres) tau with
    v(tau) = v (each feature of v, when v is a tuple) and form(tau) = -form."""
    vs = tuple(v) if isinstance(v, (tuple, list)) else (v,)
    vs = tuple(sp.sympify(e) for e in vs)
    form = sp.expand(sp.sympify(form))
    used = sorted(set().union(*(bases_of(e, laws) for e in vs)) | bases_of(form, laws), key=str)
    for tau in _law_preserving_maps(used, laws):
        if (any(tau[b] != b for b in used) and _same(form.xreplace(tau), -form)
                and all(_same(e.xreplace(tau), e) for e in vs)):
            return Involution(tuple(tau.items()))
    return None


def class_preserving_map(source, target, form: sp.Expr, laws: dict) -> Involution | None:
    """A law-preserving signed permutation (with reflections about centres) tau with
    source(tau) = target and form(tau) = form. Then MI(C, target) = MI(C, source): tau preserves
    the law of the base variables and C o tau = C, so (C, target) = (C, source) o tau has the law
    of (C, source)."""
    source, target = sp.expand(sp.sympify(source)), sp.expand(sp.sympify(target))
    form = sp.expand(sp.sympify(form))
    used = sorted(bases_of(source, laws) | bases_of(target, laws) | bases_of(form, laws), key=str)
    for tau in _law_preserving_maps(used, laws):
        if _same(source.xreplace(tau), target) and _same(form.xreplace(tau), form):
            return Involution(tuple(tau.items()))
    return None


def classify(expr, bases):
    """(kind, data): kind in constant | linear | single | product | general.

    ``linear``: data = (coefficients dict, constant); ``single``: data = the base symbol;
    ``product``: data = (B1, B2, c, e) with expr = c B1 B2 + e.
    """
    expr = sp.expand(sp.sympify(expr))
    used = sorted(bases_of(expr, bases), key=str)
    if not used:
        return "constant", expr
    coefs = {}
    linear = True
    for b in used:
        c = sp.diff(expr, b)
        if c.free_symbols & set(used):
            linear = False
            break
        coefs[b] = c
    if linear:
        const = sp.expand(expr - sum(c * b for b, c in coefs.items()))
        return "linear", (coefs, const)
    if len(used) == 1:
        return "single", used[0]
    if len(used) == 2:
        b1, b2 = used
        c = sp.diff(expr, b1, b2)
        if not c.free_symbols and c != 0:
            rest = sp.expand(expr - c * b1 * b2)
            if not rest.free_symbols & set(used):
                return "product", (b1, b2, c, rest)
    return "general", None


def _linear(expr, bases):
    """The coefficients of a linear ``expr`` ({} for a constant), else None."""
    kind, data = classify(expr, bases)
    if kind == "constant":
        return {}
    return data[0] if kind == "linear" else None


def class_determined(v: sp.Expr, form: sp.Expr, laws: dict) -> bool:
    """C = 1{form >= 0} is a function of v: both linear and the form's coefficients
    proportional to v's (on the same base variables)."""
    cv, cf = _linear(v, laws), _linear(form, laws)
    if not cv or not cf or set(cv) != set(cf):
        return False
    b0 = next(iter(cv))
    ratio = exact_nsimplify(sp.simplify(cf[b0] / cv[b0]))
    return all(sp.simplify(cf[b] - ratio * cv[b]) == 0 for b in cv)


def linear_in(expr, b, bases) -> bool:
    """``expr`` is affine in the base variable ``b`` (its derivative uses no base variable)."""
    return not (sp.diff(expr, b).free_symbols & set(bases))


#: the variable of g in :func:`composite` (the value of the linear form)
FORM = sp.Symbol("w_", real=True)


def composite(f, bases):
    """(direction, g) when ``f`` is a nonlinear function g(L) of one linear form L = b0 +
    sum_b r_b b of two or more base variables, else None; ``direction`` maps each base variable
    to r_b (1 for b0) and g is an expression in ``FORM`` (the form's constant stays in g).

    The ratios r_b are those of the gradient (constant when f is a function of one form), and
    the claim is checked exactly: f with b0 = w - sum r_b b must be free of every base variable.

    >>> X, Y = sp.symbols("X Y", real=True)
    >>> composite(sp.Abs(X - Y), [X, Y])
    ({X: 1, Y: -1}, Abs(w_))
    >>> composite(X * Y, [X, Y]) is None
    True
    """
    f = sp.sympify(f)
    used = sorted((b for b in f.free_symbols if b in bases), key=str)
    if len(used) < 2 or all(linear_in(f, b, bases) for b in used):
        return None
    try:
        with symbolic_budget(5, f"whether {f} is a function of one linear form"):
            grads = [sp.diff(f, b) for b in used]
            if grads[0] == 0:
                return None
            ratios = [sp.simplify(g / grads[0]) for g in grads]
            if any(r.free_symbols & set(bases) for r in ratios):
                return None
            b0 = used[0]
            g = sp.simplify(f.subs(b0, FORM - sum(r * b for r, b in zip(ratios[1:], used[1:]))))
    except SymbolicTimeout:
        return None
    if g.free_symbols & set(bases):
        return None
    return dict(zip(used, ratios)), g


def linear_direction(expr, bases) -> dict | None:
    """Coefficients c with ``expr`` a function of the linear form sum_b c_b b, or None: a
    linear ``expr`` is its own form, a function of one base variable is a function of it, and
    otherwise :func:`composite` finds the form (``|X - Y|``, ``(X - Y)^2``; not ``X*Y``).

    >>> X, Y = sp.symbols("X Y", real=True)
    >>> linear_direction(sp.Abs(X - Y), {X, Y})
    {X: 1, Y: -1}
    >>> linear_direction(X * Y, {X, Y}) is None
    True
    """
    lin = _linear(expr, bases)
    if lin is not None:
        return lin
    used = sorted(bases_of(expr, bases), key=str)
    if len(used) == 1:
        return {used[0]: sp.Integer(1)}
    found = composite(expr, bases)
    return None if found is None else found[0]


def gaussian_independent(v: sp.Expr, form: sp.Expr, laws: dict) -> bool:
    """v and ``form`` (the rule's form, or another feature) are independent: each a function of
    a linear form in independent base variables (:func:`linear_direction`), every shared base
    normal, and the two linear forms uncorrelated. The forms' jointly normal parts are then
    independent and their private parts independent of the rest, so the forms are independent,
    and so are functions of them."""
    from fstheory.theory.laws import Normal

    cv, cf = linear_direction(v, laws), linear_direction(form, laws)
    if not cv or not cf:
        return False
    shared = set(cv) & set(cf)
    if not shared or not all(isinstance(laws[b], Normal) for b in shared):
        return False
    cov = sum(cv[b] * cf[b] * laws[b].params[1] ** 2 for b in shared)
    return sp.simplify(cov) == 0
