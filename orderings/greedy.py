"""Greedy forward selection with the paper's rules (Section 7), on exact extended-real values.

Rules
-----
1. The first feature maximises MI(C, V_i) (no feature is selected yet, so no redundancy term).
2. At each later step every remaining candidate's objective is evaluated
   (:meth:`fstheory.orderings.methods.Method.objective`); the candidate with the largest *determinate*
   value wins, -inf included (Section 7: "3X+1, X-Y and X^2 are all selected with a -inf
   objective function value").
3. Ties go to the lower feature index ("they appear in this order because it is how they appear
   in the initial list of features").
4. An indeterminate candidate (0/0, 0*inf, inf-inf, inf/inf) cannot be chosen.
5. Selection stops when every remaining candidate is indeterminate.
6. Never rank past an unknown. A candidate whose objective needs a value the engine did not
   compute ("not computed") is *unknown* -- unless a term that does not depend on the missing
   value is already indeterminate, or the objective is indeterminate for every completion of
   the missing values (then it is indeterminate). An unknown candidate may be passed over only
   if it provably cannot win: its objective, evaluated over the ranges the missing values can
   take (:mod:`fstheory.orderings.bounds`; e.g. MI(C;{Vi,Vj}) lies in [max(MI(C,Vi), MI(C,Vj)),
   H(C)]), stays below the best known value (or, for a candidate after the best one in the
   list, does not exceed it: ties go to the lower index). Otherwise the step cannot be decided
   and the selection stops there (``stop.kind == "undecided"``; ``fstheory order`` exits 3): an
   ordering of only the computable features is never presented as the answer.

Ties between finite values are decided at the working precision: two values closer than
``10**-(digits - 5)`` relative to ``max(1, |a|, |b|)`` are tied (values derived to ``digits``
significant digits cannot be told apart beyond that), unless their enclosures are disjoint (then
they are proved different, and the larger wins however small the gap). Each step records which candidates tied
with the winner.

Examples
--------
>>> from fstheory.orderings.greedy import select
>>> from fstheory.theory.extended import xr, POS_INF, ZERO
>>> from fstheory.engine.values import ScenarioValues
>>> L = ("A", "B")
>>> v = ScenarioValues("toy", {}, L, (xr(0, "h(A)"), xr(1, "h(B)")),
...     (xr(1, "MI(C,A)"), xr(0, "MI(C,B)")),
...     ((POS_INF, xr(0, "MI(A,B)")), (xr(0, "MI(B,A)"), POS_INF)))
>>> r = select(v, "mmifs-u")
>>> r.order_labels, r.stop.after, r.stop.candidates[0].value.form.value
(['A'], 1, '0*inf')
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction

import mpmath

from fstheory.orderings.arithmetic import EXACT_OPS, TracingExactOps, first_best
from fstheory.orderings.bounds import Interval, objective_bounds
from fstheory.orderings.methods import Method, get_method
from fstheory.theory.extended import ExtendedReal, Form
from fstheory.engine.values import ScenarioValues

__all__ = ["Candidate", "Step", "Stop", "SelectionResult", "select", "tie_band"]


@dataclass(frozen=True)
class Candidate:
    """A candidate's objective at one step (0-based ``index``)."""

    index: int
    label: str
    value: ExtendedReal
    terms: tuple[ExtendedReal, ...] = ()
    """For a non-finite value: the non-finite terms met while evaluating it (every distinct
    indeterminate with its own cause, and the infinite terms), from a traced re-evaluation."""
    bound: Interval | None = None
    """For a value that needs a not-computed one: the objective's range over the missing
    values (``bound.sure`` set when it is indeterminate for every one of them)."""
    missing: tuple[str, ...] = ()
    """The not-computed values the objective needs, as "<quantity> not computed: <why>"."""

    @property
    def name(self) -> str:
        """'V3' (1-based, as in the paper's feature tables)."""
        return f"V{self.index + 1}"

    @property
    def determinate(self) -> bool:
        return self.value.is_determinate

    @property
    def unknown(self) -> bool:
        """The objective needs a not-computed value and is not indeterminate whatever it is."""
        return (self.value.is_indeterminate and self.value.form is Form.NOT_COMPUTED
                and not self._true_indeterminates() and (self.bound is None or self.bound.sure is None))

    def _true_indeterminates(self) -> tuple[ExtendedReal, ...]:
        return tuple(t for t in self.terms
                     if t.is_indeterminate and t.form is not Form.NOT_COMPUTED)

    @property
    def form(self) -> str | None:
        """The indeterminate form ('0/0', ...), "not computed" for an unknown, or None."""
        if self.value.is_determinate:
            return None
        if self.value.form is Form.NOT_COMPUTED and not self.unknown:
            true = self._true_indeterminates()
            return true[0].form.value if true else self.bound.sure.value
        return self.value.form.value

    @property
    def cause(self) -> str | None:
        """For an indeterminate: the first operation, with its operands, that produced it."""
        if self.value.is_determinate:
            return None
        if self.value.form is Form.NOT_COMPUTED and not self.unknown:
            true = self._true_indeterminates()
            if true:
                return true[0].cause
            return (f"{self.bound.sure.value} for every value of the missing terms ("
                    + "; ".join(self.missing) + ")")
        return self.value.cause

    @property
    def indeterminate_terms(self) -> tuple[ExtendedReal, ...]:
        """Every distinct indeterminate term (first cause first)."""
        if self.value.is_indeterminate and self.value.form is Form.NOT_COMPUTED and not self.unknown:
            true = self._true_indeterminates()
            if true:
                return true
            return (ExtendedReal.indeterminate(self.bound.sure, self.cause),)
        return tuple(t for t in self.terms if t.is_indeterminate)

    @property
    def forms(self) -> tuple[str, ...]:
        """The distinct indeterminate forms met, in order ('0/0', '0*inf')."""
        out: list[str] = []
        for t in self.indeterminate_terms:
            if t.form.value not in out:
                out.append(t.form.value)
        return tuple(out)

    @property
    def infinite_terms(self) -> tuple[ExtendedReal, ...]:
        return tuple(t for t in self.terms if t.is_infinite)

    def text(self, digits: int = 15) -> str:
        """Decimal string, '+inf', '-inf' or the indeterminate form."""
        return self.value.text(digits)


@dataclass(frozen=True)
class Step:
    """One selection step (``number`` is 1-based; step 1 ranks by MI(C, V_i))."""

    number: int
    criterion: str
    candidates: tuple[Candidate, ...]
    selected: int
    tied: tuple[int, ...]

    @property
    def winner(self) -> Candidate:
        return next(c for c in self.candidates if c.index == self.selected)

    @property
    def indeterminate(self) -> tuple[Candidate, ...]:
        return tuple(c for c in self.candidates if not c.determinate and not c.unknown)

    @property
    def unknown(self) -> tuple[Candidate, ...]:
        """Candidates that need a not-computed value (each provably unable to win this step)."""
        return tuple(c for c in self.candidates if c.unknown)


@dataclass(frozen=True)
class Stop:
    """Selection stopped after ``after`` features.

    ``kind`` "indeterminate": every remaining candidate is indeterminate (rule 5).
    ``kind`` "undecided": step ``after + 1`` cannot be decided because the candidates in
    ``blocking`` need values that were not computed and could win (rule 6).
    """

    after: int
    candidates: tuple[Candidate, ...]
    kind: str = "indeterminate"
    blocking: tuple[Candidate, ...] = ()

    @property
    def forms(self) -> dict[str, str]:
        return {c.name: c.form for c in self.candidates}

    @property
    def missing(self) -> list[str]:
        """The not-computed values that block the step (each once)."""
        out: list[str] = []
        for c in self.blocking:
            for m in c.missing:
                if m not in out:
                    out.append(m)
        return out

    @property
    def statement(self) -> str:
        """One sentence: why the selection stopped."""
        if self.kind == "undecided":
            return f"step {self.after + 1} cannot be decided: " + "; ".join(self.missing)
        return "every remaining candidate is indeterminate"


@dataclass(frozen=True)
class SelectionResult:
    method: Method
    beta: Fraction | None
    reading: str
    zero_beta: str
    values: ScenarioValues
    steps: tuple[Step, ...]
    stop: Stop | None
    gamma: Fraction | None = None

    @property
    def order(self) -> list[int]:
        """Selected feature indices, 0-based, in selection order."""
        return [s.selected for s in self.steps]

    @property
    def order_labels(self) -> list[str]:
        return [self.values.labels[i] for i in self.order]

    @property
    def complete(self) -> bool:
        return self.stop is None

    @property
    def undecided(self) -> bool:
        """The selection stopped at a step that a not-computed value leaves undecided."""
        return self.stop is not None and self.stop.kind == "undecided"

    def describe_method(self) -> str:
        return self.method.describe(self.beta, self.reading, self.zero_beta, self.gamma)


def _terms(m: Method, values, i, selected, beta, reading, zero_beta, value, gamma=None) -> tuple:
    """Re-evaluate a non-finite objective with tracing. Keep every distinct indeterminate
    (the value's own first cause leads) and the infinite *terms* (elements of a sum, max or
    mean, not their results: the terms are where an infinity comes from)."""
    tracer = TracingExactOps()
    m.objective(tracer, values, i, selected, beta, reading=reading, zero_beta=zero_beta,
                gamma=gamma)
    events = tracer.events + [("result", value)]
    seen, out = set(), []
    for role, t in events:
        if t.is_indeterminate:
            key = (t.form, t.cause)
        elif role == "term":
            key = (t.kind, t.label)
        else:
            continue
        if key not in seen:
            seen.add(key)
            out.append(t)
    if value.is_indeterminate:
        out.sort(key=lambda t: not (t.is_indeterminate and t.cause == value.cause))
    return tuple(out)


def tie_band(digits: int) -> mpmath.mpf:
    """The relative band of :func:`select`'s ties at ``digits``: 10^-(digits - 5), at least
    10^-5 (relative to max(1, |a|, |b|))."""
    return mpmath.mpf(10) ** -(max(digits - 5, 5))


def _pick(cands: list[Candidate], ops) -> tuple[Candidate | None, tuple[int, ...]]:
    """The step's winner (:func:`~fstheory.orderings.arithmetic.first_best`) and the candidates
    tied with it."""
    k = first_best(ops, [c.value for c in cands])
    if k is None:
        return None, ()
    best = cands[k]
    tied = tuple(c.index for c in cands
                 if ops.choosable(c.value) and c is not best and ops.tied(c.value, best.value))
    return best, tied


def _could_win(c: Candidate, best: Candidate | None, ops) -> bool:
    """An unknown candidate could win the step: its upper bound reaches the best known value
    (within the tie band if it comes first in the list, beyond it if it comes after)."""
    if best is None:
        return True
    return ops.beats(c.bound.hi, best.value, first=c.index < best.index)


def _unknown_candidate(m, values, i, selected, beta, reading, zero_beta, value, terms,
                       label, gamma=None) -> Candidate:
    bound, missing = objective_bounds(m, values, i, selected, beta, reading, zero_beta, gamma)
    return Candidate(i, label, value, terms, bound, tuple(missing))


def select(values: ScenarioValues, method, beta=None, *, reading: str | None = None,
           zero_beta: str = "explicit", digits: int | None = None,
           start: tuple[int, ...] = (), gamma=None) -> SelectionResult:
    """Greedy forward selection of ``values``' features by ``method`` (name or :class:`Method`).

    Parameters
    ----------
    values : ScenarioValues
        Exact values (extended reals) of one scenario at one parameter point.
    method : str or Method
        Registry name, case-insensitive (:func:`fstheory.orderings.methods.method_names`).
    beta : number or str, optional
        Required in [0, 1] for mifs, mifs-u and beta-gamma (which also takes "1/|S|"), refused
        for the others.
    reading : str, optional
        Which written form of the objective (default: the method's default, see
        :mod:`fstheory.orderings.methods`).
    zero_beta : {"explicit", "drop"}
        At beta = 0 (or a zero beta or gamma of beta-gamma): evaluate as written (default) or
        drop the term.
    digits : int, optional
        Working precision (default ``values.digits``).
    gamma : number or str, optional
        Required in [0, 1] or "1/|S|" for beta-gamma, refused for the others.
    start : tuple of int, optional
        Features taken as already selected, in this order: their steps are not evaluated (they
        carry no candidates, criterion "given") and the greedy continues after them. The atlas
        uses it when cheaper values have decided the first steps.

    Raises
    ------
    fstheory.orderings.methods.MethodError
        For an unknown method or bad beta / reading / zero_beta.
    """
    m = method if isinstance(method, Method) else get_method(method)
    beta, reading, zero_beta = m.check(beta, reading, zero_beta, gamma)
    gamma = m.gamma_value(gamma)
    digits = values.digits if digits is None else digits
    labels = values.labels
    steps: list[Step] = []
    stop = None
    with mpmath.workdps(digits):
        ops = EXACT_OPS.with_band(tie_band(digits))
        remaining = list(range(values.n_features))
        for i in start:
            steps.append(Step(len(steps) + 1, "given", (), i, ()))
            remaining.remove(i)
        while remaining:
            selected = [s.selected for s in steps]
            criterion = "objective" if selected else "MI(C,Vi)"
            cands = []
            for i in remaining:
                if selected:
                    value = m.objective(ops, values, i, selected, beta, reading=reading,
                                        zero_beta=zero_beta, gamma=gamma)
                    terms = () if value.is_finite else _terms(
                        m, values, i, selected, beta, reading, zero_beta, value, gamma)
                else:
                    value, terms = values.mi_c(i), ()
                c = Candidate(i, labels[i], value, terms)
                if value.is_indeterminate and value.form is Form.NOT_COMPUTED:
                    c = _unknown_candidate(m, values, i, selected, beta, reading, zero_beta,
                                           value, terms, labels[i], gamma)
                cands.append(c)
            best, tied = _pick(cands, ops)
            blocking = tuple(c for c in cands if c.unknown and _could_win(c, best, ops))
            if blocking:
                stop = Stop(len(selected), tuple(cands), "undecided", blocking)
                break
            if best is None:
                stop = Stop(after=len(selected), candidates=tuple(cands))
                break
            steps.append(Step(len(steps) + 1, criterion, tuple(cands), best.index, tied))
            remaining.remove(best.index)
    return SelectionResult(m, beta, reading, zero_beta, values, tuple(steps), stop, gamma)
