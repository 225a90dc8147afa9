"""The ten features of the paper's evaluation scenario (Section 5, Table "Input features").

Shared by Scenario I (uniform) and II (normal): V1..V10 = X, aX+b, Y^2, X-Y, Z, Z^2, Y, X^2, W+d, Z+W,
and the class C_k = 1{X + kY >= 0} (eq. (class_Ck)).
"""

from fstheory.scenarios.declaration import ClassRule, Feature, Parameter
from fstheory.scenarios.symbols import W, X, Y, Z, a, b, d, k

FEATURES = (
    Feature("X", X),
    Feature("aX+b", a * X + b, template="{a}X{+b}"),
    Feature("Y^2", Y**2),
    Feature("X-Y", X - Y),
    Feature("Z", Z),
    Feature("Z^2", Z**2),
    Feature("Y", Y),
    Feature("X^2", X**2),
    Feature("W+d", W + d, template="W{+d}"),
    Feature("Z+W", Z + W),
)

CLASS_RULE = ClassRule({X: 1, Y: k}, 0)

#: Parameters common to both scenarios (defaults: the paper's a=3, b=1, d=2; k has no default).
COMMON_PARAMETERS = (
    Parameter("k", None, "unit", "weight of Y in the class rule C_k = 1{X + kY >= 0}"),
    Parameter("a", 3, "nonzero", "slope of feature V2 = aX + b"),
    Parameter("b", 1, "real", "intercept of feature V2 = aX + b"),
    Parameter("d", 2, "real", "shift of feature V9 = W + d"),
)
