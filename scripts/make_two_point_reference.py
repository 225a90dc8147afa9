"""Generate tests/data/two_point_reference.json: MI(C;{Y^2,X-Y}) and MI(C;{X-Y,X^2}) of Scenarios
II and III by the generic numerical route (nested quadrature over the fibres,
:meth:`fstheory.theory.numeric.NumericRoute.mi_class_set`) at 32 digits.

Since the engine now takes these pairs by the integral over directions of
:mod:`fstheory.theory.two_point_fibre` (and Scenario I's by exact areas), the generic route is
their second route; it costs 10-30 s a value, so, as for ``make_references.py``, its values are
computed once by this script and stored beside the tests (``tests/theory/test_two_point_fibre.py``).

Usage: ``python scripts/make_two_point_reference.py`` (a few minutes on one core).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

OUT = ROOT / "tests" / "data" / "two_point_reference.json"
DPS = 32
#: Scenario II at sigma = 1 (the paper) and Scenario III at scale 1/2; k not printed by the paper.
CASES = [("normal", "0.13"), ("normal", "0.71"), ("laplace", "0.13"), ("laplace", "0.71")]
PAIRS = [(2, 3), (3, 7)]  # {Y^2, X-Y}, {X-Y, X^2}


def main() -> None:
    from reference_output import mi_class_set_rows, write_reference

    from fstheory.scenarios.registry import get_scenario

    points = [(name, get_scenario(name).bind(k=k), k, PAIRS) for name, k in CASES]
    rows = mi_class_set_rows(points, DPS)
    write_reference(OUT, json.dumps({"dps": DPS, "values": rows}, indent=1) + "\n")


if __name__ == "__main__":
    main()
