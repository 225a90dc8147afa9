"""The atlas: a method's ordering swept over a parameter (regions, breakpoints, phase maps) and
the certificate that proves it cell by cell.

``atlas(spec) -> AtlasResult`` is the one entry point; :class:`AtlasSpec` says what to sweep.
The sweep lives in :mod:`fstheory.atlas.sweep`, the values as functions of the swept parameter in
:mod:`fstheory.atlas.values`, two-parameter maps in :mod:`fstheory.atlas.phase_map` and their
figures in :mod:`fstheory.atlas.figures`; :mod:`fstheory.atlas.certificate` holds the interval
proof.
"""

from fstheory.atlas.sweep import AtlasResult, AtlasSpec, atlas

__all__ = ["atlas", "AtlasSpec", "AtlasResult"]
