"""Generate tests/data/normal_conditioning_reference.json: MI(C, X - 3Y) for X ~ N(1/2, 1),
Y ~ N(-1, 4) and the rule X^2 + 2XY - Y^2 >= 1/2, by mpmath's quadrature along the fibres
{X - 3Y = v}: P(C = 1 | V = v) is the share of f_X(x) f_Y((x - v)/3) between the roots of the
rule (a quadratic in x on the fibre), then MI = H_b(P(C = 1)) - E[H_b(P(C = 1 | V))].

It is the second route of :mod:`fstheory.theory.normal_conditioning` (which writes the rule in
V and a normal residual instead); a nested mpmath quadrature takes about two minutes, so its
value is stored beside the test (``tests/theory/test_normal_conditioning.py``).

Usage: ``python scripts/make_conditioning_reference.py``
"""

from __future__ import annotations

import json
import sys
from functools import lru_cache
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "scripts"))

OUT = ROOT / "tests" / "data" / "normal_conditioning_reference.json"
DPS = 20


def _hb(p):
    return -p * mpmath.log(p) - (1 - p) * mpmath.log1p(-p) if 0 < p < 1 else mpmath.mpf(0)


def _form(x, y):
    return x * x + 2 * x * y - y * y - mpmath.mpf(1) / 2


@lru_cache(maxsize=None)
def _q1(v):
    """P(C = 1 | X - 3Y = v): along the fibre y = (x - v)/3 the form is a quadratic in x."""
    y = lambda x: (x - v) / 3  # noqa: E731
    c0 = _form(0, y(0))
    c2 = (_form(1, y(1)) + _form(-1, y(-1)) - 2 * c0) / 2
    c1 = (_form(1, y(1)) - _form(-1, y(-1))) / 2
    m = (v / 3 + mpmath.mpf(1) / 2) / 2
    pts = [m - 40, m + 40]
    disc = c1 * c1 - 4 * c2 * c0
    if disc > 0:
        roots = [(-c1 - mpmath.sqrt(disc)) / (2 * c2), (-c1 + mpmath.sqrt(disc)) / (2 * c2)]
        pts = sorted(pts + [t for t in roots if pts[0] < t < pts[1]])

    def dens(x):
        return mpmath.npdf(x, mpmath.mpf(1) / 2, 1) * mpmath.npdf(y(x), -1, 2)

    total = mpmath.quad(dens, pts)
    one = mpmath.fsum(mpmath.quad(dens, [a, b]) for a, b in zip(pts, pts[1:])
                      if _form((a + b) / 2, y((a + b) / 2)) >= 0)
    return one / total


def main() -> None:
    from reference_output import write_reference

    with mpmath.workdps(DPS):
        sv, mv = mpmath.sqrt(37), mpmath.mpf(7) / 2
        nodes = [mv + sv * t for t in (-12, -4, -1, 0, 1, 4, 12)]
        p1 = mpmath.quad(lambda v: mpmath.npdf(v, mv, sv) * _q1(v), nodes)
        avg = mpmath.quad(lambda v: mpmath.npdf(v, mv, sv) * _hb(_q1(v)), nodes)
        row = {"h_c": mpmath.nstr(_hb(p1), DPS - 2), "mi_c": mpmath.nstr(_hb(p1) - avg, DPS - 2)}
    write_reference(OUT, json.dumps({"dps": DPS, "values": row}, indent=1) + "\n")


if __name__ == "__main__":
    main()
