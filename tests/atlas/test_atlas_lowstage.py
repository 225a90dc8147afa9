"""The first stage of the 3-D sweep (atlas/lowstage.py): every objective's enclosure
contains the objective of every input within the stated errors (all twelve 3-D rows, hypothesis),
and a DISR divisor that is small against its terms leaves the step to the working digits."""

from __future__ import annotations

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.orderings.arithmetic import EXACT_OPS
from fstheory.atlas.lowstage import LowStageView, decided, objective
from fstheory.atlas.report import rows_3d
from fstheory.orderings.methods import get_method
from fstheory.theory.extended import xr

N = 4
REL = mpmath.mpf(10) ** -6


class _Values:
    """A values view on base values (h, MI(C,V), MI(V,V'), H(C), MI(C;{V,V'})) whose joint
    quantities are the engine's identities in them (engine/evaluate_joint.py)."""

    def __init__(self, h, mc, mi, hc, pair):
        self._h, self._mc, self._mi, self._hc, self._pair = h, mc, mi, hc, pair

    def joint_values(self):
        return self  # no structure: every pair counts as numerical

    def h(self, i):
        return xr(self._h[i])

    def mi_c(self, i):
        return xr(self._mc[i])

    def mi(self, i, j):
        return xr(self._mi[min(i, j)][max(i, j)])

    def h_c(self):
        return xr(self._hc)

    def mi_c_pair(self, i, j):
        return self.mi_c(i) if i == j else xr(self._pair[min(i, j)][max(i, j)])

    def cmi_c(self, i, j):
        return xr(0) if i == j else self.mi_c_pair(i, j) - self.mi_c(j)

    def mi_given_c(self, i, j):
        return self.mi(i, j) - self.mi_c(i) - self.mi_c(j) + self.mi_c_pair(i, j)

    def h_pair_c(self, i, j):
        return self.h(i) + self.h(j) - self.mi(i, j) + self.h_c() - self.mi_c_pair(i, j)

    def moved(self, f):
        """The same view with every base value x replaced by x * (1 + f(x))."""
        g = lambda x: x * (1 + f())  # noqa: E731
        return _Values([g(x) for x in self._h], [g(x) for x in self._mc],
                       [[g(x) for x in r] for r in self._mi], g(self._hc),
                       [[g(x) for x in r] for r in self._pair])


def _exact_objective(method, reading, v, i, prefix):
    if not prefix:
        return v.mi_c(i)
    return method.objective(EXACT_OPS, v, i, list(prefix), None, reading=reading, zero_beta="explicit")


unit = st.floats(min_value=0.0, max_value=1.0, allow_nan=False)


@settings(max_examples=25, deadline=None)
@given(st.lists(unit, min_size=40, max_size=40),
       st.lists(st.sampled_from([-1, 1]), min_size=30, max_size=30))
def test_enclosures_contain_every_objective_within_the_errors(u, moves):
    # h in [0.5, 1.5], MI(C,V), MI(V,V') in [0, 0.5], H(C) in [0.3, 0.7], MI(C;{V,V'}) in
    # [0, H(C)]: every H(V,V',C) >= 0.1, so every objective is finite; the inputs moved by
    # 0.999 REL relative (errors of 10^-6 each, next to the corners), the objective stays in the enclosure
    # of the unmoved ones
    mp = [mpmath.mpf(x) for x in u]
    h = [mpmath.mpf("0.5") + x for x in mp[:N]]
    mc = [x / 2 for x in mp[N:2 * N]]
    mi = [[mp[8 + i * N + j] / 2 for j in range(N)] for i in range(N)]
    hc = mpmath.mpf("0.3") + mp[24] * mpmath.mpf("0.4")
    pair = [[hc * mp[25 + (i * N + j) % 15] for j in range(N)] for i in range(N)]
    v = _Values(h, mc, mi, hc, pair)
    it = iter(moves * 20)
    view = LowStageView(v, REL, REL)
    with mpmath.workdps(30):
        # just inside the corners (rounding of the moved values stays inside)
        moved = v.moved(lambda: REL * mpmath.mpf("0.999") * next(it))
        for name, reading in rows_3d():
            method = get_method(name)
            for prefix in ((), (0,), (0, 1), (2, 0, 1)):
                for i in range(N):
                    if i in prefix:
                        continue
                    enc = objective(method, view, i, prefix, None, reading, "explicit")
                    x = _exact_objective(method, reading, moved, i, prefix)
                    assert enc.finite and x.is_finite, (name, reading, prefix, i, enc)
                    assert enc.lo <= x.value <= enc.hi, (name, reading, prefix, i, enc, x)


def test_small_divisor_leaves_the_step_to_the_working_digits():
    # DISR after V0: obj(V1) = MI(C;{V1,V0}) / H(V1,V0,C). With h = 0, MI(V,V') = 0, H(C) = ln 2
    # and MI(C;{V1,V0}) = ln 2 - 10^-5, H(V1,V0,C) = 10^-5 from terms of size ln 2: errors of
    # 10^-6 relative on those terms move it by 14 %, so obj(V1) ~ 69314 is not known against
    # obj(V2) ~ 75015 (a divisor 9.24e-6 from terms of the same size). The 10^-4 relative margin
    # the first stage used before took obj(V2) - obj(V1) ~ 5700 as decided.
    ln2 = mpmath.log(2)
    with mpmath.workdps(30):
        pair = [[mpmath.mpf(0)] * 3 for _ in range(3)]
        pair[0][1] = ln2 - mpmath.mpf("1e-5")
        d2 = mpmath.mpf("9.24e-6")  # H(V2,V0,C), with MI(C;{V2,V0}) = ln 2 - d2
        pair[0][2] = ln2 - d2
        v = _Values([mpmath.mpf(0)] * 3, [mpmath.mpf("0.1")] * 3,
                    [[mpmath.mpf(0)] * 3 for _ in range(3)], ln2, pair)
        disr = get_method("disr")
        exact = [_exact_objective(disr, "original", v, i, (0,)) for i in (1, 2)]
        assert abs(exact[1].value - (ln2 - d2) / d2) < mpmath.mpf(10) ** -20
        assert exact[1].value - exact[0].value > mpmath.mpf(10) ** -4 * exact[1].value
        view = LowStageView(v, REL, REL)
        e1, e2 = (objective(disr, view, i, (0,), None, "original", "explicit") for i in (1, 2))
        assert e1.finite and e1.hi - e1.lo > mpmath.mpf("0.25") * exact[0].value
        assert not decided(e2, e1, 2, 1) and not decided(e1, e2, 1, 2)
        # the same comparison with exact inputs (radius 10^-30) is decided
        tight = LowStageView(v, mpmath.mpf(10) ** -30, mpmath.mpf(10) ** -30)
        t1, t2 = (objective(disr, tight, i, (0,), None, "original", "explicit") for i in (1, 2))
        assert decided(t2, t1, 2, 1)


@pytest.mark.parametrize("kind_w, kind_c, expect", [("+inf", "finite", True),
                                                    ("finite", "+inf", False),
                                                    ("+inf", "+inf", True)])
def test_kinds_decide_as_the_greedy_rule(kind_w, kind_c, expect):
    from fstheory.atlas.certificate.interval import IX
    pick = {"+inf": IX.POS_INF, "finite": IX.point(1)}
    assert decided(pick[kind_w], pick[kind_c], 0, 1) is expect
    # equal infinities go to the lower index
    if kind_w == kind_c:
        assert decided(pick[kind_w], pick[kind_c], 1, 0) is False
