r"""The one registry of feature-selection methods (paper Section 4, Table "Objective functions"),
the three-dimensional ones the paper leaves as future work, and those that the FEAST and praznik
libraries add (MIM, CMI, NJMIM, JMI3, beta-gamma, CondRed: their objectives, sources and readings
in :mod:`fstheory.orderings.library_objectives`); ``family`` tells the three groups apart.

Each method's objective is written once, as the paper's objective table writes it -- same
grouping, evaluated left to right, fractions as units -- against the arithmetic interface of
:mod:`fstheory.orderings.arithmetic`, so the same code runs on exact extended reals and on float arrays.
The LaTeX and plain renderings sit next to the code (:mod:`fstheory.orderings.objective_table` prints
them as a table to compare with the paper's by eye).

Notation: ``i`` the candidate V_i, ``S`` the already selected features (|S| >= 1; the first
feature is chosen by MI(C, V_i) alone, see :mod:`fstheory.orderings.greedy`), ``v`` a values view with
``v.mi_c(i) = MI(C,V_i)``, ``v.h(i) = h(V_i)``, ``v.mi(i, s) = MI(V_i,V_s)``, and, for the
three-dimensional methods (``dimension == 3``: JMI, CMIM, JMIM, CIFE, DISR, ICAP, the paper's
future work), ``v.mi_c_pair(i, s) = MI(C;{V_i,V_s})``, ``v.cmi_c(i, s) = MI(C;V_i|V_s)``,
``v.mi_given_c(i, s) = MI(V_i;V_s|C)``, ``v.h_pair_c(i, s) = H(V_i,V_s,C)``; and for sets
``v.mi_c_set(T) = MI(C;V_T)``, ``v.cmi_c_set(i, T) = MI(C;V_i|V_T)``.

Three-dimensional readings
--------------------------
Each 3-D method's default reading, "original", is its authors' definition; the named readings
are rewrites that are equal where determinate (JMI's up to a positive factor and a constant of
the step) but differ in where they are determinate: "unified" writes the redundancy through
MI(V_i,V_s) - MI(V_i,V_s|C) as Brown et al. (JMLR 2012) do, which is +inf - (+inf) for
functionally dependent features; "interaction" writes the same interaction information as
MI(C,V_i) - MI(C;V_i|V_s) (McGill 1954; Jakulin 2005), always finite; CMIM's "fleuret" is
Fleuret's (2004) running minimum min(MI(C,V_i), min_s MI(C;V_i|V_s)), a different function.

Readings
--------
Where the objective table and the text of Section 4/7 write a method differently, both are
implemented; ``reading="table"`` or ``"text"``:

MIFS-U, mMIFS-U
    table: ``beta*MI(C,Vs)/h(Vs)*MI(Vi,Vs)`` left to right (beta first, as the paper's own
    explanation of MIFS-U at beta = 0 has it, "beta in the numerator and h(Vs) in the
    denominator"); text: ``beta*MI(C,Vs)*(MI(Vi,Vs)/h(Vs))``, the grouping of Section 7's
    discussion ("this is due to the quotient MI(Vi,Vs)/h(Vs)"). mMIFS-U has no beta.
    The table typesets beta outside the sum; beta*sum(...) and sum(beta*...) agree on which
    objectives are determinate and on their values, the form only differs at beta = 0 and
    h(Vs) = 0 (0*inf outside, 0/0 inside -- the paper names 0/0), property-tested in
    tests/orderings/test_methods.py.
QMIFS
    table: ``MI(C,Vi) - sum_k (MI(Vi,Vk)/h(Vk) - 1/2 sum_{j!=k} MI(Vi,Vj)/h(Vj)*MI(Vj,Vk)/h(Vk)*MI(C,Vk))``
    -- MI(C,Vk) multiplies only the inner double-sum term; text, eq. (redQMIFS):
    ``MI(C,Vi) - sum_k [phi_ik - 1/2 sum_{j!=k} phi_ij*phi_jk]*MI(C,Vk)``, phi_lm = MI(Vl,Vm)/h(Vm).
    These are different functions, not only different groupings.
MICC
    table: ``MI(C,Vi)/((1/|S|) sum NI(Vi,Vs)) - MI(C,Vi)``; text, eq. (redMICC):
    ``MI(C,Vi)*(|S|/sum NI(Vi,Vs) - 1)``.

The other methods are written the same way in table and text (``reading`` is accepted and has no
effect). Each method's default reading is the one the paper's own ordering tables follow
(established in ``tests/orderings/test_paper_orderings.py`` from the exact values; see :data:`DEFAULT_NOTES`):
"text" for QMIFS, whose printed Scenario II rows only the text reading gives, and "table" for
the others, whose two readings give the same orderings.

beta = 0 (MIFS, MIFS-U)
    ``zero_beta="explicit"`` (default, what the paper's tables do): the objective is evaluated
    as written, so 0 * (+inf) and 0/0 are indeterminate; ``zero_beta="drop"``: the redundancy
    term is dropped and the objective is MI(C,Vi) (the order is by MI with the class alone).

Examples
--------
>>> m = get_method("MIFS-U")
>>> m.display, m.has_beta, sorted(m.readings)
('MIFS-U', True, ['table', 'text'])
>>> get_method("mrmr").check(beta=0.5)
Traceback (most recent call last):
...
fstheory.orderings.methods.MethodError: parameter 'beta' is not accepted by mRMR (only mifs, mifs-u and beta-gamma take beta, in [0, 1])
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Callable, Mapping

from fstheory.errors import UserInputError
from fstheory.orderings import library_objectives as lib
from fstheory.orderings.library_objectives import PER_STEP
from fstheory.orderings import objectives_3d as o3
from fstheory.user_numbers import NumberTextError, parse_rational

__all__ = [
    "MethodError",
    "Reading",
    "Method",
    "METHODS",
    "FAMILIES",
    "method_names",
    "get_method",
    "parse_beta",
    "parse_coefficient",
    "PER_STEP",
    "READINGS",
    "ZERO_BETA",
]

READINGS = ("table", "text")
ZERO_BETA = ("explicit", "drop")

#: The registry's groups, in registry order: the paper's eight two-dimensional methods, the six
#: three-dimensional ones (the paper's future work), and those that FEAST and praznik add.
FAMILIES = ("paper", "3d", "libraries")


class MethodError(UserInputError):
    """Bad method input: unknown method, beta outside [0, 1], beta where none is taken, ..."""


def parse_coefficient(x, name: str, method: str, per_step: bool):
    """A coefficient of the beta-gamma family: a number in [0, 1] (as :func:`parse_beta`) or,
    when ``per_step``, the text '1/|S|' (:data:`PER_STEP`)."""
    if per_step and (x is PER_STEP or (isinstance(x, str) and x.strip().replace(" ", "") in (
            "1/|S|", "1/|s|"))):
        return PER_STEP
    what = "a number in [0, 1] or 1/|S|" if per_step else "a number in [0, 1]"
    if isinstance(x, bool) or x is None:
        raise MethodError(f"parameter '{name}' of {method} must be {what} (got {x!r})")
    try:
        return parse_beta(x, method, name)
    except MethodError as exc:
        if per_step and "must be a number" in str(exc):
            raise MethodError(f"parameter '{name}' of {method} must be {what} (got {x!r})") from None
        raise


def parse_beta(beta, method: str = "the method", name: str = "beta") -> Fraction:
    """beta as an exact fraction in [0, 1] ('0.4' -> 2/5; floats read through their repr)."""
    if isinstance(beta, bool) or beta is None:
        raise MethodError(f"parameter '{name}' of {method} must be a number in [0, 1] (got {beta!r})")
    try:
        if isinstance(beta, float):
            if not math.isfinite(beta):
                raise ValueError
            value = Fraction(repr(beta))
        elif isinstance(beta, str):
            value = parse_rational(beta, name)  # limits on the exponent, ASCII digits
        else:
            value = Fraction(beta)
    except NumberTextError as exc:
        if not exc.malformed:  # out of the limits, or non-ASCII digits: say which
            raise MethodError(f"{exc} ({name} of {method} is a number in [0, 1])") from None
        value = None
    except (ValueError, TypeError, ZeroDivisionError):
        value = None
    if value is None:
        raise MethodError(f"parameter '{name}' of {method} must be a number in [0, 1] (got {beta!r})")
    if not 0 <= value <= 1:
        raise MethodError(f"parameter '{name}' of {method} must be in [0, 1] (got {beta})")
    return value


# ----- the objectives, each next to its renderings ----------------------------------------------
# Python evaluates * and / left to right, exactly as the table's products are read; explicit
# parentheses mark the table's fractions and brackets.


def _mifs(ops, v, i, S, beta):
    return v.mi_c(i) - ops.const(beta, "beta") * ops.sum([v.mi(i, s) for s in S])


_MIFS = dict(
    latex=r"\mathrm{MI}(C,V_i)-\beta \sum_{V_s \in S} \mathrm{MI}(V_i,V_s)",
    plain="MI(C,Vi) - beta * sum_{Vs in S} MI(Vi,Vs)",
)


def _mifs_u_table(ops, v, i, S, beta):
    b = ops.const(beta, "beta")
    return v.mi_c(i) - ops.sum([b * v.mi_c(s) / v.h(s) * v.mi(i, s) for s in S])


_MIFS_U_TABLE = dict(
    latex=r"\mathrm{MI}(C,V_i)-\beta \sum_{V_s \in S} \frac{\mathrm{MI}(C,V_s)}{h(V_s)}\,\mathrm{MI}(V_i,V_s)",
    plain="MI(C,Vi) - sum_{Vs in S} beta * MI(C,Vs) / h(Vs) * MI(Vi,Vs)   [left to right]",
)


def _mifs_u_text(ops, v, i, S, beta):
    b = ops.const(beta, "beta")
    return v.mi_c(i) - ops.sum([b * v.mi_c(s) * (v.mi(i, s) / v.h(s)) for s in S])


_MIFS_U_TEXT = dict(
    latex=r"\mathrm{MI}(C,V_i)-\beta \sum_{V_s \in S} \mathrm{MI}(C,V_s)\,\frac{\mathrm{MI}(V_i,V_s)}{h(V_s)}",
    plain="MI(C,Vi) - sum_{Vs in S} beta * MI(C,Vs) * (MI(Vi,Vs) / h(Vs))",
)


def _mrmr(ops, v, i, S, beta):
    return v.mi_c(i) - ops.mean([v.mi(i, s) for s in S])


_MRMR = dict(
    latex=r"\mathrm{MI}(C,V_i)-\frac{1}{|S|} \sum_{V_s \in S} \mathrm{MI}(V_i,V_s)",
    plain="MI(C,Vi) - (1/|S|) * sum_{Vs in S} MI(Vi,Vs)",
)


def _mmifs_u_table(ops, v, i, S, beta):
    return v.mi_c(i) - ops.max([v.mi_c(s) / v.h(s) * v.mi(i, s) for s in S])


_MMIFS_U_TABLE = dict(
    latex=r"\mathrm{MI}(C,V_i)-\max_{V_s \in S} \frac{\mathrm{MI}(C,V_s)}{h(V_s)}\,\mathrm{MI}(V_i,V_s)",
    plain="MI(C,Vi) - max_{Vs in S} MI(C,Vs) / h(Vs) * MI(Vi,Vs)",
)


def _mmifs_u_text(ops, v, i, S, beta):
    return v.mi_c(i) - ops.max([v.mi_c(s) * (v.mi(i, s) / v.h(s)) for s in S])


_MMIFS_U_TEXT = dict(
    latex=r"\mathrm{MI}(C,V_i)-\max_{V_s \in S} \mathrm{MI}(C,V_s)\,\frac{\mathrm{MI}(V_i,V_s)}{h(V_s)}",
    plain="MI(C,Vi) - max_{Vs in S} MI(C,Vs) * (MI(Vi,Vs) / h(Vs))",
)


def _ni(ops, v, i, s):
    """NI(Vi,Vs) = MI(Vi,Vs) / min{h(Vi), h(Vs)} (paper eq. (normMI))."""
    return v.mi(i, s) / ops.min2(v.h(i), v.h(s))


def _micc_table(ops, v, i, S, beta):
    return v.mi_c(i) / ops.mean([_ni(ops, v, i, s) for s in S]) - v.mi_c(i)


_MICC_TABLE = dict(
    latex=r"\frac{\mathrm{MI}(C,V_i)}{\frac{1}{|S|} \sum_{V_s \in S} "
    r"\frac{\mathrm{MI}(V_i,V_s)}{\min\{h(V_i),h(V_s)\}}}-\mathrm{MI}(C,V_i)",
    plain="MI(C,Vi) / ((1/|S|) * sum_{Vs in S} MI(Vi,Vs) / min{h(Vi),h(Vs)}) - MI(C,Vi)",
)


def _micc_text(ops, v, i, S, beta):
    total = ops.sum([_ni(ops, v, i, s) for s in S])
    return v.mi_c(i) * (ops.const(len(S), "|S|") / total - ops.const(1))


_MICC_TEXT = dict(
    latex=r"\mathrm{MI}(C,V_i)\left[\frac{|S|}{\sum_{V_s \in S} \mathrm{NI}(V_i,V_s)}-1\right]",
    plain="MI(C,Vi) * (|S| / sum_{Vs in S} NI(Vi,Vs) - 1),  NI = MI(Vi,Vs) / min{h(Vi),h(Vs)}",
)


def _qmifs_table(ops, v, i, S, beta):
    half = ops.const(Fraction(1, 2), "1/2")
    outer = []
    for kpos, k in enumerate(S):
        inner = ops.sum(
            [
                v.mi(i, j) / v.h(j) * (v.mi(j, k) / v.h(k)) * v.mi_c(k)
                for jpos, j in enumerate(S)
                if jpos != kpos
            ]
        )
        outer.append(v.mi(i, k) / v.h(k) - half * inner)
    return v.mi_c(i) - ops.sum(outer)


_QMIFS_TABLE = dict(
    latex=r"\mathrm{MI}(C,V_i)-\sum_{V_k \in S}\left(\frac{\mathrm{MI}(V_i,V_k)}{h(V_k)}"
    r"-\frac{1}{2}\sum_{\substack{V_j \in S \\ j\neq k}} \frac{\mathrm{MI}(V_i,V_j)}{h(V_j)}"
    r"\frac{\mathrm{MI}(V_j,V_k)}{h(V_k)} \mathrm{MI}(C,V_k)\right)",
    plain="MI(C,Vi) - sum_{Vk in S} (MI(Vi,Vk)/h(Vk) - 1/2 * sum_{Vj in S, j!=k} "
    "MI(Vi,Vj)/h(Vj) * MI(Vj,Vk)/h(Vk) * MI(C,Vk))",
)


def _qmifs_text(ops, v, i, S, beta):
    half = ops.const(Fraction(1, 2), "1/2")

    def phi(a, b):
        return v.mi(a, b) / v.h(b)

    outer = []
    for kpos, k in enumerate(S):
        inner = ops.sum([phi(i, j) * phi(j, k) for jpos, j in enumerate(S) if jpos != kpos])
        outer.append((phi(i, k) - half * inner) * v.mi_c(k))
    return v.mi_c(i) - ops.sum(outer)


_QMIFS_TEXT = dict(
    latex=r"\mathrm{MI}(C,V_i)-\sum_{V_k \in S}\left[\phi_{ik}-\frac{1}{2}"
    r"\sum_{\substack{V_j \in S \\ j\neq k}}\phi_{ij}\phi_{jk}\right]\mathrm{MI}(C,V_k),"
    r"\quad \phi_{lm}=\frac{\mathrm{MI}(V_l,V_m)}{h(V_m)}",
    plain="MI(C,Vi) - sum_{Vk in S} (phi_ik - 1/2 * sum_{Vj in S, j!=k} phi_ij * phi_jk) * MI(C,Vk),"
    "  phi_lm = MI(Vl,Vm)/h(Vm)",
)


def _nmifs(ops, v, i, S, beta):
    return v.mi_c(i) - ops.mean([v.mi(i, s) / ops.min2(v.h(i), v.h(s)) for s in S])


_NMIFS = dict(
    latex=r"\mathrm{MI}(C,V_i)-\frac{1}{|S|} \sum_{V_s \in S} "
    r"\frac{\mathrm{MI}(V_i,V_s)}{\min\{h(V_i),h(V_s)\}}",
    plain="MI(C,Vi) - (1/|S|) * sum_{Vs in S} MI(Vi,Vs) / min{h(Vi),h(Vs)}",
)


def _maxmifs(ops, v, i, S, beta):
    return v.mi_c(i) - ops.max([v.mi(i, s) for s in S])


_MAXMIFS = dict(
    latex=r"\mathrm{MI}(C,V_i)-\max_{V_s \in S}\{\mathrm{MI}(V_i,V_s)\}",
    plain="MI(C,Vi) - max_{Vs in S} MI(Vi,Vs)",
)


# ----- the registry ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Reading:
    """One written form of an objective: the function, its renderings and where it is written."""

    fn: Callable
    latex: str
    plain: str
    source: str


@dataclass(frozen=True)
class Method:
    """A registered method.

    ``readings`` maps a reading's name to a :class:`Reading`. The paper's two-dimensional
    methods have "table" and "text"; for those the table and the text write alike both keys
    hold the same object. The three-dimensional methods and those of the libraries have
    "original" (the default) and named rewrites ("unified", "interaction", "fleuret", "feast").
    A method has :attr:`readings_differ` when it has more than one distinct reading.

    ``family`` is one of :data:`FAMILIES`. ``dimension`` is the number of variables (features
    and the class) of the largest quantity the objective reads: 2 (h, MI(C, V), MI(V_i, V_j)),
    3 (MI(C;{V_i,V_j}), MI(V_i;V_j|C), H(V_i,V_j,C)), 4 (JMI3's MI(C;{V_i,V_u,V_w})), or None
    when it grows with the selected set (CMI reads MI(C; V_S) for S and S + {V_i}).
    ``has_gamma``: the method takes beta and gamma (beta-gamma), each in [0, 1] or 1/|S|.
    """

    key: str
    display: str
    citation: str
    has_beta: bool
    readings: Mapping[str, Reading]
    default_reading: str = "table"
    notes: str = ""
    aliases: tuple[str, ...] = field(default=())
    dimension: int | None = 2
    family: str = "paper"
    has_gamma: bool = False

    @property
    def readings_differ(self) -> bool:
        return len({id(r) for r in self.readings.values()}) > 1

    @property
    def reads_joint(self) -> bool:
        """Whether the objective reads quantities with the class and more than one feature
        (the engine's joint values, computed on first use)."""
        return self.dimension is None or self.dimension >= 3

    def distinct_readings(self) -> list[tuple[str, Reading]]:
        """(name, reading) for each distinct reading, in registry order."""
        seen, out = set(), []
        for name, r in self.readings.items():
            if id(r) not in seen:
                seen.add(id(r))
                out.append((name, r))
        return out

    def check(self, beta=None, reading: str | None = None, zero_beta: str = "explicit",
              gamma=None):
        """Validate options; return ``(beta, reading, zero_beta)``, beta a Fraction, None, or
        :data:`PER_STEP` (beta-gamma's 1/|S|). ``gamma`` is checked too (beta-gamma requires
        it, the others refuse it); :meth:`gamma_value` gives it parsed."""
        if self.has_beta:
            if beta is None:
                raise MethodError(
                    f"parameter 'beta' is required for {self.display} (a number in [0, 1]"
                    + (" or 1/|S|)" if self.has_gamma else ")"))
            beta = parse_coefficient(beta, "beta", self.display, self.has_gamma)
        elif beta is not None:
            raise MethodError(
                f"parameter 'beta' is not accepted by {self.display} "
                f"(only {_takers('has_beta')} take beta, in [0, 1])"
            )
        self.gamma_value(gamma)
        reading = self.default_reading if reading is None else reading
        if reading not in self.readings:
            raise MethodError(
                f"parameter 'reading' must be one of {', '.join(self.readings)} (got {reading!r})"
            )
        if zero_beta not in ZERO_BETA:
            raise MethodError(
                f"parameter 'zero_beta' must be one of {', '.join(ZERO_BETA)} (got {zero_beta!r})"
            )
        return beta, reading, zero_beta

    def gamma_value(self, gamma):
        """gamma parsed (a Fraction in [0, 1] or :data:`PER_STEP`) for beta-gamma; None for the
        other methods, which refuse a gamma."""
        if self.has_gamma:
            if gamma is None:
                raise MethodError(f"parameter 'gamma' is required for {self.display} (a number "
                                  "in [0, 1] or 1/|S|)")
            return parse_coefficient(gamma, "gamma", self.display, True)
        if gamma is not None:
            raise MethodError(f"parameter 'gamma' is not accepted by {self.display} "
                              f"(only {_takers('has_gamma')} takes gamma)")
        return None

    def objective(self, ops, v, i, S, beta=None, *, reading: str | None = None,
                  zero_beta: str = "explicit", gamma=None):
        """The objective of candidate ``i`` given the selected ``S`` (|S| >= 1).

        Same call in every world (see :mod:`fstheory.orderings.arithmetic`): ``ops`` is
        ``EXACT_OPS``, ``FLOAT_OPS`` or an interval arithmetic; ``beta`` must be given for the
        methods that take it (mifs, mifs-u, beta-gamma) and only for them, ``gamma`` for
        beta-gamma only.
        """
        beta, reading, zero_beta = self.check(beta, reading, zero_beta, gamma)
        if len(S) == 0:
            raise MethodError("the objective needs at least one selected feature (S is empty)")
        with ops.quiet():
            fn = self.readings[reading].fn
            if self.has_gamma:
                return fn(ops, v, i, S, beta, self.gamma_value(gamma), zero_beta)
            if self.has_beta and beta == 0 and zero_beta == "drop":
                return v.mi_c(i)
            return fn(ops, v, i, S, beta)

    def describe(self, beta=None, reading: str | None = None, zero_beta: str = "explicit",
                 gamma=None) -> str:
        """'MIFS-U (beta=0.4, table reading)' style name for reports."""
        beta, reading, zero_beta = self.check(beta, reading, zero_beta, gamma)
        parts = []
        if self.has_beta:
            parts.append(f"beta={_show(beta)}")
        if self.has_gamma:
            gamma = self.gamma_value(gamma)
            parts.append(f"gamma={_show(gamma)}")
        if (self.has_beta and beta == 0) or (self.has_gamma and gamma == 0):
            parts.append(f"zero-beta {zero_beta}")
        if self.readings_differ:
            parts.append(f"{reading} reading")
        return f"{self.display} ({', '.join(parts)})" if parts else self.display


def _takers(attr: str) -> str:
    names = [k for k, m in METHODS.items() if getattr(m, attr)]
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _show(f) -> str:
    if f is PER_STEP:
        return str(f)
    return str(f.numerator) if f.denominator == 1 else f"{float(f):g}"


def one_reading(spec: dict, source: str) -> dict[str, Reading]:
    """The readings of a method whose paper table and text agree: one :class:`Reading`, of
    ``spec`` (fn, latex, plain) from ``source``, under both names "table" and "text"."""
    r = Reading(fn=spec["fn"], latex=spec["latex"], plain=spec["plain"], source=source)
    return {"table": r, "text": r}


def _two(table: dict, text: dict, text_source: str) -> dict[str, Reading]:
    return {
        "table": Reading(table["fn"], table["latex"], table["plain"], 'Table "Objective functions"'),
        "text": Reading(text["fn"], text["latex"], text["plain"], text_source),
    }


_TABLE = 'Table "Objective functions" (Section 4)'

#: Why each default reading is what it is (checked in tests/orderings/test_paper_orderings.py).
DEFAULT_NOTES = {
    "mifs-u": "Table and text groupings always agree on which candidates are determinate and on "
    "their values (only the indeterminate form differs: at h(Vs) = 0 the table grouping gives "
    "0*inf for beta > 0 and 0/0 for beta = 0, the text grouping 0/0 for independent candidates); "
    "so every ordering is the same and the table's grouping is the default.",
    "mmifs-u": "As MIFS-U: same orderings under both groupings; table default.",
    "micc": "Table and eq. (redMICC) agree on determinacy and values (forms differ: 0/0 versus "
    "0*inf when MI(C,Vi) = 0 and sum NI = 0); table default.",
    "qmifs": "Default: the text reading, eq. (redQMIFS). The paper's Scenario II rows (X, Y, Z, "
    "W+2, Z+W, X-Y at k = 0.2 and 0.8) follow it; the table reading gives X, Y, Z, W+2, X-Y, "
    "Z+W (at step 5 it charges X-Y only MI(X-Y,X)/h(X) + MI(X-Y,Y)/h(Y), not weighted by "
    "MI(C,Vk)). Both readings give the paper's Scenario I rows.",
}

METHODS: dict[str, Method] = {}


def _register(m: Method) -> None:
    if m.key in METHODS:
        raise ValueError(f"method {m.key!r} registered twice")
    METHODS[m.key] = m


_register(Method("mifs", "MIFS", "Battiti 1994", True, one_reading({**_MIFS, "fn": _mifs}, _TABLE)))
_register(
    Method(
        "mifs-u", "MIFS-U", "Kwak and Choi 2002", True,
        _two({**_MIFS_U_TABLE, "fn": _mifs_u_table}, {**_MIFS_U_TEXT, "fn": _mifs_u_text},
             "Section 7 discussion (quotient MI(Vi,Vs)/h(Vs))"),
        notes=DEFAULT_NOTES["mifs-u"],
    )
)
_register(Method("mrmr", "mRMR", "Peng et al. 2005", False, one_reading({**_MRMR, "fn": _mrmr}, _TABLE)))
_register(
    Method(
        "mmifs-u", "mMIFS-U", "Novovicova et al. 2007", False,
        _two({**_MMIFS_U_TABLE, "fn": _mmifs_u_table}, {**_MMIFS_U_TEXT, "fn": _mmifs_u_text},
             "Section 7 discussion (quotient MI(Vi,Vs)/h(Vs))"),
        notes=DEFAULT_NOTES["mmifs-u"],
    )
)
_register(
    Method(
        "micc", "MICC", "Huang et al. 2008", False,
        _two({**_MICC_TABLE, "fn": _micc_table}, {**_MICC_TEXT, "fn": _micc_text}, "eq. (redMICC)"),
        notes=DEFAULT_NOTES["micc"],
    )
)
_register(
    Method(
        "qmifs", "QMIFS", "Huang et al. 2008", False,
        _two({**_QMIFS_TABLE, "fn": _qmifs_table}, {**_QMIFS_TEXT, "fn": _qmifs_text}, "eq. (redQMIFS)"),
        default_reading="text",
        notes=DEFAULT_NOTES["qmifs"],
    )
)
_register(Method("nmifs", "NMIFS", "Estevez et al. 2009", False, one_reading({**_NMIFS, "fn": _nmifs}, _TABLE)))
_register(
    Method("maxmifs", "maxMIFS", "Pascoal et al. 2014", False, one_reading({**_MAXMIFS, "fn": _maxmifs}, _TABLE))
)


# ----- the three-dimensional methods: objectives in fstheory.orderings.objectives_3d ---------------


def _named(original: dict, source: str, **others) -> dict[str, Reading]:
    """Readings of a three-dimensional method: "original" first, then the named rewrites
    (``name=(spec, source)``)."""
    out = {"original": Reading(original["fn"], original["latex"], original["plain"], source)}
    for name, (spec, src) in others.items():
        out[name] = Reading(spec["fn"], spec["latex"], spec["plain"], src)
    return out


def _register3(key, display, citation, readings, notes=""):
    _register(Method(key, display, citation, False, readings, default_reading="original",
                     notes=notes, dimension=3, family="3d"))


_register3("jmi", "JMI", "Yang and Moody 1999",
           _named(o3.SPECS["jmi"], "Yang and Moody 1999 (joint mutual information)",
                  unified=(o3.SPECS["jmi/unified"], o3.BROWN),
                  interaction=(o3.SPECS["jmi/interaction"], o3.INTERACTION)),
           notes="The unified and interaction readings are the original divided by |S| minus "
           "(1/|S|) sum_s MI(C,Vs), a constant of the step: same argmax where determinate.")
_register3("cmim", "CMIM", "Fleuret 2004",
           _named(o3.SPECS["cmim"], "Fleuret 2004 (conditional mutual information maximisation)",
                  fleuret=(o3.SPECS["cmim/fleuret"],
                           "Fleuret 2004, running-minimum form (the partial score starts at MI(C,Vi))"),
                  unified=(o3.SPECS["cmim/unified"], o3.BROWN)),
           notes="The fleuret reading differs only when MI(C;Vi|Vs) > MI(C,Vi) for every Vs in S "
           "(complementary features).")
_register3("jmim", "JMIM", "Bennasar et al. 2015",
           _named(o3.SPECS["jmim"], "Bennasar et al. 2015 (joint mutual information maximisation)"))
_register3("cife", "CIFE", "Lin and Tang 2006",
           _named(o3.SPECS["cife"], "Lin and Tang 2006 (conditional infomax feature extraction); "
                  "Brown et al. 2012",
                  interaction=(o3.SPECS["cife/interaction"], o3.INTERACTION)))
_register3("disr", "DISR", "Meyer and Bontempi 2006",
           _named(o3.SPECS["disr"], "Meyer and Bontempi 2006; Meyer et al. 2008 (double input "
                  "symmetrical relevance)"))
_register3("icap", "ICAP", "Jakulin 2005",
           _named(o3.SPECS["icap"], "Jakulin 2005 (interaction capping); Brown et al. 2012",
                  interaction=(o3.SPECS["icap/interaction"], o3.INTERACTION)))


# ----- the methods of FEAST and praznik (objectives in fstheory.orderings.library_objectives) ---------


def _original(name: str, source: str, **others) -> dict[str, Reading]:
    return _named(lib.SPECS[name], source,
                  **{r: (lib.SPECS[f"{name}/{r}"], src) for r, src in others.items()})


def _register_lib(key, display, citation, readings, dimension, notes="", has_beta=False,
                  has_gamma=False, aliases=()):
    _register(Method(key, display, citation, has_beta, readings, default_reading="original",
                     notes=notes, aliases=aliases, dimension=dimension, family="libraries",
                     has_gamma=has_gamma))


_register_lib("mim", "MIM", "Lewis 1992",
              _original("mim", "Lewis 1992 (mutual information maximisation); FEAST MIM.m, praznik "
                        "MIM"), 2,
              notes="The ranking by MI(C, Vi) alone: every step compares the same values.")
_register_lib("cmi", "CMI", "Brown et al. 2012",
              _original("cmi", "Brown et al. 2012 (the conditional mutual information criterion "
                        "their framework approximates); FEAST CondMI.c, praznik CMI"), None,
              notes="FEAST and praznik stop when the best score is 0 (FEAST returns -1 for the "
              "remaining positions, praznik returns fewer features); the paper's greedy rules "
              "used here keep selecting, ties to the lower index.")
_register_lib("njmim", "NJMIM", "Bennasar et al. 2015",
              _original("njmim", "Bennasar, Hicks and Setchi 2015 (normalised joint mutual "
                        "information maximisation); praznik NJMIM"), 3,
              notes="praznik stops when the best score is 0 (and reads 0/0 as NaN, never "
              "chosen); the objective is the same.")
_register_lib("jmi3", "JMI3", "Sechidis et al. 2019",
              _original("jmi3", "Sechidis, Azzimonti, Pocock, Corani, Weatherall and Brown 2019 "
                        "(JMI3.m of their code); praznik JMI3"), 4,
              notes="At |S| = 1 the sum over pairs of S is empty: both implementations take "
              "JMI's MI(C;{Vi,Vs}) for the second feature, and so does this one.")
_register_lib("beta-gamma", "beta-gamma", "Brown et al. 2012",
              _original("beta-gamma", "Brown 2009; Brown et al. 2012 (the space of linear "
                        "criteria)", feast="FEAST BetaGamma.c: one bracket per selected feature"),
              3, has_beta=True, has_gamma=True, aliases=("betagamma",),
              notes="Named points (beta, gamma): MIM (0, 0), MIFS (beta, 0), mRMR (1/|S|, 0) "
              "and CondRed (0, 1) with zero_beta='drop' (a zero coefficient's term left out; "
              "with 'explicit' they agree where the dropped sum is finite); CIFE (1, 1) and JMI "
              "(1/|S|, 1/|S|, JMI's unified reading; its original reading is |S| times this plus "
              "sum_s MI(C,Vs), a constant of the step).")
_register_lib("condred", "CondRed", "Brown et al. 2012",
              _original("condred", "Brown 2009; Brown et al. 2012 (beta = 0, gamma = 1)",
                        feast="FEAST CondRed = BetaGamma(0, 1): the term 0 * MI(Vi,Vs) is kept"),
              3,
              notes="The feast reading is 0*inf (indeterminate) for a functionally dependent "
              "pair, where the original is +inf.")


def method_names(dimension: int | None = None, family: str | None = None) -> list[str]:
    """Registry keys: the paper's eight two-dimensional methods (mifs, mifs-u, mrmr, mmifs-u,
    micc, qmifs, nmifs, maxmifs), the six three-dimensional ones (jmi, cmim, jmim, cife, disr,
    icap), then those of FEAST and praznik (mim, cmi, njmim, jmi3, beta-gamma, condred);
    ``dimension`` keeps the methods of that :attr:`Method.dimension`, ``family`` one of
    :data:`FAMILIES`."""
    return [k for k, m in METHODS.items()
            if (dimension is None or m.dimension == dimension)
            and (family is None or m.family == family)]


def get_method(name) -> Method:
    """Look a method up by name, case-insensitively ('MIFS-U', 'mifs-u', 'mMIFS-U' ...), or by
    an alias ('betagamma')."""
    key = name.strip().lower() if isinstance(name, str) else None
    if key not in METHODS:
        key = next((k for k, m in METHODS.items() if key in m.aliases), None)
    if key is None:
        raise MethodError(
            f"parameter 'method' must be one of {', '.join(METHODS)} (got {name!r})"
        )
    return METHODS[key]
