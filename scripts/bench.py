"""Wall-time benchmark of the table regeneration and of each CLI call (``make bench``).

Each command runs once in a fresh process (imports and caches cold, as a user meets them), with
the package already installed (the install is not timed). Printed as a table with the goal of
each line and the ratio to it (the goals: ``fstheory values`` under 10 s per call for the paper's
scenarios, under 60 s at 15 digits for every shipped scenario file; with ``--joint``, every joint
quantity of a 10-feature scenario, under 60 s; a one-parameter atlas of one method row under 60 s
at 20 digits, with its certificate (and one 3-D row, JMI on Scenario I, on the 12-point grid of
``make reproduce-atlas``); all of ``make reproduce-atlas`` under 15 min on 2 cores), the
ratio to the baseline ``fstheory values --scenario uniform`` of the same run, and the atlas lines
again as multiples of one ``fstheory order`` call measured in the same run. If
``scripts/bench_simulation.py`` exists it is run afterwards and its own output printed.

Then ``scripts/bench_selector.py`` (the selector against peer libraries) runs with the Python of
``$BENCH_PYTHON`` (``make bench`` sets it to the benchmark environment's, where the peers are
installed) or, without it, this one.

Commands that the CLI does not provide yet (e.g. ``tables`` or ``verify`` before they are wired)
are timed through their Python entry points instead, and the table says so.

Usage: python scripts/bench.py [--digits N]
"""

from __future__ import annotations

import argparse
import os
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def _cli() -> list[str]:
    exe = Path(sys.executable).with_name("fstheory")
    return [str(exe)] if exe.exists() else [sys.executable, "-m", "fstheory.cli"]


def _has_subcommand(name: str) -> bool:
    r = subprocess.run(_cli() + [name, "--help"], cwd=ROOT, capture_output=True, text=True)
    return r.returncode == 0


def _children_cpu() -> float:
    r = resource.getrusage(resource.RUSAGE_CHILDREN)
    return r.ru_utime + r.ru_stime


def _run(cmd: list[str]) -> tuple[float, int, str, float]:
    """(wall s, exit code, last line of stdout, CPU s of the command and its children)."""
    t0, c0 = time.perf_counter(), _children_cpu()
    r = subprocess.run(cmd, cwd=ROOT, capture_output=True, text=True)
    dt = time.perf_counter() - t0
    tail = (r.stdout.strip().splitlines() or [""])[-1][:90]
    return dt, r.returncode, tail, _children_cpu() - c0


def _python(code: str) -> list[str]:
    return [sys.executable, "-c", code]


PAIR_GENERIC = "MI(C;{Y^2,X-Y}), Scenario II, k = 0.37, 20 digits: generic nested quadrature"
PAIR_DIRECTIONS = "MI(C;{Y^2,X-Y}), Scenario II, k = 0.37, 20 digits: integral over directions"
_PAIR = ("import mpmath; from fstheory.scenarios.registry import get_scenario; "
         "from fstheory.engine.evaluate_joint import SetValues; "
         "from fstheory.theory.numeric import NumericRoute; "
         "b = get_scenario('normal').bind(k='0.37'); e = b.feature_exprs(); "
         "mpmath.mp.dps = 32; print(%s)")


REPRODUCE = "make reproduce-tables: fstheory tables --digits %d --jobs 2 --verify"
VERIFY_APART = "the same as two processes: fstheory tables --jobs 2, then fstheory verify"
TABLES_ONE = "fstheory tables --out TMP --digits %d --jobs 1"

NESTED_NEW = "certified routes (cubature, fibres): %s"
NESTED_OLD = "estimated nested quadrature (baseline): %s"
_NESTED = ("import mpmath, time, sympy as sp; from fstheory.theory import numeric; "
           "from fstheory.theory.laws import Exponential, Normal, Uniform; "
           "from fstheory.theory.rule import Rule; "
           "from fstheory.scenarios.scenario_file import load_scenario_file; "
           "X, Y = sp.symbols('X Y', real=True); "
           "old = %r == 'old'; ctx = numeric.estimated_nested() if old else __import__('contextlib')"
           ".nullcontext(); "
           "mpmath.mp.dps = 36\n"
           "with ctx:\n"
           "    try:\n"
           "        r = %s; print('certified' if r.certified else 'estimated', r.value)\n"
           "    except numeric.NumericUnsupported as e: print('not computed:', str(e)[-60:])")
_NESTED_CASES = [
    ("MI(C;{X,Y^2}) of threshold.toml, k = 0.3, 30 digits",
     "(lambda b: numeric.NumericRoute(b.laws(), b.class_rule()).mi_class_set("
     "tuple(b.feature_exprs()[i] for i in (0, 4))))(load_scenario_file("
     "'scenarios/threshold.toml').bind(k='0.3'))"),
    ("h(XY), X ~ Exp(1), Y ~ Unif(-1, 1), 30 digits",
     "numeric.NumericRoute({X: Exponential(1), Y: Uniform(-1, 1)}).entropy(X * Y)"),
    ("h(XY), X ~ Exp(1), Y ~ Exp(2), 30 digits",
     "numeric.NumericRoute({X: Exponential(1), Y: Exponential(2)}).entropy(X * Y)"),
    ("h(XY), X, Y ~ N(0, 1), 30 digits",
     "numeric.NumericRoute({X: Normal(0, 1), Y: Normal(0, 1)}).entropy(X * Y)"),
    ("MI(C,XY), C = 1{X - 1 + Y/2 >= 0}, 30 digits",
     "numeric.NumericRoute({X: Exponential(1), Y: Uniform(-1, 1)}, Rule(X - 1 + Y / 2))"
     ".mi_class(X * Y)"),
]


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--digits", type=int, default=30)
    ap.add_argument("--only", action="append", default=None,
                    help="run only the commands whose label contains this text (repeatable: "
                         "any of them)")
    args = ap.parse_args(argv)
    d = args.digits
    out = Path(tempfile.mkdtemp(prefix="fstheory-bench-"))
    cli = _cli()
    rows = []
    cpus = {}
    try:
        if _has_subcommand("tables"):
            tables = ("fstheory tables --out TMP --digits %d" % d,
                      cli + ["tables", "--out", str(out), "--digits", str(d)])
        else:
            tables = (f"fstheory.reports.tables.generate(TMP, {d}) [CLI 'tables' not wired]",
                      _python(f"from fstheory.reports.tables import main; main({str(out)!r}, {d})"))
        if _has_subcommand("verify"):
            verify = ("fstheory verify --out TMP", cli + ["verify", "--out", str(out)])
        else:
            verify = ("fstheory.reports.verify.main(TMP) [CLI 'verify' not wired]",
                      _python(f"import sys; from fstheory.reports.verify import main; "
                              f"sys.exit(main({str(out)!r}, {d}))"))
        one = out / "one-job"
        jobs = [
            # what make reproduce-tables runs after the install (goal: at most 30 s on 2 cores)
            (REPRODUCE % d,
             cli + ["tables", "--out", str(out / "make"), "--digits", str(d), "--jobs", "2",
                    "--verify"], 30.0),
            # its baseline: the verification in a second process, which computes its values again
            (VERIFY_APART,
             ["sh", "-c", " ".join(cli) + f" tables --out {out / 'apart'} --digits {d} --jobs 2 && "
              + " ".join(cli) + f" verify --out {out / 'apart'}"], None),
            # the same tables in one process: the baseline of the two workers
            (TABLES_ONE % d, cli + ["tables", "--out", str(one), "--digits", str(d), "--jobs", "1"],
             None),
            (tables[0] + " --jobs 2", tables[1] + ["--jobs", "2"], None),
            ("fstheory values --scenario uniform --k 0.2 --json",
             cli + ["values", "--scenario", "uniform", "--k", "0.2", "--json"], 10.0),
            ("fstheory values --scenario normal --k 0.2 --json",
             cli + ["values", "--scenario", "normal", "--k", "0.2", "--json"], 10.0),
            ("fstheory values --scenario normal --k 0.8 --json",
             cli + ["values", "--scenario", "normal", "--k", "0.8", "--json"], 10.0),
            # all joint quantities of a 10-feature paper scenario at 30 digits (goal: < 60 s);
            # until the engine's set routes merge, the pairs they would compute are "not computed"
            # every joint quantity of Scenarios I-III (goal: under 5 s each)
            ("fstheory values --scenario uniform --k 0.2 --joint --json",
             cli + ["values", "--scenario", "uniform", "--k", "0.2", "--joint", "--json"], 5.0),
            ("fstheory values --scenario normal --k 0.2 --joint --json",
             cli + ["values", "--scenario", "normal", "--k", "0.2", "--joint", "--json"], 5.0),
            ("fstheory values --scenario laplace --k 0.2 --joint --json",
             cli + ["values", "--scenario", "laplace", "--k", "0.2", "--joint", "--json"], 5.0),
            ("fstheory order --scenario normal --k 0.8 --method jmi --explain",
             cli + ["order", "--scenario", "normal", "--k", "0.8", "--method", "jmi", "--explain"],
             None),
            ("fstheory order --scenario uniform --k 0.8 --method nmifs --explain",
             cli + ["order", "--scenario", "uniform", "--k", "0.8", "--method", "nmifs", "--explain"],
             None),
            ("fstheory order --scenario normal --k 0.2 --method mifs-u --beta 0.7 --explain",
             cli + ["order", "--scenario", "normal", "--k", "0.2", "--method", "mifs-u",
                    "--beta", "0.7", "--explain"], None),
            (*verify, None),
            ("fstheory atlas --scenario uniform --method mifs-u --beta 0.7 --vary k",
             cli + ["atlas", "--scenario", "uniform", "--method", "mifs-u", "--beta", "0.7",
                    "--vary", "k"], 60.0),
            ("fstheory atlas --scenario normal --method mifs-u --beta 0.7 --vary k --grid 24",
             cli + ["atlas", "--scenario", "normal", "--method", "mifs-u", "--beta", "0.7",
                    "--vary", "k", "--grid", "24"], 60.0),
            # the row whose certificate needs the most cells (four crossings)
            ("fstheory atlas --scenario normal --method mifs-u --beta 0.4 --vary k --grid 24",
             cli + ["atlas", "--scenario", "normal", "--method", "mifs-u", "--beta", "0.4",
                    "--vary", "k", "--grid", "24"], 60.0),
            # a 3-D row on the grid of make reproduce-atlas (joint values at every sample point)
            ("fstheory atlas --scenario uniform --method jmi --vary k --grid 12",
             cli + ["atlas", "--scenario", "uniform", "--method", "jmi", "--vary", "k",
                    "--grid", "12"], 60.0),
            # the 3-D row whose certificate needs the most cells (DISR's pole at k = 0)
            ("fstheory atlas --scenario uniform --method disr --vary k --grid 12",
             cli + ["atlas", "--scenario", "uniform", "--method", "disr", "--vary", "k",
                    "--grid", "12"], 60.0),
            ("python -m fstheory.atlas.report TMP/atlas 2 3d (make reproduce-atlas)",
             [sys.executable, "-m", "fstheory.atlas.report", str(out / "atlas"), "2",
              "3d"],
             300.0),
            ("python -m fstheory.atlas.report TMP/atlas 2 3d=uniform (Scenario I's "
             "3-D rows of make reproduce-atlas-3d)",
             [sys.executable, "-m", "fstheory.atlas.report", str(out / "atlas"), "2",
              "3d=uniform"], None),
            # the pair that made 3-D rows slow, by both routes in the same run
            (PAIR_GENERIC, _python(_PAIR % "NumericRoute(b.laws(), b.class_rule()).mi_class_set("
                                   "(e[2], e[3]))"), None),
            (PAIR_DIRECTIONS, _python(_PAIR % "SetValues(b, 20).value((2, 3))"), None),
        ]
        # the certified routes over several coordinates against the estimated nested route on
        # the same quantity (goals: products in <= 5 s, every joint value of a file <= 10 s)
        for label, expr in _NESTED_CASES:
            # one-dimensional quantities of products (goal: 5 s each)
            goal = 5.0 if "XY" in label else None
            jobs.append((NESTED_NEW % label, _python(_NESTED % ("new", expr)), goal))
            jobs.append((NESTED_OLD % label, _python(_NESTED % ("old", expr)), None))
        # every joint quantity of each shipped scenario file (goal: at most 10 s per file)
        for name in ("threshold", "mixed", "three-variable", "xor", "circle", "laplace"):
            jobs.append((f"fstheory values --joint --digits 30 --k 0.3 --scenario-file "
                         f"scenarios/{name}.toml",
                         cli + ["values", "--joint", "--digits", "30", "--k", "0.3",
                                "--scenario-file", str(ROOT / "scenarios" / f"{name}.toml")],
                         10.0))
        # every shipped scenario file at 15 digits (goal: 60 s per call, 4 variables)
        for path in sorted((ROOT / "scenarios").glob("*.toml")):
            if path.stem in ("uniform", "normal"):
                continue
            jobs.append((f"fstheory values --scenario-file scenarios/{path.name} --k 0.2 "
                         f"--digits 15", cli + ["values", "--scenario-file", str(path), "--k", "0.2",
                                                "--digits", "15"], 60.0))
        if args.only:
            jobs = [j for j in jobs if any(o in j[0] for o in args.only)]
        for label, cmd, goal in jobs:
            dt, rc, tail, cpu = _run(cmd)
            rows.append((label, dt, rc, goal, tail))
            cpus[label] = cpu
    finally:
        shutil.rmtree(out, ignore_errors=True)

    w = max(len(r[0]) for r in rows)
    # fstheory values --scenario uniform: the baseline of this run (else the first command run)
    base_row = next((r for r in rows if r[0].startswith("fstheory values --scenario uniform")),
                    rows[0])
    base = base_row[1]
    print(f"{'command':<{w}}  {'wall s':>7}  {'cpu s':>7}  {'exit':>4}  {'goal s':>6}  "
          f"{'ratio':>5}  {'x base':>6}")
    print("-" * (w + 49))
    for label, dt, rc, goal, _ in rows:
        g = f"{goal:6.0f}" if goal else "     -"
        ratio = f"{dt / goal:5.2f}" if goal else "    -"
        print(f"{label:<{w}}  {dt:7.2f}  {cpus[label]:7.2f}  {rc:>4}  {g}  {ratio}  "
              f"{dt / base:6.2f}")
    print()
    print("ratio = wall time / goal (< 1 meets the goal); x base = wall time / that of "
          f"'{base_row[0]}' in the same run; cpu s = CPU time of the command and its worker "
          f"processes; one run each, fresh process, {d} digits for the tables; load average "
          f"{os.getloadavg()[0]:.1f} at the end (on {os.cpu_count()} cores).")
    base = next((r for r in rows if r[0].startswith("fstheory order --scenario normal")), None)
    if base is not None:
        print(f"baseline of this run: one 'fstheory order' on Scenario II = {base[1]:.2f} s; "
              "atlas lines in units of it:")
        for label, dt, _, _, _ in rows:
            if "atlas" in label:
                print(f"  {label}: {dt / base[1]:.1f} x")
    pair = {r[0]: r[1] for r in rows}
    tails = {r[0]: r[4] for r in rows}
    one, two = pair.get(TABLES_ONE % d), pair.get(tables[0] + " --jobs 2")
    if one and two:
        c1, c2 = cpus[TABLES_ONE % d], cpus[tables[0] + " --jobs 2"]
        print(f"fstheory tables: two worker processes take {two / one:.2f} x the wall time of "
              f"one and {c2 / c1:.2f} x its CPU time (the same tables, this run)")
    if REPRODUCE % d in pair and VERIFY_APART in pair:
        print(f"make reproduce-tables: one process takes {pair[REPRODUCE % d] / pair[VERIFY_APART]:.2f}"
              f" x the wall time and {cpus[REPRODUCE % d] / cpus[VERIFY_APART]:.2f} x the CPU time "
              "of the tables and the verification in two processes (this run)")
    for label, _ in _NESTED_CASES:
        new, old = NESTED_NEW % label, NESTED_OLD % label
        if new in pair and old in pair:
            print(f"{label}: certified routes {pair[new]:.1f} s ({tails[new][:30]}), estimated "
                  f"nested {pair[old]:.1f} s ({tails[old][:30]}): ratio {pair[new] / pair[old]:.2f}")
    if PAIR_GENERIC in pair and PAIR_DIRECTIONS in pair:
        print(f"MI(C;{{Y^2,X-Y}}) of Scenario II (process start included): the integral over "
              f"directions takes {pair[PAIR_DIRECTIONS] / pair[PAIR_GENERIC]:.2f} x the time of "
              "the generic nested quadrature")
    if args.only:
        return 0 if all(rc in (0, 1, 3) for _, _, rc, _, _ in rows) else 1
    sim = ROOT / "scripts" / "bench_simulation.py"
    if sim.exists():
        print()
        print("scripts/bench_simulation.py:")
        sys.stdout.flush()
        subprocess.run([sys.executable, str(sim)], cwd=ROOT)
    else:
        print("(scripts/bench_simulation.py not present: no simulation benchmark)")
    sel = ROOT / "scripts" / "bench_selector.py"
    if sel.exists():
        # the peers are installed in the benchmark environment only (make bench-venv)
        python = os.environ.get("BENCH_PYTHON") or sys.executable
        print()
        print(f"scripts/bench_selector.py ({python}):")
        sys.stdout.flush()
        subprocess.run([python, str(sel)], cwd=ROOT)
    # exit 3 is an ordering stopped at an undecided step (a value not computed), not a failure
    return 0 if all(rc in (0, 1, 3) for _, _, rc, _, _ in rows) else 1


if __name__ == "__main__":
    sys.exit(main())
