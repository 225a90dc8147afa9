r"""What an atlas guarantees, stated with the result (``"certificate"`` in its JSON), and the
certificate itself: a proof, cell by cell, that every region's ordering holds on the whole region.

The sweep of :mod:`fstheory.atlas.sweep` is *sampled and bracketed*: special points are
evaluated exactly, the ordering is sampled on a grid, and every change between neighbouring
samples is located to ``digits`` significant digits. Two changes between the same two samples
that restore the ordering, or a change within 10^-(digits/2) of a special point, would not be
seen. :func:`certify` closes that gap wherever every input has a rigorous enclosure
(:mod:`fstheory.atlas.certificate.enclose`):

1. The range is cut at the special points (each a *point piece*, evaluated with its exact values:
   exact zeros stay exact) and at every located breakpoint, whose bracket is widened to
   ``[x0 - 40w, x1 + 40w]`` (w its width; checked < 10^-digits relative): the *certified
   bracket*.
   What lies between is an *interval piece*, open at a special point, closed at a bracket.
2. On a cell of a piece the inputs are enclosed (IX values) and the method's own objective code
   runs in the interval world (:class:`fstheory.atlas.certificate.interval.IntervalOps`), step by
   step along the region's reported ordering. At every step the reported winner w must beat
   every other remaining candidate c on the whole cell:

   * by kinds: c indeterminate on the cell, or w = +inf, or c = -inf, or both the same infinity
     with w first in the list (the exact world's tie rule); w = +inf also beats a c whose
     objective is unbounded near an open end of the cell but finite at each of its points
     (every divisor's enclosure excludes 0, or its closed form has no zero in the cell);
   * for finite values, by the enclosure of obj(w) - obj(c) > 0; failing that, by the same
     difference written as one rational function of the input functions (:class:`SymbolicOps`,
     simplified by sympy, so shared terms cancel): if it is identically 0 the two candidates
     are the same function and w must come first in the list (X and 3X+1); else its enclosure,
     and failing that its derivative's: where the derivative's enclosure excludes 0 the
     difference is monotone on the cell and its values at the two ends decide (at an end
     excluded from the cell, >= 0 suffices); a difference with min or max terms is split
     (:mod:`~fstheory.atlas.certificate.cells`); equal exact constants are one leaf, so they
     cancel;
   * a tie at a special point (or at the excluded end of a cell, with the difference monotone)
     is also proved by a symmetry of the scenario there (:func:`fstheory.atlas.certificate.symmetry.symmetry_at`:
     swapping two i.i.d. base variables that leaves the class invariant);
   * a stopped region: every remaining candidate indeterminate on the whole cell.

   An undecided cell is bisected (pairs proved on a cell are not re-checked on its halves), down
   to a relative width 10^-(digits+3); a cell that is still undecided makes the result *not
   certified*, with the place and the pair.
3. Lemma (soundness): each enclosure contains every value its quantity takes on the cell (the
   leaves' lemmas in :mod:`fstheory.atlas.certificate.enclose`; interval arithmetic with outward
   rounding); so a proved comparison holds at every point of the cell, and the ordering computed
   by :func:`fstheory.orderings.greedy.select` with exact real values is the reported one on the
   whole piece. Ties: only identical functions tie exactly (a symbolic identity); everywhere
   else the certificate proves strict inequalities, so the exact world's tie band
   (10^-(digits+7)) cannot change a certified ordering outside the certified brackets.

The 3-D methods' joint inputs are leaves and identities in them
(:class:`fstheory.atlas.certificate.joint.JointLeaves`, from the structure derived with the swept
parameter symbolic); at every special point each joint quantity derived there is proved equal
to the open form's limit before the point pieces are evaluated.

The modules: :mod:`~fstheory.atlas.certificate.leaves` (the inputs as leaves, shared by the rows
over the same values), :mod:`~fstheory.atlas.certificate.views` (the values view in the interval
and symbolic worlds), :mod:`~fstheory.atlas.certificate.cells` (one row's proof on a cell and a
piece), :mod:`~fstheory.atlas.certificate.symmetry` (exact zeros at a special point); this
module cuts the range into pieces, runs the proof on each and writes the certificate.

Whether a certificate applies is decided by the scenario's content, never by where it was
declared (a registered scenario or a file). A numerical-route input that does not vary over the
range is a constant leaf (the engine's proved ball at the reference point). Not certifiable (the
statement says which and why): inputs from the numerical route that vary (Scenario III's
MI(C, V) are enclosed by :mod:`fstheory.atlas.certificate.laplace`; the reason names every
other one), joint inputs without an enclosure (the integrals over directions of Scenario II,
two-point probabilities of non-uniform laws: the reason names the pairs), features whose
structural points are not known exactly, a structural point inside the range
(:mod:`fstheory.atlas.structural`: that point piece is not proved, the others are), a region
that stops undecided.
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import sympy as sp

from fstheory.atlas.certificate.cells import Certifier
from fstheory.atlas.certificate.enclose import Cell, NoEnclosure
from fstheory.atlas.certificate.points import bracket_text, cell_text, le, point_text
from fstheory.atlas import poles as atlas_poles
from fstheory.atlas.lowstage import LOW_DIGITS
from fstheory.orderings.methods import get_method
from fstheory.atlas.numbers import as_exact, decimal_text

__all__ = ["applicable", "certify", "certifier", "guarantee", "pieces", "pole_failures", "run",
           "Certifier", "WIDEN"]

#: Half-widening of a located bracket for the certificate, in bracket widths w. The ends of a
#: located bracket are decided at the working precision and can miss the exact crossing by a few
#: widths (seen: 1.4 w, MIFS over beta at k = 0.975 in Scenario II); with w <= 10^-(digits+2)
#: relative, 40 widths keep the certified bracket below 10^-digits (checked in ``run``).
WIDEN = 40


def guarantee(spec, reason: str | None = None) -> dict:
    """The statement of what the sampled sweep of ``spec`` guarantees (no certificate)."""
    out = {
        "certified": False,
        "method": "sampled and bracketed",
        "summary": (f"sampled and bracketed, not certified: {spec.grid} sample points over the "
                    f"range plus every special point; each change between neighbouring samples "
                    f"located to {spec.digits} significant digits; a pair of changes between two "
                    f"samples that restores the ordering, or a change within "
                    f"10^-{spec.digits // 2} of a special point, is not resolved"),
        "grid": spec.grid,
    }
    if get_method(spec.method).reads_joint and spec.digits > LOW_DIGITS:
        out["summary"] += (f"; the orderings are first decided on {LOW_DIGITS}-digit joint "
                           "values, a step only where it holds for every input within 100 times "
                           "their stated error, term by term, and otherwise at the working "
                           "digits")
    if reason:
        out["reason"] = reason
        out["summary"] += f" (no certificate: {reason})"
    return out


def applicable(sweep) -> bool:
    """Whether a certificate can be attempted (every input has an enclosure)."""
    return _why_not(sweep) is None


def _why_not(sweep) -> str | None:
    """Why no certificate applies, from what the scenario contains (never from where it was
    declared): an input without an enclosure, or features whose structural points are not
    known exactly."""
    undecided = [] if sweep.on_beta else list(sweep.pv.structural.undecided)
    if undecided:
        return "the structure of the features is not known on every cell: " + "; ".join(undecided)
    try:
        cert = certifier(sweep)
        if sweep.method.reads_joint:
            cert.joint()
    except NoEnclosure as exc:
        return str(exc)
    return None


def certifier(sweep) -> Certifier:
    """The :class:`~fstheory.atlas.certificate.cells.Certifier` of ``sweep``'s row, kept by the
    sweep (its leaves are shared with the rows over the same values and range: the range bounds
    the critical points of the skew-normal leaves); raises NoEnclosure."""
    return sweep.certifier


def certify(sweep, result, **_) -> dict:
    """The certificate of ``result`` (an :class:`~fstheory.atlas.sweep.AtlasResult` of
    ``sweep``), or the sampled statement with the reason when none applies."""
    why = _why_not(sweep)
    if why is not None:
        return guarantee(sweep.spec, why)
    return run(certifier(sweep), result)


def run(cert: Certifier, result) -> dict:
    """The certificate of ``result`` by ``cert`` (see the module docstring)."""
    if cert.sw.method.reads_joint:
        try:
            poles = atlas_poles.divisor_zeros(cert)
            for x in result.special:
                # an irrational pole cannot be bound: its values are the open forms there
                if x.is_Rational or x not in poles.points:
                    cert.joint().check_point(x)
        except NoEnclosure as exc:
            return guarantee(cert.sw.spec, str(exc))
    cuts, brackets = pieces(cert, result)
    cells = 0
    failures = []
    with mpmath.workprec(cert.bits):
        limit = mpmath.mpf(10) ** -cert.digits
        for x0, x1, _b in brackets:
            if x1 - x0 >= limit * max(abs(x0), abs(x1)):
                failures.append(f"the certified bracket [{point_text(x0)}, {point_text(x1)}] is not "
                                f"below 10^-{cert.digits} relative")
    failures += _layout_failures(cert, result, brackets)
    poles = pole_failures(cert, result) if cert.sw.method.reads_joint else []
    if poles:
        return _finish(cert, 0, brackets, failures + poles)
    for cell, region in cuts:
        if cell.is_point and not cert.on_beta and cert.sw.pv.is_structural(
                {cert.sw.param: as_exact(cell.lo)}):
            # the leaves hold the structure of the open cells, not this point's
            failures.append(f"at {cert.sw.param} = {point_text(cell.lo)}: the structure of the "
                            "features changes there (a feature degenerates or two become "
                            "dependent); the ordering at the point is the engine's, computed "
                            "there, not proved by enclosures")
            continue
        if region is None:
            failures.append(f"{cell_text(cell)}: no reported region holds the whole piece (a "
                            "region ends where no breakpoint bracket or special point is)")
            continue
        try:
            used, fail = cert.certify_piece(cell, region.order, region.stopped)
        except NoEnclosure as exc:
            # an input first read on this piece has no enclosure (a set of CMI or JMI3
            # that reduces to more than two features, or whose value at a special point is
            # not the open form's): no certificate
            return guarantee(cert.sw.spec, str(exc))
        cells += used
        if fail:
            failures.append(f"{cell_text(cell)}: {fail}")
    return _finish(cert, cells, brackets, failures)


def pieces(cert, result):
    """[(Cell, region or None)] covering the range, and the certified brackets."""
    special = list(result.special)
    brackets = []
    with mpmath.workprec(cert.bits):
        for b in result.breakpoints:
            if b.bracket is None:
                continue
            x0, x1 = b.bracket
            w = x1 - x0
            brackets.append((x0 - WIDEN * w, x1 + WIDEN * w, b))
    bounds = [("s", s, s) for s in special] + [("b", x0, x1) for x0, x1, _ in brackets]
    bounds.sort(key=lambda t: (float(t[1]), 0 if t[0] == "s" else 1))
    out = []
    for kind, a, _b in bounds:
        if kind == "s":
            out.append((Cell(a, a), _region_at(cert, result, a, point=True)))
    for (k0, _, r0), (k1, l1, _) in zip(bounds, bounds[1:]):
        cell = Cell(r0, l1, k0 == "s", k1 == "s")
        out.append((cell, _region_at(cert, result, cell, point=False)))
    return out, brackets


def _region_at(cert, result, where, point: bool):
    """The region whose ordering a point or a whole interval piece must have (None: no
    region holds all of the piece, so the reported regions do not fit the cuts)."""
    with mpmath.workprec(cert.bits):
        if point:
            x = where
            regs = [r for r in result.regions if r.lo == x and r.hi == x]
            if not regs:
                # neighbouring regions share the point: it belongs to the one whose
                # ordering was computed at it (its sample), else to the left one
                regs = [r for r in result.regions if le(r.lo, x) and le(x, r.hi)]
                regs.sort(key=lambda r: not (isinstance(r.sample, sp.Basic)
                                             and r.sample == x))
        else:
            regs = [r for r in result.regions if le(r.lo, where.lo) and le(where.hi, r.hi)]
    return regs[0] if regs else None


def pole_failures(cert, result) -> list:
    """Zeros inside the range of an H(V_i,V_j,C) that the objective divides by and that are
    not special points of ``result`` (a region through a pole cannot be proved: said at once
    rather than after bisecting to the cell budget). The zeros are those of
    :func:`~fstheory.atlas.poles.divisor_zeros`, solved exactly from the closed
    forms; a divisor whose zeros are not known exactly is left to the cells, which cannot
    prove a cell where its enclosure holds 0."""
    poles = atlas_poles.divisor_zeros(cert)
    special = set(result.special)
    return [f"{' = '.join(names)} = 0 at {cert.sw.param} = {x} = {sp.N(x, 20)} inside the "
            "range: the objective has a pole there that the result does not take as a "
            "special point"
            for x, names in poles.points.items() if x not in special]


def _layout_failures(cert, result, brackets) -> list:
    """What makes the reported regions and breakpoints unfit for a proof, whatever the
    values: the regions must tile the range in order, and each breakpoint lie in its
    certified bracket (every region end is then a special point or inside a bracket, since
    each interval piece must lie in one region)."""
    out = []
    regs = list(result.regions)
    lo, hi = as_exact(cert.sw.spec.lo), as_exact(cert.sw.spec.hi)
    with mpmath.workprec(cert.bits):
        if not regs or not (le(regs[0].lo, lo) and le(lo, regs[0].lo)) or not (
                le(regs[-1].hi, hi) and le(hi, regs[-1].hi)):
            out.append("the regions do not start and end at the ends of the range")
        for a, b in zip(regs, regs[1:]):
            if not (le(a.hi, b.lo) and le(b.lo, a.hi)):
                out.append(f"the regions ending at {point_text(a.hi)} and starting at "
                           f"{point_text(b.lo)} do not meet")
        for x0, x1, b in brackets:
            if not (le(x0, b.at) and le(b.at, x1)):
                out.append(f"the breakpoint at {point_text(b.at)} lies outside its certified "
                           f"bracket [{point_text(x0)}, {point_text(x1)}]")
    return out


def _finish(cert, cells: int, brackets, failures: list) -> dict:
    """The certificate of a run: what was proved, the printed brackets, the failures."""
    d = cert.digits
    what = {"k": "MI(C, V) enclosed by monotone series (Scenario I), by the monotone "
                 "skew-normal expectation F(|lambda|) with certified integrals (Scenario II) "
                 "or by monotone certified integrals of the Laplace conditional class "
                 "probabilities (Scenario III)",
            "beta": "inputs enclosed at the fixed parameters; objectives affine in beta"}.get(
        cert.sw.param, "inputs enclosed by ball arithmetic over each cell")
    if cert.sw.method.reads_joint:
        what += ("; joint inputs from the structure derived with the parameter symbolic, "
                 "two-point pairs as closed forms in it times ln 2 (polygon areas under "
                 "uniform laws, (2/pi) atan and r/(1+r) for reflections of normal and "
                 "Laplace laws), integrals over directions with their sets of directions "
                 "bracketed over each cell and the weight integrated through Chebyshev "
                 "models with proved error bounds, identities in the leaves expanded "
                 "exactly; "
                 "each special point's own derivation proved equal to the open form's "
                 "limit there")
    out = {
        "certified": not failures,
        "method": ("interval arithmetic (python-flint arb balls, outward-rounded mpmath "
                   "intervals) through the method's own objective code; " + what),
        "cells": cells,
        "brackets": [],
    }
    for x0, x1, b in brackets:
        at = decimal_text(b.at, d + 3)  # the bracket's digits (20 digits can fall outside it)
        lo, hi = bracket_text(x0, x1, at, d + 3)
        out["brackets"].append({"at": at, "from": lo, "to": hi})
        w, m = Fraction(hi) - Fraction(lo), max(abs(Fraction(lo)), abs(Fraction(hi)))
        if w >= Fraction(1, 10**d) * m:
            failures.append(f"the printed bracket [{lo}, {hi}] is not below 10^-{d} "
                            "relative")
    out["certified"] = not failures
    if cert.notes:
        out["assumptions"] = list(cert.notes)
    if failures:
        out["failures"] = failures
        out["summary"] = (f"not certified ({len(failures)} piece(s) not proved, listed); the "
                          f"rest as sampled and bracketed: " + guarantee(cert.sw.spec)["summary"])
    else:
        cond = " (given the stated numerical constants)" if cert.notes else ""
        out["summary"] = (f"certified{cond}: on every region the reported ordering is the "
                          f"exact one at every point (interval proof on {cells} cells); every "
                          f"change lies in a certified bracket of relative width < "
                          f"10^-{d} around its breakpoint; special points are exact")
    return out
