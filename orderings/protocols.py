"""The two interfaces the methods' objectives are written against, as ``typing.Protocol`` s.

An objective (:meth:`fstheory.orderings.methods.Method.objective`) is one function of an
arithmetic ``ops`` and a values view ``v``; the same definition runs in every world
(:mod:`fstheory.orderings.arithmetic`):

:class:`Arithmetic`
    what the objectives call on ``ops``: constants, the set operations and ``quiet``.
:class:`GreedyArithmetic`
    an arithmetic in which a greedy step can be taken: the greedy comparison (``choosable``,
    ``compare``, ``tied``, ``beats``) that decides who wins a step.
:class:`ValuesView`
    what the objectives of the two-dimensional methods read on ``v``: h(V_i), MI(C, V_i) and
    MI(V_i, V_j).
:class:`JointValuesView`
    also what the three-dimensional methods read: H(C), MI(C; {V_i, V_j}), MI(C; V_i | V_j),
    MI(V_i; V_j | C), H(V_i, V_j, C), MI(C; V_T) and MI(C; V_i | V_T). A view may refuse a
    quantity it does not hold (a ``LookupError`` naming it).

The implementations (tests/orderings/test_protocols.py checks each against these): the arithmetic of the
exact, tracing, float, bound-interval, atlas-interval and symbolic worlds; the views of the
engine (:class:`~fstheory.engine.values.ScenarioValues`), of the float worlds
(:class:`~fstheory.orderings.arithmetic.ArrayValues`,
:class:`~fstheory.selection.greedy.FloatValues`, the selector's estimates in
:mod:`fstheory.selection.values`), of the bounds of unknown values
(:class:`~fstheory.orderings.bounds.IntervalView`) and of the atlas (its low stage and its
certificate).
"""

from __future__ import annotations

from typing import Any, ContextManager, Protocol, Sequence, runtime_checkable

__all__ = ["Arithmetic", "GreedyArithmetic", "ValuesView", "JointValuesView"]


@runtime_checkable
class Arithmetic(Protocol):
    """The operations an objective performs besides ``+ - * /`` on the values."""

    name: str

    def const(self, x, label: str | None = None) -> Any:
        """A constant (beta, 1/2, |S|, ...) named ``label`` for explanations."""

    def sum(self, seq: Sequence) -> Any:
        """Sum over a set (0 for an empty one)."""

    def max(self, seq: Sequence) -> Any:
        """Maximum over a non-empty set."""

    def min(self, seq: Sequence) -> Any:
        """Minimum over a non-empty set."""

    def mean(self, seq: Sequence) -> Any:
        """Mean over a non-empty set."""

    def min2(self, a, b) -> Any:
        """min{a, b}."""

    def max2(self, a, b) -> Any:
        """max{a, b}."""

    def quiet(self) -> ContextManager:
        """A context in which the objective is evaluated (silences float warnings)."""


@runtime_checkable
class GreedyArithmetic(Arithmetic, Protocol):
    """An arithmetic with the greedy comparison (:mod:`fstheory.orderings.arithmetic`)."""

    def choosable(self, a) -> Any:
        """Whether ``a`` can win a step (not indeterminate, not computed, not nan)."""

    def compare(self, a, b) -> Any:
        """+1, -1 or 0 (tied within the world's band); None where the world cannot tell."""

    def tied(self, a, b) -> Any:
        """``compare(a, b) == 0``."""

    def beats(self, a, b, first: bool = False) -> Any:
        """Whether ``a`` wins against ``b``, given whether its candidate comes first."""


@runtime_checkable
class ValuesView(Protocol):
    """The two-dimensional quantities of one scenario (or estimate, or cell) by feature index."""

    def h(self, i) -> Any:
        """h(V_i)."""

    def mi_c(self, i) -> Any:
        """MI(C, V_i)."""

    def mi(self, i, j) -> Any:
        """MI(V_i, V_j)."""


@runtime_checkable
class JointValuesView(ValuesView, Protocol):
    """Also the joint quantities that the three-dimensional methods read."""

    def h_c(self) -> Any:
        """H(C)."""

    def mi_c_pair(self, i, j) -> Any:
        """MI(C; {V_i, V_j})."""

    def cmi_c(self, i, j) -> Any:
        """MI(C; V_i | V_j)."""

    def mi_given_c(self, i, j) -> Any:
        """MI(V_i; V_j | C)."""

    def h_pair_c(self, i, j) -> Any:
        """H(V_i, V_j, C)."""

    def mi_c_set(self, T) -> Any:
        """MI(C; V_T) for a set T of features."""

    def cmi_c_set(self, i, T) -> Any:
        """MI(C; V_i | V_T)."""
