"""Sympy expressions evaluated on arb and acb balls (python-flint), compiled once.

:func:`compile_expr` turns an expression in given symbols into a Python function of arb or
acb arguments, built from closures (no ``eval``): sums, products, integer and rational powers,
``exp``, ``log``, ``sqrt``, ``Abs`` and ``sign`` (real arguments only; for complex balls
resolve them first with :func:`resolve_abs`), and the numbers ``pi`` and ``E``. Rationals are exact arb quotients, so
no float enters. ``log`` and ``sqrt`` honour an ``analytic`` flag for certified quadrature.

Examples
--------
>>> import sympy as sp
>>> from flint import arb
>>> x, y = sp.symbols("x y", real=True)
>>> f = compile_expr(x**2 / 3 + sp.exp(y) - sp.Abs(x), (x, y))
>>> f(arb(-3), arb(0)).str(10, radius=False)
'1.000000000'
>>> g = compile_expr(sp.sqrt(x) * sp.log(x), (x,))
>>> g(arb(4)).str(8, radius=False)
'2.7725887'
>>> resolve_abs(sp.Abs(x - 1) + sp.Abs(y), {x: 0, y: 2})
-x + y + 1
"""

from __future__ import annotations

import sympy as sp
from flint import acb, arb

from fstheory.theory.balls import ipow

__all__ = ["compile_expr", "resolve_abs", "UnsupportedExpression"]


class UnsupportedExpression(ValueError):
    """An expression with an operation the arb compiler does not know."""


def _const(value):
    return lambda env, an: value


def _number(e) -> arb:
    if e.is_Integer:
        return arb(int(e))
    if e.is_Rational:
        return arb(int(e.p)) / int(e.q)
    if e is sp.pi:
        return arb.pi()
    if e is sp.E:
        return arb(1).exp()
    if e.is_Float:
        return arb(str(e))
    if e.is_number and e.is_real:
        return None
    raise UnsupportedExpression(f"cannot evaluate {e} on balls")


def _build(e, index):
    if e.is_Symbol:
        if e not in index:
            raise UnsupportedExpression(f"unexpected symbol {e}")
        i = index[e]
        return lambda env, an: env[i]
    if e.is_number:
        v = _number(e)
        if v is not None:
            return _const(v)
    if e.is_Add:
        parts = [_build(a, index) for a in e.args]

        def add(env, an):
            total = parts[0](env, an)
            for p in parts[1:]:
                total = total + p(env, an)
            return total

        return add
    if e.is_Mul:
        parts = [_build(a, index) for a in e.args]

        def mul(env, an):
            total = parts[0](env, an)
            for p in parts[1:]:
                total = total * p(env, an)
            return total

        return mul
    if e.is_Pow:
        base, expo = e.args
        b = _build(base, index)
        if expo.is_Integer:
            n = int(expo)
            if n >= 0:
                return lambda env, an: ipow(b(env, an), n)
            return lambda env, an: 1 / ipow(b(env, an), -n)
        if expo.is_Rational and expo.q == 2:
            n = int(expo.p)

            def half(env, an):
                r = _sqrt(b(env, an), an)
                return ipow(r, n) if n >= 0 else 1 / ipow(r, -n)

            return half
        ex = _build(expo, index)
        return lambda env, an: (ex(env, an) * _log(b(env, an), an)).exp()
    if isinstance(e, sp.exp):
        a = _build(e.args[0], index)
        return lambda env, an: a(env, an).exp()
    if isinstance(e, sp.log):
        a = _build(e.args[0], index)
        return lambda env, an: _log(a(env, an), an)
    if isinstance(e, sp.sign):
        return _real_only(_build(e.args[0], index), _sign, "sign")
    if isinstance(e, sp.Abs):
        return _real_only(_build(e.args[0], index), abs, "|.|")
    raise UnsupportedExpression(f"cannot evaluate {type(e).__name__} ({e}) on balls")


def _sign(v: arb) -> arb:
    return arb(1) if v > 0 else (arb(-1) if v < 0 else arb(0))


def _real_only(a, fn, name: str):
    """fn of a real argument; on a complex ball the branch must be resolved first."""

    def g(env, an):
        v = a(env, an)
        if isinstance(v, acb):
            raise UnsupportedExpression(f"{name} on a complex ball: resolve it first")
        return fn(v)

    return g


def _log(v, analytic):
    if isinstance(v, acb):
        return v.log(analytic=analytic)
    return v.log()


def _sqrt(v, analytic):
    if isinstance(v, acb):
        return v.sqrt(analytic=analytic)
    return v.sqrt()


def compile_expr(expr, symbols):
    """A function ``f(*values, analytic=False)`` evaluating ``expr`` at arb/acb ``values``."""
    expr = sp.sympify(expr)
    index = {s: i for i, s in enumerate(symbols)}
    fn = _build(expr, index)

    def f(*values, analytic=False):
        return fn(values, analytic)

    return f


def resolve_abs(expr, point: dict):
    """Replace every |a| by a or -a, as it is at ``point`` (a dict symbol -> number)."""

    def sign(a):
        val = sp.N(a.subs(point), 30)
        return 1 if val >= 0 else -1

    return expr.replace(lambda e: isinstance(e, sp.Abs), lambda e: sign(e.args[0]) * e.args[0])
