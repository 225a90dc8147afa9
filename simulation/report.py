"""Outputs of the simulation study under ``reports/simulation/``: the mean-estimate table and the
frequency table (Markdown, LaTeX booktabs, CSV) side by side with the paper's printed values and
the Monte Carlo standard error of every cell, and the figure of the frequency against n.

The paper's printed values come from ``simulation/data/paper_simulation.json`` (transcribed once
from the LaTeX source) and are only compared against, never used to compute anything. The exact
values of the mean-estimate table come from the exact engine (:func:`fstheory.engine.evaluate.evaluate`).

A printed frequency p is *reproduced* (at z combined standard errors, z = 2 in the frequency tables,
2 and 3 in the reproduction account) when |f - p| <= z sqrt(se_f^2 + se_p^2), with
se_f = sqrt(f(1-f)/reps) ours and se_p = sqrt(p(1-p)/5000) the paper's own Monte Carlo error
(5000 samples); when both are 0 or 1 this asks for equality.

The reproduction account (:func:`write_reproduction`) compares the readings of the
class-conditional histogram that the paper leaves open (``per-class``: each class on its own
range; ``pooled``: the whole sample's range, both with ceil(sqrt(n_c)) bins), and separates the
cells *decided by the X / 3X+1 tie*: X and 3X+1 get identical bin counts, so which of them is
selected first is a floating-point coin flip; a cell is tie-decided when breaking the exact ties
by the lower index (``ties="relative"``, X always first) changes its frequency. A printed mean estimate is reproduced
when it is within 2 sqrt(2) se of our mean (the paper's mean over 5000 samples has about our
standard error, which it does not print).
"""

from __future__ import annotations

import csv
import json
import math
from importlib import resources
from pathlib import Path
from typing import Sequence

from fstheory.parallel import Progress
from fstheory.reports.atomic import staged_output
from fstheory.simulation.study import (
    MEAN_QUANTITIES,
    PAPER_SIZES,
    MeanEstimates,
    StudyResult,
    mean_estimates,
    run_study,
)

__all__ = [
    "paper_values",
    "frequency_comparison",
    "write_frequency_table",
    "write_all_frequencies",
    "write_mean_table",
    "write_figure",
    "reproduce",
    "write_reproduction",
    "FIGURE_METHODS",
    "READINGS",
]

#: The readings of the class-conditional histogram compared in the reproduction account.
READINGS = {"per-class": {"conditional": "per-class"}, "pooled": {"conditional": "pooled"}}

#: The three methods of the paper's figure (MIFS with beta = 1, mRMR, maxMIFS).
FIGURE_METHODS = (("mifs", 1.0), ("mrmr", None), ("maxmifs", None))

_SCENARIO_TITLE = {"uniform": "Scenario I", "normal": "Scenario II"}


def paper_values() -> dict:
    """The printed values of Section 8 (comparison only)."""
    text = resources.files("fstheory.simulation.data").joinpath("paper_simulation.json").read_text("utf-8")
    return json.loads(text)


def _method_label(method: str, beta) -> str:
    from fstheory.orderings.methods import get_method

    d = get_method(method).display
    return d if beta is None else f"{d} (β={beta:g})"


def _method_tex(method: str, beta) -> str:
    from fstheory.orderings.methods import get_method

    d = get_method(method).display
    return d if beta is None else f"{d} ($\\beta={beta:g}$)"


def _reproduced(f: float, se: float, p: float, paper_reps: int = 5000, z: float = 2) -> bool:
    se_p = math.sqrt(p * (1 - p) / paper_reps)
    return abs(f - p) <= z * math.hypot(se, se_p) + 1e-12


def frequency_comparison(result: StudyResult, paper: dict | None = None) -> list[dict]:
    """One record per printed cell of the paper's frequency table (n = 5000)."""
    paper = paper or paper_values()
    table = paper["frequency"]
    n = table["n"]
    out = []
    for prow in table["rows"]:
        for (scenario, k), p in zip(table["columns"], prow["values"]):
            try:
                r = result.frequency(scenario, k, n, prow["method"], prow["beta"])
            except KeyError:
                continue
            out.append({
                "method": prow["method"], "beta": prow["beta"], "scenario": scenario, "k": k, "n": n,
                "paper": p, "frequency": r["frequency"], "se": r["se"],
                "paper_se": math.sqrt(p * (1 - p) / 5000),
                "reproduced": _reproduced(r["frequency"], r["se"], p),
                "within_3se": _reproduced(r["frequency"], r["se"], p, z=3),
            })
    return out


def _fmt(x: float, digits: int = 4) -> str:
    return f"{x:.{digits}f}"


def _fmt_se(x: float) -> str:
    """A standard error with two significant digits (0 stays 0)."""
    return "0" if x == 0 else f"{x:.2g}"


def write_frequency_table(result: StudyResult, out: Path, stem: str = "frequency") -> dict:
    """The frequency table at n = 5000 next to the printed one: ``<stem>.md/.tex/.csv``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cmp = frequency_comparison(result)
    cols = paper_values()["frequency"]["columns"]
    rows: dict = {}
    for c in cmp:
        rows.setdefault((c["method"], c["beta"]), {})[(c["scenario"], c["k"])] = c
    reps = result.meta.get("reps")
    ok = sum(c["reproduced"] for c in cmp)

    head = ["Method"]
    for s, k in cols:
        head += [f"{_SCENARIO_TITLE.get(s, s)} k={k}: paper", "ours", "SE", ""]
    md = [
        f"Relative frequency with which the first two selected features form a relevance-optimal "
        f"pair, n = 5000, {reps} replications (seed {result.meta.get('seed')}). "
        f"✓: within 2 combined Monte Carlo standard errors of the printed value. "
        f"{ok} of {len(cmp)} printed cells reproduced.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join(["---"] + ["---:", "---:", "---:", ":-:"] * len(cols)) + "|",
    ]
    for (method, beta), cells in rows.items():
        line = [_method_label(method, beta)]
        for s, k in cols:
            c = cells.get((s, k))
            if c is None:
                line += ["", "", "", ""]
            else:
                line += [_fmt(c["paper"]), _fmt(c["frequency"]), _fmt(c["se"]), "✓" if c["reproduced"] else "✗"]
        md.append("| " + " | ".join(line) + " |")
    (out / f"{stem}.md").write_text("\n".join(md) + "\n", encoding="utf-8")

    tex = [
        "% Generated by fstheory.simulation.report.write_frequency_table; paper values for comparison only.",
        "\\begin{tabular}{l" + "rrr" * len(cols) + "}",
        "\\toprule",
        " & " + " & ".join(f"\\multicolumn{{3}}{{c}}{{{_SCENARIO_TITLE.get(s, s)}, $k={k}$}}" for s, k in cols) + " \\\\",
        " ".join(f"\\cmidrule(lr){{{2 + 3 * i}-{4 + 3 * i}}}" for i in range(len(cols))),
        "Method & " + " & ".join(["paper & ours & SE"] * len(cols)) + " \\\\",
        "\\midrule",
    ]
    for (method, beta), cells in rows.items():
        parts = [_method_tex(method, beta)]
        for s, k in cols:
            c = cells.get((s, k))
            if c is None:
                parts += ["", "", ""]
            else:
                mark = "" if c["reproduced"] else "$^\\dagger$"
                parts += [_fmt(c["paper"]), _fmt(c["frequency"]) + mark, _fmt(c["se"])]
        tex.append(" & ".join(parts) + " \\\\")
    tex += ["\\bottomrule", "\\end{tabular}",
            "% dagger: not within 2 combined Monte Carlo standard errors of the printed value"]
    (out / f"{stem}.tex").write_text("\n".join(tex) + "\n", encoding="utf-8")

    with open(out / f"{stem}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["method", "beta", "scenario", "k", "n", "paper", "frequency", "se", "paper_se", "reproduced"])
        for c in cmp:
            w.writerow([c["method"], "" if c["beta"] is None else c["beta"], c["scenario"], c["k"], c["n"],
                        c["paper"], repr(c["frequency"]), repr(c["se"]), repr(c["paper_se"]), int(c["reproduced"])])
    return {"md": out / f"{stem}.md", "tex": out / f"{stem}.tex", "csv": out / f"{stem}.csv",
            "reproduced": ok, "cells": len(cmp)}


def write_all_frequencies(result: StudyResult, out: Path, stem: str = "frequency_all") -> Path:
    """Every (scenario, k, n, method row) of the study as CSV (the data of the figure)."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{stem}.csv"
    with open(path, "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["scenario", "k", "n", "method", "beta", "frequency", "se", "hits", "reps"])
        for r in result.rows:
            w.writerow([r["scenario"], r["k"], r["n"], r["method"], "" if r["beta"] is None else r["beta"],
                        repr(r["frequency"]), repr(r["se"]), r["hits"], r["reps"]])
    return path


def _exact_means(meta: dict) -> list[float]:
    from fstheory.engine.evaluate import evaluate
    from fstheory.scenarios.registry import get_scenario

    v = evaluate(get_scenario(meta["scenario"]).bind(k=repr(meta["k"])), digits=15)
    out = []
    for q in MEAN_QUANTITIES:
        x = v.mi_c(q[1]) if q[0] == "class" else v.mi(q[1], q[2])
        out.append(float(x.value) if x.is_finite else math.inf)
    return out


def write_mean_table(estimates: Sequence[tuple[str, MeanEstimates]], out: Path, stem: str = "mean_estimates") -> dict:
    """The mean-estimate table (paper Table "Estimated (mean of the) MI") with our means and
    standard errors (one row per labelled estimator setting), the printed rows and the exact
    values from the exact engine: ``<stem>.md/.tex/.csv``."""
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    paper = paper_values()["mean_estimates"]
    first = estimates[0][1]
    exact = _exact_means(first.meta)
    labels = first.labels
    # the printed columns: MI(C,V1)=MI(C,V2) share one value
    printed = {}
    for name, values in paper["rows"].items():
        row = [None] * len(MEAN_QUANTITIES)
        for value, quantities in zip(values, paper["quantities"]):
            for q in quantities:
                row[MEAN_QUANTITIES.index(tuple(q))] = value
        printed[name] = row

    ours_row = first.mean
    ours_se = first.se
    reproduced = [abs(m - p) <= 2 * math.sqrt(2) * s for m, p, s in zip(ours_row, printed["Our estimate"], ours_se)]

    head = ["Source"] + labels
    md = [
        f"Mean of the MI estimates, {_SCENARIO_TITLE.get(first.meta['scenario'], first.meta['scenario'])}, "
        f"k = {first.meta['k']}, n = {first.meta['n']}, {first.meta['reps']} replications "
        f"(seed {first.meta['seed']}); ours as mean ± Monte Carlo standard error. "
        f"Paper rows for comparison only; 'exact' from the exact engine.",
        "",
        "| " + " | ".join(head) + " |",
        "|" + "|".join(["---"] + ["---:"] * len(labels)) + "|",
    ]
    for name, row in printed.items():
        md.append("| paper: " + name + " | " + " | ".join(_fmt(v) for v in row) + " |")
    for label, est in estimates:
        md.append(f"| ours: {label} | " + " | ".join(f"{_fmt(m)} ± {_fmt_se(s)}" for m, s in zip(est.mean, est.se)) + " |")
    md.append("| exact | " + " | ".join(_fmt(v) for v in exact) + " |")
    md.append("| printed estimate reproduced (first 'ours' row) | " + " | ".join("✓" if r else "✗" for r in reproduced) + " |")
    (out / f"{stem}.md").write_text("\n".join(md) + "\n", encoding="utf-8")

    tex_labels = [lab.replace("MI", "\\mathrm{MI}") for lab in labels]
    tex = [
        "% Generated by fstheory.simulation.report.write_mean_table; paper values for comparison only.",
        "\\begin{tabular}{l" + "r" * len(labels) + "}",
        "\\toprule",
        "Source & " + " & ".join(f"${t}$" for t in tex_labels) + " \\\\",
        "\\midrule",
    ]
    for name, row in printed.items():
        tex.append(f"Paper: {name} & " + " & ".join(_fmt(v) for v in row) + " \\\\")
    for label, est in estimates:
        tex.append(f"Ours: {label} & " + " & ".join(f"{_fmt(m)} $\\pm$ {_fmt_se(s)}" for m, s in zip(est.mean, est.se)) + " \\\\")
    tex += ["Exact & " + " & ".join(_fmt(v) for v in exact) + " \\\\", "\\bottomrule", "\\end{tabular}"]
    (out / f"{stem}.tex").write_text("\n".join(tex) + "\n", encoding="utf-8")

    with open(out / f"{stem}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["source", "quantity", "value", "se"])
        for name, row in printed.items():
            for lab, v in zip(labels, row):
                w.writerow([f"paper: {name}", lab, v, ""])
        for label, est in estimates:
            for lab, m, s in zip(labels, est.mean, est.se):
                w.writerow([f"ours: {label}", lab, repr(m), repr(s)])
        for lab, v in zip(labels, exact):
            w.writerow(["exact", lab, repr(v), ""])
    return {"md": out / f"{stem}.md", "tex": out / f"{stem}.tex", "csv": out / f"{stem}.csv",
            "exact": exact, "reproduced": reproduced}


def write_figure(result: StudyResult, out: Path, stem: str = "frequency_vs_n") -> dict:
    """Frequency of a relevance-optimal first pair against n for MIFS (beta=1), mRMR and maxMIFS,
    one panel per scenario, both k (paper Figure "Estimated probability ..."): PNG and PDF.

    With one selected feature the three objectives are the same function, MI(C,Vi) - MI(Vi,Vs),
    so the three curves coincide; they are drawn with distinct markers and a small horizontal
    offset so that all three stay visible. Error bars: +-2 Monte Carlo standard errors.
    """
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    scenarios = list(dict.fromkeys(r["scenario"] for r in result.rows))
    ks = list(dict.fromkeys(r["k"] for r in result.rows))
    fig, axes = plt.subplots(1, len(scenarios), figsize=(5.2 * len(scenarios), 4.0), sharey=True, squeeze=False)
    markers = {"mifs": "o", "mrmr": "s", "maxmifs": "^"}
    offsets = {"mifs": 0.97, "mrmr": 1.0, "maxmifs": 1.03}
    styles = {k: ls for k, ls in zip(ks, ["-", "--", ":", "-."])}
    colors = {"mifs": "C0", "mrmr": "C1", "maxmifs": "C2"}
    for ax, s in zip(axes[0], scenarios):
        for k in ks:
            for method, beta in FIGURE_METHODS:
                pts = sorted((r["n"], r["frequency"], r["se"]) for r in result.rows
                             if r["scenario"] == s and r["k"] == k and r["method"] == method and r["beta"] == beta)
                if not pts:
                    continue
                ns, fs, ses = zip(*pts)
                ax.errorbar([n * offsets[method] for n in ns], fs, yerr=[2 * e for e in ses],
                            marker=markers[method], linestyle=styles[k], color=colors[method], markersize=4,
                            capsize=2, label=f"{_method_label(method, beta)}, k={k}")
        ax.set_xscale("log")
        ax.set_xlabel("sample size n")
        ax.set_title(_SCENARIO_TITLE.get(s, s))
        ax.set_ylim(-0.02, 1.02)
        ax.grid(True, which="both", alpha=0.3)
    axes[0][0].set_ylabel("frequency of a relevance-optimal first pair")
    axes[0][-1].legend(fontsize=7, loc="lower right")
    fig.suptitle(f"{result.meta.get('reps')} replications per n (seed {result.meta.get('seed')}); "
                 "the three methods coincide at the second step", fontsize=9)
    fig.tight_layout()
    paths = {}
    for ext in ("png", "pdf"):
        p = out / f"{stem}.{ext}"
        # fixed metadata so that a re-run with the same seed writes the same bytes
        meta = {"Software": None} if ext == "png" else {"CreationDate": None, "Producer": None, "Creator": None}
        fig.savefig(p, dpi=150, metadata=meta)
        paths[ext] = p
    plt.close(fig)
    return paths


def _cell_key(c: dict) -> tuple:
    return (c["method"], c["beta"], c["scenario"], c["k"])


def write_reproduction(readings: dict, tie_reference: StudyResult, out: Path, stem: str = "reproduction") -> dict:
    """The reproduction of the printed frequency table under each reading, at 2 and 3 combined
    standard errors, tie-decided cells counted apart, and the cells that no reading reproduces:
    ``<stem>.md`` and ``<stem>.csv``.

    ``readings`` maps a reading's name to its :class:`StudyResult` (n = 5000 at least);
    ``tie_reference`` is the first reading's study with ``ties="relative"``.
    """
    out = Path(out)
    out.mkdir(parents=True, exist_ok=True)
    cmps = {name: {_cell_key(c): c for c in frequency_comparison(res)} for name, res in readings.items()}
    first = next(iter(readings))
    ref = {_cell_key(c): c for c in frequency_comparison(tie_reference)}
    cells = list(cmps[first])
    tie = {key: ref[key]["frequency"] != cmps[first][key]["frequency"] for key in cells}
    n_tie = sum(tie.values())
    counts = {}
    for name, cmp in cmps.items():
        for z, field in ((2, "reproduced"), (3, "within_3se")):
            counts[(name, z, True)] = sum(cmp[k][field] for k in cells if tie[k])
            counts[(name, z, False)] = sum(cmp[k][field] for k in cells if not tie[k])
    nobody = [k for k in cells if not any(cmps[name][k]["reproduced"] for name in cmps)]
    meta = readings[first].meta
    md = [
        f"Reproduction of the paper's frequency table (n = 5000, {len(cells)} printed cells) by the "
        f"readings of the class-conditional histogram; {meta.get('reps')} replications, seed "
        f"{meta.get('seed')}, ties decided by exact float comparison. A cell is reproduced at z SE "
        f"when |ours - printed| <= z sqrt(se_ours^2 + se_paper^2). Tie-decided cells: the "
        f"{n_tie} cells whose frequency changes when the exact X / 3X+1 tie is broken by the lower "
        f"index instead of by rounding (a floating-point coin flip).",
        "",
        "| reading | tie-decided, 2 SE | tie-decided, 3 SE | other, 2 SE | other, 3 SE | all, 2 SE | all, 3 SE |",
        "|---|---:|---:|---:|---:|---:|---:|",
    ]
    n_other = len(cells) - n_tie
    for name in cmps:
        c2t, c3t, c2o, c3o = (counts[(name, 2, True)], counts[(name, 3, True)],
                              counts[(name, 2, False)], counts[(name, 3, False)])
        md.append(f"| {name} | {c2t} / {n_tie} | {c3t} / {n_tie} | {c2o} / {n_other} | {c3o} / {n_other} | "
                  f"{c2t + c2o} / {len(cells)} | {c3t + c3o} / {len(cells)} |")
    any2 = len(cells) - len(nobody)
    any3 = sum(any(cmps[name][k]["within_3se"] for name in cmps) for k in cells)
    md += [f"| any reading | | | | | {any2} / {len(cells)} | {any3} / {len(cells)} |", "",
           f"Cells that no reading reproduces within 2 SE ({len(nobody)}):", "",
           "| method | scenario | k | printed | " + " | ".join(cmps) + " | tie-decided | within 3 SE by a reading |",
           "|---|---|---:|---:|" + "---:|" * len(cmps) + ":-:|:-:|"]
    for k in nobody:
        method, beta, scenario, kk = k
        row = [_method_label(method, beta), _SCENARIO_TITLE.get(scenario, scenario), f"{kk:g}",
               _fmt(cmps[first][k]["paper"])]
        row += [f"{_fmt(cmps[name][k]['frequency'])} ± {_fmt_se(cmps[name][k]['se'])}" for name in cmps]
        row += ["yes" if tie[k] else "no", "yes" if any(cmps[name][k]["within_3se"] for name in cmps) else "no"]
        md.append("| " + " | ".join(row) + " |")
    (out / f"{stem}.md").write_text("\n".join(md) + "\n", encoding="utf-8")
    with open(out / f"{stem}.csv", "w", newline="", encoding="utf-8") as fh:
        w = csv.writer(fh)
        w.writerow(["method", "beta", "scenario", "k", "paper", "tie_decided"]
                   + [f"{name}_{f}" for name in cmps for f in ("frequency", "se", "within_2se", "within_3se")])
        for k in cells:
            c0 = cmps[first][k]
            line = [k[0], "" if k[1] is None else k[1], k[2], k[3], c0["paper"], int(tie[k])]
            for name in cmps:
                c = cmps[name][k]
                line += [repr(c["frequency"]), repr(c["se"]), int(c["reproduced"]), int(c["within_3se"])]
            w.writerow(line)
    return {"md": out / f"{stem}.md", "counts": counts, "tie_decided": n_tie, "cells": len(cells),
            "no_reading": nobody, "any_2se": any2, "any_3se": any3}


def reproduce(
    out: "str | Path" = "reports/simulation",
    seed: int = 0,
    reps: int = 5000,
    sizes: Sequence[int] = PAPER_SIZES,
    jobs: int = 1,
    scheduler=None,
    estimator=None,
    ties: str = "exact",
    progress: "Progress | None" = None,
    optimal_sets=None,
) -> dict:
    """Run the full study of Section 8 and write every output under ``out``.

    Writes ``frequency.{md,tex,csv}`` (n = 5000 next to the printed table), ``frequency_all.csv``
    (every n), ``mean_estimates.{md,tex,csv}``, ``frequency_vs_n.{png,pdf}``, ``study.json``
    (rows, selection diagnostics and every option), and the reproduction account over the
    readings of :data:`READINGS` (``frequency_pooled.*``, ``reproduction.{md,csv}``; the extra
    runs are at n = 5000 only, on the same draws). ``optimal_sets`` as in
    :func:`~fstheory.simulation.study.run_study` (default: derived by the engine). Everything is
    written at once when the study is done (:func:`fstheory.reports.atomic.staged_output`: an
    interrupted run leaves the previous outputs as they were; other files in ``out``, such as its
    README, are not touched); ``out`` is checked before anything is computed. Returns a summary
    dict.
    """
    with staged_output(out, last=("study.json",)) as stage:  # out checked before computing
        common = dict(seed=seed, reps=reps, jobs=jobs, scheduler=scheduler, optimal_sets=optimal_sets)
        result = run_study(sizes=sizes, estimator=estimator, ties=ties, progress=progress, **common)
        means = mean_estimates(reps=reps, seed=seed, jobs=jobs, scheduler=scheduler, estimator=estimator)
        freq = write_frequency_table(result, stage)
        write_all_frequencies(result, stage)
        mean = write_mean_table([("default options", means)], stage)
        fig = write_figure(result, stage)
        (stage / "study.json").write_text(json.dumps({**result.to_json(), "diagnostics": result.diagnostics,
                                                      "mean_estimates": means.__dict__}, indent=1), encoding="utf-8")
        base = dict(estimator or {})
        readings = {}
        for name, options in READINGS.items():
            if options["conditional"] == base.get("conditional", "per-class"):
                readings[name] = result  # the main study already is this reading
            else:
                readings[name] = run_study(sizes=(5000,), estimator={**base, **options}, ties=ties, **common)
                write_frequency_table(readings[name], stage, stem=f"frequency_{name}")
        first = next(iter(READINGS))
        tie_ref = run_study(sizes=(5000,), estimator={**base, **READINGS[first]}, ties="relative", **common)
        rep = write_reproduction(readings, tie_ref, stage)

    def placed(files: dict) -> dict:  # the staged paths, as they are now under out
        return {k: Path(out) / v.relative_to(stage) if isinstance(v, Path) else v for k, v in files.items()}

    return {"frequency": placed(freq), "mean": placed(mean), "figure": placed(fig), "out": str(out),
            "reproduced": freq["reproduced"], "cells": freq["cells"], "reproduction": placed(rep)}
