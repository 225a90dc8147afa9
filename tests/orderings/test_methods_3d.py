"""The three-dimensional methods (JMI, CMIM, JMIM, CIFE, DISR, ICAP): the new operations in both
worlds, the objectives at hand-computed points, the readings (equal where determinate, differing
in where they are determinate), and the float world against the exact one."""

from __future__ import annotations

import math

import mpmath
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.orderings.arithmetic import EXACT_OPS, FLOAT_OPS, ArrayValues, TracingExactOps
from fstheory.orderings.methods import get_method, method_names
from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.extended import POS_INF, xr
from orderings_strategies import float_arrays, scenario_values, to_float

SETTINGS = settings(max_examples=80, deadline=None)
X1, AXB, Y2, XMY, ZZ, Z2, YY, X2, WD, ZW = range(10)


# ----- the new operations ------------------------------------------------------------------------


def test_min_and_max2_exact():
    with mpmath.workdps(20):
        assert EXACT_OPS.min([xr(2), xr(-1), POS_INF]).value == -1
        bad = xr(0, "a") / xr(0, "b")
        assert EXACT_OPS.min([xr(1), bad]).is_indeterminate
        assert EXACT_OPS.max2(xr(0), bad).is_indeterminate
        assert EXACT_OPS.max2(xr(0), xr(-3)).is_zero
    with pytest.raises(ValueError):
        EXACT_OPS.min([])
    tracer = TracingExactOps()
    tracer.max2(xr(0), POS_INF)
    tracer.min([POS_INF, xr(1)])
    assert [role for role, _ in tracer.events] == ["term", "result", "term"]


def test_min_and_max2_float_unsigned_zero_and_nan():
    a, b = np.array([-0.0, 1.0, np.nan]), np.array([0.0, -np.inf, 2.0])
    m = FLOAT_OPS.min([a, b])
    assert not np.signbit(m[0]) and m[1] == -np.inf and np.isnan(m[2])
    z = FLOAT_OPS.max2(np.array([-0.0]), np.array([-0.0]))
    assert not np.signbit(z[0])
    with np.errstate(divide="ignore"):
        assert np.divide(1.0, FLOAT_OPS.max2(np.array([-0.0]), np.array([-1.0])))[0] == math.inf


# ----- objectives at hand-computed points --------------------------------------------------------


@pytest.fixture(scope="module")
def scenario_i():
    return evaluate(get_scenario("uniform").bind(k="0.2"), 30)


def test_objectives_scenario_i_given_x(scenario_i):
    """S = {X}, Scenario I, k = 0.2, delta = 1/2 (h = 0): MI(C;{X,Y}) = ln 2, MI(C;Y|X) = k/2,
    MI(X;Y|C) = k/2 - MI(C,Y), H(X,Y,C) = h(X) + h(Y) + H(C) - ln 2 = 0."""
    v = scenario_i
    m = {name: get_method(name) for name in method_names(family="3d")}
    with mpmath.workdps(30):
        ln2, half_k, mcy = mpmath.log(2), mpmath.mpf(1) / 10, v.mi_c(YY).value

        def obj(name, i, reading=None):
            return m[name].objective(EXACT_OPS, v, i, [X1], reading=reading)

        assert abs(obj("jmi", YY).value - ln2) < 1e-28
        assert abs(obj("cmim", YY).value - half_k) < 1e-28
        assert abs(obj("cmim", YY, "fleuret").value - mcy) < 1e-28   # min(MI(C,Y), k/2)
        assert abs(obj("jmim", XMY).value - ln2) < 1e-28
        assert abs(obj("cife", YY).value - half_k) < 1e-28           # MI(C,Y) + MI(X;Y|C)
        assert abs(obj("icap", YY).value - mcy) < 1e-28              # max(0, 0 - MI(X;Y|C)) = 0
        assert obj("disr", YY).is_pos_inf                              # ln 2 / H(X,Y,C) = ln 2 / 0
        assert obj("disr", AXB).is_zero                                # MI / (-inf)
        # functionally dependent pair: the unified forms meet +inf - (+inf), the interaction
        # forms stay finite
        assert obj("cife", AXB).form.value == "inf-inf"
        assert abs(obj("cife", AXB, "interaction").value) < 1e-28       # MI(C;3X+1|X) = 0
        assert obj("jmi", AXB, "unified").form.value == "inf-inf"
        assert obj("icap", X2).form.value == "inf-inf"
        assert obj("icap", X2, "interaction").is_zero                 # MI(C,X^2) = 0


# ----- readings ----------------------------------------------------------------------------------


def _same_where_determinate(a, b, shift=None, scale=1):
    if a.is_finite and b.is_finite:
        want = (a.value - (shift or 0)) / scale
        assert abs(b.value - want) <= mpmath.mpf(10) ** -20 * max(1, abs(want)), (a, b)
    elif a.is_determinate and b.is_determinate:
        assert a.kind == b.kind


@SETTINGS
@given(scenario_values(min_n=3, max_n=5), st.data())
def test_readings_agree_where_determinate(v, data):
    """On values consistent with the information identities, the unified and interaction
    readings equal the original wherever both are determinate (JMI: up to (1/|S|) and the step
    constant sum_s MI(C,Vs)), and the interaction readings are never indeterminate. Fleuret's
    running minimum is a different function: min(MI(C,Vi), the original)."""
    n = v.n_features
    i = data.draw(st.integers(0, n - 1))
    S = data.draw(st.lists(st.integers(0, n - 1).filter(lambda s: s != i), min_size=1,
                           max_size=n - 1, unique=True))
    with mpmath.workdps(30):
        for name in method_names(family="3d"):
            m = get_method(name)
            orig = m.objective(EXACT_OPS, v, i, S)
            for reading, _ in m.distinct_readings()[1:]:
                other = m.objective(EXACT_OPS, v, i, S, reading=reading)
                if name == "jmi":
                    _same_where_determinate(orig, other, sum(v.mi_c(s).value for s in S), len(S))
                elif reading == "fleuret":
                    _same_where_determinate(EXACT_OPS.min([v.mi_c(i), orig]), other)
                else:
                    _same_where_determinate(orig, other)
                if reading == "interaction":
                    assert other.is_finite


# ----- float world -------------------------------------------------------------------------------


def _joint_arrays(vals):
    n = vals[0].n_features

    def mat(f):
        return np.array([[[to_float(f(v)(a, b)) for b in range(n)] for a in range(n)] for v in vals])

    return {"h_c": np.array([to_float(v.h_c()) for v in vals]),
            "mi_c_pair": mat(lambda v: v.mi_c_pair), "cmi_c": mat(lambda v: v.cmi_c),
            "mi_given_c": mat(lambda v: v.mi_given_c), "h_pair_c": mat(lambda v: v.h_pair_c)}


@pytest.mark.slow
@SETTINGS
@given(st.lists(scenario_values(n=5), min_size=1, max_size=3), st.data())
def test_float_world_agrees_with_exact_world(vals, data):
    reps = len(vals)
    arrays = ArrayValues(*float_arrays(vals), joint=_joint_arrays(vals))
    i = data.draw(st.lists(st.integers(0, 4), min_size=reps, max_size=reps))
    S = [data.draw(st.lists(st.integers(0, 4).filter(lambda s, r=r: s != i[r]), min_size=2,
                            max_size=2, unique=True)) for r in range(reps)]
    S_arr = [np.array([S[r][p] for r in range(reps)]) for p in range(2)]
    for name in method_names(family="3d"):
        m = get_method(name)
        for reading, _ in m.distinct_readings():
            with np.errstate(all="raise"):
                got = m.objective(FLOAT_OPS, arrays, np.array(i), S_arr, reading=reading)
            with mpmath.workdps(30):
                for r in range(reps):
                    exact = m.objective(EXACT_OPS, vals[r], i[r], S[r], reading=reading)
                    if exact.is_indeterminate:
                        assert math.isnan(got[r]), (name, reading, exact)
                    elif exact.is_infinite:
                        assert got[r] == to_float(exact), (name, reading)
                    else:
                        assert abs(got[r] - float(exact.value)) <= 1e-9 * max(1, abs(float(exact.value)))


def test_array_values_joint_checks():
    h = np.zeros((2, 3))
    with pytest.raises(ValueError, match="mi_c_pair must have shape"):
        ArrayValues(h, h, np.zeros((2, 3, 3)), joint={"mi_c_pair": np.zeros((2, 3))})
    with pytest.raises(ValueError, match="unknown joint quantity"):
        ArrayValues(h, h, np.zeros((2, 3, 3)), joint={"mi_pairs": np.zeros((2, 3, 3))})
    with pytest.raises(LookupError, match="cmi_c was not given"):
        ArrayValues(h, h, np.zeros((2, 3, 3))).cmi_c(0, 1)
