r"""What a set of features reveals about the base variables, derived from the declarations.

A feature is a function of independent base variables ``b`` with known laws; the class is
``C = 1{g(b) >= theta}``. Everything here answers a question about the *fiber* of a set of
features ``V_S``: the set of base points ``b'`` with ``V_S(b') = V_S(b)``, i.e. what remains
unknown about ``b`` once ``V_S`` is observed. Each answer is a proof or ``None`` ("not shown"),
never a guess: the callers fall back to closed forms or to the numerical route.

The fiber (:func:`fiber`)
    Features of three kinds are understood:

    * *linear*, ``sum_j c_j b_j + e``: the fiber satisfies ``A b' = A b`` (linear algebra over
      the base variables: X and X-Y together reveal Y);
    * *of one variable*, ``g(b_j)``: ``b'_j`` is one of the level-set partners of ``b_j``, given
      by maps ``x -> m x + q`` (``X^2``: ``{x, -x}``; ``(X-1)^2``: ``{x, 2 - x}``; both together:
      ``{x}``), found from ``g(y) = g(x)`` (complete for polynomials; one-to-one functions have
      only ``x``; ``|c x + e|`` reflects about ``-e/c``); partners that map the support outside
      itself are dropped;
    * anything else: the fiber is not derived (``None``).

    The fiber is a finite union of *branches* ``b -> T b + t`` plus free directions ``N z`` (the
    null space of the linear constraints on the coordinates no one-variable feature fixes). A
    branch that is consistent only on a null set of ``b`` is dropped (the base variables have a
    joint density).

Uses
    * :func:`determines`: a target ``h(b)`` is a function of ``V_S`` when ``h`` is constant on
      every branch and along the free directions. MI(C; V_S) = H(C) when the class is.
    * :func:`independent_features`: features whose base variables are, through the other
      features, never connected to the class's are independent of (C, the rest) and can be
      dropped (a feature constant at the bound parameters has no base variable at all).
    * :func:`class_swap`: a law-preserving signed permutation (with the shifts that keep each
      law) that fixes every feature of ``S`` and maps ``g`` to ``2 theta - g``; then
      ``P(C=1 | V_S) = 1/2`` and MI(C; V_S) = 0 (the paper's Appendix theorem, for sets;
      ``S`` empty gives P(C=1) = 1/2, H(C) = ln 2). Hypotheses checked: each law preserved,
      ``g`` a non-constant polynomial (so ``P(g = theta) = 0``).
    * :func:`two_point`: the fiber is ``{b, tau b}`` with ``tau`` a law-preserving reflection of
      some coordinates about their centres; then ``P(C=1 | V_S)`` is 0, 1/2 or 1 and
      ``H(C | V_S) = ln 2 * P(C != C o tau)`` (:func:`swap_probability`); e.g. ``{X, Y^2}`` in
      Scenario I: ``P(|X| < k|Y|) = k/2``, MI = ln 2 (1 - k/2).
    * :func:`uncertainty_witness`: an exact rational point ``b0`` and a fiber point ``b1`` of it,
      both inside the support, away from critical points, with ``C(b0) != C(b1)``: by continuity
      a neighbourhood of positive probability has ``0 < P(C=1 | V_S) < 1``, so
      ``H(C | V_S) > 0`` (a proof that ``V_S`` does not determine the class).

Sources: the change of variables for the law of a feature (paper Section 6); measure-preserving
involutions (paper Appendix A); conditional distributions on fibers (e.g. Billingsley,
*Probability and Measure*, Section 33).

Examples
--------
>>> import sympy as sp
>>> from fstheory.theory.laws import Uniform
>>> X, Y = sp.symbols("X Y", real=True)
>>> laws = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
>>> event = ClassEvent(X + Y / 5, 0)
>>> determines([X, X - Y], event.expr, laws), determines([X**2], X, laws)
(True, False)
>>> determines([X**2, (X - 1)**2], X, laws)
True
>>> class_swap([X**2, Y**2], event, laws).describe()
'(X -> -X, Y -> -Y)'
>>> tau = two_point([X, Y**2], event, laws)
>>> tau.describe(), swap_probability(event, tau, laws)
('(Y -> -Y)', 1/10)
"""

from __future__ import annotations

from fstheory.theory.class_symmetry import SignedMap, class_swap, swap_probability, two_point
from fstheory.theory.class_witness import Witness, uncertainty_witness
from fstheory.theory.fibers import (
    Branch,
    ClassEvent,
    Fiber,
    LawsByContent,
    bases,
    determines,
    fiber,
    independent_features,
    univariate_partners,
)

__all__ = [
    "ClassEvent",
    "LawsByContent",
    "Branch",
    "Fiber",
    "SignedMap",
    "Witness",
    "bases",
    "univariate_partners",
    "fiber",
    "determines",
    "independent_features",
    "class_swap",
    "two_point",
    "swap_probability",
    "uncertainty_witness",
]
