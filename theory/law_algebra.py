"""Law algebra: closed forms derived from the declared laws, never typed per feature.

* :func:`law_of` — the law of a feature when it stays in a known family: affine maps of any base
  law, squares of centred uniform and normal laws, linear combinations of two independent
  normals, of two independent uniforms of equal (scaled) width (triangular; Section 6), and of
  two independent Laplace laws of equal (scaled) scale; and the folds of these: |L - c| for a
  law L symmetric about c (:func:`fstheory.theory.laws.fold`: h(|L - c|) = h(L) - ln 2, e.g.
  |Y| ~ Unif(0, delta) for Y ~ Unif(-delta, delta), so h(|Y|) = ln delta, exactly 0 at
  delta = 1), and the squares a (B - c)^2 + e of a base law symmetric about c.
* :func:`pair_mi` — MI(U, V) for U = g(B1), V = c1 B1 + c2 B2 + e (B1, B2 independent), through
  MI(U, V) = h(V) - h(V | U) (property (e) of Section 2):

  - g one-to-one: h(V | U) = h(V | B1) = h(c2 B2) (translation invariance), e.g.
    MI(X, X-Y) = h(X-Y) - h(Y) = 1/2 (Scenario I), ln(2)/2 (Scenario II);
  - g even about 0, B1 symmetric about 0 (U = B1^2): given U, B1 = +-s with probability 1/2
    each, so V given U is an equal mixture of c2 B2 shifted by +-c1 s, whose entropy is known
    in closed form for uniform and normal B2 (:func:`entropy_given_square`).

* :func:`gaussian_class_mi` — MI(C, V) for V linear in jointly normal base variables and the
  class a linear threshold through the mean: (V, L) is bivariate normal with correlation rho, so
  P(C = 1 | V) = Phi(lambda Z) with lambda = rho / sqrt(1 - rho^2) and the MI is the skew-normal
  expectation E[ln 2 Phi(lambda A)], A ~ SN(0, 1, lambda) (Section 6, Scenario II).

All functions take and return sympy expressions (parameters may be symbols); ``None`` means "no
closed form known here": the caller then uses the numerical route (:mod:`fstheory.theory.numeric`).
"""

from __future__ import annotations

import mpmath
import sympy as sp

from fstheory.theory.laws import (
    Laplace,
    LaplaceSum,
    Law,
    Normal,
    ScaledChiSquared1,
    SquareOfLaplace,
    SquareOfUniform,
    Triangular,
    Uniform,
)

__all__ = [
    "linear_parts",
    "law_of",
    "entropy_closed_form",
    "pair_mi",
    "entropy_given_square",
    "lncosh_expectation",
    "gaussian_class_mi",
    "skew_normal_mi",
    "is_injective",
    "injective_base",
    "monotone_entropy",
    "is_even",
]


def _bases_in(expr: sp.Expr, laws: dict) -> list[sp.Symbol]:
    return sorted((s for s in expr.free_symbols if s in laws), key=str)


def linear_parts(expr: sp.Expr, bases: list[sp.Symbol]):
    """(coefficients, constant) if ``expr`` is linear in ``bases`` with base-free coefficients."""
    expr = sp.expand(expr)
    coefs = {}
    for b in bases:
        c = sp.diff(expr, b)
        if any(s in c.free_symbols for s in bases):
            return None
        coefs[b] = sp.simplify(c)
    const = sp.simplify(expr - sum(c * b for b, c in coefs.items()))
    if any(s in const.free_symbols for s in bases):
        return None
    return coefs, const


def _is_zero(e: sp.Expr) -> bool:
    return sp.simplify(e) == 0


def law_of(expr: sp.Expr, laws: dict) -> Law | None:
    """The law of ``expr`` (a function of independent base variables) when in a known family."""
    expr = sp.sympify(expr)
    folded = _folded_law(expr, laws)
    if folded is not None:
        return folded
    square = _shifted_square_law(expr, laws)
    if square is not None:
        return square
    bases = _bases_in(expr, laws)
    if len(bases) == 1:
        (B,) = bases
        law = laws[B]
        lin = linear_parts(expr, bases)
        if lin is not None:
            coefs, const = lin
            return law.affine(coefs[B], const)
        if _is_zero(expr - B**2):
            if isinstance(law, Uniform) and _is_zero(law.params[0] + law.params[1]):
                return SquareOfUniform(law.params[1])
            if isinstance(law, Normal) and _is_zero(law.params[0]):
                return ScaledChiSquared1(law.params[1] ** 2)
            if isinstance(law, Laplace) and _is_zero(law.params[0]):
                return SquareOfLaplace(law.params[1])
        return None
    if len(bases) == 2:
        lin = linear_parts(expr, bases)
        if lin is None:
            return None
        coefs, const = lin
        l1, l2 = (laws[b] for b in bases)
        c1, c2 = (coefs[b] for b in bases)
        if isinstance(l1, Normal) and isinstance(l2, Normal):
            (m1, s1), (m2, s2) = l1.params, l2.params
            return Normal(c1 * m1 + c2 * m2 + const, sp.sqrt(c1**2 * s1**2 + c2**2 * s2**2))
        if isinstance(l1, Laplace) and isinstance(l2, Laplace):
            s1, s2 = sp.Abs(c1) * l1.params[1], sp.Abs(c2) * l2.params[1]
            if not _is_zero(s1 - s2):
                return None
            return LaplaceSum(c1 * l1.params[0] + c2 * l2.params[0] + const, s1)
        if isinstance(l1, Uniform) and isinstance(l2, Uniform):
            u1, u2 = l1.affine(c1, 0), l2.affine(c2, 0)
            if u1 is None or u2 is None:
                return None
            w1 = u1.params[1] - u1.params[0]
            w2 = u2.params[1] - u2.params[0]
            if not _is_zero(w1 - w2):
                return None
            low = u1.params[0] + u2.params[0] + const
            high = u1.params[1] + u2.params[1] + const
            return Triangular(low, high, (low + high) / 2)
    return None


def _folded_law(expr, laws) -> Law | None:
    """a |L| + e for a linear L whose law is known and symmetric about 0 after removing its
    constant: the fold of that law (scaled by a|c|, shifted by e)."""
    expr = sp.expand(expr)
    absolutes = [t for t in expr.atoms(sp.Abs) if _bases_in(t, laws)]
    if len(absolutes) != 1:
        return None
    (term,) = absolutes
    t = sp.Dummy("t")
    replaced = expr.xreplace({term: t})
    if _bases_in(replaced, laws) or not replaced.is_polynomial(t) or sp.degree(replaced, t) != 1:
        return None
    a = sp.simplify(sp.diff(replaced, t))
    e = sp.simplify(replaced.subs(t, 0))
    if _is_zero(a):
        return None
    inner = sp.expand(term.args[0])
    if linear_parts(inner, _bases_in(inner, laws)) is None:
        return None
    law = law_of(inner, laws)
    if law is None:
        return None
    c = law.center()
    if c is None:
        return None
    centred = law.affine(sp.Integer(1), -c)
    if centred is None or not _is_zero(c):
        # |L| with L symmetric about c != 0 is not a fold of L
        return None
    from fstheory.theory.laws import fold

    folded = fold(centred)
    if folded is None:
        return None
    if _is_zero(a - 1) and _is_zero(e):
        return folded
    scaled = folded.affine(a, e) if (a.is_positive or (a.is_number and a > 0)) else None
    if scaled is not None:
        return scaled
    from fstheory.theory.laws import Scaled

    return Scaled(folded, a, e)


def _shifted_square_law(expr, laws) -> Law | None:
    """alpha (B - c)^2 + e for one base variable B symmetric about c (not already the plain
    square B^2 of a centred law, which :func:`law_of` names): the square of the centred law,
    scaled."""
    bases = _bases_in(expr, laws)
    if len(bases) != 1:
        return None
    (B,) = bases
    poly = sp.Poly(sp.expand(expr), B) if sp.expand(expr).is_polynomial(B) else None
    if poly is None or poly.degree() != 2:
        return None
    a2, a1, a0 = (poly.coeff_monomial(B**k) for k in (2, 1, 0))
    c = -a1 / (2 * a2)
    law = laws[B]
    centre = law.center()
    if centre is None or not _is_zero(centre - c):
        return None
    if _is_zero(c) and _is_zero(a2 - 1) and _is_zero(a0):
        return None  # B^2 itself: law_of's own families
    centred = law.affine(sp.Integer(1), -c)
    if centred is None:
        return None
    square = law_of(B**2, {B: centred})
    if square is None:
        return None
    from fstheory.theory.laws import Scaled

    return Scaled(square, a2, sp.simplify(a0 - a2 * c**2))


def entropy_closed_form(expr: sp.Expr, laws: dict) -> sp.Expr | None:
    """h(expr) from its law, when :func:`law_of` knows the law and the law its entropy."""
    law = law_of(expr, laws)
    return None if law is None else law.entropy()


def is_injective(g: sp.Expr, B: sp.Symbol, lo: sp.Expr, hi: sp.Expr) -> bool:
    """True if g is strictly monotone on (lo, hi), hence one-to-one there: g' has no zero there,
    or finitely many zeros and one sign between them (B^3 on (-1, 1): 3 B^2 vanishes at 0
    only). Conservative: False whenever the zeros or the signs cannot be decided."""
    dg = sp.diff(g, B)
    if dg.free_symbols.isdisjoint({B}):
        return not _is_zero(dg)
    lo, hi = sp.sympify(lo), sp.sympify(hi)
    crit = sp.solveset(sp.Eq(dg, 0), B, sp.Interval.open(lo, hi))
    if crit is sp.S.EmptySet:
        return True
    if not isinstance(crit, sp.FiniteSet) or not all(c.is_real and c.is_number for c in crit):
        return False
    cuts = sorted(crit, key=float)
    ends = [lo if lo.is_finite else cuts[0] - 2, *cuts, hi if hi.is_finite else cuts[-1] + 2]
    signs = {sp.sign(sp.simplify(dg.subs(B, (a + b) / 2))) for a, b in zip(ends, ends[1:])}
    return signs in ({sp.Integer(1)}, {sp.Integer(-1)})


def injective_base(expr: sp.Expr, laws: dict) -> sp.Symbol | None:
    """B when ``expr`` is a strictly monotone function of one base variable B on B's support
    (so MI(V, expr) = MI(V, B) for every V, and MI(C, expr) = MI(C, B)), else None."""
    bases = _bases_in(expr, laws)
    if len(bases) != 1:
        return None
    (B,) = bases
    lo, hi = (sp.sympify(e) for e in laws[B].support())
    try:
        return B if is_injective(sp.sympify(expr), B, lo, hi) else None
    except (TypeError, ValueError, NotImplementedError):
        return None  # the zeros or signs of g' not decidable (symbolic support): no claim


def _mpf(e: sp.Expr):
    return mpmath.inf * int(sp.sign(e)) if e.is_infinite else mpmath.mpf(sp.N(e, 40))


def monotone_entropy(expr: sp.Expr, laws: dict) -> sp.Expr | None:
    """h(g(B)) = h(B) + E[ln |g'(B)|] for g strictly monotone on the support of one base
    variable B (change of variables, paper Section 2), when sympy integrates E[ln |g'(B)|]
    against B's density in closed form (Y^3, Y ~ Unif(-1, 1): ln 6 - 2); else None."""
    B = injective_base(expr, laws)
    if B is None:
        return None
    law = laws[B]
    hb = law.entropy()
    if hb is None:
        return None
    lo, hi = (sp.sympify(e) for e in law.support())
    points = {lo, hi, *(sp.sympify(b) for b in law.breakpoints())}
    if (lo < 0) == sp.true and (hi > 0) == sp.true:
        points.add(sp.Integer(0))
    if not all(p.is_number for p in points):
        return None
    cuts = sorted(points, key=lambda e: float(e) if e.is_finite else float(sp.sign(e)) * 1e300)
    y = sp.Dummy("y", positive=True)
    dg = sp.diff(sp.sympify(expr), B)
    pieces = []
    for a, b in zip(cuts, cuts[1:]):
        # on a segment of one sign, integrate over y = |x| > 0 so that Abs and log expand
        # exactly (sympy's integrals of log|x| over negative ranges are not reliable)
        sign = 1 if (a >= 0) == sp.true else -1
        lower, upper = (a, b) if sign == 1 else (-b, -a)
        term = sp.expand_log(sp.log(sp.Abs(dg.subs(B, sign * y))), force=False)
        pieces.append((sp.integrate(term * law.pdf(sign * y), (y, lower, upper)),
                       sp.lambdify(y, term * law.pdf(sign * y), "mpmath"), lower, upper))
    expectation = sp.simplify(sp.Add(*(p[0] for p in pieces)).rewrite(sp.erf))
    if expectation.has(sp.Integral) or not expectation.is_finite:
        return None
    # a guard against a wrong symbolic integral: the same expectation by quadrature
    with mpmath.workdps(30):
        check = mpmath.fsum(mpmath.quad(f, [_mpf(lo_), _mpf(hi_)]) for _, f, lo_, hi_ in pieces)
        if abs(sp.N(expectation, 30) - check) > mpmath.mpf(10) ** -15:
            return None
    return sp.simplify(hb + expectation)


def is_even(g: sp.Expr, B: sp.Symbol) -> bool:
    return _is_zero(g.subs(B, -B) - g)


def _centre_zero(law: Law) -> bool:
    c = law.center()
    return c is not None and _is_zero(c)


def pair_mi(u: sp.Expr, v: sp.Expr, laws: dict) -> sp.Expr | None:
    """MI(u, v) in closed form for u = g(B1), v = c1 B1 + c2 B2 + e (either order), else None."""
    for U, V in ((u, v), (v, u)):
        bu, bv = _bases_in(U, laws), _bases_in(V, laws)
        if len(bu) != 1 or len(bv) != 2 or bu[0] not in bv:
            continue
        B1 = bu[0]
        (B2,) = [b for b in bv if b != B1]
        lin = linear_parts(V, bv)
        if lin is None:
            return None
        coefs, _ = lin
        c1, c2 = coefs[B1], coefs[B2]
        hv = entropy_closed_form(V, laws)
        if hv is None:
            return None
        lo, hi = laws[B1].support()
        if is_injective(U, B1, lo, hi):
            h_cond = entropy_closed_form(c2 * B2, laws)
        elif is_even(U, B1) and _centre_zero(laws[B1]) and is_injective(U, B1, 0, hi):
            h_cond = entropy_given_square(laws[B1], laws[B2], c1, c2)
        else:
            return None
        if h_cond is None:
            return None
        diff = hv - h_cond
        return diff if diff.has(sp.Integral) else sp.simplify(diff)
    return None


_theta = sp.Symbol("theta", real=True)


def _beta_fn(x: sp.Expr) -> sp.Expr:
    """beta(x) = sum_{m>=0} (-1)^m/(m+x) = (psi((x+1)/2) - psi(x/2))/2."""
    return (sp.polygamma(0, (x + 1) / 2) - sp.polygamma(0, x / 2)) / 2


def lncosh_expectation(alpha: sp.Expr) -> sp.Expr:
    """E[ln cosh(alpha^2 U^2 + alpha U N)] for independent standard normals U, N, alpha > 0.

    In polar coordinates (U, N) = r (cos t, sin t) the argument is r^2 q(t) with
    q(t) = alpha cos t (alpha cos t + sin t), and r^2/2 ~ Exp(1) independent of t, so the
    expectation is E_t[G(2|q(t)|)] with G(c) = int_0^oo e^-p ln cosh(c p) dp. Expanding
    ln cosh(x) = x - ln 2 + sum_{n>=1} (-1)^{n+1} e^{-2nx}/n gives G(c) = c - beta(1 + 1/(2c)),
    beta(x) = (psi((x+1)/2) - psi(x/2))/2 (digamma). q has period pi and vanishes at pi/2 and
    pi - atan(alpha); on each piece its sign is fixed, so the integrand is analytic there.
    """
    q = alpha * sp.cos(_theta) * (alpha * sp.cos(_theta) + sp.sin(_theta))
    cuts = [sp.Integer(0), sp.pi / 2, sp.pi - sp.atan(alpha), sp.pi]
    total = sp.Integer(0)
    for (lo, hi), sign in zip(zip(cuts, cuts[1:]), (1, -1, 1)):
        aq = sign * q
        total += sp.Integral(2 * aq - _beta_fn(1 + 1 / (4 * aq)), (_theta, lo, hi))
    return total / sp.pi


_m = sp.Symbol("m", positive=True)


def _laplace_mixture_entropy(m: sp.Expr) -> sp.Expr:
    """Entropy of the equal mixture of Laplace(m, 1) and Laplace(-m, 1), m >= 0.

    The density is e^{-|t|} cosh(m)/2 for |t| >= m and e^{-m} cosh(t)/2 for |t| < m. With
    int cosh(t) ln cosh(t) dt = sinh(t) ln cosh(t) - sinh(t) + gd(t), gd(t) = 2 atan(tanh(t/2)):
    H(m) = -2 [ cosh(m) e^{-m} (ln(cosh(m)/2) - m - 1)/2
               + e^{-m} (sinh(m) (ln cosh(m) - m - ln 2 - 1) + gd(m))/2 ].
    H(0) = 1 + ln 2, the entropy of Laplace(0, 1).
    """
    c, sh = sp.cosh(m), sp.sinh(m)
    gd = 2 * sp.atan(sp.tanh(m / 2))
    outer = c * sp.exp(-m) * (sp.log(c / 2) - m - 1) / 2
    inner = sp.exp(-m) * (sh * (sp.log(c) - m - sp.log(2) - 1) + gd) / 2
    return -2 * (outer + inner)


def entropy_given_square(law1: Law, law2: Law, c1: sp.Expr, c2: sp.Expr) -> sp.Expr | None:
    """h(c1 B1 + c2 B2 | B1^2) for B1 symmetric about 0, independent of B2.

    Given B1^2 = s^2, V is the equal mixture of c2 B2 + c1 s and c2 B2 - c1 s.

    * Uniform B1 ~ U(-delta1, delta1), uniform B2: c2 B2 has half-width D = |c2| w2 / 2; the two
      shifted copies overlap on a length 2D - 2|c1|s (if positive), where the mixture density is
      1/(2D), and have density 1/(4D) elsewhere, so h(V | s) = ln(2D) + ln 2 * min(|c1| s/D, 1).
      With A = |c1| delta1 and s ~ U(0, delta1): E min(|c1|s/D, 1) = A/(2D) if A <= D, else
      1 - D/(2A). (Paper Section 6: MI(Y^2, X-Y) = (1 - ln 2)/2.)
    * Normal B1 ~ N(0, s1^2), normal B2 ~ N(m2, s2^2): with tau = |c2| s2, alpha = |c1| s1/tau,
      the mixture of N(+-m, tau^2) has entropy ln(2 pi e tau^2)/2 + m^2/tau^2 - E ln cosh(m T/tau^2),
      T ~ N(m, tau^2); averaging over m = |c1| s1 |U| gives
      ln(2 pi e tau^2)/2 + alpha^2 - E[ln cosh(alpha^2 U^2 + alpha U N)] (:func:`lncosh_expectation`).
      (Paper Section 6: MI(Y^2, X-Y) = -1 + ln(2)/2 + E ln cosh((X-Y)|Y|).)
    * Laplace B1 ~ Laplace(0, b1), Laplace B2: with tau = |c2| b2, the mixture of Laplace(+-m tau,
      tau) has entropy ln(tau) + H(m) in closed form (:func:`_laplace_mixture_entropy`), and
      m = |c1| |B1| / tau ~ Exp(mean beta = |c1| b1 / tau): one integral over m (Scenario III).
    """
    if isinstance(law1, Uniform) and isinstance(law2, Uniform):
        delta1 = law1.params[1]
        D = sp.Abs(c2) * (law2.params[1] - law2.params[0]) / 2
        A = sp.Abs(c1) * delta1
        frac = sp.Piecewise((A / (2 * D), A <= D), (1 - D / (2 * A), True))
        return sp.log(2 * D) + sp.log(2) * frac
    if isinstance(law1, Laplace) and isinstance(law2, Laplace):
        tau = sp.Abs(c2) * law2.params[1]
        beta = sp.Abs(c1) * law1.params[1] / tau
        m = _m
        return sp.log(tau) + sp.Integral(sp.exp(-m / beta) / beta * _laplace_mixture_entropy(m),
                                         (m, 0, sp.oo))
    if isinstance(law1, Normal) and isinstance(law2, Normal):
        s1, s2 = law1.params[1], law2.params[1]
        tau = sp.Abs(c2) * s2
        alpha = sp.Abs(c1) * s1 / tau
        return sp.log(2 * sp.pi * sp.E * tau**2) / 2 + alpha**2 - lncosh_expectation(alpha)
    return None


_u = sp.Symbol("u", positive=True)


def skew_normal_mi(lam: sp.Expr) -> sp.Integral:
    """E[ln 2 Phi(lam A)], A ~ SN(0, 1, lam): MI(C, V) when P(C=1 | V=v) = Phi(lam v), V ~ N(0, 1).

    For V standard normal and P(C = 1 | V = v) = Phi(lam v): P(C = 1) = 1/2 and
    f(v | C = 1) = 2 phi(v) Phi(lam v) is the SN(0, 1, lam) density; C = 0 mirrors it, so the mixed
    MI (paper eq. (mi_cont_disc)) is E[ln 2 Phi(lam A)]. Folding the real line at 0 (the integrand
    at -u is the C = 0 term at u) gives the form returned here, written with the upper tail
    Q = Phi(-|lam| u) = erfc(|lam| u / sqrt 2)/2 so that it keeps full precision for large u:

        MI = 2 int_0^oo phi(u) [(1 - Q) ln(2 (1 - Q)) + Q ln(2 Q)] du.
    """
    q = sp.erfc(sp.Abs(lam) * _u / sp.sqrt(2)) / 2
    phi = sp.exp(-(_u**2) / 2) / sp.sqrt(2 * sp.pi)
    body = 2 * phi * ((1 - q) * sp.log(2 * (1 - q)) + q * sp.log(2 * q))
    return sp.Integral(body, (_u, 0, sp.oo))


def gaussian_class_mi(
    v: sp.Expr, weights: dict, threshold: sp.Expr, laws: dict
) -> sp.Expr | None:
    """MI(C, v) for C = 1{sum w_b B_b >= threshold}, v linear, all base variables normal.

    Requires the threshold to be the mean of the linear form (P(C = 1) = 1/2, as in the paper).
    (V, L) is bivariate normal; rho = cov(V, L)/(sd V sd L) and lam = rho/sqrt(1 - rho^2). If
    |rho| = 1 the class is a function of V and MI = ln 2.
    """
    bases = sorted(set(_bases_in(v, laws)) | {b for b, w in weights.items()}, key=str)
    if not all(isinstance(laws[b], Normal) for b in bases):
        return None
    lin = linear_parts(v, bases)
    if lin is None:
        return None
    cv, _ = lin
    mean_l = sum(w * laws[b].params[0] for b, w in weights.items())
    if not _is_zero(mean_l - threshold):
        return None
    var = {b: laws[b].params[1] ** 2 for b in bases}
    cov = sum(cv[b] * weights.get(b, 0) * var[b] for b in bases)
    var_v = sum(cv[b] ** 2 * var[b] for b in bases)
    var_l = sum(weights.get(b, 0) ** 2 * var[b] for b in bases)
    resid = sp.simplify(var_v * var_l - cov**2)  # = var_v var_l (1 - rho^2)
    if _is_zero(resid):
        return sp.log(2)
    lam = sp.simplify(cov / sp.sqrt(resid))
    return skew_normal_mi(lam)
