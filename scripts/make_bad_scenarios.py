"""Write the corpus of malformed scenario files used by tests/scenarios/test_scenario_file.py.

Each file is tests/data/scenarios/tiny.toml (a valid scenario) with one mistake. The expected
line of the error is found here from an anchor text in the mutated file (not from the reader), and
the expected message fragment is written by hand. Output: tests/data/bad_scenarios/*.toml and
index.toml (file stem -> line, fragment, what the mistake is). Run from the repository root:

    python3 scripts/make_bad_scenarios.py
"""

from __future__ import annotations

import json
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASE = (ROOT / "tests/data/scenarios/tiny.toml").read_text()
OUT = ROOT / "tests/data/bad_scenarios"

F2 = '[[features]]\nlabel = "X+Y"\nexpr = "X + Y"\n'

# (stem, what, old, new, anchor, fragment); anchor: text on the expected line (first such line),
# ("last", text) for the last such line, ("line", n) for line n of the written file.
# An anchor of None puts the top-level key in TOP[stem] right after the title (top-level keys
# must come before the first table) and anchors on it.
TOP = {"empty_features": "features = []", "features_not_array": 'features = "X, X + Y"'}
CASES = [
    # laws
    ("unknown_law", "law not in the registry", 'law = "laplace"', 'law = "gamma"',
     'law = "gamma"', "unknown law 'gamma' (expected one of: uniform, normal"),
    ("law_not_string", "law given as a number", 'law = "laplace"', "law = 3",
     "law = 3", "expected a string, got integer 3"),
    ("missing_law", "base table without law", 'law = "laplace"\n', "",
     "[base.Y]", "missing 'law' in [base.Y]"),
    ("missing_law_parameter", "normal law without sigma", 'sigma = "s"\n', "",
     "[base.X]", "missing parameter 'sigma' of the normal law (expected: mu, sigma)"),
    ("unknown_law_parameter", "Laplace scale spelled 'scale'", 'b = "s"', 'scale = "s"',
     'scale = "s"', "unknown parameter 'scale' for the laplace law (expected: mu, b)"),
    ("negative_scale", "sigma < 0 at the defaults", 'sigma = "s"', 'sigma = "-s"',
     'sigma = "-s"', "parameter 'sigma' must be > 0 (got -1) at the declared defaults (s = 1)"),
    ("zero_scale", "Laplace b = 0", 'b = "s"', "b = 0",
     "b = 0", "laplace law: parameter 'b' must be > 0 (got 0)"),
    ("scale_zero_at_defaults", "scale s - 1 is 0 at s = 1", 'b = "s"', 'b = "s - 1"',
     'b = "s - 1"', "must be > 0 (got 0) at the declared defaults (s = 1)"),
    ("uniform_empty_interval", "uniform with low > high", 'law = "normal"\nmu = "0"\nsigma = "s"',
     'law = "uniform"\nlow = "s"\nhigh = "-s"', "[base.X]", "need low < high"),
    ("law_uses_variable", "law parameter depends on a base variable", 'sigma = "s"',
     'sigma = "s*Y"', 'sigma = "s*Y"', "not of base variables"),
    ("complex_scale", "law parameter sqrt(-1)", 'sigma = "s"', 'sigma = "sqrt(-1)"',
     'sigma = "sqrt(-1)"', "not a real number"),
    # parameters
    ("default_outside_domain", "k = 1.5 not in [0, 1]", "default = 0.5", "default = 1.5",
     "default = 1.5", "parameter 'k' must be in [0, 1] (got 1.5)"),
    ("default_wrong_type", "boolean default", "default = 0.5", "default = true",
     "default = true", "expected a number or a string such as \"1/2\""),
    ("default_not_a_number", "default text", "default = 0.5", 'default = "half"',
     'default = "half"', "parameter 'k' must be a finite number (got 'half')"),
    ("default_infinite", "TOML inf", "default = 0.5", "default = inf",
     "default = inf", "must be a finite number"),
    ("unknown_domain", "domain not in the list", 'domain = "unit"', 'domain = "integer"',
     'domain = "integer"', "unknown domain 'integer' (expected one of: real, positive, nonzero, unit)"),
    ("unknown_parameter_key", "misspelt key", "default = 0.5", "defualt = 0.5",
     "defualt = 0.5", "unknown key 'defualt' in [parameters.k] (allowed: default, domain, description)"),
    ("parameter_not_table", "parameter given as a bare value",
     '[parameters.s]\ndefault = 1\ndomain = "positive"\n', "[parameters]\ns = 1\n",
     "s = 1", "expected a table"),
    ("dunder_parameter_name", "parameter named __class__", "[parameters.s]", "[parameters.__class__]",
     "[parameters.__class__]", "parameter name '__class__' is not valid"),
    ("reserved_variable_name", "base variable named exp", "[base.Y]", "[base.exp]",
     "[base.exp]", "base variable name 'exp' is reserved"),
    ("name_clash", "a parameter and a base variable both named s",
     '[base.Y]\nlaw = "laplace"', '[base.s]\nlaw = "laplace"', "[base.s]",
     "name 's' is declared both as a parameter (line 11) and as a base variable"),
    ("duplicate_parameter", "the same parameter table twice", "[parameters.s]", "[parameters.k]",
     ("last", "[parameters.k]"), "Cannot declare ('parameters', 'k') twice"),
    # features
    ("feature_unknown_variable", "feature uses an undeclared Q", 'expr = "X + Y"', 'expr = "X + Q"',
     'expr = "X + Q"', "unknown name 'Q' at column 5: expected a number, a parameter (k, s), "
     "a base variable (X, Y)"),
    ("feature_refers_to_feature", "feature names another feature's label",
     F2, '[[features]]\nlabel = "U"\nexpr = "X + Y"\n\n[[features]]\nexpr = "U^2"\n',
     'expr = "U^2"', "name 'U' is not allowed here at column 1: features are expressions of the "
     "base variables and parameters, not of other features"),
    ("feature_refers_to_V1", "feature names V1", 'expr = "X + Y"', 'expr = "V1 + Y"',
     'expr = "V1 + Y"', "not of other features"),
    ("constant_feature", "feature without a base variable", 'expr = "X + Y"', 'expr = "k + 1"',
     'expr = "k + 1"', "uses no base variable"),
    ("missing_expr", "feature with a label only", 'label = "X+Y"\nexpr = "X + Y"\n', 'label = "X+Y"\n',
     ("last", "[[features]]"), "missing 'expr' in feature V2"),
    ("unknown_feature_key", "misspelt expr", 'expr = "X"', 'expression = "X"',
     'expression = "X"', "unknown key 'expression' in feature V1 (allowed: expr, label, template)"),
    ("duplicate_label", "two features labelled X", 'label = "X+Y"', 'label = "X"',
     ("last", 'label = "X"'), "duplicate feature label 'X' (also feature V1"),
    ("duplicate_key", "expr twice in one feature", 'expr = "X + Y"\n', 'expr = "X + Y"\nexpr = "Y"\n',
     ("last", 'expr = "Y"'), "Cannot overwrite a value"),
    ("empty_features", "no feature", '[[features]]\nexpr = "X"\n\n' + F2, "", None,
     "empty feature list"),
    ("features_not_array", "features as a string", '[[features]]\nexpr = "X"\n\n' + F2, "", None,
     "expected an array of tables"),
    ("bad_template", "template names an undeclared c", 'label = "X+Y"', 'label = "X+Y"\ntemplate = "{c}X+Y"',
     "template = ", "template field '{c}' does not name a parameter"),
    ("unquoted_expression", "expression not in quotes", 'expr = "X + Y"', "expr = X + Y",
     "expr = X + Y", "TOML syntax error: Invalid value at column 8"),
    ("division_by_zero", "feature X/0", 'expr = "X + Y"', 'expr = "X/0"',
     'expr = "X/0"', "division by zero at column 2"),
    ("unicode_minus", "U+2212 instead of '-'", 'expr = "X + Y"', 'expr = "X \u2212 Y"',
     'expr = "X \u2212 Y"', "U+2212"),
    ("implicit_multiplication", "2X", 'expr = "X + Y"', 'expr = "2X + Y"',
     'expr = "2X + Y"', "no implicit multiplication"),
    ("too_deep", "pathological nesting", 'expr = "X + Y"', 'expr = "' + "(" * 60 + "X" + ")" * 60 + '"',
     'expr = "(((', "nested too deeply"),
    ("huge_power", "10^10^10", 'expr = "X + Y"', 'expr = "X + 10^10^10"',
     'expr = "X + 10^10^10"', "out of range"),
    # attempts at code
    ("code_import", "__import__ in a feature", 'expr = "X + Y"',
     "expr = \"__import__('os').system('touch fstheory-pwned')\"", "__import__",
     "unknown name '__import__' at column 1"),
    ("code_attribute", "attribute access", 'expr = "X + Y"', 'expr = "X.__class__"',
     'expr = "X.__class__"', "unexpected character '.' at column 2"),
    ("code_lambda", "lambda", 'expr = "X + Y"', 'expr = "lambda: X"',
     'expr = "lambda: X"', "unknown name 'lambda'"),
    ("code_semicolon", "statement separator", 'expr = "X + Y"', 'expr = "X; import os"',
     'expr = "X; import os"', "unexpected character ';' at column 2"),
    ("code_eval", "eval call", 'expr = "X + Y"', "expr = \"eval('X')\"",
     "eval(", "unknown name 'eval'"),
    ("code_in_law", "code in a law parameter", 'sigma = "s"', "sigma = \"__import__('os').getcwd()\"",
     "sigma = ", "unknown name '__import__'"),
    ("code_in_rule", "code after the class rule", 'rule = "X + k*Y >= 0"',
     "rule = \"X >= 0 if exec('1') else 1\"", "rule = ", "unexpected name 'if'"),
    ("code_subscript", "subscript / dunder chain", 'expr = "X + Y"',
     "expr = \"().__class__.__bases__[0].__subclasses__()\"", "__bases__", "unexpected ')' at column 2"),
    # class rule
    ("cubic_rule", "degree 3 in a base variable", 'rule = "X + k*Y >= 0"', 'rule = "X^3 >= Y"',
     'rule = "X^3 >= Y"', "the class rule has degree 3 in X (at most 2 in each base variable"),
    ("abs_rule", "abs of a base variable", 'rule = "X + k*Y >= 0"', 'rule = "abs(X) >= k"',
     'rule = "abs(X) >= k"', "is not a polynomial in the base variables"),
    ("log_of_normal", "log of a normal variable", 'expr = "X + Y"', 'expr = "log(X)"',
     'expr = "log(X)"', "log(X) is not real where X <= 0, which has positive probability"),
    ("sqrt_of_normal", "sqrt of a normal variable", 'expr = "X + Y"', 'expr = "sqrt(X) + Y"',
     'expr = "sqrt(X) + Y"', "sqrt(X) is not real where X < 0"),
    ("rule_without_comparison", "no comparison", 'rule = "X + k*Y >= 0"', 'rule = "X + k*Y"',
     'rule = "X + k*Y"', "expected a comparison >=, >, <=, <"),
    ("rule_equality", "== instead of >=", 'rule = "X + k*Y >= 0"', 'rule = "X + k*Y == 0"',
     'rule = "X + k*Y == 0"', "a class rule is an inequality"),
    ("rule_chained", "two comparisons", 'rule = "X + k*Y >= 0"', 'rule = "0 <= X <= 1"',
     'rule = "0 <= X <= 1"', "only one comparison is allowed"),
    ("rule_constant", "rule without base variable", 'rule = "X + k*Y >= 0"', 'rule = "k >= 0"',
     'rule = "k >= 0"', "uses no base variable"),
    ("missing_rule", "[class] without rule", 'rule = "X + k*Y >= 0"', 'description = "the class"',
     'description = "the class"', "unknown key 'description' in [class] (allowed: rule)"),
    ("empty_class", "[class] with nothing in it", 'rule = "X + k*Y >= 0"\n', "",
     "[class]", "missing 'rule' in [class]"),
    # top level
    ("missing_name", "no name", 'name = "tiny"\n', "", ("line", 1), "missing required 'name'"),
    ("missing_class", "no [class]", '[class]\nrule = "X + k*Y >= 0"\n', "", ("line", 1),
     "missing required 'class'"),
    ("missing_base", "no [base.*]", '[base.X]\nlaw = "normal"\nmu = "0"\nsigma = "s"\n\n'
     '[base.Y]\nlaw = "laplace"\nmu = "0"\nb = "s"\n', "", ("line", 1), "missing required 'base'"),
    ("empty_base", "[base] with no variable", '[base.X]\nlaw = "normal"\nmu = "0"\nsigma = "s"\n\n'
     '[base.Y]\nlaw = "laplace"\nmu = "0"\nb = "s"\n', "[base]\n", "[base]", "no base variable declared"),
    ("title_wrong_type", "title as a number", 'title = "A tiny scenario"', "title = 3",
     "title = 3", "expected a string, got integer 3"),
    ("unknown_top_key", "closed forms cannot be given in a file", 'title = "A tiny scenario"',
     'title = "A tiny scenario"\nclosed_forms = "ln(2) - k/2"', "closed_forms",
     "unknown top-level key 'closed_forms'"),
    ("bad_scenario_name", "path-like name", 'name = "tiny"', 'name = "../../etc/passwd"',
     'name = "../../etc/passwd"', "scenario name '../../etc/passwd' is not valid"),
]


def main() -> None:
    from fstheory.reports.atomic import write_together

    OUT.mkdir(parents=True, exist_ok=True)
    files: dict = {}  # path -> bytes, written together at the end
    index = {}
    for stem, what, old, new, anchor, fragment in CASES:
        assert BASE.count(old) == 1, (stem, old)
        text = f"# bad scenario: {what}\n" + BASE.replace(old, new)
        if anchor is None:
            title = 'title = "A tiny scenario"\n'
            text = text.replace(title, title + TOP[stem] + "\n")
            anchor = TOP[stem]
        if isinstance(anchor, tuple) and anchor[0] == "line":
            line = anchor[1]
        else:
            last = isinstance(anchor, tuple)
            needle = anchor[1] if last else anchor
            lines = text.splitlines()[1:]  # not the '# bad scenario' comment
            hits = [i for i, t in enumerate(lines, start=2) if needle in t]
            assert hits, (stem, anchor)
            line = hits[-1] if last else hits[0]
        files[OUT / f"{stem}.toml"] = text.encode("utf-8")
        index[stem] = {"line": line, "fragment": fragment, "what": what}
    # one mistake no text editor shows: bytes that are not UTF-8
    files[OUT / "not_utf8.toml"] = b"# bad scenario: Latin-1 bytes\n" + BASE.encode().replace(
        b'"A tiny scenario"', b'"A tiny sc\xe9nario"')
    index["not_utf8"] = {"line": 4, "fragment": "not valid UTF-8 text", "what": "Latin-1 bytes"}
    lines = ["# Malformed scenario files: file stem -> expected line and message fragment.",
             "# Written by scripts/make_bad_scenarios.py (lines found from anchors, not the reader).",
             ""]
    for stem, entry in sorted(index.items()):
        lines.append(f"[{stem}]")
        for key in ("line", "fragment", "what"):
            lines.append(f"{key} = {json.dumps(entry[key], ensure_ascii=False)}")
        lines.append("")
    files[OUT / "index.toml"] = "\n".join(lines).encode("utf-8")
    write_together(files)  # every file new, or (interrupted) every file as it was
    for old in OUT.glob("*.toml"):
        if old not in files:
            old.unlink()
    print(f"{len(index)} bad scenario files in {OUT.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
