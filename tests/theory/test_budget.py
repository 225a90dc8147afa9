"""The symbolic budget counts the process's CPU time: waiting (another process holding the
cores) does not spend it, so a refusal does not depend on the machine's load."""

import time

import pytest

from fstheory.theory.budget import SymbolicTimeout, symbolic_budget


def test_waiting_does_not_spend_the_budget():
    start = time.monotonic()
    with symbolic_budget(0.2, "a step that waits"):
        time.sleep(0.6)  # wall time three times the budget, almost no CPU time
    assert time.monotonic() - start >= 0.6


def test_computing_spends_it_and_the_outer_budget_is_rearmed():
    with symbolic_budget(5, "outer"):
        with pytest.raises(SymbolicTimeout, match="inner took longer than 0.05 s of CPU time"):
            with symbolic_budget(0.05, "inner"):
                while True:
                    pass
        with pytest.raises(SymbolicTimeout, match="second took longer than 0.1 s of CPU time"):
            with symbolic_budget(0.1, "second"):
                while True:
                    pass
