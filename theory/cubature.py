"""Certified integration over two coordinates: tensor Gauss-Legendre rules with a proved error.

A rectangle ``[a, b] x [c, d]`` is integrated by the product of two Gauss-Legendre rules (n_x and
n_y nodes). For f analytic on a neighbourhood of the rectangle, write the error of the product
rule as ``(I_x - Q_x) (x) I_y + Q_x (x) (I_y - Q_y)``. The one-dimensional bound (Trefethen,
*Approximation Theory and Approximation Practice*, Thm 19.3; the bound arb's own integration
uses): for g analytic inside the Bernstein ellipse E_rho of [-1, 1] with |g| <= M there,
``|I g - Q_n g| <= 64 M / (15 (1 - rho^-2) rho^(2n))``. Applied to ``x -> int f(x, y) dy``
(|.| <= 2 M_x on E_rho x [-1, 1]) and, through the positive weights summing to 2, to each
``y -> f(x_i, y)`` (|.| <= M_y on [-1, 1] x E_rho), and scaled by the Jacobian ``hx hy`` of the
rectangle's map to ``[-1, 1]^2``:

    |I f - Q f| <= hx hy (64 / 15) (2 M_x / ((1 - rho_x^-2) rho_x^(2 n_x))
                                   + 2 M_y / ((1 - rho_y^-2) rho_y^(2 n_y))).

M_x and M_y are enclosed by evaluating f on complex balls that cover the ellipse (a few boxes
along its axis, so that a pole or branch cut inside it shows as a non-finite value, never missed)
times real balls that cover the other side. Each rectangle tries rho in (2, 4, 8) and
takes the fewest nodes that meet its share of the tolerance, rho = 2 first (a larger rho only
helps when the bound on E_2 is finite); if no rho gives a finite bound with
at most :data:`MAX_NODES` nodes in a direction, the rectangle is bisected in that direction.
A rectangle on which f, enclosed on the real rectangle as one ball, contributes less than its
share (or less than 1/256 of the whole tolerance, however deep: the pieces next to an edge
singularity) is accepted from that enclosure alone; the errors of all rectangles are summed, so
the returned error is a bound even when it exceeds the tolerance. The node values are balls, so rounding is in the
result's radius too; the returned error is a bound.

Curvilinear cells ``{a <= x <= b, L(x) <= y <= U(x)}`` (the pieces between cut curves of an
integrand) are mapped to ``[a, b] x [0, 1]`` by ``y = L(x) + t (U(x) - L(x))``, L and U analytic on
the piece (:func:`cell`).

Examples
--------
>>> from flint import arb, ctx
>>> from fstheory.theory.quadrature import flint_precision
>>> with flint_precision(120):
...     v, e = rectangle(lambda x, y, an: (-(x * x + y * y)).exp(), arb(-12), arb(12), arb(-12), arb(12),
...                      arb(10) ** -30)
...     print(v.str(20, radius=False), e < arb(10) ** -30)
3.1415926535897932385 True
"""

from __future__ import annotations

from functools import lru_cache

from flint import acb, arb, ctx

from fstheory.theory.quadrature import QuadratureError, check_time, flint_precision, spend

__all__ = ["rectangle", "cell", "MAX_NODES"]

#: most nodes per direction on one rectangle before it is bisected
MAX_NODES = 40
#: deepest bisection of a rectangle (an edge singularity, x ln x of a density vanishing at a
#: support end, is approached geometrically: about log2(1/tol) levels)
MAX_DEPTH = 200
#: share of the tolerance under which a rectangle is accepted from its real enclosure alone,
#: whatever its depth (the errors are summed and returned, so the total stays bounded)
_FLOOR = 256
_RHOS = (2, 4, 8)
_BOXES = 4  # complex boxes covering an ellipse, and real balls covering the other side


def _gauss_legendre(n: int) -> tuple:
    return _gauss_legendre_at(n, ctx.prec)


@lru_cache(maxsize=256)
def _gauss_legendre_at(n: int, prec: int) -> tuple:
    """(node, weight) balls of the n-point Gauss-Legendre rule at ``prec`` bits."""
    with flint_precision(prec):
        return tuple(arb.legendre_p_root(n, k, weight=True) for k in range(n))


def _ellipse_cover(rho) -> tuple:
    """Complex balls whose union contains the Bernstein ellipse E_rho of [-1, 1]."""
    return _ellipse_cover_at(rho, ctx.prec)


@lru_cache(maxsize=64)
def _ellipse_cover_at(rho, prec: int) -> tuple:
    with flint_precision(prec):
        r = arb(rho)
        a, b = (r + 1 / r) / 2, (r - 1 / r) / 2
        out = []
        for j in range(_BOXES):
            lo, hi = -a + 2 * a * j / _BOXES, -a + 2 * a * (j + 1) / _BOXES
            near = arb(0) if (lo <= 0 <= hi) else min(abs(lo), abs(hi))
            h = b * (1 - (near / a) ** 2).sqrt()
            out.append(acb(arb((lo + hi) / 2, ((hi - lo) / 2).upper()), arb(0, h.upper())))
        return tuple(out)


def _real_cover() -> list:
    return [arb(-1 + (2 * j + arb(1)) / _BOXES, arb(1) / _BOXES) for j in range(_BOXES)]


def _sup(f, xs, ys):
    """max |f| over the products of the balls, or None when f is not finite on one."""
    top = arb(0)
    for x in xs:
        for y in ys:
            v = f(x, y)
            if not v.is_finite():
                return None
            m = abs(v).upper()
            if m > top:
                top = m
    spend(len(xs) * len(ys))
    return top


def _nodes_needed(C: arb, tol: arb, rho) -> int | None:
    """Fewest n with C / rho^(2n) <= tol (None: more than MAX_NODES)."""
    if C.is_zero():
        return 1
    need = (C / tol).log() / (2 * arb(rho).log())
    if not need.is_finite():
        return None
    if need <= 1:
        return 1
    n = int(need.upper().floor().unique_fmpz()) + 1
    return n if n <= MAX_NODES else None


def _direction(g, area, tol, along_x: bool):
    """(n, rho, constant) for one direction of the product rule, or None."""
    for rho in _RHOS:
        ell, line = _ellipse_cover(rho), _real_cover()
        M = _sup(g, ell, line) if along_x else _sup(g, line, ell)
        if M is None:
            return None  # not holomorphic (or not enclosed) on E_rho: larger rho fail too
        r = arb(rho)
        C = area * 64 * 2 * M / (15 * (1 - 1 / (r * r)))
        n = _nodes_needed(C, tol, rho)
        if n is not None:
            return n, r, C
    return None


def _as_real(v):
    return v.real if isinstance(v, acb) else v


def rectangle(f, a: arb, b: arb, c: arb, d: arb, tol: arb, depth: int = 0, floor=None):
    """(value, error bound) of the integral of ``f(x, y, analytic)`` over [a, b] x [c, d].

    ``f`` is evaluated on real balls (nodes, enclosures) and on complex balls (the ellipse
    bounds, with ``analytic=True``: it must then return a non-finite ball where it is not
    holomorphic). Raises :class:`~fstheory.theory.quadrature.QuadratureError` when a rectangle
    cannot be brought below its share after :data:`MAX_DEPTH` bisections."""
    check_time()
    floor = tol / _FLOOR if floor is None else floor
    hx, hy = (b - a) / 2, (d - c) / 2
    cx, cy = (a + b) / 2, (c + d) / 2
    area = hx * hy
    whole = _as_real(f(arb(cx, hx.upper()), arb(cy, hy.upper()), False))
    spend(1)
    if whole.is_finite() and 4 * area * abs(whole).upper() <= max(tol, floor):
        return 4 * area * whole.mid(), arb((4 * area * abs(whole).upper()).upper())

    def g(xi, eta):
        return f(cx + hx * xi, cy + hy * eta, True)

    rule_x = _direction(g, area, tol / 2, True)
    rule_y = _direction(g, area, tol / 2, False) if rule_x is not None else None
    if rule_x is None or rule_y is None:
        if depth >= MAX_DEPTH:
            raise QuadratureError(f"certified cubature did not converge on "
                                  f"[{a.str(8)}, {b.str(8)}] x [{c.str(8)}, {d.str(8)}]")
        if rule_x is None:
            m = ((a + b) / 2).mid()
            v1, e1 = rectangle(f, a, m, c, d, tol / 2, depth + 1, floor)
            v2, e2 = rectangle(f, m, b, c, d, tol / 2, depth + 1, floor)
        else:
            m = ((c + d) / 2).mid()
            v1, e1 = rectangle(f, a, b, c, m, tol / 2, depth + 1, floor)
            v2, e2 = rectangle(f, a, b, m, d, tol / 2, depth + 1, floor)
        return v1 + v2, e1 + e2
    (nx, rx, Cx), (ny, ry, Cy) = rule_x, rule_y
    spend(nx * ny)
    total = arb(0)
    ys = [(cy + hy * eta, w) for eta, w in _gauss_legendre(ny)]
    for xi, wx in _gauss_legendre(nx):
        x = cx + hx * xi
        inner = arb(0)
        for y, wy in ys:
            inner += wy * _as_real(f(x, y, False))
        total += wx * inner
    total *= area
    err = Cx / rx ** (2 * nx) + Cy / ry ** (2 * ny) + total.rad()
    if not total.is_finite():
        raise QuadratureError("the integrand is not finite at a node of the cubature")
    return total.mid(), arb(err.upper())


def cell(f, lower, upper):
    """The integrand of the curvilinear cell L(x) <= y <= U(x) on the rectangle [a, b] x [0, 1]:
    ``(x, t, an) -> f(x, L(x) + t (U(x) - L(x)), an) (U(x) - L(x))``."""

    def g(x, t, an):
        lo, hi = lower(x), upper(x)
        width = hi - lo
        return f(x, lo + t * width, an) * width

    return g
