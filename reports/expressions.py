r"""How a derived quantity is shown in the general-expression tables.

A :class:`fstheory.engine.derive.Derivation` holds a sympy expression in the scenario's parameter
symbols. For the tables it is rendered as:

* ``structure`` -- ``+inf`` or ``0`` with the derivation's reason (functional dependence,
  independence, class symmetry);
* ``closed`` -- the expression (``sp.latex``), with ``|.|`` removed where the sign of the argument
  is fixed on the parameters' ranges (k in [0, 1], delta > 0, ...);

  - a skew-normal expectation (:func:`fstheory.theory.law_algebra.skew_normal_mi`, the folded half-line
    integral) is recognised and shown as the paper writes it, E[ln 2 Phi(lambda A)],
    A ~ SN(0, 1, lambda), with the derived lambda (paper Table "General expression ... Scenario
    II"; the recognition is checked numerically, integrand against integrand);
  - other unevaluated integrals are named J_1, J_2, ... and given in full in a note;

* ``numeric`` -- "numerical route" (no closed form; the value comes from quadrature).

Examples
--------
>>> import sympy as sp
>>> from fstheory.scenarios.registry import get_scenario
>>> from fstheory.engine.derive import derive
>>> s = get_scenario("normal")
>>> d = derive(s).mi_class[3]
>>> lam = skew_normal_lambda(d.expr, s)
>>> lam
(1 - k)/(k + 1)
>>> shown = show(d, s)
>>> shown.plain
'E[ln 2Phi(lambda*A)], A ~ SN(0, 1, lambda), lambda = (1 - k)/(k + 1)'
>>> show(derive(s).mi_features[0][1], s).plain
'+inf'
"""

from __future__ import annotations

from dataclasses import dataclass, field

import mpmath
import sympy as sp

from fstheory.scenarios.declaration import Scenario
from fstheory.theory.law_algebra import skew_normal_mi

__all__ = ["Shown", "show", "skew_normal_lambda", "drop_fixed_abs", "IntegralNames"]


@dataclass(frozen=True)
class Shown:
    """A derived quantity as table text."""

    kind: str  # structure | closed | skew-normal | numeric
    plain: str  # one line, for Markdown code/CSV
    latex: str  # math-mode LaTeX (without $)
    reason: str
    notes: tuple = field(default=())  # (name, latex, plain, display latex) of named integrals
    expr: object = None  # the sympy expression shown (after tidying), or None


def _param_test_point(scenario: Scenario) -> dict:
    """Parameter values at which an identity is spot-checked (defaults; 3/10 for k-like ones)."""
    out = {}
    for p in scenario.parameters:
        v = p.default if p.default is not None else "0.3"
        out[p.symbol] = sp.Rational(str(v)) if not isinstance(v, int) else sp.Integer(v)
    return out


def drop_fixed_abs(expr: sp.Expr, scenario: Scenario) -> sp.Expr:
    """Replace |x| by x or -x where the sign of x is fixed on the parameters' ranges.

    A parameter with range [0, 1] is written q/(1 + q), q > 0 (plus the end points, where the
    sign is the limit's), so that sympy's assumptions can decide the sign; other parameters keep
    their own assumptions (delta > 0; a != 0 has no fixed sign, so |a| stays).
    """
    q = sp.Dummy("q", positive=True)
    unit = {p.symbol: q / (1 + q) for p in scenario.parameters if p.domain == "unit"}

    def fix(arg):
        probe = sp.simplify(arg.xreplace(unit))
        if probe.is_nonnegative:
            return arg
        if probe.is_nonpositive:
            return -arg
        return sp.Abs(arg)

    return expr.replace(lambda e: isinstance(e, sp.Abs), lambda e: fix(e.args[0]))


def _nice_ratio(expr: sp.Expr) -> sp.Expr:
    """Numerator and denominator factored then expanded: -(k-1)/(k+1) -> (1-k)/(k+1)."""
    num, den = sp.fraction(sp.factor(expr))
    return sp.expand(num) / sp.expand(den)


def skew_normal_lambda(expr: sp.Expr, scenario: Scenario) -> sp.Expr | None:
    """The lambda >= 0 of a skew-normal expectation E[ln 2 Phi(lambda A)], A ~ SN(0,1,lambda),
    when ``expr`` is :func:`fstheory.theory.law_algebra.skew_normal_mi` of it, else None.

    lambda is read off the erfc argument |lambda| u / sqrt(2); the recognition is confirmed by
    comparing the two integrands at a few points (parameters at their defaults, k = 3/10).
    """
    if not isinstance(expr, sp.Integral) or len(expr.limits) != 1:
        return None
    var, lo, hi = expr.limits[0]
    if lo != 0 or hi != sp.oo:
        return None
    erfcs = {e for e in expr.function.atoms(sp.erfc)}
    if len(erfcs) != 1:
        return None
    (erfc,) = erfcs
    lam = sp.simplify(erfc.args[0] * sp.sqrt(2) / var)
    if var in lam.free_symbols:
        return None
    ref = skew_normal_mi(lam)
    ref_body = ref.function.xreplace({ref.limits[0][0]: var})
    point = _param_test_point(scenario)
    with mpmath.workdps(40):
        for u in (sp.Rational(3, 10), sp.Rational(17, 10), sp.Integer(4)):
            a = sp.N(expr.function.xreplace(point).xreplace({var: u}), 40)
            b = sp.N(ref_body.xreplace(point).xreplace({var: u}), 40)
            if abs(a - b) > sp.Float("1e-30") * max(1, abs(a)):
                return None
    return _nice_ratio(drop_fixed_abs(lam, scenario))


class IntegralNames:
    """Names J_1, J_2, ... for the unevaluated integrals of one table, in order of first use."""

    def __init__(self):
        self._names: dict = {}

    def name(self, integral: sp.Expr) -> str:
        if integral not in self._names:  # sympy expressions hash structurally
            self._names[integral] = f"J_{len(self._names) + 1}"
        return self._names[integral]


def _tidy_with_integrals(expr: sp.Expr, scenario: Scenario, names: IntegralNames):
    """Simplify the integral-free part; name each integral-bearing additive part J_n."""
    terms = sp.Add.make_args(expr)
    rest = sp.Add(*(t for t in terms if not t.has(sp.Integral)))
    rest = sp.simplify(sp.expand_log(drop_fixed_abs(rest, scenario), force=True))
    parts = [t for t in terms if t.has(sp.Integral)]
    integral = sp.Add(*parts)
    label = names.name(integral)
    sym = sp.Symbol(label)
    notes = ((label, _tex(integral), _plain(integral), _display(label, integral)),)
    return rest + sym, notes


def _display(name: str, expr: sp.Expr) -> str:
    """``name = c (I_1 + I_2 + ...)`` as an ``aligned`` block, one integral per line (the
    one-line form overflows any page)."""
    coeff, body = expr.as_independent(sp.Integral, as_Add=False)
    terms = body.args if isinstance(body, sp.Add) else (body,)
    head = "" if coeff == 1 else _tex(coeff)
    lines = [rf"{name} = {{}}& {head}\Big({_tex(terms[0])}"]
    lines += [rf"&+ {_tex(t)}" for t in terms[1:]]
    return r"\begin{aligned}" + r" \\ ".join(lines) + r"\Big)\end{aligned}"


def _tex(expr) -> str:
    from fstheory.reports.render import tex

    return tex(expr)


def _plain(expr) -> str:
    from fstheory.reports.render import plain

    return plain(expr)


def show(d, scenario: Scenario, names: IntegralNames | None = None) -> Shown:
    """Table text of one :class:`fstheory.engine.derive.Derivation` (general parameters)."""
    names = names or IntegralNames()
    if d.kind == "structure":
        text = "+inf" if d.expr == sp.oo else "0"
        return Shown("structure", text, r"+\infty" if d.expr == sp.oo else "0", d.reason,
                     expr=d.expr)
    if d.kind == "numeric":
        return Shown("numeric", "numerical route", r"\text{numerical route}", d.reason)
    lam = skew_normal_lambda(d.expr, scenario)
    if lam is not None:
        plain = f"E[ln 2Phi(lambda*A)], A ~ SN(0, 1, lambda), lambda = {sp.sstr(lam)}"
        latex = (r"\mathrm{E}\left[\ln 2\Phi(\lambda A)\right],\ A\sim\mathrm{SN}(0,1,\lambda),\ "
                 r"\lambda = " + _tex(lam))
        return Shown("skew-normal", plain, latex, d.reason, expr=lam)
    expr = d.expr
    if expr.has(sp.Integral):
        tidy, notes = _tidy_with_integrals(expr, scenario, names)
        return Shown("closed", sp.sstr(tidy), _tex(tidy), d.reason, notes, tidy)
    tidy = drop_fixed_abs(expr, scenario)
    return Shown("closed", sp.sstr(tidy), _tex(tidy), d.reason, expr=tidy)
