"""How `make test` spreads the tests over 2 processes (pytest-xdist, ``-n 2 --dist loadgroup``).

Each test module is one ``xdist_group`` (pytest-xdist's documented marker), so that it runs
whole in one worker and its module fixtures are computed once, as with ``--dist loadfile``. The
modules that read the reports' point values at 30 digits (tests/report_values.py:
the doctests of the table modules, test_greedy_unknown, test_joint_values and test_reports,
which regenerates every table) form one group, so that a value one of them computes is not
computed again in the other worker. Each module is correct on its own, in any order: the
grouping only saves time. Without ``--dist loadgroup`` the markers change nothing.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

SHARED_REPORT_VALUES = {"test_doctests.py", "test_greedy_unknown.py", "test_joint_values.py",
                        "test_reports.py"}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups in the same hook
def pytest_collection_modifyitems(config, items):
    for item in items:
        module = PurePosixPath(item.nodeid.split("::", 1)[0])
        group = "report-values" if module.name in SHARED_REPORT_VALUES else str(module)
        item.add_marker(pytest.mark.xdist_group(group))
