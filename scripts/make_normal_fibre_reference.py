"""Generate tests/data/normal_fibre_reference.json: MI(C; {V_i, V_j}) of the shipped scenario
file threshold.toml for the four pairs that the engine takes by the nested integral over a normal
two-point fibre (:mod:`fstheory.theory.normal_fibre`): {X-Y, Y^2}, {X+Y, Y^2}, {X-Y, X^2},
{X+Y, X^2}, by the generic numerical route on the pair itself (nested double-exponential
quadrature over two coordinates, :meth:`fstheory.theory.numeric.NumericRoute.mi_class_set`) at
25 digits, at k = 0.3, 0.8 and the edge k = 0 (where the wedge of {X -+ Y, X^2} is a half plane).

That route is the independent second route of ``tests/theory/test_normal_fibre.py``; it costs
seconds to minutes a value (its error is an estimate, not a bound), so its values are computed
once by this script and stored beside the tests.

Usage: ``python scripts/make_normal_fibre_reference.py`` (several minutes on one core).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "normal_fibre_reference.json"
DPS = 25
KS = ("0.3", "0.8", "0")
#: threshold.toml's features: X, Y, X-Y, X+Y, Y^2, X^2, Z
PAIRS = [(2, 4), (3, 4), (2, 5), (3, 5)]


def main() -> None:
    from reference_output import mi_class_set_rows, write_reference

    from fstheory.scenarios.scenario_file import load_scenario_file, shipped_scenario_path

    scenario = load_scenario_file(shipped_scenario_path("threshold"))
    points = [("threshold", scenario.bind(k=k), k, PAIRS) for k in KS]
    rows = mi_class_set_rows(points, DPS, evaluations=10**8)
    write_reference(OUT, json.dumps({"dps": DPS, "values": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
