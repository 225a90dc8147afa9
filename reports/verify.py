r"""``fstheory verify``: every printed cell of the paper's theoretical tables against the engine.

The printed cells (``reports/data/paper_tables.json``, :mod:`fstheory.reports.paper_data`) are compared
with the values derived by the engine and each is classified:

match
    A printed decimal is the correct rounding of the exact value to the printed decimals
    (half-way cases count either way); an exact claim (0, +inf, 1/2, (1-ln 2)/2, a closed form,
    a reference to another cell, a law) equals the derived value to the working precision at
    every point where it is checked.
rounding slip
    A printed decimal off by one unit in its last digit.
erratum
    A real disagreement: the exact value and a second, independent confirmation of it by the
    numerical route (:class:`fstheory.theory.numeric.NumericRoute`, quadrature from the densities) are
    given.
label typo
    A printed feature description that names another feature than the one in that row, while
    its law is right.
ordering
    An ordering cell whose printed feature is not the one derived by the greedy rules on the
    exact values; the report gives the step at which the derived and printed rows part and why
    (from :func:`fstheory.orderings.explain.explain`), and whether the printed row follows once the
    paper's own wrong numbers are put back.

General-expression cells are checked at the paper's two points (k = 0.2, 0.8 with the paper's
other parameters) and at one more point per scenario (:data:`CHECK_POINTS`: a < 0, delta < 1/2,
k = 0.35), since a general expression must hold for general parameters.

The verdicts are written to ``verification.md``; the exit code is 0 when every cell that is not
a match is listed, with the same class, in ``reports/errata.md`` and no entry there is stale
(lists a cell that now matches or does not exist), 1 otherwise. The errata file's format: one
``### <ID> (<class>): <title>`` heading per entry and a line ``Cells: `id`, `id` ...`` in it.

Examples
--------
>>> e = parse_errata("### E1 (erratum): a title\nCells: `numeric:normal:V4:mi_c:0.2`\n")
>>> e["E1"].klass, e["E1"].cells
('erratum', ('numeric:normal:V4:mi_c:0.2',))
>>> classify_decimal("0.5932", mpmath.mpf("0.593147180559945309417"))
('rounding slip', 'correct rounding 0.5931')
>>> classify_decimal("0.0947", mpmath.mpf("0.109228669529766732714"))[0]
'erratum'
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
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
from fstheory.reports.render import md_table, write_text
from fstheory.engine.derive import derive
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.extended import ExtendedReal, xr
from fstheory.theory.law_algebra import law_of
from fstheory.theory.numeric import NumericRoute, NumericUnsupported
from fstheory.theory.symbolic import GUARD_DIGITS
from fstheory.engine.values import ScenarioValues

__all__ = [
    "CLASSES", "CHECK_POINTS", "MIN_DIGITS", "ERRATA_PATH", "REFERENCE_PATH", "Verdict", "RowReport",
    "ErrataEntry", "VerificationResult", "verify", "parse_errata", "classify_decimal", "main",
]

CLASSES = ("match", "rounding slip", "erratum", "label typo", "ordering")
#: where the documented disagreements live (hand-written)
ERRATA_PATH = Path(__file__).parent / "errata.md"
#: stored second-route references for the slow numerical cases (written by scripts, optional)
REFERENCE_PATH = Path(__file__).resolve().parent.parent / "tests" / "data" / "second_route_reference.json"
#: digits shown for reproduced values in verification.md
SHOW_DIGITS = 20
#: the fewest working digits that tell a rounding slip from an erratum
MIN_DIGITS = 10

#: one more parameter point per scenario at which the general expressions are checked: a < 0,
#: delta < 1/2 (negative entropies), k = 0.35, b and d moved; sigma stays 1 (the paper's
#: Scenario II is N(0, 1) and its printed entropies are for sigma = 1).
CHECK_POINTS = {
    "uniform": {"delta": "0.3", "a": "-2", "b": "0.5", "d": "-1", "k": "0.35"},
    "normal": {"sigma": "1", "a": "-2", "b": "0.5", "d": "-1", "k": "0.35"},
}


class VerifyError(ValueError):
    """Bad input to the verification (unreadable errata file, unknown scenario)."""


# ----- data ---------------------------------------------------------------------------------------


@dataclass
class Verdict:
    cell_id: str
    table: str  # numeric | mi_features | general | orderings
    scenario: str
    row: str
    column: str
    printed: str
    reproduced: str
    klass: str
    detail: str = ""
    second_route: str = ""
    entry: str = ""  # errata id, filled in when documented


@dataclass
class RowReport:
    """One printed ordering row, its derived rows (per beta) and the cell verdicts."""

    row: paper_data.PrintedOrderingRow
    derived: dict  # beta -> list of labels
    verdicts: list
    details: list = field(default_factory=list)  # text blocks for disagreements


@dataclass(frozen=True)
class ErrataEntry:
    ident: str
    klass: str
    title: str
    cells: tuple


@dataclass
class VerificationResult:
    verdicts: list
    rows: list
    errata: dict
    digits: int
    tables: object = None  # the PaperTables compared against
    undocumented: list = field(default_factory=list)  # Verdict
    misclassified: list = field(default_factory=list)  # (Verdict, ErrataEntry)
    stale: list = field(default_factory=list)  # (cell id, ErrataEntry, why)

    def counts(self) -> dict:
        out = {c: 0 for c in CLASSES}
        for v in self.verdicts:
            out[v.klass] += 1
        return out

    @property
    def exit_code(self) -> int:
        return 1 if (self.undocumented or self.misclassified or self.stale) else 0

    def summary_line(self) -> str:
        c = self.counts()
        parts = ", ".join(f"{n} {k}" for k, n in c.items())
        head = f"verify: {len(self.verdicts)} printed cells -- {parts}"
        if self.exit_code == 0:
            return head + "; every disagreement is documented in reports/errata.md"
        problems = []
        if self.undocumented:
            problems.append(f"{len(self.undocumented)} undocumented")
        if self.misclassified:
            problems.append(f"{len(self.misclassified)} documented with another class")
        if self.stale:
            problems.append(f"{len(self.stale)} stale errata cell(s)")
        return head + "; NOT OK: " + ", ".join(problems) + " (see verification.md)"


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


def _params_text(params: dict) -> str:
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


def _numeric_cell(cell, scenario, digits, store: PointStore) -> Verdict:
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


def _mi_cell(cell, scenario, digits, store: PointStore) -> Verdict:
    i, j = cell.row_index, int(cell.column[1:]) - 1
    params = {"k": "0.2"}
    values = store.values_at(scenario, params, digits)
    return _value_verdict(cell, values.mi(i, j), store.bind(scenario, params), "mi", i, j, values,
                          digits, store)


def _general_points(scenario) -> list[dict]:
    return [{"k": "0.2"}, {"k": "0.8"}, dict(CHECK_POINTS[scenario.name])]


def _general_cell(cell, scenario, digits, store: PointStore) -> Verdict:
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
                bad_law.append(f"at {_params_text(params)}: {lawd}")
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
            failures.append(f"at {_params_text(params)}: {why}, exact {_text(exact)}")
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


def _ordering_row(row, digits, numeric: dict, store: PointStore) -> RowReport:
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


# ----- errata -------------------------------------------------------------------------------------


_HEADING = re.compile(r"^###\s+(\S+)\s+\(([^)]+)\):\s*(.*)$")


def parse_errata(text: str) -> dict:
    """Entries of an errata file: ``### ID (class): title`` and a ``Cells:`` line of `ids`."""
    entries: dict = {}
    current = None
    for n, line in enumerate(text.splitlines(), start=1):
        m = _HEADING.match(line)
        if m:
            ident, klass, title = m.groups()
            if klass not in CLASSES or klass == "match":
                raise VerifyError(f"errata line {n}: class {klass!r} is not one of "
                                  f"{', '.join(c for c in CLASSES if c != 'match')}")
            if ident in entries:
                raise VerifyError(f"errata line {n}: entry {ident} defined twice")
            current = ErrataEntry(ident, klass, title.strip(), ())
            entries[ident] = current
        elif line.startswith("Cells:"):
            if current is None:
                raise VerifyError(f"errata line {n}: 'Cells:' outside an entry")
            cells = tuple(re.findall(r"`([^`]+)`", line))
            current = ErrataEntry(current.ident, current.klass, current.title,
                                  current.cells + cells)
            entries[current.ident] = current
    return entries


def _check_documented(result: VerificationResult) -> None:
    where = {}
    for e in result.errata.values():
        for c in e.cells:
            where[c] = e
    by_id = {v.cell_id: v for v in result.verdicts}
    for v in result.verdicts:
        e = where.get(v.cell_id)
        if v.klass == "match":
            if e is not None:
                result.stale.append((v.cell_id, e, "the cell now matches"))
            continue
        if e is None:
            result.undocumented.append(v)
        elif e.klass != v.klass:
            result.misclassified.append((v, e))
        else:
            v.entry = e.ident
    for c, e in where.items():
        if c not in by_id:
            result.stale.append((c, e, "no such printed cell"))


# ----- the run ------------------------------------------------------------------------------------


def verify(digits: int = 30, errata_path=None, data_path=None,
           store: PointStore | None = None) -> VerificationResult:
    """Compare every printed cell with the engine; classify; check against the errata file.
    The values are those kept in ``store`` (default: a new store; ``fstheory tables --verify``
    passes the tables' own)."""
    if not isinstance(digits, int) or not MIN_DIGITS <= digits <= 100:
        raise VerifyError(f"parameter 'digits' must be an integer in [{MIN_DIGITS}, 100] "
                          f"(got {digits!r})")
    tables = paper_data.load(str(data_path) if data_path else None)
    errata_file = Path(errata_path) if errata_path else ERRATA_PATH
    if not errata_file.exists():
        raise VerifyError(f"errata file not found: {errata_file}")
    errata = parse_errata(errata_file.read_text(encoding="utf-8"))
    store = PointStore() if store is None else store
    verdicts = []
    numeric = {}
    for cell in tables.cells():
        scenario = get_scenario(cell.scenario)
        if cell.table == "numeric":
            v = _numeric_cell(cell, scenario, digits, store)
            numeric[cell.cell_id] = v
        elif cell.table == "mi_features":
            v = _mi_cell(cell, scenario, digits, store)
        else:
            v = _general_cell(cell, scenario, digits, store)
        verdicts.append(v)
    rows = [_ordering_row(r, digits, numeric, store) for r in tables.orderings]
    for r in rows:
        verdicts += r.verdicts
    expected = len(tables.cells()) + sum(len(r.printed) for r in tables.orderings)
    if len(verdicts) != expected:  # every printed cell gets exactly one verdict
        raise AssertionError(f"{len(verdicts)} verdicts for {expected} printed cells")
    result = VerificationResult(verdicts, rows, errata, digits, tables)
    _check_documented(result)
    return result


# ----- the report ---------------------------------------------------------------------------------


_TITLES = {
    "numeric": "Entropy and MI with the class (numeric table)",
    "mi_features": "MI between features",
    "general": "General expressions",
}


def _mark(v: Verdict) -> str:
    return v.klass + (f" ({v.entry})" if v.entry else "")


def _code(text: str) -> str:
    return f"`{text}`" if text else ""


def render(result: VerificationResult) -> str:
    """verification.md: the summary, every disagreement, then every cell table by table."""
    tables = result.tables or paper_data.load()
    c = result.counts()
    lines = [
        "# Verification of the paper's printed tables",
        "",
        "Written by `fstheory verify` (`reports/verify.py`); regenerate with `make verify`.",
        "",
        f"**{result.summary_line()}**",
        "",
        f"Exit code {result.exit_code}. Exact values computed to {result.digits} significant "
        f"digits (shown here to {SHOW_DIGITS}). Printed cells from "
        "[data/paper_tables.json](data/paper_tables.json); documented disagreements in "
        "[errata.md](errata.md).",
        "",
        "| class | cells | meaning |",
        "|---|---:|---|",
        f"| match | {c['match']} | printed decimal = correct rounding of the exact value; exact "
        "claim (0, +inf, closed form, reference, law) equal to the derived value |",
        f"| rounding slip | {c['rounding slip']} | printed decimal off by one unit in its last "
        "digit |",
        f"| erratum | {c['erratum']} | a real disagreement (exact value and second-route "
        "confirmation given) |",
        f"| label typo | {c['label typo']} | a printed description naming another feature |",
        f"| ordering | {c['ordering']} | a printed ordering cell that the rules and exact values do "
        "not give |",
        "",
        "Points: numeric and MI tables at the paper's parameters (Scenario I: delta=0.5, a=3, b=1, "
        "d=2; Scenario II: sigma=1, a=3, b=1, d=2; k = 0.2, 0.8). General expressions at k = 0.2 "
        "and 0.8 with those parameters and at one more point each: "
        + "; ".join(f"{s}: {_params_text(p)}" for s, p in CHECK_POINTS.items()) + ".",
    ]
    bad = [v for v in result.verdicts if v.klass != "match"]
    lines += ["", "## Disagreements", ""]
    if bad:
        lines.append(md_table(
            ["cell", "printed", "reproduced", "class", "detail"],
            [[_code(v.cell_id), _code(v.printed), _code(v.reproduced), _mark(v), v.detail]
             for v in bad]))
        seconds = [v for v in bad if v.second_route]
        if seconds:
            lines += ["", "Second-route confirmations:", ""]
            lines += [f"- `{v.cell_id}`: {v.second_route}" for v in seconds]
    else:
        lines.append("None.")
    if result.exit_code:
        lines += ["", "## Problems with the errata file", ""]
        lines += [f"- undocumented: `{v.cell_id}` ({v.klass})" for v in result.undocumented]
        lines += [f"- `{v.cell_id}` is {v.klass} but {e.ident} says {e.klass}"
                  for v, e in result.misclassified]
        lines += [f"- stale: `{cid}` in {e.ident}: {why}" for cid, e, why in result.stale]
    for table, title in _TITLES.items():
        for scenario in tables.scenarios():
            cells = [v for v in result.verdicts if v.table == table and v.scenario == scenario]
            if not cells:
                continue
            tid = tables.table_ids[table][scenario]
            lines += ["", f"## {title}: {scenario} (`{tid}`)", ""]
            lines.append(md_table(
                ["row", "column", "printed", "reproduced", "class"],
                [[v.row, v.column, _code(v.printed), _code(v.reproduced), _mark(v)]
                 for v in cells]))
    for scenario in tables.scenarios():
        for k in sorted({r.row.k for r in result.rows if r.row.scenario == scenario}):
            rows = [r for r in result.rows if r.row.scenario == scenario and r.row.k == k]
            tid = rows[0].row.table_id
            n = len(rows[0].row.printed)
            lines += ["", f"## Orderings: {scenario}, k = {k} (`{tid}` ({rows[0].row.part}))", ""]
            body = []
            for r in rows:
                cells = []
                for v in r.verdicts:
                    cells.append(v.printed if v.klass == "match" else
                                 f"**{v.printed}** (ordering{', ' + v.entry if v.entry else ''}: "
                                 f"{v.reproduced})")
                body.append([r.row.heading] + cells)
            lines.append(md_table(["printed row"] + [str(p + 1) for p in range(n)], body))
            for r in rows:
                for d in r.details:
                    lines += ["", "```text", d, "```"]
    return "\n".join(lines)


def main(out=None, digits: int = 30, errata_path=None, data_path=None,
         store: PointStore | None = None) -> int:
    """What ``fstheory verify --out DIR`` runs: verify, write DIR/verification.md, print the
    summary line; return the exit code (0 all disagreements documented, 1 otherwise)."""
    from fstheory.reports.atomic import staged_output
    from fstheory.reports.tables import DEFAULT_OUT

    with staged_output(DEFAULT_OUT if out is None else out) as stage:  # out checked first
        result = verify(digits, errata_path, data_path, store)
        write_text(stage / "verification.md", render(result))
    print(result.summary_line())
    return result.exit_code
