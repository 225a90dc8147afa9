"""The schema of a scenario file: the table :mod:`tomllib` read, checked key by key and built
into a :class:`~fstheory.scenarios.declaration.Scenario` (parameters, base laws, features, class
rule; the schema is in :mod:`fstheory.scenarios.scenario_file`). Every problem is one
:class:`~fstheory.scenarios.toml_text.ScenarioFileError` naming the line and the key."""

from __future__ import annotations

import keyword
import re
from dataclasses import dataclass
from datetime import date, datetime, time
from pathlib import Path
from typing import Any, Iterable

import sympy as sp

from fstheory.scenarios.declaration import (
    ClassRule,
    Feature,
    RESERVED_PARAMETER_NAMES,
    Parameter,
    ParameterError,
    Scenario,
    check_law,
    to_rational,
)
from fstheory.scenarios.domains import DOMAINS
from fstheory.scenarios.grammar import (
    FUNCTIONS,
    GrammarError,
    Vocabulary,
    parse_comparison,
    parse_expression,
)
from fstheory.theory.feature_maps import domain_problem
from fstheory.theory.laws import BASE_LAWS, Law, LawParameterError
from fstheory.theory.rule import Rule
from fstheory.scenarios.toml_text import KeyLines, ScenarioFileError

__all__ = ["MAX_ITEMS", "SchemaReader", "build_scenario"]

#: most parameters, base variables or features in one file
MAX_ITEMS = 100

_DOMAINS = tuple(DOMAINS)
_SCENARIO_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9_.-]{0,63}")
_IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_]{0,31}")
_TOP_KEYS = {
    "name": "required",
    "title": "required",
    "source": "optional",
    "description": "optional",
    "parameters": "optional",
    "base": "required",
    "features": "required",
    "class": "required",
}
_PARAMETER_KEYS = ("default", "domain", "description")
_FEATURE_KEYS = ("expr", "label", "template")
_CLASS_KEYS = ("rule",)
_RULE_EXAMPLE = "rule = \"X + k*Y >= 0\""



# --- reading values -----------------------------------------------------------------------------------


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "float"
    if isinstance(value, str):
        return "string"
    if isinstance(value, dict):
        return "table"
    if isinstance(value, list):
        return "array"
    if isinstance(value, (datetime, date, time)):
        return "date/time"
    return type(value).__name__


def _show_path(path: tuple) -> str:
    out = ""
    for part in path:
        if isinstance(part, int):
            out += f"[{part + 1}]"
        else:
            out += ("." if out else "") + part
    return out


@dataclass
class SchemaReader:
    """Reads the values of one file's table, each checked, raising a :class:`ScenarioFileError`
    at the line of its key (``keys``) for anything outside the schema."""

    path: str
    keys: KeyLines

    def error(self, path: tuple, message: str) -> ScenarioFileError:
        return ScenarioFileError(self.path, self.keys.line(path), _show_path(path), message)

    def table(self, value: Any, path: tuple, example: str) -> dict:
        if not isinstance(value, dict):
            raise self.error(path, f"expected a table ({example}), got {_type_name(value)}")
        return value

    def string(self, value: Any, path: tuple, what: str = "a string") -> str:
        if not isinstance(value, str):
            raise self.error(path, f"expected {what}, got {_type_name(value)} {value!r}")
        return value

    def known_keys(self, table: dict, path: tuple, allowed: Iterable[str], what: str) -> None:
        allowed = tuple(allowed)
        for key in table:
            if key not in allowed:
                raise self.error(
                    path + (key,), f"unknown key '{key}' in {what} (allowed: {', '.join(allowed)})"
                )

    def required(self, table: dict, path: tuple, key: str, what: str, example: str) -> Any:
        if key not in table:
            raise self.error(path, f"missing '{key}' in {what} (expected e.g. {example})")
        return table[key]

    def identifier(self, name: str, path: tuple, what: str) -> str:
        if not _IDENTIFIER.fullmatch(name):
            raise self.error(
                path,
                f"{what} name '{name}' is not valid (expected a letter then letters, digits or "
                f"'_', at most 32 characters)",
            )
        if name in FUNCTIONS or keyword.iskeyword(name):
            raise self.error(path, f"{what} name '{name}' is reserved (a function or keyword)")
        return name

    def expression(self, text: Any, path: tuple, vocabulary: Vocabulary) -> sp.Expr:
        if isinstance(text, (int, float)) and not isinstance(text, bool):
            try:
                return to_rational(_show_path(path), text)
            except ParameterError as exc:
                raise self.error(path, str(exc)) from None
        text = self.string(text, path, "an expression string (e.g. \"2*scale\") or a number")
        try:
            return parse_expression(text, vocabulary)
        except GrammarError as exc:
            raise self.error(path, f"{text!r}: {exc}") from None


def build_scenario(data: dict, r: SchemaReader) -> Scenario:
    """The scenario declared by ``data`` (the file's table), every key checked by ``r``."""
    for key in data:
        if key not in _TOP_KEYS:
            raise r.error(
                (key,), f"unknown top-level key '{key}' (allowed: {', '.join(_TOP_KEYS)})"
            )
    for key, status in _TOP_KEYS.items():
        if status == "required" and key not in data:
            example = {
                "name": 'name = "my-scenario"',
                "title": 'title = "..."',
                "base": '[base.X] with law = "normal", mu = "0", sigma = "1"',
                "features": '[[features]] with expr = "X"',
                "class": f"[class] with {_RULE_EXAMPLE}",
            }[key]
            for table, content in data.items():
                if isinstance(content, dict) and key in content:
                    raise r.error(
                        (table, key),
                        f"'{key}' is inside [{table}] (expected it at the top level: in TOML "
                        f"a key belongs to the last [table] above it, so write top-level keys "
                        f"and [[{key}]] / [{key}] tables outside other tables)",
                    )
            raise ScenarioFileError(
                r.path, 1, "", f"missing required '{key}' (expected e.g. {example})"
            )

    name = r.string(data["name"], ("name",))
    if not _SCENARIO_NAME.fullmatch(name):
        raise r.error(
            ("name",),
            f"scenario name {name!r} is not valid (expected letters, digits, '_', '-', '.', "
            f"starting with a letter or digit, at most 64 characters)",
        )
    title = r.string(data["title"], ("title",))
    source = r.string(data.get("source", f"scenario file {Path(r.path).name}"), ("source",))
    r.string(data.get("description", ""), ("description",))

    parameters = _parameters(data.get("parameters", {}), r)
    param_symbols = {p.name: p.symbol for p in parameters}
    base = _base(data["base"], r, param_symbols)
    _check_laws_at_defaults(base, parameters, r)
    variables = {str(s): s for s in base}
    features = _features(data["features"], r, param_symbols, variables)
    _check_feature_domains(features, base, parameters, r)
    rule = _class_rule(data["class"], r, param_symbols, variables)
    return Scenario(
        name=name,
        title=title,
        source=source,
        parameters=parameters,
        base=base,
        features=features,
        class_rule=rule,
    )


def _parameters(value: Any, r: SchemaReader) -> tuple[Parameter, ...]:
    example = '[parameters.k] with domain = "unit", default = 0.2'
    table = r.table(value, ("parameters",), example)
    if len(table) > MAX_ITEMS:
        raise r.error(("parameters",), f"too many parameters ({len(table)}, at most {MAX_ITEMS})")
    out = []
    for pname, spec in table.items():
        path = ("parameters", pname)
        r.identifier(pname, path, "parameter")
        if pname in RESERVED_PARAMETER_NAMES:
            raise r.error(path, f"parameter name '{pname}' is reserved: it names a method option "
                                f"or an output field beside the parameters (reserved: "
                                f"{', '.join(RESERVED_PARAMETER_NAMES)}); choose another name")
        spec = r.table(spec, path, example)
        r.known_keys(spec, path, _PARAMETER_KEYS, f"[parameters.{pname}]")
        domain = r.string(spec.get("domain", "real"), path + ("domain",))
        if domain not in _DOMAINS:
            raise r.error(
                path + ("domain",), f"unknown domain '{domain}' (expected one of: {', '.join(_DOMAINS)})"
            )
        description = r.string(spec.get("description", ""), path + ("description",))
        default = None
        if "default" in spec:
            raw = spec["default"]
            if not isinstance(raw, (int, float, str)) or isinstance(raw, bool):
                raise r.error(
                    path + ("default",),
                    f"expected a number or a string such as \"1/2\" or \"0.2\", "
                    f"got {_type_name(raw)} {raw!r}",
                )
            try:
                default = Parameter(pname, raw, domain).validate(raw)
            except ParameterError as exc:
                raise r.error(path + ("default",), f"default: {exc}") from None
        out.append(Parameter(pname, default, domain, description))
    return tuple(out)


def _base(value: Any, r: SchemaReader, params: dict) -> dict[sp.Symbol, Law]:
    example = '[base.X] with law = "normal", mu = "0", sigma = "1"'
    table = r.table(value, ("base",), example)
    if not table:
        raise r.error(("base",), f"no base variable declared (expected at least one: {example})")
    if len(table) > MAX_ITEMS:
        raise r.error(("base",), f"too many base variables ({len(table)}, at most {MAX_ITEMS})")
    no_variables = {
        v: "law parameters are expressions of the scenario's parameters and numbers, "
        "not of base variables"
        for v in table
    }
    vocabulary = Vocabulary(parameters=params, forbidden=no_variables)
    for vname in table:
        r.identifier(vname, ("base", vname), "base variable")
        if vname in params:
            raise r.error(
                ("base", vname),
                f"name '{vname}' is declared both as a parameter (line "
                f"{r.keys.line(('parameters', vname))}) and as a base variable "
                f"(expected distinct names)",
            )
    out: dict[sp.Symbol, Law] = {}
    for vname, spec in table.items():
        path = ("base", vname)
        spec = r.table(spec, path, example)
        law_name = r.string(r.required(spec, path, "law", f"[base.{vname}]", 'law = "normal"'),
                            path + ("law",))
        if law_name not in BASE_LAWS:
            raise r.error(
                path + ("law",),
                f"unknown law '{law_name}' (expected one of: {', '.join(BASE_LAWS)})",
            )
        cls = BASE_LAWS[law_name]
        expected = ", ".join(cls.param_names)
        for key in spec:
            if key != "law" and key not in cls.param_names:
                raise r.error(
                    path + (key,),
                    f"unknown parameter '{key}' for the {law_name} law (expected: {expected})",
                )
        args = []
        for pname in cls.param_names:
            if pname not in spec:
                raise r.error(
                    path, f"missing parameter '{pname}' of the {law_name} law (expected: {expected})"
                )
            args.append(r.expression(spec[pname], path + (pname,), vocabulary))
        out[sp.Symbol(vname, real=True)] = cls(*args)
    return out


def _features(value: Any, r: SchemaReader, params: dict, variables: dict) -> tuple[Feature, ...]:
    example = '[[features]] with expr = "X"'
    if not isinstance(value, list) or not all(isinstance(f, dict) for f in value):
        raise r.error(("features",), f"expected an array of tables ({example}), got {_type_name(value)}")
    if not value:
        raise r.error(("features",), f"empty feature list (expected at least one: {example})")
    if len(value) > MAX_ITEMS:
        raise r.error(("features",), f"too many features ({len(value)}, at most {MAX_ITEMS})")
    declared = set(params) | set(variables)
    labels = []
    for spec in value:
        label = spec.get("label", spec.get("expr"))
        labels.append(re.sub(r"\s+", "", label) if isinstance(label, str) else None)
    other = (
        "features are expressions of the base variables and parameters, not of other features: "
        "write that feature's expression out"
    )
    forbidden = {f"V{i + 1}": other for i in range(len(value)) if f"V{i + 1}" not in declared}
    forbidden.update(
        {lab: other for lab in labels if lab and _IDENTIFIER.fullmatch(lab) and lab not in declared}
    )
    vocabulary = Vocabulary(parameters=params, variables=variables, forbidden=forbidden)
    seen: dict[str, int] = {}
    out = []
    for i, spec in enumerate(value):
        path = ("features", i)
        r.known_keys(spec, path, _FEATURE_KEYS, f"feature V{i + 1}")
        text = r.required(spec, path, "expr", f"feature V{i + 1}", 'expr = "a*X + b"')
        expr = r.expression(text, path + ("expr",), vocabulary)
        if not expr.free_symbols & set(variables.values()):
            raise r.error(
                path + ("expr",),
                f"feature {expr} uses no base variable (expected an expression of "
                f"{', '.join(variables)})",
            )
        label = r.string(spec.get("label", text), path + ("label",))
        label = label.strip() if "label" in spec else re.sub(r"\s+", "", label)
        if not label:
            raise r.error(path + ("label",), "empty label (expected a short display name)")
        if label in seen:
            raise r.error(
                path + ("label",),
                f"duplicate feature label '{label}' (also feature V{seen[label] + 1}; "
                f"expected unique labels)",
            )
        seen[label] = i
        template = None
        if "template" in spec:
            template = r.string(spec["template"], path + ("template",))
            _check_template(template, path + ("template",), r, params)
        out.append(Feature(label, expr, template))
    return tuple(out)


def _check_template(template: str, path: tuple, r: SchemaReader, params: dict) -> None:
    for m in re.finditer(r"\{([^{}]*)\}", template):
        inner = m.group(1)
        name = inner[1:] if inner.startswith("+") else inner
        if name not in params:
            raise r.error(
                path,
                f"template field '{{{inner}}}' does not name a parameter (expected "
                f"{{name}} or {{+name}} with name one of: {', '.join(params) or 'none declared'})",
            )
    stray = re.sub(r"\{[^{}]*\}", "", template)
    if "{" in stray or "}" in stray:
        raise r.error(path, f"unbalanced brace in template {template!r} (expected {{name}} or {{+name}})")


def _class_rule(value: Any, r: SchemaReader, params: dict, variables: dict) -> ClassRule:
    path = ("class",)
    table = r.table(value, path, f"[class] with {_RULE_EXAMPLE}")
    r.known_keys(table, path, _CLASS_KEYS, "[class]")
    text = r.string(r.required(table, path, "rule", "[class]", _RULE_EXAMPLE), path + ("rule",))
    rpath = path + ("rule",)
    try:
        lhs, op, rhs = parse_comparison(text, Vocabulary(parameters=params, variables=variables))
    except GrammarError as exc:
        raise r.error(rpath, f"{text!r}: {exc}") from None
    form = sp.expand(lhs - rhs)
    if op in ("<=", "<"):
        form = -form
    bases = list(variables.values())
    used = [v for v in bases if v in form.free_symbols]
    if not used:
        raise r.error(rpath, f"{text!r} uses no base variable (expected e.g. {_RULE_EXAMPLE})")
    if not form.is_polynomial(*used):
        raise r.error(
            rpath,
            f"{text!r} is not a polynomial in the base variables (expected a linear threshold such "
            f"as {_RULE_EXAMPLE}, a product or sign rule such as \"X*Y >= 0\", or a quadratic "
            f"form such as \"X^2 + Y^2 <= r\"; abs, exp, log and sqrt of base variables are not "
            f"supported: write abs(X) >= k as X^2 >= k^2)",
        )
    why = Rule(form).check(used)
    if why:
        raise r.error(rpath, f"{text!r}: {why}")
    lin = Rule(form).linear(used)
    if lin is None:
        return ClassRule(form=form)
    weights, threshold = lin
    return ClassRule({v: w for v, w in weights.items() if w != 0}, threshold)


def _check_feature_domains(features, base: dict, parameters: tuple, r: SchemaReader) -> None:
    """A feature undefined on part of its support (log(Y), sqrt(Y) with Y normal) is refused here
    when the supports are known at the declared defaults; otherwise at bind time."""
    subs = {p.symbol: p.default for p in parameters if p.default is not None}
    laws = {s: law.subs(subs) for s, law in base.items()}
    if any(law.free_symbols for law in laws.values()):
        laws = {s: law for s, law in laws.items() if not law.free_symbols}
    for i, f in enumerate(features):
        expr = f.expr.subs(subs)
        used = {s for s in expr.free_symbols if s in base}
        if not used <= set(laws) or (expr.free_symbols - used):
            continue
        why = domain_problem(expr, laws)
        if why:
            raise r.error(("features", i, "expr"), f"feature {f.label}: {why}")


def _check_laws_at_defaults(base: dict, parameters: tuple, r: SchemaReader) -> None:
    """Law.check with the declared defaults substituted (parameters without one stay symbolic
    and are checked when the scenario is bound)."""
    defaults = {p.name: p.default for p in parameters if p.default is not None}
    subs = {p.symbol: p.default for p in parameters if p.default is not None}
    for sym, law in base.items():
        bound = law.subs(subs)
        used = sorted(str(s) for s in law.free_symbols if str(s) in defaults)
        at = ", ".join(f"{n} = {defaults[n]}" for n in used)
        where = f" at the declared defaults ({at})" if at else ""
        try:
            check_law(bound)
        except LawParameterError as exc:
            key = next((k for k in bound.param_names if f"'{k}'" in str(exc)), None)
            raise r.error(("base", str(sym)) + ((key,) if key else ()), f"{exc}{where}") from None
