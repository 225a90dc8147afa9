"""The atlas: a method's ordering across one parameter, as regions of constant ordering and the
breakpoints between them, each located to ``digits`` significant digits with its cause.

How the partition is found
--------------------------
An ordering (the greedy path of :func:`fstheory.orderings.greedy.select`, with its stop) can change
only where, at some step, two candidates' objectives cross, where a value changes kind (becomes 0
exactly, +-inf, or indeterminate) or at the ends of the range. So the sweep

1. takes as *special points* the ends of the range, the structural points inside it (where a
   feature degenerates or two become dependent, :mod:`fstheory.atlas.structural`) and every point
   inside where a varying entropy is 0 (solved exactly with sympy when it can); for a 3-D row
   instead of the zeros, every point where an
   H(Vi,Vj,C) its objective divides by is 0 (a pole, :mod:`fstheory.atlas.poles`);
   the values there are evaluated exactly (0 is 0, so x/0 and 0/0 follow the engine's conventions);
2. evaluates the ordering at every special point and on a grid of ``grid`` points spread over the
   open intervals between them (at least 4 per interval);
3. between two neighbouring points with different orderings, finds the first step where the two
   greedy paths part, with winners A (left) and B (right) after the same selected prefix, and
   locates the sign change of obj(A) - obj(B) (MI(C,A) - MI(C,B) at step 1) by a bracketing
   Illinois iteration at ``digits`` + 12 working digits, to a relative width of 10^-(digits+2). If
   the orderings just left and right of the located point are not the two it was started from,
   the brackets on either side are searched again, so an A -> C -> B sequence is found whole.
   A sign change where the objectives stay far apart is a *pole* (a divisor of an objective changes
   sign), reported as such;
4. merges neighbouring pieces with equal orderings into regions; each region boundary is a
   breakpoint, with its cause: two objectives crossing at a step (which ones), a value becoming 0
   or infinite or changing sign at a special point (which ones), and the step where the orderings
   part.

The sampling of step 2 alone can miss a pair of crossings between two grid points. Where every
input has a rigorous enclosure (Scenarios I and II), :mod:`fstheory.atlas.certificate.certify`
then proves, cell by cell, that each region's ordering holds on the whole region; otherwise the
result states what the sampled and bracketed search guarantees (``docs/atlas.md``).

The modules: :mod:`~fstheory.atlas.spec` (what to sweep), :mod:`~fstheory.atlas.row` (one
method row at a point), :mod:`~fstheory.atlas.special` (special points and causes),
:mod:`~fstheory.atlas.locate` (step 3), :mod:`~fstheory.atlas.result` (what is returned); this
module runs the steps.

Examples
--------
>>> r = atlas(AtlasSpec(scenario="uniform", method="mifs", beta="1", parameter="k",
...                     lo="0", hi="1", digits=20, grid=8))
>>> [(reg["from"], reg["to"], reg["order"][:3]) for reg in r.to_json()["regions"]]
[('0', '0', ['X', 'Y^2', 'Z']), ('0', '1', ['X', 'Y', 'Z'])]
>>> r.to_json()["breakpoints"][0]["cause"]
'MI(C,Y) = 0 exactly'
>>> r.certificate["certified"]
True
"""

from __future__ import annotations

import sympy as sp

from fstheory.atlas.locate import find_changes, first_difference
from fstheory.atlas.numbers import as_exact
from fstheory.atlas.result import AtlasResult, Breakpoint, Region
from fstheory.atlas.row import Sweep, sweep_of
from fstheory.atlas.spec import AtlasSpec, check_parameter, parse_range
from fstheory.atlas.special import (between, entropy_zeros, offset, pole_points, rational_near,
                                    special_cause)
from fstheory.parallel import Progress, run_tasks
from fstheory.simulation.scheduler import connected

__all__ = ["AtlasSpec", "AtlasResult", "Breakpoint", "Region", "Sweep", "atlas", "parse_range",
           "check_parameter", "sweep_of"]


def _order_task(args):
    spec, t, exact = args
    return sweep_of(spec).order(sp.sympify(t), exact)


def _changes_task(args):
    spec, tl, tr, left, right = args
    tl = sp.sympify(tl) if isinstance(tl, str) else tl
    tr = sp.sympify(tr) if isinstance(tr, str) else tr
    return find_changes(spec, tl, tr, left, right)


def atlas(spec: AtlasSpec, *, jobs: int = 1, scheduler=None, progress: "Progress | None" = None,
          certify: bool | None = None) -> AtlasResult:
    """Regions of constant ordering of ``spec``'s method row over its parameter, and breakpoints.

    Parameters
    ----------
    spec : AtlasSpec
    jobs, progress
        As in :func:`fstheory.parallel.run_tasks` (worker processes, a
        :class:`~fstheory.parallel.Progress`); the result does not depend on them.
    scheduler : str or distributed.Client, optional
        A Dask scheduler's address or client
        (:func:`fstheory.simulation.scheduler.connected`).
    certify : bool, optional
        Run the completeness certificate (:mod:`fstheory.atlas.certificate.certify`); the default
        runs it where it applies (every input has a rigorous enclosure over a cell, whether the
        scenario is registered or a file; not varying numerical-route inputs). Without it the result
        carries the statement of what the sampled search guarantees, with the reason.
    """
    with connected(scheduler) as client:
        return _atlas(spec, jobs, client, progress, certify)


def _atlas(spec: AtlasSpec, jobs: int, scheduler, progress, certify) -> AtlasResult:
    sw = sweep_of(spec)
    lo, hi = as_exact(spec.lo), as_exact(spec.hi)
    # a 3-D objective reads h(V) only inside H(Vi,Vj,C), which is continuous where h(V) = 0,
    # and its joint values need the scenario bound at the point (rational: such zeros are often
    # not, delta = exp(-1/2)/10 + 2/15 for h = 0 in Scenario I); its special points are the
    # zeros of the H(Vi,Vj,C) it divides by, where the joint values are the open closed forms
    zeros = pole_points(sw) if sw.method.reads_joint else entropy_zeros(sw, lo, hi)
    # where a feature degenerates (a*X at a = 0), the structure of the open cells fails
    structural = [] if sw.on_beta else sw.pv.structural.inside(lo, hi)
    zeros = sorted(set(zeros) | set(structural), key=lambda s: float(s))
    special = [lo] + zeros + [hi]
    bind = sw.method.reads_joint or bool(sw.pv.numeric_varying)
    per_unit = max(spec.grid, 4)
    grid_pts = []
    for s0, s1 in zip(special, special[1:]):
        n = max(4, int(per_unit * float((s1 - s0) / (hi - lo))))
        pts = between(s0, s1, n)
        # a 3-D row's joint values and the numerical route's quantities bind the scenario at
        # the point: rational points only (between irrational special points between's are not)
        grid_pts.append([rational_near(p, spec.digits) for p in pts] if bind else pts)
    points = []
    for i, s in enumerate(special):
        points.append(s)
        if i < len(grid_pts):
            points += grid_pts[i]
    is_special = set(special)
    run = dict(jobs=jobs, scheduler=scheduler, progress=progress)
    orders = run_tasks(_order_task, [(spec, str(p), p in is_special) for p in points],
                       label="orderings", **run)
    order_of = dict(zip(points, orders))
    # points just inside each special point, to tell a change at the point from a nearby crossing
    inside = {}
    extra = []
    for i, s in enumerate(special):
        if i > 0:
            extra.append((s, "L", offset(s, grid_pts[i - 1][-1], spec.digits)))
        if i < len(grid_pts):
            extra.append((s, "R", offset(s, grid_pts[i][0], spec.digits)))
    if bind:
        extra = [(s, side, rational_near(p, spec.digits)) for s, side, p in extra]
    extra_orders = run_tasks(_order_task, [(spec, str(p), False) for _, _, p in extra],
                             label="orderings near special points", **run)
    for (s, side, p), o in zip(extra, extra_orders):
        inside[(s, side)] = (p, o)
        order_of[p] = o
    # brackets between neighbouring sample points of the open intervals
    brackets = []
    for i in range(len(grid_pts)):
        seq = [inside[(special[i], "R")][0]] + grid_pts[i] + [inside[(special[i + 1], "L")][0]]
        for p, q in zip(seq, seq[1:]):
            if order_of[p] != order_of[q]:
                brackets.append((p, q))
    found = run_tasks(_changes_task,
                      [(spec, str(p), str(q), order_of[p], order_of[q]) for p, q in brackets],
                      label="breakpoints", **run)
    # pieces: (lo, hi, order, sample) left to right
    pieces = []
    crossings = []
    for i, s in enumerate(special):
        pieces.append((s, s, order_of[s], s))
        if i == len(grid_pts):
            break
        seq = [inside[(s, "R")][0]] + grid_pts[i] + [inside[(special[i + 1], "L")][0]]
        start, current, sample = s, order_of[seq[0]], seq[0]
        for p, q in zip(seq, seq[1:]):
            if order_of[p] == order_of[q]:
                continue
            for x0, x1, bp, jl, jr in found[brackets.index((p, q))]:
                pieces.append((start, bp.at, jl, sample if jl == current else x0))
                crossings.append(bp)
                start, current, sample = bp.at, jr, x1
        pieces.append((start, special[i + 1], current, sample))
    regions, breakpoints = _merge(sw, pieces, crossings, special, inside)
    result = AtlasResult(spec, sw.labels, sw.method_text(), breakpoints, regions, special)
    from fstheory.atlas.certificate import certify as atlas_certify

    # certify() itself returns the sampled statement with the reason where no certificate applies
    result.certificate = (atlas_certify.guarantee(spec) if certify is False else
                          atlas_certify.certify(sw, result, jobs=jobs, scheduler=scheduler,
                                                progress=progress))
    return result


def _merge(sw: Sweep, pieces, crossings, special, inside):
    regions: list[Region] = []
    breakpoints: list[Breakpoint] = []
    by_at = {id(b.at): b for b in crossings}
    for lo_, hi_, (order, stopped), sample in pieces:
        if regions and regions[-1].order == order and regions[-1].stopped == stopped:
            last = regions[-1]
            regions[-1] = Region(last.lo, hi_, order, stopped, last.sample)
            continue
        if regions:
            at = lo_
            bp = by_at.get(id(at))
            if bp is None:  # a special point
                left = inside.get((at, "L"), (None, None))[0]
                right = inside.get((at, "R"), (None, None))[0]
                prev = (regions[-1].order, regions[-1].stopped)
                n = first_difference(prev, (order, stopped))
                pair = tuple(sw.labels[i] for i in (prev[0][n:n + 1] + order[n:n + 1]))
                bp = Breakpoint(at, n + 1, special_cause(sw, at, left, right), pair, "value")
            if not breakpoints or breakpoints[-1].at is not bp.at:
                breakpoints.append(bp)
        regions.append(Region(lo_, hi_, order, stopped, sample))
    return regions, breakpoints
