r"""The objectives of the three-dimensional methods (JMI, CMIM, JMIM, CIFE, DISR, ICAP), each
next to its renderings, registered in :mod:`fstheory.orderings.methods` (the one registry, where
the readings are explained). Written against the arithmetic interface
(:mod:`fstheory.orderings.arithmetic`); they read the values view's ``mi_c``, ``mi``,
``mi_c_pair``, ``cmi_c``, ``mi_given_c`` and ``h_pair_c``.
"""

from __future__ import annotations

__all__ = ["SPECS", "BROWN", "INTERACTION"]

# ----- the three-dimensional methods (Brown et al., JMLR 2012, for their unified forms) ------------
# v.mi_c_pair(i, s) = MI(C;{Vi,Vs}), v.cmi_c(i, s) = MI(C;Vi|Vs), v.mi_given_c(i, s) = MI(Vi;Vs|C),
# v.h_pair_c(i, s) = H(Vi,Vs,C). "original" is each method as its authors define it; the other
# readings are algebraically equal where determinate (or equal up to a constant common to all
# candidates, which keeps the argmax) but differ in where they are determinate:
# "unified" writes the redundancy through MI(Vi,Vs) - MI(Vi,Vs|C), which is +inf - (+inf) for a
# pair of functionally dependent features; "interaction" writes the same interaction information
# as MI(C,Vi) - MI(C;Vi|Vs), which is always finite (McGill 1954; Jakulin 2005).


def _jmi(ops, v, i, S, beta):
    return ops.sum([v.mi_c_pair(i, s) for s in S])


_JMI = dict(
    latex=r"\sum_{V_s \in S} \mathrm{MI}(C;\{V_i,V_s\})",
    plain="sum_{Vs in S} MI(C;{Vi,Vs})",
)


def _jmi_unified(ops, v, i, S, beta):
    return v.mi_c(i) - ops.mean([v.mi(i, s) - v.mi_given_c(i, s) for s in S])


_JMI_UNIFIED = dict(
    latex=r"\mathrm{MI}(C,V_i)-\frac{1}{|S|}\sum_{V_s \in S}\left[\mathrm{MI}(V_i,V_s)"
    r"-\mathrm{MI}(V_i,V_s|C)\right]",
    plain="MI(C,Vi) - (1/|S|) * sum_{Vs in S} (MI(Vi,Vs) - MI(Vi,Vs|C))",
)


def _jmi_interaction(ops, v, i, S, beta):
    return v.mi_c(i) - ops.mean([v.mi_c(i) - v.cmi_c(i, s) for s in S])


_JMI_INTERACTION = dict(
    latex=r"\mathrm{MI}(C,V_i)-\frac{1}{|S|}\sum_{V_s \in S}\left[\mathrm{MI}(C,V_i)"
    r"-\mathrm{MI}(C;V_i|V_s)\right]",
    plain="MI(C,Vi) - (1/|S|) * sum_{Vs in S} (MI(C,Vi) - MI(C;Vi|Vs))",
)


def _cmim(ops, v, i, S, beta):
    return ops.min([v.cmi_c(i, s) for s in S])


_CMIM = dict(
    latex=r"\min_{V_s \in S} \mathrm{MI}(C;V_i|V_s)",
    plain="min_{Vs in S} MI(C;Vi|Vs)",
)


def _cmim_fleuret(ops, v, i, S, beta):
    return ops.min([v.mi_c(i)] + [v.cmi_c(i, s) for s in S])


_CMIM_FLEURET = dict(
    latex=r"\min\left\{\mathrm{MI}(C,V_i),\ \min_{V_s \in S} \mathrm{MI}(C;V_i|V_s)\right\}",
    plain="min(MI(C,Vi), min_{Vs in S} MI(C;Vi|Vs))",
)


def _cmim_unified(ops, v, i, S, beta):
    return v.mi_c(i) - ops.max([v.mi(i, s) - v.mi_given_c(i, s) for s in S])


_CMIM_UNIFIED = dict(
    latex=r"\mathrm{MI}(C,V_i)-\max_{V_s \in S}\left[\mathrm{MI}(V_i,V_s)-\mathrm{MI}(V_i,V_s|C)\right]",
    plain="MI(C,Vi) - max_{Vs in S} (MI(Vi,Vs) - MI(Vi,Vs|C))",
)


def _jmim(ops, v, i, S, beta):
    return ops.min([v.mi_c_pair(i, s) for s in S])


_JMIM = dict(
    latex=r"\min_{V_s \in S} \mathrm{MI}(C;\{V_i,V_s\})",
    plain="min_{Vs in S} MI(C;{Vi,Vs})",
)


def _cife(ops, v, i, S, beta):
    return v.mi_c(i) - ops.sum([v.mi(i, s) for s in S]) + ops.sum([v.mi_given_c(i, s) for s in S])


_CIFE = dict(
    latex=r"\mathrm{MI}(C,V_i)-\sum_{V_s \in S}\mathrm{MI}(V_i,V_s)+\sum_{V_s \in S}\mathrm{MI}(V_i,V_s|C)",
    plain="MI(C,Vi) - sum_{Vs in S} MI(Vi,Vs) + sum_{Vs in S} MI(Vi,Vs|C)   [left to right]",
)


def _cife_interaction(ops, v, i, S, beta):
    return v.mi_c(i) - ops.sum([v.mi_c(i) - v.cmi_c(i, s) for s in S])


_CIFE_INTERACTION = dict(
    latex=r"\mathrm{MI}(C,V_i)-\sum_{V_s \in S}\left[\mathrm{MI}(C,V_i)-\mathrm{MI}(C;V_i|V_s)\right]",
    plain="MI(C,Vi) - sum_{Vs in S} (MI(C,Vi) - MI(C;Vi|Vs))",
)


def _disr(ops, v, i, S, beta):
    return ops.sum([v.mi_c_pair(i, s) / v.h_pair_c(i, s) for s in S])


_DISR = dict(
    latex=r"\sum_{V_s \in S} \frac{\mathrm{MI}(C;\{V_i,V_s\})}{H(V_i,V_s,C)}",
    plain="sum_{Vs in S} MI(C;{Vi,Vs}) / H(Vi,Vs,C)",
)


def _icap(ops, v, i, S, beta):
    zero = ops.const(0)
    return v.mi_c(i) - ops.sum([ops.max2(zero, v.mi(i, s) - v.mi_given_c(i, s)) for s in S])


_ICAP = dict(
    latex=r"\mathrm{MI}(C,V_i)-\sum_{V_s \in S}\max\left\{0,\ \mathrm{MI}(V_i,V_s)-\mathrm{MI}(V_i,V_s|C)\right\}",
    plain="MI(C,Vi) - sum_{Vs in S} max(0, MI(Vi,Vs) - MI(Vi,Vs|C))",
)


def _icap_interaction(ops, v, i, S, beta):
    zero = ops.const(0)
    return v.mi_c(i) - ops.sum([ops.max2(zero, v.mi_c(i) - v.cmi_c(i, s)) for s in S])


_ICAP_INTERACTION = dict(
    latex=r"\mathrm{MI}(C,V_i)-\sum_{V_s \in S}\max\left\{0,\ \mathrm{MI}(C,V_i)-\mathrm{MI}(C;V_i|V_s)\right\}",
    plain="MI(C,Vi) - sum_{Vs in S} max(0, MI(C,Vi) - MI(C;Vi|Vs))",
)

_BROWN = "Brown et al. 2012, unified form (redundancy MI(Vi,Vs) - MI(Vi,Vs|C))"
_INTERACTION = "interaction information MI(C,Vi) - MI(C;Vi|Vs) (McGill 1954; Jakulin 2005)"

#: name or "name/reading" -> renderings with the function, for the registry.
SPECS = {
    "jmi": {**_JMI, "fn": _jmi},
    "jmi/unified": {**_JMI_UNIFIED, "fn": _jmi_unified},
    "jmi/interaction": {**_JMI_INTERACTION, "fn": _jmi_interaction},
    "cmim": {**_CMIM, "fn": _cmim},
    "cmim/fleuret": {**_CMIM_FLEURET, "fn": _cmim_fleuret},
    "cmim/unified": {**_CMIM_UNIFIED, "fn": _cmim_unified},
    "jmim": {**_JMIM, "fn": _jmim},
    "cife": {**_CIFE, "fn": _cife},
    "cife/interaction": {**_CIFE_INTERACTION, "fn": _cife_interaction},
    "disr": {**_DISR, "fn": _disr},
    "icap": {**_ICAP, "fn": _icap},
    "icap/interaction": {**_ICAP_INTERACTION, "fn": _icap_interaction},
}
BROWN = _BROWN
INTERACTION = _INTERACTION

