"""Small things: messages, help texts and outputs that said something not quite true."""

from __future__ import annotations

import json
import re
from pathlib import Path

import pytest

from fstheory.cli import main

README = (Path(__file__).resolve().parents[2] / "README.md").read_text()


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_a_range_bound_of_1e_minus_1000_is_swept_not_refused_as_a_number_never_typed(capsys):
    code, out, err = run(capsys, "atlas", "--scenario", "uniform", "--method", "mrmr", "--vary",
                         "k", "--range", "1e-1000:1", "--grid", "4")
    assert "too many digits" not in err
    assert code == 0 and out.splitlines()[0] == "Atlas of mRMR on uniform over k in [1e-1000, 1]"


@pytest.mark.slow
def test_one_digit_breakpoints_that_differ_read_differently(capsys):
    argv = ["atlas", "--scenario", "uniform", "--method", "mifs", "--beta", "0.1", "--vary", "k"]
    code, out, err = run(capsys, *argv, "--digits", "1")
    assert code == 0
    rows = out[out.index("breakpoint"):].splitlines()[1:3]
    one = [r.split()[0] for r in rows]
    # located to 20 digits they are 0.45115... and 0.48618...: distinct at two digits, and the
    # two-digit texts are proved by the one-digit brackets (relative width 10^-3)
    assert one == ["0.45", "0.49"]
    assert ".e" not in out  # no '5.e-1'
    code, out20, _ = run(capsys, *argv)
    rows20 = out20[out20.index("breakpoint"):].splitlines()[1:3]
    assert [r.split()[0][:6] for r in rows20] == ["0.4511", "0.4861"]


def test_nothing_to_vary_says_so(capsys, tmp_path):
    path = tmp_path / "fixed.toml"
    path.write_text('name = "fixed"\ntitle = "no parameter"\n[base.X]\nlaw = "normal"\nmu = "0"\n'
                    'sigma = "1"\n[base.Y]\nlaw = "normal"\nmu = "0"\nsigma = "1"\n[[features]]\n'
                    'expr = "X"\n[[features]]\nexpr = "Y"\n[class]\nrule = "X + Y >= 0"\n')
    code, out, err = run(capsys, "atlas", "--scenario-file", path, "--method", "mrmr", "--vary", "k")
    assert code == 2
    assert "must be one of  (" not in err
    assert ("parameter 'vary': scenario 'fixed' declares no parameter and mRMR has no beta: "
            "nothing to vary (got 'k')") in err


def test_a_boundary_of_one_point_is_one_point():
    from fstheory.atlas.phase_map import phase_map
    from fstheory.atlas.sweep import AtlasSpec

    ks = AtlasSpec(scenario="uniform", method="mifs", parameter="k", lo="0", hi="0.1", digits=10)
    bs = AtlasSpec(scenario="uniform", method="mifs", parameter="beta", lo="0", hi="1", digits=10,
                   grid=6)
    text = phase_map([ks, bs], columns=3).text()
    assert " 1 points" not in text and re.search(r": 1 point, from ", text)


def test_the_values_header_says_what_the_list_holds(capsys):
    code, out, err = run(capsys, "values", "--scenario", "uniform", "--k", "0.2", "--digits", "5")
    assert "finite values" not in out
    header = "MI(Vi, Vj), i > j (each MI(Vi, Vi) is +inf):"
    assert header in out
    assert "= +inf" in out[out.index(header):]  # the list holds infinite values too


def test_help_texts(capsys):
    assert main(["--help"]) == 0
    top = capsys.readouterr().out
    assert "130 interrupted (Ctrl-C); 143 terminated (SIGTERM)" in " ".join(top.split())
    assert main(["atlas", "--help"]) == 0
    atlas_help = " ".join(capsys.readouterr().out.split())
    assert "default: its domain" not in atlas_help
    assert "required for a parameter with an unbounded domain, such as delta or sigma" in atlas_help
    assert "default: the scenario's; required" not in atlas_help
    assert ("(default: the scenario file's, if it declares one; required otherwise, and for "
            "every registered scenario)") in atlas_help


@pytest.mark.parametrize("joint", [False, True])
def test_the_readme_names_every_key_of_values_json(capsys, joint):
    code, out, _ = run(capsys, "values", "--scenario", "uniform", "--k", "0.2", "--digits", "5",
                       "--json", *(["--joint"] if joint else []))
    keys = list(json.loads(out))
    intro = README[README.index("`--json` prints one object"):][:600]
    assert [k for k in keys if f"`{k}`" not in intro] == []


def test_the_values_header_lists_a_constant_features_diagonal(capsys, tmp_path):
    """k*Y at k = 0 is constant: MI(kY, kY) = H(kY) = 0, never said to be +inf."""
    path = tmp_path / "const.toml"
    path.write_text('name = "const"\ntitle = "const"\n[parameters.k]\ndomain = "unit"\n'
                    '[base.X]\nlaw = "uniform"\nlow = "-1"\nhigh = "1"\n'
                    '[base.Y]\nlaw = "uniform"\nlow = "-1"\nhigh = "1"\n'
                    '[[features]]\nexpr = "X"\n[[features]]\nlabel = "kY"\nexpr = "k*Y"\n'
                    '[class]\nrule = "X + Y >= 0"\n')
    code, out, err = run(capsys, "values", "--scenario-file", str(path), "--k", "0",
                         "--digits", "5")
    assert code == 0 and "(each MI(Vi, Vi) is +inf):" not in out
    assert "except those listed first" in out and "  MI(kY, kY) = 0\n" in out
