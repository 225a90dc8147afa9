"""The derivation and evaluation engine: for a declared scenario, how each quantity is obtained
(:mod:`fstheory.engine.derive`, :mod:`fstheory.engine.derive_joint`), its value at a parameter
point (:mod:`fstheory.engine.evaluate`, :mod:`fstheory.engine.evaluate_joint`), the values view
the orderings read (:mod:`fstheory.engine.values`) and the relevance of feature sets
(:mod:`fstheory.engine.relevance`)."""
