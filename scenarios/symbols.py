"""The symbols shared by the paper's scenarios: base variables X, Y, Z, W and parameters.

Parameter symbols carry the assumptions of their domains (see
:func:`fstheory.scenarios.declaration.param_symbol`), so that sympy can simplify closed forms
(sqrt(k^2) = k for k in [0, 1], |delta| = delta).
"""

import sympy as sp

from fstheory.scenarios.declaration import param_symbol

X, Y, Z, W = sp.symbols("X Y Z W", real=True)
k = param_symbol("k", "unit")
delta = param_symbol("delta", "positive")
sigma = param_symbol("sigma", "positive")
a = param_symbol("a", "nonzero")
b = param_symbol("b", "real")
d = param_symbol("d", "real")
