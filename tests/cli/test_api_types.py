"""The Python API's argument types: numpy numbers are the numbers they stand for; every bad
argument is a fstheory.UserInputError naming the parameter; a value never prints digits that are
not proved."""

from __future__ import annotations

import time
from fractions import Fraction
from pathlib import Path

import mpmath
import numpy as np
import pytest

import fstheory
from fstheory.theory.extended import xr


@pytest.fixture(scope="module")
def point():
    return fstheory.scenario("uniform", k="0.2")


@pytest.fixture(scope="module")
def values20(point):
    return point.values(digits=20)


def test_numpy_floats_and_integers_are_the_numbers_they_stand_for():
    assert fstheory.scenario("uniform", k=np.float64(0.2)).params["k"] == Fraction(1, 5)
    assert fstheory.scenario("uniform", k=np.float32(0.25)).params["k"] == Fraction(1, 4)
    p = fstheory.scenario("uniform", k="0.2", d=np.int64(-3), a=np.int32(2))
    assert (p.params["d"], p.params["a"]) == (-3, 2)
    sweep = [fstheory.scenario("uniform", k=k).params["k"] for k in np.linspace(0, 1, 5)]
    assert sweep == [Fraction(n, 4) for n in range(5)]


def test_numpy_numbers_as_beta_and_digits(point):
    r = point.order("mifs-u", beta=np.float64(0.4), digits=np.int64(20))
    assert r.labels == point.order("mifs-u", beta="0.4", digits=20).labels
    assert point.values(digits=np.int16(10)).entropy[1].text(10) == "1.098612289"


@pytest.mark.parametrize("call, name", [
    (lambda: fstheory.scenario("uniform", k=10**10000), "k"),
    (lambda: fstheory.scenario("uniform", k="0.2", a=Fraction(1, 10**5000)), "a"),
    (lambda: fstheory.load_scenario(None), "path"),
    (lambda: fstheory.load_scenario(123), "path"),
    (lambda: fstheory.load_scenario(b"/tmp/x.toml"), "path"),
    (lambda: fstheory.shipped_scenario(["xor"]), "name"),
    (lambda: fstheory.shipped_scenario(None), "name"),
    (lambda: fstheory.scenario("uniform", k=[0.2]), "k"),
    (lambda: fstheory.scenario("uniform", k=np.bool_(True)), "k"),
])
def test_every_bad_argument_is_a_user_input_error_naming_it(call, name):
    with pytest.raises(fstheory.UserInputError, match=f"parameter '{name}'"):
        call()


def test_a_bytes_path_that_exists_is_still_refused_clearly(tmp_path):
    path = Path(fstheory.shipped_scenario("xor"))
    with pytest.raises(fstheory.UserInputError, match="must be a file path, a str or a pathlib"):
        fstheory.load_scenario(bytes(path))
    assert fstheory.load_scenario(path, k="0.2").name == "xor"  # a Path is fine


@pytest.mark.parametrize("digits", [0, -3, True, "5", 2.0, 101, 10**6])
def test_text_refuses_a_digits_argument_out_of_range_at_once(values20, digits):
    x = values20.entropy[1]
    start = time.monotonic()
    with pytest.raises(fstheory.UserInputError, match=r"parameter 'digits' must be an integer in \[1, 100\]"):
        x.text(digits)
    with pytest.raises(fstheory.UserInputError, match="parameter 'digits'"):
        xr("1.5").text(digits)  # the engine's extended reals as well
    assert time.monotonic() - start < 5


def test_text_gives_the_proved_digits_and_refuses_more(values20):
    x = values20.entropy[1]  # h(3X+1) = ln 3
    with mpmath.workdps(50):
        assert x.text(20) == mpmath.nstr(mpmath.log(3), 20)
    with pytest.raises(fstheory.UserInputError, match="60 significant digits asked of a value proved to 20"):
        x.text(60)
    with pytest.raises(fstheory.UserInputError, match="proved to 20"):
        x.text(21)
    assert str(x) == "1.09861" and repr(x) == "ExtendedReal(1.09861228867, h(3X+1))"
    assert values20.mi_features[0][1].text(60) == "+inf"  # not a digit: nothing to prove


def test_values_with_few_digits_print_no_more(point):
    v = point.values(digits=3)
    assert str(v.mi_class[0]) == "0.593" and repr(v.mi_class[0]) == "ExtendedReal(0.593, MI(C,X))"


def test_explain_digits(point):
    r = point.order("mifs-u", beta="0.4", digits=20)
    with pytest.raises(fstheory.UserInputError, match=r"parameter 'digits' must be an integer in \[1, 100\]"):
        r.explain(digits=0)
    with pytest.raises(fstheory.UserInputError, match="25 significant digits asked of values proved to 20"):
        r.explain(digits=25)
    assert r.explain(digits=np.int64(20)).splitlines()[1] == "Order: X, 3X+1, X-Y, X^2 -- stopped after 4 of 10"
    few = point.order("mifs-u", beta="0.4", digits=3)
    assert "0.593" in few.explain() and "0.5931" not in few.explain()
