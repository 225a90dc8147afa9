"""How `make test` spreads the tests over 2 processes (pytest-xdist, ``-n 2 --dist loadfile``).

As with plain ``loadfile``, each test module runs whole in one worker process, so its module
fixtures and caches are computed once; in addition the modules that share the reports'
in-process cache of values at 30 digits (:mod:`fstheory.reports.compute`: the doctests of the
table modules, test_greedy_unknown, test_joint_values and test_reports, which regenerates every
table) run as one unit, in one worker and in their usual order, as in a single process: a value
one of them computes is not computed again. The largest unit (that one) starts first.
Without ``-n`` (one process) or without pytest-xdist nothing here applies.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

SHARED_REPORT_VALUES = {"test_doctests.py", "test_greedy_unknown.py", "test_joint_values.py",
                        "test_reports.py"}

try:
    from xdist.scheduler import LoadScopeScheduling
except ImportError:  # pragma: no cover - pytest-xdist is in the test extras
    LoadScopeScheduling = None

if LoadScopeScheduling is not None:

    class _ModulesSharingValues(LoadScopeScheduling):
        """Units of work: one per test module, the SHARED_REPORT_VALUES modules together."""

        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            return "report-values" if PurePosixPath(module).name in SHARED_REPORT_VALUES else module

    @pytest.hookimpl(tryfirst=True)  # ahead of xdist's own choice of scheduler
    def pytest_xdist_make_scheduler(config, log):
        if config.getvalue("dist") == "loadfile":
            return _ModulesSharingValues(config, log)
        return None
