"""A selection run told in words, and as JSON.

:func:`explain` writes each step: who won and by what value (and, for an infinite value, the
infinite term it comes from), which candidates tied, the other candidates' values, and every
indeterminate candidate with its form(s) and cause(s); then why the selection stopped. Entropies
that are null or negative and appear in a cause are stated ("where h(X) = 0 (null)"), since these
are the paper's explanations (Section 7).

:func:`to_json` gives the machine form used by ``fstheory order --json``::

    {"method", "beta", ["gamma",] "scenario", "params": {...}, "order": [1-based indices],
     "labels": [labels in selection order],
     "stopped": null or {"after": n, "kind": "indeterminate" | "undecided",
                 "candidates": {"V3": "0/0", ...}, "statement": "..."},
     "steps": [{"selected": i (1-based), "values": {"V1": "<value | +inf | -inf | form>"}}]}

``beta`` and ``gamma`` (beta-gamma only) are numbers, "1/|S|", or null. ``params`` holds the
scenario parameters (decimal strings) plus the method options ``reading`` and ``zero_beta`` (null
for methods without beta). In ``stopped``, ``candidates``
gives each remaining candidate's form ("0/0", ..., "not computed") -- and, for an undecided
step, the value of the determinate ones; ``statement`` says why the selection stopped
("every remaining candidate is indeterminate" or "step 5 cannot be decided: MI(C;{Y^2,X-Y}) not
computed: ..."). A step left undecided by a not-computed value also lists the blocking
candidates' ranges under ``"undecided"``.
"""

from __future__ import annotations

import json
from fractions import Fraction

import sympy as sp

from fstheory.orderings.greedy import Candidate, SelectionResult
from fstheory.scenarios.declaration import param_text
from fstheory.theory.extended import ExtendedReal

__all__ = ["explain", "summary", "to_json", "to_json_text", "referenced_entropies"]


def _balanced(text: str, start: int) -> int:
    """Index just past the parenthesis group opening at ``text[start] == '('``."""
    depth = 0
    for pos in range(start, len(text)):
        if text[pos] == "(":
            depth += 1
        elif text[pos] == ")":
            depth -= 1
            if depth == 0:
                return pos + 1
    return len(text)


def referenced_entropies(text: str, labels) -> list[int]:
    """Feature indices whose entropy ``h(<label>)`` is named in ``text``, in order of appearance."""
    found: list[int] = []
    pos = text.find("h(")
    while pos != -1:
        if pos == 0 or not (text[pos - 1].isalnum() or text[pos - 1] == "_"):
            end = _balanced(text, pos + 1)
            inner = text[pos + 2 : end - 1]
            if inner in labels:
                j = labels.index(inner)
                if j not in found:
                    found.append(j)
        pos = text.find("h(", pos + 1)
    return found


def _where(texts, result: SelectionResult, digits: int) -> str:
    """'where h(X) = 0 (null), h(X^2) = -1.69315 (negative)' for the entropies <= 0 named."""
    v = result.values
    idx: list[int] = []
    for t in texts:
        for j in referenced_entropies(t, list(v.labels)):
            if j not in idx:
                idx.append(j)
    parts = []
    for j in idx:
        h = v.h(j)
        if h.is_finite and h.value <= 0:
            parts.append(f"h({v.labels[j]}) = {h.text(digits)} ({'null' if h.value == 0 else 'negative'})")
    return ("where " + ", ".join(parts)) if parts else ""


def _indeterminate_line(c: Candidate) -> str:
    terms = c.indeterminate_terms or (c.value,)
    first, rest = terms[0], terms[1:]
    line = f"{c.label}: {first.form.value} in {first.cause}"
    for t in rest:
        line += f"; also {t.form.value} in {t.cause}"
    return line


def _unknown_line(c: Candidate, digits: int) -> str:
    return f"{c.label}: objective in {c.bound.text(digits)}; " + "; ".join(c.missing)


def _infinite_origin(c: Candidate, digits: int) -> str:
    terms = c.infinite_terms
    if not terms:
        return ""
    shown = ", ".join(f"{t.label} = {t.text(digits)}" for t in terms[:2] if t.label)
    return f" from {shown}" if shown else ""


def _params_text(params) -> str:
    return ", ".join(f"{k}={_decimal(v)}" for k, v in params.items())


def summary(result: SelectionResult) -> str:
    """Two lines: the method and scenario, then the order and where and why it stopped.

    E.g. ``MIFS-U (beta=0.4, table reading) on uniform (k=0.2, ...)`` /
    ``X, 3X+1, X-Y, X^2 -- stopped after 4: Y^2 0*inf, Z 0*inf, ...``.
    """
    v = result.values
    head = f"{result.describe_method()} on {v.scenario} ({_params_text(v.params)})"
    order = ", ".join(result.order_labels) or "(none)"
    if result.stop is None:
        return f"{head}\n{order}"
    if result.undecided:
        return f"{head}\n{order} -- {result.stop.statement}"
    forms = ", ".join(f"{c.label} {c.form}" for c in result.stop.candidates)
    return f"{head}\n{order} -- stopped after {result.stop.after}: {forms}"


def explain(result: SelectionResult, digits: int = 6) -> str:
    """A readable account of a selection run (one block per step, then the stop)."""
    v = result.values
    lines = [
        f"{result.describe_method()} on {v.scenario} ({_params_text(v.params)})",
        f"Order: {', '.join(result.order_labels) or '(none)'}"
        + (f" -- stopped after {result.stop.after} of {v.n_features}" if result.stop else " -- complete"),
    ]
    for step in result.steps:
        w = step.winner
        what = f"MI(C,{w.label}) = {w.text(digits)}" if step.number == 1 else w.text(digits)
        head = f"Step {step.number}: {w.label} wins with {what}"
        if step.number > 1 and w.value.is_infinite:
            head += _infinite_origin(w, digits)
        if step.tied:
            head += (f" (tied with {', '.join(v.labels[i] for i in step.tied)}: "
                     f"the lower feature index wins)")
        if step.number == 1:
            head += " [first feature: largest MI with the class]"
        lines.append(head + ".")
        others = [c for c in step.candidates if c.determinate and c.index != w.index]
        if others:
            lines.append("  others: " + ", ".join(f"{c.label} {c.text(digits)}" for c in others))
        ind = step.indeterminate
        if ind:
            lines.append("  indeterminate (cannot be chosen):")
            lines.extend(f"    {_indeterminate_line(c)}" for c in ind)
        if step.unknown:
            lines.append("  not computed, and cannot win (objective bounded over the missing values):")
            lines.extend(f"    {_unknown_line(c, digits)}" for c in step.unknown)
        where = _where([t.label or "" for c in [w] for t in c.infinite_terms]
                       + [t.cause for c in ind for t in c.indeterminate_terms], result, digits)
        if step.number > 1 and w.value.is_infinite:
            where = where or _where([t.label or "" for t in w.infinite_terms], result, digits)
        if where:
            lines.append(f"  {where}")
    if result.stop is None:
        lines.append(f"All {v.n_features} features selected.")
    elif result.undecided:
        stop = result.stop
        lines.append(f"Stop after {stop.after}: {stop.statement}.")
        known = [c for c in stop.candidates if c.determinate]
        if known:
            best = max(known, key=lambda c: c.value)
            lines.append(f"  best known: {best.label} {best.text(digits)}")
        lines.append("  could win (objective bounded over the missing values):")
        lines.extend(f"    {_unknown_line(c, digits)}" for c in stop.blocking)
        lines.append("  This is not the answer: the ordering resumes when the missing values are "
                     "computed.")
    else:
        stop = result.stop
        lines.append(
            f"Stop after {stop.after}: every remaining candidate is indeterminate "
            f"({', '.join(f'{c.label} {c.form}' for c in stop.candidates)})."
        )
        lines.extend(f"  {_indeterminate_line(c)}" for c in stop.candidates)
        where = _where([t.cause for c in stop.candidates for t in c.indeterminate_terms], result, digits)
        if where:
            lines.append(f"  {where}")
    return "\n".join(lines)


def _decimal(x) -> str:
    """A parameter as a decimal string when it terminates ('1/5' -> '0.2'), else 'p/q'."""
    if isinstance(x, ExtendedReal):
        return x.text(15)
    return param_text(sp.Rational(x))


def to_json(result: SelectionResult, digits: int = 15) -> dict:
    """The run as a JSON-ready dict (format in the module docstring); values as decimal strings
    with ``digits`` significant digits, '+inf', '-inf', or the indeterminate form."""
    v = result.values
    params = {k: _decimal(x) for k, x in v.params.items()}
    params["reading"] = result.reading
    params["zero_beta"] = result.zero_beta if result.method.has_beta else None
    return {
        "method": result.method.key,
        "beta": _coefficient_json(result.beta),
        **({"gamma": _coefficient_json(result.gamma)} if result.method.has_gamma else {}),
        "scenario": v.scenario,
        "params": params,
        "order": [i + 1 for i in result.order],
        "labels": result.order_labels,
        "stopped": None if result.stop is None else _stop_json(result.stop, digits),
        "steps": [
            {"selected": s.selected + 1, "values": {c.name: c.text(digits) for c in s.candidates}}
            for s in result.steps
        ],
    }


def _coefficient_json(c):
    """beta or gamma in the JSON: a number, "1/|S|", or None."""
    if c is None:
        return None
    return float(c) if isinstance(c, Fraction) else str(c)


def _stop_json(stop, digits: int) -> dict:
    out = {"after": stop.after, "kind": stop.kind,
           "candidates": {c.name: c.form or c.text(digits) for c in stop.candidates},
           "statement": stop.statement}
    if stop.kind == "undecided":
        out["undecided"] = {
            "step": stop.after + 1,
            "missing": stop.missing,
            "blocking": {c.name: [c.bound.lo.text(digits), c.bound.hi.text(digits)]
                         for c in stop.blocking},
        }
    return out


def to_json_text(result: SelectionResult, digits: int = 15) -> str:
    return json.dumps(to_json(result, digits), indent=2)
