"""Generate tests/data/uniform_product_reference.json: E[H_b(P(C = 1 | X Y))] for uniform X, Y
and class rules of the kinds of :mod:`fstheory.theory.uniform_product`, by a route independent of
it: mpmath's double-exponential quadrature at 45 digits of the nested integral

    int [F ln F - F_1 ln F_1 - F_0 ln F_0](w) dw,   F_c(w) = int f_X(x) f_Y(w/x) q_c(x, w/x) dx/|x|,

with q_c evaluated from the rule directly (the class indicator, or the uniform rest's clamp),
the inner breakpoints the numerical roots (mpmath.polyroots) of the cuts on each fibre, and the
outer breakpoints derived by hand below (box corners, 0, tangencies of the fibre and the cut,
the cut meeting a box edge). The errors are estimates; the stored values agree with the same
computation at 40 digits to more than 33.

Usage: ``python scripts/make_uniform_product_reference.py`` (a few minutes on one core).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mpmath as mp

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "uniform_product_reference.json"
DPS = 45


def clamp(t):
    return min(max(t, mp.mpf(0)), mp.mpf(1))


def _ratio(text):
    p, q = text.split("/")
    return mp.mpf(int(p)) / int(q)


def cases():
    """name -> (X box, Y box, q_1(x, y), cut polynomials on the fibre in x (coefficient lists,
    highest first, as functions of w), outer breakpoints in w)."""
    R = mp.mpf
    out = {}
    # r05: X, Y, Z ~ U(0, 1), C = 1{X Y + k Z >= 1/2}, k = 1/2 and 3/10: q_1 = clamp((w + k - 1/2)/k)
    for k in ("1/2", "3/10"):
        kk = _ratio(k)
        out[f"r05 k={k}"] = (
            (R(0), R(1)), (R(0), R(1)),
            lambda x, y, kk=kk: clamp((x * y + kk - R(1) / 2) / kk), [],
            sorted({t for t in (R(0), R(1), R(1) / 2 - kk, R(1) / 2) if 0 <= t <= 1}))
    # asymmetric, sign-crossing boxes, a uniform rest: X ~ U(-1, 2), Y ~ U(-1/2, 1),
    # Z ~ U(0, 1), C = 1{X Y + (3/4) Z >= 1/4}: q_1 = clamp((w - 1/4 + 3/4) / (3/4))
    out["asymmetric rest"] = (
        (R(-1), R(2)), (R(-1) / 2, R(1)),
        lambda x, y: clamp((x * y + R(1) / 2) / (R(3) / 4)), [],
        [R(-1), R(-1) / 2, R(0), R(1) / 4, R(1) / 2, R(2)])
    # indicator of a line on sign-crossing boxes: X ~ U(-1/2, 3/2), Y ~ U(-1, 1),
    # C = 1{X + Y >= 1/2}; on the fibre x^2 - x/2 + w = 0; tangency w = 1/16, the cut meets the
    # box edges at w = e (1/2 - e): -1/2, -3/2
    out["line indicator"] = (
        (R(-1) / 2, R(3) / 2), (R(-1), R(1)),
        lambda x, y: R(1) if x + y >= R(1) / 2 else R(0),
        [lambda w: [R(1), -R(1) / 2, w]],
        [R(-3) / 2, R(-1) / 2, R(0), R(1) / 16, R(1) / 2, R(3) / 2])
    # r04: X, Y ~ U(-1, 1), C = 1{X^2 + k Y^2 <= 1/2}; on the fibre x^4 - x^2/2 + k w^2 = 0;
    # tangency w = +-1/(4 sqrt(k)), the ellipse meets y = +-1 at w = +-sqrt(1/2 - k)
    for k in ("1/2", "3/10"):
        kk = _ratio(k)
        pts = {R(-1), R(1), R(0), 1 / (4 * mp.sqrt(kk)), -1 / (4 * mp.sqrt(kk))}
        if kk < R(1) / 2:
            pts |= {mp.sqrt(R(1) / 2 - kk), -mp.sqrt(R(1) / 2 - kk)}
        out[f"r04 k={k}"] = (
            (R(-1), R(1)), (R(-1), R(1)),
            lambda x, y, kk=kk: R(1) if x * x + kk * y * y <= R(1) / 2 else R(0),
            [lambda w, kk=kk: [R(1), R(0), -R(1) / 2, R(0), kk * w * w]],
            sorted(pts))
    return out


def fibre(case, w):
    (a1, b1), (a2, b2), q1, cuts, _ = case
    dens = 1 / ((b1 - a1) * (b2 - a2))
    pts = {a1, b1, mp.mpf(0)}
    for b in (a2, b2):
        if b != 0:
            pts.add(w / b)
    for cut in cuts:
        for r in mp.polyroots(cut(w), maxsteps=200, extraprec=200):
            if abs(mp.im(r)) < mp.mpf(10) ** (-DPS + 5):
                pts.add(mp.re(r))
    pts = sorted(p for p in pts if a1 <= p <= b1)

    def inside(x):
        y = w / x
        return a2 <= y <= b2

    f1 = f0 = mp.mpf(0)
    for lo, hi in zip(pts, pts[1:]):
        mid = (lo + hi) / 2
        if hi - lo <= 0 or mid == 0 or not inside(mid):
            continue
        c1 = mp.quad(lambda x: q1(x, w / x) / abs(x), [lo, hi])
        c0 = mp.quad(lambda x: (1 - q1(x, w / x)) / abs(x), [lo, hi])
        f1 += dens * c1
        f0 += dens * c0
    return f1, f0


def xlogx(t):
    return t * mp.log(t) if t > 0 else mp.mpf(0)


def value(case):
    def g(w):
        f1, f0 = fibre(case, w)
        return xlogx(f1 + f0) - xlogx(f1) - xlogx(f0)
    return mp.quad(g, case[4])


def main() -> None:
    rows = {}
    with mp.workdps(DPS):
        names = list(cases())
    for name in names:
        with mp.workdps(DPS):  # the cases' constants at the precision of each run
            v = value(cases()[name])
        with mp.workdps(40):
            check = value(cases()[name])
        rows[name] = mp.nstr(v, 38)
        print(name, rows[name], mp.nstr(abs(v - check), 3), file=sys.stderr, flush=True)
    OUT.write_text(json.dumps({"dps": DPS, "values": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
