"""The numerical route: entropies and MIs by high-precision quadrature from the base laws alone.

This is the second, independent route for every closed form of the paper's scenarios, and the
only route for a declared scenario whose laws have no closed forms (Scenario III, scenario
files). It never uses a closed form of an entropy or MI: only the base laws' densities and CDFs.

Features it handles
-------------------
* ``g(B)``, a function of one base variable whose level sets {y : g(y) = g(x)} are given by
  maps linear in x (affine maps: {x}; B^2 or |B|: {x, -x}; (B - c)^2: {x, 2c - x}). Densities by
  change of variables, written over the base variable x so that no inverse function is needed:
  h(V) = -int f_B(x) ln f_V(g(x)) dx, f_V(g(x)) = sum_{y ~ x} f_B(y) / |g'(y)|.
* ``c1 B1 + c2 B2 + e``, linear in two independent base variables: density by convolution,
  f_V(v) = int f_1(x) f_2((v - e - c1 x)/c2) / |c2| dx (an inner quadrature).

Quantities
----------
* h(V) = -int f ln f;
* MI(C, V) = sum_c int f_{V,c} ln(f_{V,c} / (f_V p_c)) (paper eq. (mi_cont_disc)), with the class
  a linear threshold of at most two base variables, P(C | base values) from an indicator or the
  other class variable's CDF;
* MI(U, V) = h(V) - h(V | U) for U = g(B1), V = c1 B1 + c2 B2 + e; and for two linear features of
  the same two variables, MI = h(U) + h(V) - h(B1) - h(B2) - ln |det|.

Precision: every integrand is analytic between breakpoints that are computed exactly — the laws'
support ends and kinks, their images through the level-set maps, and, for convolutions, every
value of the outer variable at which two inner breakpoint lines x = alpha + beta v cross — so
tanh-sinh quadrature (``mpmath.quad``) converges to the working precision. The error estimate
reported is mpmath's for the outermost integral. Anything outside these forms raises
:class:`NumericUnsupported`, which the caller reports as "not computed" rather than guessing.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import mpmath
import sympy as sp

from fstheory.theory.extended import xr
from fstheory.theory.laws import Law

__all__ = ["NumericRoute", "NumericResult", "NumericUnsupported"]


class NumericUnsupported(ValueError):
    """The numerical route has no reliable method for this quantity."""


@dataclass(frozen=True)
class NumericResult:
    value: mpmath.mpf
    error: mpmath.mpf

    def as_extended(self):
        return xr(self.value)

    def describe(self) -> str:
        return f"numerical route, quadrature error estimate {mpmath.nstr(self.error, 2)}"


def _mp(v) -> mpmath.mpf:
    v = sp.sympify(v)
    if v == sp.oo:
        return mpmath.inf
    if v == -sp.oo:
        return -mpmath.inf
    return mpmath.mpf(sp.N(v, mpmath.mp.dps))


def _xlogx(p):
    return p * mpmath.log(p) if p > 0 else mpmath.mpf(0)


def _quad(f, pts):
    """Integrate f over the sorted union of ``pts`` (first/last are the range ends)."""
    lo, hi = pts[0], pts[-1]
    inner = sorted({p for p in pts[1:-1] if lo < p < hi})
    pts = [lo] + inner + [hi]
    if lo >= hi:
        return mpmath.mpf(0), mpmath.mpf(0)
    value, err = mpmath.quad(f, pts, error=True)
    return value, err


_x = sp.Symbol("x", real=True)


class _Base:
    """A base law compiled to mpmath: density, CDF, support and breakpoints."""

    def __init__(self, law: Law):
        self.law = law
        lo, hi = law.support()
        self.lo, self.hi = _mp(lo), _mp(hi)
        self.bps = sorted(_mp(p) for p in law.breakpoints() if self.lo < _mp(p) < self.hi)
        self._pdf = sp.lambdify(_x, law.pdf(_x), "mpmath")
        cdf = law.cdf(_x)
        if cdf is None:
            raise NumericUnsupported(f"law {law!r} declares no CDF")
        self._cdf = sp.lambdify(_x, cdf, "mpmath")

    def pdf(self, x):
        if x < self.lo or x > self.hi:
            return mpmath.mpf(0)
        return mpmath.mpf(self._pdf(x))

    def cdf(self, x):
        if x <= self.lo:
            return mpmath.mpf(0)
        if x >= self.hi:
            return mpmath.mpf(1)
        return mpmath.mpf(self._cdf(x))

    def finite_points(self) -> list:
        return [p for p in [self.lo, *self.bps, self.hi] if mpmath.isfinite(p)]

    def points(self) -> list:
        return [self.lo, *self.bps, self.hi]


@dataclass
class _Single:
    """V = g(B): level-set maps y = m x + q (as (m, q) pairs, the identity first)."""

    sym: sp.Symbol
    base: _Base
    g: object  # mpmath callable
    dg: object  # mpmath callable, |g'|
    partners: list  # [(m, q)] including (1, 0)
    crit: list  # points where g' = 0 (density singular), mpf

    def preimages(self, x):
        return [m * x + q for m, q in self.partners]

    def weight(self, y):
        """f_B(y)/|g'(y)|: the density of V at g(y) contributed by the branch through y."""
        f = self.base.pdf(y)
        if f == 0:
            return mpmath.mpf(0)
        return f / self.dg(y)

    def x_points(self) -> list:
        """Breakpoints in x: the law's points and their images through every level-set map."""
        pts = set(self.base.finite_points()) | set(self.crit)
        for m, q in self.partners:
            for p in self.base.finite_points():
                pts.add((p - q) / m)
        return sorted(pts)


@dataclass
class _Linear:
    """V = c1 B1 + c2 B2 + e."""

    s1: sp.Symbol
    s2: sp.Symbol
    b1: _Base
    b2: _Base
    c1: mpmath.mpf
    c2: mpmath.mpf
    e: mpmath.mpf

    def y_of(self, x, v):
        return (v - self.e - self.c1 * x) / self.c2

    def x_lines(self) -> list:
        """Inner breakpoints as lines x = alpha + beta * v."""
        lines = [(p, mpmath.mpf(0)) for p in self.b1.finite_points()]
        for q in self.b2.finite_points():
            lines.append(((-self.e - self.c2 * q) / self.c1, 1 / self.c1))
        return lines

    def x_range(self, v):
        lo, hi = self.b1.lo, self.b1.hi
        ys = [self.b2.lo, self.b2.hi]
        xs = [(v - self.e - self.c2 * yv) / self.c1 if mpmath.isfinite(yv) else None for yv in ys]
        if None not in xs:
            lo, hi = max(lo, min(xs)), min(hi, max(xs))
        else:  # one side of B2 unbounded
            for yv, xv in zip(ys, xs):
                if xv is None:
                    continue
                # x moves with y as sign(-c2/c1): keep the side where y lies inside the support
                inside_up = (yv == self.b2.lo) == (-self.c2 / self.c1 > 0)
                lo, hi = (max(lo, xv), hi) if inside_up else (lo, min(hi, xv))
        return lo, hi

    def v_points(self) -> list:
        pts = set()
        for p in self.b1.finite_points():
            for q in self.b2.finite_points():
                pts.add(self.c1 * p + self.c2 * q + self.e)
        return sorted(pts)

    def v_range(self):
        ends = []
        for p in (self.b1.lo, self.b1.hi):
            for q in (self.b2.lo, self.b2.hi):
                ends.append(self.c1 * p + self.c2 * q + self.e)
        finite = [e for e in ends if mpmath.isfinite(e)]
        lo = -mpmath.inf if any(e == -mpmath.inf for e in ends) or not finite else min(finite)
        hi = mpmath.inf if any(e == mpmath.inf for e in ends) or not finite else max(finite)
        return lo, hi


def _centred(law: Law) -> bool:
    c = law.center()
    return c is not None and sp.simplify(c) == 0


def _crossings(lines) -> list:
    """Values of v where two lines x = a + b v meet."""
    out = []
    for (a1, b1), (a2, b2) in itertools.combinations(lines, 2):
        if b1 != b2:
            out.append((a2 - a1) / (b1 - b2))
    return out



_v = sp.Symbol("v", real=True)


def _resolve(expr: sp.Expr, point: dict) -> sp.Expr:
    """Replace |z| by +-z and a Piecewise by its branch, as they are at ``point``."""
    def sign_at(z):
        val = sp.N(z.subs(point), 30)
        return 1 if val >= 0 else -1

    expr = expr.replace(lambda e: isinstance(e, sp.Abs), lambda e: sign_at(e.args[0]) * e.args[0])
    while expr.has(sp.Piecewise):
        pw = next(iter(expr.atoms(sp.Piecewise)))
        for branch, cond in pw.args:
            if cond == sp.true or bool(cond.subs(point)):
                expr = expr.xreplace({pw: branch})
                break
    return expr


def _rational_line(line):
    a, b = line
    return sp.nsimplify(sp.Float(a, mpmath.mp.dps), rational=True) + sp.nsimplify(
        sp.Float(b, mpmath.mp.dps), rational=True) * _v


class _SymbolicInner(Exception):
    pass


def _symbolic_convolution(f: "_Linear", lines: list, indicator=None):
    """The convolution integral done by sympy on every piece of the outer variable.

    Returns [(v_lo, v_hi, F)] with F(v) = int f_1(x) f_2(y(x, v)) [indicator] dx / |c2| as an
    mpmath function, or raises :class:`_SymbolicInner` if sympy cannot integrate a piece. On a
    piece of v between two crossings of the breakpoint lines, the order of the lines is fixed, so
    every inner piece is an integral of one analytic expression between two lines.
    """
    x = _x
    c1, c2, e = (sp.nsimplify(sp.Float(t, mpmath.mp.dps), rational=True) for t in (f.c1, f.c2, f.e))
    y = (_v - e - c1 * x) / c2
    integrand = f.b1.law.pdf(x) * f.b2.law.pdf(y) / sp.Abs(c2)
    lo1, hi1 = f.b1.law.support()
    lo2, hi2 = f.b2.law.support()
    lo_v, hi_v = f.v_range()
    all_lines = list(lines)
    vpts = sorted({p for p in [*f.v_points(), *_crossings(all_lines)] if lo_v < p < hi_v})
    edges = [lo_v, *vpts, hi_v]
    out = []
    for va, vb in zip(edges, edges[1:]):
        if va == -mpmath.inf:
            vm = vb - 1 if mpmath.isfinite(vb) else mpmath.mpf(0)
        elif vb == mpmath.inf:
            vm = va + 1
        else:
            vm = (va + vb) / 2
        xlo, xhi = f.x_range(vm)
        if not xlo < xhi:
            continue
        cuts = sorted({(l[0] + l[1] * vm, l) for l in all_lines if xlo < l[0] + l[1] * vm < xhi},
                      key=lambda t: t[0])
        # the range ends as lines (which support bound is active on this piece)
        def end_line(bound, want_lo):
            cands = []
            for val, src in ((lo1, "x"), (hi1, "x"), (lo2, "y"), (hi2, "y")):
                if not val.is_finite:
                    continue
                line = ((_mp(val), mpmath.mpf(0)) if src == "x" else
                        ((-f.e - f.c2 * _mp(val)) / f.c1, 1 / f.c1))
                if abs(line[0] + line[1] * vm - bound) < mpmath.mpf(10) ** (-mpmath.mp.dps // 2):
                    cands.append(line)
            return cands[0] if cands else None
        lo_line = end_line(xlo, True) if mpmath.isfinite(xlo) else None
        hi_line = end_line(xhi, False) if mpmath.isfinite(xhi) else None
        bounds = ([(-sp.oo if lo_line is None else _rational_line(lo_line))]
                  + [_rational_line(l) for _, l in cuts]
                  + [(sp.oo if hi_line is None else _rational_line(hi_line))])
        vals = [xlo] + [c for c, _ in cuts] + [xhi]
        total = sp.Integer(0)
        for (a, b), (xa, xb) in zip(zip(bounds, bounds[1:]), zip(vals, vals[1:])):
            if xa == -mpmath.inf:
                xm = xb - 1
            elif xb == mpmath.inf:
                xm = xa + 1
            else:
                xm = (xa + xb) / 2
            point = {x: sp.Float(xm, 30), _v: sp.Float(vm, 30)}
            if indicator is not None and not indicator(xm, f.y_of(xm, vm)):
                continue
            g = _resolve(integrand, point)
            res = sp.integrate(g, (x, a, b))
            if res.has(sp.Integral) or res.has(sp.nan):
                raise _SymbolicInner(f"sympy cannot integrate {g}")
            total += res
        out.append((va, vb, sp.lambdify(_v, total, "mpmath")))
    return out


class NumericRoute:
    """Numerical evaluation of entropies and MIs of features of independent base variables.

    Parameters
    ----------
    laws : dict Symbol -> Law
        The base variables and their laws, with numeric parameters.
    symbolic_inner : bool
        Let sympy do the inner integral of a convolution where it can (default). ``False`` forces
        nested quadrature: slower, but a computation that shares no step with sympy's.
    """

    def __init__(self, laws: dict, symbolic_inner: bool = True):
        self.laws = laws
        self.symbolic_inner = symbolic_inner
        self._bases: dict = {}
        self._memo: dict = {}

    # ----- compilation ------------------------------------------------------------------------
    def _base(self, sym) -> _Base:
        if sym not in self._bases:
            self._bases[sym] = _Base(self.laws[sym])
        return self._bases[sym]

    def _syms(self, expr):
        return sorted((s for s in expr.free_symbols if s in self.laws), key=str)

    def feature(self, expr):
        expr = sp.sympify(expr)
        syms = self._syms(expr)
        if expr.free_symbols - set(syms):
            raise NumericUnsupported(f"{expr} has unbound parameters")
        if len(syms) == 1:
            return self._single(expr, syms[0])
        if len(syms) == 2:
            return self._linear(expr, syms)
        raise NumericUnsupported(f"{expr}: only functions of one base variable or linear "
                                 "combinations of two are supported")

    def _single(self, expr, sym) -> _Single:
        key = ("single", expr)
        if key in self._memo:
            return self._memo[key]
        y = sp.Symbol("y_", real=True)
        g_x = expr.subs(sym, _x)
        sols = sp.solve(sp.Eq(expr.subs(sym, y), g_x), y)
        partners = [(mpmath.mpf(1), mpmath.mpf(0))]
        for s in sols:
            s = sp.simplify(s)
            if sp.simplify(s - _x) == 0:
                continue
            if s.has(sp.I) or sp.diff(s, _x, 2) != 0 or not s.free_symbols <= {_x}:
                raise NumericUnsupported(f"{expr}: level sets are not linear maps ({s})")
            partners.append((_mp(sp.diff(s, _x)), _mp(s.subs(_x, 0))))
        dg = sp.diff(g_x, _x)
        base = self._base(sym)
        crit_set = sp.solveset(sp.Eq(dg, 0), _x, sp.Interval(*base.law.support()))
        crit = []
        if isinstance(crit_set, sp.FiniteSet):
            crit = [_mp(c) for c in crit_set]
        elif crit_set is not sp.S.EmptySet:
            raise NumericUnsupported(f"{expr}: critical set {crit_set} not finite")
        for atom in g_x.atoms(sp.Abs):
            crit += [_mp(c) for c in sp.solve(atom.args[0], _x)]
        feat = _Single(
            sym, base,
            g=sp.lambdify(_x, g_x, "mpmath"),
            dg=sp.lambdify(_x, sp.Abs(dg), "mpmath"),
            partners=partners, crit=sorted(set(crit)),
        )
        self._memo[key] = feat
        return feat

    def _linear(self, expr, syms) -> _Linear:
        expr = sp.expand(expr)
        c = [sp.diff(expr, s) for s in syms]
        if any(ci.free_symbols for ci in c) or any(ci == 0 for ci in c):
            raise NumericUnsupported(f"{expr}: not linear in {syms}")
        e = expr - c[0] * syms[0] - c[1] * syms[1]
        if e.free_symbols:
            raise NumericUnsupported(f"{expr}: not linear in {syms}")
        return _Linear(syms[0], syms[1], self._base(syms[0]), self._base(syms[1]),
                       _mp(c[0]), _mp(c[1]), _mp(e))

    # ----- densities --------------------------------------------------------------------------
    def _linear_density(self, f: _Linear, v, extra_lines=(), factor=None):
        """f_V(v) (times an optional factor(x, y) under the integral)."""
        lo, hi = f.x_range(v)
        if not lo < hi:
            return mpmath.mpf(0)
        pts = [lo] + [a + b * v for a, b in list(f.x_lines()) + list(extra_lines)] + [hi]

        def integrand(x):
            y = f.y_of(x, v)
            val = f.b1.pdf(x) * f.b2.pdf(y)
            if val == 0:
                return val
            if factor is not None:
                val *= factor(x, y)
            return val

        value, _ = _quad(integrand, pts)
        return value / abs(f.c2)

    # ----- entropy ----------------------------------------------------------------------------
    def entropy(self, expr) -> NumericResult:
        f = self.feature(expr)
        if isinstance(f, _Single):
            return self._entropy_single(f)
        key = ("h-linear", f.b1.law, f.b2.law, f.c1, f.c2)
        if key not in self._memo:
            self._memo[key] = self._entropy_linear(f)
        return self._memo[key]

    def _entropy_single(self, f: _Single) -> NumericResult:
        def integrand(x):
            fx = f.base.pdf(x)
            if fx == 0:
                return fx
            dens = sum(f.weight(y) for y in f.preimages(x))
            return -fx * mpmath.log(dens)

        v, err = _quad(integrand, [f.base.lo, *f.x_points(), f.base.hi])
        return NumericResult(v, err)

    def _density(self, f: _Linear, extra_lines=(), indicator=None):
        """f_V (or the part of it on an event given by an indicator in (x, y)) and its breakpoints.

        The inner integral is done by sympy piece by piece when it can (polynomial, exponential
        and Gaussian densities), else by quadrature at every point.
        """
        lines = f.x_lines() + list(extra_lines)
        lo, hi = f.v_range()
        try:
            if not self.symbolic_inner:
                raise _SymbolicInner("nested quadrature requested")
            pieces = _symbolic_convolution(f, lines, indicator)
        except _SymbolicInner:
            factor = None if indicator is None else (lambda x, y: 1 if indicator(x, y) else 0)

            def dens(v):
                return self._linear_density(f, v, extra_lines, factor)

            return dens, [lo, *f.v_points(), *_crossings(lines), hi]

        def dens(v):
            for va, vb, F in pieces:
                if va <= v <= vb:
                    val = mpmath.mpf(F(v))
                    return val if val > 0 else mpmath.mpf(0)  # a negative is rounding noise
            return mpmath.mpf(0)

        edges = sorted({p for va, vb, _ in pieces for p in (va, vb)})
        return dens, [lo, *edges, hi]

    def _entropy_linear(self, f: _Linear) -> NumericResult:
        dens, pts = self._density(f)
        v, err = _quad(lambda t: -_xlogx(dens(t)), pts)
        return NumericResult(v, err)

    # ----- class ------------------------------------------------------------------------------
    def _class_model(self, weights: dict, threshold):
        w = {s: _mp(wv) for s, wv in weights.items() if sp.sympify(wv) != 0}
        if not w or len(w) > 2:
            raise NumericUnsupported("class rules on one or two base variables only")
        return w, _mp(threshold)

    def _p1_given(self, w, theta, assigned: dict):
        """P(C = 1 | the base variables in ``assigned``) for C = 1{sum w_b b >= theta}."""
        rest = [s for s in w if s not in assigned]
        partial = sum(w[s] * assigned[s] for s in w if s in assigned)
        if not rest:
            return mpmath.mpf(1) if partial >= theta else mpmath.mpf(0)
        if len(rest) > 1:
            raise NumericUnsupported("feature shares fewer than all-but-one class variables")
        (r,) = rest
        t = (theta - partial) / w[r]
        base = self._base(r)
        return 1 - base.cdf(t) if w[r] > 0 else base.cdf(t)

    def _p1_lines(self, w, theta, var) -> list:
        """Kinks of P(C=1 | var = x) in x: where the other class variable hits its points."""
        others = [s for s in w if s != var]
        if var not in w:
            return []
        if not others:
            return [theta / w[var]]
        (r,) = others
        return [(theta - w[r] * q) / w[var] for q in self._base(r).finite_points()]

    def mi_class(self, expr, weights: dict, threshold) -> NumericResult:
        w, theta = self._class_model(weights, threshold)
        f = self.feature(expr)
        if isinstance(f, _Single):
            return self._mi_class_single(f, w, theta)
        return self._mi_class_linear(f, w, theta)

    def _mi_class_single(self, f: _Single, w, theta) -> NumericResult:
        base = f.base
        kinks = self._p1_lines(w, theta, f.sym)
        xpts = set(f.x_points()) | set(kinks)
        for m, q in f.partners:  # images of the kinks through the level-set maps
            xpts |= {(k - q) / m for k in kinks}
        pts = [base.lo, *sorted(xpts), base.hi]
        p1_of = lambda x: self._p1_given(w, theta, {f.sym: x})  # noqa: E731
        p1, _ = _quad(lambda x: base.pdf(x) * p1_of(x), pts)
        p0 = 1 - p1

        def integrand(x):
            fx = base.pdf(x)
            if fx == 0:
                return fx
            ys = f.preimages(x)
            ws = [f.weight(y) for y in ys]
            tot = sum(ws)
            q1 = sum(wy * p1_of(y) for wy, y in zip(ws, ys) if wy != 0) / tot
            c1, c0 = p1_of(x), 1 - p1_of(x)
            out = mpmath.mpf(0)
            if c1 > 0 and q1 > 0:
                out += c1 * mpmath.log(q1 / p1)
            if c0 > 0 and q1 < 1:
                out += c0 * mpmath.log((1 - q1) / p0)
            return fx * out

        v, err = _quad(integrand, pts)
        return NumericResult(v, err)

    def _class_line(self, f: _Linear, w, theta):
        """The class boundary inside the convolution integral as a line x = a + b v, or None."""
        if set(w) != {f.s1, f.s2}:
            return None
        # w1 x + w2 (v - e - c1 x)/c2 = theta
        A = w[f.s1] - w[f.s2] * f.c1 / f.c2
        if A == 0:
            return None
        return ((theta + w[f.s2] * f.e / f.c2) / A, -(w[f.s2] / f.c2) / A)

    def _mi_class_linear(self, f: _Linear, w, theta) -> NumericResult:
        if not set(w) <= {f.s1, f.s2}:
            raise NumericUnsupported("class rule on a variable outside a two-variable feature")
        cline = self._class_line(f, w, theta)
        extra = [cline] if cline else []

        def indicator(x, y):
            return self._p1_given(w, theta, {f.s1: x, f.s2: y}) == 1

        dens, pts = self._density(f)
        dens1, pts1 = self._density(f, extra, indicator)
        pts = [pts[0], *pts[1:-1], *pts1[1:-1], pts[-1]]
        p1, _ = _quad(dens1, pts)
        p0 = 1 - p1

        def integrand(v):
            fv = dens(v)
            if fv == 0:
                return fv
            f1 = min(dens1(v), fv)
            f0 = fv - f1
            out = mpmath.mpf(0)
            if f1 > 0:
                out += f1 * mpmath.log(f1 / (fv * p1))
            if f0 > 0:
                out += f0 * mpmath.log(f0 / (fv * p0))
            return out

        v, err = _quad(integrand, pts)
        return NumericResult(v, err)

    # ----- joint quantities: TEMPORARY stubs of the joint branch (issue 10). The engine branch
    # (issue 9) implements these; its versions replace these three methods at the merge.
    def class_entropy(self) -> NumericResult:
        raise NumericUnsupported("no numerical route for H(C) yet")

    def mi_class_set(self, exprs) -> NumericResult:
        raise NumericUnsupported("no numerical route for the MI of a set of features yet")

    def joint_entropy(self, exprs) -> NumericResult:
        raise NumericUnsupported("no numerical route for a joint entropy yet")

    # ----- pairs ------------------------------------------------------------------------------
    def mi_pair(self, e1, e2) -> NumericResult:
        """MI(e1, e2) for the supported shapes (checked before any integral is computed)."""
        f1, f2 = self.feature(e1), self.feature(e2)
        if isinstance(f1, _Linear) and isinstance(f2, _Single):
            f1, f2, e1, e2 = f2, f1, e2, e1
        if isinstance(f1, _Single) and isinstance(f2, _Linear) and f1.sym in (f2.s1, f2.s2):
            hv = self.entropy(e2)
            hc = self._conditional_entropy(f1, f2)
            return NumericResult(hv.value - hc.value, hv.error + hc.error)
        if isinstance(f1, _Linear) and isinstance(f2, _Linear) and {f1.s1, f1.s2} == {f2.s1, f2.s2}:
            a = [[f1.c1, f1.c2], [f2.c1 if f2.s1 == f1.s1 else f2.c2,
                                  f2.c2 if f2.s1 == f1.s1 else f2.c1]]
            det = a[0][0] * a[1][1] - a[0][1] * a[1][0]
            h1, h2 = self.entropy(e1), self.entropy(e2)
            hb1 = self._entropy_single(self._single(f1.s1, f1.s1))
            hb2 = self._entropy_single(self._single(f1.s2, f1.s2))
            value = h1.value + h2.value - hb1.value - hb2.value - mpmath.log(abs(det))
            return NumericResult(value, h1.error + h2.error + hb1.error + hb2.error)
        raise NumericUnsupported(f"MI({e1}, {e2}): pair shape not supported")

    def _conditional_entropy(self, u: _Single, v: _Linear) -> NumericResult:
        """h(V | U) for U = g(B1), V = c1 B1 + c2 B2 + e."""
        if u.sym == v.s1:
            c1, c2, other = v.c1, v.c2, v.b2
        else:
            c1, c2, other = v.c2, v.c1, v.b1
        other_sym = v.s2 if u.sym == v.s1 else v.s1
        if len(u.partners) == 1:  # one-to-one: h(V | B1) = h(c2 B2), by translation invariance
            return self.entropy(c2 * other_sym)
        # h(V | U) depends on the laws, the level-set maps and the coefficients only (not on e);
        # the signs of c1, c2 do not matter when both laws are symmetric about 0.
        symmetric = all(_centred(b.law) for b in (u.base, other))
        key = ("h-cond", u.base.law, tuple(u.partners), other.law,
               abs(c1) if symmetric else c1, abs(c2) if symmetric else c2)
        if key not in self._memo:
            self._memo[key] = self._mixture_entropy(u, c1, c2, other, v.e)
        return self._memo[key]

    def _mixture_entropy(self, u: _Single, c1, c2, other: _Base, e) -> NumericResult:

        def mixture_entropy(x):
            ys = u.preimages(x)
            ws = [u.weight(y) for y in ys]
            tot = sum(ws)
            comps = [(wy / tot, e + c1 * y) for wy, y in zip(ws, ys) if wy != 0]

            def dens(t):
                return sum(wt * other.pdf((t - shift) / c2) for wt, shift in comps) / abs(c2)

            tpts = set()
            for _, shift in comps:
                tpts |= {shift + c2 * q for q in other.finite_points()}
            tends = []
            for _, shift in comps:
                tends += [shift + c2 * other.lo, shift + c2 * other.hi]
            lo = min(tends)
            hi = max(tends)
            val, _ = _quad(lambda t: -_xlogx(dens(t)), [lo, *sorted(tpts), hi])
            return val

        # breakpoints in x: where two shifted breakpoints of different preimages meet
        lines = []
        for m, q in u.partners:
            for p in other.finite_points():
                lines.append((e + c1 * q + c2 * p, c1 * m))  # t = alpha + beta x
        xpts = set(u.x_points()) | set(_crossings(lines))
        pts = [u.base.lo, *sorted(xpts), u.base.hi]
        val, err = _quad(lambda x: u.base.pdf(x) * mixture_entropy(x) if u.base.pdf(x) else 0, pts)
        return NumericResult(val, err)
