"""Generate tests/data/joint_reduction_reference.json: MI(C; {V_i, V_j}) of the shipped scenario
files three-variable.toml and mixed.toml for the pairs that the engine now takes as MI(C, L) of
one sufficient statistic L (:mod:`fstheory.theory.sufficiency`), by the generic numerical route
on the pair itself (nested quadrature over two coordinates,
:meth:`fstheory.theory.numeric.NumericRoute.mi_class_set`) at 32 digits.

That route is the independent second route of ``tests/engine/test_joint_reductions.py``; it costs
seconds to a minute a value (its error is an estimate, not a bound), so its values are computed
once by this script and stored beside the tests.

Usage: ``python scripts/make_joint_reduction_reference.py`` (several minutes on one core).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "joint_reduction_reference.json"
DPS = 32
KS = ("0.3", "0.8", "1")
#: (scenario file, pair of feature indices): three-variable {X, Y}, {X, X+Z}; mixed {X, Y},
#: {Y, Z}, {Z, X+Z}
CASES = [("three-variable", (0, 1)), ("three-variable", (0, 2)), ("mixed", (0, 1)),
         ("mixed", (1, 2)), ("mixed", (2, 3))]


def main() -> None:
    from reference_output import mi_class_set_rows, write_reference

    from fstheory.scenarios.scenario_file import load_scenario_file, shipped_scenario_path

    files = {name: load_scenario_file(shipped_scenario_path(name)) for name, _ in CASES}
    points = [(name, files[name].bind(k=k), k, [pair]) for name, pair in CASES for k in KS]
    rows = mi_class_set_rows(points, DPS, evaluations=10**8)
    write_reference(OUT, json.dumps({"dps": DPS, "values": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
