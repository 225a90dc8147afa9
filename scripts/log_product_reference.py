"""E[H_b(P(C = 1 | X Y))], X ~ Exp(1), Y ~ Exp(2), C = 1{X + Y/2 >= 1}, by mpmath (45 digits).

The reference value of tests/theory/test_log_product.py, by mpmath's tanh-sinh quadrature,
independently of the ln|XY| route: the density of U = X Y is closed, f(u) = 4 K_0(2 sqrt(2u))
(int_0^inf exp(-x - a/x) dx/x = 2 K_0(2 sqrt a)); for u < 1/2 class 0 is the fibre piece
x- < x < x+, x+- = (1 +- w)/2, w = sqrt(1 - 2u), with density f_0(u) = int 2 e^(-x - 2u/x) dx/x
there, and for u >= 1/2 the class is 1 (H_b = 0). In w the square root at u = 1/2 is gone:

    E[H_b] = int_0^1 (f ln f - f_1 ln f_1 - f_0 ln f_0)(u(w)) w dw,  f_1 = f - f_0.

Usage: python scripts/log_product_reference.py [OUT]
(default tests/data/log_product_reference.json; about 15 s)
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parent.parent
DPS = 45


def _xlogx(v):
    return v * mpmath.log(v) if v > 0 else mpmath.mpf(0)


def class_average() -> mpmath.mpf:
    def integrand(w):
        u = (1 - w * w) / 2
        f = 4 * mpmath.besselk(0, 2 * mpmath.sqrt(2 * u))
        f0 = mpmath.quad(lambda x: 2 * mpmath.exp(-x - 2 * u / x) / x, [(1 - w) / 2, (1 + w) / 2])
        return (_xlogx(f) - _xlogx(f - f0) - _xlogx(f0)) * w

    pts = [0, mpmath.mpf("0.5"), mpmath.mpf("0.9"), mpmath.mpf("0.99"), mpmath.mpf("0.9999"), 1]
    return mpmath.quad(integrand, pts)


def main(argv=None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0]) if argv else ROOT / "tests/data/log_product_reference.json"
    with mpmath.workdps(DPS):
        value = mpmath.nstr(class_average(), DPS - 5)
    print(value, file=sys.stderr)
    data = {"about": __doc__.splitlines()[0], "digits": DPS - 5,
            "exp1_exp2_x_plus_half_y_ge_1": value}
    tmp = out.with_suffix(".tmp")
    tmp.write_text(json.dumps(data, indent=1) + "\n")
    tmp.replace(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
