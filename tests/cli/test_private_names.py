"""No private name (``_x``) imported across modules.

A leading underscore says "used only in this module": a name another module needs is public,
with a docstring, or lives where it belongs. A static scan (``ast``) of every module of the
installed package, of the scripts and of the tests, doctests included, fails on any
``from fstheory.x import _name`` (or ``import fstheory.x`` then ``fstheory.x._name``) naming
another module's private name.
"""

from __future__ import annotations

import ast
import doctest
import os
from pathlib import Path

import fstheory

ROOT = Path(fstheory.__file__).resolve().parents[1]


def _sources() -> list[Path]:
    """Every .py file of the package (links followed), of scripts/ and of tests/."""
    top = Path(fstheory.__file__).parent
    files = [Path(d, f) for d, _, names in os.walk(top, followlinks=True)
             for f in names if f.endswith(".py")]
    for folder in ("scripts", "tests"):
        files += sorted((ROOT / folder).rglob("*.py"))
    return sorted(set(files))


def _doctest_sources(tree: ast.Module) -> list[str]:
    """The code of every doctest example in the module's docstrings."""
    parser = doctest.DocTestParser()
    out = []
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            text = ast.get_docstring(node, clean=False)
            if text and ">>>" in text:
                out += [example.source for example in parser.get_examples(text)]
    return out


def _private_imports(tree: ast.AST) -> list[str]:
    """``module._name`` for each private name of an fstheory module imported in ``tree``."""
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom) and not node.level and node.module \
                and node.module.split(".")[0] == "fstheory":
            found += [f"{node.module}.{a.name}" for a in node.names
                      if a.name.startswith("_") and not a.name.startswith("__")]
    return found


def private_imports(path: Path) -> list[str]:
    text = path.read_text()
    tree = ast.parse(text, filename=str(path))
    found = _private_imports(tree)
    for source in _doctest_sources(tree):
        try:
            found += _private_imports(ast.parse(source))
        except SyntaxError:  # a continuation line alone, output text: nothing imported
            continue
    return found


def test_the_scan_finds_a_private_import():
    tree = ast.parse("from fstheory.atlas.sweep import AtlasSpec, _run\nfrom os import _exit\n")
    assert _private_imports(tree) == ["fstheory.atlas.sweep._run"]
    doc = ast.parse('"""Text.\n\n>>> from fstheory.theory.x import _y\n"""\n')
    assert [s.strip() for s in _doctest_sources(doc)] == ["from fstheory.theory.x import _y"]


def test_no_private_name_imported_across_modules():
    sources = _sources()
    assert any(p.name == "certify.py" for p in sources) and any(p.parent.name == "scripts"
                                                                 for p in sources)
    bad = {str(p.relative_to(ROOT) if p.is_relative_to(ROOT) else p): names
           for p in sources if (names := private_imports(p))}
    assert not bad, f"private names imported across modules: {bad}"
