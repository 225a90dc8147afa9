"""Regenerate every theoretical table of the paper from the engine: ``fstheory tables``.

Under an output directory (default ``reports/``), for the chosen scenarios (default: every
registered one: the paper's ``uniform`` and ``normal``, then Scenario III ``laplace``):

* ``objective_table.{md,tex,csv,json}`` -- the methods' objectives from the method registry;
* ``general_<scenario>.{md,tex,csv,json}`` -- h(V) and MI(C_k, V) for general parameters;
* ``mi_features_<scenario>.{md,tex,csv,json}`` -- MI(V_i, V_j), symbolic and at the defaults;
* ``numeric_table.{md,tex,csv,json}`` -- h and MI(C_k, .) at the defaults, k = 0.2, 0.8;
* ``orderings_<scenario>.{md,tex,csv,json}`` -- every (method, beta) row, k = 0.2, 0.8;
* ``joint_<scenario>.{md,csv,json}`` -- H(C), MI(C;{Vi,Vj}), MI(C;Vi|Vj), MI(Vi;Vj|C),
  H(Vi,Vj,C), k = 0.2, 0.8;
* ``orderings3d_<scenario>.{md,csv,json}`` -- the three-dimensional methods, every reading,
  with ties and stops explained;
* ``first_sets_<scenario>.{md,csv,json}`` -- the derived relevance classes and
  relevance-optimal sets, and for every method its first set, whether it is relevance-optimal,
  whether it orders all features, and why;
* ``libraries_<scenario>.{md,csv,json}`` -- the methods of FEAST and praznik (MIM, CMI, NJMIM,
  JMI3, CondRed, beta-gamma at its named points): objectives, orderings, ties, stops and first
  sets;
* ``README.md`` -- the index: files, parameters, digits.

Output is deterministic: the same engine gives byte-identical files (no timestamps, fixed
ordering and number formatting). ``verification.md`` is written by :mod:`fstheory.reports.verify`;
``errata.md`` is written by hand.

Examples
--------
>>> import tempfile, pathlib
>>> from fstheory.scenarios.registry import get_scenario
>>> with tempfile.TemporaryDirectory() as d:
...     files = generate(d, digits=12, scenarios=["uniform"], ks=("0.2",))
...     sorted(p.name for p in files)[:3]
['README.md', 'first_sets_uniform.csv', 'first_sets_uniform.json']
"""

from __future__ import annotations

import sys
from pathlib import Path

from fstheory.orderings.objective_table import default_methods, latex_table, markdown_table
from fstheory.reports import first_set_tables as ft
from fstheory.reports import general_tables as gt
from fstheory.reports import joint_tables as jt
from fstheory.reports import library_tables as lt
from fstheory.reports import mi_tables as mt
from fstheory.reports import ordering3d_tables as o3
from fstheory.reports import numeric_tables as nt
from fstheory.reports import ordering_tables as ot
from fstheory.reports.atomic import staged_output
from fstheory.reports.compute import K_VALUES, PointStore
from fstheory.reports.render import csv_text, json_text, write_text
from fstheory.scenarios.declaration import ParameterError, Scenario
from fstheory.scenarios.registry import get_scenario

__all__ = ["PAPER_SCENARIOS", "DEFAULT_OUT", "generate", "resolve_scenarios", "main"]

#: the scenarios the paper prints (its tables are compared by fstheory.reports.verify)
PAPER_SCENARIOS = ("uniform", "normal")
#: the default output directory: this package's own directory (reports/ in the repository)
DEFAULT_OUT = Path(__file__).parent


def resolve_scenarios(scenarios=None) -> list[Scenario]:
    """Scenario objects from names (registry) or objects; default: every registered scenario
    (the paper's two, then Scenario III and any other registered one)."""
    from fstheory.scenarios.registry import scenario_names

    out = []
    for s in scenarios or scenario_names():
        out.append(s if isinstance(s, Scenario) else get_scenario(s))
    names = [s.name for s in out]
    if len(set(names)) != len(names):
        raise ParameterError(f"scenario listed twice: {', '.join(names)}")
    return out


def _objective_files(out: Path) -> list[Path]:
    rows = []
    for m in default_methods():
        for reading, r in m.distinct_readings():
            rows.append({"method": m.key, "display": m.display, "citation": m.citation,
                         "has_beta": m.has_beta, "reading": reading,
                         "default": reading == m.default_reading or not m.readings_differ,
                         "source": r.source, "plain": r.plain, "latex": r.latex})
    md = ("# Objective functions (from the method registry)\n\n"
          "Each method selects the candidate V_i in F maximising the expression "
          "(`orderings/methods.py`); where the paper's table and text write a method differently, "
          "both readings are listed and the default is marked; the three-dimensional methods list "
          "their original definition and their named rewrites (see `docs/orderings.md`).\n\n"
          + markdown_table())
    csv_rows = [[r["method"], r["display"], r["reading"], "yes" if r["default"] else "no",
                 r["source"], r["plain"], r["latex"]] for r in rows]
    return [
        write_text(out / "objective_table.md", md),
        write_text(out / "objective_table.tex", "% requires \\usepackage{booktabs,amsmath}\n"
                   + latex_table()),
        write_text(out / "objective_table.csv", csv_text(
            ["method", "display", "reading", "default", "source", "objective", "latex"], csv_rows)),
        write_text(out / "objective_table.json", json_text(rows)),
    ]


def _four(out: Path, stem: str, md: str, tex: str, csv: str, js: str) -> list[Path]:
    return [write_text(out / f"{stem}.md", md), write_text(out / f"{stem}.tex", tex),
            write_text(out / f"{stem}.csv", csv), write_text(out / f"{stem}.json", js)]


def _three(out: Path, stem: str, md: str, csv: str, js: str) -> list[Path]:
    return [write_text(out / f"{stem}.md", md), write_text(out / f"{stem}.csv", csv),
            write_text(out / f"{stem}.json", js)]


def _readme(out: Path, scenarios: list[Scenario], digits: int, ks) -> Path:
    lines = [
        "# Reproduced tables",
        "",
        "Every theoretical table of Pascoal et al., *Theoretical Evaluation of Feature Selection "
        "Methods based on Mutual Information*, regenerated from the engine (nothing transcribed), "
        "each as Markdown (to read), LaTeX (booktabs, to paste; needs `booktabs` and `amsmath`) "
        "and CSV/JSON (for other tools).",
        "",
        "Regenerate: `make reproduce-tables` (or `fstheory tables --out reports --digits "
        f"{digits}` then `fstheory verify --out reports`).",
        "",
        "## Parameters and precision",
        "",
        f"- Values computed to {digits} significant digits (`--digits`); Markdown and LaTeX "
        "numeric tables show 4 decimals as the paper does, CSV/JSON the full digits.",
        f"- Class weights k = {', '.join(ks)} (C_k = 1{{X + kY >= 0}}).",
    ]
    for s in scenarios:
        params = ", ".join(f"{p.name}={p.default}" for p in s.parameters if p.default is not None)
        lines.append(f"- `{s.name}` -- {s.title}: {params}.")
    lines += [
        "- Orderings: each method's default reading (`docs/orderings.md`), beta = 0 evaluated as "
        "written (0 * inf is indeterminate), ties to the lower feature index.",
        "",
        "## Files",
        "",
        "| Table | Markdown | LaTeX | CSV | JSON |",
        "|---|---|---|---|---|",
    ]

    def row(title, stem, tex=True):
        latex = f"[{stem}.tex]({stem}.tex)" if tex else "-"
        return (f"| {title} | [{stem}.md]({stem}.md) | {latex} | [{stem}.csv]({stem}.csv) | "
                f"[{stem}.json]({stem}.json) |")

    def per_scenario(title, prefix, tex=True, only=None):
        for s in (scenarios if only is None else only):
            lines.append(row(f"{title}, {s.title.split(':')[0]}", f"{prefix}_{s.name}", tex))

    lines.append(row("Objective functions (Section 4)", "objective_table"))
    per_scenario("General expressions", "general")
    per_scenario("MI between features", "mi_features")
    lines.append(row("Entropy and MI with the class (numeric)", "numeric_table"))
    per_scenario("Feature selection ordering", "orderings")
    joint = _joint_chosen(scenarios)
    per_scenario("Joint and conditional MI", "joint", tex=False, only=joint)
    per_scenario("Three-dimensional methods, ordering", "orderings3d", tex=False, only=joint)
    per_scenario("Relevance and first selected sets (every method)", "first_sets", tex=False,
                 only=joint)
    per_scenario("Methods of FEAST and praznik, orderings and first sets", "libraries", tex=False,
                 only=joint)
    lines += [
        "",
        "The joint tables, the three-dimensional orderings, the first-set table and the table of "
        "the methods of FEAST and praznik go beyond the paper (its future work), for the paper's "
        "scenarios and the XOR rule: values the engine "
        "does not reach are printed 'not computed' with the reason, and an ordering that needs "
        "one stops there as 'undecided' (`docs/orderings.md`).",
    ]
    lines += [
        "",
        "## Comparison with the paper",
        "",
        "- [verification.md](verification.md): every printed cell of the paper's numeric, MI, "
        "general-expression and ordering tables (transcribed once in "
        "[data/paper_tables.json](data/paper_tables.json)) next to the reproduced value, classified "
        "as match, rounding slip, erratum, label typo or ordering disagreement "
        "(`fstheory verify`).",
        "- [errata.md](errata.md): each disagreement with the paper, its exact value and a short "
        "derivation.",
        "",
        "The comparison applies to the paper's scenarios (`uniform` = Scenario I, `normal` = "
        "Scenario II) only.",
    ]
    return write_text(out / "README.md", "\n".join(lines))


def generate(out=None, digits: int = 30, scenarios=None, ks=K_VALUES, progress=None,
             jobs: int = 1, store: PointStore | None = None) -> list[Path]:
    """Write every table under ``out`` (default: :data:`DEFAULT_OUT`); return the files written.

    The files are computed into a staging directory and moved into place only when all are
    written, the README last (:func:`fstheory.reports.atomic.staged_output`): a failed or
    interrupted run leaves the previous tables as they were.

    Parameters
    ----------
    out : path, optional
        Output directory (created if missing; its parent must exist).
    digits : int
        Significant digits of the values (1-100).
    scenarios : list of names or Scenario objects, optional
        Default: every registered scenario.
    progress : callable, optional
        Called with the name of each table group before it is computed (the CLI prints it on
        stderr: the joint tables take minutes).
    jobs : int
        Worker processes computing the values of the scenarios' points (joblib; default 1: in
        this process). The files are the same whatever the number: each point is computed whole
        in one process, and the tables are written here in a fixed order.
    store : fstheory.reports.compute.PointStore, optional
        Where the values of the points are kept (default: a new store, for this call only);
        ``fstheory tables --verify`` passes the same store to the verification.

    Raises
    ------
    fstheory.reports.atomic.OutputError
        If ``out`` cannot be written (checked before anything is computed).
    """
    if not isinstance(digits, int) or not 1 <= digits <= 100:
        raise ParameterError(f"parameter 'digits' must be an integer in [1, 100] (got {digits!r})")
    if not isinstance(jobs, int) or isinstance(jobs, bool) or jobs < 1:
        raise ParameterError(f"parameter 'jobs' must be a positive integer (got {jobs!r})")
    chosen = resolve_scenarios(scenarios)
    out = DEFAULT_OUT if out is None else out
    with staged_output(out) as stage:
        staged = _write_tables(stage, digits, chosen, ks, progress or (lambda name: None), jobs,
                               PointStore() if store is None else store)
    return [Path(out) / p.relative_to(stage) for p in staged]


#: scenarios whose joint quantities, 3-D orderings and first sets are tabulated: the paper's three
#: and the XOR rule (complementarity: the pair determines the class, each feature alone nothing).
#: The other shipped examples have joint quantities that need nested numerical integrals of
#: about a minute each at 30 digits; ``fstheory values --joint`` gives them on request.
JOINT_SCENARIOS = ("uniform", "normal", "laplace", "xor")


#: the tables of a scenario with joint values, built by the worker that computes its points
_JOINT_TABLES = (jt.joint_table, o3.ordering3d_table, ft.first_set_table, lt.library_table)


def _joint_chosen(chosen: list[Scenario]) -> list[Scenario]:
    return [s for s in chosen if s.name in JOINT_SCENARIOS]


def _write_tables(out: Path, digits: int, chosen: list[Scenario], ks, progress, jobs,
                  store: PointStore) -> list[Path]:
    files = _objective_files(out)
    # then the values, the slowest points (joint values, relevance) ahead
    joint = _joint_chosen(chosen)
    points = [(s, {"k": k}, True) for s in joint for k in ks]
    points += [(s, {"k": k}, False) for s in chosen if s.name not in JOINT_SCENARIOS for k in ks]
    progress(f"values of {len(chosen)} scenarios at k = {', '.join(ks)}"
             + (f" ({jobs} worker processes)" if jobs > 1 else ""))
    store.prefetch(points, digits, jobs, builders=_JOINT_TABLES)
    for s in chosen:
        progress(f"general_{s.name}")
        t = gt.general_table(s)
        files += _four(out, f"general_{s.name}", gt.general_markdown(t), gt.general_latex(t),
                       gt.general_csv(t), gt.general_json(t))
    for s in chosen:
        progress(f"mi_features_{s.name}")
        t = mt.mi_table(s, {"k": ks[0]}, digits, store=store)
        files += _four(out, f"mi_features_{s.name}", mt.mi_markdown(t), mt.mi_latex(t),
                       mt.mi_csv(t), mt.mi_json(t))
    progress("numeric_table")
    t = nt.numeric_table(chosen, digits, ks, store=store)
    files += _four(out, "numeric_table", nt.numeric_markdown(t), nt.numeric_latex(t),
                   nt.numeric_csv(t), nt.numeric_json(t))
    for s in chosen:
        progress(f"orderings_{s.name}")
        t = ot.ordering_table(s, digits, ks, store=store)
        files += _four(out, f"orderings_{s.name}", ot.ordering_markdown(t), ot.ordering_latex(t),
                       ot.ordering_csv(t), ot.ordering_json(t))
    for s in _joint_chosen(chosen):
        progress(f"joint_{s.name}, orderings3d_{s.name}, first_sets_{s.name}")
        t = store.table(jt.joint_table, s, digits, ks)
        files += _three(out, f"joint_{s.name}", jt.joint_markdown(t), jt.joint_csv(t),
                        jt.joint_json(t))
        t = store.table(o3.ordering3d_table, s, digits, ks)
        files += _three(out, f"orderings3d_{s.name}", o3.ordering3d_markdown(t),
                        o3.ordering3d_csv(t), o3.ordering3d_json(t))
        t = store.table(ft.first_set_table, s, digits, ks)
        files += _three(out, f"first_sets_{s.name}", ft.first_set_markdown(t), ft.first_set_csv(t),
                        ft.first_set_json(t))
        progress(f"libraries_{s.name}")
        t = store.table(lt.library_table, s, digits, ks)
        files += _three(out, f"libraries_{s.name}", lt.library_markdown(t), lt.library_csv(t),
                        lt.library_json(t))
    files.append(_readme(out, chosen, digits, ks))
    return files


def main(out=None, digits: int = 30, scenarios=None, jobs: int = 1,
         store: PointStore | None = None) -> int:
    """What ``fstheory tables`` runs: generate (each table group named on stderr as it starts;
    the values kept in ``store``), print one summary line; exit code 0."""

    def progress(name):
        print(f"fstheory tables: {name}", file=sys.stderr, flush=True)

    files = generate(out, digits, scenarios, progress=progress, jobs=jobs, store=store)
    out_dir = Path(out) if out is not None else DEFAULT_OUT
    print(f"fstheory tables: wrote {len(files)} files under {out_dir} ({digits} digits; "
          f"scenarios {', '.join(s.name for s in resolve_scenarios(scenarios))})")
    return 0


if __name__ == "__main__":  # pragma: no cover - convenience
    sys.exit(main(*(sys.argv[1:2] or [None])))


