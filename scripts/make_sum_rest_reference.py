"""Reference values of MI(C, X) for two rules whose rest is a sum of an exponential and a
uniform variable, by mpmath at 40 digits, independently of the engine's PolyExp algebra.

The class probability given X = x is the rest's convolution integrated directly,
``q1(x) = int_0^inf lam e^(-lam y) F_U(a(x) + b y) dy`` (U the uniform variable, Y the
exponential one), and q0 the same with ``1 - F_U`` written as the uniform's survival function
(never 1 - q1, which would lose the far tail). Then
``MI(C, X) = H_b(P(C=1)) - int f_X(x) H_b(q1(x)) dx``, every integral split at the points where
the integrands' formulas change. Writes tests/data/sum_rest_reference.json.

Run: .venv/bin/python scripts/make_sum_rest_reference.py
"""

import json
from pathlib import Path

import mpmath as mp

DPS = 40
OUT = Path(__file__).resolve().parent.parent / "tests" / "data" / "sum_rest_reference.json"


def _clip(t):
    return mp.mpf(0) if t <= 0 else (mp.mpf(1) if t >= 1 else t)


def _rest_tails(lam, lo, hi, a, b):
    """(P(U <= a + b Y), P(U > a + b Y)) for Y ~ Exp(lam), U ~ U(lo, hi), b > 0, by quadrature
    of the convolution split where the uniform's CDF has a kink."""
    w = hi - lo
    kinks = sorted({y for y in ((lo - a) / b, (hi - a) / b) if y > 0})
    pts = [mp.mpf(0), *kinks, mp.inf]
    cdf = mp.quad(lambda y: lam * mp.exp(-lam * y) * _clip((a + b * y - lo) / w), pts)
    sf = mp.quad(lambda y: lam * mp.exp(-lam * y) * _clip((hi - a - b * y) / w), pts)
    return cdf, sf


def _hb(p1, p0):
    return -sum(p * mp.log(p) for p in (p1, p0) if p > 0)


def _mi(density, tails, breaks):
    pts = [-mp.inf, *breaks, mp.inf]
    p1 = mp.quad(lambda x: density(x) * tails(x)[0], pts)
    p0 = mp.quad(lambda x: density(x) * tails(x)[1], pts)
    avg = mp.quad(lambda x: density(x) * _hb(*tails(x)), pts)
    return _hb(p1, p0) - avg


def r13():
    """X ~ Laplace(0, 2), Y ~ Exp(3), Z ~ U(0, 1), C = 1{X + Y/2 - Z >= 1/3}: q1(x) =
    P(Z <= x - 1/3 + Y/2)."""
    density = lambda x: mp.exp(-abs(x) / 2) / 4  # noqa: E731
    tails = lambda x: _rest_tails(mp.mpf(3), mp.mpf(0), mp.mpf(1), x - mp.mpf(1) / 3, mp.mpf(1) / 2)  # noqa: E731
    return _mi(density, tails, [mp.mpf(0), mp.mpf(1) / 3, mp.mpf(4) / 3])


def r15():
    """X ~ Logistic(1, 1/2), Y ~ U(-2, 1), Z ~ Exp(1/2), C = 1{X + Z/2 - Y >= 1/2}: q1(x) =
    P(Y <= x - 1/2 + Z/2)."""
    def density(x):
        e = mp.exp(-abs(x - 1) * 2)
        return 2 * e / (1 + e) ** 2

    tails = lambda x: _rest_tails(mp.mpf(1) / 2, mp.mpf(-2), mp.mpf(1), x - mp.mpf(1) / 2, mp.mpf(1) / 2)  # noqa: E731
    return _mi(density, tails, [mp.mpf(-3) / 2, mp.mpf(1), mp.mpf(3) / 2])


def main():
    with mp.workdps(DPS):
        out = {"digits": DPS, "r13_mi_class_X": mp.nstr(r13(), DPS), "r15_mi_class_X": mp.nstr(r15(), DPS)}
    OUT.write_text(json.dumps(out, indent=1) + "\n")
    print(out)


if __name__ == "__main__":
    main()
