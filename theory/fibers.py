"""The fiber of a set of features (what remains unknown about the base variables once the
features are observed), derived from the declarations, and what it decides: whether the set
determines a target (:func:`determines`) and which features are independent of the class and
the rest (:func:`independent_features`). The overview, with examples, is in
:mod:`fstheory.theory.determination`."""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from functools import lru_cache

import sympy as sp

from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.law_algebra import is_injective, linear_parts
from fstheory.theory.laws import Law
from fstheory.theory.structure import classify


__all__ = ["ClassEvent", "LawsByContent", "Branch", "Fiber", "bases", "sorted_symbols",
           "rational_polynomial", "univariate_partners", "fiber", "determines",
           "independent_features"]


@dataclass(frozen=True)
class ClassEvent:
    """``C = 1{expr >= threshold}`` with ``expr`` a function of the base variables.

    The paper's rule ``X + kY >= 0`` is ``ClassEvent(X + k*Y, 0)``; a class whose ``expr`` has no
    base variable (e.g. ``k*Y >= 0`` at ``k = 0``) is constant.
    """

    expr: sp.Expr
    threshold: sp.Expr = sp.Integer(0)

    def __post_init__(self):
        object.__setattr__(self, "expr", sp.sympify(self.expr))
        object.__setattr__(self, "threshold", sp.sympify(self.threshold))


def bases(expr, laws) -> frozenset:
    """The base variables ``expr`` depends on."""
    return frozenset(s for s in sp.sympify(expr).free_symbols if s in laws)


def sorted_symbols(symbols) -> tuple:
    """``symbols`` in the order of their names (a canonical order of base variables)."""
    return tuple(sorted(symbols, key=str))


# ----- level sets of a function of one variable --------------------------------------------------


def _real_maps(solutions, x) -> list | None:
    """Level-set partners ``(m, q)`` from the solutions y(x) of g(y) = g(x); None if one is not
    an affine map real for almost every x."""
    out = []
    for s in solutions:
        s = sp.expand(s)
        if s.has(sp.Piecewise, sp.Abs) or not s.free_symbols <= {x}:
            return None
        if sp.diff(s, x, 2) != 0:
            return None
        m, q = sp.diff(s, x), s.subs(x, 0)
        im_m, im_q = sp.im(m), sp.im(q)
        if im_m != 0 or im_q != 0:
            continue  # real only where Im(m) x + Im(q) = 0: a null set of x
        out.append((exact_nsimplify(m), exact_nsimplify(q)))
    return out


def _active(m, q, law: Law) -> bool:
    """x -> m x + q maps a part of the support of positive length into the support."""
    lo, hi = law.support()
    a, b = m * lo + q, m * hi + q
    ilo, ihi = (a, b) if m > 0 else (b, a)
    return bool(sp.Max(lo, ilo) < sp.Min(hi, ihi))


@lru_cache(maxsize=512)
def univariate_partners(expr: sp.Expr, sym: sp.Symbol, law: Law) -> tuple | None:
    """The level-set partner maps ``(m, q)`` (``x -> m x + q``, identity first) of ``expr``, a
    function of the one base variable ``sym``; ``None`` when they are not derived.

    Complete for polynomials (every root of g(y) = g(x) in y), for functions one-to-one on the
    support (no partner), and for ``F(|c x + e|)`` with ``F`` one-to-one on t > 0.

    >>> from fstheory.theory.laws import Normal
    >>> x = sp.Symbol("X", real=True)
    >>> univariate_partners(x**2, x, Normal(0, 1)), univariate_partners(sp.exp(x), x, Normal(0, 1))
    (((1, 0), (-1, 0)), ((1, 0),))
    >>> univariate_partners(sp.Abs(x - 2), x, Normal(0, 1))
    ((1, 0), (-1, 4))
    """
    x = sym
    lo, hi = law.support()
    maps: list | None
    atoms = expr.atoms(sp.Abs)
    if atoms:
        if len(atoms) != 1:
            return None
        (atom,) = atoms
        lin = linear_parts(atom.args[0], [x])
        t = sp.Dummy("t", positive=True)
        outer = expr.xreplace({atom: t})
        if lin is None or x in outer.free_symbols:
            return None
        c, e = lin[0][x], lin[1]
        if c == 0 or not is_injective(outer, t, 0, sp.oo):
            return None
        maps = [(sp.Integer(-1), -2 * e / c)]
    elif expr.is_polynomial(x):
        y = sp.Dummy("y", real=True)
        poly = sp.Poly(sp.expand(expr.subs(x, y) - expr), y)
        try:
            roots = sp.roots(poly, multiple=True)
        except (NotImplementedError, sp.PolynomialError):
            return None
        if len(roots) != poly.degree():
            return None  # some root not found in radicals: do not claim completeness
        maps = _real_maps(roots, x)
    elif is_injective(expr, x, lo, hi):
        maps = []
    else:
        return None
    if maps is None:
        return None
    out = [(sp.Integer(1), sp.Integer(0))]
    for m, q in maps:
        if (m, q) == (1, 0) or (m, q) in out:
            continue
        if m == 0:
            return None  # a constant level set: the feature is constant on an interval
        if _active(m, q, law):
            out.append((m, q))
    return tuple(out)


# ----- fibers ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Branch:
    """``b -> T b + t`` on the fiber's coordinates."""

    T: sp.ImmutableMatrix
    t: sp.ImmutableMatrix

    @property
    def is_identity(self) -> bool:
        return self.T == sp.eye(self.T.rows) and self.t.is_zero_matrix


@dataclass(frozen=True)
class Fiber:
    """``{T_i b + t_i + N z}``: the base points that give the same feature values as ``b``."""

    coords: tuple
    branches: tuple  # of Branch, identity first
    free: sp.ImmutableMatrix  # columns: free directions (n x d, d may be 0)
    features: tuple  # the expressions that defined it

    @property
    def trivial(self) -> bool:
        """The features reveal every coordinate exactly."""
        return len(self.branches) == 1 and self.free.cols == 0

    def images(self, z=None):
        """For each branch, the substitution ``{b_j: (T b + t + N z)_j}``."""
        vec = sp.Matrix(self.coords)
        extra = sp.zeros(len(self.coords), 1)
        if self.free.cols:
            z = z if z is not None else sp.Matrix(sp.symbols(f"z0:{self.free.cols}", real=True))
            extra = self.free * z
        for br in self.branches:
            img = br.T * vec + br.t + extra
            yield br, dict(zip(self.coords, img))

    def preserves(self, target) -> bool:
        """``target`` takes one value on the whole fiber (so it is a function of the features)."""
        target = sp.sympify(target)
        for _, sub in self.images():
            diff = sp.expand(target.xreplace(sub) - target)
            if diff != 0 and (rational_polynomial(diff) or sp.simplify(diff) != 0):
                return False
        return True


def _classify(expr, laws, pos):
    """('linear', row) | ('single', index, partners) | ('const',) | None."""
    kind, data = classify(expr, laws)
    if kind == "constant":
        return ("const",)
    if kind == "linear":
        row = [sp.Integer(0)] * len(pos)
        for b, c in data[0].items():
            row[pos[b]] = sp.simplify(c)
        return ("linear", row)
    if kind == "single":
        partners = univariate_partners(sp.sympify(expr), data, laws[data])
        if partners is None:
            return None
        return ("single", pos[data], partners)
    return None


class LawsByContent:
    """The laws of the base variables ``coords`` (default: all), compared and hashed by their
    content (symbol, family, parameters), so that a cache keyed by it is shared by every binding
    with the same laws."""

    __slots__ = ("laws", "_key")

    def __init__(self, laws, coords=None):
        coords = sorted_symbols(laws) if coords is None else coords
        self.laws = {c: laws[c] for c in coords}
        self._key = tuple((c, type(laws[c]).__name__, tuple(laws[c].params)) for c in coords)

    def __hash__(self) -> int:
        return hash(self._key)

    def __eq__(self, other) -> bool:
        return isinstance(other, LawsByContent) and self._key == other._key


def fiber(exprs, laws, coords=()) -> Fiber | None:
    """The fiber of the features ``exprs`` over their base variables and ``coords`` (variables
    the features do not use are free); ``None`` when a feature is of a kind not understood.
    Kept by (features, coordinates, their laws): an atlas sweep asks for the same fibers at every
    point, where only the class changes."""
    exprs = tuple(sp.sympify(e) for e in exprs)
    used = set(coords)
    for e in exprs:
        used |= bases(e, laws)
    coords = sorted_symbols(used)
    return _kept_fiber(exprs, coords, LawsByContent(laws, coords))


@lru_cache(maxsize=20000)
def _kept_fiber(exprs: tuple, coords: tuple, laws: LawsByContent) -> Fiber | None:
    # the features use no base variable outside ``coords``: their laws are all _fiber reads
    return _fiber(exprs, laws.laws, coords)


def _fiber(exprs, laws, coords) -> Fiber | None:
    n = len(coords)
    pos = {s: i for i, s in enumerate(coords)}
    rows, partners = [], {}
    for e in exprs:
        kind = _classify(e, laws, pos)
        if kind is None:
            return None
        if kind[0] == "linear":
            rows.append(kind[1])
        elif kind[0] == "single":
            j, p = kind[1], kind[2]
            partners[j] = p if j not in partners else tuple(m for m in partners[j] if m in p)
    J = sorted(partners)
    F = [j for j in range(n) if j not in partners]
    A = sp.Matrix(rows) if rows else sp.zeros(0, n)
    AF = A.extract(list(range(A.rows)), F) if A.rows else sp.zeros(0, len(F))
    AJ = A.extract(list(range(A.rows)), J) if A.rows else sp.zeros(0, len(J))
    if AF.rows and AF.cols:
        null = AF.nullspace()
    else:
        null = [sp.eye(len(F))[:, c] for c in range(len(F))]
    free = sp.zeros(n, len(null))
    for c, vec in enumerate(null):
        for r, f in enumerate(F):
            free[f, c] = vec[r]
    branches = []
    for choice in itertools.product(*(partners[j] for j in J)):
        M = sp.diag(*[m for m, _ in choice]) if J else sp.zeros(0, 0)
        q = sp.Matrix([qq for _, qq in choice]) if J else sp.zeros(0, 1)
        # b'_F - b_F = X b_J + y with A_F X = A_J (I - M), A_F y = -A_J q
        X_, y_ = sp.zeros(len(F), len(J)), sp.zeros(len(F), 1)
        if A.rows and J:
            rhs = (AJ * (sp.eye(len(J)) - M)).row_join(-AJ * q)
            if rhs.is_zero_matrix:
                sol = sp.zeros(len(F), len(J) + 1)
            elif not F:
                continue  # the linear features contradict this choice except on a null set
            else:
                try:
                    sol, params = AF.gauss_jordan_solve(rhs)
                except ValueError:
                    continue
                sol = sol.subs({p: 0 for p in params})
            X_, y_ = sol[:, : len(J)], sol[:, len(J):]
        T, t = sp.eye(n), sp.zeros(n, 1)
        for a, j in enumerate(J):
            T[j, j] = M[a, a]
            t[j] = q[a]
        for r, f in enumerate(F):
            for a, j in enumerate(J):
                T[f, j] = X_[r, a]
            t[f] = y_[r]
        br = Branch(sp.ImmutableMatrix(T), sp.ImmutableMatrix(t))
        if br not in branches:
            branches.append(br)
    branches.sort(key=lambda b: not b.is_identity)
    return Fiber(coords, tuple(branches), sp.ImmutableMatrix(free), exprs)


def determines(exprs, target, laws) -> bool:
    """True if ``target`` (an expression of the base variables) is proven to be a function of
    the features ``exprs``: constant on every branch and free direction of their fiber."""
    target = sp.sympify(target)
    if not bases(target, laws):
        return True
    f = fiber(exprs, laws, bases(target, laws))
    return f is not None and f.preserves(target)


def independent_features(exprs, event: ClassEvent, laws) -> frozenset:
    """Positions of the features not connected to the class through shared base variables.

    Group the features into components that share base variables; a component with no base
    variable of the class (a constant feature is a component of its own) is independent of the
    class and of the other features, because the base variables are independent.
    """
    sets = [bases(e, laws) for e in exprs]
    reach = set(bases(event.expr, laws))
    linked: set = set()
    changed = True
    while changed:
        changed = False
        for i, s in enumerate(sets):
            if i not in linked and s & reach:
                linked.add(i)
                reach |= s
                changed = True
    return frozenset(range(len(exprs))) - linked


def rational_polynomial(e) -> bool:
    """An expanded polynomial with rational coefficients: then it is 0 only if it expands to 0,
    and simplify can be skipped."""
    syms = sorted(e.free_symbols, key=str)
    if not syms or not e.is_polynomial(*syms):
        return False
    return all(c.is_Rational for c in sp.Poly(e, *syms).coeffs())
