"""A scenario parameter cannot take a name that already means something beside the parameters
(scenarios.declaration.RESERVED_PARAMETER_NAMES): `--vary beta` always meant the method's beta,
and `order --json` wrote its `reading` over a parameter named so."""

from __future__ import annotations

import pytest

import fstheory
from fstheory.cli import main
from fstheory.scenarios.declaration import RESERVED_PARAMETER_NAMES, Parameter


def scenario(tmp_path, name: str):
    path = tmp_path / f"{name}.toml"
    path.write_text(f'''name = "clash"
title = "a parameter named like an option"
[parameters.k]
domain = "unit"
default = "0.2"
[parameters.{name}]
domain = "positive"
default = "1"
[base.X]
law = "normal"
mu = "0"
sigma = "{name}"
[base.Y]
law = "normal"
mu = "0"
sigma = "1"
[[features]]
expr = "X"
[[features]]
expr = "Y"
[class]
rule = "X + k*Y >= 0"
''')
    return path


def test_the_reserved_names():
    assert RESERVED_PARAMETER_NAMES == ("beta", "gamma", "zero_beta", "reading", "method", "digits")


@pytest.mark.parametrize("name", RESERVED_PARAMETER_NAMES)
def test_a_reserved_parameter_name_is_refused_at_load_with_the_reason(capsys, tmp_path, name):
    path = scenario(tmp_path, name)
    for argv in (["values", "--scenario-file", path],
                 ["atlas", "--scenario-file", path, "--method", "mifs", "--vary", "k",
                  "--vary", "beta"],
                 ["order", "--scenario-file", path, "--method", "mrmr", "--json"]):
        assert main([str(a) for a in argv]) == 2
        out, err = capsys.readouterr()
        assert out == "" and err.count("\n") == 1
        assert err.startswith(f"fstheory: error: {path}:6: parameters.{name}: parameter name "
                              f"'{name}' is reserved: it names a method option")
    with pytest.raises(fstheory.UserInputError, match=f"parameter name '{name}' is reserved"):
        fstheory.load_scenario(path)
    with pytest.raises(ValueError, match="is reserved"):
        Parameter(name, None)


def test_another_name_works_and_keeps_its_value_in_the_json(capsys, tmp_path):
    """`kappa` is no method's option: a parameter of that name is the scenario's."""
    import json

    path = scenario(tmp_path, "kappa")
    assert main(["order", "--scenario-file", str(path), "--method", "mrmr", "--json",
                 "--param", "kappa=2"]) == 0
    js = json.loads(capsys.readouterr().out)
    assert js["params"]["kappa"] == "2" and js["params"]["reading"] == "table"
