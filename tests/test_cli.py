"""The fstheory command: JSON shapes, one-line errors with exit code 2, no traceback."""

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
                        "not_computed"}
    assert obj["not_computed"] == []
    assert obj["features"] == ["X", "3X+1", "Y^2", "X-Y", "Z", "Z^2", "Y", "X^2", "W+2", "Z+W"]
    assert obj["params"] == {"delta": "0.5", "k": "0.2", "a": "3", "b": "1", "d": "2"}
    assert obj["entropy"][1] == "1.09861228867"  # ln 3 to 12 significant digits
    assert obj["mi_class"][0] == "0.593147180560"
    m = obj["mi_features"]
    assert len(m) == 10 and all(len(r) == 10 for r in m)
    assert all(m[i][i] == "+inf" for i in range(10))
    assert all(m[i][j] == m[j][i] for i in range(10) for j in range(10))
    assert m[0][3] == "0.500000000000"


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
