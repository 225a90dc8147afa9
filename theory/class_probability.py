"""q(u) = (P(C = 1 | U = u), P(C = 0 | U = u)): the class probabilities given the coordinates
that the features use, with the rule's other variables integrated out.

* Linear rule, C = 1{form(u) + R >= 0}: ``q1 = P(R >= -form(u)) = sf_R(-form(u))`` and
  ``q0 = cdf_R(-form(u))`` (R the rest of the rule's linear form; an indicator when there is none).
* Polynomial rule, remaining variables r_1, ..., r_k: the innermost one enters the form as
  ``a r^2 + b r + c`` (degree <= 2 in each variable), so the set where the rule holds is at most
  two intervals with ends in closed form, and its probability a sum of CDF differences
  (:func:`interval_probability`); r_1, ..., r_(k-1) are integrated numerically (nested), between
  the real roots of the cuts: ``a``, the discriminant ``b^2 - 4ac``, and the form at the ends and
  kinks of the law of r_k.

* Remaining variables in closed form: two or more normal ones entering the form linearly,
  with coefficients depending on u (``X Y + k Z`` given Y), leave a normal form given u:
  ``q1 = Phi(mean(u) / sd(u))`` (:func:`gaussian_rest`); two uniform ones entering only through
  their product (``X Y + k z`` given Z) leave the closed law of X Y
  (:mod:`fstheory.theory.product_rest`). Either becomes the rest R (a standard normal with the
  standardised mean as the form, or the law of X Y).

Both probabilities are computed directly (never one as 1 minus the other), so that each keeps its
relative precision where it is small.

Where q changes fast: with a rest R, q moves from eps to 1 - eps while -form(u) crosses the box
of R's law at mass eps, so :meth:`ClassProbability.cuts` includes the level sets
``form(u) + lo = 0`` and ``form(u) + hi = 0`` of the box's ends (and of the box at mass 10^-3
and its middle, where the formula of H_b changes): a steep
transition (R of small scale against the coordinates') lies inside one piece of every
quadrature, never between its nodes. Outside the box, :meth:`ClassProbability.tail_bound`
bounds H_b(q) by H_b(eps) over a whole cell, from q enclosed on the cell as a ball.

Examples
--------
>>> import sympy as sp
>>> from flint import arb
>>> from fstheory.theory.univariate import Accuracy, base_law
>>> from fstheory.theory.laws import Uniform
>>> from fstheory.theory.quadrature import flint_precision
>>> with flint_precision(80):
...     law = base_law(Uniform(-1, 1), Accuracy.from_bits(80))
...     q1, q0 = interval_probability(arb(-1), arb(0), arb("0.25"), law)   # P(r^2 <= 1/4)
...     print(q1.str(5, radius=False), q0.str(5, radius=False))
0.50000 0.50000
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import acb, arb

from fstheory.theory.arbexpr import compile_expr
from fstheory.theory.balls import ball, binary_entropy
from fstheory.theory.cells import CutSet
from fstheory.theory.polyexp import INF
from fstheory.theory.product_rest import uniform_product_rest
from fstheory.theory.quadrature import integrate_ball
from fstheory.theory.law1d import Normal
from fstheory.theory.univariate import Accuracy, Law1D

__all__ = ["ClassProbability", "interval_probability", "gaussian_rest", "NESTED_BRANCH"]

#: two remaining variables get the certified branch (an inner certified integral); False: the
#: estimated nested quadrature (:func:`fstheory.theory.numeric.estimated_nested`)
NESTED_BRANCH = True
#: remaining normal variables entering the rule linearly (:func:`gaussian_rest`), and two
#: uniform ones entering only through their product
#: (:func:`fstheory.theory.product_rest.uniform_product_rest`), are integrated out in closed
#: form; False: through the nested routes (the tests' second route)
GAUSSIAN_REST = True


def _mass(law: Law1D, r1, r2):
    """P(r1 < R < r2), from the tail that keeps precision."""
    c1 = law.cdf(r1)
    if c1 < arb("0.5"):
        return law.cdf(r2) - c1
    return law.sf(r1) - law.sf(r2)


def interval_probability(a, b, c, law: Law1D):
    """(P(a R^2 + b R + c >= 0), P(a R^2 + b R + c < 0)) for R ~ law, real arb coefficients."""
    if a.contains(0):
        if b.contains(0):
            return (arb(1), arb(0)) if c >= 0 else (arb(0), arb(1))
        t = -c / b
        if b > 0:
            return law.sf(t), law.cdf(t)
        return law.cdf(t), law.sf(t)
    disc = b * b - 4 * a * c
    if not disc > 0:
        return (arb(1), arb(0)) if a > 0 else (arb(0), arb(1))
    sq = disc.sqrt()
    r1, r2 = (-b - sq) / (2 * a), (-b + sq) / (2 * a)
    if r2 < r1:
        r1, r2 = r2, r1
    inside = _mass(law, r1, r2)
    outside = law.cdf(r1) + law.sf(r2)
    return (outside, inside) if a > 0 else (inside, outside)


class ClassProbability:
    """q(u) for a coordinate system (:class:`fstheory.theory.coordinates.System`)."""

    def __init__(self, system, acc: Accuracy):
        self.acc = acc
        self.syms = list(system.symbols)
        self.form = system.form
        self.rest = system.rest
        self.remaining = list(system.remaining)
        product = uniform_product_rest(self.form, self.remaining) if GAUSSIAN_REST else None
        if product is not None:  # the remaining variables only through a X Y: a closed rest
            self.form, self.rest = product
            self.remaining = []
        self.closed = (self.rest is None or self.rest.closed) and len(self.remaining) <= 1
        self._nested = False
        self.depth = (self.rest.depth if self.rest is not None else 0) + max(0, len(self.remaining) - 1)
        gauss = gaussian_rest(self.form, self.remaining) if GAUSSIAN_REST else None
        if gauss is not None:
            self._init_gaussian(*gauss, acc)
            return
        self._form_fn = compile_expr(self.form, self.syms + [r.symbol for r in self.remaining])
        cuts = []
        if self.remaining:
            inner = self.remaining[-1]
            outer_r = [r.symbol for r in self.remaining[:-1]]
            p = sp.Poly(self.form, inner.symbol)
            coeffs = [p.coeff_monomial(inner.symbol**k) for k in range(3)]
            allsyms = self.syms + outer_r
            self._coef_fns = [compile_expr(co, allsyms) for co in coeffs]
            deg = p.degree()
            self._lin_root = compile_expr(sp.cancel(-coeffs[0] / coeffs[1]), allsyms) if deg == 1 else None
            if deg == 2:
                sq = sp.sqrt(sp.factor(coeffs[1] ** 2 - 4 * coeffs[2] * coeffs[0]))
                # sympy writes the root of a square as |e|, which has no analytic form on
                # complex balls; +-e are the same two roots (the branches order them at the
                # real point of each piece, and e = 0 is a cut: the discriminant's zero)
                self._quad_roots = [
                    compile_expr(sp.simplify((-coeffs[1] + sgn * sq) / (2 * coeffs[2])).replace(
                        sp.Abs, lambda e: e), allsyms) for sgn in (-1, 1)]
            cuts.append(coeffs[deg])
            if deg == 2:
                cuts.append(coeffs[1] ** 2 - 4 * coeffs[2] * coeffs[0])
            for beta in _finite_points(inner.law):
                cuts.append(self.form.subs(inner.symbol, sp.Rational(beta.numerator, beta.denominator)))
            if not outer_r:
                # the window of the inner law (mass eps and 10^-3 outside): beyond the level
                # sets of the form at its ends, no root is inside it and q is within eps of 0
                # or 1 (:meth:`tail_bound`)
                ends = {b for mass in (acc.eps, arb(10) ** -3) for b in inner.law.box(mass)}
                cuts += [self.form.subs(inner.symbol, sp.Rational(b.numerator, b.denominator))
                         for b in sorted(ends - set(_finite_points(inner.law)))]
            for r in self.remaining[:-1]:
                cuts += [r.symbol - sp.Rational(b.numerator, b.denominator) for b in _finite_points(r.law)]
            self._nested = (NESTED_BRANCH and len(self.remaining) == 2
                            and all(r.law.closed for r in self.remaining))
            if self._nested:
                # the outer remaining variable truncated to its box: its ends are cuts, so a
                # root leaving the box is a breakpoint of the coordinates
                outer = self.remaining[0]
                self._box = outer.law.box(acc.eps)
                cuts += [outer.symbol - sp.Rational(b.numerator, b.denominator) for b in self._box]
                self.closed = self.rest is None
            self._cuts = CutSet(cuts, allsyms) if outer_r else None
            self._u_cuts = _u_level_polys(self._cuts, len(self.syms)) if self._cuts else cuts
        elif self.rest is not None:
            lo, hi = self.rest.box(acc.eps)
            # the inner quantiles split the far tails (where H_b is written from ln q) from
            # the middle (where q is near 1/2)
            lo3, hi3 = self.rest.box(arb(10) ** -3)
            window = [lo, lo3, (lo3 + hi3) / 2, hi3, hi]
            self._window = (ball(lo), ball(hi))
            self._u_cuts = [self.form + sp.Rational(b.numerator, b.denominator)
                            for b in _finite_points(self.rest) + window]
        else:
            self._u_cuts = [self.form]

    def _init_gaussian(self, mean, var, means, acc):
        """Remaining normal variables entering the form linearly (coefficients in u): given u
        the form is N(mean(u), var(u)), so q1 = P(N(0, 1) >= -mean/sqrt(var)). The standard
        normal becomes the rest and the standardised mean the form; the cuts are polynomials:
        the mean (q = 1/2), the variance (where q may jump) and ``mean^2 - b^2 var`` for the
        window's ends b (the level sets mean = +-b sd; with the means rounded to rationals, as
        a misplaced cut only splits a piece where q is analytic anyway)."""
        self.form = mean / sp.sqrt(var)
        self.rest = Normal(arb(0), arb(1), Fraction(0), sp.Integer(1))
        self.remaining = []
        self.closed, self.depth = True, 0
        mu_syms = list(means)
        # mean and variance compiled apart: sympy writes sqrt(x^2) as |x|, which has no
        # analytic form on complex balls; the principal root of the variance is |x| on the
        # real line and x's continuation on each side of the cut var = 0
        mean_fn = compile_expr(mean, self.syms + mu_syms)
        var_fn = compile_expr(var, self.syms)
        mu_balls = [means[m].m for m in mu_syms]

        def form_fn(*u, analytic=False):
            w = var_fn(*u)
            if isinstance(w, acb) or any(isinstance(t, acb) for t in u):
                # the square root's branch cut: a complex ball meeting it is never analytic
                root = acb(w).sqrt(analytic=True)
            else:
                root = w.sqrt()
            return mean_fn(*u, *mu_balls) / root

        self._form_fn = form_fn
        lo, hi = self.rest.box(acc.eps)
        lo3, hi3 = self.rest.box(arb(10) ** -3)
        self._window = (ball(lo), ball(hi))
        mean_q = sp.expand(mean.subs({m: sp.Rational(law.m_frac.numerator, law.m_frac.denominator)
                                      for m, law in means.items()}))
        self._u_cuts = [mean_q, var] + [
            sp.expand(mean_q**2 - sp.Rational(b.numerator, b.denominator)**2 * var)
            for b in (lo, lo3, hi3, hi)]

    def cuts(self) -> list:
        """Polynomials in the coordinates outside whose zero sets q is analytic."""
        return [c for c in self._u_cuts if sp.sympify(c).free_symbols & set(self.syms)]

    def value(self, u: tuple):
        """(q1, q0) at the real coordinate values ``u``."""
        if self.remaining:
            return self._remaining(tuple(u), 0)
        v = self._form_fn(*u)
        if self.rest is None:
            return (arb(1), arb(0)) if v >= 0 else (arb(0), arb(1))
        return self.rest.sf(-v), self.rest.cdf(-v)

    def certified_value(self, u: tuple):
        """(q1, q0) at ``u`` with proved radii where the rest's law is a numerical convolution
        of closed laws (:meth:`fstheory.theory.univariate.Convolved.certified_tails`), else
        None (:meth:`value` then gives them, with an estimated inner integral)."""
        if self.remaining or self.rest is None or not hasattr(self.rest, "certified_tails"):
            return None
        return self.rest.certified_tails(-self._form_fn(*u))

    def branch(self, m: tuple):
        """For one coordinate and closed laws: (q1, q0) as analytic functions of a complex ball,
        with every choice made at the real point ``m``."""
        if self._nested:
            return self._nested_branch(m)
        if self.remaining:
            return self._interval_branch(m)
        v_m = self._form_fn(*m)
        if self.rest is None:
            const = (arb(1), arb(0)) if v_m >= 0 else (arb(0), arb(1))
            return lambda z, analytic=False: const
        sf, cdf = self.rest.sf_branch(-v_m), self.rest.cdf_branch(-v_m)
        return _bounded(lambda z, analytic: (sf(-self._form_fn(*z)), cdf(-self._form_fn(*z))))

    def entropy_branch(self, m: tuple):
        """H_b(q) as an analytic function of complex balls on the cell of the real point m (for
        closed laws), None when it is not available in closed form. With a rest, H_b is written
        from the logarithm L of the smaller class probability at m,
        ``H_b = -(e^L L + (1 - e^L) log1p(-e^L))``, so that neither probability's logarithm is
        taken of a far tail value (a normal tail's exponential wraps around 0 on complex
        balls)."""
        if not self.closed:
            return None
        if self.rest is None or self.remaining:
            qb = self.branch(m)
            if len(self.remaining) == 1 and not self._nested:
                g = self._interval_entropy_branch(m, qb)
                if g is not None:
                    return g
            if qb is None:
                return None
            return lambda z, an: binary_entropy(*(_acb(t) for t in qb(z, an)), an)
        x_m = -self._form_fn(*m)
        if self.rest.sf(x_m) <= self.rest.cdf(x_m):
            log_small = self.rest.log_sf_branch(x_m)
        else:
            log_small = self.rest.log_cdf_branch(x_m)
        form = self._form_fn
        direct = self.branch(m)

        def g(z, an):
            if not an:
                # the last tiny pieces (a probability reaching 0 at a support end): the direct
                # form, whose x ln x is enclosed where a ball reaches 0
                return binary_entropy(*(_acb(t) for t in direct(z)), False)
            L = _acb(log_small(-form(*z)))
            p = L.exp()
            return -(p * L + (1 - p) * (-p).log1p())

        return g

    def log_branches(self, m: tuple):
        """(ln q1, ln q0) as analytic functions of complex balls on the cell of the real point
        m (closed laws, no remaining variable), each None where that probability is 0 on the
        cell (an indicator rule)."""
        v_m = self._form_fn(*m)
        form = self._form_fn
        if self.rest is None:
            zero = lambda z: acb(0)  # noqa: E731
            return (zero, None) if v_m >= 0 else (None, zero)
        x_m = -v_m
        lsf, lcdf = self.rest.log_sf_branch(x_m), self.rest.log_cdf_branch(x_m)
        return (lambda z: _acb(lsf(-form(*z))), lambda z: _acb(lcdf(-form(*z))))

    def tail_bound(self, balls: tuple):
        """A bound of H_b(q) over the product of real balls (one per coordinate) where q is
        within eps of 0 or of 1 on all of it, else None. Exact 0 for an indicator that is
        constant on the balls."""
        if self.remaining:
            return self._interval_tail(tuple(balls))
        v = self._form_fn(*balls)
        if self.rest is None:
            return arb(0) if (v >= 0 or v < 0) else None
        # the cell lies between the cuts form + lo = 0 and form + hi = 0 (R's box at mass eps):
        # beyond hi, q1 <= sf(hi); below lo, q0 <= cdf(lo); which side is decided at the cell's
        # centre, and the ball (whose ends arb rounds outwards) must agree to within 10^-3
        lo, hi = self._window
        x_m = -self._form_fn(*(b.mid() for b in balls))
        if x_m >= hi and self.rest.sf(arb(-v.upper())).upper() <= arb(10) ** -3:
            small = self.rest.sf(hi).upper()
        elif x_m <= lo and self.rest.cdf(arb(-v.lower())).upper() <= arb(10) ** -3:
            small = self.rest.cdf(lo).upper()
        else:
            return None
        if small.is_zero():
            return arb(0)
        return _binary_entropy_bound(small)

    @staticmethod
    def _far_tail(qb, m) -> bool:
        """Whether the smaller class probability at m is a far tail (below 2^-20), where the
        direct form's logarithms of tail values lose their phase on complex balls; elsewhere
        the direct form converges where the log form may not (roots about to merge)."""
        if qb is None:
            return True
        q1, q0 = (_acb(t).real for t in qb(tuple(acb(x) for x in m), False))
        return not (q1 > arb(2) ** -20 and q0 > arb(2) ** -20)

    def _interval_entropy_branch(self, m, qb):
        """H_b(q) for one remaining variable written from the logarithm L of the smaller class
        probability at m, ``H_b = -(e^L L + (1 - e^L) log1p(-e^L))``, as for a rest: L is the
        log tail at the root (linear form) or ``ln(cdf(r1) + sf(r2))`` by log-sum-exp of the
        two log tails (quadratic form, the outside of the roots the smaller side), so that no
        tail value far below 1 is taken on a complex ball (its phase wraps around 0). None
        (the direct form ``qb`` then) unless that probability is a far tail at m
        (:meth:`_far_tail`), or where the smaller side is the inside of the roots."""
        if not self._far_tail(qb, m):
            return None
        law = self.remaining[-1].law
        direct = self._interval_branch(m)
        if self._lin_root is not None:
            if self._coef_fns[1](*m).contains(0):
                return None
            t_m = self._lin_root(*m)
            log_small = law.log_sf_branch(t_m) if law.sf(t_m) <= law.cdf(t_m) else law.log_cdf_branch(t_m)
            root = self._lin_root

            def log_q(z, an):
                return _acb(log_small(root(*z, analytic=an)))
        else:
            c_m, b_m, a_m = (f(*m) for f in self._coef_fns)
            if a_m.contains(0) or not b_m * b_m - 4 * a_m * c_m > 0:
                return None
            low, high = self._quad_roots
            r1_m, r2_m = low(*m), high(*m)
            if r2_m < r1_m:
                low, high, r1_m, r2_m = high, low, r2_m, r1_m
            if not law.cdf(r1_m) + law.sf(r2_m) < _mass(law, r1_m, r2_m):
                return None
            log_lo, log_hi = law.log_cdf_branch(r1_m), law.log_sf_branch(r2_m)
            first_larger = law.cdf(r1_m) >= law.sf(r2_m)

            def log_q(z, an):
                u = _acb(log_lo(low(*z, analytic=an)))
                w = _acb(log_hi(high(*z, analytic=an)))
                big, other = (u, w) if first_larger else (w, u)
                return big + (1 + (other - big).exp()).log(analytic=an)

        def g(z, an):
            if not an:
                return binary_entropy(*(_acb(t) for t in direct(z, False)), False)
            L = log_q(z, an)
            p = L.exp()
            return -(p * L + (1 - p) * (-p).log1p())

        return g

    def _interval_tail(self, balls: tuple):
        """tail_bound for one remaining variable: q enclosed over the balls by the interval
        probability with ball coefficients, where every decision (the sign of the leading
        coefficient and of the discriminant) holds on all of them (each branch then encloses
        q there); a bound only where the smaller probability is below eps."""
        if len(self.remaining) != 1:
            return None
        c, b, a = (f(*balls) for f in self._coef_fns)
        law = self.remaining[-1].law
        if self._lin_root is not None:
            if b.contains(0):
                return None
            q1, q0 = interval_probability(a, b, c, law)
        else:
            disc = b * b - 4 * a * c
            if a.contains(0) or disc.contains(0):
                return None
            if disc < 0:  # no real root anywhere on the cell: the sign of a everywhere
                return arb(0)
            sq = disc.sqrt()
            r1, r2 = (-b - sq) / (2 * a), (-b + sq) / (2 * a)
            if a < 0:  # ordered by the sign of a, not by comparing balls that may overlap
                r1, r2 = r2, r1
            inside = _mass(law, r1, r2)
            outside = law.cdf(r1) + law.sf(r2)
            q1, q0 = (outside, inside) if a > 0 else (inside, outside)
        small = min(q1.upper(), q0.upper())
        if not small <= self.acc.eps.upper():
            return None
        return arb(0) if small <= 0 else _binary_entropy_bound(arb(small))

    def _nested_branch(self, m):
        """(q1, q0) on complex balls for two remaining variables r, s: the integral over r (its
        box, mass eps outside: each probability lies within eps of it) of f_r(y) times the
        closed interval probability of s, certified (``acb.integral``) between the roots of
        the cuts in r as analytic functions of the coordinates."""
        from fstheory.theory.quadrature import arb_integral

        outer = self.remaining[0]
        lo, hi = ball(self._box[0]), ball(self._box[1])
        level = len(self.syms)
        roots = self._cuts.root_branches(level, tuple(m), lo, hi)
        if roots is None:
            return None
        ends = [(lo, lambda *z: lo), *roots, (hi, lambda *z: hi)]
        cells = []
        for (y0, lower), (y1, upper) in zip(ends, ends[1:]):
            if not y0 < y1:
                continue
            ym = (y0 + y1) / 2
            if outer.law.pdf(ym).is_zero():
                continue
            cells.append((lower, upper, outer.law.pdf_branch(ym),
                          self._interval_branch(tuple(m) + (ym,))))
        tol = self.acc.tol * arb(10) ** -8
        slack = acb(arb(0, self.acc.eps.upper()))

        def g(z, analytic=False):
            z = tuple(z)
            q1, q0 = acb(0), acb(0)
            for lower, upper, dens, qb in cells:
                a, b = acb(lower(*z)), acb(upper(*z))
                for c in (0, 1):
                    part = arb_integral(
                        lambda y, an, dens=dens, qb=qb, c=c: dens(y) * _acb(qb(z + (y,), True)[c]),
                        a, b, abs_tol=tol, rel_tol=tol, eval_limit=20000)
                    if c == 0:
                        q1 += part
                    else:
                        q0 += part
            return q1 + slack, q0 + slack

        return g

    def _interval_branch(self, m):
        law = self.remaining[-1].law
        if self._lin_root is not None:  # the form is linear in the innermost variable
            b_m = self._coef_fns[1](*m)
            if b_m.contains(0):  # the form does not depend on r here: an indicator
                const = (arb(1), arb(0)) if self._coef_fns[0](*m) >= 0 else (arb(0), arb(1))
                return lambda z, analytic=False: const
            root = self._lin_root
            t_m = root(*m)
            up = b_m > 0
            sf, cdf = law.sf_branch(t_m), law.cdf_branch(t_m)

            def lin(z, analytic):
                t = root(*z, analytic=analytic)
                return (sf(t), cdf(t)) if up else (cdf(t), sf(t))

            return _bounded(lin)
        c_m, b_m, a_m = (f(*m) for f in self._coef_fns)
        disc_m = b_m * b_m - 4 * a_m * c_m
        if not disc_m > 0:
            const = (arb(1), arb(0)) if a_m > 0 else (arb(0), arb(1))
            return lambda z, analytic=False: const
        low, high = self._quad_roots
        r1_m, r2_m = low(*m), high(*m)
        if r2_m < r1_m:
            low, high, r1_m, r2_m = high, low, r2_m, r1_m
        cdf1, sf1 = law.cdf_branch(r1_m), law.sf_branch(r1_m)
        cdf2, sf2 = law.cdf_branch(r2_m), law.sf_branch(r2_m)
        lower_half = law.cdf(r1_m) < arb("0.5")
        positive = a_m > 0

        def quad(z, analytic):
            # the roots' square root has a branch point where the discriminant vanishes: it
            # must be evaluated with arb's analytic flag, else a piece ending there would be
            # integrated as if q were holomorphic around it (a wrong value with a tiny radius)
            r1, r2 = low(*z, analytic=analytic), high(*z, analytic=analytic)
            inside = cdf2(r2) - cdf1(r1) if lower_half else sf1(r1) - sf2(r2)
            outside = cdf1(r1) + sf2(r2)
            return (outside, inside) if positive else (inside, outside)

        return _bounded(quad)

    def _remaining(self, u: tuple, j: int):
        """q at u, with the remaining variables r_j, ..., r_k integrated out (given r_<j in u)."""
        k = len(self.remaining)
        if j == k - 1:
            c, b, a = (f(*u) for f in self._coef_fns)
            return interval_probability(a, b, c, self.remaining[-1].law)
        r = self.remaining[j]
        lo, hi = r.law.box(self.acc.eps)
        lo, hi = ball(lo), ball(hi)
        level = len(self.syms) + j
        pts = [lo, *self._cuts.breakpoints(level, u, lo, hi), hi]
        tol, rel = self.acc.inner_tol, self.acc.inner_rel
        q1 = integrate_ball(lambda x: r.law.pdf(x) * self._remaining(u + (x,), j + 1)[0], pts, tol, rel)
        q0 = integrate_ball(lambda x: r.law.pdf(x) * self._remaining(u + (x,), j + 1)[1], pts, tol, rel)
        return q1, q0


def gaussian_rest(form, remaining):
    """(mean(u), var(u), means) of the form given the coordinates u, when the form is affine
    jointly in two or more remaining variables that are all normal with an exact variance
    (coefficients that may depend on u): form = c(u) + sum_j a_j(u) r_j, so
    mean = c + sum_j a_j mu_j and var = sum_j a_j^2 sigma_j^2. The means mu_j stay symbols
    (``means``: symbol -> the law, whose ``m`` ball is their value: a mean need not be
    rational). None otherwise."""
    if len(remaining) < 2 or not all(isinstance(r.law, Normal) for r in remaining):
        return None
    syms = [r.symbol for r in remaining]
    variances = [sp.sympify(r.law.var) if r.law.var is not None else None for r in remaining]
    if any(v is None or not v.is_Rational or not v > 0 for v in variances):
        return None
    try:
        poly = sp.Poly(sp.expand(form), *syms)
    except sp.PolynomialError:
        return None
    if poly.total_degree() > 1:
        return None
    coefs = [poly.coeff_monomial(r) for r in syms]
    means = {sp.Symbol(f"mu_{r.symbol}_", real=True): r.law for r in remaining}
    mean = poly.coeff_monomial(1) + sum((a * mu for a, mu in zip(coefs, means)), sp.Integer(0))
    var = sp.expand(sum((a * a * v for a, v in zip(coefs, variances)), sp.Integer(0)))
    if var == 0:
        return None
    return sp.expand(mean), var, means


def _acb(t):
    return t if isinstance(t, acb) else acb(t)


def _binary_entropy_bound(p: arb) -> arb:
    """An upper bound of H_b on [0, p] for p <= 1/2 (H_b increases there)."""
    p = arb(p.upper())
    return (-(p * p.log()) - (1 - p) * (-p).log1p()).upper()


def _bounded(fn):
    """q as given by fn, or the enclosure [0, 1] of a probability where fn's formula is not
    finite on a ball (a removable singularity or a branch point at the end of a piece; certified
    quadrature then bounds that tiny piece by the enclosure)."""
    unit = arb("0.5", "0.5")

    def g(z, analytic=False):
        q1, q0 = fn(z, analytic)
        if analytic or (q1.is_finite() and q0.is_finite()):
            return q1, q0
        return unit, unit

    return g


def _finite_points(law: Law1D) -> list:
    lo, hi = law.support()
    pts = [p for p in (lo, hi) if p not in (INF, -INF)]
    return pts + list(law.breakpoints())


def _u_level_polys(cuts: CutSet, n: int) -> list:
    out = []
    for i in range(n):
        out += [p.as_expr() for p in cuts.levels[i]]
    return out
