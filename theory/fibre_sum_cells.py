"""Closed forms of the inner integrals of a sum's fibre, so that the certified fibre integrals
(:mod:`fstheory.theory.fibre_certified`) evaluate the density of V = a S + beta X + gamma and
its class parts without an inner quadrature on complex balls.

On a cell [L(v), U(v)] of the other coordinate x (cell ends analytic in v), the inner integral is

    int_L^U f_X(x) f_S((v - beta x - gamma) / a) / |a| dx.

* Both laws with exponential pieces (uniform, Laplace, exponential; one piece each on the
  cell): every product of terms is c e^(A v + B x), whose integral is
  c e^(A v) (e^(B U) - e^(B L)) / B, or c e^(A v) (U - L) when B = 0.
* Both laws logistic, of scales with |beta| s_X = |a| s_S (the sum's two exponential rates
  equal): with u = (x - mu_X)/s_X and w = sigma(u), the integrand is
  sigma'(u) sigma'(u + d) du = c w (1 - w) / (1 + eps w)^2 dw, c = e^d, eps = c - 1, whose
  antiderivative is c/eps^3 (-y + (2 + eps) ln y + (1 + eps)/y), y = 1 + eps w =
  sigma(-u) + c sigma(u) (no cancellation near w = 1); for |eps| < 1/4 (the removable
  singularity at eps = 0) the series c sum_k (k + 1) (-eps)^k (w^(k+2)/(k+2) - w^(k+3)/(k+3)).
* One law logistic (mu, s), the other with exponential pieces: with t the standardised
  logistic variable along the cell, the integral is c e^(A v) int sigma'(t) e^(-rho t) dt, an
  incomplete beta difference I(1 - rho, 1 + rho) between the cell's ends
  (:func:`fstheory.theory.logistic_sum.incomplete_beta_between`; the substitution w = sigma(t)).

Each returns ``value(v)`` (v a real or complex ball) or None when the cell is not of these forms
(a power of x in a term, a normal law, a coefficient a that depends on x); ``value.work`` is
its cost counted in the work budget (one per term, like an integrand evaluation).
"""

from __future__ import annotations

import sympy as sp
from flint import acb, arb, ctx

from fstheory.theory.arbexpr import compile_expr
from fstheory.theory.balls import ball
from fstheory.theory.law1d import Logistic, PELaw
from fstheory.theory.logistic_sum import incomplete_beta_between

__all__ = ["closed_sum_cell", "pair_antiderivative"]


def _exact(e):
    """A rational sympy number as a Fraction, else None."""
    from fractions import Fraction

    e = sp.nsimplify(sp.sympify(e))
    if not e.is_Rational:
        return None
    return Fraction(int(e.p), int(e.q))


def _pieces_terms(law, at):
    """The terms {(0, r): c} of the law's piece at the real point ``at`` (k = 0 only), or None."""
    piece = law.pe.piece_at(at)
    if piece is None or any(k != 0 for k, _ in piece.terms):
        return None
    return piece.terms


def closed_sum_cell(F, m, cell, klass=None):
    """The closed inner integral of ``cell`` at the outer piece of the real point m (module
    docstring), or None. With ``klass`` (1 or 0) the part on that class, for a linear rule
    whose rest R has exponential pieces: q_1 = S_R(-form), q_0 = F_R(-form), one piece of
    each on the cell, each term c e^(r y) with y = -form linear in v and x."""
    if F.a.free_symbols:
        return None
    x = F.o.symbol
    poly = sp.Poly(F.r, x)
    if poly.degree() > 1:
        return None
    a = _exact(F.a)
    beta = _exact(poly.coeff_monomial(x))
    gamma = _exact(poly.coeff_monomial(1))
    if a is None or beta is None or gamma is None or a == 0:
        return None
    lower, upper, xm = cell
    sm = F.solved(m, xm)
    so, ss = F.o.law, F.s.law
    extra = [(ball(1), 0, 0, 0)]
    if klass is not None:
        extra = _class_terms(F, m, xm, sm, a, beta, gamma, klass)
        if extra is None:
            return None
    if isinstance(so, PELaw) and isinstance(ss, PELaw):
        to, ts = _pieces_terms(so, xm), _pieces_terms(ss, sm)
        if to is None or ts is None:
            return None
        return _exp_exp(to, ts, a, beta, gamma, lower, upper, extra)
    if klass is not None:
        return None
    if isinstance(so, Logistic) and isinstance(ss, PELaw):
        ts = _pieces_terms(ss, sm)
        if ts is None:
            return None
        return _logistic_x(so, ts, a, beta, gamma, lower, upper)
    if isinstance(ss, Logistic) and isinstance(so, Logistic) and beta != 0:
        return _logistic_pair(so, ss, a, beta, gamma, lower, upper)
    if isinstance(ss, Logistic) and isinstance(so, PELaw) and beta != 0:
        to = _pieces_terms(so, xm)
        if to is None:
            return None
        return _logistic_s(ss, to, a, beta, gamma, lower, upper)
    return None


def _class_terms(F, m, xm, sm, a, beta, gamma, klass):
    """The class factor's terms [(c, A, B, C)] meaning c e^(A v + B x + C) on the cell, from the
    piece of S_R (class 1) or F_R (class 0) at y = -form(s, x) at the cell's midpoint."""
    q = F.q
    rest = q.rest
    if not isinstance(rest, PELaw) or q.remaining:
        return None
    s_sym, x_sym = F.s.symbol, F.o.symbol
    form = sp.expand(q.form)
    if form.free_symbols - {s_sym, x_sym}:
        return None
    phi_s, phi_x = (_exact(sp.diff(form, t)) for t in (s_sym, x_sym))
    phi_0 = _exact(form.subs({s_sym: 0, x_sym: 0}))
    if None in (phi_s, phi_x, phi_0) or sp.diff(form, s_sym, 2) != 0 or sp.diff(form, x_sym, 2) != 0:
        return None
    # y = -(phi_s (v - beta x - gamma)/a + phi_x x + phi_0) = Ay v + By x + Cy
    Ay = -phi_s / a
    By = phi_s * beta / a - phi_x
    Cy = phi_s * gamma / a - phi_0
    pt = F.point(m, xm)
    y_m = -compile_expr(form, list(q.syms))(*pt)
    pe = rest._sf_pe() if klass == 1 else rest._cdf_pe()
    piece = pe.piece_at(y_m)
    if piece is None:
        return [(ball(0), 0, 0, 0)]
    if any(k != 0 for k, _ in piece.terms):
        return None
    return [(c, r * Ay, r * By, r * Cy) for (_k, r), c in piece.terms.items()]


def _exp_exp(to, ts, a, beta, gamma, lower, upper, extra):
    """sum c_o c_s c_e / |a| e^(r_o x + r_s (v - beta x - gamma) / a + A_e v + B_e x + C_e)
    integrated over [L, U] (``extra``: the class factor's terms, or the constant 1)."""
    parts = []
    for (_k, ro), co in to.items():
        for (_k2, rs), cs in ts.items():
            for ce, Ae, Be, Ce in extra:
                A = rs / a + Ae
                B = ro - rs * beta / a + Be
                parts.append((co * cs * ce / abs(ball(a)), A, B, -rs * gamma / a + Ce))

    def value(v):
        lo, hi = acb(lower(v)), acb(upper(v))
        total = acb(0)
        for c, A, B, C in parts:
            pref = c * (ball(A) * v + ball(C)).exp() if (A != 0 or C != 0) else c
            if B == 0:
                total += pref * (hi - lo)
            else:
                b = ball(B)
                total += pref * ((b * hi).exp() - (b * lo).exp()) / b
        return total

    value.work = len(parts)  # one difference of exponentials per term, as an evaluation
    return value


def _in_strip(*ts) -> bool:
    """Every end within |Im t| < pi, the strip where sigma'(t) has no pole: the incomplete
    beta difference is analytic in the ends there (and only there is it the integral)."""
    pi = arb.pi()
    return all(abs(acb(t).imag) < pi for t in ts)


def _logistic_terms(parts, v, t_lo, t_hi):
    """The sum over the pieces ``(c, A, C, rho)`` of
    c e^(A v + C) int_{t_lo}^{t_hi} sigma'(t) e^(-rho t) dt (sigma the standard logistic cdf),
    each integral an incomplete beta difference (:func:`incomplete_beta_between`)."""
    total = acb(0)
    for c, A, C, rho in parts:
        pref = c * (ball(A) * v + ball(C)).exp()
        total += pref * incomplete_beta_between(1 - rho, 1 + rho, t_lo, t_hi)
    return total


def _logistic_x(law: Logistic, ts, a, beta, gamma, lower, upper):
    """X logistic (mu, s), S with exponential pieces: f_S(s(x)) = c e^(r (v - beta x - gamma)/a);
    x = mu + s t gives c e^(r (v - gamma)/a) e^(B mu) int sigma'(t) e^(B s t) dt, B = -r beta/a."""
    mu, s = law.mu, law.s
    parts = []
    for (_k, r), c in ts.items():
        B = -r * beta / a
        rho = -B * s
        parts.append((c / abs(ball(a)), r / a, -r * gamma / a + B * mu, rho))
    mu_b, s_b = ball(mu), ball(s)

    def value(v):
        t_lo, t_hi = (acb(lower(v)) - mu_b) / s_b, (acb(upper(v)) - mu_b) / s_b
        if not _in_strip(t_lo, t_hi):
            return acb("nan")
        return _logistic_terms(parts, v, t_lo, t_hi)

    return value


def _logistic_s(law: Logistic, to, a, beta, gamma, lower, upper):
    """S logistic (mu, s), X with exponential pieces c e^(r x): with
    t = ((v - beta x - gamma)/a - mu)/s, x = (v - gamma - a (mu + s t))/beta and
    |dx| f_S / |a| = sigma'(t) dt / |beta|, so the integral is
    c / |beta| e^(r (v - gamma - a mu)/beta) int sigma'(t) e^(-rho t) dt, rho = r a s / beta,
    over t between t(L) and t(U)."""
    mu, s = law.mu, law.s
    parts = []
    for (_k, r), c in to.items():
        parts.append((c / abs(ball(beta)), r / beta, -r * (gamma + a * mu) / beta, r * a * s / beta))
    mu_b, s_b, a_b, beta_b, gamma_b = ball(mu), ball(s), ball(a), ball(beta), ball(gamma)
    increasing = (beta / a) < 0  # t increases with x when -beta / (a s) > 0

    def value(v):
        def t_of(xe):
            return ((v - beta_b * xe - gamma_b) / a_b - mu_b) / s_b
        t_l, t_u = t_of(acb(lower(v))), t_of(acb(upper(v)))
        t_lo, t_hi = (t_l, t_u) if increasing else (t_u, t_l)
        if not _in_strip(t_lo, t_hi):
            return acb("nan")
        return _logistic_terms(parts, v, t_lo, t_hi)

    return value


def _logistic_pair(lx: Logistic, ls: Logistic, a, beta, gamma, lower, upper):
    """Both coordinates logistic (module docstring); None unless the scales match."""
    kappa = beta * lx.s / (a * ls.s)
    if abs(kappa) != 1:
        return None
    mux, sx, mus, ss = ball(lx.mu), ball(lx.s), ball(ls.mu), ball(ls.s)
    factor = 1 / (ss * abs(ball(a)))

    def value(v):
        # t_S = d0 - kappa u with d0 = ((v - gamma - beta mu_X)/a - mu_S)/s_S; sigma' is
        # even, so sigma'(t_S) = sigma'(u - d0) (kappa = 1) or sigma'(u + d0) (kappa = -1)
        d0 = ((v - ball(gamma) - ball(beta) * mux) / ball(a) - mus) / ss
        d = -d0 if kappa == 1 else d0
        u0, u1 = (acb(lower(v)) - mux) / sx, (acb(upper(v)) - mux) / sx
        if not _in_strip(u0, u1, u0 + d, u1 + d):
            return acb("nan")
        return factor * (pair_antiderivative(acb(d), u1) - pair_antiderivative(acb(d), u0))

    value.work = 2
    return value


def pair_antiderivative(d, u):
    """An antiderivative in u of sigma'(u) sigma'(u + d) (module docstring). Real balls are
    evaluated in real arithmetic (arb's complex division of a wide ball is indeterminate even
    away from 0)."""
    if d.imag.is_zero() and u.imag.is_zero():
        d, u = d.real, u.real
        # monotone functions of wide real balls from their ends (arb's exp of a wide ball
        # is a centred enclosure reaching below 0)
        c = _hull(arb.exp, d)
        eps = c - 1
        w = _hull(lambda t: 1 / (1 + (-t).exp()), u)
        one_minus_w = _hull(lambda t: 1 / (1 + t.exp()), u)
    else:
        c = d.exp()
        eps = c - 1
        w = 1 / (1 + (-u).exp())
        one_minus_w = 1 / (1 + u.exp())
    if abs(eps).upper() < arb(1) / 4:
        rho = abs(eps).upper() * abs(w).upper()
        if not rho < arb(1) / 2:
            return acb("nan")
        total, term_pow, k = 0 * w, 1 + 0 * w, 0
        wk2 = w * w
        while True:
            total += (k + 1) * term_pow * (wk2 / (k + 2) - wk2 * w / (k + 3))
            k += 1
            term_pow *= -eps
            wk2 *= w
            # the rest: each term is at most (j + 1) rho^j |w|^2 (1 + |w|), and
            # sum_{j >= k} (j + 1) rho^j <= (k + 1) rho^k / (1 - rho)^2
            aw = abs(w).upper()
            rest = aw * aw * (1 + aw) * (k + 1) * rho ** k / (1 - rho) ** 2
            if rest < arb(2) ** (-ctx.prec - 10) or k > 4 * ctx.prec:
                break
        r = arb(rest.upper())
        return acb(c * total) + acb(arb(0, r), arb(0, r)) * c
    y = one_minus_w + c * w
    log_y = y.log(analytic=True) if isinstance(y, acb) else y.log()
    return acb(c / (eps * eps * eps) * (-y + (2 + eps) * log_y + (1 + eps) / y))


def _hull(f, x: arb) -> arb:
    """f on a real ball x for a monotone f: the hull of its values at the ends."""
    if x.rad() == 0:
        return f(x)
    return f(arb(x.lower())).union(f(arb(x.upper())))
