"""Rendering of a :class:`~fstheory.engine.values.ScenarioValues` for the ``values`` command.

With ``joint=True`` the JSON object gains ``h_class`` (H(C)) and four n x n matrices,
``mi_class_joint`` (MI(C; {Vi, Vj}), diagonal MI(C, Vi)), ``cmi_class`` (MI(C; Vi | Vj), diagonal
0), ``mi_features_given_class`` (MI(Vi; Vj | C), diagonal +inf) and ``joint_entropy_class``
(H(Vi, Vj, C)), with the same string conventions ("+inf", "-inf", decimal strings, "not
computed"), and ``joint_not_computed``: for every cell not computed, the matrix, the 0-based
cell and the reason. The plain text shows the four matrices as tables.

Every printed digit is proved: a value's text keeps only the digits its enclosure proves. The
JSON gives, next to each value array, a rigorous bound of |printed value - true value| as a
decimal string rounded up (``entropy_error``, ``mi_class_error``, ``mi_features_error``, and with
``joint`` ``h_class_error`` and ``<matrix>_error``): "0" where the printed value is exact (0,
1/2, +inf), ``null`` where no value is proved.

A value the engine could not compute prints as ``not computed`` followed by the reason on the
same line; the JSON lists every such value under ``not_computed`` (quantity and reason). A value
known only as an estimate (the numerical route without a proved error bound) is marked: ``~``
before its digits in the text and in the JSON value arrays (``"~0.5089"``, never a plain number),
its error estimate as ``"~1.0e-21"`` in the error arrays, and ``estimate`` and
``error_estimate`` in its ``not_computed`` entry; an ordering never ranks on it.
"""

from __future__ import annotations

import decimal
from fractions import Fraction

import mpmath

from fstheory.engine.values import ScenarioValues
from fstheory.reports.render import shown
from fstheory.scenarios.declaration import param_text
from fstheory.theory.extended import ExtendedReal, Form

__all__ = ["values_json", "values_text", "param_text", "missing_values", "JOINT_MATRICES",
           "TABLE_DIGITS", "value_text", "error_text"]

#: (JSON key, JointValues attribute, title) of the joint matrices, in output order
JOINT_MATRICES = (
    ("mi_class_joint", "mi_class_pair", "MI(C;{Vi,Vj}) (diagonal: MI(C,Vi))"),
    ("cmi_class", "cmi_class", "MI(C;Vi|Vj) (row i, column j; diagonal 0)"),
    ("mi_features_given_class", "mi_given_class", "MI(Vi;Vj|C) (diagonal +inf)"),
    ("joint_entropy_class", "h_pair_class", "H(Vi,Vj,C)"),
)

#: significant digits of the plain-text joint tables (the JSON carries every digit)
TABLE_DIGITS = 8


def _missing(x) -> bool:
    return x.is_indeterminate and x.form is Form.NOT_COMPUTED


value_text = shown


def _fraction(x: mpmath.mpf) -> Fraction:
    sign, man, exp, _ = x._mpf_
    q = Fraction(int(man)) * Fraction(2) ** int(exp)
    return -q if sign else q


def _up(e: Fraction) -> str:
    """A positive bound as a decimal string with 2 significant digits, rounded up."""
    if e == 0:
        return "0"
    with decimal.localcontext() as ctx:
        ctx.prec, ctx.rounding = 2, decimal.ROUND_CEILING
        d = decimal.Decimal(e.numerator) / decimal.Decimal(e.denominator)
    return f"{d:.1e}"


def error_text(x: ExtendedReal, digits: int) -> str | None:
    """A rigorous bound of |value_text(x) - true value| (module docstring); None for a value
    that is not proved (an estimate: its error estimate marked ``~``)."""
    if x.is_estimate:
        return "~" + _up(_fraction(abs(mpmath.mpf(x.estimate[1]))))
    if x.is_indeterminate or x.is_infinite:
        return None if x.is_indeterminate else "0"
    e = x.enclosure()
    printed = Fraction(decimal.Decimal(x.text(digits)))
    return _up(abs(printed - _fraction(e.mid)) + _fraction(e.radius))


def _entry(x: ExtendedReal, **where) -> dict:
    entry = {**where, "reason": x.cause}
    if x.is_estimate:
        entry["estimate"] = mpmath.nstr(x.estimate[0], 20)
        entry["error_estimate"] = mpmath.nstr(x.estimate[1], 2)
    return entry


def missing_values(values: ScenarioValues) -> list[dict]:
    """The values that are not computed: [{"quantity": "MI(C,X)", "reason": ...}] (with
    ``estimate`` and ``error_estimate`` for an estimate)."""
    out = []
    n = values.n_features
    items = [x for x in values.entropy] + [x for x in values.mi_class]
    items += [values.mi(i, j) for i in range(n) for j in range(i + 1, n)]
    for x in items:
        if _missing(x):
            out.append(_entry(x, quantity=x.label))
    return out


def values_json(values: ScenarioValues, digits: int, joint: bool = False) -> dict:
    """The JSON object of ``fstheory values --json`` (values as decimal strings or +inf/-inf)."""
    def row(xs):
        return [value_text(x, digits) for x in xs]

    def err(xs):
        return [error_text(x, digits) for x in xs]

    out = {
        "scenario": values.scenario,
        "params": {k: param_text(v) for k, v in values.params.items()},
        "features": list(values.labels),
        "entropy": row(values.entropy),
        "entropy_error": err(values.entropy),
        "mi_class": row(values.mi_class),
        "mi_class_error": err(values.mi_class),
        "mi_features": [row(r) for r in values.mi_features],
        "mi_features_error": [err(r) for r in values.mi_features],
        "not_computed": missing_values(values),
    }
    if joint:
        jv = values.joint_values()
        out["h_class"] = value_text(jv.h_class, digits)
        out["h_class_error"] = error_text(jv.h_class, digits)
        missing = []
        for key, attr, _ in JOINT_MATRICES:
            m = getattr(jv, attr)
            out[key] = [row(r) for r in m]
            out[key + "_error"] = [err(r) for r in m]
            missing += [_entry(x, matrix=key, cell=[i, j])
                        for i, r in enumerate(m) for j, x in enumerate(r)
                        if x.is_indeterminate]
        if jv.h_class.is_indeterminate:
            missing.insert(0, _entry(jv.h_class, matrix="h_class", cell=None))
        out["joint_not_computed"] = missing
    return out


def _why(x) -> str:
    """The reason of a value not computed, without the quantity's name in front."""
    head = f"{x.label} not computed: "
    return x.cause[len(head):] if x.label and x.cause.startswith(head) else x.cause


#: the note under a values table that shows an estimate
ESTIMATE_NOTE = ("~: an estimate of the numerical route, not proved (its error estimate is not a "
                 "bound); no ordering ranks on it; --json gives each error estimate and how it "
                 "was computed.")


def _cell(x, digits: int) -> str:
    if x.is_estimate:
        return f"{value_text(x, digits)} (an estimate, not proved)"
    return f"not computed ({_why(x)})" if _missing(x) else x.text(digits)


def _table(labels, matrix, digits: int) -> list[str]:
    cells = [[value_text(x, digits) for x in row] for row in matrix]
    names = [f"V{i + 1} {label}" for i, label in enumerate(labels)]
    w0 = max(len(n) for n in names)
    w = max(max(len(c) for row in cells for c in row), max(len(f"V{j + 1}") for j in range(len(labels))))
    head = " " * w0 + "  " + "  ".join(f"{'V' + str(j + 1):>{w}}" for j in range(len(labels)))
    return [head] + [f"{n:<{w0}}  " + "  ".join(f"{c:>{w}}" for c in row)
                     for n, row in zip(names, cells)]


def values_text(values: ScenarioValues, digits: int, joint: bool = False) -> str:
    params = ", ".join(f"{k}={param_text(v)}" for k, v in values.params.items())
    lines = [f"scenario {values.scenario} ({params}); {digits} significant digits", ""]
    w = max(len(s) for s in values.labels) + 4
    lines.append(f"{'feature':<{w}}  {'h(V)':<{digits + 8}}  MI(C,V)")
    for i, label in enumerate(values.labels):
        h = values.entropy[i]
        h_text = (value_text(h, digits) if h.is_estimate else
                  "not computed (see below)" if _missing(h) else h.text(digits))
        lines.append(
            f"{'V' + str(i + 1) + ' ' + label:<{w}}  {h_text:<{digits + 8}}"
            f"  {_cell(values.mi_class[i], digits)}"
        )
        if _missing(h) and not h.is_estimate:
            lines.append(f"{'':<{w}}  h({label}) not computed: {_why(h)}")
    finite_diagonal = [i for i in range(values.n_features) if not values.mi(i, i).is_pos_inf]
    if not finite_diagonal:
        lines += ["", "MI(Vi, Vj), i > j (each MI(Vi, Vi) is +inf):"]
    else:  # a feature constant at these parameters: MI(V, V) = H(V) = 0
        lines += ["", "MI(Vi, Vj), i > j (each MI(Vi, Vi) is +inf except those listed first, "
                  "constant features):"]
        lines += [f"  MI({values.labels[i]}, {values.labels[i]}) = "
                  f"{_cell(values.mi(i, i), digits)}" for i in finite_diagonal]
    for i in range(values.n_features):
        for j in range(i):
            lines.append(
                f"  MI({values.labels[i]}, {values.labels[j]}) = {_cell(values.mi(i, j), digits)}"
            )
    if joint:
        lines += _joint_text(values, digits)
    if _any_estimate(values, joint):
        lines += ["", ESTIMATE_NOTE]
    return "\n".join(lines)


def _any_estimate(values: ScenarioValues, joint: bool) -> bool:
    n = values.n_features
    xs = list(values.entropy) + list(values.mi_class)
    xs += [values.mi(i, j) for i in range(n) for j in range(n)]
    if joint:
        jv = values.joint_values()
        xs.append(jv.h_class)
        xs += [x for _, attr, _ in JOINT_MATRICES for row in getattr(jv, attr) for x in row]
    return any(x.is_estimate for x in xs)


def _joint_text(values: ScenarioValues, digits: int) -> list[str]:
    jv = values.joint_values()
    shown = min(digits, TABLE_DIGITS)
    lines = ["", f"H(C) = {value_text(jv.h_class, digits)}"
             + (f"  ({jv.h_class.cause})" if jv.h_class.is_indeterminate else "")]
    reasons: list[str] = []
    for _, attr, title in JOINT_MATRICES:
        m = getattr(jv, attr)
        lines += ["", f"{title}, {shown} significant digits (--json for {digits}):"]
        lines += _table(values.labels, m, shown)
        for row in m:
            for x in row:
                if x.is_indeterminate and x.cause not in reasons:
                    reasons.append(x.cause)
    if reasons:
        lines += ["", "Not computed:"] + [f"  {r}" for r in reasons]
    return lines
