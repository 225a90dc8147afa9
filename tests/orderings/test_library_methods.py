"""The methods of FEAST and praznik (MIM, CMI, NJMIM, JMI3, beta-gamma, CondRed) on Scenario I at
k = 0.2 and 0.8: each objective at every step of its ordering against the closed forms of
``scenario_one_closed`` (a hand derivation independent of the engine, the sets of any size
included), the orderings against that module's own greedy selection, exact hand values at
k = 0.2, and the same objectives through a second route (the scenario file uniform.toml: no
closed forms, the numerical route for every h, MI(C, V) and MI(V_i, V_j)). Then beta-gamma at
its named points (MIFS, mRMR, CIFE, JMI, CondRed, MIM) on random values, exact and float."""

from __future__ import annotations

import math
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import scenario_one_closed as S
from fstheory.engine.evaluate import evaluate
from fstheory.orderings.arithmetic import EXACT_OPS, FLOAT_OPS, ArrayValues
from fstheory.orderings.greedy import select
from fstheory.orderings.methods import MethodError, get_method
from fstheory.scenarios.registry import get_scenario
from fstheory.scenarios.scenario_file import load_scenario_file
from orderings_strategies import BETAS, float_arrays, scenario_values, to_float

SETTINGS = settings(max_examples=80, deadline=None)
FILE = Path(__file__).parents[2] / "scenarios" / "uniform.toml"
X1, AXB, Y2, XMY, ZZ, Z2, YY, X2, WD, ZW = range(10)

#: (method, reading, beta, gamma, zero_beta) of every row checked, and its closed-form key.
ROWS = [
    (("mim", "original", None, None, "explicit"), ("mim", "original")),
    (("cmi", "original", None, None, "explicit"), ("cmi", "original")),
    (("njmim", "original", None, None, "explicit"), ("njmim", "original")),
    (("jmi3", "original", None, None, "explicit"), ("jmi3", "original")),
    (("condred", "original", None, None, "explicit"), ("condred", "original")),
    (("condred", "feast", None, None, "explicit"), ("condred", "feast")),
] + [((("beta-gamma", "original", b, g, z)), ("beta-gamma", b, g, z))
     for b, g, z in S.BETA_GAMMA]


def _id(row):
    m, reading, b, g, z = row[0]
    return f"{m}-{reading}" + (f"-{b},{g},{z}" if b is not None else "")


@pytest.fixture(scope="module")
def engine():
    return {k: evaluate(get_scenario("uniform").bind(k=k), 30) for k in ("0.2", "0.8")}


@pytest.fixture(scope="module")
def file_route():
    scenario = load_scenario_file(FILE)
    return {k: evaluate(scenario.bind(k=k), 30) for k in ("0.2", "0.8")}


@pytest.fixture(scope="module")
def closed():
    return S.closed_forms()


def _select(v, row):
    m, reading, b, g, z = row
    return select(v, m, b, reading=reading, zero_beta=z, gamma=g)


def _objective(v, row, i, prefix):
    m, reading, b, g, z = row
    return get_method(m).objective(EXACT_OPS, v, i, list(prefix), b, reading=reading,
                                   zero_beta=z, gamma=g)


def _agree(got, want, tol, what):
    """An engine extended real against a closed-form XR: same kind, values within ``tol``."""
    kinds = {"fin": "FINITE", "zero": "FINITE", "+inf": "POS_INF", "-inf": "NEG_INF",
             "ind": "INDETERMINATE"}
    assert got.kind.name == kinds[want.kind], (what, got, want)
    if want.kind == "zero":
        assert got.is_zero, (what, got)
    elif want.kind == "fin":
        assert abs(got.value - want.x) <= tol * max(1, abs(want.x)), (what, got, want)
    elif want.kind == "ind":
        assert got.form.value == want.form, (what, got.form, want.form)


@pytest.mark.slow
@pytest.mark.parametrize("k", ["0.2", "0.8"])
@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_objectives_and_orderings_against_the_closed_forms(engine, closed, k, row):
    """Every candidate's objective at every step of the engine's ordering equals the closed
    form's (30 digits; exact zeros and infinities and indeterminate forms alike), and the
    closed forms' own greedy selection gives the same ordering."""
    spec, key = row
    v = engine[k]
    with mpmath.workdps(30):
        p = S.Point(closed, mpmath.mpf(k))
        r = _select(v, spec)
        for step in r.steps[1:]:
            prefix = r.order[: step.number - 1]
            for c in step.candidates:
                _agree(c.value, S.OBJECTIVES[key](p, c.index, list(prefix)), mpmath.mpf(10) ** -25,
                       (k, key, step.number, c.label))
        order, stopped = S.select(p, key)
    assert tuple(r.order) == order and (r.stop is not None) == stopped, (key, r.order_labels)


@pytest.mark.parametrize("k", ["0.2", "0.8"])
@pytest.mark.parametrize("row", ROWS, ids=_id)
def test_second_route_scenario_file(engine, file_route, k, row):
    """The scenario file (every primitive value from the numerical route) gives the same
    ordering and the same objective values to 20 digits."""
    spec, _ = row
    with mpmath.workdps(30):
        a, b = _select(engine[k], spec), _select(file_route[k], spec)
        assert a.order == b.order and (a.stop is None) == (b.stop is None)
        for sa, sb in zip(a.steps[1:], b.steps[1:]):
            for ca, cb in zip(sa.candidates, sb.candidates):
                assert ca.value.kind is cb.value.kind, (spec, sa.number, ca.label)
                if ca.value.is_finite:
                    assert abs(ca.value.value - cb.value.value) <= mpmath.mpf(10) ** -20 * max(
                        1, abs(ca.value.value)), (spec, sa.number, ca.label)


def test_exact_hand_values_at_k_02(engine):
    """k = 1/5, delta = 1/2 (every h = 0 for X, Y, Z, W+2), S = {X} unless said:
    MI(C,X) = ln 2 - k/2, MI(C;{X,Y}) = MI(C;{X,X-Y}) = ln 2, MI(C;{X,Y^2}) = ln 2 (1 - k/2)."""
    v = engine["0.2"]
    with mpmath.workdps(30):
        k = mpmath.mpf(1) / 5
        ln2 = mpmath.log(2)
        tol = mpmath.mpf(10) ** -28

        def obj(m, i, Sel=(X1,), **kw):
            return get_method(m).objective(EXACT_OPS, v, i, list(Sel), **kw)

        # CMI: MI(C;Y|X) = k/2; MI(C;Y^2|X) = k/2 - k ln 2 / 2; 3X+1 and Z add nothing: exact 0
        assert abs(obj("cmi", YY).value - k / 2) < tol
        assert abs(obj("cmi", Y2).value - (k / 2 - k * ln2 / 2)) < tol
        assert obj("cmi", AXB).is_zero and obj("cmi", ZZ).is_zero
        # given {X, X-Y} the class is known: every MI(C;Vi|S) is an exact 0
        assert all(obj("cmi", i, (X1, XMY)).is_zero for i in (AXB, Y2, YY, X2, ZW))
        # MIM: MI(C, Y)
        assert obj("mim", YY).same(v.mi_c(YY))
        # NJMIM: Y given X: ln 2 / H(X,Y,C) = ln 2 / 0 = +inf; Z given X: (ln 2 - k/2)/(k/2)
        assert obj("njmim", YY).is_pos_inf
        assert abs(obj("njmim", ZZ).value - (ln2 - k / 2) / (k / 2)) < tol
        # JMI3 with S = {X, X-Y, 3X+1}: Y: 3 ln 2; Y^2: 2 ln 2 + ln 2 (1 - k/2)
        three = (X1, XMY, AXB)
        assert abs(obj("jmi3", YY, three).value - 3 * ln2) < tol
        assert abs(obj("jmi3", Y2, three).value - (2 * ln2 + ln2 * (1 - k / 2))) < tol
        # CondRed: Y: MI(C,Y) + MI(X;Y|C) = k/2 (MI(X;Y|C) = 0 - MI(C,X) - MI(C,Y) + ln 2);
        # 3X+1: +inf (no joint density given C); FEAST's form: 0 * inf
        assert abs(obj("condred", YY).value - k / 2) < tol
        assert obj("condred", AXB).is_pos_inf
        feast = obj("condred", AXB, reading="feast")
        assert feast.is_indeterminate and feast.form.value == "0*inf"
        # beta-gamma (1/2, 1/4): MI(C,Y) - 0/2 + (k/2 - MI(C,Y))/4
        mcy = v.mi_c(YY).value
        got = obj("beta-gamma", YY, beta="1/2", gamma="1/4").value
        assert abs(got - (mcy + (k / 2 - mcy) / 4)) < tol


def test_stops_and_refusals_on_scenario_i(engine):
    """beta-gamma at (1/|S|, 0) as written stops where sum MI(Vi;Vs|C) is +inf (0 * inf); with
    zero_beta='drop' it is mRMR's ordering (which ranks those candidates last, at -inf)."""
    v = engine["0.2"]
    explicit = select(v, "beta-gamma", "1/|S|", gamma="0")
    dropped = select(v, "beta-gamma", "1/|S|", gamma="0", zero_beta="drop")
    mrmr = select(v, "mrmr")
    assert dropped.order == mrmr.order and dropped.stop is None
    assert explicit.order == mrmr.order[: len(explicit.order)] and explicit.stop is not None
    assert {c.form for c in explicit.stop.candidates} == {"0*inf"}
    assert explicit.describe_method() == ("beta-gamma (beta=1/|S|, gamma=0, zero-beta explicit, "
                                          "original reading)")


@pytest.mark.parametrize("kw, message", [
    ({"beta": "0.5"}, "parameter 'gamma' is required for beta-gamma"),
    ({"gamma": "0.5"}, "parameter 'beta' is required for beta-gamma"),
    ({"beta": "2", "gamma": "0"}, r"parameter 'beta' of beta-gamma must be in \[0, 1\]"),
    ({"beta": "0", "gamma": "-1"}, r"parameter 'gamma' of beta-gamma must be in \[0, 1\]"),
    ({"beta": "1/|T|", "gamma": "0"}, r"parameter 'beta' of beta-gamma must be a number in "
                                      r"\[0, 1\] or 1/\|S\|"),
    ({"beta": "0", "gamma": "1", "reading": "unified"}, "parameter 'reading' must be one of "
                                                        "original, feast"),
])
def test_beta_gamma_bad_parameters(kw, message):
    with pytest.raises(MethodError, match=message):
        get_method("beta-gamma").check(kw.get("beta"), kw.get("reading"), "explicit",
                                       kw.get("gamma"))


def test_gamma_refused_and_per_step_only_for_beta_gamma():
    with pytest.raises(MethodError, match=r"parameter 'gamma' is not accepted by CMI \(only "
                                          r"beta-gamma takes gamma\)"):
        get_method("cmi").check(gamma="0.5")
    with pytest.raises(MethodError, match=r"parameter 'beta' of MIFS must be a number in \[0, 1\]"):
        get_method("mifs").check("1/|S|")


# ----- beta-gamma at its named points, random values ---------------------------------------------


def _same(a, b):
    assert a.kind is b.kind, (a, b)
    if a.is_finite:
        assert abs(a.value - b.value) <= mpmath.mpf(10) ** -25 * max(1, abs(a.value)), (a, b)
    if a.is_indeterminate:
        assert b.is_indeterminate


def _draw_step(v, data):
    n = v.n_features
    i = data.draw(st.integers(0, n - 1))
    sel = data.draw(st.lists(st.integers(0, n - 1).filter(lambda s: s != i), min_size=1,
                             max_size=n - 1, unique=True))
    return i, sel


@SETTINGS
@given(scenario_values(min_n=2, max_n=5), st.sampled_from(BETAS), st.data())
def test_beta_gamma_named_points_exact(v, beta, data):
    """At its named points beta-gamma is MIFS (beta, 0), mRMR (1/|S|, 0), CondRed (0, 1) and MIM
    (0, 0) with zero_beta='drop', CIFE (1, 1), and JMI (1/|S|, 1/|S|): the unified reading
    exactly, the original one as |S| * beta-gamma + sum_s MI(C,Vs) wherever beta-gamma is
    determinate. With zero_beta='explicit' MIFS and mRMR agree wherever sum_s MI(Vi;Vs|C) is
    finite."""
    i, sel = _draw_step(v, data)
    bg = get_method("beta-gamma")

    def at(b, g, z="explicit", reading="original"):
        return bg.objective(EXACT_OPS, v, i, sel, b, gamma=g, zero_beta=z, reading=reading)

    def other(name, b=None, **kw):
        return get_method(name).objective(EXACT_OPS, v, i, sel, b, **kw)

    with mpmath.workdps(30):
        for reading in ("original", "feast"):
            _same(at(beta, 0, "drop", reading), other("mifs", beta, zero_beta="drop"))
            _same(at("1/|S|", 0, "drop", reading), other("mrmr"))
            _same(at(0, 1, "drop", reading), other("condred"))
            _same(at(0, 0, "drop", reading), other("mim"))
            _same(at(1, 1, reading=reading), other("cife"))
            _same(at("1/|S|", "1/|S|", reading=reading), other("jmi", reading="unified"))
        conditional_finite = all(v.mi_given_c(i, s).is_finite for s in sel)
        if conditional_finite and beta != 0:
            _same(at(beta, 0), other("mifs", beta))
            _same(at("1/|S|", 0), other("mrmr"))
        unified = at("1/|S|", "1/|S|")
        if unified.is_finite:
            jmi = other("jmi")
            want = len(sel) * unified.value + sum(v.mi_c(s).value for s in sel)
            assert abs(jmi.value - want) <= mpmath.mpf(10) ** -25 * max(1, abs(want))


def _joint_arrays(vals):
    n = vals[0].n_features

    def mat(f):
        return np.array([[[to_float(f(v)(a, b)) for b in range(n)] for a in range(n)] for v in vals])

    return {"h_c": np.array([to_float(v.h_c()) for v in vals]),
            "mi_c_pair": mat(lambda v: v.mi_c_pair), "cmi_c": mat(lambda v: v.cmi_c),
            "mi_given_c": mat(lambda v: v.mi_given_c), "h_pair_c": mat(lambda v: v.h_pair_c)}


def _float_same(a, b):
    assert np.array_equal(np.isnan(a), np.isnan(b)), (a, b)
    ok = ~np.isnan(a)
    assert np.array_equal(np.isinf(a[ok]), np.isinf(b[ok])) and np.allclose(a[ok], b[ok], rtol=1e-12,
                                                                               atol=1e-12), (a, b)


@pytest.mark.slow
@SETTINGS
@given(st.lists(scenario_values(n=5), min_size=1, max_size=3), st.sampled_from(BETAS), st.data())
def test_beta_gamma_named_points_float(vals, beta, data):
    """The same identities on float arrays over replications (NaN where indeterminate), and each
    float value against the exact world's."""
    reps = len(vals)
    arrays = ArrayValues(*float_arrays(vals), joint=_joint_arrays(vals))
    i = np.array(data.draw(st.lists(st.integers(0, 4), min_size=reps, max_size=reps)))
    sel = [data.draw(st.lists(st.integers(0, 4).filter(lambda s, r=r: s != i[r]), min_size=2,
                              max_size=2, unique=True)) for r in range(reps)]
    S_arr = [np.array([sel[r][p] for r in range(reps)]) for p in range(2)]
    bg = get_method("beta-gamma")

    def at(b, g, z="explicit", reading="original"):
        return bg.objective(FLOAT_OPS, arrays, i, S_arr, b, gamma=g, zero_beta=z, reading=reading)

    def other(name, b=None, **kw):
        return get_method(name).objective(FLOAT_OPS, arrays, i, S_arr, b, **kw)

    with np.errstate(all="raise"):
        for reading in ("original", "feast"):
            _float_same(at(float(beta), 0, "drop", reading), other("mifs", float(beta),
                                                                   zero_beta="drop"))
            _float_same(at("1/|S|", 0, "drop", reading), other("mrmr"))
            _float_same(at(0, 1, "drop", reading), other("condred"))
            _float_same(at(1, 1, reading=reading), other("cife"))
            _float_same(at("1/|S|", "1/|S|", reading=reading), other("jmi", reading="unified"))
        got = at(float(beta), "1/|S|")
    with mpmath.workdps(30):
        for r in range(reps):
            exact = bg.objective(EXACT_OPS, vals[r], int(i[r]), sel[r], beta, gamma="1/|S|")
            if exact.is_indeterminate:
                assert math.isnan(got[r])
            elif exact.is_infinite:
                assert got[r] == to_float(exact)
            else:
                assert abs(got[r] - float(exact.value)) <= 1e-9 * max(1, abs(float(exact.value)))


def test_named_points_table_is_what_the_registry_says():
    """NAMED_POINTS (library_objectives) maps each named method to its coordinates."""
    from fstheory.orderings.library_objectives import NAMED_POINTS, PER_STEP

    assert NAMED_POINTS["mrmr"][0] == (PER_STEP, Fraction(0))
    assert NAMED_POINTS["jmi"][0] == (PER_STEP, PER_STEP) and NAMED_POINTS["jmi"][1] == "unified"
    assert NAMED_POINTS["condred"][0] == (Fraction(0), Fraction(1))
    assert str(PER_STEP) == "1/|S|"


NEVER = [("mrmr", None), ("maxmifs", None), ("jmi", "original"), ("jmi", "interaction"),
         ("cmim", "original"), ("cmim", "fleuret"), ("jmim", "original"), ("cife", "interaction"),
         ("icap", "interaction"), ("mim", "original"), ("cmi", "original"),
         ("jmi3", "original"), ("condred", "original")]


@pytest.mark.slow
@SETTINGS
@given(scenario_values(min_n=2, max_n=5), st.data())
def test_objectives_said_never_indeterminate(v, data):
    """docs/orderings.md, 'Every method': the objectives listed as never indeterminate are never
    indeterminate on random values with null and negative entropies and infinite MIs; beta-gamma
    with beta, gamma > 0 is indeterminate exactly where a selected feature has MI(Vi,Vs) = +inf
    (inf-inf), and CondRed's feast reading there too (0*inf)."""
    i, sel = _draw_step(v, data)
    with mpmath.workdps(30):
        for name, reading in NEVER:
            assert not get_method(name).objective(EXACT_OPS, v, i, sel,
                                                  reading=reading).is_indeterminate, name
        dependent = any(v.mi(i, s).is_pos_inf for s in sel)
        bg = get_method("beta-gamma").objective(EXACT_OPS, v, i, sel, "1/2", gamma="1/4")
        assert bg.is_indeterminate == dependent
        assert bg.is_indeterminate <= (bg.form is not None and bg.form.value == "inf-inf")
        feast = get_method("condred").objective(EXACT_OPS, v, i, sel, reading="feast")
        assert feast.is_indeterminate == dependent


# ----- the command line and the atlas ------------------------------------------------------------


def test_order_command_with_beta_and_gamma(capsys):
    import json

    from fstheory.cli import main

    assert main(["order", "--k", "0.2", "--method", "beta-gamma", "--beta", "1/|S|", "--gamma",
                 "0", "--zero-beta", "drop", "--digits", "20", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["beta"] == "1/|S|" and out["gamma"] == 0.0 and out["params"]["zero_beta"] == "drop"
    assert out["labels"][:4] == ["X", "Y", "Z", "W+2"]
    for argv, fragment in [
        (["--method", "beta-gamma", "--beta", "0.5"], "parameter 'gamma' is required for beta-gamma"),
        (["--method", "cmi", "--gamma", "0.5"], "parameter 'gamma' is not accepted by CMI"),
        (["--method", "beta-gamma", "--beta", "0.5", "--gamma", "1.5"],
         "parameter 'gamma' of beta-gamma must be in [0, 1] (got 1.5)"),
    ]:
        assert main(["order", "--k", "0.2", *argv]) == 2
        err = capsys.readouterr().err
        assert err.startswith("fstheory: error: ") and err.count("\n") == 1 and fragment in err


@pytest.mark.slow
def test_atlas_rows_of_cmi_and_beta_gamma_are_certified_on_scenario_i():
    """CMI reads MI(C; V_S) of growing sets, each reduced by the open derivation to a leaf of
    the certificate (H(C), MI(C, V), a pair); beta-gamma takes its gamma through the spec."""
    from fstheory.atlas.sweep import AtlasSpec, atlas

    for spec in (AtlasSpec(method="cmi", parameter="k", lo="0", hi="1", scenario="uniform",
                           digits=12, grid=6),
                 AtlasSpec(method="beta-gamma", parameter="k", lo="0", hi="1", scenario="uniform",
                           beta="1/2", gamma="1/2", digits=12, grid=6)):
        r = atlas(spec).to_json()
        assert r["certificate"]["certified"], r["certificate"]
        if spec.method == "cmi":
            assert r["regions"][-1]["order"][:3] == ["X", "X-Y", "3X+1"]
        else:  # step 2 is MIM's: X-Y before Y up to MI(C,X-Y) = MI(C,Y), k = 0.59707...
            assert [(g["to"][:8], g["order"][:3]) for g in r["regions"]] == [
                ("0.597077", ["X", "X-Y", "Y"]), ("1", ["X", "Y", "X-Y"])]


def test_a_set_left_with_more_than_three_features_is_refused_with_the_reason():
    """The numerical route integrates sets of at most three features: a set that the structural
    reductions leave with four is "not computed", naming them, before any integration."""
    from types import SimpleNamespace

    from fstheory.engine.derive_joint import SetDerivation
    from fstheory.engine.evaluate_sets import SetQuantities

    labels = ("A", "B", "C", "D", "E")
    derivation = SetDerivation("numeric", (0, 1, 2, 3), "numerical route")
    sets = SimpleNamespace(structure=SimpleNamespace(mi_class_set=lambda S: derivation),
                           values=SimpleNamespace(labels=labels),
                           label=lambda S: "MI(C;{" + ",".join(labels[i] for i in S) + "})")
    x = SetQuantities(sets).mi_c_set((3, 1, 0, 2))
    assert x.is_indeterminate and x.form.value == "not computed"
    assert x.cause == ("MI(C;{A,B,C,D}) not computed: 4 features are left after the structural "
                       "reductions (A, B, C, D); the numerical route integrates at most 3")


@settings(max_examples=20, deadline=None)
@given(scenario_values(n=5))
def test_cmi_stops_undecided_where_a_set_is_not_computed(v):
    """CMI at a step whose sets are all not computed stops there, undecided (fstheory order
    exits 3): no candidate is known, so none can be passed over."""
    from orderings_strategies import RandomSets, _nc

    class Partial(RandomSets):
        def mi_c_set(self, T):
            T = sorted(set(int(t) for t in T))
            return _nc("MI(C;{...})") if len(T) >= 3 else super().mi_c_set(T)

    object.__setattr__(v, "sets", Partial(v))
    r = select(v, "cmi")
    assert r.undecided and r.stop.after == 2 and len(r.order) == 2
    assert all("not computed" in m for m in r.stop.missing)


def test_committed_library_atlas_rows():
    """reports/atlas/klib_<scenario>.json hold one row per library method and reading, and every
    row but NJMIM's is certified (reports/atlas/README.md says why NJMIM's is not)."""
    import json

    from fstheory.atlas.report import SCENARIOS, rows_libraries

    atlas_dir = Path(__file__).parents[2] / "reports" / "atlas"
    for s in SCENARIOS:
        rows = json.loads((atlas_dir / f"klib_{s}.json").read_text(encoding="utf-8"))
        want = [get_method(m).describe(b, r, "explicit", g) for m, r, b, g in rows_libraries()]
        assert [r["method"] for r in rows] == want, s
        assert [r["certificate"]["certified"] for r in rows] == [
            not r["method"].startswith("NJMIM") for r in rows], s


def test_beta_swept_with_zero_beta_drop_says_the_term_is_left_out():
    from fstheory.atlas.sweep import AtlasSpec, atlas

    spec = AtlasSpec(method="mifs", parameter="beta", lo="0", hi="1", scenario="uniform",
                     fixed=(("k", "0.2"),), zero_beta="drop", digits=10, grid=6)
    causes = [b["cause"] for b in atlas(spec, certify=False).to_json()["breakpoints"]]
    assert "beta = 0 exactly (the redundancy term is left out there: --zero-beta drop)" in causes
