"""Reference values for tests/theory/test_uniform_linear_pair.py and test_uniform_product_pair.py:
h(V1, V2) of two linear forms V_i = a_i X + b_i Y + c_i Z, and of a product and a sum
(c X Y + a X + e, b X + g Z + d), of X, Y, Z ~ Unif(0, 1), by mpmath's tanh-sinh quadrature of
-f ln f, nested (v1 inside v2), at 34 digits (about half a minute per pair).

The density is written independently of the exact-cell route: for fixed Z = z the pair is an
invertible map of (X, Y) (the (X, Y) minor is not singular), so
``f(v) = len{z in [0, 1] : (X, Y)(v, z) in [0, 1]^2} / |det|``, the s-interval taken from the
six bounds directly. The quadrature's break points are a superset of the kinks: every v1 where
two bounds meet (inside), every v2 where two such lines cross (outside).

For the products, f(v) = int_0^1 1{Y(s) in [0, 1]} 1{Z(s) in [0, 1]} ds / |c g s| with
Y(s) = (v1 - e - a s) / (c s), Z(s) = (v2 - d - b s) / g: the admissible s are found from the
roots of Y = 0, 1 and Z = 0, 1 (each affine in v), sorted, each gap tested at its midpoint, and
f = sum ln(end / start) / |c g|; the kinks are where two roots (or a root and 0 or 1) meet.

Usage: python scripts/uniform_linear_pair_reference.py [OUT]
(default tests/data/uniform_linear_pair_reference.json)
"""

from __future__ import annotations

import itertools
import json
import sys
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parent.parent
DPS = 34

#: (name, (a1, b1, c1), (a2, b2, c2)) with a1 b2 - a2 b1 != 0
PAIRS = [
    ("2X-3Y+Z, X+Y", (2, -3, 1), (1, 1, 0)),
    ("X+Z, Y+Z", (1, 0, 1), (0, 1, 1)),
    ("X-Y+2Z, 3X+Y-Z", (1, -1, 2), (3, 1, -1)),
]


def bounds(r1, r2):
    """The constraints alpha z + beta0 + beta1 v1 + beta2 v2 >= 0 of the fibre, and |det|."""
    F = mpmath.mpf
    a1, b1, c1 = map(F, r1)
    a2, b2, c2 = map(F, r2)
    det = a1 * b2 - a2 * b1
    # X = (b2 (v1 - c1 z) - b1 (v2 - c2 z)) / det, Y = (a1 (v2 - c2 z) - a2 (v1 - c1 z)) / det
    x = ((-b2 * c1 + b1 * c2) / det, F(0), b2 / det, -b1 / det)
    y = ((-a1 * c2 + a2 * c1) / det, F(0), -a2 / det, a1 / det)
    cons = [(F(1), F(0), F(0), F(0)), (F(-1), F(1), F(0), F(0))]
    for form in (x, y):
        cons.append(form)
        cons.append((-form[0], 1 - form[1], -form[2], -form[3]))
    return cons, abs(det)


def entropy(r1, r2) -> mpmath.mpf:
    cons, det = bounds(r1, r2)

    def f(v1, v2):
        lo, hi = -mpmath.inf, mpmath.inf
        for a, b0, b1, b2 in cons:
            val = b0 + b1 * v1 + b2 * v2
            if a == 0:
                if val < 0:
                    return mpmath.mpf(0)
                continue
            t = -val / a
            lo, hi = (max(lo, t), hi) if a > 0 else (lo, min(hi, t))
        return max(mpmath.mpf(0), hi - lo) / det

    lines = []
    for (a, *b), (c, *d) in itertools.combinations([k for k in cons if k[0] != 0], 2):
        lines.append(tuple(bi / a - di / c for bi, di in zip(b, d)))
    span = sum(abs(x) for x in r1) + sum(abs(x) for x in r2) + 1
    v2s = {mpmath.mpf(-span), mpmath.mpf(span)}
    for p, q in itertools.combinations(lines, 2):
        den = p[1] * q[2] - p[2] * q[1]
        if den != 0:
            v2 = (p[1] * -q[0] - q[1] * -p[0]) / den
            if -span < v2 < span:
                v2s.add(v2)

    def inner(v2):
        pts = {mpmath.mpf(-span), mpmath.mpf(span)}
        for k in lines:
            if k[1] != 0:
                v1 = -(k[0] + k[2] * v2) / k[1]
                if -span < v1 < span:
                    pts.add(v1)

        def g(v1):
            t = f(v1, v2)
            return -t * mpmath.log(t) if t > 0 else mpmath.mpf(0)
        return mpmath.quad(g, sorted(pts))

    return mpmath.quad(inner, sorted(v2s))


#: (name, (c, a, e), (b, g, d))
PRODUCTS = [
    ("XY, X+Z", (1, 0, 0), (1, 1, 0)),
    ("2XY+X-1, -X+3Z+2", (2, 1, -1), (-1, 3, 2)),
    ("-XY+2X, X-2Z", (-1, 2, 0), (1, -2, 0)),
]


def product_entropy(p1, p2) -> mpmath.mpf:
    F = mpmath.mpf
    c, a, e = map(F, p1)
    b, g, d = map(F, p2)
    # roots in s, each (k0 + k1 v1 + k2 v2) / den
    roots = [(F(0), F(0), F(0), F(1)), (F(1), F(0), F(0), F(1))]
    for ty in (0, 1):  # c s ty = v1 - e - a s  ->  s = (v1 - e) / (a + c ty)
        if a + c * ty != 0:
            roots.append((-e, F(1), F(0), a + c * ty))
    for tz in (0, 1):  # g tz = v2 - d - b s  ->  s = (v2 - d - g tz) / b
        if b != 0:
            roots.append((-d - g * tz, F(0), F(1), b))

    def f(v1, v2):
        cuts = sorted({min(F(1), max(F(0), (k0 + k1 * v1 + k2 * v2) / den))
                       for k0, k1, k2, den in roots})
        total = F(0)
        for lo, hi in zip(cuts, cuts[1:]):
            s = (lo + hi) / 2
            y, z = (v1 - e - a * s) / (c * s), (v2 - d - b * s) / g
            if 0 <= y <= 1 and 0 <= z <= 1:
                total += mpmath.log(hi / lo)
        return total / abs(c * g)

    lines = [tuple(r1[i] / r1[3] - r2[i] / r2[3] for i in range(3))
             for r1, r2 in itertools.combinations(roots, 2)]
    lines = [k for k in lines if k[1] != 0 or k[2] != 0]
    span = abs(c) + abs(a) + abs(e) + abs(b) + abs(g) + abs(d) + 1
    return _nested(f, lines, span)


def _nested(f, lines, span):
    v2s = {mpmath.mpf(-span), mpmath.mpf(span)}
    for p, q in itertools.combinations(lines, 2):
        den = p[1] * q[2] - p[2] * q[1]
        if den != 0:
            v2 = (p[1] * -q[0] - q[1] * -p[0]) / den
            if -span < v2 < span:
                v2s.add(v2)
    for k in lines:
        if k[1] == 0:
            v2 = -k[0] / k[2]
            if -span < v2 < span:
                v2s.add(v2)

    def inner(v2):
        pts = {mpmath.mpf(-span), mpmath.mpf(span)}
        for k in lines:
            if k[1] != 0:
                v1 = -(k[0] + k[2] * v2) / k[1]
                if -span < v1 < span:
                    pts.add(v1)

        def g(v1):
            t = f(v1, v2)
            return -t * mpmath.log(t) if t > 0 else mpmath.mpf(0)
        return mpmath.quad(g, sorted(pts))

    return mpmath.quad(inner, sorted(v2s))


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else ROOT / "tests" / "data" / "uniform_linear_pair_reference.json"
    values = {}
    with mpmath.workdps(DPS):
        for name, r1, r2 in PAIRS:
            values[name] = {"rows": [list(r1), list(r2)],
                            "h": mpmath.nstr(entropy(r1, r2), DPS - 2)}
            print(name, values[name]["h"], file=sys.stderr)
        for name, p1, p2 in PRODUCTS:
            values[name] = {"product": [list(p1), list(p2)],
                            "h": mpmath.nstr(product_entropy(p1, p2), DPS - 2)}
            print(name, values[name]["h"], file=sys.stderr)
    doc = {"about": __doc__.splitlines()[0] + " (scripts/uniform_linear_pair_reference.py)",
           "digits": DPS - 2, "pairs": values}
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(doc, indent=1) + "\n")
    tmp.replace(out)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
