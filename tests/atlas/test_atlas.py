"""The atlas: breakpoints against independently solved crossings, regions against `fstheory
order` at their midpoints, special points, bad input, workers, reproducible figures."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from fractions import Fraction

import mpmath
import pytest
import sympy as sp

from fstheory.cli import main
from fstheory.atlas.sweep import AtlasSpec, atlas
from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario

pytestmark = pytest.mark.slow

k = sp.Symbol("k", positive=True)
# Scenario I closed forms as printed in the paper's Table "General expression ... Scenario I",
# typed here as the independent route (the engine derives its own).
MI_Y = ((k**2 + 1) * sp.log((1 + k) / (1 - k)) + 2 * k * (sp.log(1 - k**2) - 1)) / (4 * k)
MI_XY = -((1 - k) ** 2) * sp.log(1 - k) / (4 * k)

MIFS_04 = AtlasSpec(scenario="uniform", method="mifs", beta="0.4", parameter="k", lo="0.05",
                    hi="0.3", digits=20, grid=8)


@pytest.fixture(scope="module")
def mifs04():
    return atlas(MIFS_04, certify=False)


def test_crossing_matches_sympy_nsolve(mifs04):
    # step 2 after X: obj(X-Y) = MI(C,X-Y) - 0.4 MI(X-Y,X) with MI(X-Y,X) = 1/2 (h(X-Y) - h(Y));
    # obj(Y) = MI(C,Y) - 0.4 * 0 (independent of X)
    (bp,) = mifs04.breakpoints
    assert bp.step == 2 and set(bp.between) == {"X-Y", "Y"}
    root = sp.nsolve(MI_XY - sp.Rational(2, 5) * sp.Rational(1, 2) - MI_Y, k, 0.13, prec=40)
    with mpmath.workdps(40):
        assert abs(mpmath.mpf(bp.at) - mpmath.mpf(str(root))) < mpmath.mpf(10) ** -21
    assert mifs04.to_json()["breakpoints"][0]["at"].startswith(str(root)[:21])


def _order_cli(args) -> list[str]:
    buf = io.StringIO()
    with redirect_stdout(buf):
        assert main(["order", "--json", *args]) == 0
    return json.loads(buf.getvalue())["labels"]


def test_regions_agree_with_order_at_midpoints(mifs04):
    js = mifs04.to_json()
    assert len(js["regions"]) == 2
    for reg in js["regions"]:
        mid = (Fraction(reg["from"]) + Fraction(reg["to"])) / 2
        mid = Fraction(round(mid * 10**12), 10**12)
        got = _order_cli(["--scenario", "uniform", "--method", "mifs", "--beta", "0.4",
                          "--k", f"{mid.numerator}/{mid.denominator}"])
        assert got == reg["order"]


def test_beta_breakpoints_are_exact_ratios():
    # MIFS objectives are affine in beta: obj_i = MI(C,Vi) - beta * sum_s MI(Vi,Vs); a crossing
    # of i and j after the same prefix is at beta = (MI(C,Vi) - MI(C,Vj)) / (sum_i - sum_j).
    spec = AtlasSpec(scenario="normal", method="mifs", parameter="beta", lo="0", hi="1",
                     fixed=(("k", "0.2"),), digits=20, grid=16)
    res = atlas(spec, certify=False)
    v = evaluate(get_scenario("normal").bind(k="0.2"), 30)
    labels = list(v.labels)
    crossings = [b for b in res.breakpoints if b.kind == "crossing"]
    assert crossings
    with mpmath.workdps(30):
        for b in crossings:
            left = next(r for r in res.regions if r.hi is b.at)
            prefix = left.order[: b.step - 1]
            i, j = (labels.index(x) for x in b.between)

            def parts(c, prefix=prefix):
                red = sum((v.mi(c, s).value for s in prefix), mpmath.mpf(0))
                return v.mi_c(c).value, red

            (ai, bi), (aj, bj) = parts(i), parts(j)
            exact = (ai - aj) / (bi - bj)
            assert abs(mpmath.mpf(b.at) - exact) < mpmath.mpf(10) ** -21


def test_change_at_an_end_of_the_range():
    # MI(C_0, Y) = 0 exactly: at k = 0 Y^2 (V3) ties with Y (V7) and wins by index
    spec = AtlasSpec(scenario="uniform", method="mifs", beta="1", parameter="k", lo="0",
                     hi="0.1", digits=20, grid=4)
    js = atlas(spec, certify=False).to_json()
    assert [(r["from"], r["to"]) for r in js["regions"]] == [("0", "0"), ("0", "0.1")]
    assert js["regions"][0]["order"][:2] == ["X", "Y^2"]
    assert js["regions"][1]["order"][:2] == ["X", "Y"]
    assert js["breakpoints"] == [{"at": "0", "step": 2, "cause": "MI(C,Y) = 0 exactly",
                                  "between": ["Y^2", "Y"]}]


def test_entropy_zero_is_a_special_point():
    # h(X) = ln(2 delta) changes sign at delta = 1/2: MIFS-U divides by it
    spec = AtlasSpec(scenario="uniform", method="mifs-u", beta="0.4", parameter="delta",
                     lo="0.4", hi="0.6", fixed=(("k", "0.2"),), digits=20, grid=4)
    js = atlas(spec, certify=False).to_json()
    at_half = [b for b in js["breakpoints"] if b["at"] == "0.5"]
    assert at_half and "h(X) changes sign" in at_half[0]["cause"]
    assert any(r["from"] == r["to"] == "0.5" for r in js["regions"])


def test_scale_sweep_through_irrational_entropy_zeros():
    # Scenario III over its scale: h(X) = 1 + ln(2 scale) is 0 at exp(-1)/2 and h(Y^2) at
    # sqrt(2) exp(-1/2 + gamma/2)/2, irrational special points; MI(C, V) comes from the numerical
    # route, which binds the scenario at rational points only (this crashed in bound_at: the
    # grid between two irrational special points, and the special points themselves). MI(C, V)
    # is free of the scale (atlas/certificate/laplace.py), so it is not a varying quantity.
    spec = AtlasSpec(scenario="laplace", method="micc", parameter="scale", lo="1/10", hi="2",
                     fixed=(("k", "1/5"),), digits=12, grid=8)
    res = atlas(spec, certify=False)
    zero = sp.exp(-1) / 2
    assert zero in res.special
    js = res.to_json()
    at_zero = [b for b in js["breakpoints"] if b["at"] == "0.183939720586"]
    assert at_zero and "h(X) changes sign" in at_zero[0]["cause"]
    assert any(r["from"] == r["to"] == "0.183939720586" for r in js["regions"])
    # the values at the irrational point: h(X) exactly 0, MI(C, V) those of any rational scale
    # (checked at two, independently of the scale-freeness the sweep relies on)
    from fstheory.atlas.sweep import sweep_of

    v = sweep_of(spec).values(zero, exact=True)
    assert v.h(0).is_zero
    third, three = (evaluate(get_scenario("laplace").bind(k=sp.Rational(1, 5), scale=s), 12)
                    for s in (sp.Rational(1, 3), sp.Integer(3)))
    for i in (0, 3, 6):
        assert abs(third.mi_c(i).value - three.mi_c(i).value) < 1e-14
        assert abs(v.mi_c(i).value - third.mi_c(i).value) < 1e-14
    for reg in js["regions"]:  # the two sides of h(X) = 0
        if reg["from"] != reg["to"] and "0.183939720586" in (reg["from"], reg["to"]):
            mid = (Fraction(reg["from"]) + Fraction(reg["to"])) / 2
            got = _order_cli(["--scenario", "laplace", "--method", "micc", "--k", "1/5",
                              "--param", f"scale={mid.numerator}/{mid.denominator}"])
            assert got == reg["order"][:len(got)] and len(got) == len(reg["order"])


def test_irrational_special_point_without_closed_forms_is_refused(tmp_path, capsys):
    # the class X + Y >= 1 is not scale-free: MI(C, X) varies with the scale and has no closed
    # form, so at h(X) = 0 (scale = exp(-1)/2) it cannot be computed: one line, exit 2
    f = tmp_path / "shifted.toml"
    f.write_text('name = "shifted"\ntitle = "t"\n[parameters.scale]\ndefault = "1/2"\n'
                 'domain = "positive"\n[base.X]\nlaw = "laplace"\nmu = "0"\nb = "scale"\n'
                 '[base.Y]\nlaw = "laplace"\nmu = "0"\nb = "scale"\n[[features]]\n'
                 'expr = "X"\n[[features]]\nexpr = "Y^2"\n[class]\nrule = "X + Y >= 1"\n')
    rc = main(["atlas", "--scenario-file", str(f), "--method", "micc", "--vary", "scale",
               "--range", "1/10:1", "--grid", "4", "--digits", "10"])
    err = [ln for ln in capsys.readouterr().err.strip().splitlines()
           if not ln.startswith("atlas:")]
    assert rc == 2 and len(err) == 1, err
    assert "'scale'" in err[0] and "MI(C,X)" in err[0] and "exp(-1)/2" in err[0]


def test_same_result_whatever_the_workers(mifs04):
    two = atlas(MIFS_04, jobs=2, certify=False)
    assert two.to_json() == mifs04.to_json()


@pytest.mark.parametrize("argv, name", [
    (["--vary", "kk"], "vary"),
    (["--vary", "k", "--range", "0.5:2"], "k"),
    (["--vary", "k", "--range", "0.5:0.5"], "k"),
    (["--vary", "k", "--vary", "k"], "vary"),
    (["--vary", "k", "--k", "0.2"], "k"),
])
def test_bad_input_one_line_exit_2(argv, name, capsys):
    rc = main(["atlas", "--scenario", "uniform", "--method", "mifs", "--beta", "0.4", *argv])
    err = capsys.readouterr().err.strip().splitlines()
    assert rc == 2 and len(err) == 1 and f"'{name}'" in err[0]


def test_phase_map_files_are_byte_identical(tmp_path):
    from fstheory.atlas.figures import write_map
    from fstheory.atlas.phase_map import phase_map

    ks = AtlasSpec(scenario="uniform", method="mifs", parameter="k", lo="0.1", hi="0.3", digits=20)
    bs = AtlasSpec(scenario="uniform", method="mifs", parameter="beta", lo="0", hi="1", digits=20,
                   grid=6)
    outs = []
    for n in (1, 2):
        pm = phase_map([ks, bs], columns=3, optimal_sets=(frozenset({0, 6}),))
        outs.append([p.read_bytes() for p in write_map(pm, tmp_path / f"m{n}")])
    assert outs[0] == outs[1]
    js = json.loads(outs[0][2])
    assert js["parameters"] == ["k", "beta"] and js["boundaries"]
    assert any(o["optimal_first_set"] for o in js["orderings"])


def test_phase_map_marks_optimal_sets_derived_per_column():
    # at k = 0 the class is a function of X: the optimal sets are {X} and {3X+1}; at k = 1/5
    # they are pairs. Each column's regions are marked with its own sets.
    from fstheory.atlas.phase_map import first_set_optimal, phase_map
    from fstheory.engine.relevance import relevance_optimal_sets

    ks = AtlasSpec(scenario="uniform", method="mifs", parameter="k", lo="0", hi="0.2", digits=20)
    bs = AtlasSpec(scenario="uniform", method="mifs", parameter="beta", lo="0.5", hi="1",
                   digits=20, grid=4)
    pm = phase_map([ks, bs], columns=2, optimal_sets="derive", certify=True)
    sc = get_scenario("uniform")
    for j, k_at in enumerate(("0", "1/5")):
        sets = relevance_optimal_sets(sc.bind(k=k_at), digits=30)
        assert pm.column_sets[j] == sets
        for region in pm.to_json()["columns"][j]["regions"]:
            order = pm.orderings()[region["ordering"]][0]
            assert region["optimal_first_set"] == first_set_optimal(order, sets)
    assert {len(s) for s in pm.column_sets[0]} == {1} and {len(s) for s in pm.column_sets[1]} == {2}
    assert any("relevance_optimal_sets" in n for n in pm.notes)
    assert any(n.startswith("certificate: every column") for n in pm.notes)
