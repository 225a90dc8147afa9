"""Integrands with a branch point handed to arb's certified integration.

``acb.integral`` proves its error bound only if the integrand, asked with ``analytic=True``,
returns a non-finite ball wherever it is not holomorphic on the complex ball it is given. A
square root evaluated without that flag is finite on a ball around its branch point (sqrt(0) =
0), so a piece ending there is integrated as if the function were holomorphic: a wrong value
with a tiny radius. Each test puts a branch point at the end of a piece and checks the certified
value against an independent reference (a closed form, and mpmath's quadrature at higher
precision in a variable where the integrand is smooth)."""

import mpmath
import sympy as sp

from fstheory.theory.laws import Uniform
from fstheory.theory.numeric import NumericRoute

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
