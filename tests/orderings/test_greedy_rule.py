"""The greedy comparison, written once in the arithmetic interface (``ops.choosable``,
``ops.compare``, ``ops.tied``, ``ops.beats``), gives the same step winner in every world: the
exact extended reals, the floats (``nan`` for an indeterminate) and the intervals of the atlas
certificate (point enclosures), on random steps of finite, infinite and indeterminate values."""

from __future__ import annotations

import mpmath
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.atlas.certificate.interval import IX, IntervalOps
from fstheory.orderings.arithmetic import EXACT_OPS, FLOAT_OPS, beats_by, first_best
from fstheory.theory.extended import NEG_INF, POS_INF, ExtendedReal, Form, xr

SETTINGS = settings(max_examples=200, deadline=None)

# a value: a small integer (so that ties happen), +inf, -inf or an indeterminate
VALUE = st.one_of(st.integers(-3, 3), st.sampled_from(["+inf", "-inf", "0/0", "not computed"]))


def exact(x) -> ExtendedReal:
    if x == "+inf":
        return POS_INF
    if x == "-inf":
        return NEG_INF
    if x == "0/0":
        return ExtendedReal.indeterminate(Form.ZERO_OVER_ZERO, "0/0 in a test")
    if x == "not computed":
        return ExtendedReal.indeterminate(Form.NOT_COMPUTED, "not computed in a test")
    return xr(x)


def floating(x) -> float:
    return {"+inf": np.inf, "-inf": -np.inf, "0/0": np.nan, "not computed": np.nan}.get(x, x)


def interval(x) -> IX:
    if x == "+inf":
        return IX.POS_INF
    if x == "-inf":
        return IX.NEG_INF
    if x in ("0/0", "not computed"):
        return IX.indeterminate("0/0", "in a test")
    return IX.point(mpmath.mpf(x)) if x else IX.ZERO


def by_definition(values) -> int | None:
    """The paper's rule read literally: the largest choosable value, the lowest index among
    equal ones; None when nothing is choosable."""
    key = {"+inf": mpmath.inf, "-inf": -mpmath.inf}
    choosable = [(key.get(x, x), k) for k, x in enumerate(values)
                 if x not in ("0/0", "not computed")]
    if not choosable:
        return None
    top = max(v for v, _ in choosable)
    return min(k for v, k in choosable if v == top)


@SETTINGS
@given(st.lists(VALUE, min_size=1, max_size=7))
def test_one_step_in_every_world(values):
    want = by_definition(values)
    assert first_best(EXACT_OPS, [exact(x) for x in values]) == want
    assert first_best(IntervalOps(), [interval(x) for x in values]) == want
    row = np.array([[floating(x) for x in values]], dtype=float)
    picked = int(FLOAT_OPS.pick(row, np.ones(row.shape, dtype=bool))[0])
    assert picked == (-1 if want is None else want)
    # the scan with the float world's elementwise comparison gives the same winner
    scan = first_best(FLOAT_OPS, [np.float64(v) for v in row[0]])
    assert scan == want


@SETTINGS
@given(VALUE, VALUE, st.booleans())
def test_pairwise_comparison_agrees_across_worlds(a, b, first):
    want = EXACT_OPS.beats(exact(a), exact(b), first=first)
    assert IntervalOps().beats(interval(a), interval(b), first=first) == want
    assert bool(FLOAT_OPS.beats(np.float64(floating(a)), np.float64(floating(b)), first)) == want


def test_tie_bands():
    """Exact world: tied within the band only where the enclosures overlap (values known to
    that precision cannot be told apart); exact values that differ are proved apart."""
    def ball(x, r):
        return ExtendedReal.finite(mpmath.mpf(x), radius=mpmath.mpf(r))

    band = EXACT_OPS.with_band(mpmath.mpf(10) ** -5)
    a, b = ball("1", "1e-6"), ball("1.000001", "1e-6")
    assert band.tied(a, b) and not EXACT_OPS.tied(a, b)
    assert not band.tied(xr("1"), xr("1.000001"))  # exact and different: proved apart
    # a later candidate must be larger beyond the band: the first of two tied values wins
    assert first_best(band, [a, b]) == 0
    assert first_best(EXACT_OPS, [a, b]) == 1
    assert band.with_band(None).band is None and EXACT_OPS.band is None
    # relative to max(1, |a|, |b|): absolute near 0
    assert band.tied(ball("1e-7", "1e-7"), ball("-1e-7", "1e-7"))
    assert not band.tied(ball(10, "0.01"), ball("10.001", "0.01"))
    # the float band: below the best value, relative to max(1, |best|)
    ops = FLOAT_OPS.with_ties(1e-9)
    row = np.array([[1.0, 1.0 + 1e-10, 0.5], [np.nan, 2.0, 2.0 + 1e-15]])
    assert ops.pick(row, np.ones(row.shape, dtype=bool)).tolist() == [0, 1]
    assert FLOAT_OPS.pick(row, np.ones(row.shape, dtype=bool)).tolist() == [1, 2]


def test_the_float_band_ties_to_the_maximum_and_the_exact_one_scans():
    # a chain of values each within the band of the next: the exact world's scan moves past
    # the first one (the third beats the first beyond the band), the float world ties every
    # value within the band of the maximum (a documented difference of the two worlds)
    eps = 10.0 ** -6
    values = [1.0, 1.0 + 0.6 * eps, 1.0 + 1.2 * eps]
    with mpmath.workdps(30):
        band = EXACT_OPS.with_band(mpmath.mpf(eps))
        assert first_best(band, [xr(mpmath.mpf(v)) for v in values]) == 2
    row = np.array([values])
    assert FLOAT_OPS.with_ties(eps).pick(row, np.ones(row.shape, dtype=bool)).tolist() == [1]


def test_undecided_intervals_do_not_decide():
    ops = IntervalOps()
    u = IX.undecided("a divisor that may vanish")
    assert ops.compare(u, IX.POS_INF) is None and ops.beats(IX.ZERO, u) is None
    assert ops.choosable(u) is None and ops.tied(u, u) is None
    overlapping = IX.interval(mpmath.mpf(0), mpmath.mpf(2)), IX.interval(mpmath.mpf(1), mpmath.mpf(3))
    assert ops.compare(*overlapping) is None
    assert ops.compare(IX.interval(mpmath.mpf(2), mpmath.mpf(3)), IX.point(1)) == 1
    assert beats_by(None, True) is None and beats_by(0, True) and not beats_by(0, False)
