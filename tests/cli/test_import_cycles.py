"""No import cycle among the modules of the installed package.

A static scan (``ast``, nothing is imported) of every module under ``fstheory`` (theory,
scenarios, engine, orderings, atlas, reports, selection, simulation and fstheory/*.py) builds
the graph "module A imports module B" and asserts it has no cycle, twice:

* the imports a module runs when it is loaded (its module-level statements, inside ``if`` and
  ``try`` too, but not under ``if TYPE_CHECKING``);
* every import, including those inside functions. A function-level import is kept only to load
  a heavy or rarely needed module on first use (the scenario registry, figures, the atlas's
  certificate from the sweep, ...), never to hide a cycle: this second graph has no cycle
  either.

``from P import n`` is an edge to the submodule ``P.n`` when there is one, else to ``P`` itself
(whose ``__init__`` must then be run first); ``import P.Q`` is an edge to ``P.Q``.
"""

from __future__ import annotations

import ast
import os
from pathlib import Path

import pytest

import fstheory

def _modules() -> dict[str, tuple[Path, bool]]:
    """Dotted module name -> (file, is a package's __init__), for every .py file of the package
    (the subpackages are links to the top-level folders: followed)."""
    top = Path(fstheory.__file__).parent
    out = {}
    files = [Path(d, f) for d, _, names in os.walk(top, followlinks=True)
             for f in names if f.endswith(".py")]
    for path in sorted(files):
        rel = path.relative_to(top)
        parts = ["fstheory", *rel.with_suffix("").parts]
        is_package = parts[-1] == "__init__"
        if is_package:
            parts.pop()
        out[".".join(parts)] = (path, is_package)
    return out


MODULES = _modules()


def _type_checking(test: ast.expr) -> bool:
    return "TYPE_CHECKING" in ast.unparse(test)


def _module_level(body) -> list:
    """The import statements run when the module is loaded."""
    found = []
    for node in body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            found.append(node)
        elif isinstance(node, ast.If):
            if not _type_checking(node.test):
                found += _module_level(node.body) + _module_level(node.orelse)
        elif isinstance(node, ast.Try):
            found += _module_level(node.body) + _module_level(node.orelse)
            found += _module_level(node.finalbody)
            for handler in node.handlers:
                found += _module_level(handler.body)
    return found


def _everywhere(tree: ast.Module) -> list:
    """Every import statement, except under ``if TYPE_CHECKING``."""
    skip = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.If) and _type_checking(node.test):
            skip.update(id(n) for stmt in node.body for n in ast.walk(stmt))
    return [n for n in ast.walk(tree)
            if isinstance(n, (ast.Import, ast.ImportFrom)) and id(n) not in skip]


def _targets(module: str, is_package: bool, node) -> set[str]:
    """The package's modules that the import statement ``node`` of ``module`` loads by name."""
    if isinstance(node, ast.Import):
        return {a.name for a in node.names if a.name in MODULES}
    if node.level:
        base = (module if is_package else module.rpartition(".")[0]).split(".")
        base = ".".join(base[:len(base) - (node.level - 1)])
        target = base + ("." + node.module if node.module else "")
    else:
        target = node.module
    out = set()
    for alias in node.names:
        sub = f"{target}.{alias.name}"
        if sub in MODULES:
            out.add(sub)
        elif target in MODULES:
            out.add(target)
    return out


def import_graph(module_level_only: bool) -> dict[str, set[str]]:
    graph = {}
    for module, (path, is_package) in MODULES.items():
        tree = ast.parse(path.read_text(), filename=str(path))
        nodes = _module_level(tree.body) if module_level_only else _everywhere(tree)
        graph[module] = set().union(*(_targets(module, is_package, n) for n in nodes)) - {module}
    return graph


def find_cycle(graph: dict[str, set[str]]) -> list[str] | None:
    """One cycle of ``graph`` as [a, b, ..., a], or None (depth-first search, iterative)."""
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    for start in sorted(graph):
        if start in state:
            continue
        path, stack = [start], [iter(sorted(graph[start]))]
        state[start] = 1
        while stack:
            nxt = next(stack[-1], None)
            if nxt is None:
                state[path.pop()] = 2
                stack.pop()
            elif state.get(nxt) == 1:
                return path[path.index(nxt):] + [nxt]
            elif nxt not in state:
                state[nxt] = 1
                path.append(nxt)
                stack.append(iter(sorted(graph[nxt])))
    return None


@pytest.mark.slow
def test_the_scan_sees_the_whole_package():
    packages = {m.split(".")[1] for m in MODULES if m.count(".") >= 1}
    assert {"theory", "scenarios", "engine", "orderings", "atlas", "reports", "selection",
            "simulation", "cli", "api"} <= packages
    assert "fstheory.atlas.certificate.certify" in MODULES
    graph = import_graph(module_level_only=True)
    assert "fstheory.engine.values" in graph["fstheory.engine.evaluate"]


def test_find_cycle_finds_a_cycle():
    assert find_cycle({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": set()}) == ["a", "b", "c", "a"]
    assert find_cycle({"a": {"b"}, "b": set(), "c": {"a", "b"}}) is None


# the scan of every import (inside functions too) also finds each module-level cycle
@pytest.mark.parametrize("module_level_only", [pytest.param(True, marks=pytest.mark.slow), False],
                         ids=["module-level", "all-imports"])
def test_no_import_cycle(module_level_only):
    cycle = find_cycle(import_graph(module_level_only))
    assert cycle is None, "import cycle: " + " -> ".join(cycle)


def package_of(module: str) -> str:
    """The package a module belongs to: ``fstheory.atlas`` for ``fstheory.atlas.certificate.joint``;
    a module of ``fstheory/`` itself (api, cli, errors, parallel, ...) is its own node."""
    parts = module.split(".")
    return ".".join(parts[:2])


def package_graph() -> dict[str, set[str]]:
    """Package A -> package B when a module of A imports one of B (any import)."""
    graph: dict[str, set[str]] = {}
    for module, targets in import_graph(module_level_only=False).items():
        a = package_of(module)
        graph.setdefault(a, set()).update(package_of(t) for t in targets)
    return {a: b - {a} for a, b in graph.items()}


def test_no_import_cycle_between_packages():
    """The packages import one another one way only (selection and simulation: the options
    belong to the selection, which never imports the simulation)."""
    graph = package_graph()
    assert "fstheory.selection" in graph["fstheory.simulation"]
    cycle = find_cycle(graph)
    assert cycle is None, "import cycle between packages: " + " -> ".join(cycle)
