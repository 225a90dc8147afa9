"""High-precision quadrature on arb balls (python-flint): certified in one dimension, estimated
when nested.

Two integrators share one convention: an integral over ``[a, b]`` is split at given breakpoints
(the points where the integrand is not analytic), and each piece is integrated separately.

* :func:`certified` -- arb's rigorous Gauss-Legendre integration with adaptive bisection
  (``acb.integral``, F. Johansson, "Numerical integration in arbitrary-precision ball
  arithmetic", ICMS 2018). The integrand of each piece is an analytic function of a complex
  ball, obtained from ``branch(midpoint)``: every piecewise choice (which piece of a density,
  which side of an indicator) is decided at a real point of the piece and the chosen analytic
  formula is then evaluated on complex balls. The returned error is a bound.
* :func:`integrate` -- double-exponential (tanh-sinh) quadrature at real points (Takahasi and
  Mori 1974; the scheme of ``mpmath.quad``), with adaptive bisection of pieces that do not
  converge. Used for nested integrals, whose inner values are not available on complex balls.
  The error is an estimate: the geometric extrapolation e1^2/e2 of the differences of the last
  three levels (e1 = |I_j - I_(j-1)|, e2 = |I_j - I_(j-2)|), plus the radius of the arb balls.

Precision is the caller's: :func:`flint_precision` sets python-flint's working precision for a
block and restores it afterwards; :func:`working_bits` derives the bits from ``mpmath.mp.dps``.

Which results are proved: every call of the estimating integrator (and every other step whose
error is an estimate, :func:`mark_estimate`) is recorded in the enclosing :func:`tracking`
blocks, so a caller knows whether a value rests on an estimate anywhere below it (an inner
integral of a density, a numerical convolution), not only in its outermost integral.

Examples
--------
>>> from flint import arb
>>> with flint_precision(120):
...     v, e = integrate(lambda x: (-x * x).exp(), [arb(-8), arb(8)], arb(10) ** -30)
...     print(v.str(25, radius=False), e < arb(10) ** -30)
1.772453850905516027298167 True
>>> with flint_precision(120):
...     v, e = certified(lambda m: (lambda z, an: z.sqrt(analytic=an)), [arb(0), arb(1)], arb(10) ** -30)
...     print(v.str(25, radius=False), e < arb(10) ** -30)
0.6666666666666666666666667 True
"""

from __future__ import annotations

import contextlib
import functools
import time
from typing import Callable, Sequence

import mpmath
from flint import acb, arb, ctx

from fstheory.theory.interrupts import acb_integral

__all__ = [
    "flint_precision",
    "time_limit",
    "work_limit",
    "working_bits",
    "integrate",
    "integrate_ball",
    "integrate_vector",
    "integrate_vector_balls",
    "certified",
    "best",
    "QuadratureError",
    "QuadratureTimeout",
    "tracking",
    "mark_estimate",
    "spend",
    "arb_integral",
    "to_mpf",
    "from_mpf",
]


#: evaluations arb may spend on one piece before :func:`certified` gives up (a class
#: probability's far tail needs about 6000 at 36 digits: complex balls there must stay narrow
#: enough for e^(-t^2) not to wrap around 0)
EVAL_LIMIT = 30000


class QuadratureError(ArithmeticError):
    """An integral that did not reach its tolerance (the caller refuses the quantity)."""


class QuadratureTimeout(QuadratureError):
    """The integrals of a quantity ran past their work or wall-time budget."""


_DEADLINES: list = []  # (monotonic deadline, seconds) of the enclosing time limits
_BUDGETS: list = []  # [evaluations left, evaluations allowed] of the enclosing work limits
_TRACES: list = []  # sets of reasons of the enclosing tracking blocks


@contextlib.contextmanager
def tracking():
    """Inside the block, the reasons why a result is only estimated are collected in the set
    yielded (empty when every integral was certified and every truncation bounded)."""
    reasons: set = set()
    _TRACES.append(reasons)
    try:
        yield reasons
    finally:
        _TRACES.remove(reasons)


def mark_estimate(reason: str) -> None:
    """Record, in every enclosing :func:`tracking` block, that an error is an estimate."""
    for reasons in _TRACES:
        reasons.add(reason)


@contextlib.contextmanager
def work_limit(evaluations: int):
    """Integrals inside the block raise :class:`QuadratureTimeout` once they have evaluated
    their integrands ``evaluations`` times in all (inner integrals included). Unlike a wall-time
    limit this does not depend on the machine or its load, so what is computed and what is
    refused is the same on every run. Yields the budget ``[left, allowed]`` (``left < 0`` once
    this limit, not an enclosing one, was exceeded)."""
    budget = [evaluations, evaluations]
    _BUDGETS.append(budget)
    try:
        yield budget
    finally:
        _BUDGETS.remove(budget)


def spend(count: int) -> None:
    """Count ``count`` integrand evaluations against the enclosing work limits (the innermost
    first, so that a sub-budget runs out before the quantity's own)."""
    for budget in reversed(_BUDGETS):
        budget[0] -= count
        if budget[0] < 0:
            raise QuadratureTimeout(f"the integration needs more than its budget of {budget[1]:,} "
                                    "integrand evaluations")


@contextlib.contextmanager
def time_limit(seconds: float):
    """Integrals inside the block raise :class:`QuadratureError` once ``seconds`` of wall time
    have passed (checked at every refinement level): a quantity out of the time budget is
    refused with that reason instead of running on."""
    _DEADLINES.append((time.monotonic() + seconds, seconds))
    try:
        yield
    finally:
        _DEADLINES.pop()


def check_time() -> None:
    """Raise QuadratureTimeout once the earliest enclosing :func:`time_limit` has run out;
    called between the panels of a quadrature or a cubature."""
    if _DEADLINES:
        deadline, seconds = min(_DEADLINES)
        if time.monotonic() > deadline:
            raise QuadratureTimeout(f"the integration needs more than its time budget of {seconds:g} s")


@contextlib.contextmanager
def flint_precision(bits: int):
    """Set python-flint's working precision to ``bits`` inside the block (restored after)."""
    old = ctx.prec
    ctx.prec = int(bits)
    try:
        yield
    finally:
        ctx.prec = old


def working_bits(extra: int = 30) -> int:
    """Bits matching the caller's ``mpmath.mp.dps``, plus ``extra`` guard bits."""
    return int(mpmath.mp.prec) + extra


def to_mpf(x: arb) -> mpmath.mpf:
    """The midpoint of a real ball as an mpmath number at the current mpmath precision."""
    return mpmath.mpf(x.mid().str(mpmath.mp.dps + 5, radius=False))


def from_mpf(x) -> arb:
    """An mpmath number (or int, str, Fraction) as an exact-as-possible arb."""
    if isinstance(x, arb):
        return x
    if isinstance(x, mpmath.mpf):
        if not mpmath.isfinite(x):
            return arb("inf") if x > 0 else arb("-inf")
        man, exp = x.man_exp
        return arb(man) * arb(2) ** exp if exp >= 0 else arb(man) / arb(2) ** (-exp)
    if hasattr(x, "numerator") and hasattr(x, "denominator"):
        return arb(int(x.numerator)) / int(x.denominator)
    return arb(x)


# --- tanh-sinh ----------------------------------------------------------------------------------

@functools.lru_cache(maxsize=256)
def _level_nodes(level: int, bits: int) -> tuple:
    """Nodes of level ``level`` (step 2^-level; odd multiples only for level > 0) on [-1, 1]:
    ``(1 - x, w)`` pairs, x = tanh(pi/2 sinh t), w = pi/2 cosh t / cosh^2(pi/2 sinh t); 1 - x is
    kept directly so that points near the ends keep their relative accuracy."""
    with flint_precision(bits):
        return tuple(_tanh_sinh_nodes(level, bits))


def _tanh_sinh_nodes(level: int, bits: int):
    pi2 = arb.pi() / 2
    h = arb(2) ** -level
    small = arb(2) ** (-bits - 20)
    out = []
    k = 0 if level == 0 else 1
    while True:
        t = h * k
        u = pi2 * t.sinh()
        ch = u.cosh()
        w = pi2 * t.cosh() / (ch * ch)
        one_minus_x = 2 / ((2 * u).exp() + 1)
        if k > 0 and (w < small or one_minus_x < small):
            break
        out.append((one_minus_x, w))
        k += 1 if level == 0 else 2
    return out


def _tanh_sinh(f, a: arb, b: arb, tol: arb, max_level: int, rel, n: int):
    """(values, errors) of the integrals of the n components of f over [a, b], or None."""
    mark_estimate("double-exponential quadrature (error estimated)")
    bits = ctx.prec
    half = (b - a) / 2
    totals = [arb(0)] * n
    history = []
    for level in range(max_level + 1):
        check_time()
        nodes = _level_nodes(level, bits)
        spend(2 * len(nodes))
        sums = [arb(0)] * n
        for one_minus_x, w in nodes:
            if level == 0 and one_minus_x == 1:
                vals = f(a + half)
                sums = [s + w * v for s, v in zip(sums, vals)]
                continue
            d = half * one_minus_x
            left, right = f(a + d), f(b - d)
            sums = [s + w * (u + v) for s, u, v in zip(sums, left, right)]
        totals = [t + s for t, s in zip(totals, sums)]
        scale = half * arb(2) ** -level
        est = [t * scale for t in totals]
        if not all(e.is_finite() for e in est):
            return None
        history.append(est)
        if any(e.rad() > tol for e in est) and not (rel is not None and all(
                e.rad() <= abs(e).upper() * rel for e in est)):
            # the integrand's own uncertainty (inner integrals) exceeds the tolerance: bisection
            # halves both, so it cannot help
            raise QuadratureError("the integrand is not known precisely enough for the tolerance")
        if level < 3:
            continue
        errs = []
        for i in range(n):
            e1 = abs(history[-1][i] - history[-2][i]).upper()
            e2 = abs(history[-1][i] - history[-3][i]).upper()
            if e1 == 0:
                err = arb(0)
            elif e2 == 0 or e1 >= e2:
                err = e1
            else:
                # the error roughly squares from level to level: extrapolate geometrically
                # (more cautious than mpmath's e1^(log e1 / log e2))
                err = e1 * e1 / e2
            err = err + est[i].rad()
            floor = abs(est[i]).upper() * (arb(2) ** (10 - bits) if rel is None else rel)
            if not (err <= tol or err <= floor):
                break
            errs.append(arb(err.upper()))
        else:
            return [e.mid() for e in est], errs
    return None


def _adaptive(f, a: arb, b: arb, tol: arb, depth: int, max_level: int, rel, n: int, whole=None):
    got = _tanh_sinh(f, a, b, tol, max_level, rel, n)
    if got is not None:
        return got
    whole = tol if whole is None else whole
    if depth >= 30:
        # a tiny piece that still does not converge holds a kink or jump missed by the
        # breakpoints (e.g. two cuts that nearly coincide): bound it by width * max|f| when that
        # is negligible against the piece's original tolerance
        w = b - a
        samples = [f(a + w * t) for t in (arb(1) / 8, arb(1) / 2, arb(7) / 8)]
        bound = [w * 2 * max(abs(s[i]).upper() for s in samples) for i in range(n)]
        if all(x <= whole * arb(2) ** -20 for x in bound):
            return [arb(0)] * n, bound
        if depth >= 48:
            raise QuadratureError(f"no convergence on [{a.mid().str(8)}, {b.mid().str(8)}]")
    m = ((a + b) / 2).mid()
    v1, e1 = _adaptive(f, a, m, tol / 2, depth + 1, max_level, rel, n, whole)
    v2, e2 = _adaptive(f, m, b, tol / 2, depth + 1, max_level, rel, n, whole)
    return [x + y for x, y in zip(v1, v2)], [x + y for x, y in zip(e1, e2)]


def integrate_vector(f, points: Sequence[arb], tol: arb, n: int, rel: arb | None = None):
    """Integrals of the n components of a tuple-valued ``f`` with shared evaluation points:
    (values, errors) lists. See :func:`integrate`."""
    pts = _clean(points)
    if len(pts) < 2:
        return [arb(0)] * n, [arb(0)] * n
    max_level = max(6, min(10, ctx.prec.bit_length() + 1))
    pieces = len(pts) - 1
    values, errors = [arb(0)] * n, [arb(0)] * n
    for a, b in zip(pts, pts[1:]):
        v, e = _adaptive(f, a, b, tol / pieces, 0, max_level, rel, n)
        values = [x + y for x, y in zip(values, v)]
        errors = [x + y for x, y in zip(errors, e)]
    return values, errors


def integrate(f: Callable[[arb], arb], points: Sequence[arb], tol: arb, rel: arb | None = None):
    """Integral of ``f`` over [points[0], points[-1]], split at the interior points.

    Parameters
    ----------
    f : callable arb -> arb
        The integrand at real points, analytic on each piece (endpoint singularities such as
        x log x or 1/sqrt(x) are fine).
    points : sequence of arb
        Finite breakpoints, in increasing order (duplicates are skipped).
    tol : arb
        Absolute tolerance for the whole integral (shared between the pieces).
    rel : arb, optional
        Also accept a piece whose error is below ``rel`` times its value (inner integrals of
        nested quadrature, whose callers need relative accuracy).

    Returns
    -------
    (value, error) : arb, arb
        The value and an error estimate (see the module docstring).
    """
    (v,), (e,) = integrate_vector(lambda x: (f(x),), points, tol, 1, rel)
    return v, e


def integrate_ball(f, points, tol, rel=None) -> arb:
    """:func:`integrate` as one ball whose radius is the error estimate: an inner integral of a
    nested quadrature, so that outer levels carry its error in their own estimates."""
    (v,) = integrate_vector_balls(lambda x: (f(x),), points, tol, 1, rel)
    return v


def integrate_vector_balls(f, points, tol, n: int, rel=None) -> list:
    """:func:`integrate_vector` as balls (see :func:`integrate_ball`). Where the inner
    quadrature does not converge (an outer point where two cuts merge, ill-conditioned), the
    integral is enclosed crudely (length times twice the largest sampled |f|), so that the outer
    quadrature -- whose weight is tiny at such points -- carries the uncertainty in its error
    instead of failing."""
    try:
        vs, es = integrate_vector(f, points, tol, n, rel)
        return [v + arb(0, e) for v, e in zip(vs, es)]
    except QuadratureTimeout:
        raise
    except QuadratureError:
        mark_estimate("an inner integral enclosed from samples")
        pts = _clean(points)
        lo, hi = pts[0], pts[-1]
        samples = [f(lo + (hi - lo) * arb(k) / 16) for k in range(1, 16, 2)]
        width = hi - lo
        return [arb(0, (width * 2 * max(abs(smp[i]).upper() for smp in samples)).upper())
                for i in range(n)]


def _clean(points) -> list:
    out = []
    for p in points:
        p = p.mid() if isinstance(p, arb) else arb(p)
        if not out or p > out[-1]:
            out.append(p)
    return out


def best(branch, value, points, tol):
    """(value, error, method, proved): :func:`certified` when arb converges within its
    evaluation limit (``proved`` True: the error is a bound), else :func:`integrate` (an
    estimate) on the same pieces. ``branch`` may be None."""
    if branch is not None:
        try:
            v, e = certified(branch, points, tol)
            return v, e, "certified quadrature", True
        except QuadratureTimeout:
            raise
        except QuadratureError:
            pass
    v, e = integrate(value, points, tol)
    return v, e, "double-exponential quadrature", False


def arb_integral(g, a, b, **options):
    """``acb_integral(g, a, b, **options)`` with the evaluations counted in the work budget and
    exceptions raised by ``g`` (a budget or time limit, an inner failure) re-raised after arb
    returns: an exception must not cross arb's C code (python-flint then reports a
    SystemError, and nested integrals abort the interpreter). Signals are handled by
    :func:`fstheory.theory.interrupts.acb_integral`, which it calls. After the first exception g is no
    longer called; arb sees non-finite values and returns."""
    failure: list = []
    calls = [0]
    nan = acb("nan")

    def h(z, analytic):
        if failure:
            return nan
        calls[0] += 1
        try:
            if calls[0] >= 64:
                spend(calls[0])
                calls[0] = 0
                check_time()
            v = g(z, analytic)
        except BaseException as exc:  # noqa: BLE001 -- re-raised below, outside arb
            failure.append(exc)
            return nan
        return v if isinstance(v, acb) else acb(v)

    value = acb_integral(h, a, b, **options)
    if failure:
        raise failure[0]
    spend(calls[0])
    return value


def certified(branch: Callable, points: Sequence[arb], tol: arb):
    """Rigorous integral over [points[0], points[-1]] of a piecewise analytic function.

    ``branch(m)`` receives the real midpoint ``m`` of a piece and returns ``g(z, analytic)``,
    the analytic formula valid on that piece, evaluated on complex balls (return a non-finite
    ball where it is not holomorphic, e.g. ``z.log(analytic=analytic)``).

    Returns
    -------
    (value, radius) : arb, arb
        The real part of arb's enclosure (midpoint) and its radius (an error bound).

    Raises
    ------
    QuadratureError
        When arb cannot bring the radius of a piece below its share of ``tol``.
    """
    pts = _clean(points)
    if len(pts) < 2:
        return arb(0), arb(0)
    n = len(pts) - 1
    value, radius = arb(0), arb(0)
    for a, b in zip(pts, pts[1:]):
        g = branch((a + b) / 2)
        share = tol / n
        goal = share
        for _ in range(1):
            goal = goal * arb(2) ** -16
            re = arb_integral(g, a, b, abs_tol=goal, rel_tol=goal, eval_limit=EVAL_LIMIT).real
            if re.is_finite() and re.rad() <= share:
                break
        else:
            raise QuadratureError(
                f"certified quadrature did not converge on [{a.mid().str(8)}, {b.mid().str(8)}]")
        value += re.mid()
        radius += re.rad()
    return value, arb(radius.upper())
