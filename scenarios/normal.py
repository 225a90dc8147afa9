"""Scenario II (paper Sections 5-6): X, Y, Z, W i.i.d. N(0, sigma^2), sigma = 1 in the paper.

Parameters: sigma > 0, a != 0, b, d, k in [0, 1]. Small sigma gives negative entropies: h(X) < 0
for sigma^2 < 1/(2 pi e) (Section 7), but h(X^2) = (1 + ln pi - gamma)/2 + 2 ln sigma is negative
already for sigma^2 < exp(-(1 + ln pi - gamma)/2) = 0.4567..., which the paper's text overlooks
(reports/errata.md, T1).

No closed form is typed here: entropies, MIs between features and MIs with the class are all
derived from the normal law by :mod:`fstheory.theory.law_algebra` (the last as skew-normal expectations,
Table "General expression ... Scenario II", corrected, see below). All MIs are scale free, so
sigma does not enter them. For a standard normal V with P(C=1 | V=v) = Phi(lambda v),
f(v | C=1) = 2 phi(v) Phi(lambda v) is the SN(0, 1, lambda) density and P(C=1) = 1/2, so the
mixed MI (paper eq. (mi_cont_disc)) is

    MI(C, V) = 1/2 E[ln 2 Phi(lambda A_1)] + 1/2 E[ln 2 Phi(-lambda A_0)]
             = E[ln 2 Phi(lambda A)],   A ~ SN(0, 1, lambda),

(A_0 ~ SN(0, 1, -lambda) is -A_1 in law). lambda = 1/k for X (P(Y >= -x/k)), k for Y, and
(1-k)/(1+k) for X - Y: with S = (X+Y)/sqrt 2 and T = (X-Y)/sqrt 2 independent,
X + kY >= 0 iff (1+k) S >= -(1-k) T.

The paper prints E[ln(2 Phi(-A_0/k) Phi(A_1/k))], which is 2 MI - ln 2 (the factor 1/2 and one
factor 2 are missing); its printed numbers do not follow that expression either (see
reports/errata.md). At k = 0, lambda = 1/k is infinite and MI(C_0, X) is the limit ln 2, taken
under the integral sign (dominated convergence: the integrand is bounded by 2 phi(a) ln 2).
"""

from fstheory.scenarios.declaration import Parameter, Scenario
from fstheory.scenarios.paper_features import CLASS_RULE, COMMON_PARAMETERS, FEATURES
from fstheory.scenarios.symbols import W, X, Y, Z, sigma
from fstheory.theory.laws import Normal

_law = Normal(0, sigma)

SCENARIO = Scenario(
    name="normal",
    title="Scenario II: X, Y, Z, W i.i.d. N(0, sigma^2)",
    source="Pascoal et al., Sections 5-7 (Scenario II)",
    parameters=(Parameter("sigma", 1, "positive", "standard deviation of the normal law"),)
    + COMMON_PARAMETERS,
    base={X: _law, Y: _law, Z: _law, W: _law},
    features=FEATURES,
    class_rule=CLASS_RULE,
)
