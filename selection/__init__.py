"""Feature selection on data with the registry's methods (:class:`MIFeatureSelector`) and the one
set of estimators shared with the simulation study (:mod:`fstheory.selection.estimators`,
:mod:`fstheory.selection.knn`, :mod:`fstheory.selection.values`)."""

from fstheory.selection.selector import MIFeatureSelector

__all__ = ["MIFeatureSelector"]
