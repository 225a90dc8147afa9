"""The point values the test modules of the "report-values" xdist group share (conftest.py): one
:class:`fstheory.reports.compute.PointStore` per test process, passed to the table generator,
the verification and the tests that read the same points, so that a value one of them computes
(the joint values of Scenarios II and III take a minute) is not computed again by another."""

from __future__ import annotations

from fstheory.reports.compute import PointStore

#: the store of this test process
STORE = PointStore()


def values_at(scenario, params: dict, digits: int):
    """The values of ``scenario.bind(**params)`` kept in :data:`STORE`."""
    return STORE.values_at(scenario, params, digits)
