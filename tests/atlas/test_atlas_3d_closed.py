"""The 3-D atlas of Scenario I against an independent route: closed forms in k.

``tests/scenario_one_closed.py`` derives every input of the 3-D objectives in closed form (no
engine code), writes the six methods' objectives from their published definitions and runs its
own greedy selection; ``scripts/atlas3d_reference.py`` sweeps k with it and solves every
crossing with ``mpmath.findroot`` at 60 working digits, storing the result in
``tests/data/atlas3d_reference.json`` (40 digits per breakpoint). Here:

* the closed forms against the engine's values (``evaluate`` and ``LazyJointValues``) at several
  k, entry by entry, kinds included;
* the stored reference against the closed forms (so that it cannot drift from them);
* the engine's atlas, run live on two rows with crossings, against the stored reference;
* the committed 3-D atlas rows of Scenario I (``reports/atlas/k3d_uniform.json``), when they
  exist, against the stored reference, every breakpoint to 18 significant digits and every
  region's ordering and stop.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

import scenario_one_closed as S
from fstheory.atlas.locate import locate
from fstheory.atlas.sweep import AtlasSpec, sweep_of
from fstheory.engine.evaluate import evaluate
from fstheory.engine.evaluate_joint import LazyJointValues
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.extended import Kind

pytestmark = pytest.mark.slow


HERE = Path(__file__).parents[1]
REF = json.loads((HERE / "data" / "atlas3d_reference.json").read_text())
REF_ROWS = {(r["method"], r["reading"]): r for r in REF["rows"]}
COMMITTED = HERE.parent / "reports" / "atlas" / "k3d_uniform.json"
# full engine rows run live for this check while the committed ones were being generated
RECORDED = HERE / "data" / "atlas3d_engine_rows.json"

MATRICES = (("mi_class_pair", "mi_c_pair"), ("cmi_class", "cmi_c"),
            ("mi_given_class", "mi_given_c"), ("h_pair_class", "h_pair_c"))


@pytest.fixture(scope="module")
def closed():
    return S.closed_forms()


def _agree(engine, mine, digits):
    """An engine value (ExtendedReal) and one of ours (S.XR) are the same extended real, finite
    ones to ``digits`` significant digits (absolute below 1)."""
    if mine.kind in ("+inf", "-inf"):
        return engine.kind == (Kind.POS_INF if mine.kind == "+inf" else Kind.NEG_INF)
    if engine.kind is not Kind.FINITE:
        return False
    x = mpmath.mpf(engine.value)
    return abs(x - mine.num()) <= mpmath.mpf(10) ** -digits * max(1, abs(mine.num()))


@pytest.mark.parametrize("k", ["0.3", "7/9", "1/1000", "0", "1"])
def test_closed_forms_match_the_engine_values(closed, k):
    # every input of a 3-D objective, all 10 x 10 entries of each matrix, to 28 digits (the
    # engine works at 30), MI(C;{Y^2,X-Y}) and MI(C;{X-Y,X^2}) included, and at the ends k = 0
    # (C = 1{X >= 0}) and k = 1 the engine's exact scenario against the limits
    bound = get_scenario("uniform").bind(k=k)
    v = evaluate(bound, 30)
    j = LazyJointValues(bound, 30, v)
    with mpmath.workdps(50):
        if k in ("0", "1"):  # the exact ends: the limits of the closed forms
            p = S.Point(S.closed_forms(at=int(k)))
        else:
            p = S.Point(closed, mpmath.mpf(Fraction(k).numerator) / Fraction(k).denominator)
        assert _agree(j.h_class, p.hc, 28)
        for i in range(S.N):
            assert _agree(v.mi_c(i), p.mi_c(i), 28), (k, i)
            for s in range(S.N):
                assert _agree(v.mi(i, s), p.mi(i, s), 28), (k, i, s)
                for eng, mine in MATRICES:
                    assert _agree(getattr(j, eng)[i][s], getattr(p, mine)(i, s), 28), (k, eng, i, s)
        assert p.h_pair_c(0, 6).kind == "zero" and p.h_pair_c(3, 6).kind == "zero"  # H(X,Y,C) = 0


# Monte Carlo, a third route for the two-point pairs that uses neither the involution nor the
# areas: sample (X, Y), solve the pair's equations for every preimage (x', y') of the observed
# values, weight each by density / |Jacobian| (0 outside the support), and average the binary
# entropy of the posterior P(C=1 | Vi, Vj). Its standard error is below ln 2 / (2 sqrt(n)).
def _pre_y2_d(x, y):  # (Y^2, X-Y): y' = +-|y|, x' = (x - y) + y', |J| = 2|y'|
    return [((x - y) + sg * np.abs(y), sg * np.abs(y), 2 * np.abs(y)) for sg in (1, -1)]


def _pre_d_x2(x, y):  # (X-Y, X^2): x' = +-|x|, y' = x' - (x - y), |J| = 2|x'|
    return [(sg * np.abs(x), sg * np.abs(x) - (x - y), 2 * np.abs(x)) for sg in (1, -1)]


def _pre_x_y2(x, y):  # (X, Y^2): y' = +-|y|
    return [(x, sg * np.abs(y), 2 * np.abs(y)) for sg in (1, -1)]


def _pre_y_x2(x, y):  # (Y, X^2): x' = +-|x|
    return [(sg * np.abs(x), y, 2 * np.abs(x)) for sg in (1, -1)]


@pytest.mark.parametrize("pair,pre", [((2, 3), _pre_y2_d), ((3, 7), _pre_d_x2),
                                      ((0, 2), _pre_x_y2), ((6, 7), _pre_y_x2)])
def test_two_point_pairs_against_monte_carlo(closed, pair, pre):
    k, n = 0.35, 400_000
    rng = np.random.default_rng(20261126 + pair[0] * 10 + pair[1])
    x, y = rng.uniform(-0.5, 0.5, size=(2, n))
    w1 = w = 0.0
    for xp, yp, jac in pre(x, y):
        inside = (np.abs(xp) <= 0.5) & (np.abs(yp) <= 0.5)
        wt = inside / jac
        w = w + wt
        w1 = w1 + wt * (xp + k * yp >= 0)
    q = np.clip(w1 / w, 1e-300, 1 - 1e-16)
    hb = -(q * np.log(q) + (1 - q) * np.log1p(-q))
    hb[(w1 == 0) | (w1 == w)] = 0.0
    estimate = np.log(2) - hb.mean()
    se = hb.std() / np.sqrt(n)
    with mpmath.workdps(30):
        exact = float(S.Point(closed, mpmath.mpf("0.35")).mi_c_pair(*pair).num())
    assert se < np.log(2) / (2 * np.sqrt(n))
    assert abs(estimate - exact) < 5 * se, (pair, estimate, exact, se)


def _mp(text):
    return mpmath.mpf(text) if "/" not in text else mpmath.mpf(Fraction(text).numerator) / Fraction(text).denominator


def test_stored_reference_is_what_the_closed_forms_give(closed):
    # every stored breakpoint is a sign change of obj(A) - obj(B) after its prefix (or the end
    # of a tie) at 40 digits, and every region's midpoint ordering is the stored one
    with mpmath.workdps(60):
        for key, row in REF_ROWS.items():
            regions = row["regions"]
            for reg in regions:
                if reg["from"] == reg["to"]:
                    at = int(reg["from"])
                    o, st = S.select(S.Point(S.closed_forms(at=at)), key)
                else:
                    o, st = S.select(S.Point(closed, (_mp(reg["from"]) + _mp(reg["to"])) / 2), key)
                assert [S.LABELS[i] for i in o] == reg["order"] and st == reg["stopped"], (key, reg)
            for bp in row["breakpoints"]:
                r = _mp(bp["at"])
                eps = r * mpmath.mpf(10) ** -38
                left = S.select(S.Point(closed, r - eps), key)[0]
                right = S.select(S.Point(closed, r + eps), key)[0]
                n = bp["step"] - 1
                assert left[:n] == right[:n] and [S.LABELS[left[n]], S.LABELS[right[n]]] == bp["between"]


def test_a_tie_breakpoint_is_the_closed_form_root():
    # ICAP (interaction), step 4 after X, X-Y, Y: obj(Y^2) = 0 and obj(3X+1) =
    # -max(0, MI(C,X-Y) - k/2) (MI(C;3X+1|X-Y) = ln 2 - MI(C,X); MI(C,Y) < k/2 on (0, 1)): they
    # tie (3X+1 first) from the root of MI(C,X-Y) = k/2 on, solved here by findroot
    (bp,) = [b for b in REF_ROWS[("icap", "interaction")]["breakpoints"] if b["step"] == 4]
    with mpmath.workdps(50):
        root = mpmath.findroot(lambda x: -(1 - x) ** 2 * mpmath.log(1 - x) / (4 * x) - x / 2,
                               (mpmath.mpf("0.25"), mpmath.mpf("0.35")), solver="anderson")
        assert abs(_mp(bp["at"]) - root) < mpmath.mpf(10) ** -38 * root


def _end_breakpoints(row):
    """The changes at k = 0 and k = 1 (a single-point region there): (at, step, between)."""
    regs, out = row["regions"], []
    for point, inner in ((regs[0], regs[1]), (regs[-1], regs[-2])):
        if point["from"] == point["to"]:
            a, b = point["order"], inner["order"]
            n = next(n for n in range(min(len(a), len(b)) + 1)
                     if n >= len(a) or n >= len(b) or a[n] != b[n])
            out.append((point["from"], n + 1, set(a[n:n + 1] + b[n:n + 1])))
    return sorted(out)


def check_row(js, row, digits=18):
    """An engine atlas row over k in [0, 1] (its JSON) against the reference row: the same
    crossings (step, pair, place to ``digits`` significant digits), the same changes at the
    ends, the same regions in order, each bounded by those breakpoints."""
    tol = mpmath.mpf(10) ** -digits
    ends = [b for b in js["breakpoints"] if b["at"] in ("0", "1")]
    inner = [b for b in js["breakpoints"] if b["at"] not in ("0", "1")]
    assert sorted((b["at"], b["step"], set(b["between"])) for b in ends) == _end_breakpoints(row)
    assert len(inner) == len(row["breakpoints"]), (inner, row["breakpoints"])
    with mpmath.workdps(45):
        for got, want in zip(sorted(inner, key=lambda b: _mp(b["at"])), row["breakpoints"]):
            assert got["step"] == want["step"] and set(got["between"]) == set(want["between"]), (got, want)
            assert abs(_mp(got["at"]) - _mp(want["at"])) <= tol * _mp(want["at"]), (got, want)
        assert [(r["order"], r["stopped"]) for r in js["regions"]] == \
            [(r["order"], r["stopped"]) for r in row["regions"]]
        for got, want in zip(js["regions"], row["regions"]):
            for end in ("from", "to"):
                assert abs(_mp(got[end]) - _mp(want[end])) <= tol * max(_mp(want[end]), 1e-30)


# The engine's own crossing locator (``orderings.atlas.locate``, what ``fstheory atlas`` runs
# between two samples whose orderings part) on the engine's values, live, for the crossings of
# two rows whose pairs need no numerical-route value: CMIM's running minimum (Fleuret) at step 2
# (X-Y and Y: MI(C,X-Y) = MI(C,Y)) and DISR at steps 4 and 5 (3X+1 overtakes Z, then W+2: sums
# of ratios over the mixed joint entropies). The pair and the prefix come from the reference's
# regions on both sides. The bracket at 20 digits must hold the reference root and its middle
# agree with it to 18 significant digits.
LIVE = [(("cmim", "fleuret"), 2), (("disr", "original"), 4), (("disr", "original"), 5)]


@pytest.mark.parametrize("key,step", LIVE, ids=["cmim-fleuret-2", "disr-4", "disr-5"])
def test_engine_locates_the_reference_crossings(key, step):
    row = REF_ROWS[key]
    (i,) = [n for n, b in enumerate(row["breakpoints"]) if b["step"] == step]
    bp = row["breakpoints"][i]
    left, right = row["regions"][i + 1]["order"], row["regions"][i + 2]["order"]  # [0] is k = 0
    assert left[:step - 1] == right[:step - 1] and [left[step - 1], right[step - 1]] == bp["between"]
    idx = {label: n for n, label in enumerate(S.LABELS)}
    with mpmath.workdps(45):
        root = _mp(bp["at"])
        lo, hi = root - mpmath.mpf("0.004"), root + mpmath.mpf("0.004")
        spec = AtlasSpec(scenario="uniform", method=key[0], reading=key[1], parameter="k",
                         lo=mpmath.nstr(lo, 6), hi=mpmath.nstr(hi, 6), digits=20, grid=2)
        x0, x1, crossing = locate(sweep_of(spec), lo, hi, idx[left[step - 1]],
                                   idx[right[step - 1]], tuple(idx[x] for x in left[:step - 1]))
        assert crossing and x0 <= root <= x1
        assert abs((x0 + x1) / 2 - root) <= mpmath.mpf(10) ** -18 * root


def _display(key):
    """The engine's name of a row ('DISR', 'CIFE (interaction reading)')."""
    several = {m for m, r in REF_ROWS if r != "original"}
    return f"{key[0].upper()} ({key[1]} reading)" if key[0] in several else key[0].upper()


def test_full_atlas_rows_match_the_reference():
    # the committed 3-D rows of Scenario I (make reproduce-atlas-3d) when they exist; else the
    # twelve full rows recorded from `fstheory atlas` on main 4aac2fa: every breakpoint to 18
    # significant digits, and in the committed file all 20 printed digits (the recorded rows had
    # CIFE (interaction) at step 5 as 0.65139516166457951297 for 0.651395161664579512989...: a
    # near tie below the first stage's accuracy taken as an exact tie, fixed since), every region
    committed = COMMITTED.exists()
    rows = json.loads((COMMITTED if committed else RECORDED).read_text())
    by_name = {_display(key): key for key in REF_ROWS}
    seen = set()
    for js in rows:
        if js.get("scenario", "uniform") != "uniform":
            continue
        key = by_name[js["method"]]
        check_row(js, REF_ROWS[key], digits=18)
        if committed:
            inner = sorted((b for b in js["breakpoints"] if b["at"] not in ("0", "1")),
                           key=lambda b: _mp(b["at"]))
            with mpmath.workdps(45):
                for got, want in zip(inner, REF_ROWS[key]["breakpoints"]):
                    assert got["at"] == mpmath.nstr(_mp(want["at"]), 20, strip_zeros=False), \
                        (key, got, want["at"])
        seen.add(key)
    assert seen == set(REF_ROWS)

