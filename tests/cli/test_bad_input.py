"""Bad input on the command line and in scenario files: one line naming the parameter, or the file
and line, exit code 2, and never a hang (inputs chosen to break the parser, the parameters and
the numerics). Internal errors are not dressed up as bad input: exit code 1 and a request for a
report."""

from __future__ import annotations

import json
import os
import re
import time
from pathlib import Path

import pytest

from fstheory.cli import main
from fstheory.scenarios.scenario_file import MAX_FILE_BYTES, MAX_TOML_DEPTH, load_scenario_file

TINY = (Path(__file__).parents[1] / "data" / "scenarios" / "tiny.toml").read_text()


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def one_line_exit_2(capsys, argv, fragment, seconds=10.0):
    start = time.monotonic()
    code, out, err = run(capsys, *argv)
    elapsed = time.monotonic() - start
    assert code == 2, err
    assert err.startswith("fstheory: error: ") and err.count("\n") == 1, err
    assert fragment in err, err
    assert "Traceback" not in err and out == ""
    assert elapsed < seconds  # a refusal, not a computation (the hangs were unbounded)
    return err


@pytest.mark.parametrize(
    "argv, fragment",
    [
        # exponents that made Fraction compute 10**exponent
        (["values", "--k", "1e999999999"], "parameter 'k': the exponent of '1e999999999' is out of range"),
        (["values", "--k", "0.2", "--delta", "1e-999999999"], "parameter 'delta': the exponent"),
        (["order", "--k", "0.2", "--method", "mifs", "--beta", "1e999999999"], "parameter 'beta': the exponent"),
        (["values", "--k", "1e5000"], "parameter 'k': the exponent of '1e5000' is out of range (expected at most 1000"),
        (["values", "--k", "0." + "1" * 5000], "parameter 'k': the number"),
        # digits of other scripts: Arabic-Indic, extended Arabic-Indic, full-width
        (["values", "--k", "\u0660.\u0662"], "parameter 'k' must be written with the ASCII digits 0-9"),
        (["values", "--k", "0.2", "--a", "\u06f3"], "parameter 'a' must be written with the ASCII digits"),
        (["values", "--k", "0.2", "--digits", "\uff11\uff10"], "parameter 'digits' must be written with the ASCII"),
        (["order", "--k", "0.2", "--method", "mifs", "--beta", "\u0660.\u0665"], "parameter 'beta' must be written"),
        (["simulate", "--reps", "\u0663"], "parameter 'reps' must be written with the ASCII digits"),
        (["simulate", "--sizes", "\u0665\u0660", "--reps", "2"], "parameter 'sizes'"),
        (["simulate", "--k", "\u0660.\u0662", "--reps", "2"], "parameter 'k' must be a number in [0, 1]"),
        # accepted before, silently
        (["values", "--scenario", "", "--k", "0.2"], "parameter 'scenario' must be a scenario name (got ''"),
        (["tables", "--scenario", "", "--out", "unused"], "parameter 'scenario' must be a scenario name"),
        (["order", "--k", "0.2", "--method", "mrmr", "--zero-beta", "drop"],
         "'zero_beta' = 'drop' applies only to methods with beta (mifs, mifs-u, beta-gamma); mRMR has no beta"),
        (["order", "--k", "0.2", "--method", "nmifs", "--zero-beta", "drop"], "NMIFS has no beta"),
        # a negative value after a flag is a value; out of range it says so
        (["values", "--k", "-0.2"], "parameter 'k' must be in [0, 1] (got -0.2)"),
        (["order", "--k", "0.2", "--method", "mifs", "--beta", "-1e-3"], "parameter 'beta' of MIFS must be in [0, 1]"),
        (["values", "--k", "0.2", "--json", "-1"], "--json"),
        # integers of the study
        (["simulate", "--jobs", "0"], "parameter 'jobs' must be an integer in [1, 1024] (got 0)"),
        (["simulate", "--reps", "1e3"], "parameter 'reps' must be an integer"),
        (["simulate-study", "--seed", "-1", "--out", "unused"], "parameter 'seed' must be an integer"),
        # abbreviations are not guessed
        (["values", "--scen", "uniform"], "unrecognized arguments: --scen"),
    ],
)
def test_bad_command_line_one_line_exit_2(capsys, argv, fragment):
    one_line_exit_2(capsys, argv, fragment)


def test_a_negative_number_after_a_flag_is_its_value(capsys):
    """`--a -1e-3` (argparse took -1e-3 for an option: "expected one argument")."""
    code, out, err = run(capsys, "values", "--k", "0.2", "--a", "-1e-3", "--digits", "12", "--json")
    assert code == 0, err
    obj = json.loads(out)
    assert obj["params"]["a"] == "-0.001"
    assert obj["features"][1] == "-0.001X+1"
    assert obj["entropy"][1] == "-6.90775527898"  # h(aX+b) = ln|a| + h(X) = ln(1/1000) + 0


def _scenario_file(tmp_path: Path, text: str, name: str = "s.toml") -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


@pytest.mark.parametrize(
    "old, new, fragment",
    [
        ("default = 0.5", 'default = "1e999999999"', ":6: parameters.k.default: default: parameter 'k': the exponent"),
        ("default = 0.5", 'default = "0.\u0665"', ":6: parameters.k.default: default: parameter 'k' must be written"),
        ('expr = "X + Y"', 'expr = "X + \u0663*Y"', ":29: features[2].expr: 'X + ٣*Y': unexpected character '٣' (U+0663)"),
        ('sigma = "s"', 'sigma = "1/k"', "base.X.sigma: normal law: parameter 'sigma' = zoo is not a finite real number"),
    ],
)
def test_hostile_values_in_a_scenario_file(capsys, tmp_path, old, new, fragment):
    text = TINY.replace(old, new, 1)
    if "1/k" in new:
        text = text.replace("default = 0.5", "default = 0")
    path = _scenario_file(tmp_path, text)
    one_line_exit_2(capsys, ["values", "--scenario-file", str(path)], f"{path}{fragment}"
                    if fragment.startswith(":") else fragment)


def test_a_law_parameter_undefined_at_an_override_is_bad_input(capsys, tmp_path):
    path = _scenario_file(tmp_path, TINY.replace('sigma = "s"', 'sigma = "1/k"'))
    one_line_exit_2(capsys, ["values", "--scenario-file", str(path), "--k", "0"],
                    "base variable X: normal law: parameter 'sigma' = zoo is not a finite real number at k = 0")


@pytest.mark.parametrize("opening, closing", [("[", "]"), ("{x = ", "}")])
def test_toml_nested_deeper_than_the_limit_is_refused_before_tomllib(capsys, tmp_path, opening, closing):
    deep = 5000
    path = _scenario_file(tmp_path, TINY + f"extra = {opening * deep}1{closing * deep}\n")
    line = TINY.count("\n") + 1
    one_line_exit_2(capsys, ["values", "--scenario-file", str(path)],
                    f"{path}:{line}: arrays and tables nested too deeply (expected at most {MAX_TOML_DEPTH}")


def test_keys_dotted_deeper_than_the_limit_are_refused(capsys, tmp_path):
    path = _scenario_file(tmp_path, TINY.replace("[parameters.s]", "[parameters.s" + ".x" * 3000 + "]"))
    one_line_exit_2(capsys, ["values", "--scenario-file", str(path)], f"{path}:10: keys nested too deeply")


def test_brackets_in_strings_and_comments_do_not_count_as_nesting(capsys, tmp_path):
    text = TINY.replace('title = "A tiny scenario"', 'title = "[[[[[[[[[[[[[[[[[[[[{{{{{{{{{{{{{{{{{{"  # [[[[[[[[[[[[[[[[[[')
    path = _scenario_file(tmp_path, text)
    assert load_scenario_file(path).title == "[" * 20 + "{" * 18


def test_an_oversized_file_is_refused_by_reading_not_by_its_size(capsys, tmp_path, monkeypatch):
    """The limit holds for a file whose st_size says 0 (as /proc files and devices do)."""
    path = _scenario_file(tmp_path, TINY + "#" * MAX_FILE_BYTES)
    real_stat = os.stat

    def zero_size(p, *a, **kw):
        st = real_stat(p, *a, **kw)
        return os.stat_result((st.st_mode, st.st_ino, st.st_dev, st.st_nlink, st.st_uid,
                               st.st_gid, 0, st.st_atime, st.st_mtime, st.st_ctime))

    monkeypatch.setattr(os, "stat", zero_size)
    monkeypatch.setattr(os, "fstat", lambda fd: zero_size(f"/proc/self/fd/{fd}"))
    one_line_exit_2(capsys, ["values", "--scenario-file", str(path)],
                    f"{path}: file too large (more than {MAX_FILE_BYTES} bytes")


@pytest.mark.parametrize("device, kind", [("/dev/zero", "a character device"), ("/dev/null", "a character device")])
def test_devices_are_refused_without_reading(capsys, device, kind):
    if not os.path.exists(device):  # pragma: no cover - not a POSIX system
        pytest.fail(f"{device} is missing on this system")
    one_line_exit_2(capsys, ["values", "--scenario-file", device], f"{device}: cannot read the file: it is {kind}")


def test_a_fifo_is_refused_without_blocking(capsys, tmp_path):
    fifo = tmp_path / "scenario.toml"
    os.mkfifo(fifo)  # no writer: opening it for reading would block forever
    one_line_exit_2(capsys, ["values", "--scenario-file", str(fifo)],
                    f"{fifo}: cannot read the file: it is a FIFO (named pipe)", seconds=5)


def test_a_directory_is_refused(capsys, tmp_path):
    one_line_exit_2(capsys, ["values", "--scenario-file", str(tmp_path)], "it is a directory")


# ----- internal errors are not bad input --------------------------------------------------------


def _broken_evaluate(*args, **kwargs):
    raise ValueError("an engine bug")


def test_an_internal_value_error_exits_1_asking_for_a_report(capsys, monkeypatch):
    from fstheory.engine import evaluate

    monkeypatch.setattr(evaluate, "evaluate", _broken_evaluate)
    code, out, err = run(capsys, "values", "--k", "0.2")
    assert code == 1
    assert err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith("fstheory: internal error (ValueError: an engine bug), a bug in fstheory")
    assert "please report it with the command `fstheory values --k 0.2`" in err
    assert "--debug" in err


def test_debug_prints_the_traceback_of_an_internal_error(capsys, monkeypatch):
    from fstheory.engine import evaluate

    monkeypatch.setattr(evaluate, "evaluate", _broken_evaluate)
    code, out, err = run(capsys, "values", "--debug", "--k", "0.2")
    assert code == 1
    assert err.startswith("Traceback (most recent call last):")
    assert "_broken_evaluate" in err and "ValueError: an engine bug" in err
    assert err.rstrip().splitlines()[-1].startswith("fstheory: internal error (ValueError: an engine bug)")


def test_an_internal_type_error_in_binding_is_not_bad_input(capsys, monkeypatch):
    """The old `except TypeError` in overrides.py made any TypeError of bind an exit-2 message."""
    from fstheory.scenarios.declaration import Scenario

    def broken_bind(self, **values):
        raise TypeError("unsupported operand")

    monkeypatch.setattr(Scenario, "bind", broken_bind)
    code, out, err = run(capsys, "values", "--k", "0.2")
    assert code == 1 and "internal error (TypeError: unsupported operand)" in err


def test_ctrl_c_prints_one_line_and_exits_130(capsys, monkeypatch):
    from fstheory.engine import evaluate

    def interrupted(*args, **kwargs):
        raise KeyboardInterrupt

    monkeypatch.setattr(evaluate, "evaluate", interrupted)
    code, out, err = run(capsys, "values", "--k", "0.2")
    assert (code, err) == (130, "fstheory: interrupted\n")


# ----- the study's workers ---------------------------------------------------------------------------


@pytest.mark.slow
def test_simulate_starts_no_more_workers_than_chunks(capsys, monkeypatch):
    import joblib

    seen = []
    real = joblib.Parallel

    class Spy(real):
        def __init__(self, *args, n_jobs=None, **kwargs):
            seen.append(n_jobs)
            super().__init__(*args, n_jobs=n_jobs, **kwargs)

    monkeypatch.setattr(joblib, "Parallel", Spy)
    code, out, err = run(capsys, "simulate", "--scenario", "uniform", "--k", "0.2", "--sizes", "50",
                         "--reps", "3", "--jobs", "1024", "--json")
    assert code == 0, err
    assert seen == [1]  # one chunk of work: one worker, not 1024
    assert json.loads(out)["rows"][0]["reps"] == 3


def test_the_registry_lists_every_scenario_in_the_help(capsys, monkeypatch):
    import dataclasses

    from fstheory.scenarios import registry
    from fstheory.scenarios.uniform import SCENARIO

    registry.scenario_names()  # built-ins loaded
    monkeypatch.setitem(registry._REGISTRY, "mine", dataclasses.replace(SCENARIO, name="mine"))
    for command in ("values", "order", "tables", "simulate"):
        code, out, err = run(capsys, command, "--help")
        assert code == 0
        text = re.sub(r"\s+", " ", out)
        assert "laplace, three-" in text and "xor, circle, mixed, mine" in text, command
