r"""E[H_b(P(C = 1 | V))] for a linear feature V = a1 U1 + a2 U2 + c of two independent
coordinates with piecewise exponential laws (uniform, Laplace, exponential: density terms
c e^(r u) on pieces) and a linear rule with a normal rest, C = 1{b1 U1 + b2 U2 + d + R >= 0},
R ~ N(m, s^2) (``X + k Y + Z >= 0`` with Z normal and V = X + Y): closed class parts along
each fibre, one certified integral over v.

Formulas. On the fibre {V = v}, u1 = (v - c - a2 y)/a1 with y = u2, and
P(C = 1 | u) = Phi(alpha(v) + beta y), alpha = (b1 (v - c)/a1 + d + m)/s,
beta = (b2 - b1 a2/a1)/s. A product of density terms is
``c1 c2 e^(r1 (v - c)/a1) e^(rho y)``, rho = r2 - r1 a2/a1, so each cell of y (between the
pieces' ends, constant or linear in v) contributes ``|a1|^-1 c1 c2 e^(r1 (v - c)/a1) [G]``,
G an antiderivative of ``e^(rho y) Phi(alpha' + beta' y)`` (class 1: alpha' = alpha,
beta' = beta; class 0: their negatives, Phi(-x) = 1 - Phi(x) computed directly):

    rho != 0, beta' != 0:  G = (e^(rho y) Phi(t) - E Phi(t - rho/beta')) / rho,
                           t = alpha' + beta' y, E = e^(-rho alpha'/beta' + rho^2/(2 beta'^2))
                           (integration by parts, and e^(rho y) phi(t) = E phi(t - rho/beta')
                           by completing the square);
    rho != 0, beta' = 0:   G = e^(rho y) Phi(alpha') / rho;
    rho = 0, beta' != 0:   G = (t Phi(t) + phi(t)) / beta';
    rho = 0, beta' = 0:    G = y Phi(alpha').

At an infinite end of a cell e^(rho y) -> 0 (the density is integrable), so G there is
``-E [beta' (+-1) > 0] / rho`` or 0. These are entire functions of v, so
``E[H_b] = int (f ln f - f_1 ln f_1 - f_0 ln f_0) dv``, f = f_1 + f_0, is one certified
integral (arb's ``acb.integral``) on each piece between the values of v where two cell ends
cross. Truncation: v is kept to a1 B1 + a2 B2 + c, B_i the box of U_i at mass eps/4; the rest
of the line carries at most ``ln 2 eps / 2``.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import acb, acb_series, arb, ctx

from fstheory.theory.balls import ball, rational_fraction, xlogx
from fstheory.theory.law1d import Normal, PELaw
from fstheory.theory.polyexp import INF
from fstheory.theory.quadrature import certified

__all__ = ["normal_rest_class_average"]


def _affine(expr, syms):
    """[coefficient of each symbol, constant] as Fractions, or None."""
    try:
        p = sp.Poly(sp.expand(expr), *syms)
    except sp.PolynomialError:
        return None
    if p.total_degree() > 1 or sp.expand(expr).free_symbols - set(syms):
        return None
    out = [rational_fraction(p.coeff_monomial(s)) for s in syms] + [rational_fraction(p.coeff_monomial(1))]
    return None if None in out else out


def _exp_terms(law: PELaw) -> bool:
    return all(k == 0 for p in law.pe.pieces for (k, _r) in p.terms)


def _phi(t):
    return (-t * t / 2).exp() / (2 * arb.pi()).sqrt()


def _Phi(t):
    return (-t / arb(2).sqrt()).erfc() / 2


def _erfcx(z):
    """e^(z^2) erfc(z) on a ball, by the mean-value form about the midpoint,
    erfcx(m) + (z - m) (2 Z erfcx(Z) - 2/sqrt(pi)) with the crude enclosure of erfcx(Z) on
    the whole ball inside the derivative: the product e^(z^2) erfc(z) of two balls alone
    loses the slow variation of erfcx (its factors vary fast on wide balls)."""
    if isinstance(z, acb):
        m = acb(z.real.mid(), z.imag.mid())
    else:
        m = arb(z.mid())
    if (isinstance(z, acb) and max(z.real.rad(), z.imag.rad()) < TAYLOR_FROM) or \
            (not isinstance(z, acb) and z.rad() < TAYLOR_FROM):
        return (z * z).exp() * z.erfc()  # a node: the product's blow-up of a tiny radius is harmless
    at_m = (m * m).exp() * m.erfc()
    crude = (z * z).exp() * z.erfc()
    return at_m + (z - m) * (2 * z * crude - 2 / arb.pi().sqrt())


def _mills(t):
    """Phi(t)/phi(t) = sqrt(pi/2) erfcx(-t/sqrt 2), slowly varying for t < 0."""
    z = -t / arb(2).sqrt()
    erfcx = _erfcx(z) if isinstance(z, (arb, acb)) else (z * z).exp() * z.erfc()
    return (arb.pi() / 2).sqrt() * erfcx


class _End:
    """A cell end y = e0 + e1 v (Fractions), or an infinite end (``inf`` = +1 or -1)."""

    __slots__ = ("e0", "e1", "inf", "_balls")

    def __init__(self, e0=Fraction(0), e1=Fraction(0), inf=0):
        self.e0, self.e1, self.inf = Fraction(e0), Fraction(e1), inf
        self._balls = (None, None, None)

    def at(self, v):
        if isinstance(v, Fraction):
            return self.e0 + self.e1 * v
        prec, b0, b1 = self._balls
        if prec != ctx.prec:
            prec, b0, b1 = ctx.prec, ball(self.e0), ball(self.e1)
            self._balls = (prec, b0, b1)
        return b0 + b1 * v if self.e1 else b0


def _antiderivative(rho: Fraction, alpha, beta, beta_zero: bool, end: _End, v, comp: bool,
                    t_mid=None):
    """G at the cell end (module docstring); alpha, beta the class's (signed) coefficients.
    With ``comp`` the antiderivative G + E/rho, ``(e^(rho y) Phi(t) + E Phi(rho/beta - t))/rho``:
    where Phi(t - rho/beta) is near 1 on the cell, the large constant E/rho no longer cancels
    between its two ends. ``t_mid``: t at the real midpoint (the choice of the Mills form)."""
    if end.inf:
        if rho == 0:
            raise ArithmeticError("a density term without decay on an infinite cell")
        if beta_zero:
            return 0 * alpha
        r = ball(rho)
        one = (end.inf > 0) == (beta > 0)  # the limit of Phi(t - rho/beta) is 1 (else 0)
        if one == comp:
            return 0 * alpha
        big = (-r * alpha / beta + r * r / (2 * beta * beta)).exp()
        return big / r if comp else -big / r
    y = end.at(v)
    if rho == 0:
        if beta_zero:
            return y * _Phi(alpha)
        t = alpha + beta * y
        return (t * _Phi(t) + _phi(t)) / beta
    r = ball(rho)
    if beta_zero:
        return (r * y).exp() * _Phi(alpha) / r
    t = alpha + beta * y
    big = (-r * alpha / beta + r * r / (2 * beta * beta)).exp()
    if comp:
        return ((r * y).exp() * _Phi(t) + big * _Phi(r / beta - t)) / r
    if t_mid is not None and t_mid < 0 and t_mid - r / beta < 0:
        # both Phi far in their lower tail, where the two terms agree to leading order:
        # E phi(t - rho/beta) = e^(rho y) phi(t), so G = e^(rho y) phi(t) (R(t) - R(t - rho/beta))
        # with the slowly varying Mills ratio R = Phi/phi (no cancellation of fast factors)
        return (r * y).exp() * _phi(t) * (_mills(t) - _mills(t - r / beta)) / r
    return ((r * y).exp() * _Phi(t) - big * _Phi(t - r / beta)) / r


def _setup(system):
    if len(system.coords) != 2 or system.remaining or system.inner \
            or len(system.features) != 1 or not isinstance(system.rest, Normal):
        return None
    laws = [c.law for c in system.coords]
    if not all(isinstance(law, PELaw) and _exp_terms(law) for law in laws):
        return None
    syms = system.symbols
    feat = _affine(system.features[0], syms)
    form = _affine(system.form, syms)
    if feat is None or form is None or feat[0] == 0 or feat[1] == 0:
        return None
    return laws, feat, form, system.rest


def _cells(laws, feat, m: Fraction):
    """[(lower end, upper end, [(K, r1, rho)])] of y at the exact outer point m."""
    (law1, law2), (a1, a2, c) = laws, feat
    ends = [_End(inf=-1), _End(inf=1)]
    ends += [_End(q) for p in law2.pe.pieces for q in (p.lo, p.hi) if q not in (INF, -INF)]
    ends += [_End(-(c + a1 * p_) / a2, 1 / a2) for p in law1.pe.pieces
             for p_ in (p.lo, p.hi) if p_ not in (INF, -INF)]

    def value(e):
        return Fraction(e.inf * 10**9) if e.inf else e.at(m)

    ordered = sorted(ends, key=lambda e: (e.inf, value(e)))
    out = []
    for lo, hi in zip(ordered, ordered[1:]):
        y0, y1 = value(lo), value(hi)
        if not y0 < y1:
            continue
        ym = (y0 + y1) / 2 if not (lo.inf or hi.inf) else (y1 - 1 if lo.inf else y0 + 1)
        u1 = (m - c - a2 * ym) / a1
        p1, p2 = law1.pe.piece_at(ball(u1)), law2.pe.piece_at(ball(ym))
        if p1 is None or p2 is None:
            continue
        terms = [(c1 * c2 / abs(ball(a1)), r1, r2 - r1 * a2 / a1)
                 for (_k1, r1), c1 in p1.terms.items() for (_k2, r2), c2 in p2.terms.items()]
        out.append((lo, hi, terms))
    return out


def _densities(data, cells):
    laws, (a1, a2, c), (b1, b2, d), rest = data
    inv_s = 1 / rest.s
    beta = ball(b2 - b1 * a2 / a1) * inv_s
    beta_zero = (b2 - b1 * a2 / a1) == 0

    def series_at(v, vm):
        """(f_1, f_0) at v (a ball or a power series in v), every choice made at the real
        midpoint vm."""
        alpha = (ball(b1 / a1) * (v - ball(c)) + ball(d) + rest.m) * inv_s
        alpha_m = (ball(b1 / a1) * (vm - ball(c)) + ball(d) + rest.m) * inv_s
        parts = [0 * v, 0 * v]
        for lo, hi, terms in cells:
            if lo.inf or hi.inf:
                ym = (hi.at(vm) - 1) if lo.inf else (lo.at(vm) + 1)
            else:
                ym = (lo.at(vm) + hi.at(vm)) / 2
            for K, r1, rho in terms:
                scale = K * (ball(r1 / a1) * (v - ball(c))).exp() if r1 != 0 else K
                for i, sign in ((0, 1), (1, -1)):
                    al, be = sign * alpha, sign * beta
                    # the form whose E-term is small on the cell (a numerical choice only:
                    # both are antiderivatives, the same on the whole ball)
                    comp = not beta_zero and rho != 0 and \
                        sign * (alpha_m + beta * ym) - ball(rho) / (sign * beta) > 0
                    g = 0 * v
                    for end, side in ((hi, 1), (lo, -1)):
                        t_mid = None if end.inf else sign * (alpha_m + beta * end.at(vm))
                        g = g + side * _antiderivative(rho, al, be, beta_zero, end, v, comp, t_mid)
                    parts[i] = parts[i] + scale * g
        return parts[0], parts[1]

    def at(v):
        """(f_1, f_0) on a ball: a point directly; a wider ball by the Taylor model
        sum_(k<n) f^(k)(m) h^k/k! + f^(n)(Z) h^n/n! (h = v - m, the last coefficient enclosed
        on the whole ball Z, n = TAYLOR_ORDER), whose width grows like |f'| r instead of the
        closed forms' cancellations."""
        real = not isinstance(v, acb)
        z = acb(v)
        m = acb(z.real.mid(), z.imag.mid())
        vm = z.real.mid()
        if max(z.real.rad(), z.imag.rad()) < TAYLOR_FROM:
            return series_at(v, vm)  # a quadrature node: the blow-up of a tiny radius is harmless
        n = TAYLOR_ORDER
        at_m = series_at(acb_series([m, 1], n), vm)
        wide = series_at(acb_series([z, 1], n + 1), vm)
        h = z - m
        out = []
        for sm, sw in zip(at_m, wide):
            cm, cw = sm.coeffs(), sw.coeffs()
            cm += [acb(0)] * (n - len(cm))
            cw += [acb(0)] * (n + 1 - len(cw))
            val, power = acb(0), acb(1)
            for k in range(n):
                val += cm[k] * power
                power *= h
            val += cw[n] * power
            out.append(val.real if real else val)
        return tuple(out)
    return at


#: order of the Taylor models of the class parts on wide balls
TAYLOR_ORDER = 4
#: radius of a ball from which the Taylor model is used
TAYLOR_FROM = arb(2) ** -20
#: longest run whose class parts are bounded at once, and real balls per run
RUN_WIDTH = 1
RUN_BALLS = 16


def _runs(dens, va: Fraction, vb: Fraction, allowed: arb):
    """[va, vb] as runs (lo, hi, bound): ``bound`` not None where one class part is negligible
    on the whole run, which then contributes between 0 and ``bound`` to E[H_b]: with
    F >= f and F_c >= f_c on the run (upper ends of real-ball enclosures on RUN_BALLS balls
    covering it), H_b(p) <= p (1 + ln(1/p)) (as -(1 - p) ln(1 - p) <= p) gives
    f H_b(f_c/f) <= f_c (1 + ln(f/f_c)) <= F_c (1 + ln(F/F_c)), increasing in f_c and f.
    Runs that are not negligible are merged, for the certified quadrature (where the class
    part is tiny its closed form loses its relative width on complex balls)."""
    width = vb - va
    n = max(1, min(int(width / RUN_WIDTH) + 1, 512))
    edges = [va + width * i / n for i in range(n + 1)]
    out = []
    for lo, hi in zip(edges, edges[1:]):
        bound = _negligible(dens, lo, hi, allowed * ball((hi - lo) / width))
        if bound is None and out and out[-1][2] is None:
            out[-1] = (out[-1][0], hi, None)
        else:
            out.append((lo, hi, bound))
    return out


def _negligible(dens, lo: Fraction, hi: Fraction, allowed):
    ups = [arb(0), arb(0)]
    step = ball(hi - lo) / RUN_BALLS
    for i in range(RUN_BALLS):
        b = arb(ball(lo) + step * (i + arb(1) / 2), (step * arb("0.5001")).upper())
        for j, part in enumerate(dens(b)):
            up = part.upper()
            if not up.is_finite():
                return None
            ups[j] = max(ups[j], arb(up))
    top = ups[0] + ups[1]
    best = None
    for up in ups:
        up = min(up, top)
        bound = arb(0) if up <= 0 else ball(hi - lo) * up * (1 + (top / up).log())
        if bound.is_finite() and (best is None or bound < best):
            best = bound
    if best is None or not best <= allowed:
        return None
    return arb(best.upper())


def _mixed_entropy(f1, f0, an):
    """f ln f - f1 ln f1 - f0 ln f0 (f = f1 + f0), written f_s ln(f/f_s) + f_b ln(1 + f_s/f_b)
    with f_s the smaller part at the ball's midpoint: where f_s << f_b the three terms of
    order f_b ln f_b cancel to order f_s, and on a wide ball their enclosures do not; both
    forms are the same analytic function. The direct form where a ball reaches 0."""
    small, big = (f1, f0) if abs(acb(f1).mid()) <= abs(acb(f0).mid()) else (f0, f1)
    ratio = small / big
    total = small + big
    if isinstance(ratio, acb):
        if not an and (small.real.contains(0) or big.real.contains(0)):
            return _xlogx(total, an) - _xlogx(f1, an) - _xlogx(f0, an)
        return small * (total / small).log(analytic=an) + big * ratio.log1p()  \
            if an is False or (ratio.real > -1) else acb("nan")
    if small.contains(0) or big.contains(0) or small < 0 or big < 0:
        return _xlogx(total, an) - _xlogx(f1, an) - _xlogx(f0, an)
    return small * (total / small).log() + big * ratio.log1p()


def _xlogx(z, an):
    if isinstance(z, acb) and not an and (z.real.contains(0) or z.real < 0):
        return acb(xlogx(z.real))
    return xlogx(z, an)


def normal_rest_class_average(system, acc):
    """(E[H_b(P(C = 1 | V))], error bound) (module docstring), or None where the hypotheses
    do not hold. Raises :class:`~fstheory.theory.quadrature.QuadratureError` when a piece's
    certified integral does not converge."""
    data = _setup(system)
    if data is None:
        return None
    laws, (a1, a2, c), _, _ = data
    boxes = [law.box(acc.eps / 4) for law in laws]
    corners = [c + a1 * x + a2 * y for x in boxes[0] for y in boxes[1]]
    vlo, vhi = min(corners), max(corners)
    breaks1 = {q for p in laws[0].pe.pieces for q in (p.lo, p.hi) if q not in (INF, -INF)}
    breaks2 = {q for p in laws[1].pe.pieces for q in (p.lo, p.hi) if q not in (INF, -INF)}
    pts = {c + a1 * p + a2 * q for p in breaks1 for q in breaks2}
    pts = sorted({p for p in pts if vlo < p < vhi} | {vlo, vhi})
    pieces = list(zip(pts, pts[1:]))
    tol = acc.tol / (4 * len(pieces))
    total, err = arb(0), arb(2).log() * acc.eps / 2
    for va, vb in pieces:
        dens = _densities(data, _cells(laws, (a1, a2, c), (va + vb) / 2))

        def g(v, an, dens=dens):
            if isinstance(v, acb) and not an and v.imag.is_zero():
                v = v.real
            f1, f0 = dens(v)
            return _mixed_entropy(f1, f0, an)

        for lo, hi, bound in _runs(dens, va, vb, tol / 4):
            if bound is not None:
                total, err = total + bound / 2, err + bound / 2
                continue
            v, e = certified(lambda m, g=g: g, [ball(lo), ball(hi)], tol)
            total, err = total + v, err + e
    return total, err
