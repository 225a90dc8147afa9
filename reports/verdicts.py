r"""The records of ``fstheory verify``: one :class:`Verdict` per printed cell, one
:class:`RowReport` per printed ordering row, the :class:`VerificationResult`, and the errata
file that documents each disagreement (its format: one ``### <ID> (<class>): <title>`` heading
per entry and a line ``Cells: `id`, `id` ...`` in it; :func:`parse_errata`,
:func:`check_documented`).

Examples
--------
>>> e = parse_errata("### E1 (erratum): a title\nCells: `numeric:normal:V4:mi_c:0.2`\n")
>>> e["E1"].klass, e["E1"].cells
('erratum', ('numeric:normal:V4:mi_c:0.2',))
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

from fstheory.reports import paper_data

__all__ = ["CLASSES", "VerifyError", "Verdict", "RowReport", "ErrataEntry", "VerificationResult",
           "parse_errata", "check_documented"]

CLASSES = ("match", "rounding slip", "erratum", "label typo", "ordering")

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


def check_documented(result: VerificationResult) -> None:
    """Fill ``result``'s undocumented, misclassified and stale lists from its errata (and mark
    each documented verdict with its entry)."""
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
