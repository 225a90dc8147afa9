"""The integrands of the numerical route (:mod:`fstheory.theory.numeric`), each an
:class:`~fstheory.theory.expectation.Integrand`: a value at real points, an analytic branch on
complex balls for certified quadrature, and where it applies a bound on cells where it is
negligible.

* :func:`log_abs` -- ln|J(u)| (the change of variables);
* :func:`branch_entropy` -- H(branch | V) = -sum_j w^_j ln w^_j, the entropy of the normalised
  weights w_j(u) = f_U(p_j(u)) / |J(p_j(u))| of the preimages p_j(u) of V = phi(u);
* :func:`class_mixture` -- H_b(P(C = 1 | V = phi(u))), P(C = 1 | V) = sum_j w_j q(p_j u) / sum_j w_j.

On complex balls the weights are handled through their logarithms l_j = ln w_j (a normal
density's is a polynomial): ln of a normalised weight is ``l_j - LSE(l)`` and
``ln P(C = 1 | V) = LSE(l_j + ln q1_j) - LSE(l)``, with the log-sum-exp taken about the term
largest at the cell's real point. Dividing two exponentially small weights on balls (the
direct form) loses the correlation of numerator and denominator, and the enclosures of a
ratio near 1 become too wide for any ellipse bound; the logarithmic form keeps them narrow.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import acb, arb

from fstheory.theory.arbexpr import compile_expr, resolve_abs
from fstheory.theory.balls import ball, binary_entropy, xlogx
from fstheory.theory.expectation import Integrand, support_cuts
from fstheory.theory.quadrature import best
from fstheory.theory.univariate import Accuracy
from fstheory.theory.univariate import Normal as NormalLaw

def num(e) -> arb:
    e = sp.sympify(e)
    return compile_expr(e, [])()


def entropy_tail(acc: Accuracy, n: int) -> arb:
    """Truncation error of -int f ln f outside boxes of mass eps: eps (|ln eps| + 50) each."""
    return acc.eps * (abs(acc.eps.log()) + 50) * n


def law_entropy(law, acc):
    """-int f ln f for a one-dimensional law (certified when the law is in closed form)."""
    lo, hi = law.box(acc.eps)
    lo, hi = ball(lo), ball(hi)
    pts = [lo, *[ball(p) for p in law.breakpoints() if lo < ball(p) < hi], hi]
    tail = entropy_tail(acc, 1)
    branch = None
    if law.closed:
        def branch(m):
            # -f ln f from the law's own ln f where it is finite on the ball (a normal
            # smoothing's far tail, whose density is e^(-t^2/2) times a slowly varying factor,
            # keeps its precision there), else from f (a density reaching 0 at a support end)
            f, log_f = law.pdf_branch(m), law.log_pdf_branch(m)

            def g(z, an):
                L = log_f(z)
                if L.is_finite():
                    return -(L.exp() * L)
                return -xlogx(f(z), an)

            return g

    v, e, how, proved = best(branch, lambda x: -xlogx(law.pdf(x)), pts, acc.tol)
    return v, e + tail, f"{how} of -f ln f", proved


def rat(q: Fraction):
    return sp.Rational(q.numerator, q.denominator)


def _resolve(expr, syms, m):
    """expr with |a| and sign(a) fixed as they are at the real point m (a tuple of arb)."""
    point = {s: sp.Float(v.mid().str(40, radius=False), 40) for s, v in zip(syms, m)}
    expr = resolve_abs(expr, point)
    return expr.replace(lambda e: isinstance(e, sp.sign),
                        lambda e: sp.Integer(1) if sp.N(e.args[0].subs(point), 30) >= 0 else sp.Integer(-1))


def _compiled_branches(expr, syms):
    """A cache of compiled branches of expr (one per pattern of signs of its |.| terms)."""
    cache = {}

    def at(m):
        e = _resolve(expr, syms, m)
        if e not in cache:
            cache[e] = compile_expr(e, syms)
        return cache[e]

    return at


def log_abs(expr, syms) -> Integrand:
    """ln|expr| on the coordinates ``syms`` (sign fixed per cell)."""
    branches = _compiled_branches(expr, syms)
    real = compile_expr(expr, syms)

    def value(u):
        return abs(real(*u)).log()

    def branch(m):
        f = branches(m)
        sign = 1 if f(*m) > 0 else -1
        # expr's own square roots and powers take the flag too: sqrt is finite on a ball
        # around its branch point, so without it a piece ending there passes as holomorphic
        return lambda z, an: acb(sign * f(*z, analytic=an)).log(analytic=an)

    return Integrand(value, branch, arb(1000), log_zeros=_simple_zeros(expr, syms))


def _simple_zeros(expr, syms) -> list:
    """For one variable x: [(c, h, m)] for each real zero or pole c of expr = (x - c)^m h(x),
    m a nonzero rational (a zero of a polynomial factor, or a power such as 1/x or 1/sqrt(x))
    and h compiled, so that ln|expr| = m ln|x - c| + ln|h| near c."""
    if len(syms) != 1:
        return []
    (x,) = syms
    expr = sp.factor(sp.sympify(expr))
    if expr.atoms(sp.Abs, sp.sign):
        return []
    orders: dict = {}
    for factor in sp.Mul.make_args(expr):
        base, e = factor.as_base_exp()
        if x not in base.free_symbols:
            continue
        if not (e.is_Rational and base.is_polynomial(x)):
            return []
        for c, mult in sp.roots(sp.Poly(base, x)).items():
            if c.is_real:
                orders[c] = orders.get(c, 0) + mult * e
    out = []
    for c, m in orders.items():
        if m == 0:
            continue
        h = sp.simplify(expr / (x - c) ** m)
        if h.subs(x, c) in (0, sp.zoo, sp.oo, -sp.oo, sp.nan):
            continue
        out.append((num(c), compile_expr(h, [x]), num(abs(m))))
    return out


def cuts_of(expr, syms) -> list:
    """Zeros of expr and of the arguments of its |.| and sign(.) terms."""
    out = []
    expr = sp.sympify(expr)
    for a in expr.atoms(sp.Abs, sp.sign):
        out.append(a.args[0])
    base = expr.replace(lambda e: isinstance(e, (sp.Abs, sp.sign)), lambda e: e.args[0])
    num = sp.numer(sp.together(base))
    if num.is_polynomial(*syms):
        out.append(num)
    return [c for c in out if sp.sympify(c).free_symbols & set(syms)]


def partner_cuts(system, maps, jac) -> list:
    """Cuts of the branch weights: support ends and kinks and zeros of J at every preimage, and
    for normal coordinates the balance curves where two preimages weigh the same (there the
    weights switch over a width that shrinks with |u|; a breakpoint keeps quadrature from
    stepping over the switch)."""
    cuts = []
    normal = [(c.symbol, c.law) for c in system.coords if isinstance(c.law, NormalLaw)]
    for p in maps[1:]:
        diff = sum((((u - rat(law.m_frac)) ** 2 - (p[u] - rat(law.m_frac)) ** 2)
                    / rat(Fraction(law.s.mid().str(30, radius=False))) ** 2
                    for u, law in normal), sp.Integer(0))
        if sp.expand(diff) != 0:
            cuts += _polynomial_cuts(sp.expand(diff))
    for p in maps:
        for c in system.coords:
            for cut in support_cuts(c):
                cuts += _polynomial_cuts(cut.subs(p, simultaneous=True))
        if sp.sympify(jac).free_symbols:
            for cut in cuts_of(jac, system.symbols):
                cuts += _polynomial_cuts(sp.sympify(cut).subs(p, simultaneous=True))
    return cuts


def _polynomial_cuts(cut) -> list:
    """A cut through a rational partner map, n/d, as the polynomial cuts n and d (where it
    changes sign); an affine map's cut as it is."""
    num, den = sp.fraction(sp.together(cut))
    if not den.free_symbols:
        return [cut]
    return [sp.expand(num), sp.expand(den)]


class Weights:
    """w_j(u) = prod_i f_i(p_j(u)_i) / |J(p_j(u))| for the partner maps p_j, at real points
    (:meth:`value`) and as logarithms on complex balls (:meth:`log_branch`)."""

    def __init__(self, system, maps, jac):
        self.syms = system.symbols
        self.laws = [c.law for c in system.coords]
        self.exprs = [[sp.sympify(p[s]) for s in self.syms] for p in maps]
        self.maps = [[compile_expr(p[s], self.syms) for s in self.syms] for p in maps]
        self.jac = sp.sympify(jac)
        self.jac_branches = _compiled_branches(self.jac, self.syms) if self.jac.free_symbols else None
        self.jac_real = compile_expr(self.jac, self.syms) if self.jac.free_symbols else None

    def points(self, u):
        return [tuple(f(*u) for f in fs) for fs in self.maps]

    def value(self, u):
        pts = self.points(u)
        out = []
        for pt in pts:
            w = arb(1)
            for law, x in zip(self.laws, pt):
                w = w * law.pdf(x)
                if w.is_zero():
                    break
            if self.jac_real is not None and not w.is_zero():
                w = w / abs(self.jac_real(*pt))
            out.append(w)
        return pts, out

    def live(self, m) -> list:
        """Indices of the preimages of the real point m inside the support (weight > 0)."""
        return [j for j, pt in enumerate(self.points(m))
                if all(not law.pdf(x).is_zero() for law, x in zip(self.laws, pt))]

    def log_ratios(self, m, live: list, ref: int):
        """Symbolic ln(w_j / w_ref) on the cell of the real point m, for j in ``live``:
        ``[(expression in the coordinates, constant ball)]``, exact polynomial log-densities
        making the two weights' common parts cancel before any ball is formed (for w_2/w_1 of
        normal coordinates under (x, y) -> (-x, y - 2x) this is 2 x y - 2 x^2; for a reflection
        of a centred normal it is 0). None when a law has no such form on its piece."""
        pts = self.points(m)
        r = live[ref]
        out = []
        for j in live:
            diff, c = sp.Integer(0), arb(0)
            for law, x, xr, e, er in zip(self.laws, pts[j], pts[r], self.exprs[j], self.exprs[r]):
                if sp.expand(e - er) == 0:
                    continue
                if law.symmetry is not None and sp.expand(e + er - 2 * rat(law.symmetry)) == 0:
                    continue  # reflections about the centre of a symmetric law: equal densities
                form, form_r = law.log_density_poly(x), law.log_density_poly(xr)
                if form is None or form_r is None:
                    return None
                (a, c1, c2), (ar, c1r, c2r) = form, form_r
                diff += c1 * e + c2 * e**2 - c1r * er - c2r * er**2
                c += a - ar
            diff = sp.expand(diff)
            if self.jac.free_symbols:
                ratio = sp.cancel(self.jac.subs(dict(zip(self.syms, self.exprs[j])),
                                                simultaneous=True)
                                  / self.jac.subs(dict(zip(self.syms, self.exprs[r])),
                                                  simultaneous=True))
                if ratio.free_symbols:
                    point = {s: sp.Float(v.mid().str(40, radius=False), 40)
                             for s, v in zip(self.syms, m)}
                    sign = 1 if sp.N(ratio.subs(point), 30) > 0 else -1
                    diff = diff - sp.log(sign * ratio)
                else:
                    c = c - num(sp.Abs(ratio)).log()
            out.append((diff, c))
        return out

    def log_branch(self, m):
        """At the cell of the real point m: ``z -> (points, [ln w_j])`` on complex balls, with
        None for a preimage outside the support (weight 0) at m."""
        pts_m = self.points(m)
        logs, jacs = [], []
        for pt in pts_m:
            inside = all(not law.pdf(x).is_zero() for law, x in zip(self.laws, pt))
            logs.append([law.log_pdf_branch(x) for law, x in zip(self.laws, pt)] if inside else None)
            if self.jac_branches is None:
                jacs.append(None)
            else:
                f = self.jac_branches(pt)
                jacs.append((f, 1 if f(*pt) > 0 else -1))
        maps = self.maps

        def at(z):
            pts = [tuple(f(*z) for f in fs) for fs in maps]
            out = []
            for pt, lg, jj in zip(pts, logs, jacs):
                if lg is None:
                    out.append(None)
                    continue
                w = acb(0)
                for d, x in zip(lg, pt):
                    w = w + d(x)
                if jj is not None:
                    w = w - _log(jj[1] * jj[0](*pt, analytic=True))
                out.append(w)
            return pts, out

        return at


def _log(x):
    return x.log(analytic=True) if isinstance(x, acb) else x.log()


def lse(terms: list, ref: int):
    """ln sum_j e^(t_j), written about the term ``ref`` (the largest at the real point):
    t_ref + log1p(sum_{j != ref} e^(t_j - t_ref))."""
    top = terms[ref]
    rest = acb(0)
    for j, t in enumerate(terms):
        if j != ref:
            rest += (t - top).exp()
    return top + rest.log1p() if len(terms) > 1 else top


def _largest(values: list) -> int:
    """Index of the largest real midpoint (of arb or acb balls)."""
    mids = [(v.real if isinstance(v, acb) else v).mid() for v in values]
    return max(range(len(mids)), key=lambda j: mids[j])


class LogRatios:
    """The log weights ``delta_j = ln(w_j / w_ref)`` of the live preimages on a cell, as
    analytic functions of complex balls: compiled from exact expressions when every law has a
    polynomial log-density there (:meth:`Weights.log_ratios`), else differences of numerical
    log-densities. ``constant``: every delta_j is a constant ball (equal or proportional
    weights), then given in ``values``."""

    def __init__(self, W: "Weights", m):
        self.live = W.live(m)
        self.ref = 0
        self.constant, self.values = False, None
        if not self.live:
            self.fns = []
            return
        at = W.log_branch(m)
        _, logs_m = at(tuple(acb(x) for x in m))
        self.ref = _largest([logs_m[j] for j in self.live])
        exact = W.log_ratios(m, self.live, self.ref)
        if exact is not None:
            if all(not e.free_symbols for e, _ in exact):
                self.constant = True
                self.values = [acb(num(e) + c) for e, c in exact]
            self.fns = [_shifted(compile_expr(e, W.syms), c) for e, c in exact]
        else:
            live, ref = self.live, self.ref

            def numeric(j):
                def f(*z, analytic=True):
                    logs = at(z)[1]
                    return logs[live[j]] - logs[live[ref]]
                return f

            self.fns = [numeric(j) for j in range(len(live))]

    def __call__(self, z, analytic: bool = True) -> list:
        """The delta_j on the complex ball z (``analytic``: acb.integral's flag, passed to the
        compiled ratios, whose Jacobians may hold square roots)."""
        if self.constant:
            return self.values
        return [_acb(f(*z, analytic=analytic)) for f in self.fns]


def _shifted(f, c):
    return lambda *z, analytic=False: f(*z, analytic=analytic) + c


def branch_entropy(system, maps, jac) -> Integrand:
    """H(branch | V) = -sum_j w^_j ln w^_j with the normalised weights."""
    W = Weights(system, maps, jac)

    top = arb(len(maps)).log()

    def value(u):
        _, ws = W.value(u)
        total = sum(ws, arb(0))
        if total.is_zero():
            return arb(0)
        if not total > 0 or not total.is_finite():
            # densities ~0 with rounding radii (a support end), or a ball around a zero of J
            # (a weight 1/|J| unbounded on it): the entropy of n weights is in [0, ln n]
            return arb(top / 2, top / 2)
        out = -sum((xlogx(w / total) for w in ws), arb(0))
        return _within(out, top)

    def entropy_of(deltas, ref):
        total = lse(deltas, ref)
        out = acb(0)
        for t in deltas:
            lw = t - total
            out -= lw.exp() * lw
        return out

    def branch(m):
        R = LogRatios(W, m)
        if len(R.live) <= 1:
            return lambda z, an: acb(0)
        if R.constant:
            const = entropy_of(R.values, R.ref)
            return lambda z, an: const
        return lambda z, an: entropy_of(R(z, an), R.ref)

    def constant(m):
        R = LogRatios(W, m)
        if len(R.live) <= 1:
            return arb(0)
        return entropy_of(R.values, R.ref).real if R.constant else None

    return Integrand(value, branch, top, constant=constant, bounded=True)


def _within(x: arb, top: arb) -> arb:
    """x intersected with [0, top] (an entropy of n weights lies in [0, ln n]; a wide ball's
    enclosure of -sum w ln w can overshoot both ends)."""
    if not x.is_finite():
        return arb(top / 2, top / 2)
    lo, hi = max(x.lower(), arb(0)), min(x.upper(), top.upper())
    if lo > hi:
        return x
    return arb((lo + hi) / 2, ((hi - lo) / 2).upper())


def class_mixture(system, maps, jac, q) -> Integrand:
    """H_b(P(C = 1 | V = phi(u)), P(C = 0 | V = phi(u)))."""
    W = Weights(system, maps, jac)
    single = len(maps) == 1

    def value(u):
        if single:
            q1, q0 = q.value(u)
            return binary_entropy(q1, q0)
        pts, ws = W.value(u)
        total = sum(ws, arb(0))
        if total.is_zero():
            return arb(0)
        if not total > 0:  # densities ~0 with rounding radii (a support end): enclose [0, ln 2]
            return arb(arb(2).log() / 2, arb(2).log() / 2)
        p1, p0 = arb(0), arb(0)
        for pt, w in zip(pts, ws):
            if w.is_zero():
                continue
            q1, q0 = q.value(pt)
            p1, p0 = p1 + w * q1, p0 + w * q0
        return binary_entropy(p1 / total, p0 / total)

    def tail(balls):
        """H_b bounded on a cell where q is within eps of 0 (or of 1) at every preimage."""
        if single:
            return q.tail_bound(balls)
        pts = W.points(balls)
        bounds = [q.tail_bound(pt) for pt in pts]
        if any(b is None for b in bounds):
            return None
        # all preimages on one side: the mixture is as close to 0 or 1 as its farthest term
        q1s = [q.value(pt)[0] for pt in pts]
        if all(t.upper() <= 2 * q.acc.eps for t in q1s) or all(
                (1 - t).upper() <= 2 * q.acc.eps for t in q1s):
            return max(bounds)
        return None

    branch = constant = None
    if q.closed:
        def branch(m):
            if single:
                return q.entropy_branch(m)
            if q.remaining:
                return _direct_mixture_branch(W, q, m)
            return _first_finite(_mixture_branch(W, q, m), _direct_mixture_branch(W, q, m))

        def constant(m):
            # only an indicator rule (no rest, no remaining variable) is constant on a cell
            if single or q.rest is not None or q.remaining:
                return None
            R = LogRatios(W, m)
            if not R.constant:
                return None
            return _mixture_entropy(R, _sides(W, q, m, R), lambda j, c, z: acb(0), None).real

    return Integrand(value, branch, arb(2).log(), tail if len(q.remaining) <= 1 else None,
                     constant=constant, bounded=True)


def _sides(W: Weights, q, m, R: LogRatios) -> list:
    """Per live preimage of m: (ln q1 branch or None where q1 = 0, ln q0 branch or None)."""
    pts = W.points(m)
    return [q.log_branches(tuple(x.real if isinstance(x, acb) else x for x in pts[j]))
            for j in R.live]


def _mixture_entropy(R: LogRatios, sides: list, log_q, z, analytic: bool = True):
    """H_b(p1) with ln p_c = LSE_j(delta_j + ln q_c(p_j z)) - LSE_j(delta_j), terms with
    q_c = 0 left out; ``log_q(i, c, z)`` the log class probability of live preimage i."""
    deltas = R(z, analytic) if z is not None else R.values
    total = lse(deltas, R.ref)
    out = acb(0)
    for c in (0, 1):
        idx = [i for i, s in enumerate(sides) if s[c] is not None]
        if not idx:
            continue
        terms = [deltas[i] + log_q(i, c, z) for i in idx]
        ref = _largest(terms) if z is None else _ref_at(idx, R.ref, terms)
        lp = lse(terms, ref) - total
        out -= lp.exp() * lp
    return out


def _ref_at(idx, ref, terms):
    """The reference term of a side's log-sum-exp (fixed per cell: the weights' reference if
    it is on that side, else the first)."""
    return idx.index(ref) if ref in idx else 0


def _mixture_branch(W: Weights, q, m):
    """H_b of the mixture on complex balls, from log weight ratios and log class
    probabilities."""
    R = LogRatios(W, m)
    if not R.live:
        return lambda z, an: acb(0)
    sides = _sides(W, q, m, R)
    for c in (0, 1):
        if all(s[c] is None for s in sides):
            return lambda z, an: acb(0)  # the class is the same at every preimage
    maps = [W.maps[j] for j in R.live]

    def log_q(i, c, z):
        pt = tuple(f(*z) for f in maps[i])
        return sides[i][c](pt)

    return lambda z, an: _mixture_entropy(R, sides, log_q, z, an)


def _direct_mixture_branch(W: Weights, q, m):
    """H_b of the mixture p_c = sum_j w_j q_c(p_j) / sum_j w_j on complex balls, from the class
    probabilities themselves (not their logarithms): where the preimages' classes differ (q near
    0 at one, near 1 at another) p stays away from 0 and 1 and this form converges on wide
    cells where the logarithms of far tails do not."""
    R = LogRatios(W, m)
    if not R.live:
        return lambda z, an: acb(0)
    pts = W.points(m)
    maps = [W.maps[j] for j in R.live]
    probs = [q.branch(pts[j]) for j in R.live]

    def g(z, an):
        weights = [d.exp() for d in R(z)]
        total = sum(weights, acb(0))
        p1 = p0 = acb(0)
        for w, f, qb in zip(weights, maps, probs):
            q1, q0 = qb(tuple(h(*z) for h in f), an)
            p1, p0 = p1 + w * _acb(q1), p0 + w * _acb(q0)
        return binary_entropy(p1 / total, p0 / total, an)

    return g


def _first_finite(*forms):
    """The first finite enclosure among formulas of one analytic function on a cell: each is
    either a rigorous enclosure (holomorphic there) or not finite, so the first finite one is
    one."""

    def g(z, an):
        v = None
        for form in forms:
            v = form(z, an)
            if v.is_finite():
                return v
        return v

    return g


def _acb(t):
    return t if isinstance(t, acb) else acb(t)
