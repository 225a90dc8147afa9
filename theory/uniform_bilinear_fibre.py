r"""E[H_b(P(C = 1 | V))] for a linear feature V = alpha X + beta Z + gamma of two independent
uniform coordinates and a class rule affine in one more uniform variable Y, with coefficients
affine in (X, Z): C = 1{A(X, Z) Y + B(X, Z) >= 0} (``X Y + k Z >= 1/2`` on the unit cube).

Formulas. On the fibre {V = v}, z = (v - gamma - alpha x) / beta, and A, B become
``A = a0(v) + a1 x``, ``B = b0(v) + b1 x`` (a0, b0 affine in v; a1, b1 constants). Given (x, z),
with Y ~ Unif(y_lo, y_hi), Delta = y_hi - y_lo and t = -B/A,

    q_1 = P(Y >= t) = clip((y_hi + B/A) / Delta)   (A > 0),
    q_1 = P(Y <= t) = clip((-B/A - y_lo) / Delta)  (A < 0),

clipped to [0, 1], and q_0 = 1 - q_1 is the other expression (each computed directly). The x
axis of a fibre is cut at the box ends of x and of z, at A = 0 and at A y_lo + B = 0,
A y_hi + B = 0: each cut is x = r0 + r1 v, so between the values of v where two cuts cross
(exact rationals) the cells keep their order and on each cell q_c is 0, 1 or
``(c + s B/A)/Delta``, whose integral in x is closed:

    int B/A dx = (b1/a1)(x1 - x0) + ((b0 a1 - b1 a0)/a1^2) ln(A(x1)/A(x0))   (a1 != 0),
    int B/A dx = (b0 (x1 - x0) + b1 (x1^2 - x0^2)/2) / a0                      (a1 == 0).

With J = 1/(L_x L_z |beta|) (the uniform densities and dz = dv/|beta|),
``f_{V,c}(v) = J sum_cells int q_c dx`` and ``f_V = f_{V,1} + f_{V,0}``, and

    E[H_b(P(C = 1 | V))] = int (f ln f - f_1 ln f_1 - f_0 ln f_0) dv,

one certified integral (arb's ``acb.integral``) per piece between the crossings: its
integrand is analytic inside a piece (the logarithm's argument A(x1)/A(x0) stays positive
there, flagged non-analytic on complex balls that meet the cut). No truncation: the laws have
bounded support, so the error is arb's rigorous radius.
"""

from __future__ import annotations

from fractions import Fraction

import sympy as sp
from flint import acb, arb

from fstheory.theory.balls import ball, rational_fraction, xlogx
from fstheory.theory.quadrature import certified

__all__ = ["uniform_bilinear_class_average"]


def _uniform_bounds(coord, laws):
    """(lo, hi) of a coordinate that is one uniform base variable, else None."""
    from fstheory.theory.laws import Uniform

    if len(coord.coefs) != 1:
        return None
    ((base, coef),) = coord.coefs.items()
    if coef != 1 or not isinstance(laws.get(base), Uniform):
        return None
    lo, hi = (rational_fraction(p) for p in laws[base].params)
    if lo is None or hi is None:
        return None
    return lo, hi


class _Lin:
    """c0 + c1 v with exact rational coefficients."""

    __slots__ = ("c0", "c1")

    def __init__(self, c0, c1=Fraction(0)):
        self.c0, self.c1 = Fraction(c0), Fraction(c1)

    def at(self, v):
        if isinstance(v, Fraction):
            return self.c0 + self.c1 * v
        return ball(self.c0) + ball(self.c1) * v


def _setup(system, laws):
    """The exact data of the fibre, or None where the hypotheses do not hold."""
    if len(system.coords) != 2 or system.rest is not None or len(system.remaining) != 1 \
            or system.inner or len(system.features) != 1:
        return None
    bx = _uniform_bounds(system.coords[0], laws)
    bz = _uniform_bounds(system.coords[1], laws)
    by = _uniform_bounds(system.remaining[0], laws)
    if None in (bx, bz, by):
        return None
    xs, zs = system.symbols
    ys = system.remaining[0].symbol
    (f,) = system.features
    try:
        pf = sp.Poly(sp.expand(f), xs, zs)
        pr = sp.Poly(sp.expand(system.form), ys, xs, zs)
    except sp.PolynomialError:
        return None
    if pf.total_degree() != 1 or pr.degree(ys) > 1:
        return None
    alpha, beta = rational_fraction(pf.coeff_monomial(xs)), rational_fraction(pf.coeff_monomial(zs))
    gamma = rational_fraction(pf.coeff_monomial(1))
    if None in (alpha, beta, gamma) or alpha == 0 or beta == 0:
        return None
    coef = {}
    for name, part in (("A", sp.expand(sp.diff(system.form, ys))),
                       ("B", sp.expand(system.form.subs(ys, 0)))):
        try:
            p = sp.Poly(part, xs, zs)
        except sp.PolynomialError:
            return None
        if part.free_symbols - {xs, zs} or p.total_degree() > 1:
            return None
        c = [rational_fraction(p.coeff_monomial(m)) for m in (1, xs, zs)]
        if None in c:
            return None
        # on the fibre z = (v - gamma - alpha x)/beta
        coef[name] = (_Lin(c[0] - c[2] * gamma / beta, c[2] / beta), c[1] - c[2] * alpha / beta)
    if coef["A"][0].c0 == coef["A"][0].c1 == coef["A"][1] == 0:
        return None  # the class does not depend on Y
    return bx, bz, by, alpha, beta, gamma, coef


def _roots(data):
    """The cuts of the x axis as linear functions x = r(v) (and the values of v where a cut
    without x in it changes sign)."""
    (lx, hx), (lz, hz), (ly, hy), alpha, beta, gamma, coef = data
    (a0, a1), (b0, b1) = coef["A"], coef["B"]
    roots = [_Lin(lx), _Lin(hx)]
    for zb in (lz, hz):  # (v - gamma - beta zb)/alpha
        roots.append(_Lin(-(gamma + beta * zb) / alpha, 1 / alpha))
    sign_points = []
    for c0, c1 in ((a0, a1),
                   (_Lin(a0.c0 * ly + b0.c0, a0.c1 * ly + b0.c1), a1 * ly + b1),
                   (_Lin(a0.c0 * hy + b0.c0, a0.c1 * hy + b0.c1), a1 * hy + b1)):
        if c1 != 0:
            roots.append(_Lin(-c0.c0 / c1, -c0.c1 / c1))
        elif c0.c1 != 0:
            sign_points.append(-c0.c0 / c0.c1)
    return roots, sign_points


def _pieces(data):
    (lx, hx), (lz, hz), _, alpha, beta, gamma, _ = data
    corners = [alpha * x + beta * z + gamma for x in (lx, hx) for z in (lz, hz)]
    vlo, vhi = min(corners), max(corners)
    roots, pts = _roots(data)
    for i, r in enumerate(roots):
        for s in roots[i + 1:]:
            if r.c1 != s.c1:
                pts.append((s.c0 - r.c0) / (r.c1 - s.c1))
    pts = sorted({p for p in pts if vlo < p < vhi} | {vlo, vhi})
    return roots, list(zip(pts, pts[1:]))


def _cells(data, roots, vm: Fraction):
    """[(lower, upper, kind, sign of A)] on the piece of the exact midpoint vm: kind is (class, None) for
    q_class = 1 on the cell, or (sign, const) for q_1 = (const + sign B/A)/Delta inside."""
    (lx, hx), (lz, hz), (ly, hy), alpha, beta, gamma, coef = data
    (a0, a1), (b0, b1) = coef["A"], coef["B"]
    ordered = sorted(roots, key=lambda r: r.at(vm))
    out = []
    for lo, hi in zip(ordered, ordered[1:]):
        x0, x1 = lo.at(vm), hi.at(vm)
        if not x0 < x1:
            continue
        xm = (x0 + x1) / 2
        zm = (vm - gamma - alpha * xm) / beta
        if not (lx < xm < hx and lz < zm < hz):
            continue
        A = a0.at(vm) + a1 * xm
        B = b0.at(vm) + b1 * xm
        if A == 0:
            return None  # the piece lies on A = 0 (a1 = 0 and a0(v) = 0): not a piece
        t = -B / A
        if A > 0:
            kind = (1, None) if t <= ly else (0, None) if t >= hy else (1, hy)
        else:
            kind = (0, None) if t <= ly else (1, None) if t >= hy else (-1, -ly)
        out.append((lo, hi, kind, 1 if A > 0 else -1))
    return out


def _log_ratio(n0, absA0, absA1, a1, v, an):
    """n0 (ln|A1| - ln|A0|), the product written kappa x ln x where n0 = kappa |A_j| as linear
    functions of v (both vanish where the cell's end meets A = 0, a piece end): an enclosure
    that stays finite on real balls reaching it."""
    out = 0
    for absA, side in ((absA1, 1), (absA0, -1)):
        if absA.c1 != 0 and n0.c0 * absA.c1 == n0.c1 * absA.c0:
            term = ball(n0.c1 / absA.c1) * xlogx(absA.at(v), an)
        else:
            w = absA.at(v)
            term = n0.at(v) * (w.log(analytic=an) if isinstance(w, acb) else w.log())
        out = out + side * term
    return out


def _phi2(r, an):
    """(r - ln(1 + r)) / r^2, by its series sum (-r)^k/(k + 2) for |r| <= 1/2 (no cancellation
    on balls near 0), else directly."""
    if abs(acb(r)).upper() <= arb(1) / 2:
        return _series(r, lambda k: arb(1) / (k + 2))
    lg = (1 + r).log(analytic=an) if isinstance(r, acb) else (1 + r).log()
    return (r - lg) / (r * r)


def _psi1(r, an):
    """ln(1 + r) / r, by its series sum (-r)^k/(k + 1) for |r| <= 1/2."""
    if abs(acb(r)).upper() <= arb(1) / 2:
        return _series(r, lambda k: arb(1) / (k + 1))
    lg = (1 + r).log(analytic=an) if isinstance(r, acb) else (1 + r).log()
    return lg / r


def _series(r, coef):
    """sum_k coef(k) (-r)^k for |r| <= 1/2 with coef(k) <= 1, the tail after n terms bounded
    by 2 |r|^n."""
    from flint import ctx

    n = ctx.prec + 10
    total, power = 0 * r, 1 + 0 * r
    for k in range(n):
        total += coef(k) * power
        power *= -r
    rad = arb(2) * abs(acb(r)).upper() ** n
    if isinstance(total, acb):
        return total + acb(arb(0, rad), arb(0, rad))
    return total + arb(0, rad)


def _cell_integral(N, coef, lo, hi, sign, v, an):
    """int N/A dx over the cell [lo(v), hi(v)], N = n0(v) + n1 x linear in x, A of sign
    ``sign`` on it. With u = x - x0, L = x1 - x0, rho = a1 L / A(x0):

        int = N(x0) L / A(x0) psi1(rho) + n1 L^2 / A(x0) phi2(rho)

    (psi1 = ln(1+r)/r, phi2 = (r - ln(1+r))/r^2), free of cancellation where the cell is
    short (L -> 0) or N vanishes at its end; where |rho| > 1/2 the logarithms are written out,
    their products with a vanishing factor as x ln x (:func:`_log_ratio`)."""
    (a0, a1) = coef["A"]
    (nv, n1) = N
    x0, x1 = lo.at(v), hi.at(v)
    L = x1 - x0
    N0 = _Lin(nv.c0 + n1 * lo.c0, nv.c1 + n1 * lo.c1)
    A0 = _Lin(a0.c0 + a1 * lo.c0, a0.c1 + a1 * lo.c1)
    if a1 == 0:
        return (N0.at(v) * L + ball(n1) * L * L / 2) / A0.at(v)
    A0v = A0.at(v)
    rho = ball(a1) * L / A0v
    if abs(acb(rho)).upper() <= arb(1) / 2:
        out = L / A0v * (N0.at(v) * _psi1(rho, an) + ball(n1) * L * _phi2(rho, an))
        return out
    A1 = _Lin(a0.c0 + a1 * hi.c0, a0.c1 + a1 * hi.c1)
    absA0 = _Lin(sign * A0.c0, sign * A0.c1)
    absA1 = _Lin(sign * A1.c0, sign * A1.c1)
    # N0/a1 ln(A1/A0) + n1 (L/a1 - A0/a1^2 ln(A1/A0))
    m = _Lin((N0.c0 * a1 - n1 * A0.c0) / a1 ** 2, (N0.c1 * a1 - n1 * A0.c1) / a1 ** 2)
    return ball(n1 / a1) * L + _log_ratio(m, absA0, absA1, a1, v, an)


def _densities(data, cells):
    """v -> (f_1, f_0) (times 1/J) on complex or real balls of the piece."""
    (lx, hx), (lz, hz), (ly, hy), *_, coef = data
    delta = ball(hy - ly)
    (a0, a1), (b0, b1) = coef["A"], coef["B"]

    def numerator(c, s):
        # c A + s B, linear in x with coefficients in v
        return (_Lin(c * a0.c0 + s * b0.c0, c * a0.c1 + s * b0.c1), c * a1 + s * b1)

    def at(v, an):
        zero = acb(0) if isinstance(v, acb) else arb(0)
        f1, f0 = zero, zero
        for lo, hi, (s, c), a_sign in cells:
            if c is None:
                if s == 1:
                    f1 += hi.at(v) - lo.at(v)
                else:
                    f0 += hi.at(v) - lo.at(v)
                continue
            # q_1 = (c A + s B)/(A Delta), q_0 = ((Delta - c) A - s B)/(A Delta)
            f1 += _cell_integral(numerator(c, s), coef, lo, hi, a_sign, v, an) / delta
            f0 += _cell_integral(numerator(hy - ly - c, -s), coef, lo, hi, a_sign, v, an) / delta
        return f1, f0

    return at


def _xlogx(z, an):
    if isinstance(z, acb) and not an and (z.real.contains(0) or z.real < 0):
        return acb(xlogx(z.real))
    return xlogx(z, an)


def uniform_bilinear_class_average(system, laws: dict, acc):
    """(E[H_b(P(C = 1 | V))], error bound) (module docstring), or None where the hypotheses do
    not hold. Raises :class:`~fstheory.theory.quadrature.QuadratureError` when a piece's
    certified integral does not converge."""
    data = _setup(system, laws)
    if data is None:
        return None
    (lx, hx), (lz, hz), _, _, beta, _, _ = data
    J = ball(1 / ((hx - lx) * (hz - lz) * abs(beta)))
    roots, pieces = _pieces(data)
    total, err = arb(0), arb(0)
    tol = acc.tol / (4 * max(1, len(pieces)))
    for va, vb in pieces:
        cells = _cells(data, roots, (va + vb) / 2)
        if cells is None:
            return None
        kinds = [kind for _, _, kind, _ in cells]
        if len({k[0] for k in kinds}) < 2 and all(k[1] is None for k in kinds):
            continue  # one class on the whole piece: H_b = 0
        dens = _densities(data, cells)

        def g(v, an, dens=dens):
            if isinstance(v, acb) and not an and v.imag.is_zero():
                v = v.real
            f1, f0 = dens(v, an)
            f1, f0 = J * f1, J * f0
            return _xlogx(f1 + f0, an) - _xlogx(f1, an) - _xlogx(f0, an)

        v, e = certified(lambda m, g=g: g, [ball(va), ball(vb)], tol)
        total, err = total + v, err + e
    return total, err
