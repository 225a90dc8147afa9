"""Generate tests/data/gaussian_projection_reference.json: MI(C; {U1, U2}) for two linear
features of independent normal variables and a linear class rule (the scenario files of
tests/data/gaussian_projection/), by a route independent of the engine's projection
(:mod:`fstheory.theory.gaussian_projection`, which reduces the pair to one statistic):

    MI(C; U) = H(C) - int int f_U(u) H_b(P(C = 1 | U = u)) du,

f_U the bivariate normal density of U = A b (b ~ N(m, D)), and P(C = 1 | U = u) from the
conditional law of the class form g.b given U = u (normal, with the mean and variance of the
conditioning formula for the joint normal vector (g.b, A b)); the two-dimensional integral by
mpmath Gauss-Legendre quadrature on [-R, R]^2 around the mean of U, split into pieces, at 30
digits (the mass outside is below 1e-28 for R = 12 standard deviations).

Usage: ``python scripts/make_gaussian_projection_reference.py`` (about a minute a value).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import mpmath as mp

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "gaussian_projection_reference.json"
DPS = 30

#: name: (means, standard deviations, feature rows A, class weights g, threshold t) over (X, Y, Z)
CASES = {
    "iid": ([0, 0, 0], [1, 1, 1], [[1, 1, 0], [1, 0, -1]], ["1", "0.5", "1"], "0.5"),
    "unequal": ([1, 0, -1], [2, 1, "0.5"], [[1, 1, 0], [0, 1, -1]], ["1", "0.5", "1"], "0.5"),
}


def _hb(p):
    q = 1 - p
    return -(p * mp.log(p) if p > 0 else 0) - (q * mp.log(q) if q > 0 else 0)


def reference(m, s, A, g, t) -> mp.mpf:
    m = mp.matrix([mp.mpf(x) for x in m])
    D = mp.diag([mp.mpf(x) ** 2 for x in s])
    A = mp.matrix([[mp.mpf(x) for x in row] for row in A])
    g = mp.matrix([mp.mpf(x) for x in g])
    t = mp.mpf(t)
    S = A * D * A.T
    Si = S ** -1
    cross = A * D * g  # Cov(U, g.b)
    mean_g = (g.T * m)[0]
    var_g = (g.T * D * g)[0]
    mean_u = A * m
    cond_var = var_g - (cross.T * Si * cross)[0]
    det = mp.det(S)
    sd = [mp.sqrt(S[0, 0]), mp.sqrt(S[1, 1])]

    def f(u1, u2):
        d = mp.matrix([u1 - mean_u[0], u2 - mean_u[1]])
        dens = mp.exp(-(d.T * Si * d)[0] / 2) / (2 * mp.pi * mp.sqrt(det))
        mu = mean_g + (cross.T * Si * d)[0]
        return dens * _hb(mp.ncdf((mu - t) / mp.sqrt(cond_var)))

    R = 12
    cuts = [-R, -6, -3, -1, 0, 1, 3, 6, R]
    I = mp.quad(f, [mean_u[0] + c * sd[0] for c in cuts], [mean_u[1] + c * sd[1] for c in cuts],
                method="gauss-legendre")
    p1 = mp.ncdf((mean_g - t) / mp.sqrt(var_g))
    return _hb(p1) - I


def main() -> None:
    mp.mp.dps = DPS
    rows = {}
    for name, case in CASES.items():
        rows[name] = mp.nstr(reference(*case), DPS)
        print(name, rows[name], file=sys.stderr, flush=True)
    OUT.write_text(json.dumps({"dps": DPS, "values": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
