"""Every implementation of the two interfaces the objectives are written against
(:mod:`fstheory.orderings.protocols`) against its Protocol: the methods present with compatible
signatures, and a small behavioural check on one shared scenario point (Scenario I, uniform, at
k = 0.2): the same values as the exact view within the implementation's precision.

Precision per world: the float views hold the exact values rounded to doubles (relative 1e-15);
the bound and low-stage intervals and the certificate's cell at the point contain the exact
value (30 digits); the selector's estimators (histogram and kNN, on one sample of 20,000
observations drawn with a fixed seed) within 0.05 nats, well above their bias on these
quantities at that size (observed below 0.01; the bias of MI(X, X-Y), 0.08 for the histogram,
is why that quantity is not used here)."""

from __future__ import annotations

import inspect

import mpmath
import numpy as np
import pytest
import sympy as sp

from fstheory.atlas.certificate.certify import Certifier
from fstheory.atlas.certificate.enclose import Cell
from fstheory.atlas.certificate.interval import IX, IntervalOps as CellOps, SymbolicOps
from fstheory.atlas.certificate.views import IntervalView as CellView, SymbolicView
from fstheory.atlas.lowstage import LowStageView
from fstheory.atlas.sweep import AtlasSpec, sweep_of
from fstheory.engine.evaluate import evaluate
from fstheory.engine.values import ScenarioValues
from fstheory.orderings.arithmetic import ArrayValues, ExactOps, FloatOps, TracingExactOps
from fstheory.orderings.bounds import IntervalOps as BoundOps, IntervalView
from fstheory.orderings.protocols import Arithmetic, GreedyArithmetic, JointValuesView, ValuesView
from fstheory.scenarios.registry import get_scenario
from fstheory.selection.estimators import BinnedBatch
from fstheory.selection.greedy import FloatValues
from fstheory.selection.values import HistogramValues, KnnValues
from fstheory.simulation.sampler import ScenarioSampler

K = "0.2"
#: quantities read in the behavioural checks: (method, args)
PLAIN = [("h", (0,)), ("h", (3,)), ("mi_c", (0,)), ("mi_c", (2,)), ("mi", (0, 3)), ("mi", (2, 3)),
         ("mi", (0, 1))]
JOINT = [("h_c", ()), ("mi_c_pair", (0, 2)), ("cmi_c", (2, 0)), ("mi_given_c", (0, 2)),
         ("h_pair_c", (0, 2)), ("mi_c_set", ((0, 2),)), ("cmi_c_set", (2, (0,)))]
#: what the estimators are checked on (finite, small bias at 20,000 observations)
ESTIMATED = [("h", (0,)), ("mi_c", (0,)), ("mi_c", (2,)), ("h_c", ())]


def _protocol_methods(proto) -> dict:
    return {name: getattr(proto, name) for name in dir(proto)
            if not name.startswith("_") and callable(getattr(proto, name, None))}


def check_signatures(cls, proto) -> None:
    """Each method of ``proto`` is defined by ``cls`` and accepts the protocol's calls: its
    positional parameters, and the optional ones by keyword."""
    for name, want in _protocol_methods(proto).items():
        have = getattr(cls, name, None)
        assert callable(have), f"{cls.__name__} has no method {name}"
        params = list(inspect.signature(want).parameters.values())[1:]
        sig = inspect.signature(have)
        positional = [object()] * sum(p.default is inspect.Parameter.empty for p in params)
        keywords = {p.name: p.default for p in params if p.default is not inspect.Parameter.empty}
        try:
            sig.bind(object(), *positional, **keywords)
        except TypeError as exc:
            raise AssertionError(f"{cls.__name__}.{name}{sig} does not accept the calls of "
                                 f"{proto.__name__}.{name}: {exc}") from None


# ----- the shared point, in every world --------------------------------------------------------


@pytest.fixture(scope="module")
def exact() -> ScenarioValues:
    return evaluate(get_scenario("uniform").bind(k=K), digits=30)


def _as_float(x) -> float:
    return float(x.value) if x.is_finite else (np.inf if x.sign() > 0 else -np.inf)


@pytest.fixture(scope="module")
def sample():
    s = ScenarioSampler.from_registry("uniform", {"k": K})
    base = s.draw_base(np.random.default_rng(0), 1, 20_000)
    return s.features(base), s.classes(base)


@pytest.fixture(scope="module")
def certifier():
    sw = sweep_of(AtlasSpec(method="mifs", parameter="k", lo="0.1", hi="0.3", scenario="uniform",
                            beta="1/2", digits=20, grid=4))
    return Certifier(sw)


def _array_values(exact):
    n = exact.n_features
    full = np.array([[[_as_float(exact.mi(i, j)) for j in range(n)] for i in range(n)]])
    joint = {"h_c": np.array([_as_float(exact.h_c())])}
    for name in ("mi_c_pair", "cmi_c", "mi_given_c", "h_pair_c"):
        m = np.full((1, n, n), np.nan)
        for _, (i, j) in [q for q in JOINT if q[0] == name]:
            m[0, i, j] = _as_float(getattr(exact, name)(i, j))
        joint[name] = m
    h = np.array([[_as_float(exact.h(i)) for i in range(n)]])
    mc = np.array([[_as_float(exact.mi_c(i)) for i in range(n)]])
    return ArrayValues(h, mc, full, joint)


def _float_values(exact):
    a = _array_values(exact)
    return FloatValues(a.h_, a.mi_c_, a.mi_)


def _low_stage(exact):
    return LowStageView(exact, mpmath.mpf(10) ** -12, mpmath.mpf(10) ** -25)


def _cell_view(certifier):
    k = sp.Rational(K)
    return CellView(certifier.leaves, Cell(k, k), False)


def _close_float(got, want):
    got = float(np.squeeze(got))
    if want.is_finite:
        assert got == pytest.approx(float(want.value), rel=1e-15, abs=1e-300)
    else:
        assert got == _as_float(want)


def _contains(got: IX, want):
    if not want.is_finite:
        assert got.kind == ("+inf" if want.sign() > 0 else "-inf")
        return
    assert got.finite and got.lo <= want.value <= got.hi, (got, want)


def _bound_point(got, want):
    assert got.lo.same(want) and got.hi.same(want) and got.sure is None


def _estimate(got, want):
    if want.is_finite and abs(want.value) < 10:
        assert abs(float(np.squeeze(got)) - float(want.value)) < 0.05


def _same(got, want):
    assert got.same(want)


# name: (the class, its protocol, the view built from the fixtures (fx: the fixture getter), how
# a value is checked against the exact one, the quantities it holds at the point)
VIEWS = {
    "ScenarioValues": (ScenarioValues, JointValuesView, lambda fx: fx("exact"), _same,
                       PLAIN + JOINT),
    "ArrayValues": (ArrayValues, JointValuesView, lambda fx: _array_values(fx("exact")),
                    _close_float, PLAIN + JOINT[:5]),
    "FloatValues": (FloatValues, ValuesView, lambda fx: _float_values(fx("exact")), _close_float,
                    PLAIN),
    "IntervalView": (IntervalView, JointValuesView, lambda fx: IntervalView(fx("exact")),
                     _bound_point, PLAIN + JOINT[:5]),
    "LowStageView": (LowStageView, JointValuesView, lambda fx: _low_stage(fx("exact")), _contains,
                     PLAIN + JOINT),
    "certificate cell": (CellView, JointValuesView, lambda fx: _cell_view(fx("certifier")),
                         _contains, PLAIN),
    "HistogramValues": (HistogramValues, JointValuesView,
                        lambda fx: HistogramValues(BinnedBatch(fx("sample")[0]), fx("sample")[1]),
                        _estimate, ESTIMATED),
    "KnnValues": (KnnValues, JointValuesView,
                  lambda fx: KnnValues(fx("sample")[0][0].T, fx("sample")[1][0].astype(int),
                                       np.zeros(fx("sample")[0].shape[1], dtype=bool)),
                  _estimate, ESTIMATED),
}


@pytest.mark.parametrize("name", list(VIEWS))
def test_values_view(name, request):
    cls, proto, build, check, quantities = VIEWS[name]
    check_signatures(cls, proto)
    view = build(request.getfixturevalue)
    assert isinstance(view, proto)
    exact = request.getfixturevalue("exact")
    with mpmath.workdps(30):
        for method, args in quantities:
            want = getattr(exact, method)(*args)
            assert want.is_determinate
            check(getattr(view, method)(*args), want)


def test_symbolic_certificate_view(certifier):
    # the symbolic view gives each quantity as its leaf symbol (one per input function): the
    # same symbol for MI(3X+1, Y^2) read either way, MI(C, V) for the pair {V, V}
    check_signatures(SymbolicView, JointValuesView)
    view = SymbolicView(certifier.leaves, frozenset())
    assert isinstance(view, JointValuesView)
    assert view.mi(1, 2) == view.mi(2, 1) and view.mi_c_pair(2, 2) == view.mi_c(2)
    assert view.mi_c(0) == certifier.symbol[("mi_c", 0)]


# ----- the arithmetic -------------------------------------------------------------------------


ARITHMETIC = {"ExactOps": ExactOps(), "TracingExactOps": TracingExactOps(), "FloatOps": FloatOps(),
              "bounds IntervalOps": BoundOps(), "certificate IntervalOps": CellOps(),
              "SymbolicOps": SymbolicOps()}
GREEDY = {"ExactOps", "TracingExactOps", "FloatOps", "certificate IntervalOps"}


def _in_world(name, exact_value):
    """The exact value in the world of the arithmetic ``name``."""
    if name == "FloatOps":
        return np.float64(_as_float(exact_value))
    if name == "bounds IntervalOps":
        from fstheory.orderings.bounds import point

        return point(exact_value)
    if name == "certificate IntervalOps":
        return IX.point(mpmath.mpf(exact_value.value)) if exact_value.is_finite else (
            IX.POS_INF if exact_value.sign() > 0 else IX.NEG_INF)
    if name == "SymbolicOps":
        return sp.Float(exact_value.value, 30) if exact_value.is_finite else None
    return exact_value


def _read_back(name, x):
    """A value of the world ``name`` as an mpf (a point's value, a float, a number)."""
    if name == "bounds IntervalOps":
        assert x.lo.same(x.hi)
        x = x.lo
    if name == "certificate IntervalOps":
        assert x.finite and x.hi - x.lo <= mpmath.mpf(10) ** -25 * max(1, abs(x.lo))
        return x.lo
    if hasattr(x, "is_finite") and not isinstance(x, (float, np.floating)):
        return mpmath.mpf(x.value) if hasattr(x, "value") else mpmath.mpf(sp.N(x, 30))
    return mpmath.mpf(float(x))


@pytest.mark.parametrize("name", list(ARITHMETIC))
def test_arithmetic(name, exact):
    ops = ARITHMETIC[name]
    proto = GreedyArithmetic if name in GREEDY else Arithmetic
    check_signatures(type(ops), proto)
    assert isinstance(ops, proto)
    # MIFS's objective of X-Y after X at beta = 1/2, in this world and in the exact one:
    # MI(C, X-Y) - 1/2 * MI(X-Y, X), with a mean, a min2 and a max2 around it
    precision = mpmath.mpf(10) ** (-13 if name == "FloatOps" else -25)
    with mpmath.workdps(30), ops.quiet():
        terms = [exact.mi_c(3), exact.mi(3, 0), exact.mi_c(0)]
        a, b, c = (_in_world(name, t) for t in terms)
        got = ops.max2(ops.min2(ops.mean([a, c]), a - ops.const("1/2", "beta") * b),
                       ops.sum([a, b]) - ops.max([a, b, c]))
        e = ExactOps()
        want = e.max2(e.min2(e.mean(terms[::2]), terms[0] - e.const("1/2") * terms[1]),
                      e.sum(terms[:2]) - e.max(terms))
        assert abs(_read_back(name, got) - want.value) <= precision * max(1, abs(want.value))
        if name in GREEDY:
            assert ops.beats(a, b) is not None and bool(ops.beats(a, b)) == (terms[0] > terms[1])
            assert bool(ops.tied(a, a)) and bool(ops.beats(a, a, first=True))
