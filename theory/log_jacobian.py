r"""E ln|J(U)| for the change of variables of a pair of features, one factor at a time.

For V = phi(U) with Jacobian J the change of variables needs E ln|J(U)| over the independent
coordinates U. Write J = c * prod_k f_k^(m_k) (sympy's factorisation). Then, everywhere off the
null set where some f_k vanishes,

    ln|J| = ln|c| + sum_k m_k ln|f_k|,

and |.| and sign(.) factors drop out of the absolute value: |Abs(a)| = |a| and |sign(a)| = 1
where a != 0 (a null set for a continuous coordinate). By linearity of expectation (each term
is integrable: a logarithmic singularity against a bounded density, or the route refuses),

    E ln|J(U)| = ln|c| + sum_k m_k E ln|f_k(U)|,

and each term is a ONE-dimensional integral when f_k depends on one coordinate, or when f_k is
an affine form a . U + b of several coordinates: then f_k(U) = sum_B (sum_i a_i s_iB) B + b is
a linear combination of the independent base variables, whose law comes from the convolution
algebra (:func:`fstheory.theory.univariate.linear_combination`), and E ln|f_k(U)| = E ln|T| for
T of that law. The logarithmic singularity of ln|T| at 0 is then handled by the one-dimensional
certified quadrature (:func:`fstheory.theory.expectation.expect`), where a two-dimensional
cubature along the line {f_k = 0} (as ln|x - y| on the swap of (X + Y, X Y)) cannot certify.
Other factors keep their own multi-dimensional expectation.

Examples
--------
>>> import sympy as sp
>>> X, Y = sp.symbols("X Y", real=True)
>>> log_factors(-Y * sp.sign(Y) * 2 * (X - Y) ** 2)
(-2, [(Y, 1), (X - Y, 2)])
"""

from __future__ import annotations

import sympy as sp
from flint import arb

from fstheory.theory.coordinates import Coordinate
from fstheory.theory.expectation import expect
from fstheory.theory.integrands import cuts_of, log_abs, num
from fstheory.theory.univariate import Unsupported, linear_combination

__all__ = ["log_factors", "expected_log_abs"]


def log_factors(jac) -> tuple:
    """(c, [(f_k, m_k)]): |J| = |c| prod_k |f_k|^(m_k) off a null set, with c a number, the f_k
    non-constant, and |.| and sign(.) factors of J replaced by their arguments or 1."""
    const = sp.Integer(1)
    merged: dict = {}
    todo = [(sp.factor(sp.sympify(jac)), sp.Integer(1), 0)]
    while todo:
        expr, power, depth = todo.pop()
        for factor in sp.Mul.make_args(expr):
            base, e = factor.as_base_exp()
            e = e * power
            while isinstance(base, sp.Abs):
                base = base.args[0]
            if isinstance(base, sp.sign) or not base.free_symbols:
                if not isinstance(base, sp.sign):
                    const *= base ** e
                continue
            inner = sp.factor(base)
            if depth < 3 and inner != base and isinstance(inner, (sp.Mul, sp.Pow)):
                todo.append((inner, e, depth + 1))  # |a| of a product: its factors
                continue
            merged[base] = merged.get(base, 0) + e
    return const, [(f, m) for f, m in merged.items() if m != 0]


def _line_coordinate(form, system, laws, acc) -> Coordinate | None:
    """The law of an affine form of the coordinates, as a coordinate of its own (None when the
    form is not affine)."""
    syms = [s for s in system.symbols if s in form.free_symbols]
    poly = sp.Poly(form, *syms) if form.is_polynomial(*syms) else None
    if poly is None or poly.total_degree() != 1:
        return None
    coefs: dict = {}
    for s in syms:
        a = poly.coeff_monomial(s)
        for b, w in system.coordinate(s).coefs.items():
            coefs[b] = coefs.get(b, 0) + a * w
    const = poly.coeff_monomial(1)
    try:
        law = linear_combination(coefs, const, laws, acc)
    except Unsupported:
        return None  # beyond the convolution budget: the factor keeps its own integral
    return Coordinate(sp.Symbol("T_line_", real=True), coefs, law, False)


def expected_log_abs(jac, system, laws: dict, acc):
    """(E ln|J(U)|, error, method, proved) over the coordinates of ``system``, factor by factor
    (module docstring); ``laws`` the base laws (for the law of an affine factor)."""
    const, factors = log_factors(jac)
    value, err, proved = abs(num(const)).log(), arb(0), True
    hows = []
    for f, m in factors:
        mult = num(m)
        own = [c for c in system.coords if c.symbol in f.free_symbols]
        if len(own) > 1:
            line = _line_coordinate(sp.expand(f), system, laws, acc)
            if line is not None:
                own, f = [line], line.symbol
        syms = [c.symbol for c in own]
        v, e, how, ok = expect(own, log_abs(f, syms), cuts_of(f, syms), acc)
        value, err, proved = value + mult * v, err + abs(mult) * e, proved and ok
        hows.append(how)
    how = ", ".join(sorted(set(hows))) if hows else "constant Jacobian"
    return value, err, how, proved
