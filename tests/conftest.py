"""How `make test` spreads the tests over 2 processes (pytest-xdist, ``-n 2 --dist loadgroup``).

Each test module is one group that runs whole in one worker, so that its module fixtures are
computed once. The modules that read the reports' in-process values at 30 digits
(tests/report_values.py: the doctests of the table modules, test_greedy_unknown,
test_joint_values and test_reports, which regenerates every table) form one group, so that a
value one of them computes is not computed again in the other worker; so do the two modules
of the certified 3-D rows of Scenario I (``tests/atlas_results.py``). The groups are handed out
longest first (:data:`COST`), so that the two workers end together. Each module is correct on
its own, in any order: the grouping only saves time.

The groups are made by the scheduler below (pytest-xdist's ``pytest_xdist_make_scheduler``
hook), from the test ids the controller sees: pytest-xdist's own ``xdist_group`` markers rename
the items' ids, which pytest 9 no longer lets a plugin do, and without them ``--dist loadgroup``
sent every test alone, so a module fixture was computed once per worker.
"""

from __future__ import annotations

from pathlib import PurePosixPath

import pytest

#: Modules that share values computed in-process, by group: the reports' values at 30 digits,
#: and the certified 3-D rows of Scenario I (``tests/atlas_results.py``).
SHARED = {
    "report-values": {"test_doctests.py", "test_greedy_unknown.py", "test_joint_values.py",
                      "test_reports.py"},
    "atlas-3d-rows": {"test_atlas_certify_3d.py", "test_atlas_certify_3d_adversarial.py"},
}

#: Rough seconds of CPU of the longest groups (their tests' CPU in one `make test` on this
#: machine under load), only to hand them out first; a group not listed counts as short. A wrong
#: number costs time, never a test.
COST = {
    "atlas-3d-rows": 153,
    "tests/cli/test_interrupts.py": 82,
    "tests/engine/test_engine_cases.py": 79,
    "tests/theory/test_normal_tails.py": 75,
    "report-values": 50,
    "tests/theory/test_two_point_fibre.py": 38,
    "tests/engine/test_joint_reductions.py": 31,
    "tests/selection/test_selector_plugin.py": 28,
    "tests/atlas/test_atlas_poles.py": 27,
    "tests/theory/test_cone_enclosure.py": 26,
    "tests/theory/test_many_base_variables.py": 26,
}


def group_of(nodeid: str) -> str:
    """The group of a test id: its module's path, or its group in :data:`SHARED`."""
    module = PurePosixPath(nodeid.split("::", 1)[0].split("@", 1)[0])
    return next((g for g, names in SHARED.items() if module.name in names), str(module))


def pytest_collection_modifyitems(config, items):
    # the longest groups first, each module's tests together and in their own order: the
    # scheduler hands the groups out in this order
    first = {}
    for i, item in enumerate(items):
        first.setdefault(group_of(item.nodeid), i)
    items.sort(key=lambda item: (-COST.get(group_of(item.nodeid), 0),
                                 first[group_of(item.nodeid)]))


@pytest.hookimpl(optionalhook=True)  # pytest-xdist's hook: unknown without the plugin
def pytest_xdist_make_scheduler(config, log):
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadScopeScheduling

    class ModuleGroups(LoadScopeScheduling):
        """pytest-xdist's scheduling by scope, with :func:`group_of` as the scope, in the order
        of the collection (longest first)."""

        def _split_scope(self, nodeid: str) -> str:
            return group_of(nodeid)

    config.option.loadscopereorder = False  # keep the collection's order, not by test count
    return ModuleGroups(config, log)
