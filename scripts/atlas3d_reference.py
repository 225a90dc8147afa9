"""Generate tests/data/atlas3d_reference.json: the 3-D atlas of Scenario I by an independent route.

The route (``tests/scenario_one_closed.py``) shares no code with the engine: closed forms in k
for every input of the 3-D objectives (derived there; the integrals are re-derived here with
sympy and compared), its own extended reals, objectives and greedy selection. This script

1. re-derives with sympy the three single-feature integrals and the two two-point areas and
   checks them against the closed forms (60 digits at several k), and checks every closed form
   against mpmath quadrature of its defining integral (a third route);
2. for each of the twelve 3-D rows (method, reading), computes the ordering at a grid of k in
   (0, 1) (uniform, plus geometric towards both ends) and at the exact ends k = 0 and k = 1;
3. between neighbouring grid points whose orderings differ, takes the first step where the
   greedy paths part (winner A on the left, B on the right, same prefix S) and solves
   obj_A(k; S) = obj_B(k; S) with ``mpmath.findroot`` at 50 digits; the orderings just outside
   the root are checked against the neighbours' (and searched again when not: A -> C -> B);
4. repeats the sweep on a second, finer grid and refuses to write unless both agree.

Usage: ``python scripts/atlas3d_reference.py`` (about a minute on one core).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import mpmath
import sympy as sp

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT / "tests"))

import scenario_one_closed as S  # noqa: E402

OUT = ROOT / "tests" / "data" / "atlas3d_reference.json"
DPS = 60
DIGITS = 40  # significant digits written for each breakpoint


def log(msg):
    print(msg, file=sys.stderr, flush=True)


# ---- 1. sympy derivations and quadrature checks -----------------------------------------------

def _hb(p):
    return -p * sp.log(p) - (1 - p) * sp.log(1 - p)


def sympy_derivations():
    """(name, sympy-derived expression, closed form) for the integrals behind the closed forms."""
    k, L = S.k, sp.log
    u, v, d = sp.symbols("u v d", positive=True)
    out = []
    # MI(C,X): H(C|X) = (1/2) int_{-k}^{k} H_b((1 + u/k)/2) du
    hx = sp.integrate(_hb((1 + u / k) / 2), (u, -k, k)) / 2
    out.append(("MI(C,X)", L(2) - hx, S.MI_X))
    # MI(C,Y): H(C|Y) = int_0^1 H_b((1 + kv)/2) dv (even in v), logs of positive arguments
    g = L(2) - ((1 + k * v) * L(1 + k * v) + (1 - k * v) * L(1 - k * v)) / 2
    out.append(("MI(C,Y)", L(2) - sp.integrate(g, (v, 0, 1)), S.MI_Y))
    # MI(C,X-Y): H(C|D) = 2 int_0^{1+k} (2-d)/4 H_b(p(d)) dd, p = (1+k-dk)/((1+k)(2-d)),
    # 1 - p = (1+k-d)/((1+k)(2-d)); (2-d) H_b(p) written with logs of positive arguments
    a, b = 1 + k - d * k, 1 + k - d
    inner = -(a * (L(a) - L(1 + k) - L(2 - d)) + b * (L(b) - L(1 + k) - L(2 - d))) / (1 + k)
    out.append(("MI(C,X-Y)", L(2) - sp.integrate(sp.expand(inner), (d, 0, 1 + k)) / 2, S.MI_D))
    # two-point areas (v > 0 half; the v < 0 half is its image under (u, v) -> (-u, -v))
    c = 1 / (2 + k)
    area = sp.integrate((2 + 2 * k) * v, (v, 0, c)) + sp.integrate(2 - 2 * v, (v, c, 1))
    out.append(("MI(C;{Y^2,X-Y})", L(2) * (1 - 2 * area / 4), S.PAIR_Y2_D))
    c = 1 / (1 + 2 * k)
    agree = (sp.integrate(k * v * (2 + 2 * k) / (1 + 2 * k), (v, 0, c))
             + sp.integrate(k * v / (1 + 2 * k) - (v - 1) / 2, (v, c, 1)))
    out.append(("MI(C;{X-Y,X^2})", L(2) * (1 - 2 * (1 - agree) / 4), S.PAIR_D_X2))
    # MI(Y^2, X-Y): h(X-Y) - E h(X-Y | |Y| = y), delta = 1/2 (|Y| = y uniform on [0, 1/2])
    y = sp.Symbol("y", positive=True)
    h_given = sp.integrate((L(1) + 2 * y * L(2)) * 2, (y, 0, sp.Rational(1, 2)))
    out.append(("MI(Y^2,X-Y)", sp.Rational(1, 2) - h_given, (1 - L(2)) / 2))
    return out


def quadrature_checks():
    """The closed forms against mpmath quadrature of their defining integrals (no antiderivative)."""
    mpmath.mp.dps = 40
    def hb(p):
        return 0 if p <= 0 or p >= 1 else -p * mpmath.log(p) - (1 - p) * mpmath.log(1 - p)
    worst = mpmath.mpf(0)
    for kk in ("0.05", "0.3", "0.61", "0.95"):
        kv = mpmath.mpf(kk)
        ln2 = mpmath.log(2)
        quad = {
            S.MI_X: ln2 - mpmath.quad(lambda u, kv=kv: hb((1 + u / kv) / 2), [-kv, 0, kv]) / 2,
            S.MI_Y: ln2 - mpmath.quad(lambda w, kv=kv: hb((1 + kv * w) / 2), [-1, 0, 1]) / 2,
            S.MI_D: ln2 - 2 * mpmath.quad(
                lambda t, kv=kv: (2 - t) / 4 * hb((1 - t * kv / (1 + kv)) / (2 - t)), [0, 1 + kv]),
        }
        for expr, q in quad.items():
            worst = max(worst, abs(S._compiled(expr)(kv) - q))
    return worst


# ---- 2-4. the sweep ------------------------------------------------------------------------------

def grid(n_uniform, n_geo):
    xs = {mpmath.mpf(i) / n_uniform for i in range(1, n_uniform)}
    for j in range(n_geo):
        e = -2 - 12 * mpmath.mpf(j) / (n_geo - 1)  # 10^-2 ... 10^-14
        xs.add(mpmath.power(10, e))
        xs.add(1 - mpmath.power(10, e))
    return sorted(xs)


class Sweep:
    def __init__(self, closed, row):
        self.closed, self.row, self._points = closed, row, {}

    def point(self, x):
        p = self._points.get(x)
        if p is None:
            p = self._points[x] = S.Point(self.closed, x)
        return p

    def order(self, x):
        return S.select(self.point(x), self.row)

    def objective(self, x, i, prefix):
        return S.OBJECTIVES[self.row](S.Point(self.closed, x), i, list(prefix))


def locate(sw, x0, x1, left, right, out):
    """Append (root, step, A, B) for every change between x0 (ordering ``left``) and x1."""
    (ol, _), (or_, _) = left, right
    j = next(j for j in range(min(len(ol), len(or_)) + 1)
             if j >= len(ol) or j >= len(or_) or ol[j] != or_[j])
    if j >= len(ol) or j >= len(or_):
        raise RuntimeError(f"{sw.row}: a stop changes between {x0} and {x1}: not a crossing")
    A, B, prefix = ol[j], or_[j], ol[:j]

    def f(x):
        a, b = sw.objective(x, A, prefix), sw.objective(x, B, prefix)
        if not (a.finite and b.finite):
            raise RuntimeError(f"{sw.row}: step {j + 1} {S.LABELS[A]} vs {S.LABELS[B]} "
                               f"not finite near {x}: {a}, {b}")
        tol = mpmath.mpf(10) ** -(DPS - 8) * max(1, abs(a.num()), abs(b.num()))
        return a.num() - b.num(), tol

    def a_wins(x):  # the greedy's rule: strictly larger, or tied and listed first
        d, tol = f(x)
        return d > tol or (abs(d) <= tol and A < B)

    (fa, ta), (fb, tb) = f(x0), f(x1)
    if not (a_wins(x0) and not a_wins(x1)):
        raise RuntimeError(f"{sw.row}: {S.LABELS[A]} does not win left of {S.LABELS[B]}")
    if fa > ta and fb < -tb:  # a sign change: the crossing, by findroot on the closed forms
        how = "findroot"
        root = mpmath.findroot(lambda x: f(x)[0], (x0, x1), solver="anderson",
                               tol=mpmath.mpf(10) ** -(DPS - 5))
    else:  # B takes over from a tie (the objectives are equal on a stretch): bisection
        how = "bisection from a tie"
        a, b = x0, x1
        while b - a > a * mpmath.mpf(10) ** -(DIGITS + 8):
            m = (a + b) / 2
            a, b = (m, b) if a_wins(m) else (a, m)
        root = (a + b) / 2
    assert x0 < root < x1, (sw.row, x0, root, x1)
    eps = root * mpmath.mpf(10) ** -(DIGITS + 2)
    # A wins just left of the root and B just right, at DIGITS + 2 digits
    assert a_wins(root - eps) and not a_wins(root + eps), (sw.row, root)
    lo, hi = sw.order(root - eps), sw.order(root + eps)
    if lo != left:
        locate(sw, x0, root - eps, left, lo, out)
    out.append((root, j + 1, A, B, how))
    if hi != right:
        locate(sw, root + eps, x1, hi, right, out)


def sweep_row(closed, ends, row, xs):
    sw = Sweep(closed, row)
    orders = [sw.order(x) for x in xs]
    found = []
    for x0, x1, a, b in zip(xs, xs[1:], orders, orders[1:]):
        if a != b:
            locate(sw, x0, x1, a, b, found)
    cuts = [mpmath.mpf(0)] + [r for r, *_ in found] + [mpmath.mpf(1)]
    regions = []
    if ends[0] != sw.order((cuts[0] + cuts[1]) / 2):
        regions.append(("0", "0", ends[0]))
    for a, b in zip(cuts, cuts[1:]):
        regions.append((a, b, sw.order((a + b) / 2)))
    if ends[1] != regions[-1][2]:
        regions.append(("1", "1", ends[1]))
    return found, regions


def text(x):
    return x if isinstance(x, str) else mpmath.nstr(x, DIGITS, strip_zeros=False) if 0 < x < 1 \
        else str(int(x))


def row_json(row, found, regions, ends):
    def labels(o):
        return [S.LABELS[i] for i in o]
    return {
        "method": row[0], "reading": row[1],
        "breakpoints": [{"at": text(r), "step": s, "between": [S.LABELS[a], S.LABELS[b]],
                         "solved_by": how} for r, s, a, b, how in found],
        "regions": [{"from": text(a), "to": text(b), "order": labels(o), "stopped": st}
                    for a, b, (o, st) in regions],
        "at_0": {"order": labels(ends[0][0]), "stopped": ends[0][1]},
        "at_1": {"order": labels(ends[1][0]), "stopped": ends[1][1]},
    }


def main():
    t0 = time.time()
    mpmath.mp.dps = 60
    checks = []
    for name, derived, closed in sympy_derivations():
        f, g = sp.lambdify(S.k, derived, "mpmath"), S._compiled(closed)
        worst = max(abs(mpmath.re(f(mpmath.mpf(x))) - g(mpmath.mpf(x)))
                    for x in ("0.01", "0.2", "0.5", "0.77", "0.99"))
        checks.append({"quantity": name, "max_abs_difference_60_digits": mpmath.nstr(worst, 3)})
        if worst > mpmath.mpf(10) ** -50:
            raise SystemExit(f"sympy derivation of {name} disagrees with its closed form: {worst}")
        log(f"sympy {name}: agrees ({mpmath.nstr(worst, 3)}), {time.time() - t0:.0f} s")
    q = quadrature_checks()
    if q > mpmath.mpf(10) ** -30:
        raise SystemExit(f"quadrature disagrees with a closed form: {q}")
    log(f"quadrature: worst difference {mpmath.nstr(q, 3)}")

    mpmath.mp.dps = DPS
    closed = S.closed_forms()
    exact = {at: S.Point(S.closed_forms(at=at)) for at in (0, 1)}
    rows = []
    grids = (grid(400, 25), grid(1201, 40))
    for row in S.ROWS:
        ends = (S.select(exact[0], row), S.select(exact[1], row))
        results = [sweep_row(closed, ends, row, xs) for xs in grids]
        (f1, r1), (f2, r2) = results
        same = (len(f1) == len(f2) and all(abs(a[0] - b[0]) < mpmath.mpf(10) ** -(DIGITS + 2)
                                           and a[1:] == b[1:] for a, b in zip(f1, f2))
                and [r[2] for r in r1] == [r[2] for r in r2])
        if not same:
            raise SystemExit(f"{row}: the two grids disagree:\n{f1}\n{f2}")
        rows.append(row_json(row, f1, r1, ends))
        log(f"{row}: {len(f1)} breakpoints, {len(r1)} regions, {time.time() - t0:.0f} s")
    data = {
        "generated_by": "scripts/atlas3d_reference.py (closed forms of tests/scenario_one_closed.py)",
        "scenario": "uniform", "params": {"delta": "1/2", "a": "3", "b": "1", "d": "2"},
        "working_digits": DPS, "breakpoint_digits": DIGITS,
        "grids": [len(g) for g in grids], "sympy_checks": checks,
        "rows": rows,
    }
    from reference_output import write_reference

    write_reference(OUT, json.dumps(data, indent=1) + "\n")
    log(f"wrote {OUT} in {time.time() - t0:.0f} s")


if __name__ == "__main__":
    main()
