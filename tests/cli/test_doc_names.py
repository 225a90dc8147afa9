"""Every dotted name the docs and the docstrings point to exists.

A module moved or renamed leaves its old name behind in prose; a reader following it finds
nothing. Checked: every ``fstheory.x.y`` in docs/*.md, README.md and the package's source, and
every Sphinx role target (``:mod:``, ``:class:``, ``:func:``, ...) naming one of the package's
folders without the ``fstheory.`` prefix; each must import, the rest of it resolved by getattr.
"""

from __future__ import annotations

import importlib
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = ("theory", "scenarios", "orderings", "engine", "atlas", "reports", "selection",
            "simulation")
FULL = re.compile(r"\bfstheory(?:\.[A-Za-z_]\w*)+")
ROLE = re.compile(r":(?:mod|class|func|meth|data|attr|exc|obj):`~?((?:" + "|".join(PACKAGES)
                  + r")(?:\.[A-Za-z_]\w*)+)`")


def _files() -> list[Path]:
    out = sorted((ROOT / "docs").glob("*.md")) + [ROOT / "README.md"]
    for pkg in PACKAGES:
        out += sorted((ROOT / pkg).rglob("*.py"))
    return out + sorted((ROOT / "fstheory").glob("*.py"))


def _names() -> dict[str, set[str]]:
    out: dict[str, set[str]] = {}
    for path in _files():
        text = path.read_text(encoding="utf-8")
        found = {m.group(0) for m in FULL.finditer(text)}
        found |= {"fstheory." + m.group(1) for m in ROLE.finditer(text)}
        for name in found:
            out.setdefault(name.rstrip("."), set()).add(str(path.relative_to(ROOT)))
    return out


def _resolves(name: str) -> bool:
    parts = name.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_the_scan_sees_the_names():
    names = _names()
    assert "fstheory.engine.derive.derive" in names
    assert len(names) > 50


def test_a_name_that_does_not_exist_is_caught():
    assert not _resolves("fstheory.scenarios.closed_forms.ClassClosedForms")
    assert not _resolves("fstheory.engine.derive.no_such_function")
    assert _resolves("fstheory.engine.derive.derive")


def test_every_named_object_exists():
    missing = [f"{n} (in {', '.join(sorted(w))})" for n, w in sorted(_names().items())
               if not _resolves(n)]
    assert missing == []
