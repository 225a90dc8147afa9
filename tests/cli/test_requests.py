"""One request per command: the command line and Python build the same request, so the same bad
option gives the same one-line message (exit code 2 from the CLI, a ValueError from Python) and
the same good request the same output."""

from __future__ import annotations

import json

import pytest

from fstheory.cli import main
from fstheory.errors import UserInputError
from fstheory.requests import (AtlasRequest, OrderRequest, ScenarioChoice, SimulateRequest,
                               StudyRequest, TablesRequest, ValuesRequest, VerifyRequest,
                               integer_option, run_order, run_simulate, run_tables,
                               run_values)


def _cli(capsys, argv):
    code = main(argv)
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def _uniform(**params):
    return ScenarioChoice("uniform", None, tuple({"k": "0.2", **params}.items()))


#: (command line, the same request built in Python, the one message both give)
BAD = [
    (["values", "--k", "0.2", "--digits", "0"],
     lambda: ValuesRequest(_uniform(), 0),
     "parameter 'digits' must be an integer in [1, 100] (got 0)"),
    (["values", "--k", "2"],
     lambda: ValuesRequest(ScenarioChoice("uniform", None, (("k", 2),)), 30),
     "parameter 'k' must be in [0, 1] (got 2)"),
    (["order", "--k", "0.2", "--method", "mrmr", "--beta", "0.5"],
     lambda: OrderRequest(_uniform(), "mrmr", "0.5"),
     "not accepted by mRMR"),
    (["order", "--k", "0.2", "--method", "nosuch"],
     lambda: OrderRequest(_uniform(), "nosuch"),
     "parameter 'method' must be one of mifs, mifs-u,"),
    (["order", "--k", "0.2", "--method", "mifs", "--beta", "0.5", "--digits", "101"],
     lambda: OrderRequest(_uniform(), "mifs", "0.5", digits=101),
     "parameter 'digits' must be an integer in [1, 100] (got 101)"),
    (["atlas", "--k", "0.2", "--method", "mrmr", "--vary", "delta", "--grid", "3"],
     lambda: AtlasRequest(_uniform(), "mrmr", ("delta",), grid=3),
     "parameter 'grid' must be an integer in [4, 100000] (got 3)"),
    (["atlas", "--method", "mrmr", "--vary", "k", "--jobs", "x"],
     lambda: AtlasRequest(ScenarioChoice(), "mrmr", ("k",), jobs="x"),
     "parameter 'jobs' must be an integer in [1, 1024] (got 'x')"),
    (["tables", "--jobs", "0"],
     lambda: TablesRequest(jobs=0),
     "parameter 'jobs' must be an integer in [1, 1024] (got 0)"),
    (["tables", "--digits", "5", "--verify"],
     lambda: TablesRequest(digits=5, verify=True),
     "parameter 'digits' must be at least 10 with --verify (got 5)"),
    (["verify", "--digits", "-3"],
     lambda: VerifyRequest(digits=-3),
     "parameter 'digits' must be an integer in [1, 100] (got -3)"),
    (["simulate", "--reps", "0"],
     lambda: SimulateRequest(reps=0),
     "parameter 'reps' must be an integer in [1,"),
    (["simulate", "--estimator", "joint"],
     lambda: SimulateRequest(estimator=("joint",)),
     "--estimator expects NAME=VALUE (got 'joint')"),
    (["simulate-study", "--seed", "-1"],
     lambda: StudyRequest(seed=-1),
     "parameter 'seed' must be an integer in [0, 9223372036854775807] (got -1)"),
]


@pytest.mark.parametrize("argv, build, message", BAD, ids=[" ".join(b[0][:2]) for b in BAD])
def test_the_same_bad_option_gives_the_same_message(capsys, argv, build, message):
    with pytest.raises(UserInputError) as refused:
        build()
    assert isinstance(refused.value, ValueError)
    code, out, err = _cli(capsys, argv)
    assert code == 2 and out == ""
    assert err.endswith("\n") and err.count("\n") == 1  # one line
    assert err == f"fstheory: error: {refused.value}\n"
    assert message in err


@pytest.mark.parametrize("value, shown", [(0, "0"), ("0", "0"), (" 0 ", "0"), (True, "True"),
                                          (2.0, "2.0"), ("2.5", "'2.5'"), (10**200, "~10^200")])
def test_an_integer_option_is_refused_alike_as_text_and_as_a_number(value, shown):
    with pytest.raises(UserInputError, match=r"^parameter 'digits' must be an integer in "
                                             r"\[1, 100\] \(got " + shown.replace("^", r"\^")
                                             .replace(".", r"\.") + r"\)$"):
        integer_option(value, "digits", 1, 100)


def test_a_request_holds_the_validated_options():
    r = OrderRequest(_uniform(), "MIFS-U", "0.4", digits="12")
    assert r.digits == 12 and r.bound.scenario.name == "uniform"
    assert TablesRequest(jobs="2", scenarios=["xor"]).jobs == 2
    assert SimulateRequest(k="0.2", sizes="50,100").options()["sizes"] == (50, 100)
    assert AtlasRequest(_uniform(), "mrmr", ["delta"], ["1:2"], grid=np_int(8)).grid == 8
    with pytest.raises(AttributeError):
        r.digits = 3  # frozen


def np_int(n):
    import numpy as np

    return np.int64(n)


def test_values_and_order_give_the_same_output_from_either_front(capsys):
    from fstheory.orderings.explain import explain, to_json
    from fstheory.reports.values_output import values_text

    request = ValuesRequest(_uniform(), 12)
    code, out, _ = _cli(capsys, ["values", "--k", "0.2", "--digits", "12"])
    assert code == 0 and out == values_text(run_values(request), 12) + "\n"

    request = OrderRequest(_uniform(), "mifs-u", "0.4", digits=12)
    code, out, _ = _cli(capsys, ["order", "--k", "0.2", "--method", "mifs-u", "--beta", "0.4",
                                 "--digits", "12", "--json"])
    assert code == 0 and json.loads(out) == to_json(run_order(request))
    code, out, _ = _cli(capsys, ["order", "--k", "0.2", "--method", "mifs-u", "--beta", "0.4",
                                 "--digits", "12", "--explain"])
    assert out == explain(run_order(request)) + "\n"


@pytest.mark.slow
def test_tables_and_verify_requests_run_as_the_commands(capsys, tmp_path):
    argv_out = tmp_path / "cli"
    code, out, _ = _cli(capsys, ["tables", "--scenario", "xor", "--digits", "10",
                                 "--out", str(argv_out)])
    assert code == 0
    assert run_tables(TablesRequest(str(tmp_path / "api"), 10, ("xor",))) == 0
    api_out = capsys.readouterr().out
    assert api_out == out.replace(str(argv_out), str(tmp_path / "api"))
    names = sorted(p.name for p in argv_out.iterdir())
    assert names == sorted(p.name for p in (tmp_path / "api").iterdir())
    for name in names:
        assert (argv_out / name).read_bytes() == (tmp_path / "api" / name).read_bytes(), name


def test_a_simulate_request_gives_what_the_command_prints(capsys):
    argv = ["simulate", "--scenario", "uniform", "--k", "0.2", "--sizes", "50", "--reps", "3",
            "--json"]
    code, out, _ = _cli(capsys, argv)
    request = SimulateRequest(("uniform",), "0.2", "50", reps=3)
    assert code == 0 and json.loads(out) == json.loads(json.dumps(run_simulate(request)))
    assert json.loads(out)["meta"]["reps"] == 3 and json.loads(out)["rows"]


@pytest.mark.slow
def test_the_atlas_of_a_scenario_point_is_the_commands(capsys):
    """ScenarioPoint.atlas builds the AtlasRequest of `fstheory atlas` (the point's other
    parameters fixed) and returns the result the command prints, for a registered scenario and
    a file; a bad option is the command's one message."""
    import fstheory

    code, out, _ = _cli(capsys, ["atlas", "--method", "mim", "--vary", "k",
                                 "--range", "1/10:1/2", "--grid", "4", "--json"])
    result = fstheory.scenario("uniform", k="0.2").atlas("mim", "k", "1/10:1/2", grid=4)
    assert code == 0 and json.loads(out) == result.to_json()

    path = str(fstheory.shipped_scenario("xor"))
    code, out, _ = _cli(capsys, ["atlas", "--scenario-file", path, "--method", "mim",
                                 "--vary", "k", "--range", "1/5:4/5", "--grid", "4"])
    point = fstheory.load_scenario(path, k="1/2")
    assert code == 0 and out == point.atlas("mim", "k", "1/5:4/5", grid=4).text() + "\n"

    code, _, err = _cli(capsys, ["atlas", "--method", "mrmr", "--vary", "k", "--grid", "3"])
    with pytest.raises(UserInputError) as exc:
        fstheory.scenario("uniform", k="0.2").atlas("mrmr", "k", grid=3)
    assert code == 2 and str(exc.value) in err
