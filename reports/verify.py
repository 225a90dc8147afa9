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
"""

from __future__ import annotations

from pathlib import Path

from fstheory.reports import paper_data
from fstheory.reports.compute import PointStore
from fstheory.reports.render import write_text
from fstheory.scenarios.registry import get_scenario
from fstheory.reports.cell_checks import (CHECK_POINTS, REFERENCE_PATH, classify_decimal,
                                          general_cell, mi_cell, numeric_cell, ordering_row)
from fstheory.reports.verdicts import (CLASSES, ErrataEntry, RowReport, Verdict,
                                       VerificationResult, VerifyError, check_documented,
                                       parse_errata)
from fstheory.reports.verification_report import render

__all__ = [
    "CLASSES", "CHECK_POINTS", "MIN_DIGITS", "ERRATA_PATH", "REFERENCE_PATH", "Verdict", "RowReport",
    "ErrataEntry", "VerificationResult", "verify", "parse_errata", "classify_decimal", "main",
]

#: where the documented disagreements live (hand-written)
ERRATA_PATH = Path(__file__).parent / "errata.md"
#: the fewest working digits that tell a rounding slip from an erratum
MIN_DIGITS = 10


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
            v = numeric_cell(cell, scenario, digits, store)
            numeric[cell.cell_id] = v
        elif cell.table == "mi_features":
            v = mi_cell(cell, scenario, digits, store)
        else:
            v = general_cell(cell, scenario, digits, store)
        verdicts.append(v)
    rows = [ordering_row(r, digits, numeric, store) for r in tables.orderings]
    for r in rows:
        verdicts += r.verdicts
    expected = len(tables.cells()) + sum(len(r.printed) for r in tables.orderings)
    if len(verdicts) != expected:  # every printed cell gets exactly one verdict
        raise AssertionError(f"{len(verdicts)} verdicts for {expected} printed cells")
    result = VerificationResult(verdicts, rows, errata, digits, tables)
    check_documented(result)
    return result


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
