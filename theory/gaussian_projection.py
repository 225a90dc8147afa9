r"""A one-dimensional sufficient statistic of linear features of normal variables: the linear
projection of the class form on them.

Let the features ``V_1, ..., V_m`` be affine in independent normal base variables N, and let the
class form split additively as ``g = G + M`` with G affine in normal variables and M a function
of base variables outside N and outside G's (every term of the expanded form is either one
normal variable times a number, or a term of M). Then (G, V_1, ..., V_m) is jointly normal and,
with ``c`` the solution of ``Cov(V, V) c = Cov(V, G)`` (the covariance of the features
invertible),

.. math::

    T = c^\top V, \qquad R = G - T \ \text{uncorrelated with } V, \text{ hence independent of it},

so ``C = 1{T + R + M >= 0}`` with (R, M) independent of V: ``P(C = 1 | V) = P(C = 1 | T)``, a
function of T, and since T is a function of V,

.. math::

    MI(C; V_1, \ldots, V_m) = MI(C; T)

(the data-processing inequality both ways, as in :mod:`fstheory.theory.sufficiency`; Cover &
Thomas Thm 2.8.1; uncorrelated jointly normal variables are independent, e.g. Anderson, *An
Introduction to Multivariate Statistical Analysis*, Thm 2.4.4). ``c = 0`` means G is independent
of the features: MI = 0. A feature independent of (C, the others) is the special case where its
coefficient in ``c`` is 0 (e.g. ``X - Z`` next to ``Y`` for ``C = 1{X + kY + Z >= t}`` with X, Z
i.i.d.: X - Z is uncorrelated with X + Z, so MI(C; {Y, X - Z}) = MI(C, Y)).

Only numeric coefficients and variances are accepted (a free parameter could make the
covariance singular at some of its values).

>>> import sympy as sp
>>> from fstheory.theory.laws import Normal, Uniform
>>> from fstheory.theory.determination import ClassEvent
>>> X, Y, Z, U = sp.symbols("X Y Z U", real=True)
>>> laws = {X: Normal(0, 1), Y: Normal(0, 1), Z: Normal(0, 1), U: Uniform(-1, 1)}
>>> projection([Y, X - Z], ClassEvent(X + Y / 2 + Z, sp.Rational(1, 2)), laws)
Y/2
>>> projection([X + Y, X - Z], ClassEvent(X + Y / 2 + Z + U, 0), laws)
X/2 + Y + Z/2
>>> projection([X - Z, Y], ClassEvent(X + Z + U, 0), laws)
0
>>> projection([X, Y**2], ClassEvent(X + Y, 0), laws) is None  # Y^2 is not linear
True
"""

from __future__ import annotations

import sympy as sp

from fstheory.theory import determination as det
from fstheory.theory.law_algebra import linear_parts
from fstheory.theory.laws import Normal

__all__ = ["projection", "uncorrelated_features"]


def _split(form: sp.Expr, laws) -> tuple[dict, set] | None:
    """(G's coefficients {normal variable: number}, M's base variables)."""
    G: dict = {}
    M: set = set()
    for term in sp.Add.make_args(sp.expand(form)):
        used = det.bases(term, laws)
        if not used:
            continue
        if len(used) == 1:
            (v,) = used
            c = sp.diff(term, v)
            if isinstance(laws[v], Normal) and c.is_number and not c.has(sp.Float):
                G[v] = G.get(v, 0) + c
                continue
        M |= used
    return G, M


def projection(exprs, event: det.ClassEvent, laws) -> sp.Expr | None:
    """T of the module docstring (an affine expression of normal base variables, without its
    constant), ``0`` when the class form's normal part is independent of the features, or None
    when the hypotheses are not met (a feature not affine in normal variables, a term of the
    form mixing variables, a variable shared by the form's other part and the features or the
    normal part, a parameter left symbolic, a singular covariance)."""
    exprs = [sp.expand(sp.sympify(e)) for e in exprs]
    variables = frozenset().union(*(det.bases(e, laws) for e in exprs))
    if not variables or not all(isinstance(laws[v], Normal) for v in variables):
        return None
    form = sp.sympify(event.expr) - sp.sympify(event.threshold)
    G, M = _split(form, laws)
    if M & (variables | set(G)):
        return None
    normals = sorted(variables | set(G), key=str)
    var = {}
    for v in normals:
        s = sp.sympify(laws[v].params[1])
        if not s.is_number or s.has(sp.Float):
            return None
        var[v] = s**2
    rows = []
    for e in exprs:
        parts = linear_parts(e, normals)
        if parts is None or any(not sp.sympify(c).is_number or sp.sympify(c).has(sp.Float)
                                for c in parts[0].values()):
            return None
        rows.append([parts[0].get(v, 0) for v in normals])
    A = sp.Matrix(rows)
    D = sp.diag(*[var[v] for v in normals])
    g = sp.Matrix([G.get(v, 0) for v in normals])
    S = A * D * A.T
    if sp.simplify(S.det()) == 0:
        return None
    c = S.LUsolve(A * D * g).applyfunc(sp.simplify)
    if all(sp.simplify(x) == 0 for x in c):
        return sp.Integer(0)
    t = (c.T * A * sp.Matrix(normals))[0]
    return sp.expand(t)


def uncorrelated_features(exprs, event: det.ClassEvent, laws) -> list[int]:
    """Indices i of the features V_i that are independent of the class and of the other
    features because they are uncorrelated with them inside a jointly normal vector: V_i affine
    in normal variables with numeric coefficients, Cov(V_i, G) = 0 for the class form's normal
    part G (module docstring), and Cov(V_i, u) = 0 for every normal variable u of the form's
    other part M and of the other features. Then V_i is independent of the normal vector
    (G, u...) (jointly normal and uncorrelated), and of every non-normal variable (independent
    base variables), so of (C, V_j for j != i): MI(C; V_S) = MI(C; V_S without V_i).

    >>> import sympy as sp
    >>> from fstheory.theory.laws import Normal
    >>> from fstheory.theory.determination import ClassEvent
    >>> X, Y, Z = sp.symbols("X Y Z", real=True)
    >>> laws = {v: Normal(0, 1) for v in (X, Y, Z)}
    >>> uncorrelated_features([X - Z, Y**2], ClassEvent(X + Y / 2 + Z, 0), laws)
    [0]
    >>> uncorrelated_features([X - Z, Z**2], ClassEvent(X + Y / 2 + Z, 0), laws)
    []
    """
    exprs = [sp.expand(sp.sympify(e)) for e in exprs]
    form = sp.sympify(event.expr) - sp.sympify(event.threshold)
    G, M = _split(form, laws)
    found = []
    for i, e in enumerate(exprs):
        mine = det.bases(e, laws)
        if not mine or not all(isinstance(laws[v], Normal) for v in mine) or mine & M:
            continue
        others = set(M).union(*(det.bases(f, laws) for j, f in enumerate(exprs) if j != i))
        normals = sorted(mine | set(G) | {u for u in others if isinstance(laws[u], Normal)},
                         key=str)
        var = _variances(normals, laws)
        parts = linear_parts(e, normals)
        if var is None or parts is None or not all(_exact(c) for c in parts[0].values()):
            continue
        a = parts[0]
        if _cov(a, G, var) == 0 and all(_cov(a, {u: 1}, var) == 0 for u in others if u in var):
            found.append(i)
    return found


def _cov(a: dict, b: dict, var: dict) -> sp.Expr:
    """Cov(a . N, b . N) for independent normal N of variances ``var``."""
    return sp.simplify(sum(a.get(v, 0) * b.get(v, 0) * s for v, s in var.items()))


def _exact(c) -> bool:
    c = sp.sympify(c)
    return bool(c.is_number) and not c.has(sp.Float)


def _variances(normals, laws) -> dict | None:
    var = {}
    for v in normals:
        s = sp.sympify(laws[v].params[1])
        if not _exact(s):
            return None
        var[v] = s**2
    return var
