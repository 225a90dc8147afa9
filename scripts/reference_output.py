"""What the reference scripts share: the row loop of the generic numerical route over pairs of
features, and writing a reference file atomically.

The references beside the tests (tests/data/) are written by one call of :func:`write_reference`:
the text goes to a temporary file in the same folder, then replaces the old file in one
``os.replace`` (:func:`fstheory.reports.atomic.write_together`), so an interrupted or failed run
leaves the previous reference as it was.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path


def write_reference(path: Path, text: str) -> Path:
    """Write ``text`` (UTF-8) to ``path`` atomically: the whole new file or the old one."""
    from fstheory.reports.atomic import write_together

    return write_together({Path(path): text.encode("utf-8")})[0]


def mi_class_set_rows(points, dps: int, **route_options) -> list[dict]:
    """MI(C; {V_i, V_j}) by the generic numerical route
    (:meth:`fstheory.theory.numeric.NumericRoute.mi_class_set`, nested quadrature over the
    fibres; its error is an estimate, not a bound) at ``dps`` digits, one row per pair.

    ``points``: (scenario name, bound scenario, k, pairs of 0-based feature indices); one route
    per point, made with ``route_options``. Each value is reported on stderr with its time.
    """
    import mpmath

    from fstheory.theory.numeric import NumericRoute

    rows = []
    for name, bound, k, pairs in points:
        exprs = bound.feature_exprs()
        route = NumericRoute(bound.laws(), bound.class_rule(), **route_options)
        for i, j in pairs:
            start = time.time()
            with mpmath.workdps(dps):
                r = route.mi_class_set((exprs[i], exprs[j]))
                rows.append({"scenario": name, "k": k, "pair": [i, j],
                             "value": mpmath.nstr(r.value, dps), "error": mpmath.nstr(r.error, 3),
                             "method": r.method})
            print(f"{name} k={k} {i},{j}: {rows[-1]['value']} ({time.time() - start:.0f} s)",
                  file=sys.stderr)
    return rows
