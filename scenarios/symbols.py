"""The symbols shared by the paper's scenarios: base variables X, Y, Z, W and parameters."""

import sympy as sp

X, Y, Z, W = sp.symbols("X Y Z W", real=True)
k, delta, sigma, a, b, d = sp.symbols("k delta sigma a b d", real=True)
