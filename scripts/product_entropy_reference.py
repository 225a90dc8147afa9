"""Reference values for tests/theory/test_product_entropy.py: h(R) for the standard products
R = R_1 R_2 (U ~ Unif(0, 1), E ~ Exp(1), H = |N(0, 1)|), by mpmath's tanh-sinh quadrature of
-f ln f in r itself, with the closed densities f of the product (E U: E1(r); H U: E1(r^2/2) /
sqrt(2 pi); E E: 2 K_0(2 sqrt r); H H: (2/pi) K_0(r)), at 34 digits (a few minutes).

Usage: python scripts/product_entropy_reference.py [OUT]
(default tests/data/product_entropy_reference.json)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parent.parent
DPS = 34

DENSITY = {
    "EU": lambda r: mpmath.e1(r),
    "HU": lambda r: mpmath.e1(r * r / 2) / mpmath.sqrt(2 * mpmath.pi),
    "EE": lambda r: 2 * mpmath.besselk(0, 2 * mpmath.sqrt(r)),
    "HH": lambda r: 2 / mpmath.pi * mpmath.besselk(0, r),
}


def entropy(f) -> mpmath.mpf:
    def g(r):
        v = f(r)
        return -v * mpmath.log(v) if v > 0 else mpmath.mpf(0)

    pts = [0, mpmath.mpf(10) ** -24, mpmath.mpf(10) ** -12, mpmath.mpf(10) ** -6,
           mpmath.mpf(10) ** -2, mpmath.mpf(1) / 2, 1, 3, 10, 30, 100, 400, 2000, mpmath.inf]
    return mpmath.quad(g, pts)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else ROOT / "tests/data/product_entropy_reference.json"
    values = {}
    with mpmath.workdps(DPS):
        for name, f in DENSITY.items():
            values[name] = mpmath.nstr(entropy(f), DPS - 2)
            print(name, values[name], file=sys.stderr, flush=True)
    data = {"about": __doc__.splitlines()[0], "digits": DPS - 2, "h_of_R": values}
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
