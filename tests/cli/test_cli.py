"""The fstheory command: JSON shapes, one-line errors with exit code 2, no traceback."""

import dataclasses
import json
import subprocess
import sys

import pytest

from fstheory.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_values_json_shape(capsys):
    code, out, err = run(capsys, "values", "--scenario", "uniform", "--k", "0.2", "--json",
                         "--digits", "12")
    assert code == 0 and err == ""
    obj = json.loads(out)
    assert set(obj) == {"scenario", "params", "features", "entropy", "mi_class", "mi_features",
                        "entropy_error", "mi_class_error", "mi_features_error", "not_computed"}
    assert obj["not_computed"] == []
    # the error bounds of the printed values: exact ones 0, ln 3 within one unit of the 12th digit
    assert obj["entropy_error"][0] == "0" and obj["mi_features_error"][0][3] == "0"
    assert obj["mi_features_error"][0][1] == "0"  # +inf
    assert 0 < float(obj["entropy_error"][1]) < 1e-11
    assert abs(float(obj["entropy"][1]) - 1.0986122886681098) <= float(obj["entropy_error"][1])
    assert obj["features"] == ["X", "3X+1", "Y^2", "X-Y", "Z", "Z^2", "Y", "X^2", "W+2", "Z+W"]
    assert obj["params"] == {"delta": "0.5", "k": "0.2", "a": "3", "b": "1", "d": "2"}
    assert obj["entropy"][1] == "1.09861228867"  # ln 3 to 12 significant digits
    assert obj["mi_class"][0] == "0.593147180560"
    m = obj["mi_features"]
    assert len(m) == 10 and all(len(r) == 10 for r in m)
    assert all(m[i][i] == "+inf" for i in range(10))
    assert all(m[i][j] == m[j][i] for i in range(10) for j in range(10))
    assert m[0][3] == "0.500000000000"


@pytest.mark.slow
def test_values_default_digits_is_30(capsys):
    code, out, _ = run(capsys, "values", "--scenario", "normal", "--k", "0.8", "--json")
    obj = json.loads(out)
    assert obj["entropy"][0] == "1.41893853320467274178032973641"  # ln(2 pi e)/2 = 1.41893853320467274178032973640562...
    assert obj["mi_class"][3].startswith("0.00389698227")


def test_values_human_table(capsys):
    code, out, _ = run(capsys, "values", "--scenario", "uniform", "--k", "0.8", "--digits", "6")
    assert code == 0
    assert "V3 Y^2" in out and "-1.69315" in out and "MI(X-Y, X) = 0.500000" in out


@pytest.mark.parametrize(
    "argv, fragment",
    [
        (["values", "--scenario", "uniform", "--k", "2"], "parameter 'k' must be in [0, 1]"),
        (["values", "--scenario", "uniform", "--k", "0.2", "--delta", "0"], "'delta' must be > 0"),
        (["values", "--scenario", "normal", "--k", "0.2", "--sigma", "-1"], "'sigma' must be > 0"),
        (["values", "--scenario", "uniform", "--k", "0.2", "--a", "0"], "'a' must be != 0"),
        (["values", "--scenario", "nope", "--k", "0.2"], "unknown scenario 'nope'"),
        (["values", "--scenario", "uniform", "--k", "x"], "'k' must be a finite number"),
        (["values", "--scenario", "uniform", "--k", "0.2", "--digits", "0"], "'digits'"),
        (["values", "--scenario", "normal", "--k", "0.2", "--delta", "1"], "unknown parameter 'delta'"),
        (["values", "--scenario", "uniform", "--k", "0.2", "--param", "zeta=1"], "unknown parameter 'zeta'"),
        (["order", "--scenario", "uniform", "--k", "0.2", "--method", "foo"], "foo"),
        (["order", "--scenario", "uniform", "--k", "0.2", "--method", "mrmr", "--beta", "0.5"], "beta"),
        (["order", "--scenario", "uniform", "--k", "0.2", "--method", "mifs", "--beta", "1.5"], "beta"),
        (["values", "--k", "0.2", "--bogus"], "unrecognized arguments"),
    ],
)
def test_bad_input_one_line_exit_2(capsys, argv, fragment):
    code, out, err = run(capsys, *argv)
    assert code == 2
    assert fragment in err
    assert err.count("\n") == 1 and err.startswith("fstheory: error: ")
    assert "Traceback" not in err


@pytest.mark.slow
def test_console_script_module_entry_has_no_traceback():
    proc = subprocess.run([sys.executable, "-m", "fstheory.cli", "values", "--k", "7"],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and "Traceback" not in proc.stderr


def test_order_json(capsys):
    code, out, _ = run(capsys, "order", "--scenario", "uniform", "--k", "0.2", "--method",
                       "MIFS-U", "--beta", "1", "--json")
    obj = json.loads(out)
    assert obj["order"] == [1, 2, 4, 8]
    assert obj["stopped"]["after"] == 4


# ----- version and help -----------------------------------------------------------------------


def test_version(capsys):
    from importlib.metadata import version

    code, out, err = run(capsys, "--version")
    assert (code, out, err) == (0, f"fstheory {version('fstheory')}\n", "")


def _subparsers(parser):
    import argparse

    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return action.choices


def test_every_option_of_every_command_has_help_with_its_default():
    import argparse

    from fstheory.cli import build_parser

    for name, sub in _subparsers(build_parser()).items():
        for action in sub._actions:
            if isinstance(action, argparse._HelpAction):
                continue
            assert action.help, (name, action.dest)
            flag = isinstance(action, (argparse._StoreTrueAction, argparse._StoreFalseAction))
            assert flag or "default: " in action.help or action.help.endswith("(required)"), \
                (name, action.option_strings, action.help)
            if not flag and isinstance(action.default, str) and action.default:
                assert f"default: {action.default}" in action.help, (name, action.option_strings)


def test_help_texts_say_what_the_options_take(capsys):
    import re

    code, out, _ = run(capsys, "simulate", "--help")
    text = re.sub(r"\s+", " ", out)
    assert "--ties TIES near-tie rule of the selection, exact|relative" in text
    from fstheory.selection.options import SelectionOptions, TIES

    assert TIES == ("exact", "relative") and SelectionOptions(ties="relative").ties == "relative"
    code, out, _ = run(capsys, "--help")
    assert code == 0
    assert "No mathematics" not in out
    assert out.startswith("usage: fstheory [-h] [--version] [--debug] COMMAND ...\n\nExact entropies")
    for command in ("values", "order", "tables", "verify", "simulate", "simulate-study"):
        assert f"    {command}" in out


def test_an_ordering_stopped_by_a_value_not_computed_exits_3(capsys, monkeypatch):
    """Contract: exit code 3 when a value needed to decide a step is not computed."""
    from fstheory.engine import evaluate
    from fstheory.theory.extended import ExtendedReal, Form, POS_INF, xr
    from fstheory.engine.values import ScenarioValues

    unknown = ExtendedReal.indeterminate(Form.NOT_COMPUTED, "outside the numerical route's reach",
                                         label="MI(B,A)")
    values = ScenarioValues("synthetic", {}, ("A", "B"), (xr(1), xr(1)), (xr("0.5"), xr("0.25")),
                            ((POS_INF, unknown), (unknown, POS_INF)), digits=10)
    monkeypatch.setattr(evaluate, "evaluate", lambda bound, digits: values)
    code, out, err = run(capsys, "order", "--k", "0.2", "--method", "mrmr")
    assert (code, err) == (3, "")
    assert out.splitlines()[1] == (
        "A -- step 2 cannot be decided: MI(B,A) not computed: outside the numerical route's reach")
    monkeypatch.setattr(evaluate, "evaluate", lambda bound, digits: dataclasses.replace(
        values, mi_features=((POS_INF, xr(0)), (xr(0), POS_INF))))
    assert run(capsys, "order", "--k", "0.2", "--method", "mrmr")[0] == 0
