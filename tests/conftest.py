"""How `make test` spreads the tests over 2 processes (pytest-xdist, ``-n 2 --dist loadgroup``).

Each test module runs whole in one worker process, so its module fixtures and caches are computed
once. The modules that share the reports' in-process cache of values at 30 digits
(:mod:`fstheory.reports.compute`: the doctests of the table modules, test_greedy_unknown,
test_joint_values and test_reports, which regenerates every table) run together, in one worker and
in this order, as in a single process: a value one of them computes is not computed again.
Without ``-n`` (one process) the marks change nothing.
"""

from __future__ import annotations

import pytest

SHARED_REPORT_VALUES = {"test_doctests.py", "test_greedy_unknown.py", "test_joint_values.py",
                        "test_reports.py"}


@pytest.hookimpl(tryfirst=True)  # before xdist reads the marks into the scheduling groups
def pytest_collection_modifyitems(config, items):
    for item in items:
        name = item.path.name
        group = "report-values" if name in SHARED_REPORT_VALUES else name
        item.add_marker(pytest.mark.xdist_group(group))
