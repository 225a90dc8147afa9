"""Every docstring example of the installed package runs and prints what it shows.

The modules are imported under their installed names (``fstheory.theory.extended`` ...), so the
examples exercise the package as a user imports it, not a second copy loaded from the checkout's
folders.
"""

from __future__ import annotations

import doctest
import importlib
import pkgutil

import pytest

import fstheory


#: modules whose examples take seconds (an atlas sweep, the tables at 12 digits, the selector
#: on data): left out by `make test-fast`
SLOW = {"fstheory.atlas.poles", "fstheory.atlas.sweep", "fstheory.atlas.values",
        "fstheory.engine.relevance", "fstheory.reports.expressions", "fstheory.reports.tables",
        "fstheory.theory.normal_fibre",
        "fstheory.selection.selector"}

SUBPACKAGES = ("theory", "scenarios", "engine", "orderings", "atlas", "atlas.certificate", "reports",
               "selection", "simulation")


def _modules() -> list[str]:
    names = ["fstheory"]
    packages = [fstheory] + [importlib.import_module(f"fstheory.{s}") for s in SUBPACKAGES]
    for package in packages:
        names += [info.name for info in pkgutil.iter_modules(package.__path__, f"{package.__name__}.")
                  if not info.ispkg and info.name not in names]
    return sorted(n for n in names if not n.endswith("__main__"))


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.slow) if n in SLOW else n
                                  for n in _modules()])
def test_docstring_examples(name):
    module = importlib.import_module(name)
    result = doctest.testmod(module, optionflags=doctest.ELLIPSIS, report=True, verbose=False)
    assert result.failed == 0, f"{result.failed} of {result.attempted} examples failed in {name}"
