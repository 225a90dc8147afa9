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
    :class:`fstheory.selection.options.EstimatorOptions`, passed as ``histogram_options``.
``estimator="knn"``
    Kozachenko-Leonenko entropies, Kraskov-Stoegbauer-Grassberger MI between continuous features,
    Ross (2014) MI between a continuous feature and a discrete one (the class), with
    ``n_neighbors`` neighbours; continuous data are jittered with ``random_state``.

Discrete features (``discrete_features``) have plug-in entropies in both estimators. With
``discrete_features="auto"`` a feature is discrete when all its values are integers and it has at
most ceil(sqrt(n_samples)) distinct values (no more levels than the histogram would have bins), or
when it is constant; every other feature is binned as continuous. ``discrete_features_`` and
:meth:`MIFeatureSelector.explain` say which features were treated as discrete.

Cost: the univariate estimates read every feature once; each later step estimates the pair
quantities of the newly selected feature against every feature (one row), so selecting K of F
features estimates K rows of F pairs and keeps them, O(F x K) memory besides the input (which is
never copied, see :class:`fstheory.selection.estimators.BinnedBatch`), never an F x F matrix. The
objective is evaluated for every candidate at every step as the registry writes it, reading the
rows of every selected feature: O(F x K^2) arithmetic in all (QMIFS, whose objective sums over
pairs of selected features, O(F x K^3)). ``verbose`` shows progress on long fits.

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

import sys
import time
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
from fstheory.orderings.methods import METHODS, PER_STEP, MethodError, get_method
from fstheory.selection import kernels
from fstheory.selection.estimators import BinnedBatch, n_bins
from fstheory.selection.greedy import greedy
from fstheory.selection.values import HistogramValues, KnnValues
from fstheory.selection.options import EstimatorOptions, SelectionOptions
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


def _registry_choices() -> tuple[str, str]:
    """The methods and, per method, the readings of the registry, as text for the docstring."""
    methods = ", ".join(f'"{k}"' for k in METHODS)
    groups: dict = {}
    for key, m in METHODS.items():
        groups.setdefault(tuple(m.readings), []).append(key)
    readings = "; ".join(f"{', '.join(keys)}: {', '.join(names)}" for names, keys in groups.items())
    return methods, readings


class _Progress:
    """Progress lines on stderr for a long fit: with ``verbose >= 1``, at most one a second once
    the fit has run two seconds; with ``verbose >= 2``, every line."""

    def __init__(self, verbose: int, name: str):
        self.verbose, self.name = int(verbose), name
        self.t0 = self.last = time.perf_counter()
        self.shown = False

    def __call__(self, text: str) -> None:
        now = time.perf_counter()
        if self.verbose >= 2 or (self.verbose and now - self.t0 >= 2.0 and now - self.last >= 1.0):
            self._print(text, now)

    def _print(self, text: str, now: float) -> None:
        print(f"[MIFeatureSelector] {self.name}: {text} ({now - self.t0:.1f} s)", file=sys.stderr, flush=True)
        self.last, self.shown = now, True

    def step(self, step: int, steps: int) -> None:
        self(f"step {step + 1} of {steps}")

    def done(self, text: str) -> None:
        """The closing line, printed when any progress line was."""
        if self.shown:
            self._print(text, time.perf_counter())


class MIFeatureSelector(SelectorMixin, BaseEstimator):
    """Greedy forward selection by a registered MI method, on estimates from data.

    Parameters
    ----------
    method : str, default="mrmr"
        A key of the method registry :data:`fstheory.orderings.methods.METHODS`
        (case-insensitive): <methods>.
    n_features_to_select : int, float or None, default=None
        How many features to select: an int >= 1 (at most the number of features), a fraction in
        (0, 1] of the features, or None for half of them (rounded down, at least one).
    beta : float, "1/|S|" or None, default=None
        Required in [0, 1] by the methods that take it (MIFS, MIFS-U, beta-gamma, which also
        takes "1/|S|"), refused by the others.
    gamma : float, "1/|S|" or None, default=None
        Required in [0, 1] or "1/|S|" by beta-gamma, refused by the others. CMI and JMI3 read
        MI(C; V_T) of sets, estimated on the cells of the histogram grid (plug-in for discrete
        features): :mod:`fstheory.selection.sets`.
    estimator : {"histogram", "knn"}, default="histogram"
        The paper's histogram with the ln(Delta) correction, or k-nearest-neighbour estimates.
    reading : str or None, default=None
        Written form of the objective (default: the method's own, :mod:`fstheory.orderings.methods`).
        The readings each method accepts, from the registry: <readings>.
    zero_beta : {"explicit", "drop"}, default="explicit"
        At beta = 0 (or a zero beta or gamma of beta-gamma): evaluate as written, or drop the
        term.
    discrete_features : "auto", bool or array-like, default="auto"
        Which features are discrete (plug-in entropies, their values as the cells of every
        histogram): all (True), none (False), a boolean mask of n_features entries, or an array
        of feature indices in [0, n_features). "auto": a feature is discrete when all its values
        are integers and it has at most ceil(sqrt(n_samples)) distinct values (no more levels
        than the histogram would have bins), or when it is constant (a constant has no density,
        and no differential entropy); any other feature is binned as continuous -- an integer
        feature with 60 levels at n_samples = 2000 (ceil(sqrt(2000)) = 45) among them. Pass a
        mask or indices to decide; ``discrete_features_`` and :meth:`explain` say what was used.
    histogram_options : dict or None, default=None
        Fields of :class:`fstheory.selection.options.EstimatorOptions` (``joint``,
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
    verbose : int, default=0
        Progress on stderr: 1 for a line at most every second once a fit has run two seconds
        (short fits stay silent), 2 for a line at every step.

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
        The class labels (at least two: a single class is refused, every MI with it being 0).
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
        "reading": [str, None],
        "zero_beta": [StrOptions({"explicit", "drop"})],
        "discrete_features": [StrOptions({"auto"}), "boolean", "array-like"],
        "histogram_options": [dict, None],
        "n_neighbors": [Interval(Integral, 1, None, closed="left")],
        "ties": [StrOptions({"relative", "exact"})],
        "rtol": [Interval(Real, 0, 1, closed="left")],
        "random_state": ["random_state"],
        "verbose": ["verbose"],
    }

    def __init__(self, *, method="mrmr", n_features_to_select=None, beta=None, estimator="histogram",
                 reading=None, zero_beta="explicit", discrete_features="auto", histogram_options=None,
                 n_neighbors=3, ties="relative", rtol=1e-9, random_state=None, verbose=0,
                 gamma=None):
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
        self.verbose = verbose

    def __sklearn_tags__(self):
        tags = super().__sklearn_tags__()
        tags.target_tags.required = True
        return tags

    # --- parameters -------------------------------------------------------------------------------
    def _check_values(self):
        """The checks scikit-learn's constraints cannot state: bools are not counts, and the
        method and reading are the registry's."""
        if type(self.n_features_to_select) is bool:  # an Integral to scikit-learn
            raise ValueError(f"parameter 'n_features_to_select' must be an int >= 1, a fraction in (0, 1] "
                             f"or None (got {self.n_features_to_select!r})")
        if type(self.n_neighbors) is bool:
            raise ValueError(f"parameter 'n_neighbors' must be an int >= 1 (got {self.n_neighbors!r})")
        method = get_method(self.method)
        if self.reading is not None and self.reading not in method.readings:
            raise ValueError(f"parameter 'reading' of {method.display} must be one of "
                             f"{', '.join(method.readings)} (got {self.reading!r})")
        try:
            beta, reading, zero_beta = method.check(self.beta, self.reading, self.zero_beta,
                                                    self.gamma)
            gamma = method.gamma_value(self.gamma)
        except MethodError as exc:
            raise ValueError(str(exc)) from None
        self._gamma = gamma if gamma is None or gamma is PER_STEP else float(gamma)
        return method, beta if beta is None or beta is PER_STEP else float(beta), reading, zero_beta

    def _discrete_mask(self, X: np.ndarray, constant: np.ndarray) -> np.ndarray:
        """The features treated as discrete (see ``discrete_features``); also sets
        ``_binned_integers``, the integer-valued features "auto" bins as continuous."""
        n, F = X.shape
        d = self.discrete_features
        self._binned_integers = np.zeros(F, dtype=bool)
        if isinstance(d, str):
            mask = constant.copy()
            levels = n_bins(n)
            for f in np.flatnonzero(kernels.integer_columns(X) & ~mask):
                mask[f] = np.unique(X[:, f]).size <= levels
                self._binned_integers[f] = not mask[f]
            return mask
        if isinstance(d, (bool, np.bool_)):
            return np.full(F, bool(d))
        what = (f"parameter 'discrete_features' must be 'auto', a bool, a boolean mask of {F} entries "
                f"or an array of feature indices in [0, {F})")
        try:
            a = np.asarray(d)
        except (TypeError, ValueError):
            raise ValueError(f"{what} (got {d!r})") from None
        if a.ndim != 1:
            raise ValueError(f"{what} (got an array of shape {a.shape})")
        if a.dtype == bool:
            if a.shape != (F,):
                raise ValueError(f"{what} (got a mask of {a.size} entries)")
            return a.copy()
        mask = np.zeros(F, dtype=bool)
        if a.size == 0:
            return mask
        if a.dtype.kind not in "iu":
            raise ValueError(f"{what} (got {d!r})")
        bad = a[(a < 0) | (a >= F)]
        if bad.size:
            raise ValueError(f"{what} (got {bad.tolist()[0]!r} among {a.tolist()!r})")
        mask[a] = True
        return mask

    def _n_select(self, F: int) -> int:
        k = self.n_features_to_select
        if k is None:
            return max(1, F // 2)
        if isinstance(k, Integral):
            if k > F:
                raise ValueError(f"parameter 'n_features_to_select' must be <= n_features = {F} (got {k})")
            return int(k)
        return max(1, int(k * F))

    # --- fitting ----------------------------------------------------------------------------------
    def fit(self, X, y):
        """Select features of ``X`` (n_samples, n_features) for the class labels ``y``.

        Parameters
        ----------
        X : array-like of shape (n_samples, n_features)
            Numeric, finite.
        y : array-like of shape (n_samples,)
            Class labels of any type (strings, integers, ...), at least two distinct.

        Returns
        -------
        self
        """
        self._validate_params()
        method, beta, reading, zero_beta = self._check_values()
        X, y = validate_data(self, X, y, dtype=np.float64, ensure_min_samples=2, y_numeric=False)
        check_classification_targets(y)
        n, F = X.shape
        k = self._n_select(F)
        self._n_samples = n
        self.classes_, codes = np.unique(y, return_inverse=True)
        if self.classes_.size < 2:
            raise ValueError(f"y has 1 class ({self.classes_.tolist()[0]!r}): the MI of every feature with a single "
                             f"class is 0 and no selection is informative; at least two classes are needed")
        progress = _Progress(self.verbose, method.display)
        constant = np.ptp(X, axis=0) == 0
        discrete = self._discrete_mask(X, constant)
        if (constant & ~discrete).any():
            raise ValueError(
                f"features {np.flatnonzero(constant & ~discrete).tolist()} are constant: a constant has "
                f"no differential entropy; declare them in 'discrete_features'"
            )
        self.discrete_features_ = discrete
        progress(f"estimating h(V) and MI(C,V) of {F} features")
        view = self._view(X, codes, discrete)
        options = SelectionOptions(self.ties, float(self.rtol))
        record: list = []
        sel = greedy(view, method, beta, steps=k, options=options, reading=reading,
                     zero_beta=zero_beta, record=record, progress=progress.step, gamma=self._gamma)[0]
        names = self._names(F)
        steps, scores = [], np.empty((len(record), F))
        for t in range(len(record)):
            values, available = (np.asarray(a)[0] for a in record[t])
            record[t] = None  # each step's scores are kept once, in scores
            scores[t] = np.where(available, values, np.nan)
            chosen = int(sel[t])
            S = [int(s) for s in sel[:t]]
            undecided = tuple(
                Indeterminate(int(i), *_name_indeterminate(method, view, int(i), S, beta, reading, zero_beta,
                                                           names, self._gamma))
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
        self.scores_ = scores[:len(steps)]
        self.steps_ = steps
        self._method_text = method.describe(self.beta, reading, zero_beta, self.gamma)
        progress.done(f"{len(steps)} features selected")
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
        """A readable account of every step: the winner, its score, ties, indeterminate candidates;
        first, which features were treated as discrete.

        Returns
        -------
        str
        """
        check_is_fitted(self, "order_")
        names = self._names(self.n_features_in_)
        lines = [(f"{self._method_text} on {self.n_features_in_} features "
                  f"({self.estimator} estimates, {int(self.discrete_features_.sum())} discrete)"),
                 "discrete (plug-in entropies): " + _listed(names, self.discrete_features_)]
        if self._binned_integers.any():
            lines.append(f"integer-valued but binned as continuous (more than {n_bins(self._n_samples)} "
                         f"distinct values): " + _listed(names, self._binned_integers))
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


def _listed(names: list[str], mask: np.ndarray, most: int = 10) -> str:
    """The names where ``mask`` holds, at most ``most`` of them; "none" or "all"."""
    chosen = [names[i] for i in np.flatnonzero(mask)]
    if not chosen:
        return "none"
    if len(chosen) == len(names) > 1:
        return "all"
    if len(chosen) <= most:
        return ", ".join(chosen)
    return ", ".join(chosen[:most]) + f", ... ({len(chosen)} in all)"


_METHODS_TEXT, _READINGS_TEXT = _registry_choices()
MIFeatureSelector.__doc__ = MIFeatureSelector.__doc__.replace("<methods>", _METHODS_TEXT).replace(
    "<readings>", _READINGS_TEXT)
