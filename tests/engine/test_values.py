"""The exact engine: closed forms at the paper's and other parameters, limits at k = 0 and 1,
the derived structure of the MI matrix, and parameter validation."""

import mpmath
import pytest
import sympy as sp

from fstheory.scenarios.declaration import ParameterError
from fstheory.engine.derive import derive
from fstheory.engine.evaluate import evaluate
from fstheory.scenarios.registry import get_scenario
from fstheory.theory.numeric import NumericRoute
from known_values import known

TOL = mpmath.mpf(10) ** -28


def values(name, **params):
    return evaluate(get_scenario(name).bind(**params), 30)


def close(ext, expected, tol=TOL):
    with mpmath.workdps(40):
        return ext.is_finite and abs(ext.value - mpmath.mpf(expected)) <= tol * max(1, abs(ext.value))




def test_scenario_i_entropies_for_general_delta_and_a():
    v = values("uniform", k="0.3", delta="0.7", a="-2")
    with mpmath.workdps(40):
        d = mpmath.mpf("0.7")
        expected = [mpmath.log(2 * d), mpmath.log(4 * d), mpmath.log(2 * d * d) - 1,
                    mpmath.mpf(1) / 2 + mpmath.log(2 * d)]
    for got, exp in zip(v.entropy[:4], expected):
        assert close(got, exp)


def test_exact_zero_entropy_at_delta_one_half_is_exactly_zero():
    v = values("uniform", k="0.2")
    assert v.entropy[0].is_zero and v.entropy[4].is_zero and v.entropy[8].is_zero
    assert not v.entropy[1].is_zero


@pytest.mark.parametrize("delta", ["0.5", "0.1", "3"])
def test_mi_with_class_does_not_depend_on_delta(delta):
    base = values("uniform", k="0.45")
    other = values("uniform", k="0.45", delta=delta)
    for a, b in zip(base.mi_class, other.mi_class):
        assert a.same(b) or close(a, b.value)


@pytest.mark.parametrize("sigma", ["0.05", "1", "7"])
def test_mi_does_not_depend_on_sigma(sigma):
    base = values("normal", k="0.6")
    other = values("normal", k="0.6", sigma=sigma)
    for a, b in zip(base.mi_class, other.mi_class):
        assert a.same(b) or close(a, b.value)
    assert close(other.mi(2, 3), base.mi(2, 3).value)


def test_negative_entropies_in_scenario_ii_for_small_sigma():
    # h(X) = ln(2 pi e sigma^2)/2 < 0 iff sigma^2 < 1/(2 pi e) (Section 7)
    v = values("normal", k="0.5", sigma="0.2")
    assert v.entropy[0].value < 0
    assert values("normal", k="0.5", sigma="0.25").entropy[0].value > 0


def test_limits_at_k_zero_scenario_i():
    v = values("uniform", k="0")
    with mpmath.workdps(40):
        assert close(v.mi_class[0], mpmath.log(2))  # C_0 is a function of X: MI = H(C)
        assert close(v.mi_class[3], mpmath.mpf(1) / 4)  # limit of -(1-k)^2 ln(1-k)/(4k)
    assert v.mi_class[6].is_zero  # Y independent of C_0


def test_limits_at_k_one_scenario_i():
    v = values("uniform", k="1")
    with mpmath.workdps(40):
        assert close(v.mi_class[6], mpmath.log(2) - mpmath.mpf(1) / 2)
        assert close(v.mi_class[0], v.mi_class[6].value)  # X and Y play symmetric roles
    assert v.mi_class[3].is_zero  # symmetry (X, Y) -> (-Y, -X)


def test_limits_at_the_ends_in_scenario_ii():
    v0, v1 = values("normal", k="0"), values("normal", k="1")
    with mpmath.workdps(40):
        assert close(v0.mi_class[0], mpmath.log(2))
        assert close(v1.mi_class[0], v1.mi_class[6].value)
    assert v0.mi_class[6].is_zero or close(v0.mi_class[6], 0)
    assert v1.mi_class[3].is_zero or close(v1.mi_class[3], 0)


@pytest.mark.parametrize("name", ["uniform", "normal"])
@pytest.mark.parametrize("k", ["0", "1"])
def test_limits_agree_with_the_numerical_route_at_the_ends(name, k):
    bound = get_scenario(name).bind(k=k)
    v = evaluate(bound, 30)
    exprs = bound.feature_exprs()
    with mpmath.workdps(35):
        route = NumericRoute(bound.laws())
        for i in (0, 6):  # X and Y: one-dimensional integrals
            num = route.mi_class(exprs[i], bound.class_weights(), bound.class_threshold())
            assert abs(num.value - (v.mi_class[i].value if v.mi_class[i].is_finite else 0)) < 1e-25


@pytest.mark.parametrize("name", ["uniform", "normal"])
def test_structure_of_the_mi_matrix_is_derived(name):
    der = derive(get_scenario(name))
    inf = {(i, j) for i in range(10) for j in range(10)
           if der.mi_features[i][j].kind == "structure" and der.mi_features[i][j].expr == sp.oo}
    # (X, aX+b), (X, X^2), (aX+b, X^2), (Y, Y^2), (Z, Z^2) and the diagonal
    pairs = {(0, 1), (0, 7), (1, 7), (2, 6), (4, 5)}
    expected = {(i, i) for i in range(10)} | pairs | {(j, i) for i, j in pairs}
    assert inf == expected
    finite = {(i, j) for i in range(10) for j in range(i + 1, 10)
              if der.mi_features[i][j].kind == "closed"}
    assert finite == {(0, 3), (1, 3), (2, 3), (3, 6), (3, 7), (4, 9), (5, 9), (8, 9)}
    zero_class = [i for i, d in enumerate(der.mi_class) if d.kind == "structure"]
    assert zero_class == [2, 4, 5, 7, 8, 9]
    assert "symmetry" in der.mi_class[7].reason and "symmetry" in der.mi_class[2].reason


def test_matrix_is_symmetric_with_infinite_diagonal():
    v = values("normal", k="0.2")
    for i in range(10):
        assert v.mi(i, i).is_pos_inf
        for j in range(10):
            assert v.mi(i, j).same(v.mi(j, i))


def test_labels_follow_the_parameters():
    v = values("uniform", k="0.2", a="-1", b="-0.5", d="0")
    assert v.labels[1] == "-X-0.5" and v.labels[8] == "W"


@pytest.mark.parametrize(
    "name, params, fragment",
    [
        ("uniform", {"k": "0.2", "delta": "0"}, "parameter 'delta' must be > 0"),
        ("uniform", {"k": "0.2", "delta": "-1"}, "parameter 'delta' must be > 0"),
        ("normal", {"k": "0.2", "sigma": "0"}, "parameter 'sigma' must be > 0"),
        ("normal", {"k": "0.2", "a": "0"}, "parameter 'a' must be != 0"),
        ("uniform", {"k": "1.5"}, "parameter 'k' must be in [0, 1]"),
        ("uniform", {"k": "-0.1"}, "parameter 'k' must be in [0, 1]"),
        ("uniform", {"k": "abc"}, "parameter 'k' must be a finite number"),
        ("uniform", {"k": "nan"}, "parameter 'k' must be a finite number"),
        ("uniform", {"k": "inf"}, "parameter 'k' must be a finite number"),
        ("uniform", {}, "parameter 'k' is required"),
        ("uniform", {"k": "0.2", "sigma": "1"}, "unknown parameter 'sigma'"),
    ],
)
def test_bad_parameters_are_rejected_with_one_clear_message(name, params, fragment):
    with pytest.raises(ParameterError) as exc:
        get_scenario(name).bind(**params)
    assert fragment in str(exc.value)
    assert "\n" not in str(exc.value)


def test_unknown_scenario():
    with pytest.raises(ParameterError, match="unknown scenario 'laplacian'"):
        get_scenario("laplacian")


def test_digits_out_of_range():
    with pytest.raises(ValueError, match="digits"):
        evaluate(get_scenario("uniform").bind(k="0.2"), 0)


@pytest.mark.slow
def test_product_feature_against_its_closed_forms():
    """X*Z for X, Z ~ Unif(-1, 1) has density -ln|v|/2 on [-1, 1], so (v = e^-t)
    h(XZ) = -int_0^oo t ln(t/2) e^-t dt = ln 2 - 1 + gamma, and h(XZ | X = x) = ln(2|x|) gives
    MI(X, XZ) = h(XZ) - ln 2 - E ln|X| = gamma. Both through the fibre integrals of the route."""
    from pathlib import Path

    from fstheory.orderings.greedy import select
    from fstheory.scenarios.scenario_file import load_scenario_file
    from fstheory.theory.extended import Form

    s = load_scenario_file(Path(__file__).parents[1] / "data" / "product_feature.toml")
    v = evaluate(s.bind(k="0.3"), 15)
    tol = mpmath.mpf(10) ** -14
    def near(x, expected):  # the proved value, or the estimate where no bound is stated
        with mpmath.workdps(40):
            return abs(known(x) - expected) <= tol * max(1, abs(expected))

    assert near(v.entropy[1], mpmath.log(2) - 1 + mpmath.euler)
    assert near(v.mi(0, 1), mpmath.euler)
    assert v.mi_class[1].is_zero  # (X, Y, Z) -> (-X, -Y, -Z) fixes XZ and swaps the classes
    assert near(v.mi_class[0], mpmath.log(2) - mpmath.mpf("0.15"))
    assert v.mi(0, 2).is_zero
    # MI(XZ, Y+Z) needs a fibre integral inside a 2-D one: refused with the reason, and the
    # ordering stops at the step that needs it instead of ranking past it
    assert v.mi(1, 2).form is Form.NOT_COMPUTED and "a fibre inside a two-dimensional integral" in v.mi(1, 2).cause
    result = select(v, "mrmr")
    assert result.stop is not None and result.undecided
    if v.mi_class[0].is_finite and v.mi(0, 1).is_finite:
        assert result.order == [0, 2]


def test_numerical_quantities_are_announced_as_they_start(capsys, monkeypatch):
    """A value can take up to a minute: the command line names each numerical quantity on one
    updating stderr line when stderr is a terminal (and writes nothing there otherwise)."""
    import sys
    from pathlib import Path

    from fstheory.cli import main
    from fstheory.scenarios.scenario_file import load_scenario_file
    from fstheory.theory.numeric import announce_to

    path = Path(__file__).parents[1] / "data" / "unreachable_feature.toml"
    seen: list = []
    with announce_to(seen.append):
        evaluate(load_scenario_file(path).bind(k="0.3"), 15)
    assert "MI(C; {X**3 - X})" in seen and "h(X**3 - X)" in seen
    assert main(["values", "--scenario-file", str(path), "--k", "0.5", "--digits", "12"]) == 0
    assert capsys.readouterr().err == ""
    monkeypatch.setattr(sys.stderr, "isatty", lambda: True)
    assert main(["values", "--scenario-file", str(path), "--k", "0.6", "--digits", "12"]) == 0
    err = capsys.readouterr().err
    assert "\rcomputing h(X**3 - X) ..." in err.replace("\x1b[K", "") and err.endswith("\r\x1b[K")
