"""fstheory.selection.MIFeatureSelector: scikit-learn conformance, every registered method, the
reported steps (ties, indeterminate candidates with their forms), discrete features and labels
of any type."""

from __future__ import annotations

import warnings

import numpy as np
import pytest
from sklearn.base import clone
from sklearn.linear_model import LogisticRegression
from sklearn.metrics import mutual_info_score
from sklearn.model_selection import GridSearchCV, cross_val_score
from sklearn.pipeline import Pipeline
from sklearn.utils.estimator_checks import check_estimator

from fstheory.orderings.methods import METHODS
from fstheory.selection import MIFeatureSelector


def _paper_like(n=2000, seed=0):
    """X, 3X+1, Y, X-Y, Z (uniform), class 1{X + 0.2 Y >= 0}."""
    rng = np.random.default_rng(seed)
    x, y, z = rng.uniform(-0.5, 0.5, (3, n))
    return np.column_stack([x, 3 * x + 1, y, x - y, z]), (x + 0.2 * y >= 0)


@pytest.mark.parametrize("params", [
    {},
    # two requested of the one feature of check_fit2d_1feature: refused with "n_features = 1"
    {"method": "mrmr", "n_features_to_select": 2},
    {"method": "cmim", "reading": "fleuret", "n_features_to_select": 1},
], ids=["defaults", "two-of-one-feature", "cmim-fleuret"])
@pytest.mark.slow
def test_check_estimator(params):
    results = check_estimator(MIFeatureSelector(**params), on_fail=None)
    failed = [(r["check_name"], str(r["exception"])[:200]) for r in results if r["status"] == "failed"]
    assert failed == []
    assert len(results) > 30


def test_pipeline_grid_search_and_cross_validation():
    X, y = _paper_like(600)
    pipe = Pipeline([("select", MIFeatureSelector(n_features_to_select=2)), ("clf", LogisticRegression())])
    scores = cross_val_score(pipe, X, y, cv=3)
    assert scores.shape == (3,) and scores.min() > 0.8
    grid = GridSearchCV(pipe, {"select__method": ["mrmr", "jmi" if "jmi" in METHODS else "nmifs"],
                               "select__n_features_to_select": [1, 3]}, cv=3).fit(X, y)
    assert grid.best_params_["select__n_features_to_select"] in (1, 3)
    assert clone(pipe).get_params()["select__method"] == "mrmr"


@pytest.mark.parametrize("method", list(METHODS))
def test_every_registered_method_runs(method):
    """Iterates the registry: methods added to it are covered without a change here."""
    X, y = _paper_like(1500)
    beta = 0.5 if METHODS[method].has_beta else None
    gamma = "1/|S|" if METHODS[method].has_gamma else None
    sel = MIFeatureSelector(method=method, beta=beta, gamma=gamma, n_features_to_select=3).fit(X, y)
    assert sel.order_[0] in (0, 1)  # X or 3X+1: the largest MI with the class
    assert len(set(sel.order_.tolist())) == len(sel.order_) == 3
    assert sel.scores_.shape == (3, 5)
    for s, row in zip(sel.steps_, sel.scores_):
        assert row[s.selected] == s.score and np.isnan(row[sel.order_[: s.number - 1]]).all()
    assert sel.explain().count("step ") == 3


def test_paper_rules_tie_and_first_pair():
    X, y = _paper_like(5000)
    sel = MIFeatureSelector(method="mrmr", n_features_to_select=2).fit(X, y)
    # X and 3X+1 have identical bin counts: a tie reported, won by the lower index (paper's rule)
    assert sel.steps_[0].tied == (1,) and sel.order_[0] == 0
    exact = MIFeatureSelector(method="mrmr", n_features_to_select=2, ties="exact").fit(X, y)
    assert exact.steps_[0].tied == (1,) and exact.order_[0] in (0, 1)


def test_indeterminate_candidates_are_named_and_the_selection_stops():
    rng = np.random.default_rng(0)
    c = rng.integers(0, 2, 400)
    X = np.column_stack([c, np.zeros(400), rng.integers(0, 3, 400)]).astype(float)
    with pytest.warns(UserWarning, match="NMIFS stopped after 2 of 3 features"):
        sel = MIFeatureSelector(method="nmifs", n_features_to_select=3).fit(X, c)
    assert sel.order_.tolist() == [0, 2] and sel.stopped_
    (u,) = sel.steps_[1].indeterminate
    assert (u.feature, u.form) == (1, "0/0")
    assert u.cause == "MI(x1,x0)/h(x1) with MI(x1,x0) = 0, h(x1) = 0"
    assert np.isnan(sel.scores_[1, 1])
    assert "x1 indeterminate: 0/0" in sel.explain()
    assert sel.get_support().tolist() == [True, False, True]
    # the other methods on the same data: MIFS (beta = 0) evaluates 0 * finite, never indeterminate
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        MIFeatureSelector(method="mifs", beta=0.0, n_features_to_select=3).fit(X, c)


def test_discrete_features_are_plug_in_and_labels_of_any_type():
    rng = np.random.default_rng(2)
    X = rng.integers(0, 4, (300, 3)).astype(float)
    labels = np.array(["cat", "dog", "eel"])[(X[:, 0] + rng.integers(0, 2, 300)).astype(int) % 3]
    sel = MIFeatureSelector(method="mrmr", n_features_to_select=2).fit(X, labels)
    assert sel.discrete_features_.all() and sel.classes_.tolist() == ["cat", "dog", "eel"]
    assert sel.explain().splitlines()[1] == "discrete (plug-in entropies): all"
    codes = np.unique(labels, return_inverse=True)[1]
    expected = [mutual_info_score(codes, X[:, j]) for j in range(3)]
    np.testing.assert_allclose(sel.scores_[0], expected, atol=1e-12)
    assert sel.order_[0] == 0
    # the second step of mRMR: MI(C, Vi) - MI(Vi, V0), MI plug-in between the codes
    second = [expected[j] - mutual_info_score(X[:, j], X[:, 0]) for j in (1, 2)]
    np.testing.assert_allclose(sel.scores_[1, 1:], second, atol=1e-12)


def test_knn_estimator_is_reproducible_with_random_state():
    X, y = _paper_like(400)
    a = MIFeatureSelector(method="mrmr", estimator="knn", n_features_to_select=3, random_state=1).fit(X, y)
    b = MIFeatureSelector(method="mrmr", estimator="knn", n_features_to_select=3, random_state=1).fit(X, y)
    np.testing.assert_array_equal(a.scores_, b.scores_)
    assert a.order_[0] in (0, 1)


@pytest.mark.parametrize("params, needle", [
    (dict(method="nope"), "parameter 'method' must be one of"),
    (dict(method="mifs"), "parameter 'beta' is required for MIFS"),
    (dict(method="mrmr", beta=0.5), "parameter 'beta' is not accepted by mRMR"),
    (dict(n_features_to_select=9), "parameter 'n_features_to_select' must be <= n_features = 5 (got 9)"),
    (dict(discrete_features=[7]), ("parameter 'discrete_features' must be 'auto', a bool, a boolean mask of 5 "
                                   "entries or an array of feature indices in [0, 5) (got 7 among [7])")),
    (dict(n_features_to_select=True), ("parameter 'n_features_to_select' must be an int >= 1, a fraction in "
                                       "(0, 1] or None (got True)")),
    (dict(n_features_to_select=np.True_), "The 'n_features_to_select' parameter of MIFeatureSelector must be"),
    (dict(n_neighbors=True), "parameter 'n_neighbors' must be an int >= 1 (got True)"),
    (dict(discrete_features=[-1]), ("parameter 'discrete_features' must be 'auto', a bool, a boolean mask of 5 "
                                    "entries or an array of feature indices in [0, 5) (got -1 among [-1])")),
    (dict(discrete_features=[0.5]), "feature indices in [0, 5) (got [0.5])"),
    (dict(discrete_features=["x0"]), "feature indices in [0, 5) (got ['x0'])"),
    (dict(discrete_features=[[0, 1]]), "feature indices in [0, 5) (got an array of shape (1, 2))"),
    (dict(discrete_features=[True, False]), "feature indices in [0, 5) (got a mask of 2 entries)"),
    (dict(method="cmim", reading="table"), ("parameter 'reading' of CMIM must be one of original, fleuret, "
                                            "unified (got 'table')")),
    (dict(method="mrmr", reading="fleuret"), "parameter 'reading' of mRMR must be one of table, text (got 'fleuret')"),
    (dict(reading=3), "The 'reading' parameter of MIFeatureSelector must be an instance of 'str' or None"),
    (dict(histogram_options={"joint": "cubic"}), "estimator option 'joint' must be one of"),
    (dict(estimator="kde"), "'estimator' parameter of MIFeatureSelector must be a str among"),
])
def test_bad_parameters_one_clear_message(params, needle):
    X, y = _paper_like(100)
    with pytest.raises(ValueError) as err:
        MIFeatureSelector(**params).fit(X, y)
    assert needle in str(err.value)


def test_a_constant_continuous_feature_is_refused():
    X, y = _paper_like(100)
    X[:, 4] = 2.0
    with pytest.raises(ValueError, match=r"features \[4\] are constant"):
        MIFeatureSelector(discrete_features=False).fit(X, y)
    assert MIFeatureSelector().fit(X, y).discrete_features_.tolist() == [False] * 4 + [True]


def _three_d_methods():
    """Stand-ins for the joint branch's 3-D methods, written against the same values-view
    contract (mi_c_pair, cmi_c, mi_given_c, h_pair_c) and arithmetic."""
    from fstheory.orderings.methods import Method, one_reading

    def jmi(ops, v, i, S, beta):
        return ops.sum([v.mi_c_pair(i, s) for s in S])

    def cmim(ops, v, i, S, beta):  # min_s MI(C; Vi | Vs) as -max(-x)
        return -ops.max([-v.cmi_c(i, s) for s in S])

    def cife(ops, v, i, S, beta):
        return v.mi_c(i) - ops.sum([v.mi(i, s) for s in S]) + ops.sum([v.mi_given_c(i, s) for s in S])

    def disr(ops, v, i, S, beta):
        return ops.sum([v.mi_c_pair(i, s) / v.h_pair_c(i, s) for s in S])

    return {name: Method(name, name.upper(), "test", False, one_reading({"fn": fn, "latex": "", "plain": ""}, "test"))
            for name, fn in (("t-jmi", jmi), ("t-cmim", cmim), ("t-cife", cife), ("t-disr", disr))}


@pytest.mark.parametrize("estimator", ["histogram", "knn"])
def test_methods_reading_the_joint_quantities_run(monkeypatch, estimator):
    X, y = _paper_like(600)
    for key, method in _three_d_methods().items():
        monkeypatch.setitem(METHODS, key, method)
    for key in _three_d_methods():
        sel = MIFeatureSelector(method=key, n_features_to_select=3, estimator=estimator, random_state=0).fit(X, y)
        assert sel.order_[0] in (0, 1) and np.isfinite(sel.scores_[1][~np.isnan(sel.scores_[1])]).all()
        # JMI's second step is the pair that carries the class: X (or 3X+1) with Y or X-Y
        if key == "t-jmi":
            assert sel.order_[1] in (2, 3)


def test_a_single_class_is_refused():
    """Every MI with a one-class target is 0: no selection is informative (scikit-learn's
    classifiers refuse one class the same way)."""
    X, _ = _paper_like(100)
    with pytest.raises(ValueError, match=r"y has 1 class \('a'\): the MI of every feature with a single class is 0"):
        MIFeatureSelector().fit(X, ["a"] * 100)


@pytest.mark.parametrize("method, reading", [(key, r) for key, m in METHODS.items() for r in m.readings])
def test_every_reading_of_every_method_is_accepted(method, reading):
    X, y = _paper_like(800)
    beta = 0.5 if METHODS[method].has_beta else None
    gamma = 0.5 if METHODS[method].has_gamma else None
    sel = MIFeatureSelector(method=method, reading=reading, beta=beta, gamma=gamma,
                            n_features_to_select=3).fit(X, y)
    assert len(sel.order_) == 3
    if METHODS[method].readings_differ:
        assert f"{reading} reading" in sel.explain().splitlines()[0]


def test_the_fleuret_reading_is_the_running_minimum():
    """CMIM's fleuret reading at step 2 is min(MI(C,Vi), MI(C;Vi|Vs)): the step-1 scores and the
    original reading's step-2 scores give it exactly."""
    X, y = _paper_like(1500)
    original = MIFeatureSelector(method="cmim", n_features_to_select=2).fit(X, y)
    fleuret = MIFeatureSelector(method="cmim", reading="fleuret", n_features_to_select=2).fit(X, y)
    assert original.order_[0] == fleuret.order_[0]
    np.testing.assert_array_equal(fleuret.scores_[1], np.minimum(original.scores_[0], original.scores_[1]) + 0.0)


def test_method_and_reading_choices_come_from_the_registry(monkeypatch):
    from fstheory.orderings.methods import Method, Reading

    def novel(ops, v, i, S, beta):
        return ops.min([v.mi_c_pair(i, s) for s in S])

    r = Reading(novel, "", "", "test")
    monkeypatch.setitem(METHODS, "t-novel", Method("t-novel", "NOVEL", "test", False,
                                                   {"original": r, "novel": r}, "original", dimension=3))
    X, y = _paper_like(600)
    sel = MIFeatureSelector(method="t-novel", reading="novel", n_features_to_select=2).fit(X, y)
    assert sel.order_[0] in (0, 1)
    with pytest.raises(ValueError, match=r"parameter 'reading' of NOVEL must be one of original, novel \(got 'fleuret'\)"):
        MIFeatureSelector(method="t-novel", reading="fleuret").fit(X, y)
    with pytest.raises(ValueError, match="parameter 'method' must be one of mifs, .*, t-novel"):
        MIFeatureSelector(method="nope").fit(X, y)


def test_the_docstring_lists_every_method_and_reading():
    doc = MIFeatureSelector.__doc__
    for key, m in METHODS.items():
        assert f'"{key}"' in doc
        for reading in m.readings:
            assert reading in doc
    assert "cmim: original, fleuret, unified" in doc and "jmi: original, unified, interaction" in doc


def test_auto_discreteness_is_documented_and_reported():
    rng = np.random.default_rng(6)
    n = 2000
    many, few = rng.integers(0, 60, n), rng.integers(0, 5, n)  # 60 levels > ceil(sqrt(2000)) = 45
    X = np.column_stack([many, rng.normal(size=n), few, np.full(n, 3.0)]).astype(float)
    y = ((many > 30) ^ (few > 2)).astype(int)
    sel = MIFeatureSelector(n_features_to_select=2).fit(X, y)
    assert sel.discrete_features_.tolist() == [False, False, True, True]
    lines = sel.explain().splitlines()
    assert lines[1] == "discrete (plug-in entropies): x2, x3"
    assert lines[2] == "integer-valued but binned as continuous (more than 45 distinct values): x0"
    sel = MIFeatureSelector(n_features_to_select=2, discrete_features=[0, 2, 3]).fit(X, y)
    assert sel.explain().splitlines()[1] == "discrete (plug-in entropies): x0, x2, x3"
    assert "binned as continuous" not in sel.explain()
    doc = MIFeatureSelector.__doc__
    assert "at most ceil(sqrt(n_samples)) distinct values" in doc and "60 levels" in doc
