"""The method registry, its input checks, its readings, and the two arithmetic worlds."""

from __future__ import annotations

import math
from fractions import Fraction

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import exact_values_fixture as fixture
from fstheory.orderings.arithmetic import EXACT_OPS, FLOAT_OPS, ArrayValues, TracingExactOps
from fstheory.orderings.methods import METHODS, MethodError, get_method, method_names, parse_beta
from orderings_strategies import BETAS, float_arrays, scenario_values
from fstheory.theory.extended import xr, xsum

# per-test settings (a loaded profile would change every hypothesis test in the session)
SETTINGS = settings(max_examples=120, deadline=None)

NAMES = ["mifs", "mifs-u", "mrmr", "mmifs-u", "micc", "qmifs", "nmifs", "maxmifs"]
DISPLAY = ["MIFS", "MIFS-U", "mRMR", "mMIFS-U", "MICC", "QMIFS", "NMIFS", "maxMIFS"]
NAMES3 = ["jmi", "cmim", "jmim", "cife", "disr", "icap"]
NAMES_LIB = ["mim", "cmi", "njmim", "jmi3", "beta-gamma", "condred"]

# ----- registry and bad input ---------------------------------------------------------------------


def test_registry_names_and_display():
    assert method_names(family="paper") == NAMES and method_names(family="3d") == NAMES3
    assert method_names(family="libraries") == NAMES_LIB
    assert method_names() == NAMES + NAMES3 + NAMES_LIB
    assert method_names(2) == NAMES + ["mim"]
    assert method_names(3) == NAMES3 + ["njmim", "beta-gamma", "condred"]
    assert method_names(4) == ["jmi3"] and get_method("cmi").dimension is None
    assert [get_method(n).display for n in NAMES] == DISPLAY
    assert [get_method(n).display for n in NAMES3] == ["JMI", "CMIM", "JMIM", "CIFE", "DISR", "ICAP"]
    assert [get_method(n).display for n in NAMES_LIB] == ["MIM", "CMI", "NJMIM", "JMI3",
                                                          "beta-gamma", "CondRed"]
    assert [n for n in method_names() if get_method(n).has_beta] == ["mifs", "mifs-u", "beta-gamma"]
    assert [n for n in method_names() if get_method(n).has_gamma] == ["beta-gamma"]
    assert get_method("BetaGamma") is get_method("beta-gamma")


@pytest.mark.parametrize("name", ["MIFS-U", "mifs-u", "Mifs-U", " mMIFS-U ", "MAXMIFS", "mRMR"])
def test_lookup_is_case_insensitive(name):
    assert get_method(name).key == name.strip().lower()


@pytest.mark.parametrize("name", ["mifsu", "mimm", "", None, 3])
def test_unknown_method(name):
    with pytest.raises(MethodError, match=r"parameter 'method' must be one of mifs, mifs-u, mrmr, "
                                          r"mmifs-u, micc, qmifs, nmifs, maxmifs, jmi, cmim, jmim, "
                                          r"cife, disr, icap, mim, cmi, njmim, jmi3, beta-gamma, "
                                          r"condred"):
        get_method(name)


@pytest.mark.parametrize("beta", [-0.1, 1.5, "2", "-1e-9", Fraction(11, 10)])
def test_beta_outside_range(beta):
    for name in ("mifs", "mifs-u"):
        with pytest.raises(MethodError, match=r"parameter 'beta' of MIFS(-U)? must be in \[0, 1\]"):
            get_method(name).check(beta)


@pytest.mark.parametrize("beta", ["abc", float("nan"), float("inf"), True, "1/0", [0.5]])
def test_beta_not_a_number(beta):
    with pytest.raises(MethodError, match=r"parameter 'beta' of MIFS must be a number in \[0, 1\]"):
        get_method("mifs").check(beta)


@pytest.mark.parametrize("name", ["mrmr", "mmifs-u", "micc", "qmifs", "nmifs", "maxmifs"])
def test_beta_refused_by_methods_without_one(name):
    with pytest.raises(MethodError, match=r"parameter 'beta' is not accepted by .*only mifs, "
                                          r"mifs-u and beta-gamma take beta, in \[0, 1\]"):
        get_method(name).check(0.5)
    with pytest.raises(MethodError):
        get_method(name).check(0)


@pytest.mark.parametrize("name", ["mifs", "mifs-u"])
def test_beta_required(name):
    with pytest.raises(MethodError, match=r"parameter 'beta' is required for MIFS(-U)? \(a number in \[0, 1\]\)"):
        get_method(name).check(None)


def test_bad_reading_and_zero_beta():
    with pytest.raises(MethodError, match=r"parameter 'reading' must be one of table, text"):
        get_method("qmifs").check(reading="paper")
    with pytest.raises(MethodError, match=r"parameter 'reading' must be one of original, fleuret, "
                                          r"unified \(got 'table'\)"):
        get_method("cmim").check(reading="table")
    with pytest.raises(MethodError, match=r"parameter 'zero_beta' must be one of explicit, drop"):
        get_method("mifs").check(0, zero_beta="ignore")


def test_method_error_is_a_value_error():
    assert issubclass(MethodError, ValueError)


@pytest.mark.parametrize("text,want", [("0.4", Fraction(2, 5)), (0.7, Fraction(7, 10)), (1, 1),
                                       ("0", 0), (Fraction(1, 3), Fraction(1, 3)), ("1/4", Fraction(1, 4))])
def test_parse_beta_is_exact(text, want):
    assert parse_beta(text) == want


def test_objective_needs_a_selected_feature():
    v = fixture.scenario_i("0.2")
    with pytest.raises(MethodError, match="S is empty"):
        get_method("mrmr").objective(EXACT_OPS, v, 1, [])


# ----- objectives at hand-computed points --------------------------------------------------------


def test_objectives_at_a_hand_computed_point():
    """Scenario I, k = 0.2, S = {X}: hand values from the closed forms."""
    v = fixture.scenario_i("0.2")
    with mpmath.workdps(30):
        mic_xy = v.mi_c(3).value  # MI(C, X-Y)
        m = {name: get_method(name) for name in NAMES}
        assert m["mifs"].objective(EXACT_OPS, v, 3, [0], "0.4").value == mic_xy - mpmath.mpf("0.4") / 2
        assert m["mrmr"].objective(EXACT_OPS, v, 3, [0]).value == mic_xy - mpmath.mpf(1) / 2
        assert m["maxmifs"].objective(EXACT_OPS, v, 3, [0, 6]).value == mic_xy - mpmath.mpf(1) / 2
        # mRMR with S = {X, Y}: mean(1/2, 1/2) = 1/2 ; MIFS beta=1: sum = 1
        assert m["mrmr"].objective(EXACT_OPS, v, 3, [0, 6]).value == mic_xy - mpmath.mpf(1) / 2
        assert m["mifs"].objective(EXACT_OPS, v, 3, [0, 6], 1).value == mic_xy - 1
        # NMIFS, S = {X-Y}: NI(Z+W, X-Y) = 0 ; NI(X, X-Y) = 1/2 / min(0, 1/2) = +inf
        assert m["nmifs"].objective(EXACT_OPS, v, 9, [3]).value == 0
        assert m["nmifs"].objective(EXACT_OPS, v, 0, [3]).is_neg_inf
        # a candidate fully associated with a selected one
        assert m["maxmifs"].objective(EXACT_OPS, v, 7, [0]).is_neg_inf


@pytest.mark.slow
def test_scenario_ii_mifs_u_step2_value():
    """MI(C,X-Y) - beta * MI(C,X)/h(X) * MI(X-Y,X), h(X) = ln(2 pi e)/2, MI = ln2/2."""
    v = fixture.evaluated("normal", k="0.2")
    with mpmath.workdps(30):
        got = get_method("mifs-u").objective(EXACT_OPS, v, 3, [0], "0.7").value
        want = v.mi_c(3).value - mpmath.mpf("0.7") * v.mi_c(0).value / (
            mpmath.log(2 * mpmath.pi * mpmath.e) / 2) * mpmath.log(2) / 2
        assert abs(got - want) < mpmath.mpf(10) ** -27


# ----- readings -----------------------------------------------------------------------------------


def same_kind_and_value(a, b):
    assert a.kind is b.kind, (a, b)
    if a.is_finite:
        assert abs(a.value - b.value) <= mpmath.mpf(10) ** -20 * max(1, abs(a.value)), (a, b)


@pytest.mark.slow
@SETTINGS
@given(scenario_values(min_n=3), st.sampled_from(BETAS), st.data())
def test_table_and_text_readings_agree_except_in_the_form(v, beta, data):
    """For MIFS-U, mMIFS-U and MICC the two groupings are the same function on the extended reals
    up to the name of the indeterminate form: the same candidates are indeterminate and the
    determinate values agree. (Hence the same orderings; DEFAULT_NOTES in fstheory.orderings.methods.)"""
    n = v.n_features
    i = data.draw(st.integers(0, n - 1))
    S = data.draw(st.lists(st.integers(0, n - 1).filter(lambda s: s != i), min_size=1, max_size=n - 1,
                           unique=True))
    with mpmath.workdps(30):
        for name in ("mifs-u", "mmifs-u", "micc"):
            m = get_method(name)
            b = beta if m.has_beta else None
            same_kind_and_value(m.objective(EXACT_OPS, v, i, S, b, reading="table"),
                                m.objective(EXACT_OPS, v, i, S, b, reading="text"))


@SETTINGS
@given(scenario_values(min_n=3), st.sampled_from(BETAS), st.data())
def test_mifs_u_beta_inside_or_outside_the_sum(v, beta, data):
    """beta * sum_s (MI(C,Vs)/h(Vs)) MI(Vi,Vs) (beta outside, as typeset) and the implemented
    sum_s beta*MI(C,Vs)/h(Vs)*MI(Vi,Vs) agree on determinacy and value; only the form differs
    (at beta = 0 and h(Vs) = 0: 0*inf outside, 0/0 inside -- the paper names 0/0)."""
    n = v.n_features
    i = data.draw(st.integers(0, n - 1))
    S = data.draw(st.lists(st.integers(0, n - 1).filter(lambda s: s != i), min_size=1, max_size=n - 1,
                           unique=True))
    with mpmath.workdps(30):
        outside = v.mi_c(i) - xr(beta) * xsum([v.mi_c(s) / v.h(s) * v.mi(i, s) for s in S])
        inside = get_method("mifs-u").objective(EXACT_OPS, v, i, S, beta)
        same_kind_and_value(outside, inside)


@pytest.mark.slow
def test_qmifs_readings_are_different_functions():
    """|S| = 1: table MI(C,Vi) - MI(Vi,Vk)/h(Vk); text MI(C,Vi) - MI(Vi,Vk)/h(Vk) * MI(C,Vk)."""
    v = fixture.evaluated("normal", k="0.2")
    m = get_method("qmifs")
    with mpmath.workdps(30):
        table = m.objective(EXACT_OPS, v, 3, [0], reading="table").value
        text = m.objective(EXACT_OPS, v, 3, [0], reading="text").value
        phi = v.mi(3, 0).value / v.h(0).value
        assert abs(table - (v.mi_c(3).value - phi)) < 1e-25
        assert abs(text - (v.mi_c(3).value - phi * v.mi_c(0).value)) < 1e-25


def test_zero_beta_readings():
    v = fixture.scenario_i("0.2")
    for name in ("mifs", "mifs-u"):
        m = get_method(name)
        dropped = m.objective(EXACT_OPS, v, 1, [0], 0, zero_beta="drop")
        assert dropped.same(v.mi_c(1)) and dropped.label == "MI(C,3X+1)"
        explicit = m.objective(EXACT_OPS, v, 1, [0], 0)
        assert explicit.is_indeterminate
    # drop only matters at beta = 0
    m = get_method("mifs")
    assert m.objective(EXACT_OPS, v, 3, [0], "0.5", zero_beta="drop").same(
        m.objective(EXACT_OPS, v, 3, [0], "0.5"))


# ----- the float world ----------------------------------------------------------------------------


def agree(exact, got: float):
    if exact.is_indeterminate:
        assert math.isnan(got), (exact, got)
    elif exact.is_pos_inf:
        assert got == math.inf, (exact, got)
    elif exact.is_neg_inf:
        assert got == -math.inf, (exact, got)
    else:
        assert math.isfinite(got) and abs(got - float(exact.value)) <= 1e-9 * max(1, abs(float(exact.value))), (exact, got)


@pytest.mark.slow
@SETTINGS
@given(st.lists(scenario_values(n=5), min_size=1, max_size=3), st.sampled_from(BETAS), st.data())
def test_float_world_agrees_with_exact_world(vals, beta, data):
    """The same objective code on numpy arrays over replications: nan exactly where the exact
    world is indeterminate, the same infinities, and the same finite values."""
    reps = len(vals)
    arrays = ArrayValues(*float_arrays(vals))
    i = data.draw(st.lists(st.integers(0, 4), min_size=reps, max_size=reps))
    S = [data.draw(st.lists(st.integers(0, 4).filter(lambda s, r=r: s != i[r]), min_size=2, max_size=2,
                            unique=True)) for r in range(reps)]
    i_arr = np.array(i)
    S_arr = [np.array([S[r][p] for r in range(reps)]) for p in range(2)]  # per position, per rep
    for name in NAMES:
        m = get_method(name)
        b = beta if m.has_beta else None
        for reading in ("table", "text") if m.readings_differ else ("table",):
            for zero_beta in ("explicit", "drop") if m.has_beta and beta == 0 else ("explicit",):
                with np.errstate(all="raise"):  # the objective itself must silence numpy
                    got = m.objective(FLOAT_OPS, arrays, i_arr, S_arr, b, reading=reading,
                                      zero_beta=zero_beta)
                assert got.shape == (reps,)
                with mpmath.workdps(30):
                    for r in range(reps):
                        exact = m.objective(EXACT_OPS, vals[r], i[r], S[r], b, reading=reading,
                                            zero_beta=zero_beta)
                        agree(exact, got[r])


def test_float_world_int_handles_broadcast():
    v = fixture.scenario_i("0.2")
    from orderings_strategies import float_arrays as fa

    arrays = ArrayValues(*fa([v, v]))
    got = get_method("mrmr").objective(FLOAT_OPS, arrays, 3, [0, 6])
    assert got.shape == (2,)
    assert np.allclose(got, float(v.mi_c(3).value) - 0.5)


def test_array_values_checks_shapes():
    with pytest.raises(ValueError, match="reps, n"):
        ArrayValues(np.zeros((2, 3)), np.zeros((2, 3)), np.zeros((2, 3, 2)))


def test_tracing_ops_record_non_finite_terms():
    tracer = TracingExactOps()
    with mpmath.workdps(30):
        total = tracer.sum([xr(1, "a"), xr(0, "b") / xr(0, "c"), xr(2, "d")])
    assert total.is_indeterminate
    roles = [(role, t.form.value if t.is_indeterminate else t.text()) for role, t in tracer.events]
    assert roles == [("term", "0/0"), ("result", "0/0")]


def test_every_method_has_renderings_for_every_reading():
    for m in METHODS.values():
        want = ["table", "text"] if m.family == "paper" else ["original"]
        assert list(m.readings)[: len(want)] == want and m.default_reading in m.readings
        for r in m.readings.values():
            assert r.latex and r.plain and r.source and callable(r.fn)
        assert m.readings_differ == (m.key in {"mifs-u", "mmifs-u", "micc", "qmifs", "jmi",
                                               "cmim", "cife", "icap", "beta-gamma", "condred"})
