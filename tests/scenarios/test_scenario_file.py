"""Scenario files: the shipped ones restate the built-in declarations, malformed ones are rejected
with the file, the line and what was expected, and nothing in a file is ever executed."""

import builtins
import os
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import sympy as sp

from fstheory.scenarios.declaration import ParameterError
from fstheory.scenarios.overrides import bind_from_cli, merge_overrides, parse_param_assignments
from fstheory.scenarios.registry import get_scenario, load_scenario_file, resolve_scenario, scenario_names
from fstheory.scenarios.scenario_file import (
    MAX_FILE_BYTES,
    ScenarioFileError,
    describe,
    main,
    parse_scenario_text,
    shipped_scenario_files,
    shipped_scenario_path,
)
from fstheory.theory.laws import Laplace

DATA = Path(__file__).parents[1] / "data"
BAD = DATA / "bad_scenarios"
INDEX = tomllib.loads((BAD / "index.toml").read_text())
TINY = (DATA / "scenarios" / "tiny.toml").read_text()


# --- the malformed corpus ---------------------------------------------------------------------


def test_corpus_is_large_and_fully_indexed():
    files = {p.stem for p in BAD.glob("*.toml")} - {"index"}
    assert len(files) >= 30
    assert files == set(INDEX)


def test_the_unmutated_base_file_loads():
    s = parse_scenario_text(TINY, "tiny.toml")
    assert [f.label for f in s.features] == ["X", "X+Y"]


@pytest.mark.parametrize("stem", sorted(INDEX))
def test_malformed_file_is_rejected_with_file_line_and_expectation(stem):
    entry = INDEX[stem]
    path = BAD / f"{stem}.toml"
    with pytest.raises(ScenarioFileError) as info:
        load_scenario_file(path)
    err = info.value
    assert isinstance(err, ParameterError)  # the CLI maps it to exit code 2
    assert str(err).startswith(f"{path}:{entry['line']}: ")
    assert err.line == entry["line"]
    assert entry["fragment"] in str(err)
    assert "Traceback" not in str(err) and "\n" not in str(err)


# --- nothing is executed ----------------------------------------------------------------------


@pytest.fixture
def no_code_execution(monkeypatch):
    """Make every way of running text fail loudly (and record it) while a file is read."""
    calls = []
    # sympy builds its monomial arithmetic for a polynomial ring of n generators by exec of
    # source it writes from n (sympy.polys.monomials.MonomialOps), once per process: allowed
    # from there only, else the test depended on an earlier test having built the same ring
    sympy_codegen = "sympy.polys.monomials"

    def guard(name, real=None, text_only=True):
        def wrapper(*args, **kwargs):
            if name == "exec" and sys._getframe(1).f_globals.get("__name__") == sympy_codegen:
                return real(*args, **kwargs)
            if not text_only or (args and isinstance(args[0], (str, bytes))):
                calls.append(name)
                raise AssertionError(f"{name} called while reading a scenario file")
            return real(*args, **kwargs)

        return wrapper

    import sympy.parsing.sympy_parser as sympy_parser

    sympify_module = sys.modules["sympy.core.sympify"]
    # eval/exec are refused whatever their argument (text or code object)
    monkeypatch.setattr(builtins, "eval", guard("eval", text_only=False))
    monkeypatch.setattr(builtins, "exec", guard("exec", builtins.exec, text_only=False))
    monkeypatch.setattr(sp, "sympify", guard("sympify", sp.sympify))
    monkeypatch.setattr(sympify_module, "sympify", guard("sympify", sympify_module.sympify))
    monkeypatch.setattr(sympy_parser, "parse_expr", guard("parse_expr", sympy_parser.parse_expr))
    monkeypatch.setattr(os, "system", guard("os.system", text_only=False))
    monkeypatch.setattr(subprocess, "Popen", guard("subprocess.Popen", text_only=False))
    return calls


def _attempts(marker: Path) -> dict[str, str]:
    touch = f"__import__('os').system('touch {marker}')"
    return {
        "feature": TINY.replace('expr = "X + Y"', f'expr = "{touch}"'),
        "feature_open": TINY.replace('expr = "X + Y"', f"expr = \"open('{marker}', 'w')\""),
        "law": TINY.replace('sigma = "s"', f'sigma = "{touch}"'),
        "rule": TINY.replace('rule = "X + k*Y >= 0"', f'rule = "X >= {touch}"'),
        "default": TINY.replace("default = 0.5", f'default = "{touch}"'),
        "template": TINY.replace('label = "X+Y"', f'label = "X+Y"\ntemplate = "{{{touch}}}"'),
        "dunder": TINY.replace(
            'expr = "X + Y"',
            "expr = \"().__class__.__base__.__subclasses__()[0]('touch " + str(marker) + "')\"",
        ),
    }


@pytest.mark.parametrize("slot", sorted(_attempts(Path("m"))))
def test_code_in_a_file_is_never_executed(slot, tmp_path, no_code_execution):
    marker = tmp_path / "marker"
    path = tmp_path / f"{slot}.toml"
    path.write_text(_attempts(marker)[slot])
    with pytest.raises(ScenarioFileError) as info:
        load_scenario_file(path)
    assert str(info.value).startswith(f"{path}:")
    assert not marker.exists()
    assert no_code_execution == []


def test_whole_corpus_and_shipped_files_load_without_evaluating_text(no_code_execution):
    for path in sorted(BAD.glob("*.toml")):
        if path.stem == "index":
            continue
        with pytest.raises(ScenarioFileError):
            load_scenario_file(path)
    for path in shipped_scenario_files():
        load_scenario_file(path)
    assert no_code_execution == []
    assert not Path("fstheory-pwned").exists()


# --- the shipped files restate the built-in declarations --------------------------------------


def _default(p):
    return None if p.default is None else p.validate(p.default)


@pytest.mark.parametrize("name", ["uniform", "normal"])
def test_shipped_file_equals_builtin_declaration(name):
    from_file = load_scenario_file(shipped_scenario_path(name))
    builtin = get_scenario(name)
    assert from_file.name == builtin.name
    assert [(p.name, _default(p), p.domain) for p in from_file.parameters] == [
        (p.name, _default(p), p.domain) for p in builtin.parameters
    ]
    assert [p.symbol for p in from_file.parameters] == [p.symbol for p in builtin.parameters]
    assert list(from_file.base) == list(builtin.base)
    for sym, law in builtin.base.items():
        assert type(from_file.base[sym]) is type(law)
        assert all(sp.simplify(u - v) == 0 for u, v in zip(from_file.base[sym].params, law.params))
    assert [(f.label, f.template) for f in from_file.features] == [
        (f.label, f.template) for f in builtin.features
    ]
    for mine, theirs in zip(from_file.features, builtin.features, strict=True):
        assert sp.simplify(mine.expr - theirs.expr) == 0
        assert mine.expr == theirs.expr  # same tree, not just the same value
    rule, builtin_rule = from_file.class_rule, builtin.class_rule
    assert list(rule.weights) == list(builtin_rule.weights)
    assert all(sp.simplify(rule.weights[s] - builtin_rule.weights[s]) == 0 for s in rule.weights)
    assert sp.simplify(rule.threshold - builtin_rule.threshold) == 0
    # bound at the paper's parameters the two agree, labels included
    for k in ("0", "0.2", "0.8", "1"):
        a, b = bind_from_cli(from_file, {"k": k}), bind_from_cli(builtin, {"k": k})
        assert a.params == b.params
        assert a.feature_exprs() == b.feature_exprs()
        assert a.laws() == b.laws()
        assert a.display_labels() == b.display_labels()


def test_laplace_scenario_is_the_paper_scenario_with_laplace_laws():
    s = load_scenario_file(shipped_scenario_path("laplace"))
    uniform = get_scenario("uniform")
    assert s.name == "laplace"
    assert [(p.name, _default(p), p.domain) for p in s.parameters] == [
        ("scale", sp.Rational(1, 2), "positive"),
        ("k", None, "unit"),
        ("a", 3, "nonzero"),
        ("b", 1, "real"),
        ("d", 2, "real"),
    ]
    scale = s.symbols["scale"]
    assert list(s.base) == list(uniform.base)
    assert all(law == Laplace(0, scale) for law in s.base.values())
    assert [f.expr for f in s.features] == [f.expr for f in uniform.features]
    assert [f.label for f in s.features] == [f.label for f in uniform.features]
    assert dict(s.class_rule.weights) == dict(uniform.class_rule.weights)
    bound = bind_from_cli(s, {"k": "0.2"})
    assert bound.params["scale"] == sp.Rational(1, 2)
    assert bound.laws()[s.features[0].expr] == Laplace(0, sp.Rational(1, 2))
    assert bound.display_labels()[1] == "3X+1" and bound.display_labels()[8] == "W+2"
    # the intercept b of aX+b and the Laplace scale are different parameters
    rebound = bind_from_cli(s, {"k": "0.2", "b": "-0.5", "a": "-1", "scale": "2"})
    assert rebound.display_labels()[1] == "-X-0.5"
    assert rebound.laws()[s.features[0].expr] == Laplace(0, 2)


def test_laplace_is_registered_from_its_file():
    assert "laplace" in scenario_names()
    assert get_scenario("laplace").title.startswith("Scenario III")
    assert resolve_scenario(file=shipped_scenario_path("laplace")).name == "laplace"
    with pytest.raises(ParameterError, match="exactly one"):
        resolve_scenario("uniform", shipped_scenario_path("uniform"))


# --- the class rule -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    "rule, weights, threshold",
    [
        ("X + k*Y >= 0", {"X": 1, "Y": "k"}, 0),
        ("Y <= X", {"X": 1, "Y": -1}, 0),
        ("2*X + 1 > k", {"X": 2}, "k - 1"),
        ("(X + k*Y)/2 >= s", {"X": "1/2", "Y": "k/2"}, "s"),
        ("0 < X - s*Y", {"X": 1, "Y": "-s"}, 0),
        ("-X >= -1", {"X": -1}, -1),
        ("X + 0*Y >= 0", {"X": 1}, 0),
    ],
)
def test_class_rule_is_stored_as_weights_and_threshold(rule, weights, threshold):
    s = parse_scenario_text(TINY.replace('rule = "X + k*Y >= 0"', f'rule = "{rule}"'))
    names = {**s.symbols, "X": sp.Symbol("X", real=True), "Y": sp.Symbol("Y", real=True)}

    def expr(v):
        return sp.Integer(v) if isinstance(v, int) else sp.sympify(v, locals=names)

    got = {str(b): w for b, w in s.class_rule.weights.items()}
    assert set(got) == set(weights)
    for b, w in weights.items():
        assert sp.simplify(got[b] - expr(w)) == 0
    assert sp.simplify(s.class_rule.threshold - expr(threshold)) == 0


# --- lines are found however the TOML is written ----------------------------------------------

INLINE = """name = "inline"
title = "written with inline tables"
parameters.s = { default = 1, domain = "positive" }
features = [
  { expr = "X" },
  { label = "sum", expr = "X + Y" },
]

[base]
X = { law = "normal", mu = "0", sigma = "s" }
Y = { law = "logistic", mu = "0", s = "SIGMA" }

[class]
rule = "X >= 0"
"""


def test_lines_of_inline_tables_and_arrays_of_inline_tables():
    with pytest.raises(ScenarioFileError) as info:
        parse_scenario_text(INLINE, "inline.toml")
    assert info.value.line == 11 and "unknown name 'SIGMA'" in str(info.value)
    assert info.value.where == "base.Y.s"
    fixed = INLINE.replace('"SIGMA"', '"s"')
    assert [f.label for f in parse_scenario_text(fixed).features] == ["X", "sum"]
    with pytest.raises(ScenarioFileError) as info:
        parse_scenario_text(fixed.replace('expr = "X + Y"', 'expr = "X + Q"'), "inline.toml")
    assert info.value.line == 6 and info.value.where == "features[2].expr"


def test_a_top_level_key_written_under_a_table_is_pointed_at():
    text = TINY.replace('name = "tiny"\n', "") + 'name = "late"\n'
    with pytest.raises(ScenarioFileError) as info:
        parse_scenario_text(text, "late.toml")
    assert "'name' is inside [class]" in str(info.value)
    assert text.splitlines()[info.value.line - 1] == 'name = "late"'


def test_multiline_strings_do_not_confuse_the_line_finder():
    text = TINY.replace(
        'title = "A tiny scenario"', 'title = "t"\ndescription = """\n[base.X]\nlaw = "x"\n"""'
    ).replace('expr = "X + Y"', 'expr = "X + Q"')
    with pytest.raises(ScenarioFileError) as info:
        parse_scenario_text(text, "t.toml")
    lines = text.splitlines()
    assert lines[info.value.line - 1] == 'expr = "X + Q"'


# --- files that cannot be read ------------------------------------------------------------------


def test_missing_and_oversized_files(tmp_path):
    with pytest.raises(ScenarioFileError, match="cannot read the file"):
        load_scenario_file(tmp_path / "nope.toml")
    big = tmp_path / "big.toml"
    big.write_text("# " + "x" * MAX_FILE_BYTES)
    with pytest.raises(ScenarioFileError, match="file too large"):
        load_scenario_file(big)


# --- command-line overrides ---------------------------------------------------------------------


def test_overrides_replace_file_defaults():
    s = load_scenario_file(shipped_scenario_path("laplace"))
    bound = bind_from_cli(s, merge_overrides({"k": "0.8", "a": None}, parse_param_assignments(["scale=1e-1"])))
    assert bound.params == {
        "scale": sp.Rational(1, 10), "k": sp.Rational(4, 5), "a": 3, "b": 1, "d": 2
    }


@pytest.mark.parametrize(
    "overrides, fragment",
    [
        ({"k": "0.2", "sigma": "1"}, "unknown parameter 'sigma' for scenario 'laplace' (allowed: scale, k, a, b, d)"),
        ({}, "parameter 'k' of scenario 'laplace' has no default: give it with --k VALUE or --param k=VALUE (in [0, 1])"),
        ({"k": "1.5"}, "parameter 'k' must be in [0, 1] (got 1.5)"),
        ({"k": "0.2", "scale": "0"}, "parameter 'scale' must be > 0 (got 0)"),
        ({"k": "0.2", "a": "0"}, "parameter 'a' must be != 0 (got 0)"),
        ({"k": "x"}, "parameter 'k' must be a finite number (got 'x')"),
    ],
)
def test_bad_overrides_are_parameter_errors(overrides, fragment):
    s = load_scenario_file(shipped_scenario_path("laplace"))
    with pytest.raises(ParameterError) as info:
        bind_from_cli(s, overrides)
    assert fragment in str(info.value)


def test_law_checked_again_when_an_override_makes_a_scale_nonpositive():
    s = parse_scenario_text(
        TINY.replace("default = 1\n", "default = 2\n").replace('b = "s"', 'b = "s - 1"')
    )
    assert bind_from_cli(s, {}).laws()[sp.Symbol("Y", real=True)] == Laplace(0, 1)
    with pytest.raises(ParameterError, match="laplace law: parameter 'b' must be > 0"):
        bind_from_cli(s, {"s": "0.5"})


@pytest.mark.parametrize(
    "items, fragment",
    [
        (["k"], "--param expects NAME=VALUE"),
        (["=1"], "--param expects NAME=VALUE"),
        (["k="], "--param expects NAME=VALUE"),
        (["k=1", "k=2"], "given twice"),
    ],
)
def test_bad_param_assignments(items, fragment):
    with pytest.raises(ParameterError, match=fragment):
        parse_param_assignments(items)


def test_merge_rejects_conflicting_values_and_accepts_equal_ones():
    assert merge_overrides({"k": "0.2"}, {"k": "0.2"}) == {"k": "0.2"}
    with pytest.raises(ParameterError, match=r"given twice \(--k 0.2 and --param k=0.3\)"):
        merge_overrides({"k": "0.2"}, {"k": "0.3"})


# --- the checker entry point --------------------------------------------------------------------


def test_main_prints_summaries_and_exits_2_on_a_bad_file(capsys):
    assert main([str(shipped_scenario_path("laplace"))]) == 0
    out = capsys.readouterr().out
    assert "X ~ Laplace(0, scale)" in out and "V10  Z+W" in out
    assert main([str(BAD / "unknown_law.toml")]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"error: {BAD / 'unknown_law.toml'}:{INDEX['unknown_law']['line']}:")
    assert describe(get_scenario("uniform")).startswith("uniform: Scenario I")


# --- the guide's worked example is a real file ------------------------------------------------


def test_guide_example_loads_and_its_error_message_is_the_one_shown():
    import re
    import textwrap

    guide = (Path(__file__).parents[2] / "docs" / "adding-a-scenario.md").read_text()
    text = textwrap.dedent(re.search(r"```toml\n(.*?)```", guide, re.S).group(1))
    s = parse_scenario_text(text, "my.toml")
    assert [f.label for f in s.features] == ["X", "Y", "X^2", "Z", "2Z+1"]
    assert "X ~ Logistic(0, s)" in describe(s)
    with pytest.raises(ScenarioFileError) as info:
        parse_scenario_text(text.replace('expr = "X^2"', 'expr = "X^2 + V1"'), "my.toml")
    shown = re.search(r"`(my\.toml:\d+: features\[3\]\.expr:[^`]*)`", guide.replace("\n   ", " "))
    assert shown and str(info.value).startswith(shown.group(1).rstrip())


# --- through the command line: one line on stderr, exit code 2 ----------------------------------


@pytest.mark.parametrize("stem", sorted(INDEX))
def test_cli_rejects_each_malformed_file_with_exit_code_2(stem, capsys):
    from fstheory.cli import main as cli_main

    path = BAD / f"{stem}.toml"
    assert cli_main(["values", "--scenario-file", str(path), "--k", "0.2", "--digits", "5"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err.startswith(f"fstheory: error: {path}:{INDEX[stem]['line']}: ")
    assert INDEX[stem]["fragment"] in captured.err
    assert captured.err.count("\n") == 1 and "Traceback" not in captured.err
