r"""Scenario I in closed form, and the six 3-D methods on it: a route independent of the engine.

Nothing here imports the engine's derivation, evaluation or ordering code: the closed forms are
derived below (by hand, with sympy doing the integrals in ``scripts/atlas3d_reference.py``), the
objectives are written from their published definitions, and the greedy selection and the
extended-real arithmetic are this module's own. ``scripts/atlas3d_reference.py`` uses it to
write ``tests/data/atlas3d_reference.json``; ``tests/atlas/test_atlas_3d_closed.py`` checks the engine
against both.

Scenario I: X, Y, Z, W i.i.d. Unif(-delta, delta); features (0-based) V0..V9 = X, 3X+1, Y^2,
X-Y, Z, Z^2, Y, X^2, W+2, Z+W; class C = 1{X + kY >= 0}. Every MI below is free of delta (C is
invariant under scaling), so U = X/delta, V = Y/delta ~ Unif(-1, 1) are used.

Class and single features (0 < k < 1; k = 0 and k = 1 are the limits, see :func:`at_point`):

* H(C) = ln 2: (U, V) -> (-U, -V) keeps the law and swaps the classes (a.s.).
* MI(C,X) = ln 2 - k/2: P(C=1|U=u) = (1 + u/k)/2 on |u| < k (0 or 1 elsewhere), uniform on (0,1)
  there, and int_0^1 H_b(p) dp = 1/2 nat, so H(C|X) = P(|U| < k)/2 = k/2.
* MI(C,Y) = [(1+k)^2 ln(1+k) - (1-k)^2 ln(1-k)]/(4k) - 1/2: P(C=1|V=v) = (1 + kv)/2.
* MI(C,X-Y) = -(1-k)^2 ln(1-k)/(4k): given D = U - V = d >= 0, V ~ Unif(-1, 1-d) and C = 1 iff
  V >= -d/(1+k), so P(C=1|d) = (1 - dk/(1+k))/(2-d) for d < 1+k, 1 beyond; D's density is
  (2-|d|)/4 and d -> -d swaps the classes.
* MI(C,V) = 0 for Y^2, X^2 (given |Y| = y, P(C=1) = [P(U >= -ky) + P(U >= ky)]/2 = 1/2; given
  |X|, the same with (u, v) -> (-u, -v)) and for Z, Z^2, W+2, Z+W (independent of C).

Pairs {Vi, Vj} (MI(C;{Vi,Vj}) = H(C) - E H_b(P(C=1|Vi,Vj))). A pair with a feature of (Z, W) and
one of (X, Y) gives the latter's MI(C, V); two of (Z, W) give 0. Among X, 3X+1, Y^2, X-Y, Y, X^2
(3X+1 carries the same information as X):

* {X, 3X+1}, {X, X^2}, {3X+1, X^2}: MI(C,X); {Y, Y^2}: MI(C,Y); {Y^2, X^2}: 0 (the four points
  (+-x, +-y) hold two of each class).
* {X, X-Y}, {X, Y}, {X-Y, Y} and the same with 3X+1: (X, Y) is revealed, MI = H(C) = ln 2.
* Two-point pairs: the pair reveals (x, y) up to an involution tau with equal densities (and
  equal Jacobians) at both points, so H(C|Vi,Vj) = ln 2 P(both points in the support and
  C != C o tau):

  - {X, Y^2}, {3X+1, Y^2}: tau(x, y) = (x, -y), classes differ iff |x| < k|y|:
    MI = ln 2 (1 - k/2);
  - {Y, X^2}: tau(x, y) = (-x, y), classes differ iff |x| > k|y|: MI = ln 2 k/2;
  - {Y^2, X-Y}: tau(x, y) = (x - 2y, -y); on v > 0 the classes differ for -kv <= u < (2+k)v with
    |u - 2v| <= 1, an area (1+k)/(2+k) (length 2(1+k)v below v = 1/(2+k), 2 - 2v above), the
    same on v < 0, so P = (1+k)/(2(2+k)) and MI = ln 2 (3+k)/(2(2+k));
  - {X-Y, X^2}: tau(x, y) = (-x, y - 2x); on v > 0 the classes agree exactly for
    -kv <= u <= kv/(1+2k), inside the support |v - 2u| <= 1 (length 1 in u); the agreeing area
    is k/(1+2k), so P = (1+k)/(2(1+2k)) and MI = ln 2 (1+3k)/(2(1+2k)).

Feature pairs (constants): MI = +inf for a feature and a function of it (the diagonal, {X,3X+1},
{X,X^2}, {3X+1,X^2}, {Y,Y^2}, {Z,Z^2}); 1/2 for {X,X-Y}, {3X+1,X-Y}, {Y,X-Y}, {Z,Z+W},
{W+2,Z+W} (h(X-Y) - h(Y) = 1/2 + ln 2delta - ln 2delta); (1 - ln 2)/2 for {Y^2,X-Y},
{X^2,X-Y}, {Z^2,Z+W} (given |Y| = y, X - Y is an even mixture of two shifted uniforms with
entropy ln 2delta + (y/delta) ln 2); 0 otherwise. Entropies: h = ln 2delta (X, Z, Y, W+2),
ln 6delta (3X+1), ln(2delta^2) - 1 (squares), 1/2 + ln 2delta (X-Y, Z+W).

Sets {V_T} of any size (CMI, JMI3): Z, Z^2, W+2, Z+W are independent of (X, Y, C), so only the
(X, Y) features count; 3X+1 carries X, X^2 adds nothing to X, Y^2 nothing to Y. What is left
reveals (x, y) -- MI = H(C) = ln 2 -- when it holds two of X, X-Y, Y, or all of Y^2, X-Y, X^2
(given d = x - y and y^2, the two points (d + y, y), (d - y, -y) have x^2 = (d +- y)^2, equal
only where d y = 0, a null set); otherwise it is at most a pair, given above.

Chain rules: MI(C;Vi|Vj) = MI(C;{Vi,Vj}) - MI(C,Vj); MI(Vi;Vj|C) = MI(Vi,Vj) - MI(C,Vi) -
MI(C,Vj) + MI(C;{Vi,Vj}) (+inf where MI(Vi,Vj) = +inf: no joint density given C either);
H(Vi,Vj,C) = h(Vi) + h(Vj) - MI(Vi,Vj) + H(C) - MI(C;{Vi,Vj}) (-inf where there is no joint
density).
"""

from __future__ import annotations

import functools
from dataclasses import dataclass

import mpmath
import sympy as sp

k = sp.Symbol("k", positive=True)
LN2 = sp.log(2)
LABELS = ("X", "3X+1", "Y^2", "X-Y", "Z", "Z^2", "Y", "X^2", "W+2", "Z+W")
N = len(LABELS)
OO = sp.oo

# ---- single-feature and pair closed forms (0 < k < 1) -----------------------------------------
MI_X = LN2 - k / 2
MI_Y = ((1 + k) ** 2 * sp.log(1 + k) - (1 - k) ** 2 * sp.log(1 - k)) / (4 * k) - sp.Rational(1, 2)
MI_D = -((1 - k) ** 2) * sp.log(1 - k) / (4 * k)
PAIR_X_Y2 = LN2 * (1 - k / 2)
PAIR_Y_X2 = LN2 * k / 2
PAIR_Y2_D = LN2 * (3 + k) / (2 * (2 + k))
PAIR_D_X2 = LN2 * (1 + 3 * k) / (2 * (1 + 2 * k))

#: Limits of the forms with a 1/k or ln(1-k) at the ends (the rest are polynomials or rational).
ENDPOINT_LIMITS = {
    0: {"X": LN2, "Y": sp.Integer(0), "D": sp.Rational(1, 4)},
    1: {"X": LN2 - sp.Rational(1, 2), "Y": LN2 - sp.Rational(1, 2), "D": sp.Integer(0)},
}


def base_forms(at=None) -> dict:
    """MI(C,X), MI(C,Y), MI(C,X-Y) and the two-point pair forms: in k (``at`` None) or exactly
    at k = 0 or k = 1 (their limits there)."""
    b = {"X": MI_X, "Y": MI_Y, "D": MI_D, "X.Y2": PAIR_X_Y2, "Y.X2": PAIR_Y_X2,
         "Y2.D": PAIR_Y2_D, "D.X2": PAIR_D_X2}
    if at is None:
        return b
    return {n: ENDPOINT_LIMITS[at][n] if n in ENDPOINT_LIMITS[at] else e.subs(k, at)
            for n, e in b.items()}


# canonical information of each feature: 3X+1 and X carry the same
_CANON = ("X", "X", "Y2", "D", "Z", "Z2", "Y", "X2", "W", "S")
_XY = {"X", "Y2", "D", "Y", "X2"}


def _pair_table(b):
    """MI(C;{a,b}) for two (X, Y) features (unordered canonical pairs)."""
    f = frozenset
    return {
        f({"X"}): b["X"], f({"X", "Y2"}): b["X.Y2"], f({"X", "D"}): LN2, f({"X", "Y"}): LN2,
        f({"X", "X2"}): b["X"], f({"Y2", "D"}): b["Y2.D"], f({"Y2", "Y"}): b["Y"],
        f({"Y2", "X2"}): sp.Integer(0), f({"D", "Y"}): LN2, f({"D", "X2"}): b["D.X2"],
        f({"Y", "X2"}): b["Y.X2"],
    }


_HALF, _SQ = sp.Rational(1, 2), (1 - LN2) / 2
_MI_FEAT = {  # MI(Vi,Vj) of distinct canonical features, when not 0
    frozenset({"X", "X2"}): OO, frozenset({"Y", "Y2"}): OO, frozenset({"Z", "Z2"}): OO,
    frozenset({"X", "D"}): _HALF, frozenset({"Y", "D"}): _HALF, frozenset({"Z", "S"}): _HALF,
    frozenset({"W", "S"}): _HALF, frozenset({"Y2", "D"}): _SQ, frozenset({"X2", "D"}): _SQ,
    frozenset({"Z2", "S"}): _SQ,
}


def entropies(delta=_HALF):
    """h(Vi) for Unif(-delta, delta) base variables."""
    u, tri, sq = sp.log(2 * delta), _HALF + sp.log(2 * delta), sp.log(2 * delta**2) - 1
    return (u, sp.log(6 * delta), sq, tri, u, sq, u, sq, u, tri)


def mi_class(i, b=None):
    b = base_forms() if b is None else b
    return b[_CANON[i]] if _CANON[i] in ("X", "Y", "D") else sp.Integer(0)


def mi_features(i, j):
    if i == j:
        return OO
    a, b = _CANON[i], _CANON[j]
    if a == b:  # X and 3X+1
        return OO
    return _MI_FEAT.get(frozenset({a, b}), sp.Integer(0))


def mi_class_set(T, b=None):
    """MI(C; V_T) for a set T of features (the rules in the module docstring)."""
    b = base_forms() if b is None else b
    K = {_CANON[i] for i in T} & _XY
    if "X" in K:
        K.discard("X2")
    if "Y" in K:
        K.discard("Y2")
    if len(K & {"X", "D", "Y"}) >= 2 or {"Y2", "D", "X2"} <= K:
        return LN2
    if not K:
        return sp.Integer(0)
    if len(K) == 1:
        return {"X": b["X"], "Y": b["Y"], "D": b["D"]}.get(next(iter(K)), sp.Integer(0))
    assert len(K) == 2, K
    return _pair_table(b)[frozenset(K)]


def mi_class_pair(i, j, b=None):
    """MI(C;{Vi,Vj}) (i == j: MI(C,Vi))."""
    b = base_forms() if b is None else b
    if i == j:
        return mi_class(i, b)
    ci, cj = _CANON[i], _CANON[j]
    if ci in _XY and cj in _XY:
        return _pair_table(b)[frozenset({ci, cj})]
    if ci in _XY:
        return mi_class(i, b)
    if cj in _XY:
        return mi_class(j, b)
    return sp.Integer(0)


@dataclass(frozen=True)
class Closed:
    """Every input of a 3-D objective as a sympy expression in ``k`` (or +-oo): ``h_c``,
    ``h[i]``, ``mi_c[i]``, ``mi[i][j]``, ``mi_c_pair[i][j]``, ``cmi_c[i][j]``,
    ``mi_given_c[i][j]``, ``h_pair_c[i][j]``."""

    h_c: sp.Expr
    h: tuple
    mi_c: tuple
    mi: tuple
    mi_c_pair: tuple
    cmi_c: tuple
    mi_given_c: tuple
    h_pair_c: tuple
    base: dict | None = None  # the forms of :func:`base_forms`, for the sets


def closed_forms(delta=_HALF, at=None) -> Closed:
    """Every input in k (``at`` None), or exactly at k = 0 or 1."""
    b = base_forms(at)
    h = entropies(delta)
    mc = tuple(mi_class(i, b) for i in range(N))
    mi = tuple(tuple(mi_features(i, j) for j in range(N)) for i in range(N))
    pair = tuple(tuple(mi_class_pair(i, j, b) for j in range(N)) for i in range(N))
    cmi = tuple(tuple(sp.Integer(0) if i == j else pair[i][j] - mc[j] for j in range(N))
                for i in range(N))
    given = tuple(tuple(OO if mi[i][j] == OO else mi[i][j] - mc[i] - mc[j] + pair[i][j]
                        for j in range(N)) for i in range(N))
    hpc = tuple(tuple(-OO if mi[i][j] == OO else h[i] + h[j] - mi[i][j] + LN2 - pair[i][j]
                      for j in range(N)) for i in range(N))
    return Closed(LN2, h, mc, mi, pair, cmi, given, hpc, b)


# ---- evaluation at a point --------------------------------------------------------------------

@functools.lru_cache(maxsize=None)
def _is_zero(expr) -> bool:
    """Whether a closed form is identically 0 on 0 < k < 1 (sympy, then 60-digit values at three
    points: the closed forms are analytic there)."""
    if expr in (OO, -OO):
        return False
    e = sp.simplify(sp.expand_log(expr, force=True))
    if e == 0:
        return True
    if not e.free_symbols:
        return False
    f = sp.lambdify(k, e, "mpmath")
    with mpmath.workdps(60):
        return all(abs(f(mpmath.mpf(x))) < mpmath.mpf(10) ** -50 for x in ("0.1234", "0.5", "0.87"))


@functools.lru_cache(maxsize=None)
def _compiled(expr):
    return sp.lambdify(k, expr, "mpmath")


class XR:
    """An extended real: kind 'fin' (an mpf), 'zero' (an exact 0), '+inf', '-inf', or
    'ind' (0/0, inf-inf, inf/inf; ``form`` names it)."""

    __slots__ = ("kind", "x", "form")

    def __init__(self, kind, x=None, form=None):
        self.kind, self.x, self.form = kind, x, form

    @property
    def finite(self):
        return self.kind in ("fin", "zero")

    def num(self):
        return mpmath.mpf(0) if self.kind == "zero" else self.x

    def __add__(self, o):
        if self.kind == "ind":
            return self
        if o.kind == "ind":
            return o
        if self.finite and o.finite:
            if self.kind == "zero":
                return o
            if o.kind == "zero":
                return self
            return XR("fin", self.x + o.x)
        if self.finite:
            return o
        if o.finite or o.kind == self.kind:
            return self
        return XR("ind", form="inf-inf")

    def __neg__(self):
        if self.kind == "fin":
            return XR("fin", -self.x)
        return {"+inf": NEG, "-inf": POS}.get(self.kind, self)

    def __sub__(self, o):
        return self + (-o)

    def __truediv__(self, o):
        if self.kind == "ind":
            return self
        if o.kind == "ind":
            return o
        if not self.finite and not o.finite:
            return XR("ind", form="inf/inf")
        if not o.finite:
            return ZERO
        if o.kind == "zero":
            if self.kind == "zero":
                return XR("ind", form="0/0")
            s = self.x > 0 if self.kind == "fin" else self.kind == "+inf"
            return POS if s else NEG
        if self.kind == "zero":
            return ZERO
        if self.kind == "fin":
            return XR("fin", self.x / o.x)
        return self if o.x > 0 else -self

    def key(self):
        return {"-inf": (0, 0), "+inf": (2, 0)}.get(self.kind, (1, self.num()))

    def __repr__(self):
        return f"XR({self.kind}, {self.x if self.kind == 'fin' else self.form})"


POS, NEG, ZERO = XR("+inf"), XR("-inf"), XR("zero")


def _extreme(seq, pick):
    """min or max over extended reals; an indeterminate member makes it indeterminate."""
    seq = list(seq)
    return next((a for a in seq if a.kind == "ind"), None) or pick(seq, key=XR.key)


def xmin(seq):
    return _extreme(seq, min)


def xmax(seq):
    return _extreme(seq, max)


def xsum(seq):
    out = ZERO
    for a in seq:
        out = out + a
    return out


def xmean(seq):
    seq = list(seq)
    return xsum(seq) / XR("fin", mpmath.mpf(len(seq)))


class Point:
    """The inputs of the 3-D objectives at one k, as :class:`XR`: a float-free evaluation of
    :class:`Closed` at working precision (``mpmath.mp.dps``); exact zeros are known from the
    closed forms, not from the values. ``at`` is an mpf in (0, 1) for ``closed`` in k, ignored
    for the exact ``closed_forms(at=0)`` or ``(at=1)``."""

    def __init__(self, closed: Closed, at=None):
        self.at = at

        def conv(expr):
            if expr in (OO, -OO):
                return POS if expr == OO else NEG
            if _is_zero(expr):
                return ZERO
            if not expr.free_symbols:
                return XR("fin", mpmath.mpf(sp.N(expr, mpmath.mp.dps + 10)))
            return XR("fin", _compiled(expr)(at))

        memo = {}

        def c(expr):
            if expr not in memo:
                memo[expr] = conv(expr)
            return memo[expr]

        self._c, self._base = c, closed.base
        self.hc = c(closed.h_c)
        self._mc = [c(e) for e in closed.mi_c]
        self._mi = [[c(e) for e in row] for row in closed.mi]
        self._pair = [[c(e) for e in row] for row in closed.mi_c_pair]
        self._cmi = [[c(e) for e in row] for row in closed.cmi_c]
        self._given = [[c(e) for e in row] for row in closed.mi_given_c]
        self._hpc = [[c(e) for e in row] for row in closed.h_pair_c]

    def mi_c(self, i):
        return self._mc[i]

    def mi(self, i, j):
        return self._mi[i][j]

    def mi_c_pair(self, i, j):
        return self._pair[i][j]

    def cmi_c(self, i, j):
        return self._cmi[i][j]

    def mi_given_c(self, i, j):
        return self._given[i][j]

    def h_pair_c(self, i, j):
        return self._hpc[i][j]

    def mi_c_set(self, T):
        return self._c(mi_class_set(tuple(T), self._base))

    def cmi_c_set(self, i, T):
        """MI(C;Vi|V_T) = MI(C;V_T+{Vi}) - MI(C;V_T), the difference taken on the closed forms
        (so that equal sets cancel exactly)."""
        return self._c(mi_class_set(tuple(T) + (i,), self._base) - mi_class_set(tuple(T), self._base))


# ---- the objectives, from their published definitions -----------------------------------------
# Yang and Moody 1999 (JMI), Fleuret 2004 (CMIM), Bennasar et al. 2015 (JMIM), Lin and Tang 2006
# (CIFE), Meyer et al. 2008 (DISR), Jakulin 2005 (ICAP); the "unified" forms are Brown et al.
# 2012 (JMLR 13, Table 1), the "interaction" forms write MI(Vi,Vs) - MI(Vi,Vs|C) as
# MI(C,Vi) - MI(C;Vi|Vs) (McGill 1954).

def _interaction(p, i, s):
    return p.mi_c(i) - p.cmi_c(i, s)


def _redundancy(p, i, s):
    return p.mi(i, s) - p.mi_given_c(i, s)


OBJECTIVES = {
    ("jmi", "original"): lambda p, i, S: xsum(p.mi_c_pair(i, s) for s in S),
    ("jmi", "unified"): lambda p, i, S: p.mi_c(i) - xmean(_redundancy(p, i, s) for s in S),
    ("jmi", "interaction"): lambda p, i, S: p.mi_c(i) - xmean(_interaction(p, i, s) for s in S),
    ("cmim", "original"): lambda p, i, S: xmin(p.cmi_c(i, s) for s in S),
    ("cmim", "fleuret"): lambda p, i, S: xmin([p.mi_c(i)] + [p.cmi_c(i, s) for s in S]),
    ("cmim", "unified"): lambda p, i, S: p.mi_c(i) - xmax(_redundancy(p, i, s) for s in S),
    ("jmim", "original"): lambda p, i, S: xmin(p.mi_c_pair(i, s) for s in S),
    ("cife", "original"): lambda p, i, S: (p.mi_c(i) - xsum(p.mi(i, s) for s in S))
    + xsum(p.mi_given_c(i, s) for s in S),
    ("cife", "interaction"): lambda p, i, S: p.mi_c(i) - xsum(_interaction(p, i, s) for s in S),
    ("disr", "original"): lambda p, i, S: xsum(p.mi_c_pair(i, s) / p.h_pair_c(i, s) for s in S),
    ("icap", "original"): lambda p, i, S: p.mi_c(i) - xsum(xmax([ZERO, _redundancy(p, i, s)])
                                                           for s in S),
    ("icap", "interaction"): lambda p, i, S: p.mi_c(i) - xsum(xmax([ZERO, _interaction(p, i, s)])
                                                              for s in S),
}
ROWS = tuple(OBJECTIVES)


# ---- the methods of FEAST and praznik (their published definitions) -----------------------------
# MIM (Lewis 1992); CMI (Brown et al. 2012); NJMIM (Bennasar et al. 2015): min of MI(C;{Vi,Vs}) /
# H(Vi,Vs,C); JMI3 (Sechidis et al. 2019): MI(C;{Vi,Vs}) at |S| = 1, then the sum over pairs of
# S of MI(C;{Vi,Vu,Vw}); beta-gamma (Brown et al. 2012): MI(C,Vi) - beta sum MI(Vi,Vs) + gamma
# sum MI(Vi;Vs|C); CondRed: its point (0, 1) without the redundancy term.

def _times(c, x: XR) -> XR:
    """c * x for a number c >= 0 (0 * inf indeterminate)."""
    if c == 0:
        return XR("ind", form="0*inf") if x.kind in ("+inf", "-inf") else (
            x if x.kind == "ind" else ZERO)
    if x.kind == "fin":
        return XR("fin", mpmath.mpf(c.numerator) / c.denominator * x.x)
    return x


def _jmi3(p, i, S):
    if len(S) == 1:
        return p.mi_c_pair(i, S[0])
    return xsum(p.mi_c_set((i, u, w)) for a, u in enumerate(S) for w in S[a + 1:])


def beta_gamma(beta, gamma, zero="explicit"):
    """The beta-gamma objective at (beta, gamma) (Fractions, or "1/|S|"); ``zero="drop"`` leaves
    a zero coefficient's term out."""
    from fractions import Fraction

    def coef(c, S):
        return Fraction(1, len(S)) if c == "1/|S|" else Fraction(c)

    def fn(p, i, S):
        out = p.mi_c(i)
        b, g = coef(beta, S), coef(gamma, S)
        if not (b == 0 and zero == "drop"):
            out = out - _times(b, xsum(p.mi(i, s) for s in S))
        if not (g == 0 and zero == "drop"):
            out = out + _times(g, xsum(p.mi_given_c(i, s) for s in S))
        return out

    return fn


LIBRARY = {
    ("mim", "original"): lambda p, i, S: p.mi_c(i),
    ("cmi", "original"): lambda p, i, S: p.cmi_c_set(i, S),
    ("njmim", "original"): lambda p, i, S: xmin(p.mi_c_pair(i, s) / p.h_pair_c(i, s) for s in S),
    ("jmi3", "original"): _jmi3,
    ("condred", "original"): lambda p, i, S: p.mi_c(i) + xsum(p.mi_given_c(i, s) for s in S),
    ("condred", "feast"): lambda p, i, S: p.mi_c(i) - xsum(
        _times(0, p.mi(i, s)) - p.mi_given_c(i, s) for s in S),
}
#: beta-gamma rows: (beta, gamma, zero_beta) -> objective
BETA_GAMMA = {pt: beta_gamma(*pt) for pt in (
    ("1/2", "1/4", "explicit"), ("1/|S|", "1/|S|", "explicit"), ("1/|S|", "0", "drop"),
    ("1", "0", "explicit"), ("0", "1", "drop"), ("1", "1", "explicit"))}
OBJECTIVES.update(LIBRARY)
OBJECTIVES.update({("beta-gamma",) + pt: fn for pt, fn in BETA_GAMMA.items()})


def _beats(a: XR, b: XR, tol) -> bool:
    """a strictly better than b (both determinate); finite values within ``tol`` (relative to
    max(1, |a|, |b|)) tie."""
    ka, kb = a.key(), b.key()
    if ka[0] != kb[0]:
        return ka[0] > kb[0]
    if ka[0] != 1:
        return False
    x, y = ka[1], kb[1]
    return x - y > tol * max(1, abs(x), abs(y))


def select(p: Point, row, tol=None):
    """Greedy forward selection (the paper's Section 7 rules): first the largest MI(C,Vi); then
    the largest determinate objective, -inf included; ties (within ``tol``) to the lower index;
    an indeterminate candidate is never chosen; stop when every remaining one is. Returns
    (order as a tuple of indices, stopped)."""
    tol = mpmath.mpf(10) ** -(mpmath.mp.dps - 8) if tol is None else tol
    fn = OBJECTIVES[row]
    best = 0
    for i in range(1, N):
        if _beats(p.mi_c(i), p.mi_c(best), tol):
            best = i
    order = [best]
    while len(order) < N:
        best, bval = None, None
        for i in range(N):
            if i in order:
                continue
            val = fn(p, i, order)
            if val.kind == "ind":
                continue
            if best is None or _beats(val, bval, tol):
                best, bval = i, val
        if best is None:
            return tuple(order), True
        order.append(best)
    return tuple(order), False


def objective(closed: Closed, row, i, S, at) -> XR:
    return OBJECTIVES[row](Point(closed, at), i, S)
