"""Reduce a set of features (and the class rule) to as few independent one-dimensional
coordinates as possible, and find which coordinate points share the features' values.

Base variables that enter every feature and the rule only linearly, with proportional
coefficient vectors, enter them only through one linear combination: they merge into one
coordinate ``U = sum_B s_B B`` whose law comes from the convolution algebra
(:func:`fstheory.theory.univariate.linear_combination`). Base variables that enter some feature
(or a nonlinear rule) nonlinearly stay coordinates of their own ("pinned"). For a linear rule,
the base variables of the rule that no feature uses merge into one "rest" variable R, integrated
out through its CDF: C = 1{form(u) + R >= 0}. For a nonlinear rule, they stay as "remaining"
variables, integrated out by :mod:`fstheory.theory.class_probability`.

With as many coordinates as features, the features are a map u -> v of R^m to itself;
:func:`partner_maps` lists the affine maps p with v(p(u)) = v(u) (the identity first), from the
level-set maps of the one-coordinate features and the solution of the remaining equations (each
|a| unfolded into a = +-a(u), so that no preimage is lost), or returns None when the level sets
are not finite (a fibre integral is then needed). With ``rational=True`` it also accepts
rational maps, as (x, y) -> (1 - x, x y / (1 - x)) for (X Y, (X - 1/2)^2).

Examples
--------
>>> import sympy as sp
>>> from fstheory.theory.laws import Normal
>>> from fstheory.theory.rule import Rule
>>> from fstheory.theory.univariate import Accuracy
>>> from fstheory.theory.quadrature import flint_precision
>>> X, Y, Z = sp.symbols("X Y Z", real=True)
>>> laws = {X: Normal(0, 1), Y: Normal(0, 1), Z: Normal(0, 1)}
>>> with flint_precision(100):
...     s = build([Y**2, X - Y], laws, Rule.from_linear({X: 1, Y: sp.Rational(1, 5), Z: 1}, 0),
...               Accuracy.from_bits(100))
>>> [c.symbol for c in s.coords], s.features, s.form, s.rest is not None
([Y, X], [Y**2, X - Y], X + Y/5, True)
>>> partner_maps(s)
[{Y: Y, X: X}, {Y: -Y, X: X - 2*Y}]
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field

import sympy as sp

from fstheory.theory.symbolic import exact_nsimplify
from fstheory.theory.budget import SymbolicTimeout, symbolic_budget
from fstheory.theory import structure
from fstheory.theory.feature_maps import FeatureUnsupported, level_maps
from fstheory.theory.univariate import Accuracy, Law1D, base_law, linear_combination

__all__ = ["Coordinate", "System", "build", "partner_maps", "jacobian"]


@dataclass
class Coordinate:
    symbol: sp.Symbol
    coefs: dict  # base symbol -> coefficient: U = sum coefs[B] B
    law: Law1D
    pinned: bool


@dataclass
class System:
    coords: list
    features: list
    form: sp.Expr | None = None
    rest: Law1D | None = None
    remaining: list = field(default_factory=list)
    #: feature index -> (w, g, L): the feature is g(L) with g an expression in the symbol w and
    #: L linear in the coordinates (|X - Y|, (X + Y)^2, exp(X - 2 Y))
    inner: dict = field(default_factory=dict)

    @property
    def symbols(self) -> list:
        return [c.symbol for c in self.coords]

    def coordinate(self, sym) -> Coordinate:
        for c in self.coords + self.remaining:
            if c.symbol == sym:
                return c
        raise KeyError(sym)


def build(features, laws: dict, rule, acc: Accuracy) -> System:
    """The coordinate system of ``features`` (sympy expressions of the base variables) and,
    when given, the class ``rule`` (:class:`fstheory.theory.rule.Rule`)."""
    bases = list(laws)
    features = [sp.expand(sp.sympify(f)) for f in features]
    used = set()
    for f in features:
        used |= {b for b in f.free_symbols if b in laws}
    lin = rule.linear(bases) if rule is not None else None
    rule_bases = set(rule.bases(bases)) if rule is not None else set()
    comps = {i: c for i, f in enumerate(features) if (c := structure.composite(f, bases)) is not None}
    while True:
        pinned = {b for b in used if not all(structure.linear_in(f, b, bases)
                                             for i, f in enumerate(features) if i not in comps)}
        if rule is not None and lin is None:
            pinned |= rule_bases & used
        # a composite feature with a pinned variable is kept as it is, its variables pinned
        dropped = [i for i, (direction, _) in comps.items() if set(direction) & pinned]
        if not dropped:
            break
        for i in dropped:
            del comps[i]
    for i, f in enumerate(features):
        if i not in comps and not all(structure.linear_in(f, b, bases) for b in used):
            pinned |= {b for b in f.free_symbols if b in laws}
    # directions of the linear bases in (features..., rule)
    groups: dict = {}
    order = sorted(used | (rule_bases if lin is not None else set()), key=str)
    for b in order:
        if b in pinned:
            continue
        d = [comps[i][0].get(b, sp.Integer(0)) if i in comps else sp.diff(f, b)
             for i, f in enumerate(features)]
        if lin is not None:
            d.append(sp.sympify(lin[0].get(b, 0)))
        j0 = next(i for i, c in enumerate(d) if c != 0)
        s = d[j0]
        key = tuple(exact_nsimplify(sp.simplify(c / s)) for c in d)
        groups.setdefault(key, []).append((b, s))
    coords, rest = [], None
    for b in sorted(pinned, key=str):
        coords.append(Coordinate(b, {b: sp.Integer(1)}, base_law(laws[b], acc), True))
    group_syms = {}
    for n, (key, members) in enumerate(groups.items()):
        if all(c == 0 for c in key[: len(features)]):  # rule only: the rest variable
            rest = linear_combination({b: s * key[-1] for b, s in members}, 0, laws, acc)
            continue
        if len(members) == 1 and members[0][1] == 1:
            sym = members[0][0]
        else:
            sym = sp.Symbol(f"U{n}_", real=True)
        coefs = {b: s for b, s in members}
        coords.append(Coordinate(sym, coefs, linear_combination(coefs, 0, laws, acc), False))
        group_syms[key] = sym
    linear_bases = [b for b in order if b not in pinned]
    new_features, inner = [], {}
    for i, f in enumerate(features):
        form = sum((key[i] * sym for key, sym in group_syms.items()), sp.Integer(0))
        if i in comps:
            g = comps[i][1]
            inner[i] = (structure.FORM, g, sp.expand(form))
            new_features.append(sp.expand(g.subs(structure.FORM, form)))
            continue
        g = f.subs({b: 0 for b in linear_bases})
        new_features.append(sp.expand(g + form))
    system = System(coords, new_features, inner={i: t for i, t in inner.items()
                                                  if len(t[2].free_symbols) > 1})
    if rule is None:
        return system
    if lin is not None:
        weights, threshold = lin
        form = -threshold + sum(weights.get(b, 0) * b for b in pinned)
        form += sum(key[-1] * sym for key, sym in group_syms.items())
        system.form, system.rest = sp.expand(form), rest
    else:
        system.form = sp.expand(rule.form)
        for b in sorted(rule_bases - used, key=str):
            system.remaining.append(Coordinate(b, {b: sp.Integer(1)}, base_law(laws[b], acc), True))
    return system


def jacobian(system: System) -> sp.Expr:
    """det(d features / d coordinates) (square systems)."""
    m = sp.Matrix([[sp.diff(f, u) for u in system.symbols] for f in system.features])
    return sp.expand(m.det())


def _support(c: Coordinate):
    from fstheory.theory.polyexp import INF

    lo, hi = c.law.support()
    lo = -sp.oo if lo == -INF else sp.Rational(lo.numerator, lo.denominator)
    hi = sp.oo if hi == INF else sp.Rational(hi.numerator, hi.denominator)
    return lo, hi


def partner_maps(system: System, seconds: float = 10.0, rational: bool = False):
    """All affine maps p (dict symbol -> expression) with features(p(u)) = features(u), the
    identity first; None when some level set is not finite (more coordinates than features,
    or a free direction). ``rational``: rational maps are accepted too (for a caller whose
    integrands take a partner's density and Jacobian at any point, as h(V1, V2))."""
    syms = system.symbols
    if len(syms) != len(system.features):
        return None
    try:
        with symbolic_budget(seconds, "the level sets of the features"):
            return _partners(system, syms, rational)
    except SymbolicTimeout as exc:
        raise FeatureUnsupported(str(exc)) from None


def _unfolded(features: list):
    """Pairs (left, right) of equation sides whose solutions u' of left(u') = right(u) are the
    candidate partners of ``features`` = f(u): each |a| in the features is unfolded, |a(u')| =
    |a(u)| if and only if a(u') = s a(u) for a sign s, one pair per pattern of signs (solving
    with the |.| left in place finds only some of the solutions)."""
    folds = sorted(set().union(*(f.atoms(sp.Abs) for f in features)), key=str)
    if len(folds) > 4:
        raise FeatureUnsupported("too many |.| terms in the features")
    plain = [f.xreplace({a: a.args[0] for a in folds}) for f in features]
    for signs in itertools.product((1, -1), repeat=len(folds)):
        yield plain, [f.xreplace({a: s * a.args[0] for a, s in zip(folds, signs)})
                      for f in features]


def _allowed(e, syms, rational: bool) -> bool:
    """An affine expression, or with ``rational`` a ratio of polynomials."""
    if e.is_polynomial(*syms) and sp.Poly(e, *syms).total_degree() <= 1:
        return True
    if not rational:
        return False
    num, den = sp.fraction(sp.together(e))
    return num.is_polynomial(*syms) and den.is_polynomial(*syms)


def _partners(system: System, syms, rational: bool = False):
    choices: dict = {}
    multi = []
    lifted = []  # (L, level maps of g): a composite g(L) keeps its value where L' = m L + q
    for i, f in enumerate(system.features):
        if i in system.inner:
            w, g, form = system.inner[i]
            maps = level_maps(g, w, -sp.oo, sp.oo)
            lifted.append((form, [(exact_nsimplify(m), exact_nsimplify(q)) for m, q in maps]))
            continue
        own = [u for u in syms if u in f.free_symbols]
        if len(own) == 1:
            u = own[0]
            lo, hi = _support(system.coordinate(u))
            maps = level_maps(f, u, lo, hi)
            maps = {(exact_nsimplify(m), exact_nsimplify(q)) for m, q in maps}
            choices[u] = maps if u not in choices else choices[u] & maps
        else:
            multi.append(f)
    fixed_syms = list(choices)
    primes = {u: sp.Symbol(f"{u}_p", real=True) for u in syms}
    out = []
    pools = [sorted(choices[u], key=str) for u in fixed_syms] + [maps for _, maps in lifted]
    for combo in itertools.product(*pools):
        assign = {u: m * u + q for u, (m, q) in zip(fixed_syms, combo)}
        free = [u for u in syms if u not in assign]
        lifted_eqs = [form.subs({u: primes[u] for u in free}).subs(assign) - (m * form + q)
                      for (form, _), (m, q) in zip(lifted, combo[len(fixed_syms):])]
        for left, right in _unfolded(multi):
            eqs = [sp.expand(lhs.subs({u: primes[u] for u in free}).subs(assign) - rhs)
                   for lhs, rhs in zip(left, right)] + [sp.expand(e) for e in lifted_eqs]
            if free:
                sols = sp.solve(eqs, [primes[u] for u in free], dict=True)
                for sol in sols:
                    if len(sol) < len(free):
                        return None
                    full = dict(assign)
                    for u in free:
                        full[u] = sp.expand(sol[primes[u]])
                    out.append(full)
            elif all(sp.simplify(e) == 0 for e in eqs):
                out.append(assign)
    identity = {u: u for u in syms}
    maps = []
    for p in out:
        p = {u: sp.expand(p.get(u, u)) if rational is False else sp.cancel(p.get(u, u))
             for u in syms}
        if any(not _allowed(e, syms, rational) for e in p.values() if e.free_symbols):
            raise FeatureUnsupported(
                "the features share values at points related by a nonlinear map (only "
                + ("rational" if rational else "affine") + " level-set maps are supported)")
        if not all(sp.simplify(f.subs(p, simultaneous=True) - f) == 0 for f in system.features):
            continue
        if p not in maps:
            maps.append(p)
    if identity not in maps:
        maps.insert(0, identity)
    else:
        maps.remove(identity)
        maps.insert(0, identity)
    return maps
