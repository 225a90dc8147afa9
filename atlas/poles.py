r"""Poles of the 3-D objectives: the zeros of H(V_i,V_j,C) inside a swept range, as special points.

DISR divides by the mixed joint entropy H(V_i,V_j,C), which can vanish inside the range (Scenario
I: H(X,Z,C) = 2 ln(2 delta) + k/2, zero at delta = e^(-k/4)/2). Its objective is then +inf, -inf
or indeterminate at that point and changes sign through infinity across it. The atlas takes such
points as *special points* (:func:`fstheory.atlas.sweep.atlas`): found exactly, evaluated
exactly, and the regions on both sides located as usual; the certificate
(:func:`fstheory.atlas.certificate.certify.run`) refuses a row where such a zero is not
a special point.

Where the zeros come from: the certificate's joint leaves
(:class:`~fstheory.atlas.certificate.joint.JointLeaves`), built from the structure derived once
with the parameter symbolic (:class:`~fstheory.engine.derive_joint.ParametricStructure`), give
H(V_i,V_j,C) as one closed form in the parameter t when every term has one
(:meth:`~fstheory.atlas.certificate.joint.JointLeaves.closed_form`). Its zeros in the open range are
solved by sympy's ``solveset``; a root is kept only when the form is exactly 0 at it (a root that
sympy returns as a float, or a set it cannot list, leaves that quantity *unsolved*: the sweep
then locates the change through infinity as a pole and the certificate cannot prove the cells
around it).

At a zero t0 (irrational in general, where the engine cannot bind the scenario's laws) the joint
values are those leaves' exact values at t0 (:func:`joint_values_at`): the structure derived with
t symbolic holds at every t of the open range where no coefficient of the class or of a feature
vanishes, and the leaves refuse a range that holds such a point, so these are the engine's values
there, exact (H(X,Z,C) is exactly 0).

Examples
--------
>>> from fstheory.atlas.sweep import AtlasSpec, sweep_of
>>> spec = AtlasSpec(scenario="uniform", method="disr", parameter="k", lo="0", hi="1",
...                  fixed=(("delta", "9/20"),))
>>> poles = divisor_zeros(sweep_of(spec).certifier)
>>> [(str(x), names) for x, names in poles.points.items()]
[('-8*log(3) + 4*log(10)', ('H(X,Z,C)', 'H(X,W+2,C)'))]
"""

from __future__ import annotations

from dataclasses import dataclass

import mpmath
import sympy as sp

from fstheory.atlas.certificate.enclose import NoEnclosure
from fstheory.atlas.certificate.interval import SYM_INF
from fstheory.atlas.numbers import as_exact
from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, xr
from fstheory.theory.symbolic import GUARD_DIGITS, exact_value, is_exact_zero, mp_value
from fstheory.engine.evaluate_joint import pair_label
from fstheory.engine.values import JointValues

__all__ = ["Poles", "divisor_zeros", "joint_values_at"]


@dataclass(frozen=True)
class Poles:
    """The zeros inside the open range of the H(V_i,V_j,C) a 3-D objective divides by.

    ``points``: exact zero -> the quantities that vanish there (in pair order), ordered by the
    point; ``unsolved``: the quantities whose zeros are not known exactly (no closed form, or
    sympy cannot list them)."""

    points: dict
    unsolved: tuple


NONE = Poles({}, ())


def divisor_zeros(cert) -> Poles:
    """The :class:`Poles` of ``cert``'s row (a :class:`~fstheory.atlas.certificate.cells.Certifier`);
    none when its objective does not read H(V_i,V_j,C). Raises NoEnclosure when the joint leaves
    cannot be built (then no zero is known exactly). The zeros do not depend on the row: kept
    with its leaves, which are shared by the rows over the same values."""
    if not cert.divides_by_joint_entropy():
        return NONE
    if cert.leaves.poles is not None:
        return cert.leaves.poles
    joint = cert.joint()
    t = cert.t
    where = sp.Interval.open(as_exact(cert.sw.spec.lo), as_exact(cert.sw.spec.hi))
    labels = cert.sw.labels
    found: dict = {}
    unsolved = []
    for i in range(len(labels)):
        for j in range(i + 1, len(labels)):
            d = ("hpair", i, j)
            if joint.kind(d) != "identity":
                continue  # 0 or an infinity on the whole range: no isolated zero
            name = f"H({labels[i]},{labels[j]},C)"
            form = joint.closed_form(d)
            roots = None if form is None else _zeros(form, t, where, cert)
            if roots is None:
                unsolved.append(name)
                continue
            for x in roots:
                found.setdefault(x, []).append(name)
    points = {x: tuple(found[x]) for x in sorted(found, key=lambda r: float(r))}
    cert.leaves.poles = Poles(points, tuple(unsolved))
    return cert.leaves.poles


def _zeros(form, t, where, cert) -> list | None:
    """The exact zeros of ``form`` in ``where``, each checked to make it exactly 0 (None: not
    found exactly; [] when it has none, or vanishes identically: no isolated zero)."""
    if is_exact_zero(form):
        return []
    try:
        sol = sp.solveset(form, t, where)
    except (NotImplementedError, ValueError, TypeError):
        return None
    if sol is sp.S.EmptySet:
        return []
    if not isinstance(sol, sp.FiniteSet):
        return None
    out = []
    for r in sol:
        if r.has(sp.Float) or not r.is_real:
            return None
        if not is_exact_zero(exact_value(form, {t: r}, cert.leaves.dirs({t: r}))):
            return None
        out.append(r)
    return out


def joint_values_at(cert, x, values, digits: int) -> JointValues:
    """Every joint quantity at the point ``x`` of the open range from the joint leaves' exact
    values there (see the module docstring), as the engine's extended reals at ``digits``;
    ``values``: the 2-D values at ``x`` (MI(C;{V_i,V_i}) is MI(C,V_i))."""
    joint = cert.joint()
    n = len(values.labels)
    L = values.labels
    memo: dict = {}

    def value(d, label) -> ExtendedReal:
        kind = joint.kind(d) if d[0] != "pair" else "identity"
        if kind in ("+inf", "-inf"):
            return (POS_INF if kind == "+inf" else NEG_INF).named(label)
        if kind == "zero":
            return xr(0, label)
        e = (cert.symbol[("pair", min(d[1:]), max(d[1:]))] if d[0] == "pair"
             else joint.expression(d, frozenset()))
        if e is SYM_INF:  # an identity with an infinite term: refused by JointLeaves
            raise NoEnclosure(f"{label}: an infinite term")
        v = joint.opened(e, x, memo)
        if is_exact_zero(v):
            return xr(0, label)
        return xr(mp_value(v), label)

    with mpmath.workdps(digits + GUARD_DIGITS):
        h_c = joint.opened(cert.symbol[("hc",)], x, memo)
        hc = xr(0, "H(C)") if is_exact_zero(h_c) else xr(mp_value(h_c), "H(C)")
        pair = [[values.mi_c(i) if i == j else value(("pair", i, j), pair_label(L[i], L[j]))
                 for j in range(n)] for i in range(n)]
        cmi = [[xr(0, f"MI(C;{L[i]}|{L[j]})") if i == j
                else value(("cmi", i, j), f"MI(C;{L[i]}|{L[j]})") for j in range(n)]
               for i in range(n)]
        given = [[value(("given", min(i, j), max(i, j)) if i != j else ("given", i, i),
                        f"MI({L[i]};{L[j]}|C)") for j in range(n)] for i in range(n)]
        hpair = [[value(("hpair", min(i, j), max(i, j)) if i != j else ("hpair", i, i),
                        f"H({L[i]},{L[j]},C)") for j in range(n)] for i in range(n)]
    why = ("the open range's closed forms at this point (the structure derived with the "
           "parameter symbolic)")
    return JointValues(hc, tuple(map(tuple, pair)), tuple(map(tuple, cmi)),
                       tuple(map(tuple, given)), tuple(map(tuple, hpair)), {"h_c": why})

