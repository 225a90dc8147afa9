"""``verification.md``: the verdicts of ``fstheory verify`` as a Markdown report."""

from __future__ import annotations

from fstheory.reports import paper_data
from fstheory.reports.render import md_table
from fstheory.reports.cell_checks import CHECK_POINTS, SHOW_DIGITS, params_text
from fstheory.reports.verdicts import VerificationResult, Verdict

__all__ = ["render"]

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
        + "; ".join(f"{s}: {params_text(p)}" for s, p in CHECK_POINTS.items()) + ".",
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
