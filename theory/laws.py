"""Univariate laws, declared as in ``sympy.stats``: a density, a support, and what is known in
closed form (CDF, entropy). Generic machinery (:mod:`fstheory.theory.numeric`) derives the rest.

A law's parameters are sympy expressions, so a law can be declared once with a scenario's
symbols (``Uniform(-delta, delta)``) and bound later (``law.subs({delta: Rational(1, 2)})``).

Base laws (usable for a scenario's base variables, also from scenario files):

========== ================ ====================================== ===============================
name        parameters       density on the support                 entropy (nats)
========== ================ ====================================== ===============================
uniform     low < high       1/(high-low) on [low, high]            ln(high-low)
normal      mu, sigma > 0    exp(-(x-mu)^2/(2 sigma^2))/(sigma√2π)  ln(2 pi e sigma^2)/2
laplace     mu, b > 0        exp(-|x-mu|/b)/(2b)                    1 + ln(2b)
logistic    mu, s > 0        e^{-(x-mu)/s}/(s(1+e^{-(x-mu)/s})^2)   ln(s) + 2
exponential rate > 0         rate e^{-rate x} on [0, oo)            1 - ln(rate)
========== ================ ====================================== ===============================

Derived laws (the laws of the paper's features, Section 6, with their closed-form entropies):
``Triangular`` (X - Y for uniform X, Y), ``LaplaceSum`` (X - Y for Laplace X, Y, Scenario III), ``SquareOfUniform`` (Y^2 for Y ~ Unif(-delta, delta),
paper eq. (fdp_f3_scenario_1)), ``ScaledChiSquared1`` (Y^2 for Y ~ N(0, sigma^2): sigma^2 chi^2_1,
entropy from Lazo & Rathie 1978 as cited in Section 6), ``SkewNormal`` (Azzalini 1985; the laws
of X given the class in Scenario II).

Every closed-form entropy is checked against the numerical integral of ``-f ln f`` in
``tests/theory/test_laws.py``.
"""

from __future__ import annotations

import abc
from typing import ClassVar

import numpy as np
import sympy as sp

__all__ = [
    "Law",
    "Uniform",
    "Normal",
    "Laplace",
    "Logistic",
    "Exponential",
    "Triangular",
    "SquareOfUniform",
    "ScaledChiSquared1",
    "SkewNormal",
    "LaplaceSum",
    "SquareOfLaplace",
    "Folded",
    "Scaled",
    "BASE_LAWS",
    "LawParameterError",
    "std_normal_cdf",
]


class LawParameterError(ValueError):
    """A law parameter outside its allowed range."""


def std_normal_cdf(t: sp.Expr) -> sp.Expr:
    """Phi(t) = erfc(-t/sqrt 2)/2 (erfc keeps full relative precision in the lower tail)."""
    return sp.erfc(-t / sp.sqrt(2)) / 2


class Law(abc.ABC):
    """A univariate absolutely continuous law.

    Subclasses set ``name`` and ``param_names`` and implement ``pdf``, ``support`` and, when
    known, ``cdf`` and ``entropy``. ``check`` validates numeric parameters.
    """

    name: ClassVar[str]
    param_names: ClassVar[tuple[str, ...]]
    #: names of the parameters that must be > 0 (scales)
    positive: ClassVar[tuple[str, ...]] = ()

    def __init__(self, *params):
        if len(params) != len(self.param_names):
            raise TypeError(f"{self.name} takes {len(self.param_names)} parameters {self.param_names}")
        self.params = tuple(sp.sympify(p) for p in params)

    # --- identity -------------------------------------------------------------------------------
    def __repr__(self) -> str:
        return f"{type(self).__name__}({', '.join(map(str, self.params))})"

    def __eq__(self, other) -> bool:
        return type(self) is type(other) and all(
            sp.simplify(a - b) == 0 for a, b in zip(self.params, other.params)
        )

    def __hash__(self) -> int:
        return hash((type(self).__name__, self.params))

    def param(self, name: str) -> sp.Expr:
        return self.params[self.param_names.index(name)]

    def subs(self, mapping) -> "Law":
        """The same law with parameters substituted."""
        return type(self)(*(sp.sympify(p).subs(mapping) for p in self.params))

    @property
    def free_symbols(self) -> set:
        return set().union(*(p.free_symbols for p in self.params))

    # --- validation -----------------------------------------------------------------------------
    def check(self) -> None:
        """Raise :class:`LawParameterError` if a numeric parameter is out of range."""
        for pname in self.positive:
            v = self.param(pname)
            if v.is_number and not bool(v > 0):
                raise LawParameterError(
                    f"{self.name} law: parameter '{pname}' must be > 0 (got {v})"
                )

    # --- declaration ----------------------------------------------------------------------------
    @abc.abstractmethod
    def pdf(self, x: sp.Expr) -> sp.Expr:
        """Density at ``x`` inside the support."""

    @abc.abstractmethod
    def support(self) -> tuple[sp.Expr, sp.Expr]:
        """(low, high), possibly infinite."""

    def breakpoints(self) -> tuple[sp.Expr, ...]:
        """Interior points where the density is not analytic (none by default)."""
        return ()

    def cdf(self, x: sp.Expr) -> sp.Expr | None:
        """Closed-form CDF inside the support, or None."""
        return None

    def entropy(self) -> sp.Expr | None:
        """Closed-form differential entropy in nats, or None."""
        return None

    def center(self) -> sp.Expr | None:
        """The centre of symmetry when the law is symmetric, else None."""
        return None

    def affine(self, a: sp.Expr, b: sp.Expr) -> "Law | None":
        """The law of a*V + b when it stays in the family (a != 0), else None."""
        return None

    def sample(self, rng: np.random.Generator, size) -> np.ndarray:
        """Draw samples (numeric parameters required)."""
        raise NotImplementedError(f"{self.name} has no sampler")

    def _floats(self) -> tuple[float, ...]:
        return tuple(float(p) for p in self.params)


class Uniform(Law):
    """Unif(low, high); Scenario I uses Unif(-delta, delta)."""

    name = "uniform"
    param_names = ("low", "high")

    def check(self) -> None:
        low, high = self.params
        if (high - low).is_number and not bool(high > low):
            raise LawParameterError(f"uniform law: need low < high (got low={low}, high={high})")

    def pdf(self, x):
        low, high = self.params
        return 1 / (high - low)

    def support(self):
        return self.params

    def cdf(self, x):
        low, high = self.params
        return (x - low) / (high - low)

    def entropy(self):
        low, high = self.params
        return sp.log(high - low)

    def center(self):
        low, high = self.params
        return (low + high) / 2

    def affine(self, a, b):
        # centre c, half-width w: a U + b ~ Unif(a c + b - |a| w, a c + b + |a| w), any sign of a
        low, high = self.params
        c, w = (low + high) / 2, (high - low) / 2
        return Uniform(a * c + b - sp.Abs(a) * w, a * c + b + sp.Abs(a) * w)

    def sample(self, rng, size):
        low, high = self._floats()
        return rng.uniform(low, high, size)


class Normal(Law):
    """N(mu, sigma^2); Scenario II uses N(0, sigma^2) (sigma = 1 in the paper)."""

    name = "normal"
    param_names = ("mu", "sigma")
    positive = ("sigma",)

    def pdf(self, x):
        mu, s = self.params
        return sp.exp(-((x - mu) ** 2) / (2 * s**2)) / (s * sp.sqrt(2 * sp.pi))

    def support(self):
        return (-sp.oo, sp.oo)

    def cdf(self, x):
        mu, s = self.params
        return std_normal_cdf((x - mu) / s)

    def entropy(self):
        mu, s = self.params
        return sp.log(2 * sp.pi * sp.E * s**2) / 2

    def center(self):
        return self.params[0]

    def affine(self, a, b):
        mu, s = self.params
        return Normal(a * mu + b, sp.Abs(a) * s)

    def sample(self, rng, size):
        mu, s = self._floats()
        return rng.normal(mu, s, size)


class Laplace(Law):
    """Laplace(mu, b): density exp(-|x-mu|/b)/(2b); the base law of Scenario III."""

    name = "laplace"
    param_names = ("mu", "b")
    positive = ("b",)

    def pdf(self, x):
        mu, b = self.params
        return sp.exp(-sp.Abs(x - mu) / b) / (2 * b)

    def support(self):
        return (-sp.oo, sp.oo)

    def breakpoints(self):
        return (self.params[0],)

    def cdf(self, x):
        mu, b = self.params
        return sp.Piecewise(
            (sp.exp((x - mu) / b) / 2, x < mu), (1 - sp.exp(-(x - mu) / b) / 2, True)
        )

    def entropy(self):
        return 1 + sp.log(2 * self.params[1])

    def center(self):
        return self.params[0]

    def affine(self, a, b):
        mu, s = self.params
        return Laplace(a * mu + b, sp.Abs(a) * s)

    def sample(self, rng, size):
        mu, b = self._floats()
        return rng.laplace(mu, b, size)


class Logistic(Law):
    """Logistic(mu, s): density e^{-(x-mu)/s} / (s (1 + e^{-(x-mu)/s})^2)."""

    name = "logistic"
    param_names = ("mu", "s")
    positive = ("s",)

    def pdf(self, x):
        mu, s = self.params
        # written in |x - mu| so that it never overflows in either tail
        e = sp.exp(-sp.Abs(x - mu) / s)
        return e / (s * (1 + e) ** 2)

    def support(self):
        return (-sp.oo, sp.oo)

    def breakpoints(self):
        # the density is analytic, but the |x - mu| form above is not: integrate each side apart
        return (self.params[0],)

    def cdf(self, x):
        mu, s = self.params
        return 1 / (1 + sp.exp(-(x - mu) / s))

    def entropy(self):
        return sp.log(self.params[1]) + 2

    def center(self):
        return self.params[0]

    def affine(self, a, b):
        mu, s = self.params
        return Logistic(a * mu + b, sp.Abs(a) * s)

    def sample(self, rng, size):
        mu, s = self._floats()
        return rng.logistic(mu, s, size)


class Exponential(Law):
    """Exp(rate): density rate e^{-rate x} on [0, oo) (mean 1/rate); not symmetric."""

    name = "exponential"
    param_names = ("rate",)
    positive = ("rate",)

    def pdf(self, x):
        (r,) = self.params
        return r * sp.exp(-r * x)

    def support(self):
        return (sp.Integer(0), sp.oo)

    def cdf(self, x):
        (r,) = self.params
        return 1 - sp.exp(-r * x)

    def entropy(self):
        (r,) = self.params
        return 1 - sp.log(r)

    def affine(self, a, b):
        # a X + b with a > 0 is a shifted exponential, outside this family unless b = 0
        if sp.simplify(b) == 0 and (a.is_positive or (a.is_number and a > 0)):
            return Exponential(self.params[0] / a)
        return None

    def sample(self, rng, size):
        (r,) = self._floats()
        return rng.exponential(1 / r, size)


class Triangular(Law):
    """Tri(low, high, mode); X - Y ~ Tri(-2 delta, 2 delta, 0) in Scenario I (Section 6)."""

    name = "triangular"
    param_names = ("low", "high", "mode")

    def pdf(self, x):
        low, high, mode = self.params
        return sp.Piecewise(
            (2 * (x - low) / ((high - low) * (mode - low)), x <= mode),
            (2 * (high - x) / ((high - low) * (high - mode)), True),
        )

    def support(self):
        return self.params[:2]

    def breakpoints(self):
        return (self.params[2],)

    def entropy(self):
        low, high, mode = self.params
        return sp.Rational(1, 2) + sp.log((high - low) / 2)

    def center(self):
        low, high, mode = self.params
        return mode if sp.simplify(2 * mode - low - high) == 0 else None

    def affine(self, a, b):
        low, high, mode = self.params
        if a.is_number and a < 0:
            return Triangular(a * high + b, a * low + b, a * mode + b)
        if a.is_positive or (a.is_number and a > 0):
            return Triangular(a * low + b, a * high + b, a * mode + b)
        return None


class SquareOfUniform(Law):
    """The law of Y^2 for Y ~ Unif(-delta, delta): f(u) = 1/(2 delta sqrt u) on [0, delta^2].

    Paper eq. (fdp_f3_scenario_1); entropy ln(2 delta^2) - 1 (Table of Scenario I, V3).
    Derivation: h = E[ln(2 delta sqrt(U))] = ln(2 delta) + E[ln |Y|] = ln(2 delta) + ln(delta) - 1.
    """

    name = "square-of-uniform"
    param_names = ("delta",)
    positive = ("delta",)

    def pdf(self, x):
        (d,) = self.params
        return 1 / (2 * d * sp.sqrt(x))

    def support(self):
        (d,) = self.params
        return (sp.Integer(0), d**2)

    def cdf(self, x):
        (d,) = self.params
        return sp.sqrt(x) / d

    def entropy(self):
        (d,) = self.params
        return sp.log(2 * d**2) - 1


class SquareOfLaplace(Law):
    """The law of Y^2 for Y ~ Laplace(0, b): f(u) = e^{-sqrt(u)/b} / (2 b sqrt(u)) on (0, oo).

    Entropy: h = E[ln(2 b sqrt U) + sqrt(U)/b] = ln(2b) + E ln|Y| + E|Y|/b with |Y| ~ Exp(mean b),
    E ln|Y| = ln b - gamma and E|Y| = b: h = ln(2 b^2) + 1 - gamma (Scenario III).
    """

    name = "square-of-laplace"
    param_names = ("b",)
    positive = ("b",)

    def pdf(self, x):
        (b,) = self.params
        return sp.exp(-sp.sqrt(x) / b) / (2 * b * sp.sqrt(x))

    def support(self):
        return (sp.Integer(0), sp.oo)

    def cdf(self, x):
        (b,) = self.params
        return 1 - sp.exp(-sp.sqrt(x) / b)

    def entropy(self):
        (b,) = self.params
        return sp.log(2 * b**2) + 1 - sp.EulerGamma


class ScaledChiSquared1(Law):
    """The law of c * chi^2_1 (c > 0): Y^2 for Y ~ N(0, sigma^2) has c = sigma^2.

    Entropy: chi^2_k has k/2 + ln(2 Gamma(k/2)) + (1 - k/2) psi(k/2) (Lazo & Rathie 1978, cited
    in Section 6); for k = 1 this is (1 + ln pi - gamma)/2, and scaling by c adds ln c.
    """

    name = "scaled-chi-squared-1"
    param_names = ("scale",)
    positive = ("scale",)

    def pdf(self, x):
        (c,) = self.params
        return sp.exp(-x / (2 * c)) / sp.sqrt(2 * sp.pi * c * x)

    def support(self):
        return (sp.Integer(0), sp.oo)

    def cdf(self, x):
        (c,) = self.params
        return sp.erf(sp.sqrt(x / (2 * c)))

    def entropy(self):
        (c,) = self.params
        k = sp.Rational(1, 2)
        chi2 = k + sp.log(2 * sp.gamma(k)) + (1 - k) * sp.polygamma(0, k)
        return chi2 + sp.log(c)


class LaplaceSum(Law):
    """The law of c1 B1 + c2 B2 + e for independent Laplace laws with |c1| b1 = |c2| b2 = s.

    Density (1/(4s)) (1 + |t - m|/s) e^{-|t - m|/s} (convolution of two Laplace(0, s) densities).
    Entropy: with u = |t - m|/s, of density (1 + u) e^{-u}/2 on [0, oo),
    h = ln(4s) + E[u] - E[ln(1 + u)] = ln(4s) + 3/2 - (1 + e E1(1))/2 = ln(4s) + 1 - e E1(1)/2,
    using int_1^oo w ln(w) e^{-w} dw = E1(1) + 1/e (E1 the exponential integral).
    """

    name = "laplace-sum"
    param_names = ("m", "s")
    positive = ("s",)

    def pdf(self, x):
        m, s = self.params
        u = sp.Abs(x - m) / s
        return (1 + u) * sp.exp(-u) / (4 * s)

    def support(self):
        return (-sp.oo, sp.oo)

    def breakpoints(self):
        return (self.params[0],)

    def entropy(self):
        m, s = self.params
        return sp.log(4 * s) + 1 - sp.E * sp.expint(1, 1) / 2

    def center(self):
        return self.params[0]

    def affine(self, a, b):
        m, s = self.params
        return LaplaceSum(a * m + b, sp.Abs(a) * s)


class SkewNormal(Law):
    """SN(loc, scale, shape) (Azzalini 1985): density 2/omega phi(z) Phi(alpha z), z = (x-loc)/omega.

    In Scenario II, X given C_k = 1 is SN(0, sigma, 1/k) (Section 6).
    """

    name = "skew-normal"
    param_names = ("loc", "scale", "shape")
    positive = ("scale",)

    def pdf(self, x):
        loc, w, alpha = self.params
        z = (x - loc) / w
        return 2 / w * sp.exp(-(z**2) / 2) / sp.sqrt(2 * sp.pi) * std_normal_cdf(alpha * z)

    def support(self):
        return (-sp.oo, sp.oo)


class Folded(Law):
    """The law of |B - c| for B symmetric about c (``base`` is the law of B - c, symmetric about
    0): density 2 f(x) on [0, sup), CDF 2 F(x) - 1, and entropy h(B) - ln 2 (the fold maps the two
    halves, each of mass 1/2, onto one: h(|B - c|) = h(B) - H(sign) = h(B) - ln 2, the sign being
    independent of |B - c| by the symmetry). Uniform, Laplace and exponential folds stay in
    their families (:func:`fold`); this class holds the others (half-normal, half-logistic,
    folded sums)."""

    name = "folded"
    param_names = ()

    def __init__(self, base: Law):
        self.base = base
        self.params = tuple(base.params)

    def __repr__(self) -> str:
        return f"Folded({self.base!r})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Folded) and self.base == other.base

    def __hash__(self) -> int:
        return hash(("folded", hash(self.base)))

    def subs(self, mapping) -> "Folded":
        return Folded(self.base.subs(mapping))

    def pdf(self, x):
        return 2 * self.base.pdf(x)

    def support(self):
        return (sp.Integer(0), self.base.support()[1])

    def cdf(self, x):
        c = self.base.cdf(x)
        return None if c is None else 2 * c - 1

    def entropy(self):
        h = self.base.entropy()
        return None if h is None else h - sp.log(2)

    def affine(self, a, b):
        if sp.simplify(b) == 0 and (a.is_positive or (a.is_number and a > 0)):
            scaled = self.base.affine(a, sp.Integer(0))
            return None if scaled is None else Folded(scaled)
        return None


class Scaled(Law):
    """The law of a W + b for a law W outside the families that have their own affine map
    (the square of a centred law): density f((x - b)/a)/|a|, entropy h(W) + ln|a|."""

    name = "scaled"
    param_names = ("a", "b")

    def __init__(self, base: Law, a, b):
        self.base = base
        self.params = (sp.sympify(a), sp.sympify(b))

    def __repr__(self) -> str:
        a, b = self.params
        return f"Scaled({self.base!r}, {a}, {b})"

    def __eq__(self, other) -> bool:
        return isinstance(other, Scaled) and self.base == other.base and super().__eq__(other)

    def __hash__(self) -> int:
        return hash(("scaled", hash(self.base), self.params))

    def subs(self, mapping) -> "Scaled":
        a, b = self.params
        return Scaled(self.base.subs(mapping), a.subs(mapping), b.subs(mapping))

    def pdf(self, x):
        a, b = self.params
        return self.base.pdf((x - b) / a) / sp.Abs(a)

    def support(self):
        a, b = self.params
        lo, hi = self.base.support()
        ends = sorted((a * lo + b, a * hi + b), key=lambda e: sp.oo if e == sp.oo else (
            -sp.oo if e == -sp.oo else e))
        return tuple(ends)

    def entropy(self):
        h = self.base.entropy()
        return None if h is None else h + sp.log(sp.Abs(self.params[0]))


def fold(law: Law) -> Law | None:
    """The law of |B| for B ~ ``law`` symmetric about 0 (``None`` when ``law`` is not known to
    be symmetric about 0): Unif(-w, w) -> Unif(0, w), Laplace(0, b) -> Exp(1/b), any other
    symmetric law -> :class:`Folded`."""
    c = law.center()
    if c is None or sp.simplify(c) != 0:
        return None
    if isinstance(law, Uniform):
        return Uniform(sp.Integer(0), law.params[1])
    if isinstance(law, Laplace):
        return Exponential(1 / law.params[1])
    return Folded(law)


#: Laws a scenario's base variables may follow (the registry read by scenario files).
BASE_LAWS: dict[str, type[Law]] = {
    cls.name: cls for cls in (Uniform, Normal, Laplace, Logistic, Exponential)
}
