"""Huge and tiny constants in scenario files, parameters and the API: a value, or one line with
exit code 2, within the budgets; never a hang, an OverflowError or a MemoryError.

A constant an expression computes must lie within 10^-2000 .. 10^2000 in absolute value (or be
0): the range of the numbers one can type (fstheory.scenarios.grammar.MAX_MAGNITUDE); exact
values given as numbers have at most 2001 digits (fstheory.user_numbers.MAX_VALUE_DIGITS).
"""

from __future__ import annotations

import subprocess
import sys
from fractions import Fraction
from pathlib import Path

import mpmath
import pytest

import fstheory
from fstheory.cli import main

NORMAL_X = 'law = "normal"\nmu = "0"\nsigma = "1"'


def scenario(tmp_path: Path, name: str, *, feature="X", rule="X + k*Y >= 0", law_x=NORMAL_X,
             extra="") -> Path:
    text = f'''name = "{name}"
title = "huge constants"
[parameters.k]
domain = "unit"
default = "0.2"
{extra}
[base.X]
{law_x}
[base.Y]
law = "uniform"
low = "-1"
high = "1"
[[features]]
expr = "{feature}"
[[features]]
expr = "Y"
[class]
rule = "{rule}"
'''
    path = tmp_path / f"{name}.toml"
    path.write_text(text)
    return path


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def cli(*argv, timeout=240):
    """The console script in a child process (a hang is a timeout, not a stuck test run)."""
    script = Path(sys.executable).with_name("fstheory")
    return subprocess.run([str(script), *map(str, argv)], capture_output=True, text=True,
                          timeout=timeout)


TOWER = "exp(exp(exp(10)))"  # e^(e^22026): about 10^(10^9565)


CASES = [
    (dict(feature=f"{TOWER}*X"), 16, 5),
    (dict(feature=f"-{TOWER}*X"), 16, 6),
    (dict(law_x=f'law = "uniform"\nlow = "0"\nhigh = "{TOWER}"'), 10, 5),
    (dict(rule=f"{TOWER}*X + k*Y >= 0"), 20, 5),
    (dict(feature="exp(-exp(exp(10)))*X"), 16, 6),
    (dict(feature="1e1000*1e1000*10*X"), 16, 14),
]
CASE_IDS = ["feature", "negative feature", "law bound", "class rule", "tiny", "product"]


def _argv(command, path):
    return (["values", "--scenario-file", path] if command == "values" else
            ["atlas", "--scenario-file", path, "--method", "mrmr", "--vary", "k"])


def _refused(code, out, err, path, line, column):
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1
    assert err.startswith(f"fstheory: error: {path}:{line}: ")
    assert "is out of range (" in err and f"at column {column}" in err
    assert "10^2000" in err


@pytest.mark.parametrize("case, line, column", CASES, ids=CASE_IDS)
@pytest.mark.parametrize("command", ["values", "atlas"])
def test_a_constant_out_of_range_is_refused_at_once_with_file_line_and_column(capsys, tmp_path,
                                                                             case, line, column,
                                                                             command):
    path = scenario(tmp_path, "tower", **case)
    _refused(*run(capsys, *_argv(command, path)), path, line, column)


@pytest.mark.slow  # starts the console script (seconds); the cases above run the same main()
@pytest.mark.parametrize("command", ["values", "atlas"])
def test_the_console_script_refuses_an_out_of_range_constant_at_once(tmp_path, command):
    # the installed script in a child process: its exit code and streams, and no hang (timeout)
    case, line, column = CASES[0]
    path = scenario(tmp_path, "tower", **case)
    r = cli(*_argv(command, path))
    _refused(r.returncode, r.stdout, r.stderr, path, line, column)


@pytest.mark.slow
def test_constants_at_the_limit_give_values_or_reasons_within_the_budgets(capsys, tmp_path):
    """exp(4600) is 10^1997.7: computed, or 'not computed' with the reason; never a hang."""
    path = scenario(tmp_path, "big", feature="exp(4600)*X", rule="1e1000*X + k*Y >= 0")
    code, out, err = run(capsys, "values", "--scenario-file", path, "--digits", "10")
    assert code == 0 and err == ""
    line = next(row for row in out.splitlines() if row.startswith("V1 "))
    assert line.split()[2] == "4601.418939"  # h(e^4600 X) = 4600 + h(X)
    assert all("not computed (" in row for row in out.splitlines() if "not computed" in row)
    code, out, err = run(capsys, "order", "--scenario-file", path, "--method", "mrmr")
    assert code in (0, 3) and err == "" and out.startswith("mRMR on big")


@pytest.mark.parametrize("value, expected", [("1e300", "300"), ("1e-1000", "-1000")])
def test_a_huge_or_tiny_parameter_value_gives_the_exact_entropy(capsys, tmp_path, value, expected):
    path = scenario(tmp_path, "scaled", law_x='law = "normal"\nmu = "0"\nsigma = "s"',
                    extra='[parameters.s]\ndomain = "positive"\ndefault = "1"')
    code, out, err = run(capsys, "values", "--scenario-file", path, "--param", f"s={value}",
                         "--digits", "15")
    assert code == 0, err
    with mpmath.workdps(40):
        h = mpmath.log(2 * mpmath.pi * mpmath.e) / 2 + int(expected) * mpmath.log(10)
        shown = mpmath.nstr(h, 15)
    assert f"s={value}" in out.splitlines()[0]  # not a thousand zeros
    row = next(r for r in out.splitlines() if r.startswith("V1 "))
    assert row.split()[2] == shown


@pytest.mark.slow
def test_a_default_of_1e1000_is_a_value(capsys, tmp_path):
    path = scenario(tmp_path, "dflt", law_x='law = "normal"\nmu = "0"\nsigma = "s"',
                    extra='[parameters.s]\ndomain = "positive"\ndefault = "1e1000"')
    code, out, err = run(capsys, "values", "--scenario-file", path, "--digits", "10")
    assert code == 0, err
    assert out.splitlines()[0] == "scenario dflt (k=0.2, s=1e1000); 10 significant digits"
    assert next(r for r in out.splitlines() if r.startswith("V1 ")).split()[2] == "2304.004032"


@pytest.mark.parametrize("digits", [3000, 5000])
def test_a_toml_integer_with_thousands_of_digits_is_refused_with_its_line(capsys, tmp_path, digits):
    path = scenario(tmp_path, "long", extra=f'[parameters.s]\ndomain = "positive"\ndefault = {"7" * digits}')
    code, out, err = run(capsys, "values", "--scenario-file", path)
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert err.startswith(f"fstheory: error: {path}:8: ")
    assert "too many digits" in err and "2001" in err


def test_a_parameter_that_makes_a_constant_too_large_is_refused_at_binding(capsys, tmp_path):
    path = scenario(tmp_path, "param", feature="exp(s)*X",
                    extra='[parameters.s]\ndomain = "real"\ndefault = "1"')
    code, out, err = run(capsys, "values", "--scenario-file", path, "--param", "s=5000")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "feature exp(s)*X: a constant is larger than 10^2000 at k = 0.2, s = 5000" in err
    code, out, err = run(capsys, "values", "--scenario-file", path, "--param", "s=100",
                         "--digits", "10")
    assert code == 0, err
    with pytest.raises(fstheory.UserInputError, match="larger than 10"):
        fstheory.load_scenario(path, s=4700)


def test_the_simulation_refuses_what_floats_cannot_hold(capsys, tmp_path):
    cases = {"rule": (dict(rule="1e1000*X + k*Y >= 0"), "the class rule: its coefficients"),
             "feature": (dict(feature="exp(4600)*X"), "feature exp(4600)*X: its values"),
             "law": (dict(law_x='law = "uniform"\nlow = "0"\nhigh = "1e400"'),
                     "base variable X: its draws"),
             "underflow": (dict(feature="exp(-4600)*X"), "its values are all 0 in floats")}
    for name, (case, message) in cases.items():
        path = scenario(tmp_path, name, **case)
        code, out, err = run(capsys, "simulate", "--scenario-file", path, "--k", "0.2",
                             "--sizes", "50", "--reps", "10")
        assert (code, out) == (2, ""), (name, err)
        assert err.count("\n") == 1 and message in err, (name, err)


def test_the_api_refuses_numbers_with_too_many_digits_naming_the_parameter():
    with pytest.raises(fstheory.UserInputError, match="parameter 'k'.*too many digits"):
        fstheory.scenario("uniform", k=10**10000)
    with pytest.raises(fstheory.UserInputError, match="parameter 'a'.*too many digits"):
        fstheory.scenario("uniform", k="0.2", a=Fraction(1, 10**5000))
