"""The Python API (`import fstheory`): from outside the checkout, nothing generic importable, the
same numbers as the command line, keyword-only options, float() of extended reals, the registry."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
import textwrap
from fractions import Fraction

import mpmath
import pytest

import fstheory
from fstheory.scenarios.declaration import ParameterError
from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, Form, xr

OUTSIDE = textwrap.dedent(
    """
    import importlib, json, sys
    import fstheory
    v = fstheory.scenario("uniform", k="0.2").values()
    out = {"file": fstheory.__file__, "path": sys.path, "version": fstheory.__version__,
           "labels": list(v.labels), "h": [x.text(30) for x in v.entropy],
           "mi_c": [x.text(30) for x in v.mi_class], "mi_x_xy": v.mi_features[0][3].text(30),
           "floats": [float(v.entropy[1]), float(v.mi_features[0][1])], "generic": {}}
    for name in ("theory", "scenarios", "engine", "orderings", "atlas", "reports", "selection",
                 "simulation"):
        try:
            importlib.import_module(name)
            out["generic"][name] = "imported"
        except ModuleNotFoundError as exc:
            out["generic"][name] = exc.name
    print(json.dumps(out))
    """
)


@pytest.mark.slow
def test_the_api_from_outside_the_checkout(tmp_path):
    """A fresh interpreter in an empty directory with -I (no cwd, no PYTHON* variables, no user
    site on sys.path): only the installed package is importable."""
    proc = subprocess.run([sys.executable, "-I", "-c", OUTSIDE], cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    got = json.loads(proc.stdout)
    assert "" not in got["path"] and str(tmp_path) not in got["path"]
    assert got["generic"] == {n: n for n in ("theory", "scenarios", "engine", "orderings", "atlas",
                                            "reports", "selection", "simulation")}
    assert got["version"] == "0.1.0"
    assert got["labels"] == ["X", "3X+1", "Y^2", "X-Y", "Z", "Z^2", "Y", "X^2", "W+2", "Z+W"]
    with mpmath.workdps(40):
        # h(X) = ln(2 delta) = 0; h(3X+1) = ln 3; h(Y^2) = ln(1/2) - 1 ... via h(X^2) = h(Y^2)
        assert got["h"][0] == "0"
        assert got["h"][1] == mpmath.nstr(mpmath.log(3), 30, strip_zeros=False)
        assert got["h"][2] == mpmath.nstr(mpmath.log(mpmath.mpf(1) / 2) - 1, 30, strip_zeros=False)
        # MI(C, X) = ln 2 - 1/10 at k = 0.2 (closed form of Scenario I, independent of the engine's)
        assert got["mi_c"][0] == mpmath.nstr(mpmath.log(2) - mpmath.mpf(1) / 10, 30, strip_zeros=False)
    assert got["mi_x_xy"] == "0.500000000000000000000000000000"
    assert got["floats"] == [1.0986122886681098, float("inf")]


@pytest.fixture(scope="module")
def uniform():
    return fstheory.scenario("uniform", k="0.2")


def test_values_are_the_command_line_values(uniform, capsys):
    from fstheory.cli import main

    v = uniform.values(digits=20)
    assert main(["values", "--k", "0.2", "--digits", "20", "--json"]) == 0
    cli = json.loads(capsys.readouterr().out)
    assert list(v.labels) == cli["features"]
    assert [x.text(20) for x in v.entropy] == cli["entropy"]
    assert [x.text(20) for x in v.mi_class] == cli["mi_class"]
    assert [[x.text(20) for x in row] for row in v.mi_features] == cli["mi_features"]
    assert uniform.values(digits=20) is v  # kept, not recomputed


def test_the_scenario_point(uniform):
    assert uniform.name == "uniform" and uniform.title.startswith("Scenario I")
    assert uniform.params == {"delta": Fraction(1, 2), "k": Fraction(1, 5), "a": Fraction(3),
                              "b": Fraction(1), "d": Fraction(2)}
    assert uniform.labels[1] == "3X+1"
    assert repr(uniform) == "<ScenarioPoint uniform (delta=0.5, k=0.2, a=3, b=1, d=2)>"
    p = fstheory.scenario("uniform", k=0.8, a=Fraction(-1, 2), delta="1/4")
    assert p.params["k"] == Fraction(4, 5) and p.labels[1] == "-0.5X+1"


def test_order_is_the_command_line_order(uniform, capsys):
    from fstheory.cli import main

    r = uniform.order("MIFS-U", beta="0.4")
    assert r.labels == ("X", "3X+1", "X-Y", "X^2") and r.order == (0, 1, 3, 7)
    assert r.stopped and r.stop.after == 4
    assert len(r.steps) == 4 and r.steps[0].winner.label == "X"
    assert main(["order", "--k", "0.2", "--method", "mifs-u", "--beta", "0.4", "--explain"]) == 0
    assert r.explain() + "\n" == capsys.readouterr().out
    assert r.to_json()["labels"] == list(r.labels)
    complete = uniform.order("mrmr")
    assert not complete.stopped and complete.stop is None and len(complete.labels) == 10


def test_options_are_keyword_only_and_checked(uniform):
    with pytest.raises(TypeError):
        uniform.values(30)
    with pytest.raises(TypeError):
        uniform.order("mifs", "0.4", "table")
    with pytest.raises(ParameterError, match=r"parameter 'digits' must be an integer in \[1, 100\] \(got 0\)"):
        uniform.values(digits=0)
    with pytest.raises(fstheory.UserInputError, match="not accepted by mRMR"):
        uniform.order("mrmr", beta=0.5)
    with pytest.raises(fstheory.UserInputError, match="mRMR has no beta"):
        uniform.order("mrmr", zero_beta="drop")
    with pytest.raises(ValueError, match="unknown parameter 'sigma' for scenario 'uniform'"):
        fstheory.scenario("uniform", sigma=1)
    with pytest.raises(ParameterError, match="unknown scenario 'gauss'"):
        fstheory.scenario("gauss")


def test_shipped_and_loaded_scenarios():
    path = fstheory.shipped_scenario("laplace")
    assert path.name == "laplace.toml" and path.is_file()
    p = fstheory.load_scenario(path, k="0.3")
    assert p.name == "laplace" and p.params["k"] == Fraction(3, 10)
    assert p.labels == fstheory.scenario("laplace", k="0.3").labels
    with pytest.raises(ParameterError, match=r"no shipped scenario file 'gauss' \(shipped: circle, laplace, mixed, normal, three-variable, threshold, uniform, xor\)"):
        fstheory.shipped_scenario("gauss")
    assert fstheory.scenario_names()[:3] == ["uniform", "normal", "laplace"]


def test_float_of_extended_reals():
    assert float(xr("0.25")) == 0.25 and float(xr(-3)) == -3.0
    assert float(POS_INF) == float("inf") and float(NEG_INF) == float("-inf")
    with pytest.raises(ValueError, match=r"no float value: 0/0 \(MI\(Y,X\)/h\(X\) with MI\(Y,X\) = 0, h\(X\) = 0\)"):
        float(xr(0, "MI(Y,X)") / xr(0, "h(X)"))
    with pytest.raises(ValueError, match=r"no float value: inf-inf"):
        float(POS_INF + NEG_INF)
    unknown = ExtendedReal.indeterminate(Form.NOT_COMPUTED, "outside the numerical route's reach")
    with pytest.raises(ValueError, match=r"no float value: not computed \(outside the numerical route's reach\)"):
        float(unknown)
    with pytest.raises(OverflowError, match="beyond the float range"):
        float(xr(mpmath.mpf("1e400")))


def test_register_keeps_the_builtin_scenarios(monkeypatch):
    """register() before the first lookup used to make get_scenario('uniform') unknown."""
    from fstheory.scenarios import registry
    from fstheory.scenarios.uniform import SCENARIO

    monkeypatch.setattr(registry, "_REGISTRY", {})
    monkeypatch.setattr(registry, "_BUILTINS_LOADED", False)
    mine = registry.register(dataclasses.replace(SCENARIO, name="mine"))
    assert registry.get_scenario("uniform") is SCENARIO
    assert registry.get_scenario("mine") is mine
    assert registry.scenario_names()[:3] == ["uniform", "normal", "laplace"]
    assert registry.scenario_names()[-1] == "mine" and "xor" in registry.scenario_names()
    assert fstheory.scenario("mine", k="0.2").name == "mine"
    with pytest.raises(ParameterError, match="scenario 'normal' is already registered"):
        registry.register(dataclasses.replace(SCENARIO, name="normal"))
