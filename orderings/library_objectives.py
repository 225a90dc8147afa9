r"""The objectives of the methods that FEAST and praznik add to the paper's and the 3-D ones: MIM,
CMI, NJMIM, JMI3, the beta-gamma family and CondRed, each next to its renderings and sources.

They are registered in :mod:`fstheory.orderings.methods` (the one registry) and written, as every
objective there, against the arithmetic interface (:mod:`fstheory.orderings.arithmetic`): the same
function runs on exact extended reals, on intervals and on float arrays. Besides the values
view's ``mi_c``, ``mi``, ``mi_c_pair``, ``mi_given_c`` and ``h_pair_c`` they read
``v.mi_c_set(T)`` = MI(C; V_T) for a set T of features (a tuple of handles; JMI3) and
``v.cmi_c_set(i, T)`` = MI(C; V_i | V_T) = MI(C; V_T + {V_i}) - MI(C; V_T) (CMI), a quantity of
the view so that a value world can take the difference where its terms are exact (the engine
does, at its working precision: two equal sets cancel exactly).

Definitions (``S`` the selected features, |S| >= 1; the first feature maximises MI(C, V_i) in
every method, the libraries included):

MIM (Lewis 1992; FEAST ``MIM.m``, praznik ``MIM``)
    MI(C, V_i) at every step: the ranking by relevance alone.
CMI (Brown et al. 2012, the criterion J_cmi that their framework approximates; FEAST
``CondMI.c``, praznik ``CMI``)
    MI(C; V_i | V_S) = MI(C; V_S + {V_i}) - MI(C; V_S) (chain rule, Cover and Thomas Thm 2.5.2),
    finite, in [0, H(C)].
NJMIM (Bennasar, Hicks and Setchi 2015; praznik ``NJMIM``)
    min_s MI(C; {V_i, V_s}) / H(V_i, V_s, C): JMIM's minimum of DISR's normalised terms
    (symmetrical relevance). H(V_i, V_s, C) is the mixed joint entropy of continuous features,
    which can be 0, negative or -inf: 0/0 and x/0 are indeterminate or infinite as for DISR.
JMI3 (Sechidis, Azzimonti, Pocock, Corani, Weatherall and Brown 2019, their ``JMI3.m``;
praznik ``JMI3``)
    |S| = 1: MI(C; {V_i, V_s}) (JMI's second step; the criterion's sum over pairs is empty);
    |S| >= 2: sum over the unordered pairs {V_u, V_w} of S of MI(C; {V_i, V_u, V_w}). praznik
    writes it as (1/2) sum over ordered pairs U != W, the same sum.
beta-gamma (Brown 2009; Brown et al. 2012, the space of linear criteria; FEAST ``BetaGamma.c``)
    MI(C, V_i) - beta sum_s MI(V_i, V_s) + gamma sum_s MI(V_i; V_s | C), beta and gamma in
    [0, 1] or ``1/|S|``. Named points: MIM (0, 0), MIFS (beta, 0), mRMR (1/|S|, 0), CondRed
    (0, 1), CIFE (1, 1), JMI (1/|S|, 1/|S|) -- see :data:`NAMED_POINTS` for how each maps.
CondRed (Brown 2009; Brown et al. 2012, the point (0, 1); FEAST ``CondRed`` runs
``BetaGamma(0, 1)``)
    MI(C, V_i) + sum_s MI(V_i; V_s | C).

Readings where a library writes the objective differently:

* beta-gamma "feast": ``MI(C,Vi) - sum_s (beta MI(Vi,Vs) - gamma MI(Vi,Vs|C))``, FEAST's
  grouping (one bracket per selected feature). Equal to the original where both are determinate;
  both are inf - inf for a functionally dependent pair (MI(Vi,Vs) and MI(Vi;Vs|C) are +inf
  together), so they differ only in the indeterminate form's cause.
* CondRed "feast": FEAST evaluates CondRed as ``BetaGamma(0, 1)``, i.e. with the term
  ``0 * MI(Vi,Vs)``: for a functionally dependent pair that is 0 * inf, indeterminate, where
  the original CondRed (which has no such term) is +inf.

The zero coefficients of beta-gamma follow ``zero_beta`` (both of them): "explicit" evaluates
``0 * sum`` as written (0 * inf is indeterminate, as the paper's tables do for MIFS at beta = 0);
"drop" leaves a term with a zero coefficient out, which is how Brown et al. obtain the members
without a conditional (MIFS, mRMR, MIM) or without a redundancy term (CondRed).
"""

from __future__ import annotations

from fractions import Fraction
from itertools import combinations

__all__ = ["PER_STEP", "PerStep", "NAMED_POINTS", "SPECS"]


class PerStep:
    """The coefficient 1/|S| of mRMR and JMI in the beta-gamma family: a different number at each
    step (|S| features selected). There is one instance, :data:`PER_STEP`."""

    _instance = None

    def __new__(cls):
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __str__(self) -> str:
        return "1/|S|"

    def __repr__(self) -> str:
        return "PER_STEP"

    def __reduce__(self):  # one instance across processes too
        return (PerStep, ())

    def at(self, size: int) -> Fraction:
        return Fraction(1, size)


PER_STEP = PerStep()

#: The beta-gamma coordinates (beta, gamma) of the named methods, with the reading of the
#: named method they reproduce and the zero_beta under which they reproduce it everywhere.
#: Under zero_beta="explicit" a zero coefficient multiplies its sum as written, so a point with a
#: zero coordinate reproduces the named method only where that sum is finite.
NAMED_POINTS = {
    "mim": ((Fraction(0), Fraction(0)), None, "drop"),
    "mifs": (("beta", Fraction(0)), None, "drop"),
    "mrmr": ((PER_STEP, Fraction(0)), None, "drop"),
    "condred": ((Fraction(0), Fraction(1)), "original", "drop"),
    "cife": ((Fraction(1), Fraction(1)), "original", "explicit"),
    "jmi": ((PER_STEP, PER_STEP), "unified", "explicit"),
}


def _coefficient(ops, c, S, label):
    if c is PER_STEP:
        return ops.const(PER_STEP.at(len(S)), "1/|S|")
    return ops.const(c, label)


# ----- MIM -----------------------------------------------------------------------------------------


def _mim(ops, v, i, S, beta):
    return v.mi_c(i)


MIM = dict(latex=r"\mathrm{MI}(C,V_i)", plain="MI(C,Vi)")


# ----- CMI -----------------------------------------------------------------------------------------


def _cmi(ops, v, i, S, beta):
    return v.cmi_c_set(i, tuple(S))


CMI = dict(
    latex=r"\mathrm{MI}(C;V_i|S)=\mathrm{MI}(C;S\cup\{V_i\})-\mathrm{MI}(C;S)",
    plain="MI(C;Vi|S) = MI(C; S + {Vi}) - MI(C; S)",
)


# ----- NJMIM ---------------------------------------------------------------------------------------


def _njmim(ops, v, i, S, beta):
    return ops.min([v.mi_c_pair(i, s) / v.h_pair_c(i, s) for s in S])


NJMIM = dict(
    latex=r"\min_{V_s \in S} \frac{\mathrm{MI}(C;\{V_i,V_s\})}{H(V_i,V_s,C)}",
    plain="min_{Vs in S} MI(C;{Vi,Vs}) / H(Vi,Vs,C)",
)


# ----- JMI3 ----------------------------------------------------------------------------------------


def _jmi3(ops, v, i, S, beta):
    S = list(S)
    if len(S) == 1:
        return v.mi_c_pair(i, S[0])
    return ops.sum([v.mi_c_set((i, u, w)) for u, w in combinations(S, 2)])


JMI3 = dict(
    latex=r"\sum_{\{V_u,V_w\} \subseteq S} \mathrm{MI}(C;\{V_i,V_u,V_w\})"
    r"\quad(|S|=1:\ \mathrm{MI}(C;\{V_i,V_s\}))",
    plain="sum_{pairs {Vu,Vw} of S} MI(C;{Vi,Vu,Vw})   (|S| = 1: MI(C;{Vi,Vs}))",
)


# ----- beta-gamma and CondRed ----------------------------------------------------------------------


def _term(ops, c, S, label, total, zero_beta):
    """``c * total`` with c the coefficient; None when c = 0 and zero terms are dropped."""
    if c is not PER_STEP and c == 0 and zero_beta == "drop":
        return None
    return _coefficient(ops, c, S, label) * total()


def _beta_gamma(ops, v, i, S, beta, gamma=None, zero_beta="explicit"):
    red = _term(ops, beta, S, "beta", lambda: ops.sum([v.mi(i, s) for s in S]), zero_beta)
    cond = _term(ops, gamma, S, "gamma", lambda: ops.sum([v.mi_given_c(i, s) for s in S]),
                 zero_beta)
    out = v.mi_c(i)
    if red is not None:
        out = out - red
    if cond is not None:
        out = out + cond
    return out


BETA_GAMMA = dict(
    latex=r"\mathrm{MI}(C,V_i)-\beta\sum_{V_s \in S}\mathrm{MI}(V_i,V_s)"
    r"+\gamma\sum_{V_s \in S}\mathrm{MI}(V_i,V_s|C)",
    plain="MI(C,Vi) - beta * sum_{Vs in S} MI(Vi,Vs) + gamma * sum_{Vs in S} MI(Vi,Vs|C)",
)


def _beta_gamma_feast(ops, v, i, S, beta, gamma=None, zero_beta="explicit"):
    terms = []
    for s in S:
        red = _term(ops, beta, S, "beta", lambda s=s: v.mi(i, s), zero_beta)
        cond = _term(ops, gamma, S, "gamma", lambda s=s: v.mi_given_c(i, s), zero_beta)
        if red is None and cond is None:
            continue
        terms.append(-cond if red is None else red if cond is None else red - cond)
    return v.mi_c(i) - ops.sum(terms) if terms else v.mi_c(i)


BETA_GAMMA_FEAST = dict(
    latex=r"\mathrm{MI}(C,V_i)-\sum_{V_s \in S}\left[\beta\,\mathrm{MI}(V_i,V_s)"
    r"-\gamma\,\mathrm{MI}(V_i,V_s|C)\right]",
    plain="MI(C,Vi) - sum_{Vs in S} (beta * MI(Vi,Vs) - gamma * MI(Vi,Vs|C))",
)


def _condred(ops, v, i, S, beta):
    return v.mi_c(i) + ops.sum([v.mi_given_c(i, s) for s in S])


CONDRED = dict(
    latex=r"\mathrm{MI}(C,V_i)+\sum_{V_s \in S}\mathrm{MI}(V_i,V_s|C)",
    plain="MI(C,Vi) + sum_{Vs in S} MI(Vi,Vs|C)",
)


def _condred_feast(ops, v, i, S, beta):
    zero = ops.const(0)
    return v.mi_c(i) - ops.sum([zero * v.mi(i, s) - v.mi_given_c(i, s) for s in S])


CONDRED_FEAST = dict(
    latex=r"\mathrm{MI}(C,V_i)-\sum_{V_s \in S}\left[0\cdot\mathrm{MI}(V_i,V_s)"
    r"-\mathrm{MI}(V_i,V_s|C)\right]",
    plain="MI(C,Vi) - sum_{Vs in S} (0 * MI(Vi,Vs) - MI(Vi,Vs|C))",
)

#: name -> renderings with the function, for the registry.
SPECS = {
    "mim": {**MIM, "fn": _mim},
    "cmi": {**CMI, "fn": _cmi},
    "njmim": {**NJMIM, "fn": _njmim},
    "jmi3": {**JMI3, "fn": _jmi3},
    "beta-gamma": {**BETA_GAMMA, "fn": _beta_gamma},
    "beta-gamma/feast": {**BETA_GAMMA_FEAST, "fn": _beta_gamma_feast},
    "condred": {**CONDRED, "fn": _condred},
    "condred/feast": {**CONDRED_FEAST, "fn": _condred_feast},
}
