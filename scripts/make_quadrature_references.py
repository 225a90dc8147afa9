"""Generate tests/data/quadrature_references.json: mpmath references written from the laws.

Some tests check the engine against a second route written in the test from the base laws, by
mpmath quadrature in another order of integration. Where that route is a nested quadrature at
30-45 digits it costs seconds on every run although it never changes (it uses no fstheory code),
so, as scipy does with its mpmath reference files, it is computed once here and stored beside the
tests, each value with the digits it was computed to. The formulas are those the tests describe
in their docstrings.

Usage: ``python scripts/make_quadrature_references.py`` (about 10 s).
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "quadrature_references.json"


def hb(p):
    """Binary entropy in nats (0 at 0 and 1)."""
    return -mpmath.fsum(t * mpmath.log(t) for t in (p, 1 - p) if t > 0)


def _clip(t):
    return min(mpmath.mpf(1), max(mpmath.mpf(0), t))


def _cuts(ends, inner):
    lo, hi = ends
    return [lo, *sorted(p for p in inner if lo < p < hi), hi]


def three_variable_rule() -> dict:
    """Uniform X, Y, Z on [-1, 1], C = 1{X + Y/2 + Z >= 0} (k = 1/2). With S = Y/2 + Z
    (trapezoidal on [-3/2, 3/2]), P(C = 1 | X = x) = P(S >= -x); given V = X + Y = v, Y is uniform
    on its range and P(C = 1 | v) = E[P(Z >= Y/2 - v) | V = v]. 30 digits."""
    with mpmath.workdps(30):
        def sf_s(t):  # P(Y/2 + Z >= t) = E_Y[P(Z >= t - Y/2)]
            return mpmath.quad(lambda y: _clip((1 - t + y / 2) / 2) / 2,
                               _cuts([-1, 1], [2 * (t - 1), 2 * (t + 1)]))

        mi_x = mpmath.log(2) - mpmath.quad(lambda x: hb(sf_s(-x)) / 2, [-1, -mpmath.mpf(1) / 2, 0,
                                                                        mpmath.mpf(1) / 2, 1])

        def p_given_v(t):
            lo, hi = max(-1, t - 1), min(1, t + 1)
            return mpmath.quad(lambda y: _clip((1 + t - y / 2) / 2),
                               _cuts([lo, hi], [2 * (t + 1), 2 * (t - 1)])) / (hi - lo)

        half = mpmath.mpf(1) / 2
        mi_xy = mpmath.log(2) - mpmath.quad(
            lambda t: (2 - abs(t)) / 4 * hb(p_given_v(t)), [k * half for k in range(-4, 5)])
        h3 = -2 * (mpmath.quad(lambda s: (3 - s * s) / 8 * mpmath.log((3 - s * s) / 8), [0, 1])
                   + mpmath.quad(lambda s: (3 - s) ** 2 / 16 * mpmath.log((3 - s) ** 2 / 16), [1, 3]))
        return {"digits": 30, "mi_c_x": mi_x, "mi_c_x_plus_y": mi_xy, "h_x_plus_y_plus_z": h3}


def abs_difference_class() -> dict:
    """X, Y, Z ~ Unif(0, 1), C = 1{X + Y/2 + Z >= 1}: MI(C, |X - Y|), P(C = 1 | X - Y = w) from
    f_{W,1}(w) = int clip(x + y/2) dy over y with x = y + w in [0, 1]. 45 digits."""
    with mpmath.workdps(45):
        def f1(w):
            lo, hi = max(0, -w), min(1, 1 - w)
            # x + y/2 = y + w + y/2 crosses 1 at y = 2 (1 - w)/3
            cut = [c for c in (2 * (1 - w) / 3,) if lo < c < hi]
            return mpmath.quad(lambda y: min(1, y + w + y / 2), [lo, *cut, hi])

        def integrand(t):  # t = |X - Y| in (0, 1): both signs of w
            f = 2 * (1 - t)
            p = (f1(t) + f1(-t)) / f
            return f * hb(p)

        avg = mpmath.quad(integrand, [0, mpmath.mpf(1) / 4, mpmath.mpf(1) / 2, 1])
        # x + y/2 reaches 1 at y = 2 (1 - x), inside [0, 1] for x > 1/2: the kink placed
        pc = mpmath.quad(lambda x: mpmath.quad(lambda y: min(1, x + y / 2),
                                               [0, 2 * (1 - x), 1] if x > 0.5 else [0, 1]),
                         [0, mpmath.mpf(1) / 2, 1])
        return {"digits": 45, "mi_c_abs_difference": hb(pc) - avg}


def product_rule() -> dict:
    """X, Y, Z ~ Unif(0, 1), C = 1{XY + Z/2 >= 1/2}: P(C = 1 | X = x) =
    int_0^1 clip(2 x y) dy, with the kink at y = 1/(2x) placed. 45 digits."""
    with mpmath.workdps(45):
        half = mpmath.mpf(1) / 2

        def q(x):  # P(Z >= 1 - 2 x y): 2xy clipped to [0, 1]
            pts = [0, 1] if 2 * x <= 1 else [0, 1 / (2 * x), 1]
            return mpmath.quad(lambda y: min(1, 2 * x * y), pts)

        pc = mpmath.quad(q, [0, half, 1])
        return {"digits": 45, "h_c": hb(pc), "mi_c_x": hb(pc) - mpmath.quad(lambda x: hb(q(x)),
                                                                            [0, half, 1])}


REFERENCES = {
    "three_variable_rule": three_variable_rule,
    "abs_difference_class": abs_difference_class,
    "product_rule": product_rule,
}


def main() -> None:
    out = {}
    for name, make in REFERENCES.items():
        values = make()
        digits = values.pop("digits")
        with mpmath.workdps(digits + 10):
            out[name] = {"digits": digits, "doc": " ".join(make.__doc__.split()),
                         **{q: mpmath.nstr(v, digits + 5, min_fixed=-mpmath.inf, max_fixed=mpmath.inf)
                            for q, v in values.items()}}
    from reference_output import write_reference

    write_reference(OUT, json.dumps(out, indent=1) + "\n")
    print(f"wrote {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
