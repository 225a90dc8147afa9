"""What an atlas guarantees, stated with the result (``"certificate"`` in its JSON).

The sweep of :mod:`fstheory.orderings.atlas` is *sampled and bracketed*, not certified:

* every special point (the ends of the range, every exact zero of a varying entropy) is
  evaluated exactly, so changes of kind (0, +-inf, indeterminate) there are found;
* between special points the ordering is computed at ``grid`` equally spaced points (at least 4
  per interval) and at points 10^-(digits/2) inside each special point; every pair of
  neighbouring samples with different orderings is searched until each change between them is
  located (bracket of relative width 10^-(digits+2)) and the orderings on both sides of each
  located change are those of its neighbours;
* two changes closer together than the sample spacing that restore the same ordering (A -> B ->
  A) are *not* seen, nor a change closer than 10^-(digits/2) to a special point (it is reported at
  the point).

A certified search -- enclosures of every objective over each cell between samples, proving that
no pair of objectives crosses there -- is not implemented yet; see docs/atlas.md for the design
and what it needs (rigorous enclosures of the k-dependent MI(C, V): interval evaluation of the
elementary closed forms of Scenario I with series at k = 0 and 1, and monotonicity in |lambda| of
the skew-normal expectations of Scenario II with ball-arithmetic point values).
"""

from __future__ import annotations

__all__ = ["applicable", "certify", "guarantee"]


def guarantee(spec) -> dict:
    """The statement of what the sweep of ``spec`` guarantees (no certificate)."""
    return {
        "certified": False,
        "summary": (f"sampled, not certified: {spec.grid} sample points over the range plus every "
                    f"special point; each change between neighbouring samples located to "
                    f"{spec.digits} significant digits; a pair of changes between two samples "
                    f"that restores the ordering, or a change within 10^-{spec.digits // 2} of a "
                    f"special point, is not resolved"),
        "grid": spec.grid,
    }


def applicable(sweep) -> bool:
    """Whether a certificate can be computed for this sweep (none is implemented yet)."""
    return False


def certify(sweep, result, **_):
    """The statement attached to ``result`` (see :func:`guarantee`)."""
    return guarantee(sweep.spec)
