"""Sympy expressions evaluated on arb and acb balls (python-flint): the project's one compiler.

:func:`compile_expr` turns an expression in given symbols into a Python function of arb or
acb arguments, built from closures once (no ``eval``); :func:`arb_of` evaluates an expression
(or a number) at the current precision. Every value is a ball that contains the true value:
each rounding error of arb is bounded, and constants (``pi``, ``E``, ``EulerGamma``,
rationals) are recomputed at the caller's precision on every call, so raising the precision
narrows every ball (what the engine's adaptive precision relies on).

What it knows:

* sums, products, integer powers (by multiplication: arb's ``**`` is nan on a ball holding 0),
  half-integer powers (``sqrt``) and other powers as ``exp(e log b)``;
* ``exp``, ``log``, ``erf``, ``erfc``, ``sin``, ``cos``, ``atan``, ``sinh``, ``cosh``,
  ``tanh``, ``polygamma(0, .)`` (digamma), ``expint``, ``Abs`` and ``sign``;
* ``log`` without cancellation near 1: ``log(1 + x)`` as arb's ``log1p(x)`` and ``log(q)`` of a
  rational q near 1 as ``log1p(q - 1)`` with ``q - 1`` exact (``log(1 - k)`` at k = 10^-300
  needs no extra bits);
* one-dimensional definite integrals: the constants of
  :mod:`fstheory.theory.special_integrals` (integrands arb cannot evaluate at an end, with
  proved end bounds), else over a finite range by arb's certified ``acb.integral``, and over a
  half line or the whole line when the integrand has a Gaussian envelope (a sum of products of
  numbers, exp of a quadratic with negative leading coefficient, erf and erfc): the finite part
  by ``acb.integral``, the tail bounded by the envelope
  (:func:`fstheory.theory.special_integrals.gaussian_envelope`).

Inside an integrand the arguments are acb balls: ``log``, ``sqrt`` and non-integer powers honour
``acb.integral``'s ``analytic`` flag (a ball meeting the branch cut is not analytic there);
``atan`` is written with logarithms for the same reason; ``Abs``, ``sign`` and ``expint`` are
refused there (resolve ``Abs`` first with :func:`resolve_abs`).

An expression outside this list raises :class:`UnsupportedExpression` (a
:class:`NoEnclosure`: the quantity has no rigorous ball from this compiler).

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
>>> k = sp.Rational(1, 10**300)
>>> arb_of(-sp.log(1 - k) / k).str(5, radius=False)
'1.0000'
>>> arb_of(sp.Integral(sp.exp(-x**2), (x, 0, 1))).str(12, radius=False)
'0.746824132812'
>>> resolve_abs(sp.Abs(x - 1) + sp.Abs(y), {x: 0, y: 2})
-x + y + 1
"""

from __future__ import annotations

from fractions import Fraction
from functools import lru_cache

import mpmath
import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.balls import NoEnclosure, ipow
from fstheory.theory.interrupts import acb_integral
from fstheory.theory.special_integrals import gaussian_envelope, special_integral_ball

__all__ = ["compile_expr", "constant_ball", "arb_of", "arb_from_mpf", "resolve_abs", "UnsupportedExpression",
           "NoEnclosure"]


class UnsupportedExpression(NoEnclosure, ValueError):
    """An expression with an operation the arb compiler does not know."""


def _rational(p: int, q: int):
    if q == 1:
        v = arb(p)
        return lambda env, an: v
    return lambda env, an: arb(p) / q


def _constant(e):
    """A closure for a number atom, evaluated at the caller's precision; None if ``e`` is not an
    atom (a number written with functions, compiled as any expression)."""
    if e.is_Integer or e.is_Rational:
        return _rational(int(e.p), int(e.q))
    if e is sp.pi:
        return lambda env, an: arb.pi()
    if e is sp.E:
        return lambda env, an: arb.const_e()
    if e is sp.EulerGamma:
        return lambda env, an: arb.const_euler()
    if e is sp.Catalan:
        return lambda env, an: arb.const_catalan()
    if e.is_Float:
        v = arb_from_mpf(mpmath.mpf(e))  # the binary value the Float holds, exactly
        return lambda env, an: v
    if e in (sp.oo, -sp.oo, sp.zoo, sp.nan):
        raise UnsupportedExpression(f"cannot evaluate {e} on balls")
    return None


def _fold(parts, op):
    def fn(env, an):
        total = parts[0](env, an)
        for p in parts[1:]:
            total = op(total, p(env, an))
        return total

    return fn


def _build(e, index):
    if e.is_Symbol:
        if e not in index:
            raise UnsupportedExpression(f"unexpected symbol {e}")
        i = index[e]
        return lambda env, an: env[i]
    if e.is_Atom:
        c = _constant(e)
        if c is not None:
            return c
        raise UnsupportedExpression(f"cannot evaluate {e} on balls")
    if e.is_Add:
        return _fold([_build(a, index) for a in e.args], lambda s, t: s + t)
    if e.is_Mul:
        return _fold([_build(a, index) for a in e.args], lambda s, t: s * t)
    if e.is_Pow:
        return _power(e, index)
    if isinstance(e, sp.log):
        return _logarithm(e.args[0], index)
    if isinstance(e, sp.Abs):
        return _real_only(_build(e.args[0], index), abs, "|.|")
    if isinstance(e, sp.sign):
        return _real_only(_build(e.args[0], index), lambda v: v.sgn(), "sign")
    if isinstance(e, sp.atan):
        a = _build(e.args[0], index)
        return lambda env, an: _atan(a(env, an), an)
    if isinstance(e, sp.polygamma):
        if e.args[0] != 0:
            raise UnsupportedExpression(f"polygamma of order {e.args[0]}")
        a = _build(e.args[1], index)
        return lambda env, an: a(env, an).digamma()
    if isinstance(e, sp.expint):
        s, z = _build(e.args[0], index), _build(e.args[1], index)
        return _real_only(z, None, "expint", lambda v, env, an: v.expint(s(env, an)))
    for func, name in _ENTIRE.items():
        if isinstance(e, func):
            a = _build(e.args[0], index)
            return lambda env, an, name=name: getattr(a(env, an), name)()
    if isinstance(e, sp.Integral):
        return _integral(e, index)
    raise UnsupportedExpression(f"cannot evaluate {type(e).__name__} ({e}) on balls")


#: functions that are analytic wherever arb evaluates them (entire or meromorphic)
_ENTIRE = {sp.exp: "exp", sp.erf: "erf", sp.erfc: "erfc", sp.sin: "sin", sp.cos: "cos",
           sp.sinh: "sinh", sp.cosh: "cosh", sp.tanh: "tanh"}


def _power(e, index):
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
            r = _branch(b(env, an), "sqrt", an)
            return ipow(r, n) if n >= 0 else 1 / ipow(r, -n)

        return half
    ex = _build(expo, index)
    return lambda env, an: (ex(env, an) * _branch(b(env, an), "log", an)).exp()


def _logarithm(arg, index):
    """log(arg), with log1p where arg is 1 + x or a rational near 1 (no cancellation)."""
    if arg.is_Rational and abs(arg - 1) < sp.Rational(1, 2):
        d = arg - 1
        num, den = int(d.p), int(d.q)
        return lambda env, an: (arb(num) / den).log1p()
    if arg.is_Add:
        const, rest = arg.as_coeff_Add()
        if const == 1:
            r = _build(rest, index)

            def log1p(env, an):
                v = r(env, an)
                return (1 + v).log(analytic=an) if isinstance(v, acb) else v.log1p()

            return log1p
    a = _build(arg, index)
    return lambda env, an: _branch(a(env, an), "log", an)


def _branch(v, name: str, analytic: bool):
    """log or sqrt of a ball; on an acb ball with acb.integral's ``analytic`` flag."""
    if isinstance(v, acb):
        return getattr(v, name)(analytic=analytic)
    return getattr(v, name)()


def _atan(w, analytic):
    """atan; on an acb ball as (log(1 + i w) - log(1 - i w)) / (2i), so that a ball meeting
    the branch cuts (the imaginary axis beyond +-i) is not taken as analytic."""
    if not isinstance(w, acb):
        return w.atan()
    i = acb(0, 1)
    return ((1 + i * w).log(analytic=analytic) - (1 - i * w).log(analytic=analytic)) / (2 * i)


def _real_only(a, fn, name: str, call=None):
    """fn of a real argument; on a complex ball (an integrand) the branch must be resolved
    first."""

    def g(env, an):
        v = a(env, an)
        if isinstance(v, acb):
            raise UnsupportedExpression(f"{name} on a complex ball: resolve it first")
        return call(v, env, an) if call is not None else fn(v)

    return g


def _integral(e: sp.Integral, index):
    if len(e.limits) != 1 or len(e.limits[0]) != 3:
        raise UnsupportedExpression("only one-dimensional definite integrals")
    var, lo, hi = e.limits[0]
    if not e.free_symbols:
        if special_integral_ball(e) is not None:
            return lambda env, an: special_integral_ball(e)
    if not (lo.is_finite and hi.is_finite):
        return _infinite_integral(e)
    a, b = _build(lo, index), _build(hi, index)
    inner = dict(index)
    inner[var] = len(index)
    body = _build(e.function, inner)

    def integral(env, an):
        if any(isinstance(v, acb) for v in env):
            raise UnsupportedExpression("an integral inside an integrand")
        env = tuple(env)

        def f(z, analytic):
            return acb(body(env + (z,), analytic))

        val = acb_integral(f, acb(a(env, an)), acb(b(env, an)))
        if not val.real.is_finite() or not val.imag.contains(0):
            raise NoEnclosure(f"the integral {e} was not enclosed")
        return val.real

    return integral


def _infinite_integral(e: sp.Integral):
    """A constant integral over a half line or the whole line whose integrand has a Gaussian
    envelope (:func:`fstheory.theory.special_integrals.gaussian_envelope`): the finite part by
    ``acb.integral``, the tail bounded by the envelope."""
    var, lo, hi = e.limits[0]
    if e.free_symbols:
        raise UnsupportedExpression(f"an integral over an infinite range with parameters: {e}")
    v = sp.Dummy("v", real=True)
    pieces = []  # (integrand in v, start): the integral of each over [start, oo)
    if hi is sp.oo:
        pieces.append((e.function.subs(var, v), lo if lo.is_finite else sp.Integer(0)))
    if lo is -sp.oo:
        pieces.append((e.function.subs(var, -v), -hi if hi.is_finite else sp.Integer(0)))
    if len(pieces) != (2 if lo is -sp.oo and hi is sp.oo else 1) or not all(
            start.is_real and start.is_finite for _, start in pieces):
        raise UnsupportedExpression(f"an integral over an infinite range: {e}")
    envelopes = [gaussian_envelope(f, v) for f, _ in pieces]
    if any(env is None for env in envelopes):
        raise UnsupportedExpression(f"an integral over an infinite range whose integrand has no "
                                    f"Gaussian envelope: {e}")

    parts = []
    for (f, start), envelope in zip(pieces, envelopes):
        body = _build(f, {v: 0})
        constants = [tuple(_build(sp.sympify(c), {}) for c in term) for term in envelope.terms]
        parts.append((body, start, _build(start, {}), envelope, constants))

    def integral(env, an):
        if any(isinstance(x, acb) for x in env):
            raise UnsupportedExpression("an integral inside an integrand")
        total = arb(0)
        for body, start, a, envelope, constants in parts:
            T = envelope.cut(start, ctx.prec)
            b = arb(int(T.p)) / int(T.q)

            def f(z, analytic, body=body):
                return acb(body((z,), analytic))

            val = acb_integral(f, acb(a((), False)), acb(b))
            if not val.real.is_finite() or not val.imag.contains(0):
                raise NoEnclosure(f"the integral {e} was not enclosed")
            balls = [tuple(c((), False) for c in term) for term in constants]
            total += val.real + arb(0, envelope.tail(b, balls))
        return total

    return integral


def constant_ball(expr) -> arb:
    """A constant sympy expression (or its text) as an arb ball at the working precision."""
    return compile_expr(sp.sympify(expr), [])()


def compile_expr(expr, symbols):
    """A function ``f(*values, analytic=False)`` evaluating ``expr`` at arb/acb ``values`` (one
    per symbol of ``symbols``, in order) at the current precision."""
    return _compiled(sp.sympify(expr), tuple(symbols))


@lru_cache(maxsize=4096)
def _compiled(expr, symbols: tuple):
    fn = _build(expr, {s: i for i, s in enumerate(symbols)})

    def f(*values, analytic=False):
        return fn(values, analytic)

    return f


def arb_from_mpf(x: mpmath.mpf) -> arb:
    """An mpmath number as an arb, exactly (infinities as arb's)."""
    if mpmath.isinf(x):
        return arb.pos_inf() if x > 0 else arb.neg_inf()
    sign, man, exp, _ = x._mpf_
    m = -int(man) if sign else int(man)
    return arb(m) * arb(2) ** int(exp) if exp >= 0 else arb(m) / arb(2) ** int(-exp)


def arb_of(x, env: dict | None = None):
    """A ball (arb, or acb inside an integrand) containing the value of ``x`` at the current
    precision: a sympy expression, int, Fraction or mpf; ``env`` maps the expression's free
    symbols to balls."""
    if isinstance(x, mpmath.mpf):
        return arb_from_mpf(x)
    if isinstance(x, Fraction):
        return arb(x.numerator) / x.denominator
    if isinstance(x, int):
        return arb(x)
    env = env or {}
    syms = tuple(env)
    return compile_expr(sp.sympify(x), syms)(*(env[s] for s in syms))


def resolve_abs(expr, point: dict):
    """Replace every |a| by a or -a, as it is at ``point`` (a dict symbol -> number)."""

    def sign(a):
        val = sp.N(a.subs(point), 30)
        return 1 if val >= 0 else -1

    return expr.replace(lambda e: isinstance(e, sp.Abs), lambda e: sign(e.args[0]) * e.args[0])
