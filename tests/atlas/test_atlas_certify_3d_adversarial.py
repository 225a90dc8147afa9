"""An adversarial pass on the certificate of the 3-D atlas rows (``atlas/certificate/certify.py``).

Two kinds of checks:

* certified results at parameters and ranges that ``tests/atlas/test_atlas_certify_3d.py`` does not
  use (delta = 1/3 and 2, k in [1/10, 9/10] and [0, 1/4]) are checked independently: every
  region against the closed forms of ``tests/scenario_one_closed.py`` (their own objectives and
  greedy, 50 digits) and against the engine's exact world (45 digits) at random rationals and at
  points 10^-12 relative inside each region's ends; every certified bracket must hold a sign
  change of the closed-form difference of its two features;
* tampered results must come back ``certified: False`` (never a traceback): a region's end moved
  away from its breakpoint, a breakpoint moved outside its bracket, a region split without a
  breakpoint, a gap between regions, a claimed stop, a swap at a special point.

Several of these failed when they were written and found real defects, since fixed: the
certificate took each piece's ordering from the one region holding the piece's midpoint and
never compared the regions' ends or the breakpoints' positions with the certified brackets, so
a wrong result was certified; a gap between regions was an IndexError; the printed breakpoint
lay outside its printed bracket; 3-D rows swept over a or delta crashed.
"""

from __future__ import annotations

import random
from dataclasses import replace
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

import scenario_one_closed as S
from atlas_results import certified
from fstheory.atlas.certificate import certify as atlas_certify
from fstheory.atlas.sweep import AtlasSpec, sweep_of, atlas
from fstheory.orderings.greedy import select
from fstheory.engine.evaluate import evaluate
from fstheory.engine.evaluate_joint import LazyJointValues
from fstheory.scenarios.registry import get_scenario

pytestmark = pytest.mark.slow


DPS = 50  # closed-form route
ENGINE_DIGITS = 45  # engine's exact world

#: (method, reading, lo, hi, fixed): fast rows at parameters and ranges the other tests skip
CASES = [
    ("cife", "interaction", "0", "1", (("delta", "1/3"),)),
    ("cmim", "fleuret", "1/10", "9/10", (("delta", "2"),)),
    ("jmim", "original", "0", "1/4", ()),
]


def _spec(method, reading, lo, hi, fixed=()):
    return AtlasSpec(scenario="uniform", method=method, reading=reading, parameter="k", lo=lo,
                     hi=hi, digits=20, grid=12, fixed=fixed)


@pytest.fixture(scope="module")
def results():
    return {c: atlas(_spec(*c), certify=True) for c in CASES}


@pytest.fixture(scope="module")
def icap():
    """ICAP (interaction reading) over k in [0, 1]: two located crossings (step 4 near
    k = 0.2947, step 2 near k = 0.5971) and special points at both ends."""
    res = certified(_spec("icap", "interaction", "0", "1"))  # a row of test_atlas_certify_3d.py
    assert res.certificate["certified"] is True
    return res


def _frac(x) -> Fraction:
    if isinstance(x, sp.Basic):
        r = sp.Rational(x)
        return Fraction(int(r.p), int(r.q))
    man, exp = x.man_exp  # exact (mpmath.mpf(x) would round to the working precision)
    return Fraction(int(man)) * Fraction(2) ** int(exp)


def _delta(res) -> sp.Rational:
    return sp.Rational(dict(res.spec.fixed).get("delta", "1/2"))


def _closed_point(res, k: Fraction):
    if k in (0, 1):
        return S.Point(S.closed_forms(_delta(res), at=int(k)))
    return S.Point(S.closed_forms(_delta(res)), mpmath.mpf(k.numerator) / k.denominator)


def _closed_order(res, k: Fraction):
    with mpmath.workdps(DPS):
        order, stopped = S.select(_closed_point(res, k), (res.spec.method, res.spec.reading))
    return tuple(order), stopped


def _engine_order(res, k: Fraction):
    params = dict(res.spec.fixed)
    params["k"] = f"{k.numerator}/{k.denominator}"
    bound = get_scenario("uniform").bind(**params)
    v = evaluate(bound, ENGINE_DIGITS)
    v = replace(v, joint=LazyJointValues(bound, ENGINE_DIGITS, v))
    r = select(v, res.spec.method, reading=res.spec.reading)
    return tuple(r.order), r.stop is not None


def _inside(region, rng, n):
    """The region's point, or: 10^-12 relative (to the width and to the end) inside each end,
    10^-6 of the width inside each end, and ``n`` random rationals."""
    lo, hi = _frac(region.lo), _frac(region.hi)
    if lo == hi:
        return [lo]
    w = hi - lo
    pts = [lo + w / 10**12, hi - w / 10**12, lo + w / 10**6, hi - w / 10**6]
    pts += [e + s * abs(e) / 10**12 for e, s in ((lo, 1), (hi, -1)) if e != 0]
    pts += [lo + w * Fraction(rng.randrange(1, 10**6), 10**6) for _ in range(n)]
    return pts


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}:{c[3]}")
def test_certified_regions_against_the_closed_forms(results, case):
    # every region's reported ordering equals the independent closed forms' greedy at 50 digits,
    # 10^-12 relative inside its ends and at random rationals (exact at the special points)
    res = results[case]
    assert res.certificate["certified"] is True, res.certificate.get("failures")
    rng = random.Random(20261126)
    checked = 0
    for region in res.regions:
        for k in _inside(region, rng, 8):
            assert _closed_order(res, k) == (region.order, region.stopped), (float(k), region)
            checked += 1
    assert checked >= 10 * len([r for r in res.regions if r.lo != r.hi])


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}:{c[3]}")
def test_certified_regions_against_the_engine_exact_world(results, case):
    # the engine's exact world (evaluate + LazyJointValues, 45 digits) at the two points
    # 10^-12 of the width inside each open region's ends and at each special point
    res = results[case]
    for region in res.regions:
        pts = _inside(region, random.Random(0), 0)[:2]
        for k in pts:
            assert _engine_order(res, k) == (region.order, region.stopped), (float(k), region)


def _objective(res, k: Fraction, i: int, prefix):
    with mpmath.workdps(DPS):
        closed = S.closed_forms(_delta(res))
        v = S.objective(closed, (res.spec.method, res.spec.reading), i, list(prefix),
                        mpmath.mpf(k.numerator) / k.denominator)
        assert v.kind in ("fin", "zero"), v
        return v.num()


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}:{c[3]}")
def test_certified_brackets_hold_the_closed_form_crossing(results, case):
    # the difference of the two features' closed-form objectives (after the common prefix)
    # changes sign between the ends of every certified bracket, and the located point is inside
    res = results[case]
    located = [b for b in res.breakpoints if b.bracket is not None]
    assert len(res.certificate["brackets"]) == len(located)
    for b, br in zip(located, res.certificate["brackets"]):
        lo, hi = Fraction(br["from"]), Fraction(br["to"])
        assert lo <= _frac(b.at) <= hi
        (left,) = [r for r in res.regions if r.lo != r.hi and r.hi == b.at]
        prefix = left.order[:b.step - 1]
        labels = list(res.labels)
        a, c = (labels.index(x) for x in b.between)
        d_lo = _objective(res, lo, a, prefix) - _objective(res, lo, c, prefix)
        d_hi = _objective(res, hi, a, prefix) - _objective(res, hi, c, prefix)
        assert d_lo * d_hi < 0, (b.at, d_lo, d_hi)
        # well away from 50-digit rounding: the ends are ~10^-22 from the crossing
        assert min(abs(d_lo), abs(d_hi)) > mpmath.mpf(10) ** -(DPS - 10)


@pytest.mark.parametrize("case", CASES, ids=lambda c: f"{c[0]}-{c[1]}-{c[2]}:{c[3]}")
def test_printed_breakpoint_lies_in_its_printed_bracket(results, case):
    # the JSON certificate's "at" (20 digits) against its "from"/"to" (23 digits): a reader who
    # checks the printed numbers must find the breakpoint inside its certified bracket.
    # Before the fix (8dbea6d): "at" is rounded to 20 significant digits while the
    # bracket is narrower than that rounding (e.g. at 0.59707783177111439837, bracket
    # [0.59707783177111439836482, 0.59707783177111439836723]).
    res = results[case]
    for br in res.certificate["brackets"]:
        assert Fraction(br["from"]) <= Fraction(br["at"]) <= Fraction(br["to"]), br


# ----- tampered results must be refused --------------------------------------------------------


def _recertify(res, regions=None, breakpoints=None) -> dict:
    sw = sweep_of(res.spec)
    return atlas_certify.certify(sw, replace(
        res, regions=res.regions if regions is None else regions,
        breakpoints=res.breakpoints if breakpoints is None else breakpoints))


def _crossing(res, step):
    (b,) = [b for b in res.breakpoints if b.bracket is not None and b.step == step]
    (n,) = [i for i, r in enumerate(res.regions) if r.lo != r.hi and r.hi == b.at]
    return b, n


def _moved_end(res, n, x):
    """The regions with the common end of regions n and n + 1 moved to x."""
    regions = list(res.regions)
    regions[n] = replace(regions[n], hi=x)
    regions[n + 1] = replace(regions[n + 1], lo=x)
    return regions


@pytest.mark.parametrize("shift", ["-1e-12", "-1e-3"])
def test_breakpoint_and_bracket_moved_together_are_refused(icap, shift):
    # the step-4 crossing (Y^2 against 3X+1), its bracket and the two regions' common end all
    # moved: the true crossing is outside the certified bracket
    b, n = _crossing(icap, 4)
    s = mpmath.mpf(shift)
    regions = _moved_end(icap, n, b.at + s)
    bps = [replace(x, at=b.at + s, bracket=(b.bracket[0] + s, b.bracket[1] + s)) if x is b else x
           for x in icap.breakpoints]
    cert = _recertify(icap, regions, bps)
    assert cert["certified"] is False
    assert any("step 4" in f for f in cert["failures"]), cert["failures"]


@pytest.mark.parametrize("shift", ["1e-3", "-1e-3", "1e-12"])
def test_regions_end_moved_away_from_the_breakpoint_is_refused(icap, shift):
    # the regions claim the step-4 change at k = 0.2947 + shift while the breakpoint and its
    # bracket stay at the true crossing: on the shifted part a region reports the wrong
    # ordering (Y^2 and 3X+1 exchanged). Before the fix (8dbea6d): certified True.
    b, n = _crossing(icap, 4)
    s = mpmath.mpf(shift)
    regions = _moved_end(icap, n, b.at + s)
    # the claim is wrong: at the midpoint of the shifted part the exact ordering is the other one
    k = _frac(b.at + s / 2)
    wrong = regions[n] if s > 0 else regions[n + 1]
    assert _closed_order(icap, k) != (wrong.order, wrong.stopped)
    assert _recertify(icap, regions)["certified"] is False


def test_breakpoint_moved_outside_its_bracket_is_refused(icap):
    # "at" and the regions moved by 10^-3 (far outside the bracket of width ~10^-21), the bracket
    # kept: the certificate would list a breakpoint outside its own certified bracket.
    # Before the fix (8dbea6d): certified True.
    b, n = _crossing(icap, 4)
    s = mpmath.mpf("1e-3")
    regions = _moved_end(icap, n, b.at + s)
    bps = [replace(x, at=b.at + s) if x is b else x for x in icap.breakpoints]
    cert = _recertify(icap, regions, bps)
    assert cert["certified"] is False, cert["brackets"]


def test_a_wrong_region_without_a_breakpoint_is_refused(icap):
    # the last region (k in [0.5971, 1)) split at a quarter of its width, the left quarter with
    # its last two features (W+2, Z+W) exchanged and no breakpoint added: that quarter's
    # ordering is wrong at every point. Before the fix (8dbea6d): certified True (only
    # the region holding the piece's midpoint is checked).
    i = max(range(len(icap.regions)),
            key=lambda n: _frac(icap.regions[n].hi) - _frac(icap.regions[n].lo))
    r = icap.regions[i]
    cut = mpmath.mpf(r.lo) + (mpmath.mpf(r.hi) - mpmath.mpf(r.lo)) / 4
    order = list(r.order)
    order[-1], order[-2] = order[-2], order[-1]
    wrong = replace(r, hi=cut, order=tuple(order))
    k = (_frac(r.lo) + _frac(cut)) / 2
    assert _closed_order(icap, k) != (wrong.order, wrong.stopped)
    regions = list(icap.regions)
    regions[i:i + 1] = [wrong, replace(r, lo=cut)]
    assert _recertify(icap, regions)["certified"] is False


def test_a_gap_between_regions_is_refused_not_a_crash(icap):
    # the region left of the step-4 crossing removed: no region covers (0, 0.2947). Must be
    # "not certified" with a reason. Before the fix (8dbea6d): IndexError in
    # Certifier._order_at.
    _, n = _crossing(icap, 4)
    regions = [r for i, r in enumerate(icap.regions) if i != n]
    cert = _recertify(icap, regions)
    assert cert["certified"] is False


def test_other_tamperings_are_refused(icap):
    i = max(range(len(icap.regions)),
            key=lambda n: _frac(icap.regions[n].hi) - _frac(icap.regions[n].lo))
    r = icap.regions[i]
    # a stop claimed after two steps
    regions = list(icap.regions)
    regions[i] = replace(r, order=r.order[:2], stopped=True)
    cert = _recertify(icap, regions)
    assert cert["certified"] is False
    assert any("step 3 should stop" in f for f in cert["failures"]), cert["failures"]
    # the step-2 crossing (X-Y against Y) dropped with its regions' orders kept
    b, _ = _crossing(icap, 2)
    cert = _recertify(icap, None, [x for x in icap.breakpoints if x is not b])
    assert cert["certified"] is False
    # steps 2 and 3 exchanged at each special point (k = 0 and k = 1)
    for j, p in enumerate(icap.regions):
        if p.lo == p.hi:
            order = list(p.order)
            order[1], order[2] = order[2], order[1]
            regions = list(icap.regions)
            regions[j] = replace(p, order=tuple(order))
            cert = _recertify(icap, regions)
            assert cert["certified"] is False
            assert any("refuted" in f and "step 2" in f for f in cert["failures"]), cert["failures"]


# ----- other swept parameters: a refusal with a reason, never a traceback ---------------------


@pytest.mark.parametrize("param, lo, hi, expect", [
    # the slope of aX+b: the structure cannot be derived with a symbolic (the features' labels
    # need numbers); it crashed with AttributeError in ParametricStructure before
    ("a", "1/2", "4", "cannot be derived"),
    # an entropy vanishes at an irrational delta inside the range; the sweep took that point
    # and the joint values refused it as if the user had given it (ParameterError)
    ("delta", "1/10", "2", None),
])
def test_3d_row_swept_over_another_parameter(param, lo, hi, expect):
    res = atlas(AtlasSpec(scenario="uniform", method="jmi", reading="unified", parameter=param,
                          lo=lo, hi=hi, fixed=(("k", "1/5"),), digits=20, grid=4),
                certify=True)
    cert = res.certificate
    if expect is None:
        assert cert["certified"] is True, cert.get("failures")
    else:
        assert cert["certified"] is False and expect in cert["reason"], cert
