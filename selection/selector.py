r"""A scikit-learn feature selector over the registry of MI methods (:mod:`fstheory.orderings.methods`).

:class:`MIFeatureSelector` runs any registered method's objective -- the same function that the
exact engine evaluates on extended reals -- on estimates from data, with the greedy rules of the
paper (Section 7): the first feature maximises MI(C, V); each later one maximises the method's
objective over the remaining candidates; an indeterminate objective (NaN in floats: 0/0, 0*inf,
inf-inf) is never chosen, and when every remaining candidate is indeterminate the selection stops.

Each indeterminate candidate is named: its objective is evaluated again in the exact world's
arithmetic (:class:`fstheory.orderings.arithmetic.TracingExactOps`) on the same estimates, which
gives the form and the operation that produced it (e.g. ``0/0`` from ``MI(x3,x1)/h(x1)``).

Estimates (:mod:`fstheory.selection.estimators`, :mod:`fstheory.selection.knn`):

``estimator="histogram"`` (default)
    The paper's Section 8 histogram: m = ceil(sqrt(n)) equal-width bins over each feature's range,
    h(V) = H_binned + ln(Delta); MI(C, V) = h(V) - h(V | C) with h(V | C) binned per class;
    MI(Vi, Vj) on the bivariate grid of ``histogram_options["joint"]`` (default ceil(sqrt(m))
    bins per axis). The choices the paper leaves open are the fields of
    :class:`fstheory.simulation.options.EstimatorOptions`, passed as ``histogram_options``.
``estimator="knn"``
    Kozachenko-Leonenko entropies, Kraskov-Stoegbauer-Grassberger MI between continuous features,
    Ross (2014) MI between a continuous feature and a discrete one (the class), with
    ``n_neighbors`` neighbours; continuous data are jittered with ``random_state``.

Discrete features (``discrete_features``) have plug-in entropies in both estimators.

Examples
--------
>>> import numpy as np
>>> from fstheory.selection import MIFeatureSelector
>>> rng = np.random.default_rng(0)
>>> X = rng.uniform(-0.5, 0.5, size=(2000, 4))
>>> X[:, 2] = 3 * X[:, 0] + 1                  # a copy of feature 0 up to scale and shift
>>> y = np.where(X[:, 0] + 0.2 * X[:, 1] >= 0, "yes", "no")
>>> sel = MIFeatureSelector(method="mrmr", n_features_to_select=2).fit(X, y)
>>> sel.order_.tolist(), sel.get_support().tolist()
([0, 1], [True, True, False, False])
>>> sel.steps_[0].tied                          # X and 3X+1 have the same binned estimate
(2,)
>>> sel.transform(X).shape
(2000, 2)
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from numbers import Integral, Real

import mpmath
import numpy as np
from sklearn.base import BaseEstimator
from sklearn.feature_selection import SelectorMixin
from sklearn.utils import check_random_state
from sklearn.utils._param_validation import Interval, StrOptions
from sklearn.utils.multiclass import check_classification_targets
from sklearn.utils.validation import check_is_fitted, validate_data

from fstheory.orderings.arithmetic import TracingExactOps
from fstheory.orderings.methods import PER_STEP, MethodError, get_method
from fstheory.selection.estimators import BinnedBatch, n_bins
from fstheory.selection.greedy import greedy
from fstheory.selection.values import HistogramValues, KnnValues
from fstheory.simulation.options import EstimatorOptions, SelectionOptions
from fstheory.theory.extended import xr

__all__ = ["MIFeatureSelector", "SelectionStep", "Indeterminate"]


@dataclass(frozen=True)
class Indeterminate:
    """A candidate whose objective is indeterminate at a step.

    ``form`` is '0/0', '0*inf', 'inf-inf' or 'inf/inf' (None if the exact re-evaluation could not
    name it, e.g. because an estimate itself is NaN); ``cause`` the first operation that produced
    it, with its operands' names and values.
    """

    feature: int
    form: str | None
    cause: str | None


@dataclass(frozen=True)
class SelectionStep:
    """One step of a fitted selection (``number`` is 1-based; step 1 ranks by MI(C, V))."""

    number: int
    criterion: str
    selected: int
    score: float
    tied: tuple[int, ...]
    indeterminate: tuple[Indeterminate, ...]


_LABELS = {
    "h": "h({0})", "mi_c": "MI(C,{0})", "mi": "MI({0},{1})", "h_c": "H(C)",
    "mi_c_pair": "MI(C;{0},{1})", "cmi_c": "MI(C;{0}|{1})", "mi_given_c": "MI({0};{1}|C)",
    "h_pair_c": "H({0},{1},C)", "mi_c_set": "MI(C;{{{0}}})", "cmi_c_set": "MI(C;{0}|{{{1}}})",
}


class _NamedEstimates:
    """The float view's estimates as labelled extended reals, for the exact re-evaluation of an
    indeterminate objective (any accessor of the values-view contract)."""

    def __init__(self, view, names):
        self._view, self._names = view, names

    def __getattr__(self, name):
        fn = getattr(self._view, name)

        def call(*handles):
            value = float(np.asarray(fn(*handles)).ravel()[0])
            names = [",".join(self._names[x] for x in h) if isinstance(h, tuple) else self._names[h]
                     for h in handles]
            template = _LABELS.get(name)
            return xr(value, template.format(*names) if template else f"{name}({','.join(names)})")

        return call


def _name_indeterminate(method, view, i, S, beta, reading, zero_beta, names, gamma=None) -> tuple:
    try:
        with mpmath.workdps(30):
            value = method.objective(TracingExactOps(), _NamedEstimates(view, names), i, list(S), beta,
                                     reading=reading, zero_beta=zero_beta, gamma=gamma)
    except ValueError:  # an estimate is itself NaN: no extended real to evaluate on
        return None, "an estimate is NaN"
    if value.is_indeterminate:
        return value.form.value, value.cause
    return None, None


class MIFeatureSelector(SelectorMixin, BaseEstimator):
    """Greedy forward selection by a registered MI method, on estimates from data.

    Parameters
    ----------
    method : str, default="mrmr"
        A key of the registry :data:`fstheory.orderings.methods.METHODS` (case-insensitive), e.g.
        "mifs", "mifs-u", "mrmr", "mmifs-u", "micc", "qmifs", "nmifs", "maxmifs", the 3-D methods
        ("jmi", "cmim", ...), or those of FEAST and praznik ("mim", "cmi", "njmim", "jmi3",
        "beta-gamma", "condred"; CMI and JMI3 read MI(C; V_T) of sets, estimated on the cells of
        the histogram grid, plug-in for discrete features: :mod:`fstheory.selection.sets`).
    n_features_to_select : int, float or None, default=None
        How many features to select: an int, a fraction in (0, 1] of the features, or None for
        half of them (rounded down, at least one).
    beta : float, "1/|S|" or None, default=None
        Required in [0, 1] by the methods that take it (MIFS, MIFS-U, beta-gamma, which also
        takes "1/|S|"), refused by the others.
    gamma : float, "1/|S|" or None, default=None
        Required in [0, 1] or "1/|S|" by beta-gamma, refused by the others.
    estimator : {"histogram", "knn"}, default="histogram"
        The paper's histogram with the ln(Delta) correction, or k-nearest-neighbour estimates.
    reading : str or None, default=None
        Written form of the objective for methods with several ("table", "text", "original",
        "unified", "interaction", "fleuret", "feast"; default: the method's own,
        :mod:`fstheory.orderings.methods`).
    zero_beta : {"explicit", "drop"}, default="explicit"
        At beta = 0 (or a zero beta or gamma of beta-gamma): evaluate as written, or drop the
        term.
    discrete_features : "auto", bool or array-like, default="auto"
        Which features are discrete: all (True), none (False), a boolean mask or an array of
        indices. "auto": a feature is discrete when it takes only integer values and at most
        ceil(sqrt(n_samples)) distinct values, or when it is constant (a constant has no density,
        and no differential entropy).
    histogram_options : dict or None, default=None
        Fields of :class:`fstheory.simulation.options.EstimatorOptions` (``joint``,
        ``conditional``, ``edges``) for ``estimator="histogram"``.
    n_neighbors : int, default=3
        k of the kNN estimators.
    ties : {"relative", "exact"}, default="relative"
        Candidates within ``rtol * max(1, |best|)`` of the best score are tied and the lowest
        feature index wins ("relative", the paper's rule), or the float maximum wins ("exact").
        Ties are reported either way.
    rtol : float, default=1e-9
        Tolerance of a tie, relative to max(1, |best|) (as the exact world's tie band).
    random_state : int, RandomState instance or None, default=None
        Seeds the jitter of the kNN estimator (unused by the histogram estimator).

    Attributes
    ----------
    order_ : ndarray of int
        Selected feature indices in selection order (fewer than requested if the method stopped).
    scores_ : ndarray of shape (n_steps, n_features_in_)
        Score of every candidate at every step: MI(C, V) at step 1, the objective after. NaN for
        an indeterminate objective and for features that were not candidates (already selected).
    steps_ : list of SelectionStep
        Per step: the selected feature, its score, the candidates tied with it, and each
        indeterminate candidate with its form and cause.
    stopped_ : bool
        True when the selection stopped early because every remaining objective was indeterminate.
    discrete_features_ : ndarray of bool
        Which features were treated as discrete.
    classes_ : ndarray
        The class labels.
    n_features_in_ : int
    feature_names_in_ : ndarray of str
        Only when ``X`` has feature names.

    Examples
    --------
    >>> from sklearn.datasets import load_wine
    >>> X, y = load_wine(return_X_y=True)
    >>> sel = MIFeatureSelector(method="nmifs", n_features_to_select=3).fit(X, y)
    >>> len(sel.order_), sel.transform(X).shape
    (3, (178, 3))
    """

    _parameter_constraints: dict = {
        "method": [str],
        "n_features_to_select": [
            Interval(Integral, 1, None, closed="left"),
            Interval(Real, 0, 1, closed="right"),
            None,
        ],
        "beta": [Interval(Real, 0, 1, closed="both"), StrOptions({"1/|S|"}), None],
        "gamma": [Interval(Real, 0, 1, closed="both"), StrOptions({"1/|S|"}), None],
        "estimator": [StrOptions({"histogram", "knn"})],
        "reading": [StrOptions({"table", "text", "original", "unified", "interaction", "fleuret",
                                "feast"}), None],
        "zero_beta": [StrOptions({"explicit", "drop"})],
        "discrete_features": [StrOptions({"auto"}), "boolean", "array-like"],
        "histogram_options": [dict, None],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "ties": [StrOptions({"relative", "exact"})],
        "rtol": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
    }

    def __init__(self, *, method="mrmr", n_features_to_select=None, beta=None, estimator="histogram",
                 reading=None, zero_beta="explicit", discrete_features="auto", histogram_options=None,
                 n_neighbors=3, ties="relative", rtol=1e-9, random_state=None, gamma=None):
        self.method = method
        self.n_features_to_select = n_features_to_select
        self.beta = beta
        self.gamma = gamma
        self.estimator = estimator
        self.reading = reading
        self.zero_beta = zero_beta
        self.discrete_features = discrete_features
        self.histogram_options = histogram_options
        self.n_neighbors = n_neighbors
        self.ties = ties
        self.rtol = rtol
        self.random_state = random_state

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    # --- fitting ----------------------------------------------------------------------------------
    def _discrete_mask(self, X: np.ndarray) -> np.ndarray:
        F = X.shape[1]
        d = self.discrete_features
        if isinstance(d, str):
            mask = np.ptp(X, axis=0) == 0
            for f in np.flatnonzero(np.all(X == np.round(X), axis=0) & ~mask):
                mask[f] = np.unique(X[:, f]).size <= n_bins(X.shape[0])
            return mask
        if isinstance(d, (bool, np.bool_)):
            return np.full(F, bool(d))
        d = np.asarray(d)
        if d.dtype == bool:
            if d.shape != (F,):
                raise ValueError(f"parameter 'discrete_features' as a mask must have {F} entries (got {d.shape})")
            return d.copy()
        mask = np.zeros(F, dtype=bool)
        try:
            mask[d.astype(int)] = True
        except (IndexError, ValueError):
            raise ValueError(
                f"parameter 'discrete_features' must hold feature indices in [0, {F}) (got {d.tolist()!r})"
            ) from None
        return mask

    def _n_select(self, F: int) -> int:
        k = self.n_features_to_select
        if k is None:
            return max(1, F // 2)
        if isinstance(k, Integral):
            if k > F:
                raise ValueError(f"parameter 'n_features_to_select' must be <= the number of features, {F} (got {k})")
            return int(k)
        return max(1, int(k * F))

    def fit(self, X, y):
        """Select features of ``X`` (n_samples, n_features) for the class labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric, finite.
        y : array-like of shape (n_samples,)
            Class labels of any type (strings, integers, ...).

        Returns
        -------
        self
        """
        self._validate_params()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=False)
        check_classification_targets(y)
        method = get_method(self.method)
        try:
            beta, reading, zero_beta = method.check(self.beta, self.reading, self.zero_beta,
                                                    self.gamma)
            gamma = method.gamma_value(self.gamma)
        except MethodError as exc:
            raise ValueError(str(exc)) from None
        beta = beta if beta is None or beta is PER_STEP else float(beta)
        gamma = gamma if gamma is None or gamma is PER_STEP else float(gamma)
        n, F = X.shape
        k = self._n_select(F)
        self.classes_, codes = np.unique(y, return_inverse=True)
        discrete = self._discrete_mask(X)
        constant = np.ptp(X, axis=0) == 0
        if (constant & ~discrete).any():
            raise ValueError(
                f"features {np.flatnonzero(constant & ~discrete).tolist()} are constant: a constant has "
                f"no differential entropy; declare them in 'discrete_features'"
            )
        self.discrete_features_ = discrete
        view = self._view(X, codes, discrete)
        options = SelectionOptions(self.ties, float(self.rtol))
        record: list = []
        sel = greedy(view, method, beta, steps=k, options=options, reading=reading,
                     zero_beta=zero_beta, record=record, gamma=gamma)[0]
        names = self._names(F)
        steps, scores = [], []
        for t, (values, available) in enumerate(record):
            values, available = np.asarray(values)[0], np.asarray(available)[0]
            scores.append(np.where(available, values, np.nan))
            chosen = int(sel[t])
            S = [int(s) for s in sel[:t]]
            undecided = tuple(
                Indeterminate(int(i), *_name_indeterminate(method, view, int(i), S, beta, reading,
                                                           zero_beta, names, gamma))
                for i in np.flatnonzero(available & np.isnan(values))
            ) if t > 0 else tuple(Indeterminate(int(i), None, "the estimate of MI(C, V) is NaN")
                                  for i in np.flatnonzero(available & np.isnan(values)))
            if chosen < 0:
                break
            best = values[chosen]
            ok = available & ~np.isnan(values)
            with np.errstate(invalid="ignore"):
                near = ok & ((values == best) | (np.isfinite(best) & (
                    np.abs(values - best) <= self.rtol * max(1.0, abs(best)))))
            near[chosen] = False
            steps.append(SelectionStep(t + 1, "MI(C,Vi)" if t == 0 else "objective", chosen, float(best),
                                       tuple(int(i) for i in np.flatnonzero(near)), undecided))
        self.stopped_ = len(steps) < k
        self._stop = None
        if self.stopped_:
            self._stop = undecided
            warnings.warn(
                f"{method.display} stopped after {len(steps)} of {k} features: every remaining "
                f"candidate's objective is indeterminate (see explain())", UserWarning, stacklevel=2)
        self.order_ = np.array([s.selected for s in steps], dtype=np.intp)
        self.scores_ = np.array(scores[:len(steps)]) if steps else np.empty((0, F))
        self.steps_ = steps
        self._method_text = method.describe(self.beta, reading, zero_beta, self.gamma)
        return self

    def _view(self, X, codes, discrete):
        if self.estimator == "knn":
            rng = np.random.default_rng(check_random_state(self.random_state).randint(2**31 - 1))
            return KnnValues(X, codes, discrete, k=self.n_neighbors, rng=rng)
        options = EstimatorOptions.from_mapping(self.histogram_options)
        batch = BinnedBatch(X.T[None, :, :], options, discrete=discrete)
        return HistogramValues(batch, codes[None, :])

    def _names(self, F: int) -> list[str]:
        names = getattr(self, "feature_names_in_", None)
        return [str(s) for s in names] if names is not None else [f"x{j}" for j in range(F)]

    def _get_support_mask(self):
        check_is_fitted(self, "order_")
        mask = np.zeros(self.n_features_in_, dtype=bool)
        mask[self.order_] = True
        return mask

    # --- reporting --------------------------------------------------------------------------------
    def explain(self, digits: int = 6) -> str:
        """A readable account of every step: the winner, its score, ties, indeterminate candidates.

        Returns
        -------
        str
        """
        check_is_fitted(self, "order_")
        names = self._names(self.n_features_in_)
        lines = [f"{self._method_text} on {self.n_features_in_} features "
                 f"({self.estimator} estimates, {int(self.discrete_features_.sum())} discrete)"]
        for s in self.steps_:
            line = f"step {s.number}: {names[s.selected]} ({s.criterion} = {s.score:.{digits}g})"
            if s.tied:
                line += "; tied with " + ", ".join(names[i] for i in s.tied)
            lines.append(line)
            lines += [f"    {names[u.feature]} indeterminate: {u.form or 'NaN'}"
                      + (f" ({u.cause})" if u.cause else "") for u in s.indeterminate]
        if self.stopped_:
            lines.append(f"stopped after {len(self.steps_)} features: every remaining candidate is indeterminate")
            lines += [f"    {names[u.feature]}: {u.form or 'NaN'}" + (f" ({u.cause})" if u.cause else "")
                      for u in self._stop]
        return "\n".join(lines)
