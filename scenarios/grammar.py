"""The whitelisted expression grammar of scenario files: text -> sympy expression, nothing else.

A scenario file (:mod:`fstheory.scenarios.scenario_file`) writes law parameters, features and the class
rule as text. That text is never given to ``eval``, ``sympify`` or ``parse_expr``: this module
tokenizes it and a recursive-descent parser builds the sympy tree itself (``sp.Add``, ``sp.Mul``,
``sp.Pow``, ``sp.Abs``, ``sp.exp``, ``sp.log``, ``sp.sqrt``, ``sp.Rational``), so the only names
that can mean anything are the ones the caller declares.

Grammar (EBNF; ``^`` and ``**`` are the same operator)::

    comparison := expr ( '>=' | '>' | '<=' | '<' ) expr        (class rules only)
    expr       := term ( ( '+' | '-' ) term )*
    term       := unary ( ( '*' | '/' ) unary )*
    unary      := ( '-' | '+' ) unary | power
    power      := atom [ ( '^' | '**' ) unary ]                 (right associative)
    atom       := NUMBER | NAME | FUNCTION '(' expr ')' | '(' expr ')'
    FUNCTION   := 'abs' | 'exp' | 'log' | 'sqrt'                (log is the natural logarithm)
    NUMBER     := digits [ '.' digits ] [ ('e' | 'E') [sign] digits ]   (also '.5', '5.';
                                                                 ASCII digits 0-9 only)
    NAME       := [A-Za-z_][A-Za-z0-9_]*, and only a declared parameter or base variable

As usual ``-x^2 = -(x^2)``, ``2^-1 = 1/2``, ``a^b^c = a^(b^c)``, ``a/b*c = (a/b)*c``. Numbers are
exact: ``0.2`` is 1/5, ``1e-3`` is 1/1000. There is no implicit multiplication (``2X`` is an
error: write ``2*X``), no attribute access, no strings, no other functions or names.

Every error is a :class:`GrammarError` naming the offending token, its column (1-based, in the
expression text) and what was expected there. Limits against pathological input: at most
:data:`MAX_LENGTH` characters, :data:`MAX_DEPTH` levels of nesting, numeric exponents of at most
:data:`MAX_EXPONENT` in absolute value (and in the ``e`` notation), numeric powers of at most
:data:`MAX_DIGITS` digits. An expression whose value is undefined or not real (``1/0``,
``log(0)``, ``sqrt(-1)``) is rejected where it arises.

Examples
--------
>>> import sympy as sp
>>> X, Y = sp.symbols("X Y", real=True)
>>> k = sp.Symbol("k", real=True)
>>> v = Vocabulary(parameters={"k": k}, variables={"X": X, "Y": Y})
>>> parse_expression("X + k*Y", v)
X + Y*k
>>> parse_expression("-0.5 * X^2 + 1e-3", v)
1/1000 - X**2/2
>>> parse_comparison("X + k*Y >= 0", v)
Comparison(lhs=X + Y*k, op='>=', rhs=0)
>>> parse_expression("X.__class__", v)
Traceback (most recent call last):
...
fstheory.scenarios.grammar.GrammarError: unexpected character '.' at column 2: expected an operator (+ - * / ^), ')' or the end of the expression
>>> parse_expression("__import__('os')", v)
Traceback (most recent call last):
...
fstheory.scenarios.grammar.GrammarError: unknown name '__import__' at column 1: expected a number, a parameter (k), a base variable (X, Y), a function (abs, exp, log, sqrt) or '('
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Mapping, NamedTuple

import sympy as sp

__all__ = [
    "GrammarError",
    "Vocabulary",
    "Comparison",
    "parse_expression",
    "parse_comparison",
    "FUNCTIONS",
    "COMPARISONS",
    "MAX_LENGTH",
    "MAX_DEPTH",
    "MAX_EXPONENT",
    "MAX_DIGITS",
    "MAX_MAGNITUDE",
    "magnitude_problem",
]

#: longest accepted expression text, in characters
MAX_LENGTH = 2000
#: deepest accepted nesting (parentheses, function calls, signs, powers)
MAX_DEPTH = 40
#: largest |numerator| or denominator of a numeric exponent, and largest |e| in 1e...
MAX_EXPONENT = 1000
#: largest number of decimal digits of a numeric power such as 10^999
MAX_DIGITS = 10000
#: a constant an expression computes (``exp(exp(10))``, ``1e1000*1e1000``, and at bound
#: parameter values ``s*X`` with s = 1e300) is 0 or between 10^-MAX_MAGNITUDE and
#: 10^MAX_MAGNITUDE in absolute value: the range of the numbers one can type (1000 digits,
#: exponent 1000)
MAX_MAGNITUDE = 2000

FUNCTIONS = {"abs": sp.Abs, "exp": sp.exp, "log": sp.log, "sqrt": sp.sqrt}
COMPARISONS = (">=", ">", "<=", "<")

_OPERATORS = ("**", ">=", "<=", "==", "!=", "+", "-", "*", "/", "^", "(", ")", ">", "<", "=", ",")
_NUMBER = re.compile(r"(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?")
_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_WHITESPACE = " \t\r\n"
_AFTER_OPERAND = "an operator (+ - * / ^), ')' or the end of the expression"


class GrammarError(ValueError):
    """An expression outside the grammar: ``token`` at ``column`` (1-based), ``expected`` there.

    ``str(error)`` is the full message; ``reason`` is it without the column and expectation.
    """

    def __init__(
        self, reason: str, column: int, token: str = "", expected: str = "", detail: str = ""
    ):
        self.reason, self.column, self.token, self.expected = reason, column, token, expected
        message = f"{reason} at column {column}"
        if detail:
            message += f": {detail}"
        if expected:
            message += f": expected {expected}"
        super().__init__(message)


@dataclass(frozen=True)
class Vocabulary:
    """The names an expression may use, each bound to its sympy symbol.

    ``forbidden`` maps names that are known but not allowed in this place (a base variable in a
    law parameter, another feature in a feature) to the reason, used as the error message.
    """

    parameters: Mapping[str, sp.Symbol] = field(default_factory=dict)
    variables: Mapping[str, sp.Symbol] = field(default_factory=dict)
    forbidden: Mapping[str, str] = field(default_factory=dict)

    def lookup(self, name: str) -> sp.Symbol | None:
        if name in self.parameters:
            return self.parameters[name]
        return self.variables.get(name)

    def operand_expected(self) -> str:
        parts = ["a number"]
        if self.parameters:
            parts.append(f"a parameter ({', '.join(sorted(self.parameters))})")
        if self.variables:
            parts.append(f"a base variable ({', '.join(sorted(self.variables))})")
        parts.append(f"a function ({', '.join(FUNCTIONS)})")
        return ", ".join(parts) + " or '('"


class Comparison(NamedTuple):
    """``lhs op rhs`` with ``op`` one of :data:`COMPARISONS`."""

    lhs: sp.Expr
    op: str
    rhs: sp.Expr


class _Token(NamedTuple):
    kind: str  # "number", "name", "op", "end"
    text: str
    column: int  # 1-based


def _describe(tok: _Token) -> str:
    if tok.kind == "end":
        return "end of expression"
    if tok.kind == "number":
        return f"number {tok.text}"
    if tok.kind == "name":
        return f"name '{tok.text}'"
    if tok.kind == "bad":
        ch = tok.text
        shown = ch if ch.isprintable() and ch.isascii() else f"{ch!r} (U+{ord(ch):04X})"
        return f"character '{shown}'" if shown == ch else f"character {shown}"
    return f"'{tok.text}'"


def _tokenize(text: str) -> list[_Token]:
    """Tokens up to the first character outside the grammar, which ends the list as a "bad"
    token so that the parser reports it with what it expected at that point."""
    tokens: list[_Token] = []
    i, n = 0, len(text)
    while i < n:
        ch = text[i]
        if ch in _WHITESPACE:
            i += 1
            continue
        m = _NUMBER.match(text, i)
        if m:
            tokens.append(_Token("number", m.group(), i + 1))
            i = m.end()
            continue
        m = _NAME.match(text, i)
        if m:
            tokens.append(_Token("name", m.group(), i + 1))
            i = m.end()
            continue
        op = next((o for o in _OPERATORS if text.startswith(o, i)), None)
        if op is None:
            tokens.append(_Token("bad", ch, i + 1))
            return tokens
        tokens.append(_Token("op", op, i + 1))
        i += len(op)
    tokens.append(_Token("end", "", n + 1))
    return tokens


def _number(tok: _Token) -> sp.Rational:
    mantissa, _, exponent = tok.text.lower().partition("e")
    if exponent and abs(int(exponent)) > MAX_EXPONENT:
        raise GrammarError(
            f"number {tok.text} is out of range", tok.column, tok.text,
            f"a decimal exponent of at most {MAX_EXPONENT} in absolute value",
        )
    value = Fraction(mantissa) * Fraction(10) ** int(exponent or 0)
    return sp.Rational(value.numerator, value.denominator)


_BIG = 10**MAX_MAGNITUDE


def _rational_magnitude(v: sp.Rational) -> str | None:
    p, q = abs(int(v.p)), int(v.q)
    if p > _BIG * q:
        return f"larger than 10^{MAX_MAGNITUDE}"
    if p and p * _BIG < q:
        return f"smaller than 10^-{MAX_MAGNITUDE} (and not 0)"
    return None


def magnitude_problem(expr: sp.Expr) -> str | None:
    """Why a constant of ``expr`` (a subexpression without symbols) is out of range -- "larger
    than 10^2000" or "smaller than 10^-2000 (and not 0)" -- or None.

    Decided on arb balls at rising precision (arb's exponents are unbounded: ``exp(exp(exp(10)))``
    is enclosed, or found infinite, at once, where sympy and mpmath would compute its digits);
    a constant arb cannot evaluate, or that stays undecided at 1024 bits, is let through.

    >>> import sympy as sp
    >>> magnitude_problem(sp.exp(sp.exp(sp.exp(10))) * sp.Symbol("X"))
    'larger than 10^2000'
    >>> magnitude_problem(sp.exp(-sp.exp(10))), magnitude_problem(sp.exp(4000) + sp.Symbol("X"))
    ('smaller than 10^-2000 (and not 0)', None)
    """
    if expr.is_Rational:
        return _rational_magnitude(expr)
    if not expr.is_number:
        for arg in expr.args:
            why = magnitude_problem(arg)
            if why:
                return why
        return None
    from flint import arb, ctx

    from fstheory.theory.arbexpr import UnsupportedExpression, compile_expr

    old = ctx.prec
    try:
        for bits in (64, 256, 1024):
            ctx.prec = bits
            try:
                v = compile_expr(expr, ())()
            except (UnsupportedExpression, ZeroDivisionError, ValueError):
                return None
            if not isinstance(v, arb):
                return None
            if not v.is_finite():
                continue
            a = abs(v)
            big, small = arb(10) ** MAX_MAGNITUDE, arb(10) ** -MAX_MAGNITUDE
            if a.lower() > big:
                return f"larger than 10^{MAX_MAGNITUDE}"
            if a.upper() < small and expr.is_zero is not True:
                return f"smaller than 10^-{MAX_MAGNITUDE} (and not 0)"
            if a.upper() <= big and (a.lower() >= small or expr.is_zero):
                return None
        return f"larger than 10^{MAX_MAGNITUDE}" if not v.is_finite() else None
    finally:
        ctx.prec = old


def _digits(v: sp.Rational) -> int:
    return max(len(str(abs(v.p))), len(str(v.q)))


class _Parser:
    def __init__(self, text: str, vocabulary: Vocabulary):
        if not isinstance(text, str):
            raise GrammarError(f"expected a string, got {type(text).__name__}", 1)
        if len(text) > MAX_LENGTH:
            raise GrammarError(
                f"expression too long ({len(text)} characters)", MAX_LENGTH + 1, "",
                f"at most {MAX_LENGTH} characters",
            )
        if not text.strip():
            raise GrammarError("empty expression", 1, "", vocabulary.operand_expected())
        self.vocabulary = vocabulary
        self.tokens = _tokenize(text)
        self.pos = 0
        self.depth = 0

    # --- token stream -----------------------------------------------------------------------
    @property
    def tok(self) -> _Token:
        return self.tokens[self.pos]

    def advance(self) -> _Token:
        tok = self.tokens[self.pos]
        self.pos += 1
        return tok

    def at(self, *ops: str) -> bool:
        return self.tok.kind == "op" and self.tok.text in ops

    def fail(self, expected: str, tok: _Token | None = None, hint: str = "") -> GrammarError:
        tok = tok or self.tok
        reason = f"unexpected {_describe(tok)}"
        if hint:
            expected = f"{expected} ({hint})"
        return GrammarError(reason, tok.column, tok.text, expected)

    def enter(self, tok: _Token) -> None:
        self.depth += 1
        if self.depth > MAX_DEPTH:
            raise GrammarError(
                "expression nested too deeply", tok.column, tok.text,
                f"at most {MAX_DEPTH} levels of parentheses, functions, signs and powers",
            )

    # --- entry points -----------------------------------------------------------------------
    def expression_only(self) -> sp.Expr:
        expr = self.expr()
        if self.tok.kind != "end":
            raise self.trailing()
        return expr

    def comparison(self) -> Comparison:
        lhs = self.expr()
        if not self.at(*COMPARISONS):
            if self.tok.kind == "end":
                raise self.fail(f"a comparison {', '.join(COMPARISONS)} (e.g. 'X + k*Y >= 0')")
            raise self.trailing(comparison=True)
        op = self.advance().text
        rhs = self.expr()
        if self.at(*COMPARISONS):
            raise self.fail("the end of the rule (only one comparison is allowed)")
        if self.tok.kind != "end":
            raise self.trailing()
        return Comparison(lhs, op, rhs)

    def trailing(self, comparison: bool = False) -> GrammarError:
        tok = self.tok
        expected = _AFTER_OPERAND
        if comparison:
            expected = "an operator (+ - * / ^) or a comparison (>=, >, <=, <)"
        hint = ""
        if tok.kind in ("name", "number") or tok.text == "(":
            hint = "no implicit multiplication: write '*'"
        elif tok.text in ("==", "=", "!=") and comparison:
            hint = "a class rule is an inequality such as 'X + k*Y >= 0'"
        elif tok.text in ("==", "=", "!="):
            hint = "comparisons (>=, >, <=, <) are only allowed in the class rule"
        elif tok.text in COMPARISONS:
            hint = "comparisons are only allowed in the class rule"
        elif tok.text == ")":
            hint = "unbalanced ')'"
        elif tok.text == ",":
            hint = "functions take exactly one argument"
        return self.fail(expected, tok, hint)

    # --- grammar ----------------------------------------------------------------------------
    def expr(self) -> sp.Expr:
        acc = self.term()
        while self.at("+", "-"):
            op_tok = self.advance()
            rhs = self.term()
            acc = sp.Add(acc, rhs if op_tok.text == "+" else -rhs)
            if acc.is_number:
                acc = self._checked(acc, op_tok)
        return acc

    def term(self) -> sp.Expr:
        acc = self.unary()
        while self.at("*", "/"):
            op_tok = self.advance()
            rhs = self.unary()
            if op_tok.text == "*":
                acc = sp.Mul(acc, rhs)
                if acc.is_number:
                    acc = self._checked(acc, op_tok)
            else:
                if rhs.is_zero:
                    raise GrammarError("division by zero", op_tok.column, "/", "a nonzero divisor")
                acc = self._checked(sp.Mul(acc, sp.Pow(rhs, sp.Integer(-1))), op_tok)
        return acc

    def unary(self) -> sp.Expr:
        if self.at("-", "+"):
            tok = self.advance()
            self.enter(tok)
            operand = self.unary()
            self.depth -= 1
            return -operand if tok.text == "-" else operand
        return self.power()

    def power(self) -> sp.Expr:
        base = self.atom()
        if self.at("^", "**"):
            tok = self.advance()
            self.enter(tok)
            exponent = self.unary()
            self.depth -= 1
            return self._power(base, exponent, tok)
        return base

    def atom(self) -> sp.Expr:
        tok = self.tok
        if tok.kind == "number":
            self.advance()
            return _number(tok)
        if tok.kind == "name":
            self.advance()
            return self._name(tok)
        if self.at("("):
            self.advance()
            self.enter(tok)
            inner = self.expr()
            self.depth -= 1
            self._close(tok)
            return inner
        raise self.fail(self.vocabulary.operand_expected())

    def _close(self, opening: _Token) -> None:
        if self.at(")"):
            self.advance()
            return
        hint = f"to close '(' at column {opening.column}"
        if self.at(","):
            hint = "functions take exactly one argument"
        raise self.fail("')'", hint=hint)

    def _name(self, tok: _Token) -> sp.Expr:
        name = tok.text
        if name in FUNCTIONS:
            if not self.at("("):
                raise self.fail(f"'(' after function '{name}'")
            opening = self.advance()
            self.enter(opening)
            arg = self.expr()
            self.depth -= 1
            self._close(opening)
            if name == "sqrt":
                return self._power(arg, sp.Rational(1, 2), tok)
            if name == "log" and arg.is_zero:
                raise GrammarError("log(0) is undefined", tok.column, name, "a positive argument")
            return self._checked(FUNCTIONS[name](arg), tok)
        if name in self.vocabulary.forbidden:
            raise GrammarError(
                f"name '{name}' is not allowed here", tok.column, name,
                detail=self.vocabulary.forbidden[name],
            )
        symbol = self.vocabulary.lookup(name)
        if symbol is None:
            raise GrammarError(
                f"unknown name '{name}'", tok.column, name, self.vocabulary.operand_expected()
            )
        return symbol

    def _power(self, base: sp.Expr, exponent: sp.Expr, tok: _Token) -> sp.Expr:
        if exponent.is_Rational:
            if abs(exponent.p) > MAX_EXPONENT or exponent.q > MAX_EXPONENT:
                raise GrammarError(
                    f"exponent {exponent} is out of range", tok.column, tok.text,
                    f"a numeric exponent p/q with |p|, q <= {MAX_EXPONENT}",
                )
            if base.is_Rational and _digits(base) * abs(exponent) > MAX_DIGITS:
                raise GrammarError(
                    f"number {base}^{exponent} is too large", tok.column, tok.text,
                    f"a power of at most {MAX_DIGITS} digits",
                )
        if base.is_zero and exponent.is_number and exponent.is_negative:
            raise GrammarError(
                "division by zero (0 to a negative power)", tok.column, tok.text,
                "a nonzero base or a nonnegative exponent",
            )
        return self._checked(sp.Pow(base, exponent), tok)

    @staticmethod
    def _checked(expr: sp.Expr, tok: _Token) -> sp.Expr:
        """Reject a value that is undefined, not real or out of range where it was produced."""
        expected = "an expression with a finite real value"
        if expr.has(sp.zoo, sp.nan, sp.oo, -sp.oo):
            raise GrammarError("undefined value (infinite or 0/0)", tok.column, tok.text, expected)
        if expr.has(sp.I) or (expr.is_number and expr.is_extended_real is False):
            raise GrammarError(
                "value is not a real number (root or log of a negative number)",
                tok.column, tok.text, expected,
            )
        if expr.is_number:
            why = magnitude_problem(expr)
            if why:
                shown = sp.sstr(expr)
                shown = shown if len(shown) <= 40 else shown[:30] + "..."
                raise GrammarError(
                    f"constant {shown} is out of range ({why})", tok.column, tok.text,
                    f"a value of at most 10^{MAX_MAGNITUDE} and, unless 0, at least "
                    f"10^-{MAX_MAGNITUDE} in absolute value",
                )
        return expr


def parse_expression(text: str, vocabulary: Vocabulary) -> sp.Expr:
    """Parse ``text`` as an expression of the grammar above over ``vocabulary``'s names.

    Raises
    ------
    GrammarError
        For any token outside the grammar, an undeclared name, or a value that is not real.
    """
    return _Parser(text, vocabulary).expression_only()


def parse_comparison(text: str, vocabulary: Vocabulary) -> Comparison:
    """Parse ``text`` as ``expr OP expr`` with exactly one OP in ``>=, >, <=, <``."""
    return _Parser(text, vocabulary).comparison()
