"""The scenario-file expression grammar: what it accepts equals the tree written, the rest is
rejected with the offending token, its column and what was expected, and no text is evaluated."""

import ast
import builtins
import random
from fractions import Fraction
from pathlib import Path

import pytest
import sympy as sp
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import fstheory.scenarios.grammar as grammar
from fstheory.scenarios.grammar import (
    MAX_DEPTH,
    MAX_LENGTH,
    Comparison,
    GrammarError,
    Vocabulary,
    parse_comparison,
    parse_expression,
)

X, Y = sp.symbols("X Y", real=True)
k = sp.Symbol("k", nonnegative=True)
a = sp.Symbol("a", real=True, nonzero=True)
SYMBOLS = {"X": X, "Y": Y, "k": k, "a": a}
VOCAB = Vocabulary(
    parameters={"k": k, "a": a},
    variables={"X": X, "Y": Y},
    forbidden={"V1": "features are expressions of base variables, not of other features"},
)

# --- random expression trees, printed with minimal parentheses, parsed back -------------------
# A tree is a tuple: ("num", text) | ("name", n) | (op, left, right) | ("neg"|"pos", x)
# | ("pow", base, exponent) | ("fn", name, x).

SUM, PROD, UNARY, POW, ATOM = 1, 2, 3, 4, 5
LEVEL = {"add": SUM, "sub": SUM, "mul": PROD, "div": PROD, "neg": UNARY, "pos": UNARY, "pow": POW}

integers = st.integers(0, 10**6).map(str)
decimals = st.builds(
    lambda i, f, e: f"{i}.{f}" + (f"e{e}" if e is not None else ""),
    st.integers(0, 999),
    st.text("0123456789", min_size=1, max_size=4),
    st.none() | st.integers(-6, 6),
)
leaves = (
    st.tuples(st.just("num"), integers | decimals | st.sampled_from([".5", "5.", "2E3", "7e+0"]))
    | st.tuples(st.just("name"), st.sampled_from(sorted(SYMBOLS)))
)
small_exponents = st.tuples(st.just("num"), st.sampled_from(["0", "1", "2", "3", "0.5"])) | st.tuples(
    st.just("neg"), st.tuples(st.just("num"), st.sampled_from(["1", "2"]))
) | st.tuples(st.just("name"), st.sampled_from(["X", "k"]))


def _extend(children):
    return (
        st.tuples(st.sampled_from(["add", "sub", "mul", "div"]), children, children)
        | st.tuples(st.sampled_from(["neg", "pos"]), children)
        | st.tuples(st.just("pow"), children, small_exponents)
        | st.tuples(st.just("fn"), st.sampled_from(sorted(grammar.FUNCTIONS)), children)
    )


trees = st.recursive(leaves, _extend, max_leaves=10)


def level(t) -> int:
    return LEVEL.get(t[0], ATOM)


def show(t, rng: random.Random) -> str:
    def sp_(s: str) -> str:  # random spacing around operators
        return rng.choice(["", " ", "  "]) + s + rng.choice(["", " "])

    def wrap(child, minimum: int) -> str:
        text = show(child, rng)
        return f"({text})" if level(child) < minimum else text

    kind = t[0]
    if kind == "num":
        return t[1]
    if kind == "name":
        return t[1]
    if kind in ("add", "sub", "mul", "div"):
        op = {"add": "+", "sub": "-", "mul": "*", "div": "/"}[kind]
        lmin, rmin = (SUM, PROD) if kind in ("add", "sub") else (PROD, UNARY)
        return wrap(t[1], lmin) + sp_(op) + wrap(t[2], rmin)
    if kind in ("neg", "pos"):
        return ("-" if kind == "neg" else "+") + rng.choice(["", " "]) + wrap(t[1], UNARY)
    if kind == "pow":
        return wrap(t[1], ATOM) + sp_(rng.choice(["^", "**"])) + wrap(t[2], UNARY)
    if kind == "fn":
        return f"{t[1]}({show(t[2], rng)})"
    raise AssertionError(kind)


def build(t) -> sp.Expr:
    """The expected sympy expression, built with Python's operators on sympy objects."""
    kind = t[0]
    if kind == "num":
        f = Fraction(t[1])
        return sp.Rational(f.numerator, f.denominator)
    if kind == "name":
        return SYMBOLS[t[1]]
    if kind == "add":
        return build(t[1]) + build(t[2])
    if kind == "sub":
        return build(t[1]) - build(t[2])
    if kind == "mul":
        return build(t[1]) * build(t[2])
    if kind == "div":
        return build(t[1]) / build(t[2])
    if kind == "neg":
        return -build(t[1])
    if kind == "pos":
        return build(t[1])
    if kind == "pow":
        return build(t[1]) ** build(t[2])
    if kind == "fn":
        return {"abs": sp.Abs, "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt}[t[1]](build(t[2]))
    raise AssertionError(kind)


def real_and_finite(e: sp.Expr) -> bool:
    if e.has(sp.zoo, sp.nan, sp.oo, -sp.oo, sp.I):
        return False
    if e.is_number and grammar.magnitude_problem(e):  # beyond 10^+-2000 (test_huge_constants)
        return False
    return not (e.is_number and e.is_extended_real is False)


def has_nonreal_part(t) -> bool:
    """Whether any subtree is undefined, not real or out of range (the parser rejects where it
    arises)."""
    if not real_and_finite(build(t)):
        return True
    return any(has_nonreal_part(c) for c in t[1:] if isinstance(c, tuple))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(trees, st.randoms(use_true_random=False))
def test_printed_tree_parses_back_to_the_same_expression(tree, rng):
    text = show(tree, rng)
    if has_nonreal_part(tree):
        with pytest.raises(GrammarError):
            parse_expression(text, VOCAB)
        return
    parsed = parse_expression(text, VOCAB)
    expected = build(tree)
    # sympy may store one value in two canonical forms (0 - .5^X: -(1/2)**X or -2**(-X))
    assert parsed == expected or sp.simplify(parsed - expected) == 0, text


@settings(max_examples=100, deadline=None)
@given(trees, trees, st.sampled_from([">=", ">", "<=", "<"]), st.randoms(use_true_random=False))
def test_comparison_splits_at_its_operator(lhs, rhs, op, rng):
    if has_nonreal_part(lhs) or has_nonreal_part(rhs):
        return
    text = f"{show(lhs, rng)} {op} {show(rhs, rng)}"
    assert parse_comparison(text, VOCAB) == Comparison(build(lhs), op, build(rhs))


# --- precedence and numbers, spelled out ------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("-X^2", -(X**2)),
        ("2^-1", sp.Rational(1, 2)),
        ("2^3^2", sp.Integer(512)),
        ("X/Y*k", (X / Y) * k),
        ("X - Y - k", X - Y - k),
        ("X - (Y - k)", X - Y + k),
        ("0.2", sp.Rational(1, 5)),
        ("1e-3", sp.Rational(1, 1000)),
        ("2.5E2", sp.Integer(250)),
        (".5 + 5.", sp.Rational(11, 2)),
        ("0.1 + 0.2", sp.Rational(3, 10)),
        ("sqrt(4) * abs(-3)", sp.Integer(6)),
        ("log(X)", sp.log(X)),
        ("exp(-X^2/2)", sp.exp(-(X**2) / 2)),
        ("X**2", X**2),
        ("a*X + 1", a * X + 1),
        ("- - X", X),
        ("X\n + Y", X + Y),
    ],
)
def test_precedence_and_exact_numbers(text, expected):
    assert parse_expression(text, VOCAB) == expected


# --- rejections: the token, its column, what was expected -------------------------------------

REJECTIONS = [
    # (text, fragment of the message, column)
    ("__import__('os').system('touch /tmp/x')", "unknown name '__import__'", 1),
    ("X.__class__", "unexpected character '.'", 2),
    ("lambda: X", "unknown name 'lambda'", 1),
    ("X; Y", "unexpected character ';'", 2),
    ("eval('1')", "unknown name 'eval'", 1),
    ("open('f')", "unknown name 'open'", 1),
    ("X if Y else k", "unexpected name 'if'", 3),
    ("[X]", "unexpected character '['", 1),
    ("{X}", "unexpected character '{'", 1),
    ("'X'", "unexpected character '''", 1),
    ('"X"', "unexpected character '\"'", 1),
    ("X # comment", "unexpected character '#'", 3),
    ("X @ Y", "unexpected character '@'", 3),
    ("X − Y", "U+2212", 3),
    ("2X", "no implicit multiplication", 2),
    ("X (Y)", "no implicit multiplication", 3),
    ("X +", "unexpected end of expression", 4),
    ("(X + Y", "to close '(' at column 1", 7),
    ("X + Y)", "unbalanced ')'", 6),
    ("", "empty expression", 1),
    ("sin(X)", "unknown name 'sin'", 1),
    ("Z + X", "unknown name 'Z'", 1),
    ("pi", "unknown name 'pi'", 1),
    ("exp X", "expected '(' after function 'exp'", 5),
    ("log(X, 2)", "functions take exactly one argument", 6),
    ("exp", "expected '(' after function 'exp'", 4),
    ("X == Y", "only allowed in the class rule", 3),
    ("X >= 0", "only allowed in the class rule", 3),
    ("X = 1", "only allowed in the class rule", 3),
    ("V1 + X", "not allowed here at column 1: features are expressions", 1),
    ("1/0", "division by zero", 2),
    ("X/(Y - Y)", "division by zero", 2),
    ("0^-1", "division by zero", 2),
    ("log(0)", "log(0) is undefined", 1),
    ("sqrt(-1)", "not a real number", 1),
    ("log(-2)", "not a real number", 1),
    ("(-8)^(1/3)", "not a real number", 5),
    ("10^10^10", "out of range", 3),
    ("X^1001", "out of range", 2),
    ("1e1001", "out of range", 1),
    ("(9^999)^20", "too large", 8),
    ("1.2.3", "unexpected number .3", 4),
    ("X.real", "unexpected character '.'", 2),
    ("X\\Y", "unexpected character '\\'", 2),
    ("X ** * Y", "unexpected '*'", 6),
]


@pytest.mark.parametrize("text, fragment, column", REJECTIONS)
def test_rejections_name_token_column_and_expectation(text, fragment, column):
    with pytest.raises(GrammarError) as info:
        parse_expression(text, VOCAB)
    message = str(info.value)
    assert fragment in message
    assert info.value.column == column
    assert f"at column {column}" in message


def test_unknown_name_lists_what_was_expected():
    with pytest.raises(GrammarError) as info:
        parse_expression("X + os", VOCAB)
    assert str(info.value) == (
        "unknown name 'os' at column 5: expected a number, a parameter (a, k), "
        "a base variable (X, Y), a function (abs, exp, log, sqrt) or '('"
    )


@pytest.mark.parametrize(
    "text, fragment",
    [
        ("X + k*Y", "expected a comparison"),
        ("0 <= X <= 1", "only one comparison"),
        ("X = 0", "a class rule is an inequality"),
        ("X == 0", "a class rule is an inequality"),
        ("X >= 0 Y", "no implicit multiplication"),
    ],
)
def test_comparison_rejections(text, fragment):
    with pytest.raises(GrammarError, match=fragment):
        parse_comparison(text, VOCAB)


def test_length_and_depth_limits():
    with pytest.raises(GrammarError, match="too long"):
        parse_expression("X+" * MAX_LENGTH + "X", VOCAB)
    with pytest.raises(GrammarError, match="nested too deeply"):
        parse_expression("(" * (MAX_DEPTH + 1) + "X" + ")" * (MAX_DEPTH + 1), VOCAB)
    with pytest.raises(GrammarError, match="nested too deeply"):
        parse_expression("-" * (MAX_DEPTH + 1) + "X", VOCAB)
    with pytest.raises(GrammarError, match="nested too deeply"):
        parse_expression("exp(" * (MAX_DEPTH + 1) + "X" + ")" * (MAX_DEPTH + 1), VOCAB)
    # right at the limit it parses
    assert parse_expression("(" * MAX_DEPTH + "X" + ")" * MAX_DEPTH, VOCAB) == X


def test_a_long_flat_sum_is_fine():
    text = "+".join(["X"] * 900)
    assert parse_expression(text, VOCAB) == 900 * X


def test_parsing_never_calls_eval_exec_or_sympify_on_text(monkeypatch):
    calls = []

    def guard(name, real):
        def wrapper(*args, **kwargs):
            if args and isinstance(args[0], str):
                calls.append((name, args[0]))
                raise AssertionError(f"{name} called on text {args[0]!r}")
            return real(*args, **kwargs)

        return wrapper

    import sys

    import sympy.parsing.sympy_parser as sympy_parser

    sympify_module = sys.modules["sympy.core.sympify"]

    monkeypatch.setattr(builtins, "eval", guard("eval", builtins.eval))
    monkeypatch.setattr(builtins, "exec", guard("exec", builtins.exec))
    monkeypatch.setattr(sp, "sympify", guard("sympify", sp.sympify))
    monkeypatch.setattr(sympify_module, "sympify", guard("sympify", sympify_module.sympify))
    monkeypatch.setattr(sympy_parser, "parse_expr", guard("parse_expr", sympy_parser.parse_expr))
    assert parse_expression("exp(-X^2/2) / sqrt(2) + log(abs(k*Y) + 1) - 0.5e1", VOCAB) is not None
    assert parse_comparison("X + k*Y >= 0.25", VOCAB).op == ">="
    with pytest.raises(GrammarError):
        parse_expression("__import__('os').system('true')", VOCAB)
    assert calls == []


def test_module_source_has_no_evaluating_calls():
    tree = ast.parse(Path(grammar.__file__).read_text())
    banned = {"eval", "exec", "compile", "sympify", "parse_expr", "__import__", "getattr"}
    called = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            f = node.func
            if isinstance(f, ast.Name):
                called.add(f.id)
            elif isinstance(f, ast.Attribute) and not (
                isinstance(f.value, ast.Name) and f.value.id == "re"  # re.compile is fine
            ):
                called.add(f.attr)
    assert "Add" in called and "Pow" in called  # the walk does see the calls
    assert not called & banned
