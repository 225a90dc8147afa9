r"""What a set of features reveals about the base variables, derived from the declarations.

A feature is a function of independent base variables ``b`` with known laws; the class is
``C = 1{g(b) >= theta}``. Everything here answers a question about the *fiber* of a set of
features ``V_S``: the set of base points ``b'`` with ``V_S(b') = V_S(b)``, i.e. what remains
unknown about ``b`` once ``V_S`` is observed. Each answer is a proof or ``None`` ("not shown"),
never a guess: the callers fall back to closed forms or to the numerical route.

The fiber (:func:`fiber`)
    Features of three kinds are understood:

    * *linear*, ``sum_j c_j b_j + e``: the fiber satisfies ``A b' = A b`` (linear algebra over
      the base variables: X and X-Y together reveal Y);
    * *of one variable*, ``g(b_j)``: ``b'_j`` is one of the level-set partners of ``b_j``, given
      by maps ``x -> m x + q`` (``X^2``: ``{x, -x}``; ``(X-1)^2``: ``{x, 2 - x}``; both together:
      ``{x}``), found from ``g(y) = g(x)`` (complete for polynomials; one-to-one functions have
      only ``x``; ``|c x + e|`` reflects about ``-e/c``); partners that map the support outside
      itself are dropped;
    * anything else: the fiber is not derived (``None``).

    The fiber is a finite union of *branches* ``b -> T b + t`` plus free directions ``N z`` (the
    null space of the linear constraints on the coordinates no one-variable feature fixes). A
    branch that is consistent only on a null set of ``b`` is dropped (the base variables have a
    joint density).

Uses
    * :func:`determines`: a target ``h(b)`` is a function of ``V_S`` when ``h`` is constant on
      every branch and along the free directions. MI(C; V_S) = H(C) when the class is.
    * :func:`independent_features`: features whose base variables are, through the other
      features, never connected to the class's are independent of (C, the rest) and can be
      dropped (a feature constant at the bound parameters has no base variable at all).
    * :func:`class_swap`: a law-preserving signed permutation (with the shifts that keep each
      law) that fixes every feature of ``S`` and maps ``g`` to ``2 theta - g``; then
      ``P(C=1 | V_S) = 1/2`` and MI(C; V_S) = 0 (the paper's Appendix theorem, for sets;
      ``S`` empty gives P(C=1) = 1/2, H(C) = ln 2). Hypotheses checked: each law preserved,
      ``g`` a non-constant polynomial (so ``P(g = theta) = 0``).
    * :func:`two_point`: the fiber is ``{b, tau b}`` with ``tau`` a law-preserving reflection of
      some coordinates about their centres; then ``P(C=1 | V_S)`` is 0, 1/2 or 1 and
      ``H(C | V_S) = ln 2 * P(C != C o tau)`` (:func:`swap_probability`); e.g. ``{X, Y^2}`` in
      Scenario I: ``P(|X| < k|Y|) = k/2``, MI = ln 2 (1 - k/2).
    * :func:`uncertainty_witness`: an exact rational point ``b0`` and a fiber point ``b1`` of it,
      both inside the support, away from critical points, with ``C(b0) != C(b1)``: by continuity
      a neighbourhood of positive probability has ``0 < P(C=1 | V_S) < 1``, so
      ``H(C | V_S) > 0`` (a proof that ``V_S`` does not determine the class).

Sources: the change of variables for the law of a feature (paper Section 6); measure-preserving
involutions (paper Appendix A); conditional distributions on fibers (e.g. Billingsley,
*Probability and Measure*, Section 33).

Examples
--------
>>> import sympy as sp
>>> from fstheory.theory.laws import Uniform
>>> X, Y = sp.symbols("X Y", real=True)
>>> laws = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
>>> event = ClassEvent(X + Y / 5, 0)
>>> determines([X, X - Y], event.expr, laws), determines([X**2], X, laws)
(True, False)
>>> determines([X**2, (X - 1)**2], X, laws)
True
>>> class_swap([X**2, Y**2], event, laws).describe()
'(X -> -X, Y -> -Y)'
>>> tau = two_point([X, Y**2], event, laws)
>>> tau.describe(), swap_probability(event, tau, laws)
('(Y -> -Y)', 1/10)
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from fractions import Fraction
from functools import lru_cache

import sympy as sp

from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.law_algebra import is_injective, law_of, linear_parts
from fstheory.theory.laws import Law

__all__ = [
    "ClassEvent",
    "LawsByContent",
    "Branch",
    "Fiber",
    "SignedMap",
    "Witness",
    "bases",
    "univariate_partners",
    "fiber",
    "determines",
    "independent_features",
    "class_swap",
    "two_point",
    "swap_probability",
    "uncertainty_witness",
]


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


def _sorted(symbols) -> tuple:
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
            if diff != 0 and (_rational_polynomial(diff) or sp.simplify(diff) != 0):
                return False
        return True


def _classify(expr, laws, pos):
    """('linear', row) | ('single', index, partners) | ('const',) | None."""
    bs = _sorted(bases(expr, laws))
    if not bs:
        return ("const",)
    lin = linear_parts(expr, list(bs))
    if lin is not None:
        row = [sp.Integer(0)] * len(pos)
        for b, c in lin[0].items():
            row[pos[b]] = c
        return ("linear", row)
    if len(bs) == 1:
        partners = univariate_partners(sp.sympify(expr), bs[0], laws[bs[0]])
        if partners is None:
            return None
        return ("single", pos[bs[0]], partners)
    return None


class LawsByContent:
    """The laws of the base variables ``coords`` (default: all), compared and hashed by their
    content (symbol, family, parameters), so that a cache keyed by it is shared by every binding
    with the same laws."""

    __slots__ = ("laws", "_key")

    def __init__(self, laws, coords=None):
        coords = _sorted(laws) if coords is None else coords
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
    coords = _sorted(used)
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


# ----- law-preserving signed permutations --------------------------------------------------------


@dataclass(frozen=True)
class SignedMap:
    """``b -> sign * image + shift`` for each coordinate (a measure-preserving map when every
    law is preserved)."""

    mapping: tuple  # ((b, sign, image, shift), ...)

    def subs(self) -> dict:
        return {b: s * img + t for b, s, img, t in self.mapping}

    def describe(self) -> str:
        parts = []
        for b, s, img, t in self.mapping:
            if s == 1 and img == b and t == 0:
                continue
            rhs = f"{'-' if s < 0 else ''}{img}"
            if t != 0:
                rhs += f" {'+' if t > 0 else '-'} {abs(t)}"
            parts.append(f"{b} -> {rhs}")
        return "(" + ", ".join(parts) + ")"


def _shift(target: Law, source: Law, sign: int):
    """The shift t with law(sign * source + t) = target, or None."""
    ct, cs = target.center(), source.center()
    if sign > 0:
        t = sp.Integer(0) if ct is None or cs is None else sp.simplify(ct - cs)
    else:
        if ct is None or cs is None:
            return None
        t = sp.simplify(ct + cs)
    image = source.affine(sp.Integer(sign), t)
    return t if image is not None and image == target else None


@lru_cache(maxsize=256)
def _preserving_maps(coords: tuple, laws_key: tuple) -> tuple:
    laws = dict(laws_key)
    out = []
    for perm in itertools.permutations(coords):
        for signs in itertools.product((1, -1), repeat=len(coords)):
            mapping = []
            for b, s, img in zip(coords, signs, perm):
                t = _shift(laws[b], laws[img], s)
                if t is None:
                    break
                mapping.append((b, s, img, t))
            else:
                out.append(SignedMap(tuple(mapping)))
    return tuple(out)


def _fixes(expr, sub) -> bool:
    """``expr o sub == expr`` identically (kept: it does not depend on the class)."""
    return _fixes_items(expr, tuple(sorted(sub.items(), key=lambda kv: str(kv[0]))))


@lru_cache(maxsize=20000)
def _fixes_items(expr, items: tuple) -> bool:
    diff = sp.expand(expr.xreplace(dict(items)) - expr)
    return diff == 0 or (not _rational_polynomial(diff) and sp.simplify(diff) == 0)


def _rational_polynomial(e) -> bool:
    """An expanded polynomial with rational coefficients: then it is 0 only if it expands to 0,
    and simplify can be skipped."""
    syms = sorted(e.free_symbols, key=str)
    if not syms or not e.is_polynomial(*syms):
        return False
    return all(c.is_Rational for c in sp.Poly(e, *syms).coeffs())


def class_swap(exprs, event: ClassEvent, laws) -> SignedMap | None:
    """A law-preserving signed permutation that fixes every feature and maps the class
    expression g to ``2 theta - g`` (then C and V_S are independent, P(C=1) = 1/2); None if no
    such map is found or the hypotheses (g a non-constant polynomial) fail."""
    g, theta = event.expr, event.threshold
    gb = bases(g, laws)
    if not gb or not g.is_polynomial(*gb):
        return None
    used = set(gb)
    for e in exprs:
        used |= bases(e, laws)
    coords = _sorted(used)
    for tau in _preserving_maps(coords, tuple((b, laws[b]) for b in coords)):
        sub = tau.subs()
        if sp.expand(g.xreplace(sub) + g - 2 * theta) != 0:
            continue
        if all(_fixes(sp.sympify(e), sub) for e in exprs):
            return tau
    return None


# ----- two-point fibers --------------------------------------------------------------------------


def two_point(exprs, event: ClassEvent, laws) -> SignedMap | None:
    """The reflection tau when the fiber of ``exprs`` over the class's variables is exactly
    ``{b, tau b}``, tau reflecting some coordinates about the centres of their symmetric laws
    (so tau preserves the joint density) and the class expression linear; else None."""
    g = event.expr
    gb = bases(g, laws)
    if not gb or linear_parts(g, list(_sorted(gb))) is None:
        return None
    f = fiber(exprs, laws, gb)
    if f is None or f.free.cols or len(f.branches) != 2:
        return None
    br = f.branches[1]
    mapping = []
    for j, b in enumerate(f.coords):
        row = br.T.row(j)
        if any(row[c] != 0 for c in range(len(f.coords)) if c != j):
            return None
        s = row[j]
        if s == 1 and br.t[j] == 0:
            mapping.append((b, 1, b, sp.Integer(0)))
            continue
        if s != -1 or _shift(laws[b], laws[b], -1) != br.t[j]:
            return None
        mapping.append((b, -1, b, br.t[j]))
    return SignedMap(tuple(mapping))


def _piecewise_cdf(law: Law, u):
    lo, hi = law.support()
    inner = law.cdf(u)
    if inner is None:
        return None
    return sp.Piecewise((0, u <= lo), (inner, u < hi), (1, True))


def _safe_to_integrate(expr, u) -> bool:
    """Polynomials times exponentials of polynomials: sympy integrates these quickly."""
    for f in expr.atoms(sp.Function):
        if not isinstance(f, sp.exp):
            return False
    return not expr.has(sp.Integral)


def swap_probability(event: ClassEvent, tau: SignedMap, laws) -> sp.Expr | None:
    """``P(C != C o tau)`` for a reflection tau of some class variables (:func:`two_point`).

    Write ``g - theta = A + U`` with ``A`` the part in the fixed variables (plus constants) and
    ``U = sum_R w_j (b_j - c_j)`` the reflected part, symmetric about 0 and independent of A.
    Then ``g o tau - theta = A - U`` and the classes differ iff ``|A| < |U|``:
    ``P = int_0^inf 2 f_U(u) (F_A(u) - F_A(-u)) du`` (or ``P(|U| > |a|)`` for a constant A).
    Pieces that sympy integrates quickly are integrated; the others stay one-dimensional
    integrals (evaluated by quadrature). None if a law is not in a known family, or if the
    laws' parameters are symbolic.
    """
    g = sp.expand(event.expr - event.threshold)
    moved = {b: t for b, s, _, t in tau.mapping if s == -1}
    sub_c = {b: t / 2 for b, t in moved.items()}  # reflection about c = t/2
    A = sp.expand(g.xreplace({b: sub_c[b] for b in moved}))
    U = sp.expand(g - A)
    u = sp.Dummy("u", positive=True)
    law_u = law_of(U, laws)
    if law_u is None:
        return None
    if not bases(A, laws):
        a = sp.Abs(A)
        cdf = _piecewise_cdf(law_u, a)
        return None if cdf is None else exact_nsimplify(sp.simplify(2 * (1 - cdf))) if a != 0 else sp.Integer(1)
    law_a = law_of(A, laws)
    if law_a is None:
        return None
    Fa_hi, Fa_lo = _piecewise_cdf(law_a, u), _piecewise_cdf(law_a, -u)
    if Fa_hi is None:
        return None
    lo_u, hi_u = law_u.support()
    dens = 2 * sp.Piecewise((law_u.pdf(u), u < hi_u), (0, True))
    integrand = dens * (Fa_hi - Fa_lo)
    cuts = {sp.Integer(0), hi_u}
    for p in (*law_a.support(), *law_a.breakpoints()):
        if p.is_finite:
            cuts.add(sp.Abs(p))
    for p in law_u.breakpoints():
        if p.is_finite:
            cuts.add(sp.Abs(p))
    if not all(c.is_number for c in cuts | {hi_u}):
        return None  # a symbolic parameter in the laws: the pieces cannot be ordered
    pts = sorted((c for c in cuts if c.is_finite and 0 <= c and (hi_u == sp.oo or c <= hi_u)),
                 key=lambda c: float(c))
    if hi_u == sp.oo:
        pts.append(sp.oo)
    total = sp.Integer(0)
    for a, b in zip(pts, pts[1:]):
        mid = (a + 1) if b == sp.oo else (a + b) / 2
        piece = _branch(integrand, u, mid)
        if piece == 0:
            continue
        if _safe_to_integrate(piece, u):
            res = sp.integrate(piece, (u, a, b))
            if not res.has(sp.Integral):
                total += res
                continue
        total += sp.Integral(piece, (u, a, b))
    return total if total.has(sp.Integral) else exact_nsimplify(sp.simplify(total))


def _branch(expr, u, point):
    """``expr`` with every Piecewise replaced by its branch at ``u = point``."""
    while expr.has(sp.Piecewise):
        pw = next(iter(expr.atoms(sp.Piecewise)))
        for value, cond in pw.args:
            if cond == sp.true or bool(cond.subs(u, point)):
                expr = expr.xreplace({pw: value})
                break
    return sp.expand(expr)


# ----- witnesses of class uncertainty ------------------------------------------------------------


@dataclass(frozen=True)
class Witness:
    """Two base points with the same feature values and different classes (see
    :func:`uncertainty_witness`)."""

    coords: tuple
    first: tuple
    second: tuple

    def describe(self) -> str:
        def point(p):
            return "(" + ", ".join(f"{c}={v}" for c, v in zip(self.coords, p)) + ")"

        return f"{point(self.first)} and {point(self.second)}"


def _fraction(x) -> Fraction | None:
    x = exact_nsimplify(x)
    if not x.is_Rational:
        return None
    return Fraction(int(x.p), int(x.q))


def _grid(law: Law) -> list[Fraction] | None:
    """Rational points inside the support: eighths of a bounded one, a spread around the centre
    of an unbounded one."""
    lo, hi = law.support()
    if lo.is_finite and hi.is_finite:
        a, b = _fraction(lo), _fraction(hi)
        if a is None or b is None:
            return None
        return [a + (b - a) * Fraction(j, 16) for j in (8, 5, 11, 3, 13, 1, 15, 7, 9)]
    c = law.center()
    base = _fraction(c) if c is not None else (_fraction(lo) if lo.is_finite else _fraction(hi))
    if base is None:
        return None
    steps = [Fraction(1, 4), Fraction(1, 2), Fraction(1), Fraction(2), Fraction(1, 8), Fraction(4)]
    if lo.is_finite:
        return [base + s for s in steps]
    if hi.is_finite:
        return [base - s for s in steps]
    return [base + s for s in steps] + [base - s for s in steps]


def _inside(law: Law, v: Fraction) -> bool:
    lo, hi = law.support()
    return bool(lo < sp.Rational(v.numerator, v.denominator) < hi)


_Z_STEPS = [Fraction(1, 8), Fraction(-1, 8), Fraction(1, 4), Fraction(-1, 4), Fraction(1, 2),
            Fraction(-1, 2), Fraction(1), Fraction(-1), Fraction(2), Fraction(-2)]


def uncertainty_witness(exprs, event: ClassEvent, laws, budget: int = 20000) -> Witness | None:
    """A proof that the features do not determine the class: rational base points ``b0`` and
    ``b1 = T b0 + t + N z`` on one fiber, both strictly inside the support with a positive
    density, neither a critical point of a one-variable feature, with ``g(b0) - theta`` and
    ``g(b1) - theta`` of strictly opposite signs. Strict inequalities persist in a neighbourhood,
    so ``0 < P(C=1 | V_S) < 1`` with positive probability and ``H(C | V_S) > 0``.

    Requires rational coefficients and a polynomial class expression; ``None`` if no witness is
    found within ``budget`` trials (which proves nothing).
    """
    g = sp.expand(event.expr - event.threshold)
    gb = bases(g, laws)
    if not gb or not g.is_polynomial(*gb):
        return None
    f = fiber(exprs, laws, gb)
    if f is None or f.trivial:
        return None
    coords = f.coords
    crit = _critical_points(exprs, laws)
    if crit is None:
        return None
    try:
        poly = sp.Poly(g, *coords)
        terms = [(mon, _fraction(c)) for mon, c in poly.terms()]
        branches = [([[_fraction(x) for x in br.T.row(r)] for r in range(len(coords))],
                      [_fraction(x) for x in br.t]) for br in f.branches]
        free = [[_fraction(f.free[r, c]) for c in range(f.free.cols)] for r in range(len(coords))]
    except (sp.PolynomialError, TypeError):
        return None
    if any(c is None for _, c in terms) or any(
            x is None for T, t in branches for row in T for x in row + t) or any(
            x is None for row in free for x in row):
        return None
    grids = [_grid(laws[b]) for b in coords]
    if any(gr is None for gr in grids):
        return None

    def gval(p):
        total = Fraction(0)
        for mon, c in terms:
            term = c
            for v, e in zip(p, mon):
                term *= v ** e
            total += term
        return total

    def ok(p):
        return all(_inside(laws[b], v) and v not in crit.get(b, ()) for b, v in zip(coords, p))

    d = f.free.cols
    zs = [tuple(z) for z in itertools.product(_Z_STEPS, repeat=d)] if d else [()]
    trials = 0
    for p0 in itertools.product(*grids):
        g0 = gval(p0)
        if g0 == 0 or not ok(p0):
            continue
        for (T, t), br in zip(branches, f.branches):
            for z in zs:
                if br.is_identity and not any(z):
                    continue
                trials += 1
                if trials > budget:
                    return None
                p1 = tuple(sum(T[r][c] * p0[c] for c in range(len(coords))) + t[r]
                           + sum(free[r][c] * z[c] for c in range(d)) for r in range(len(coords)))
                g1 = gval(p1)
                if g1 == 0 or (g1 > 0) == (g0 > 0) or not ok(p1):
                    continue
                if (_positive_density(laws, coords, p0) and _positive_density(laws, coords, p1)
                        and _same_features(exprs, coords, p0, p1)):
                    return Witness(coords, p0, p1)
    return None


def _same_features(exprs, coords, p0, p1) -> bool:
    """Exact check that the two points give every feature the same value."""
    a = {c: sp.Rational(v.numerator, v.denominator) for c, v in zip(coords, p0)}
    b = {c: sp.Rational(v.numerator, v.denominator) for c, v in zip(coords, p1)}
    return all(sp.simplify(sp.sympify(e).subs(a) - sp.sympify(e).subs(b)) == 0 for e in exprs)


def _positive_density(laws, coords, p) -> bool:
    return all(bool(laws[b].pdf(sp.Rational(v.numerator, v.denominator)) > 0)
               for b, v in zip(coords, p))


def _critical_points(exprs, laws) -> dict | None:
    """Per base variable, the points where a one-variable feature has a zero derivative or a
    kink (a finite set, or None if not derived)."""
    out: dict = {}
    for e in exprs:
        e = sp.sympify(e)
        bs = _sorted(bases(e, laws))
        if len(bs) != 1 or linear_parts(e, list(bs)) is not None:
            continue
        (b,) = bs
        pts = set()
        crit = sp.solveset(sp.diff(e, b), b, sp.Interval(*laws[b].support()))
        if not isinstance(crit, sp.FiniteSet):
            if crit is not sp.S.EmptySet:
                return None
        else:
            pts |= set(crit)
        for atom in e.atoms(sp.Abs):
            pts |= set(sp.solve(atom.args[0], b))
        fr = {_fraction(p) for p in pts}
        if None in fr:
            return None
        out.setdefault(b, set()).update(fr)
    return out
