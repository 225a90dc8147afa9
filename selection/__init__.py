"""Feature selection on data with the registry's methods (:class:`MIFeatureSelector`) and the one
set of estimators shared with the simulation study (:mod:`fstheory.selection.estimators`,
:mod:`fstheory.selection.knn`, :mod:`fstheory.selection.values`).

``MIFeatureSelector`` is imported on first use (PEP 562): it needs scikit-learn, whose import
costs about a second, and the CLI reads only :mod:`fstheory.selection.options` to build its
parser."""

__all__ = ["MIFeatureSelector"]


def __getattr__(name: str):
    if name == "MIFeatureSelector":
        from fstheory.selection.selector import MIFeatureSelector

        return MIFeatureSelector
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
