"""Atlas results computed once per process and read by several test modules.

The modules that read the same rows run in one xdist group (``tests/conftest.py``), so that a
certified row costs once per ``make test``; each module still computes what it reads when it
runs alone. The results are shared objects: a test changes copies (``dataclasses.replace``),
never them.
"""

from __future__ import annotations

from functools import lru_cache

from fstheory.atlas.sweep import AtlasSpec, atlas


@lru_cache(maxsize=None)
def certified(spec: AtlasSpec):
    """``atlas(spec, certify=True)``, once per spec in a process."""
    return atlas(spec, certify=True)
