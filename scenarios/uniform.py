"""Scenario I (paper Sections 5-6): X, Y, Z, W i.i.d. Unif(-delta, delta).

Parameters: delta > 0 (paper: 1/2), a != 0, b, d, and k in [0, 1] in C_k = 1{X + kY >= 0}.

Closed forms known to this scenario: the MI between the class and the class variables and
their difference (Table "General expression ... Scenario I"). Every MI with the class is
invariant under the common scaling (X, Y) -> (X, Y)/delta, which leaves C_k unchanged, so none
depends on delta (the paper gives MI(C_k, X-Y) "only for delta = 0.5"; it holds for all delta).
Entropies and the MI between features are not listed here: they are derived from the laws
(:mod:`fstheory.theory.law_algebra`) and from the structure of the declarations.

Derivations (checked against the numerical route in ``tests/theory/test_second_route.py``):

* MI(C_k, X) = ln 2 - k/2. Given X = x, P(C=1 | x) = P(Y >= -x/k) = 1/2 + x/(2k delta), clipped
  to [0, 1]; it is strictly between 0 and 1 on |x| < k delta (probability k), where it is
  uniform, and E[H_b(U)] = 1/2 nat for U ~ Unif(0, 1). So H(C | X) = k/2 and H(C) = ln 2.
* MI(C_k, Y) = ln 2 - (1/k) * int_{(1-k)/2}^{(1+k)/2} H_b(p) dp, since P(C=1 | y) = 1/2 + ky/(2 delta)
  sweeps [(1-k)/2, (1+k)/2] uniformly; integrating p ln p gives
  ((k^2+1) ln((1+k)/(1-k)) + 2k (ln(1-k^2) - 1)) / (4k).
* MI(C_k, X-Y) = -(1-k)^2 ln(1-k) / (4k). With T = X - Y (triangular) and t >= 0,
  P(C=1 | T=t) = (delta - kt/(1+k)) / (2 delta - t) for t <= (1+k) delta and 1 beyond; by the
  symmetry (X, Y) -> (-X, -Y) the case t < 0 mirrors it, and integrating H_b against the
  triangular density gives the expression.

At k = 0 and k = 1 the expressions are 0/0 or 0*inf and the values are their one-sided limits
(taken with sympy by :mod:`fstheory.theory.symbolic`): MI(C_0, Y) = 0, MI(C_0, X-Y) = 1/4,
MI(C_1, Y) = ln 2 - 1/2, MI(C_1, X-Y) = 0.
"""

from fstheory.scenarios.declaration import Parameter, Scenario
from fstheory.scenarios.paper_features import CLASS_RULE, COMMON_PARAMETERS, FEATURES
from fstheory.scenarios.symbols import W, X, Y, Z, delta, k
from fstheory.theory.laws import Uniform
from fstheory.theory.uniform_class import mi_class_expression

MI_CLASS = {V: mi_class_expression(which, k) for V, which in ((X, "X"), (Y, "Y"), (X - Y, "X-Y"))}

_law = Uniform(-delta, delta)

SCENARIO = Scenario(
    name="uniform",
    title="Scenario I: X, Y, Z, W i.i.d. Unif(-delta, delta)",
    source="Pascoal et al., Sections 5-7 (Scenario I)",
    parameters=(Parameter("delta", "0.5", "positive", "half-width of the uniform law"),)
    + COMMON_PARAMETERS,
    base={X: _law, Y: _law, Z: _law, W: _law},
    features=FEATURES,
    class_rule=CLASS_RULE,
    closed_forms={"mi_class": MI_CLASS},
)
