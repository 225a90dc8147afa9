"""Generate tests/data/second_route_reference.json: the numerical route at 32 digits.

The second route (fstheory.theory.numeric: quadrature from the base laws' densities and CDFs, no closed
form) is slow for some shapes of quantity (MI between a square and a difference of normals: a
nested quadrature), so, as scipy does with its mpmath reference files, its values are computed
once by this script and stored beside the tests. ``tests/theory/test_second_route`` checks the closed
forms against them to >= 25 significant digits, and re-runs the fast part of the numerical route
live to check that this file still matches the code.

The committed files were written by an earlier numerical route (mpmath tanh-sinh with
sympy-integrated convolutions, and for Scenario III plain nested quadrature), which shares no
code with the present route (arb quadrature, poly-exponential convolution algebra): the tests
therefore also compare the two implementations. Regenerating them with this script records the
present route instead.

Usage: ``python scripts/make_references.py [--jobs 2] [--set paper|laplace]`` (paper: about
half an hour on 2 cores; laplace: a few minutes).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = {
    "paper": ROOT / "tests" / "data" / "second_route_reference.json",
    "laplace": ROOT / "tests" / "data" / "second_route_reference_laplace.json",
}
DPS = 32

#: The paper's parameters and two other sets per scenario (parameters the paper never printed).
CASES = [
    ("uniform", {"k": "0.2"}),
    ("uniform", {"k": "0.8"}),
    ("uniform", {"k": "0.37", "delta": "0.3", "a": "-2", "b": "0.5", "d": "-1"}),
    ("uniform", {"k": "0.9", "delta": "1.7", "a": "0.25", "b": "-3", "d": "0"}),
    ("normal", {"k": "0.2"}),
    ("normal", {"k": "0.8"}),
    ("normal", {"k": "0.35", "sigma": "0.2", "a": "-1.5", "b": "2", "d": "-3"}),
    ("normal", {"k": "0.65", "sigma": "2.5", "a": "5", "b": "-2", "d": "1"}),
]

#: Scenario III: its MIs with the class come from the numerical route itself; entropies and pairs
#: are checked against closed forms.
LAPLACE_CASES = [
    ("laplace", {"k": "0.2"}),
    ("laplace", {"k": "0.8"}),
    ("laplace", {"k": "0.55", "scale": "3", "a": "-0.5", "b": "0", "d": "1"}),
]


def _entry(res) -> dict:
    import mpmath

    return {"value": mpmath.nstr(res.value, DPS - 5), "error": mpmath.nstr(res.error, 3)}


def compute(case) -> dict:
    import mpmath

    from fstheory.engine.derive import derive
    from fstheory.scenarios.registry import get_scenario
    from fstheory.theory.numeric import NumericRoute

    name, params = case
    scenario = get_scenario(name)
    bound = scenario.bind(**params)
    der = derive(scenario)
    exprs = bound.feature_exprs()
    out = {"scenario": name, "params": params, "entropy": {}, "mi_class": {}, "mi_features": {}}
    t0 = time.time()
    with mpmath.workdps(DPS):
        route = NumericRoute(bound.laws(), bound.class_rule())
        for i in range(len(der.entropy)):
            out["entropy"][str(i + 1)] = _entry(route.entropy(exprs[i]))
        for i, d in enumerate(der.mi_class):
            # every quantity that involves the class variables, structural zeros included
            if d.kind in ("closed", "numeric") or "symmetry" in d.reason:
                out["mi_class"][str(i + 1)] = _entry(route.mi_class(exprs[i]))
        n = len(exprs)
        for i in range(n):
            for j in range(i + 1, n):
                if der.mi_features[i][j].kind == "closed":
                    out["mi_features"][f"{i + 1},{j + 1}"] = _entry(route.mi_pair(exprs[i], exprs[j]))
    out["seconds"] = round(time.time() - t0, 1)
    print(f"{name} {params}: {out['seconds']} s", file=sys.stderr, flush=True)
    return out


def main() -> None:
    from fstheory.parallel import run_tasks

    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--jobs", type=int, default=2)
    ap.add_argument("--set", choices=sorted(OUT), default="paper",
                    help="paper: Scenarios I and II; laplace: Scenario III")
    args = ap.parse_args()
    todo = CASES if args.set == "paper" else LAPLACE_CASES
    cases = run_tasks(compute, todo, jobs=args.jobs)
    for c in cases:
        c.pop("seconds")
    data = {
        "generated_by": "scripts/make_references.py",
        "route": "fstheory.theory.numeric.NumericRoute (quadrature from the base laws; no closed form)",
        "dps": DPS,
        "cases": cases,
    }
    from reference_output import write_reference

    write_reference(OUT[args.set], json.dumps(data, indent=1, sort_keys=False) + "\n")
    print(f"wrote {OUT[args.set]}", file=sys.stderr)


if __name__ == "__main__":
    main()
