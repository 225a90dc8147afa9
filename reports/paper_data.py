"""The paper's printed tables (``reports/data/paper_tables.json``), loaded for comparison only.

The data file is the one transcription of the printed theoretical tables of Pascoal et al.
(Sections 6-7): the numeric table (entropies and MI with the class at a=3, b=1, d=2, delta=1/2,
k = 0.2, 0.8), the two MI-between-features tables, the two general-expression tables and the two
ordering tables. Nothing read here may flow into a result: it is what :mod:`fstheory.reports.verify` and
the tests compare the engine's derived values against.

Each printed value cell has a ``form`` (its machine-readable reading):

* ``{"decimal": "0.5932"}`` -- rounded to the decimals shown;
* ``{"expr": "(1-log(2))/2"}`` -- an exact claim in the grammar of :mod:`fstheory.scenarios.grammar`
  (``"+inf"`` allowed; a printed ``0`` is an exact zero);
* ``{"ref": "h(V1)"}`` -- "same as that cell";
* ``{"sn_product": {...}}`` -- the Scenario II skew-normal expectation as printed;
* ``{"feature": ..., "law": ...}`` / ``{"same_law_as": ...}`` -- a feature description.

Examples
--------
>>> t = load()
>>> len(t.cells("numeric")), len(t.cells("mi_features")), len(t.cells("general"))
(80, 110, 60)
>>> len(t.orderings), sum(len(r.printed) for r in t.orderings)
(41, 410)
>>> len(t.ordering_rows_by_beta())
56
>>> t.cell("numeric", "normal", "V4", "mi_c:0.2").printed
'0.0947'
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

__all__ = ["DATA_PATH", "PrintedCell", "PrintedOrderingRow", "PaperTables", "load", "FORM_KEYS"]

DATA_PATH = Path(__file__).parent / "data" / "paper_tables.json"

#: the machine-readable readings a printed cell may have (see the module docstring)
FORM_KEYS = ("decimal", "expr", "ref", "sn_product", "law", "feature", "same_law_as")
_VALUE_FORMS = ("decimal", "expr", "ref", "sn_product")
_DESCRIPTION_FORMS = ("law", "feature", "same_law_as")

#: the value tables and their display names
TABLES = {
    "numeric": "Entropy and MI with the class (numeric)",
    "mi_features": "MI between features",
    "general": "General expressions",
}


class PaperDataError(ValueError):
    """The data file is malformed (a transcription mistake, not a user error)."""


@dataclass(frozen=True)
class PrintedCell:
    """One printed cell of a value table."""

    table: str  # "numeric" | "mi_features" | "general"
    table_id: str  # the paper's LaTeX label
    scenario: str
    row: str  # "V1".."V10"
    column: str  # numeric: dist, h, mi_c:0.2, mi_c:0.8; mi_features: "V1".."V10"; general: description, h, mi_c
    printed: str
    form: dict

    @property
    def cell_id(self) -> str:
        """A stable identifier, e.g. 'numeric:normal:V4:mi_c:0.2' (used in reports/errata.md)."""
        return f"{self.table}:{self.scenario}:{self.row}:{self.column}"

    @property
    def row_index(self) -> int:
        """0-based feature index of the row."""
        return int(self.row[1:]) - 1

    @property
    def kind(self) -> str:
        """The form's key ('decimal', 'expr', ...; 'description' for a feature description)."""
        for key in _VALUE_FORMS:
            if key in self.form:
                return key
        return "description"


@dataclass(frozen=True)
class PrintedOrderingRow:
    """One printed row of an ordering table (a row printed for several betas is one row)."""

    table_id: str
    part: str  # "a" (k = 0.2) or "b" (k = 0.8)
    scenario: str
    k: str
    heading: str  # as printed, e.g. "MIFS-U (beta=.4,.7,1)"
    bold: bool
    method: str  # registry name
    betas: tuple | None  # e.g. ("0.4", "0.7", "1"), None for methods without beta
    printed: tuple  # labels, '-' where nothing was selected

    def cell_id(self, position: int) -> str:
        """'orderings:uniform:k=0.8:NMIFS:3' (position 1-based)."""
        return f"orderings:{self.scenario}:k={self.k}:{self.heading}:{position}"

    @property
    def row_id(self) -> str:
        return f"orderings:{self.scenario}:k={self.k}:{self.heading}"


@dataclass(frozen=True)
class PaperTables:
    about: str
    parameters: dict  # scenario -> {name: decimal string}
    value_cells: tuple  # PrintedCell, file order
    orderings: tuple  # PrintedOrderingRow, file order
    table_ids: dict  # table -> scenario -> LaTeX label
    captions: dict  # table -> caption

    def cells(self, table: str | None = None, scenario: str | None = None) -> list[PrintedCell]:
        return [c for c in self.value_cells
                if (table is None or c.table == table) and (scenario is None or c.scenario == scenario)]

    def cell(self, table: str, scenario: str, row: str, column: str) -> PrintedCell:
        for c in self.value_cells:
            if (c.table, c.scenario, c.row, c.column) == (table, scenario, row, column):
                return c
        raise KeyError(f"no printed cell {table}:{scenario}:{row}:{column}")

    def scenarios(self) -> list[str]:
        """The scenarios the paper prints (registry names), in file order."""
        return list(self.parameters)

    def ordering_rows_by_beta(self) -> list[dict]:
        """One dict per (row, beta): scenario, k, method, beta (str or None), printed (list),
        heading, table -- the 56 (method, beta) rows of the two ordering tables."""
        out = []
        for r in self.orderings:
            for beta in r.betas or (None,):
                out.append({"table": f"{r.table_id} ({r.part})", "scenario": r.scenario, "k": r.k,
                            "method": r.method, "beta": beta, "heading": r.heading,
                            "printed": list(r.printed)})
        return out


def _check_form(where: str, form) -> None:
    if not isinstance(form, dict) or not form:
        raise PaperDataError(f"{where}: 'form' must be a non-empty object")
    unknown = set(form) - set(FORM_KEYS)
    if unknown:
        raise PaperDataError(f"{where}: unknown form key(s) {sorted(unknown)} (allowed: {FORM_KEYS})")
    values = [k for k in form if k in _VALUE_FORMS]
    if len(values) > 1 or (values and set(form) - set(values)):
        raise PaperDataError(f"{where}: a value form has exactly one key (got {sorted(form)})")


def _cells(data: dict, table: str) -> list[PrintedCell]:
    block = data[table]
    ids = block.get("tables") or {}
    out = []
    for n, c in enumerate(block["cells"]):
        where = f"{table} cell #{n + 1}"
        _check_form(where, c.get("form"))
        table_id = block.get("table") or ids[c["scenario"]]
        out.append(PrintedCell(table, table_id, c["scenario"], c["row"], c["column"], c["printed"],
                               c["form"]))
    seen = set()
    for c in out:
        if c.cell_id in seen:
            raise PaperDataError(f"duplicate printed cell {c.cell_id}")
        seen.add(c.cell_id)
    return out


@lru_cache(maxsize=4)
def load(path: str | None = None) -> PaperTables:
    """The printed tables (cached per path)."""
    data = json.loads(Path(path or DATA_PATH).read_text(encoding="utf-8"))
    cells = []
    for table in TABLES:
        cells += _cells(data, table)
    rows = []
    for r in data["orderings"]["rows"]:
        rows.append(PrintedOrderingRow(
            r["table"], r["part"], r["scenario"], r["k"], r["heading"], r["bold"], r["method"],
            None if r["betas"] is None else tuple(r["betas"]), tuple(r["printed"]),
        ))
    table_ids = {t: dict(data[t]["tables"]) if "tables" in data[t] else
                 {s: data[t]["table"] for s in data["parameters"]} for t in (*TABLES, "orderings")}
    captions = {t: data[t]["caption"] for t in (*TABLES, "orderings")}
    return PaperTables(data["about"], dict(data["parameters"]), tuple(cells), tuple(rows),
                       table_ids, captions)
