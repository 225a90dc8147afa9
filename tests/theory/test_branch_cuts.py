"""Integrands with a branch point handed to arb's certified integration.

``acb.integral`` proves its error bound only if the integrand, asked with ``analytic=True``,
returns a non-finite ball wherever it is not holomorphic on the complex ball it is given. A
square root evaluated without that flag is finite on a ball around its branch point (sqrt(0) =
0), so a piece ending there is integrated as if the function were holomorphic: a wrong value
with a tiny radius. Each test puts a branch point at the end of a piece and checks the certified
value against an independent reference (a closed form, and mpmath's quadrature at higher
precision in a variable where the integrand is smooth)."""

import mpmath
import pytest
import sympy as sp
from flint import acb, arb

from fstheory.theory.arbexpr import UnsupportedExpression, compile_expr
from fstheory.theory.interrupts import acb_integral
from fstheory.theory.laws import Uniform
from fstheory.theory.numeric import NumericRoute
from fstheory.theory.quadrature import flint_precision
from fstheory.theory.rule import Rule

Y = sp.Symbol("Y", real=True)
DPS = 36  # the engine's working digits for 30 printed digits (and guard digits)


def _check(result, reference, digits=30):
    """certified, the reference inside the stated error, and >= ``digits`` digits agree."""
    assert result.certified, result.method
    with mpmath.workdps(50):
        gap = abs(mpmath.mpf(result.value) - reference)
        assert gap <= mpmath.mpf(result.error) + mpmath.mpf(10) ** -(DPS + 2), (result, reference)
        assert gap <= abs(reference) * mpmath.mpf(10) ** -digits, (result, reference)


def test_jacobian_with_a_square_root_at_the_support_end():
    """V = Y + (2/3) Y^(3/2), Y ~ U(0, 1): V' = 1 + sqrt(Y), whose square root branches at the
    support end 0, so h(V) = h(Y) + E ln(1 + sqrt Y) = int_0^1 2 t ln(1 + t) dt = 1/2
    (u = t^2). Without the flag on sqrt the route certified 0.5347999967... +/- 2e-19."""
    route = NumericRoute({Y: Uniform(0, 1)})
    with mpmath.workdps(DPS):
        h = route.entropy(Y + sp.Rational(2, 3) * Y ** sp.Rational(3, 2))
    with mpmath.workdps(50):
        ref = mpmath.quad(lambda t: 2 * t * mpmath.log1p(t), [0, 1])
        assert abs(ref - mpmath.mpf(1) / 2) < mpmath.mpf(10) ** -45
    _check(h, ref)


# --- the compiler's side of the contract ----------------------------------------------------------

U = sp.Symbol("u", real=True)


@pytest.mark.parametrize("expr, point", [
    (sp.sqrt(U), 0), (U ** sp.Rational(3, 2), 0), (U ** sp.Rational(1, 3), 0),
    (1 / sp.sqrt(U), 0), (sp.log(U), 0), (sp.log(1 + U), -1), (1 + sp.sqrt(U), 0),
    (sp.sqrt(U ** 2 + 1), 1j), (sp.atan(U), 1j), (U ** sp.pi, 0),
])
def test_compiled_branch_points_are_not_analytic(expr, point):
    """With ``analytic=True`` every compiled expression is non-finite on a ball around a branch
    point (as acb.integral requires)."""
    f = compile_expr(expr, (U,))
    ball = acb(arb(complex(point).real, "1e-3"), arb(complex(point).imag, "1e-3"))
    assert not f(ball, analytic=True).is_finite()


@pytest.mark.parametrize("expr", [sp.Abs(U), sp.sign(U), sp.Min(U, 1), sp.Max(U, 0),
                                  sp.Piecewise((U, U > 0), (0, True)), sp.floor(U)])
def test_non_analytic_operations_are_refused_on_complex_balls(expr):
    """|.|, sign, min, max, piecewise choices and floor have no holomorphic extension: refused
    on a complex ball (the caller resolves them per piece first)."""
    with pytest.raises(UnsupportedExpression):
        compile_expr(expr, (U,))(acb(arb("0.5", "0.1")), analytic=True)


def test_square_root_at_the_end_of_a_certified_integral():
    """int_0^1 ln(1 + sqrt u) du = 1/2 (u = t^2) through the compiler and acb.integral; the
    same integral without the flag is the defect this module guards against (a wrong value,
    0.5347999967..., with a radius of 10^-35)."""
    f = compile_expr(sp.log(1 + sp.sqrt(U)), (U,))
    with flint_precision(120):
        v = acb_integral(lambda z, an: acb(f(z, analytic=an)), 0, 1)
        assert v.real.contains(arb(1) / 2) and v.real.rad() < arb(10) ** -30
        wrong = acb_integral(lambda z, an: acb(f(z)), 0, 1)
        assert not wrong.real.contains(arb(1) / 2) and wrong.real.rad() < arb(10) ** -30


def _quadratic_rule_pair_reference(k, dps=45):
    """MI(C; {|Y|, X + Y}) for X, Y ~ U(-1, 1), C = 1{X^2 + k Y^2 <= 1/2}, by a one-dimensional
    route: given |Y| = y and X + Y = s the two points (s - y, y) and (s + y, -y) have equal
    densities, so P(C = 1 | V) is 0, 1 or 1/2, and E[H_b] = (ln 2 / 2) int_0^1 L(y) dy with L
    the length of the s where both points lie in the square and exactly one satisfies the rule
    (A = [y - r, y + r], B = [-y - r, -y + r], r = sqrt(1/2 - k y^2)); P(C = 1) =
    (1/2) int_{-1}^{1} min(1, r(y)) dy. Split at r = y, r = 1 - 2y and r = 0."""
    with mpmath.workdps(dps):
        k = mpmath.mpf(k)
        half = mpmath.mpf(1) / 2

        def r(y):
            return mpmath.sqrt(max(half - k * y * y, 0))

        def length(y):
            lo, hi = -1 + y, 1 - y
            a, b = (y - r(y), y + r(y)), (-y - r(y), -y + r(y))

            def inside(iv):
                return max(mpmath.mpf(0), min(iv[1], hi) - max(iv[0], lo))

            both = max(mpmath.mpf(0), min(a[1], b[1], hi) - max(a[0], b[0], lo))
            return inside(a) + inside(b) - 2 * both

        cuts = {mpmath.mpf(0), mpmath.mpf(1), 1 / mpmath.sqrt(2 * (1 + k))}
        cuts |= {y for y in mpmath.polyroots([4 + k, -4, half]) if 0 < y < 1}
        if 2 * k > 1:
            cuts.add(1 / mpmath.sqrt(2 * k))
        pts = sorted(cuts)
        avg = mpmath.log(2) / 2 * mpmath.quad(length, pts)
        p1 = mpmath.quad(lambda y: min(1, r(y)), pts)  # (1/2) int_{-1}^{1} = int_0^1
        hc = -(p1 * mpmath.log(p1) + (1 - p1) * mpmath.log(1 - p1))
        return hc - avg


@pytest.mark.parametrize("k", ["1/2", "3/10"])
def test_symmetric_quadratic_cut_ending_a_cell(k):
    """A cut a y^2 + c(x) = 0 (no linear term) has a double root y = 0 where c vanishes: the
    stable root c / q is 0/0 there, and the cell's probability could not be bounded near it, so
    the certified cubature gave up and the estimated nested quadrature took 80 s at 15 digits
    (exceeding the work budget at 30). The root is now the other form at that point; the value
    is certified and agrees with the one-dimensional reference to 28 digits."""
    X = sp.Symbol("X", real=True)
    laws = {X: Uniform(-1, 1), Y: Uniform(-1, 1)}
    rule = Rule(sp.Rational(1, 2) - X ** 2 - sp.Rational(k) * Y ** 2)
    with mpmath.workdps(DPS):
        got = NumericRoute(laws, rule).mi_class_set((sp.Abs(Y), X + Y))
    _check(got, _quadratic_rule_pair_reference(sp.Rational(k)), digits=28)
