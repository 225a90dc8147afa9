"""Each printed cell of the paper against the engine (``fstheory verify``): a printed decimal,
an exact claim, a law or a feature description of the numeric, MI and general-expression tables
(:func:`numeric_cell`, :func:`mi_cell`, :func:`general_cell`), with a second route for a
disagreement (:func:`second_route`), and a printed ordering row (:func:`ordering_row`).

Examples
--------
>>> classify_decimal("0.5932", mpmath.mpf("0.593147180559945309417"))
('rounding slip', 'correct rounding 0.5931')
>>> classify_decimal("0.0947", mpmath.mpf("0.109228669529766732714"))[0]
'erratum'
"""

from __future__ import annotations

import json
import re
from decimal import ROUND_HALF_EVEN, Decimal
from pathlib import Path

import mpmath
import sympy as sp

from fstheory.orderings.explain import explain
from fstheory.orderings.greedy import select
from fstheory.reports import paper_data
from fstheory.reports.compute import PointStore
from fstheory.reports.expressions import show
from fstheory.reports.law_text import law_text
from fstheory.reports.printed_forms import exact_number, parse, printed_law, sn_product
from fstheory.engine.derive import derive
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.extended import ExtendedReal, xr
from fstheory.theory.law_algebra import law_of
from fstheory.theory.numeric import NumericRoute, NumericUnsupported
from fstheory.theory.symbolic import GUARD_DIGITS
from fstheory.engine.values import ScenarioValues
from fstheory.reports.verdicts import RowReport, Verdict, VerifyError

__all__ = ["SHOW_DIGITS", "REFERENCE_PATH", "CHECK_POINTS", "classify_decimal", "second_route",
           "bound_params", "params_text", "numeric_cell", "mi_cell", "general_cell",
           "ordering_row"]

#: stored second-route references for the slow numerical cases (written by scripts, optional)
REFERENCE_PATH = Path(__file__).resolve().parent.parent / "tests" / "data" / "second_route_reference.json"
#: digits shown for reproduced values in verification.md
SHOW_DIGITS = 20

#: one more parameter point per scenario at which the general expressions are checked: a < 0,
#: delta < 1/2 (negative entropies), k = 0.35, b and d moved; sigma stays 1 (the paper's
#: Scenario II is N(0, 1) and its printed entropies are for sigma = 1).
CHECK_POINTS = {
    "uniform": {"delta": "0.3", "a": "-2", "b": "0.5", "d": "-1", "k": "0.35"},
    "normal": {"sigma": "1", "a": "-2", "b": "0.5", "d": "-1", "k": "0.35"},
}


# ----- comparisons --------------------------------------------------------------------------------


def _tol(digits: int) -> mpmath.mpf:
    return mpmath.mpf(10) ** -(digits - 5)


def _close(a, b, digits: int) -> bool:
    return abs(a - b) <= _tol(digits) * max(1, abs(a), abs(b))


def classify_decimal(printed: str, exact) -> tuple[str, str]:
    """(class, detail) of a printed rounded decimal against an exact finite value (mpf)."""
    p = Decimal(printed)
    n = -p.as_tuple().exponent
    unit = Decimal(1).scaleb(-n)
    x = Decimal(mpmath.nstr(exact, 40, strip_zeros=False, min_fixed=-50, max_fixed=50))
    correct = x.quantize(unit, rounding=ROUND_HALF_EVEN)
    if correct == p:
        return "match", ""
    if abs(abs(x - p) - unit / 2) < Decimal(10) ** -30:  # exactly half-way: either rounding
        return "match", "half-way value"
    shown = format(correct, "f")
    if abs(correct - p) == unit:
        return "rounding slip", f"correct rounding {shown}"
    return "erratum", f"correct rounding {shown}"


def _text(x: ExtendedReal) -> str:
    return x.text(SHOW_DIGITS)


def _compare_exact(printed_value, exact: ExtendedReal, digits: int) -> tuple[bool, str]:
    """printed_value: sympy number, sp.oo, ExtendedReal or mpf; None = not a real number."""
    if printed_value is None:
        return False, "the printed expression is not a real number here"
    if isinstance(printed_value, ExtendedReal):
        if not (printed_value.is_finite and exact.is_finite):
            return printed_value.same(exact), f"printed {printed_value.text()}"
        printed_value = printed_value.value
    if printed_value == sp.oo:
        return exact.is_pos_inf, "printed +inf"
    if not exact.is_finite:
        return False, f"exact is {exact.text()}"
    with mpmath.workdps(digits + GUARD_DIGITS):
        pv = printed_value if isinstance(printed_value, mpmath.mpf) else \
            mpmath.mpf(sp.N(printed_value, digits + GUARD_DIGITS))
        ok = _close(pv, exact.value, digits)
        return ok, f"printed value {mpmath.nstr(pv, SHOW_DIGITS)}"


# ----- the second route ---------------------------------------------------------------------------


def _slow_pair(e1, e2, laws) -> bool:
    """The numerical route's slow case (minutes): MI between a non-affine function of one base
    variable and a linear form of two, with base laws of unbounded support (Scenario II's
    MI(Y^2, X-Y))."""
    def bases(e):
        return [s for s in e.free_symbols if s in laws]

    for u, v in ((e1, e2), (e2, e1)):
        bu, bv = bases(u), bases(v)
        if len(bu) == 1 and len(bv) == 2 and sp.diff(u, bu[0], 2) != 0:
            if any(laws[b].support()[1] == sp.oo for b in bv):
                return True
    return False


def _reference(bound, i: int, j: int):
    """A stored second-route value of MI(V_i, V_j) (0-based) at the parameters of ``bound``:
    the case of REFERENCE_PATH (written by scripts/make_references.py) whose scenario and bound
    parameters are those of ``bound``, entry 'mi_features'['a,b'] (1-based, a < b); None when
    absent."""
    if not REFERENCE_PATH.exists():
        return None
    from fstheory.scenarios.registry import get_scenario

    data = json.loads(REFERENCE_PATH.read_text())
    a, b = sorted((i + 1, j + 1))
    for case in data.get("cases", []):
        if case["scenario"] != bound.scenario.name:
            continue
        if get_scenario(case["scenario"]).bind(**case["params"]).params != bound.params:
            continue
        entry = case["mi_features"].get(f"{a},{b}")
        return None if entry is None else entry["value"]
    return None


def second_route(bound, quantity: str, i: int, j: int | None, exact: ExtendedReal,
                 digits: int) -> str:
    """The numerical route's value of h(V_i) / MI(C, V_i) / MI(V_i, V_j) and its agreement."""
    if not exact.is_finite:
        return ""
    exprs = bound.feature_exprs()
    laws = bound.laws()
    if quantity == "mi" and _slow_pair(exprs[i], exprs[j], laws):
        ref = _reference(bound, i, j)
        if ref is None:
            return ("second route: pending (slow numerical case; no stored reference in "
                    "tests/data/second_route_reference.json)")
        value = mpmath.mpf(ref)
        how = "stored reference (tests/data/second_route_reference.json)"
    else:
        with mpmath.workdps(digits + GUARD_DIGITS):
            route = NumericRoute(laws)
            try:
                if quantity == "h":
                    res = route.entropy(exprs[i])
                elif quantity == "mi_c":
                    res = route.mi_class(exprs[i], bound.class_weights(), bound.class_threshold())
                else:
                    res = route.mi_pair(exprs[i], exprs[j])
            except NumericUnsupported as exc:
                return f"second route: not available ({exc})"
            value = res.value
        how = "numerical quadrature from the densities (theory/numeric.py)"
    with mpmath.workdps(digits + GUARD_DIGITS):
        diff = abs(value - exact.value)
        agree = digits if diff == 0 else int(mpmath.floor(-mpmath.log10(diff / abs(exact.value))))
        agree = min(agree, digits)
        return (f"second route, {how}: {mpmath.nstr(value, SHOW_DIGITS)} "
                f"(agrees with the exact value to {agree} significant digits)")


# ----- value cells --------------------------------------------------------------------------------


def _engine(values: ScenarioValues, column: str, i: int, j: int | None = None) -> ExtendedReal:
    if column == "h":
        return values.entropy[i]
    if column == "mi_c":
        return values.mi_class[i]
    return values.mi(i, j)


def _ref_value(form_ref: str, values: ScenarioValues) -> ExtendedReal:
    m = re.fullmatch(r"h\(V(\d+)\)", form_ref)
    if m:
        return values.entropy[int(m.group(1)) - 1]
    m = re.fullmatch(r"MI\(C,V(\d+)\)", form_ref)
    if m:
        return values.mi_class[int(m.group(1)) - 1]
    raise paper_data.PaperDataError(f"unknown reference {form_ref!r}")


def _printed_value(cell, scenario, params: dict, values: ScenarioValues, digits: int,
                   store: PointStore):
    form = cell.form
    bound = store.bind(scenario, params)
    if "expr" in form:
        return exact_number(form["expr"], bound)
    if "ref" in form:
        return _ref_value(form["ref"], values)
    if "sn_product" in form:
        f = form["sn_product"]
        with mpmath.workdps(digits + 5):  # enough to tell a match at `digits` digits
            return sn_product(f["c0"], f["shape0"], f["c1"], f["shape1"], scenario, params)
    raise paper_data.PaperDataError(f"{cell.cell_id}: no value form")


def params_text(params: dict) -> str:
    """Parameters as ``name=value`` text, comma separated."""
    return ", ".join(f"{k}={v}" for k, v in params.items())


def _law_claim(cell, scenario, bound, general: bool):
    """(ok_label, label_detail, ok_law, law_detail) of a printed feature description."""
    form = cell.form
    i = cell.row_index
    feat = scenario.features[i].expr
    ok_label, label_detail = True, ""
    if "feature" in form:
        printed_feat = parse(form["feature"], scenario)
        subs = {} if general else bound.subs
        if sp.simplify((printed_feat - feat).xreplace(subs)) != 0:
            ok_label = False
            label_detail = (f"printed feature {form['feature']} is not V{i + 1} = "
                            f"{scenario.features[i].label}")
    laws = bound.laws()
    derived = law_of(bound.feature_exprs()[i], laws)
    if "law" in form:
        printed = printed_law(form["law"], bound)
    elif "same_law_as" in form:
        target = form["same_law_as"]
        m = re.fullmatch(r"V(\d+)", target)
        texpr = bound.feature_exprs()[int(m.group(1)) - 1] if m else \
            parse(target, scenario).xreplace(bound.subs)
        printed = law_of(texpr, laws)
    else:
        return ok_label, label_detail, True, ""
    if derived is None:
        raise VerifyError(f"{cell.cell_id}: the engine has no closed-form law to compare with")
    ok_law = printed is not None and printed == derived
    shown = "not a valid law here" if printed is None else law_text(printed)[0]
    return ok_label, label_detail, ok_law, f"printed law {shown}, derived {law_text(derived)[0]}"


def _verdict(cell, reproduced, klass, detail="", second="") -> Verdict:
    return Verdict(cell.cell_id, cell.table, cell.scenario, cell.row, cell.column, cell.printed,
                   reproduced, klass, detail, second)


def numeric_cell(cell, scenario, digits, store: PointStore) -> Verdict:
    i = cell.row_index
    if cell.column == "dist":
        params = {"k": "0.2"}
        bound = store.bind(scenario, params)
        ok_label, ld, ok_law, lawd = _law_claim(cell, scenario, bound, general=False)
        derived = law_text(law_of(bound.feature_exprs()[i], bound.laws()))[0]
        if not ok_law:
            return _verdict(cell, derived, "erratum", lawd)
        if not ok_label:
            return _verdict(cell, derived, "label typo", ld)
        return _verdict(cell, derived, "match")
    column, _, k = cell.column.partition(":")
    params = {"k": k or "0.2"}
    values = store.values_at(scenario, params, digits)
    exact = _engine(values, column, i)
    bound = store.bind(scenario, params)
    return _value_verdict(cell, exact, bound, column, i, None, values, digits, store)


def _value_verdict(cell, exact, bound, quantity, i, j, values, digits,
                   store: PointStore) -> Verdict:
    form = cell.form
    if "decimal" in form:
        if not exact.is_finite:
            klass, detail = "erratum", f"exact value is {exact.text()}"
        else:
            klass, detail = classify_decimal(form["decimal"], exact.value)
    else:
        ok, why = _compare_exact(_printed_value(cell, bound.scenario, bound_params(bound), values,
                                                digits, store), exact, digits)
        klass, detail = ("match", "") if ok else ("erratum", why)
    second = ""
    if klass != "match":
        second = second_route(bound, quantity, i, j, exact, digits)
    return _verdict(cell, _text(exact), klass, detail, second)


def bound_params(bound) -> dict:
    from fstheory.reports.values_output import param_text

    return {k: param_text(v) for k, v in bound.params.items()}


def mi_cell(cell, scenario, digits, store: PointStore) -> Verdict:
    i, j = cell.row_index, int(cell.column[1:]) - 1
    params = {"k": "0.2"}
    values = store.values_at(scenario, params, digits)
    return _value_verdict(cell, values.mi(i, j), store.bind(scenario, params), "mi", i, j, values,
                          digits, store)


def _general_points(scenario) -> list[dict]:
    return [{"k": "0.2"}, {"k": "0.8"}, dict(CHECK_POINTS[scenario.name])]


def general_cell(cell, scenario, digits, store: PointStore) -> Verdict:
    i = cell.row_index
    der = derive(scenario)
    points = _general_points(scenario)
    if cell.column == "description":
        derived = law_text(law_of(scenario.features[i].expr, dict(scenario.base)))[0]
        reproduced = f"{scenario.features[i].label} ~ {derived}"
        bad_law, bad_label = [], ""
        for params in points:
            ok_label, ld, ok_law, lawd = _law_claim(cell, scenario, store.bind(scenario, params),
                                                    general=True)
            if not ok_law:
                bad_law.append(f"at {params_text(params)}: {lawd}")
            if not ok_label:
                bad_label = ld
        if bad_law:
            return _verdict(cell, reproduced, "erratum", "; ".join(bad_law))
        if bad_label:
            return _verdict(cell, reproduced, "label typo", bad_label)
        return _verdict(cell, reproduced, "match")
    d = der.entropy[i] if cell.column == "h" else der.mi_class[i]
    reproduced = show(d, scenario).plain
    failures, second = [], ""
    for params in points:
        values = store.values_at(scenario, params, digits)
        exact = _engine(values, cell.column, i)
        ok, why = _compare_exact(_printed_value(cell, scenario, params, values, digits, store), exact,
                                 digits)
        if not ok:
            failures.append(f"at {params_text(params)}: {why}, exact {_text(exact)}")
            if not second:
                second = second_route(store.bind(scenario, params), cell.column, i, None, exact, digits)
    if failures:
        return _verdict(cell, reproduced, "erratum", "; ".join(failures), second)
    return _verdict(cell, reproduced, "match")


# ----- ordering rows ------------------------------------------------------------------------------


def _step_block(result, number: int) -> str:
    """The lines of :func:`explain` for step ``number`` (or the stop)."""
    lines = explain(result).splitlines()
    out, inside = [], False
    for line in lines:
        if line.startswith(f"Step {number}:"):
            inside = True
        elif inside and (line.startswith("Step ") or line.startswith("Stop ")
                         or line.startswith("All ")):
            break
        if inside:
            out.append(line)
    if not out:  # stopped before that step
        for line in lines:
            if line.startswith("Stop ") or (out and line.startswith("  ")):
                out.append(line)
    return "\n".join(out)


def _with_printed_values(values: ScenarioValues, scenario: str, k: str,
                         numeric: dict) -> tuple[ScenarioValues, list[str]]:
    """``values`` with the paper's printed h and MI(C, .) put back where the numeric table's
    verdict is not a match (the paper's own numbers)."""
    ent, mic = list(values.entropy), list(values.mi_class)
    changed = []
    with mpmath.workdps(values.digits):
        for v in numeric.values():
            if v.scenario != scenario or v.klass == "match" or v.column == "dist":
                continue
            col, _, kk = v.column.partition(":")
            if col == "h":
                i = int(v.row[1:]) - 1
                ent[i] = xr(v.printed, ent[i].label)
                changed.append(f"h({values.labels[i]}) = {v.printed}")
            elif kk == k:
                i = int(v.row[1:]) - 1
                mic[i] = xr(v.printed, mic[i].label)
                changed.append(f"MI(C,{values.labels[i]}) = {v.printed}")
    return ScenarioValues(values.scenario, values.params, values.labels, tuple(ent), tuple(mic),
                          values.mi_features, values.digits), changed


def ordering_row(row, digits, numeric: dict, store: PointStore) -> RowReport:
    scenario = get_scenario(row.scenario)
    values = store.values_at(scenario, {"k": row.k}, digits)
    n = values.n_features
    derived, results = {}, {}
    for beta in row.betas or (None,):
        r = select(values, row.method, beta)
        derived[beta] = r.order_labels + ["-"] * (n - len(r.order))
        results[beta] = r
    verdicts = []
    for p, printed in enumerate(row.printed, start=1):
        got = {b: d[p - 1] for b, d in derived.items()}
        same = all(x == printed for x in got.values())
        shown = ", ".join(sorted(set(got.values()))) if len(set(got.values())) == 1 else \
            "; ".join(f"beta={b}: {x}" for b, x in got.items())
        detail = "" if same else "; ".join(
            f"beta={b}: derived {x}" if b is not None else f"derived {x}"
            for b, x in got.items() if x != printed)
        verdicts.append(Verdict(row.cell_id(p), "orderings", row.scenario, row.heading, str(p),
                                printed, shown, "match" if same else "ordering", detail))
    report = RowReport(row, derived, verdicts)
    for beta, d in derived.items():
        if d == list(row.printed):
            continue
        p = next(q for q in range(n) if d[q] != row.printed[q]) + 1
        r = results[beta]
        name = row.heading if beta is None else f"{row.heading.split(' (')[0]} (beta={beta})"
        printed = row.printed[p - 1]
        lines = [f"{name}, k = {row.k}: printed {', '.join(row.printed)}; derived {', '.join(d)}.",
                 f"They part at position {p}: printed {printed}, derived {d[p - 1]}."]
        if p <= len(r.steps):
            step = r.steps[p - 1]
            cand = next((c for c in step.candidates if c.label == printed), None)
            if printed == "-":
                lines.append(f"The paper stops after {p - 1}, but {step.winner.label} is "
                             f"determinate at step {p} ({step.winner.text(6)}) and is chosen.")
            elif cand is None:
                lines.append(f"{printed} is not a candidate at step {p}.")
            elif not cand.determinate:
                lines.append(f"At step {p} {printed} is indeterminate ({cand.form} in {cand.cause}) "
                             f"and cannot be chosen; {step.winner.label} wins with "
                             f"{step.winner.text(6)}.")
            else:
                lines.append(f"At step {p} {printed} has objective {cand.text(6)} and "
                             f"{step.winner.label} has {step.winner.text(6)}.")
        else:
            cand = next((c for c in r.stop.candidates if c.label == printed), None)
            if cand is not None:
                lines.append(f"Selection stops after {r.stop.after}: {printed} is indeterminate "
                             f"({cand.form} in {cand.cause}).")
        alt, changed = _with_printed_values(values, row.scenario, row.k, numeric)
        if changed:
            again = select(alt, row.method, beta)
            again_row = again.order_labels + ["-"] * (n - len(again.order))
            follows = "follows" if again_row == list(row.printed) else "does not follow either"
            lines.append(f"With the paper's printed values put back ({'; '.join(changed)}), the "
                         f"printed row {follows}.")
        lines.append("Derived step (from the explanation):\n" + _step_block(r, p))
        report.details.append("\n".join(lines))
    return report
