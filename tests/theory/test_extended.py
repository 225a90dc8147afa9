"""Property tests for every rule of the extended reals (theory/extended.py).

Each arithmetic rule is checked against an independent oracle written here from the rules of the
extended real line (module docstring of fstheory.theory.extended), on values drawn by hypothesis from all
kinds: finite (including exact zeros and negatives), +inf, -inf and the four indeterminate forms.
Finite results are compared with mpmath evaluated at the same precision (exact equality: one
rounded operation each side).
"""

from __future__ import annotations

from fractions import Fraction

import mpmath
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from fstheory.theory.extended import (
    DIVISION_BY_ZERO,
    NEG_INF,
    POS_INF,
    ZERO,
    ExtendedReal,
    Form,
    IndeterminateComparison,
    Kind,
    xmax,
    xmean,
    xmin,
    xr,
    xsum,
)

# per-test settings (a loaded profile would change every hypothesis test in the session)
SETTINGS = settings(max_examples=150, deadline=None)

# ----- strategies -------------------------------------------------------------------------------

finite_numbers = st.one_of(
    st.just(0),
    st.integers(-(10**6), 10**6),
    st.fractions(min_value=-1000, max_value=1000, max_denominator=10**6),
    st.floats(allow_nan=False, allow_infinity=False, min_value=-1e12, max_value=1e12),
)
finites = finite_numbers.map(xr)
nonzero_finites = finites.filter(lambda v: not v.is_zero)
infinities = st.sampled_from([POS_INF, NEG_INF])
determinates = st.one_of(finites, infinities)
indeterminates = st.builds(
    lambda form, n: ExtendedReal.indeterminate(form, f"cause-{form.value}-{n}"),
    st.sampled_from(list(Form)),
    st.integers(0, 99),
)
anything = st.one_of(finites, infinities, indeterminates)


def oracle_sign(v: ExtendedReal) -> int:
    if v.kind is Kind.POS_INF:
        return 1
    if v.kind is Kind.NEG_INF:
        return -1
    return int(mpmath.sign(v.value))


def inf_of(sign: int) -> ExtendedReal:
    return POS_INF if sign > 0 else NEG_INF


def assert_same(got: ExtendedReal, want: ExtendedReal) -> None:
    """Same kind; same value (finite); same form and cause (indeterminate)."""
    assert got.kind is want.kind, (got, want)
    if want.is_finite:
        assert got.value == want.value, (got, want)
    if want.is_indeterminate:
        assert got.form is want.form and got.cause == want.cause, (got, want)


def oracle_add(a: ExtendedReal, b: ExtendedReal) -> ExtendedReal | Form:
    """Extended-real addition; the first indeterminate operand is returned unchanged."""
    if a.is_indeterminate:
        return a
    if b.is_indeterminate:
        return b
    if a.is_finite and b.is_finite:
        return xr(a.value + b.value)
    if a.is_infinite and b.is_infinite:
        return a if a.kind is b.kind else Form.INF_MINUS_INF
    return a if a.is_infinite else b


def oracle_mul(a: ExtendedReal, b: ExtendedReal) -> ExtendedReal | Form:
    if a.is_indeterminate:
        return a
    if b.is_indeterminate:
        return b
    if (a.is_infinite and b.is_zero) or (a.is_zero and b.is_infinite):
        return Form.ZERO_TIMES_INF
    if a.is_finite and b.is_finite:
        return xr(a.value * b.value)
    return inf_of(oracle_sign(a) * oracle_sign(b))


def oracle_div(a: ExtendedReal, b: ExtendedReal) -> ExtendedReal | Form:
    if a.is_indeterminate:
        return a
    if b.is_indeterminate:
        return b
    if a.is_zero and b.is_zero:
        return Form.ZERO_OVER_ZERO
    if a.is_infinite and b.is_infinite:
        return Form.INF_OVER_INF
    if b.is_zero:  # the named convention: x / 0 = sign(x) * inf
        return inf_of(oracle_sign(a))
    if b.is_infinite:
        return xr(0)
    if a.is_infinite:
        return inf_of(oracle_sign(a) * oracle_sign(b))
    return xr(a.value / b.value)


def check(got: ExtendedReal, want) -> None:
    if isinstance(want, Form):
        assert got.is_indeterminate and got.form is want, (got, want)
        assert got.cause  # a new indeterminate always says which operation made it
    else:
        assert_same(got, want)


IND_A = ExtendedReal.indeterminate(Form.ZERO_OVER_ZERO, "first")
IND_B = ExtendedReal.indeterminate(Form.INF_MINUS_INF, "second")

# ----- the convention -----------------------------------------------------------------------------


def test_division_by_zero_convention_is_named():
    assert DIVISION_BY_ZERO == "signed-infinity"
    assert (xr("0.59") / xr(0)).is_pos_inf
    assert (xr("-0.1") / xr(0)).is_neg_inf
    assert (POS_INF / xr(0)).is_pos_inf and (NEG_INF / xr(0)).is_neg_inf


# ----- addition, subtraction, negation -----------------------------------------------------------


@SETTINGS
@given(anything, anything)
@example(POS_INF, NEG_INF)
@example(NEG_INF, POS_INF)
@example(POS_INF, POS_INF)
@example(NEG_INF, xr(-3))
@example(IND_A, IND_B)
@example(xr(5), IND_B)
@example(POS_INF, IND_A)
def test_addition_rule(a, b):
    check(a + b, oracle_add(a, b))


@SETTINGS
@given(anything, anything)
@example(POS_INF, POS_INF)
@example(NEG_INF, NEG_INF)
@example(POS_INF, NEG_INF)
@example(xr(0), POS_INF)
@example(IND_A, IND_B)
def test_subtraction_rule(a, b):
    # a - b is a + (-b): inf - inf (same sign) is the inf-inf form
    want = oracle_add(a, -b) if not b.is_indeterminate else oracle_add(a, b)
    if a.is_determinate and b.is_infinite and a.kind is b.kind:
        want = Form.INF_MINUS_INF
    check(a - b, want)


@SETTINGS
@given(anything)
@example(ZERO)
@example(POS_INF)
def test_negation_rule(a):
    n = -a
    if a.is_indeterminate:
        assert n.is_indeterminate and n.form is a.form and n.cause == a.cause
    elif a.is_finite:
        assert n.is_finite and n.value == -a.value
    else:
        assert n.kind is (Kind.NEG_INF if a.is_pos_inf else Kind.POS_INF)
    if a.is_determinate:
        assert (-n).same(a)


@SETTINGS
@given(determinates, determinates)
def test_addition_and_multiplication_commute_on_determinates(a, b):
    assert (a + b).same(b + a)
    assert (a * b).same(b * a)


@SETTINGS
@given(anything, anything)
def test_commutativity_of_determinacy(a, b):
    """With indeterminates, kind still commutes; the form kept is the left operand's (first cause)."""
    assert (a + b).is_indeterminate == (b + a).is_indeterminate
    assert (a * b).is_indeterminate == (b * a).is_indeterminate
    if a.is_indeterminate:
        assert (a + b).cause == a.cause and (a * b).cause == a.cause


@SETTINGS
@given(finites, finites)
def test_finite_arithmetic_agrees_with_mpmath(a, b):
    with mpmath.workdps(40):
        x, y = mpmath.mpf(a.value), mpmath.mpf(b.value)
        assert (a + b).value == x + y
        assert (a - b).value == x - y
        assert (a * b).value == x * y
        if y != 0:
            assert (a / b).value == x / y


@SETTINGS
@given(st.fractions(min_value=-100, max_value=100, max_denominator=1000).filter(lambda f: f != 0))
def test_precision_follows_the_callers_workdps(f):
    with mpmath.workdps(60):
        third = xr(f) / xr(3)
        assert third.value == mpmath.mpf(f.numerator) / f.denominator / 3
        assert abs(third.value * 3 - mpmath.mpf(f.numerator) / f.denominator) < mpmath.mpf(10) ** -55


# ----- multiplication and division ----------------------------------------------------------------


@SETTINGS
@given(anything, anything)
@example(ZERO, POS_INF)
@example(NEG_INF, ZERO)
@example(NEG_INF, NEG_INF)
@example(POS_INF, xr(-2))
@example(IND_B, ZERO)
def test_multiplication_rule(a, b):
    check(a * b, oracle_mul(a, b))


@SETTINGS
@given(anything, anything)
@example(ZERO, ZERO)
@example(POS_INF, NEG_INF)
@example(xr(3), ZERO)
@example(xr(-3), ZERO)
@example(NEG_INF, ZERO)
@example(xr(7), NEG_INF)
@example(POS_INF, xr(-4))
@example(ZERO, IND_A)
def test_division_rule(a, b):
    check(a / b, oracle_div(a, b))


@SETTINGS
@given(finite_numbers, anything)
def test_python_numbers_mix_in(x, b):
    """int/float/Fraction operands are read as finite extended reals, on either side."""
    a = xr(x)
    check(x + b, oracle_add(a, b))
    check(b + x, oracle_add(b, a))
    check(x * b, oracle_mul(a, b))
    check(x / b, oracle_div(a, b))
    check(b / x, oracle_div(b, a))


# ----- labels compose into causes ----------------------------------------------------------------


def test_causes_name_the_operation_and_its_operands():
    h = xr(0, "h(X)")
    q = xr(0, "MI(Y,X)") / h
    assert q.form is Form.ZERO_OVER_ZERO
    assert q.cause == "MI(Y,X)/h(X) with MI(Y,X) = 0, h(X) = 0"
    p = (xr("0.59", "MI(C,X)") / h) * xr(0, "MI(Y,X)")
    assert p.form is Form.ZERO_TIMES_INF
    assert p.cause == "MI(C,X)/h(X)*MI(Y,X) with MI(C,X)/h(X) = +inf, MI(Y,X) = 0"
    d = xr(1, "MI(C,Z)") - xr(POS_INF, "MI(Z,Z^2)") + xr(POS_INF, "MI(Z,Z)")
    assert d.form is Form.INF_MINUS_INF
    assert d.cause.startswith("MI(C,Z) - MI(Z,Z^2) + MI(Z,Z) with")


def test_labels_show_the_grouping_evaluated():
    b, c, h, m = xr(1, "beta"), xr(1, "MI(C,X)"), xr(2, "h(X)"), xr(1, "MI(Y,X)")
    assert (b * c / h * m).label == "beta*MI(C,X)/h(X)*MI(Y,X)"
    assert (b * c * (m / h)).label == "beta*MI(C,X)*(MI(Y,X)/h(X))"
    assert (c - (m + h)).label == "MI(C,X) - (MI(Y,X) + h(X))"
    assert (c / (m + h)).label == "MI(C,X)/(MI(Y,X) + h(X))"
    # feature names with + and - inside MI(...) are not operators
    assert (xr(1, "MI(X,X-Y)") / xr(1, "h(3X+1)")).label == "MI(X,X-Y)/h(3X+1)"
    assert (-(c + m)).label == "-(MI(C,X) + MI(Y,X))"


@SETTINGS
@given(st.lists(anything, min_size=1, max_size=6), anything)
def test_first_indeterminate_cause_is_kept_through_later_operations(values, other):
    """Once an expression is indeterminate, later +, -, *, / keep its form and cause."""
    first = ExtendedReal.indeterminate(Form.INF_OVER_INF, "the first cause")
    acc = first
    for v in values:
        acc = acc + v
        acc = acc * other
        acc = acc - v
        acc = acc / other
        acc = -acc
    assert acc.is_indeterminate and acc.form is Form.INF_OVER_INF and acc.cause == "the first cause"


# ----- comparison ---------------------------------------------------------------------------------


def order_key(v: ExtendedReal):
    return (oracle_sign(v), 0) if v.is_infinite else (0, v.value)


@SETTINGS
@given(determinates, determinates)
@example(NEG_INF, xr(-10**6))
@example(POS_INF, POS_INF)
@example(ZERO, xr(0.0))
def test_comparison_is_the_order_of_the_extended_line(a, b):
    assert (a < b) == (order_key(a) < order_key(b))
    assert (a <= b) == (order_key(a) <= order_key(b))
    assert (a > b) == (order_key(a) > order_key(b))
    assert (a >= b) == (order_key(a) >= order_key(b))
    assert (a == b) == (order_key(a) == order_key(b))
    if a == b:
        assert hash(a) == hash(b)
    assert NEG_INF <= a <= POS_INF


@SETTINGS
@given(finites, finites)
def test_comparison_agrees_with_mpmath_on_finites(a, b):
    assert (a < b) == (a.value < b.value)
    assert (a == b) == (a.value == b.value)


@SETTINGS
@given(indeterminates, anything)
def test_comparing_an_indeterminate_raises(a, b):
    for op in (lambda x, y: x < y, lambda x, y: x <= y, lambda x, y: x > y, lambda x, y: x >= y):
        with pytest.raises(IndeterminateComparison):
            op(a, b)
        with pytest.raises(IndeterminateComparison):
            op(b, a)
    with pytest.raises(IndeterminateComparison):
        a.sign()


def test_indeterminate_comparison_is_a_value_error():
    assert issubclass(IndeterminateComparison, ValueError)


# ----- sum, max, min, mean over sets -------------------------------------------------------------


def oracle_fold_sum(values):
    acc = xr(0)
    for i, v in enumerate(values):
        step = oracle_add(acc, v) if i else v
        if isinstance(step, Form):
            return step
        acc = step
    return acc


@SETTINGS
@given(st.lists(anything, max_size=8))
@example([])
@example([POS_INF, NEG_INF, IND_A])
@example([IND_A, POS_INF, NEG_INF])
@example([xr(1), IND_B, IND_A])
def test_xsum_is_the_left_fold_and_keeps_the_first_cause(values):
    got, want = xsum(values), oracle_fold_sum(values)
    if isinstance(want, Form):
        assert got.is_indeterminate and got.form is want
    elif want.is_indeterminate:
        assert got.form is want.form and got.cause == want.cause
    elif want.is_finite:
        assert got.is_finite and got.value == want.value
    else:
        assert got.kind is want.kind


@SETTINGS
@given(st.lists(finites, min_size=1, max_size=8))
def test_xsum_and_xmean_agree_with_mpmath_on_finites(values):
    with mpmath.workdps(50):
        s = xsum(values)
        ref = mpmath.fsum([v.value for v in values])
        assert abs(s.value - ref) <= mpmath.mpf(10) ** -45 * max(1, *(abs(v.value) for v in values))
        m = xmean(values)
        assert abs(m.value - ref / len(values)) <= mpmath.mpf(10) ** -45 * max(
            1, *(abs(v.value) for v in values)
        )


@SETTINGS
@given(st.lists(anything, min_size=1, max_size=8))
@example([POS_INF, IND_A, IND_B])
@example([NEG_INF, NEG_INF])
def test_xmax_xmin(values):
    first_ind = next((v for v in values if v.is_indeterminate), None)
    for fn, pick in ((xmax, max), (xmin, min)):
        got = fn(values)
        if first_ind is not None:
            assert got.is_indeterminate and got.cause == first_ind.cause
        else:
            want = pick(values, key=order_key)
            assert got.same(want)
            assert all((got >= v) if fn is xmax else (got <= v) for v in values)


@SETTINGS
@given(st.lists(anything, min_size=1, max_size=8))
def test_xmean_is_sum_over_count(values):
    got, s = xmean(values), xsum(values)
    assert got.kind is s.kind
    if s.is_indeterminate:
        assert got.form is s.form and got.cause == s.cause
    if s.is_finite:
        assert got.value == s.value / len(values)


def test_empty_sets():
    assert xsum([]).same(ZERO)
    for fn in (xmax, xmin, xmean):
        with pytest.raises(ValueError, match="empty"):
            fn([])


def test_set_operations_label():
    a, b = xr(1, "MI(Y,X)"), xr(3, "MI(Y,Z)")
    assert xsum([a, b]).label == "MI(Y,X) + MI(Y,Z)"
    assert xmean([a, b]).label == "(MI(Y,X) + MI(Y,Z))/2"
    assert xmax([a, b]).label == "MI(Y,Z)" and xmin([a, b]).label == "MI(Y,X)"
    assert xmax([a, b], label="max").label == "max"


# ----- construction -------------------------------------------------------------------------------


@SETTINGS
@given(finite_numbers)
def test_construction_from_numbers(x):
    v = xr(x)
    assert v.is_finite
    if isinstance(x, Fraction):
        with mpmath.workdps(30):
            assert abs(v.value - mpmath.mpf(x.numerator) / x.denominator) <= abs(v.value) * 1e-14 + 1e-300
    else:
        assert v.value == mpmath.mpf(x)


def test_nan_and_bool_are_refused():
    with pytest.raises(ValueError, match="NaN"):
        xr(float("nan"))
    with pytest.raises(ValueError, match="NaN"):
        xr(mpmath.mpf("nan"))
    with pytest.raises(TypeError):
        xr(True)
    assert xr(float("inf")).is_pos_inf and xr(-mpmath.inf).is_neg_inf


def test_text_forms():
    assert POS_INF.text() == "+inf" and NEG_INF.text() == "-inf"
    assert (ZERO / ZERO).text() == "0/0" and (ZERO * POS_INF).text() == "0*inf"
    assert (POS_INF - POS_INF).text() == "inf-inf" and (POS_INF / NEG_INF).text() == "inf/inf"
    assert ZERO.text() == "0"
    with mpmath.workdps(30):
        assert xr("0.5").text(6) == "0.500000"


def test_negation_is_exact_at_a_lower_working_precision():
    """-x keeps every bit of x (a value computed at 140 bits, negated at 30 digits): a - a is
    an exact 0, not the rounding of -a with a radius that does not cover it."""
    import mpmath

    from fstheory.theory.extended import ExtendedReal

    with mpmath.workprec(140):
        a = ExtendedReal.finite(mpmath.mpf(1) / 3, radius=mpmath.mpf("1e-43"))
    with mpmath.workdps(30):
        d = a - a
        assert d.value == 0 and d.radius < mpmath.mpf("1e-42")
        assert (-a).value._mpf_[1:] == a.value._mpf_[1:] and (-a).value < 0
