#!/usr/bin/env python3
"""Record the selector's and the histogram estimator's outputs on a fixed battery of small cases
(tests/data/selector_reference.json), for tests/selection/test_selector_scale.py to compare bit for bit.

The stored file was written by the dense implementation (one F x F matrix per pair quantity,
numpy bincount over F x n temporaries) that the memory-lean one replaced; the test checks that
the replacement gives the same orderings, steps, ties, indeterminate candidates and scores, to
the last bit. (The tie band became rtol * max(1, |best|) afterwards: the one fit where it
reports more ties, CMIM on "constant", was recorded again, with the same order.) Orderings,
steps and scores of steps are stored as they are (floats as
``float.hex``); the score matrices and the estimator's arrays as digests of their exact values.

Usage: python scripts/make_selector_reference.py [OUT]
"""

from __future__ import annotations

import hashlib
import json
import sys
import warnings
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
OUT = ROOT / "tests" / "data" / "selector_reference.json"


def hexes(a) -> list:
    return ["nan" if np.isnan(v) else float(v).hex() for v in np.asarray(a, dtype=float).ravel()]


def digest(a) -> str:
    """SHA-256 of the values' ``float.hex`` forms and of the shape (so -0.0, 0.0 and NaN differ)."""
    a = np.asarray(a, dtype=float)
    return hashlib.sha256((repr(a.shape) + ",".join(hexes(a))).encode()).hexdigest()[:32]


def datasets() -> dict:
    """name -> (X, y): continuous with copies (ties), discrete, constant/indeterminate, mixed."""
    out = {}
    rng = np.random.default_rng(0)
    x, y, z = rng.uniform(-0.5, 0.5, (3, 1500))
    out["paper-like"] = (np.column_stack([x, 3 * x + 1, y, x - y, z]), (x + 0.2 * y >= 0).astype(int))
    rng = np.random.default_rng(1)
    G = rng.standard_normal((800, 24))
    G[:, 5] = G[:, 0] + 0.1 * G[:, 1]
    G[:, 9] = G[:, 2] ** 2
    out["normal-24"] = (G, np.digitize(G[:, 0] + G[:, 1] - G[:, 2], [-1.0, 0.0, 1.0]))
    rng = np.random.default_rng(2)
    D = rng.integers(0, 4, (300, 6)).astype(float)
    out["discrete"] = (D, np.array(["cat", "dog", "eel"])[(D[:, 0] + rng.integers(0, 2, 300)).astype(int) % 3])
    rng = np.random.default_rng(3)
    c = rng.integers(0, 2, 400)
    out["constant"] = (np.column_stack([c, np.zeros(400), rng.integers(0, 3, 400), rng.standard_normal(400)])
                       .astype(float), c)
    rng = np.random.default_rng(4)
    M = np.column_stack([rng.integers(0, 60, 2000), rng.standard_normal((2000, 3)), rng.integers(0, 2, 2000)])
    out["mixed"] = (M.astype(float), ((M[:, 0] > 30) ^ (M[:, 4] > 0)).astype(int))
    return out


def configurations() -> list:
    """(label, parameters) of the fits: every method with each reading the old selector took."""
    from fstheory.orderings.methods import METHODS

    out = []
    for key, m in METHODS.items():
        readings = [None] if m.dimension == 3 else sorted({"table", "text"} & set(m.readings))
        betas = [0.5, 0.0] if m.has_beta else [None]
        for reading in readings:
            for beta in betas:
                out.append({"method": key, "reading": reading, "beta": beta})
    return out


def fit_record(X, y, **params) -> dict:
    from fstheory.selection import MIFeatureSelector

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        try:
            sel = MIFeatureSelector(**params).fit(X, y)
        except ValueError as exc:
            return {"error": str(exc)}
    return {
        "order": sel.order_.tolist(),
        "scores": digest(sel.scores_),
        "steps": [[s.number, s.criterion, s.selected, float(s.score).hex() if not np.isnan(s.score) else "nan",
                   list(s.tied), [[u.feature, u.form, u.cause] for u in s.indeterminate]] for s in sel.steps_],
        "stopped": bool(sel.stopped_),
        "discrete": np.asarray(sel.discrete_features_).tolist(),
        "warnings": [str(w.message) for w in caught if issubclass(w.category, UserWarning)],
    }


def selector_cases() -> list:
    cases = []
    data = datasets()
    for name, (X, _y) in data.items():
        k = min(6, X.shape[1])
        for cfg in configurations():
            params = {key: v for key, v in cfg.items() if v is not None}
            cases.append({"data": name, "params": {**params, "n_features_to_select": k}})
    X, y = data["normal-24"]
    for options in ({"joint": "product"}, {"joint": "coarse-mixed"}, {"joint": "cube-root"},
                    {"conditional": "shared"}, {"conditional": "pooled"}, {"conditional": "per-class-m"},
                    {"edges": "centred"}):
        for method in ("mrmr", "jmi", "disr", "nmifs"):
            cases.append({"data": "normal-24", "params": {"method": method, "n_features_to_select": 8,
                                                          "histogram_options": options}})
    for method in ("mrmr", "jmi", "cmim"):
        cases.append({"data": "paper-like", "params": {"method": method, "n_features_to_select": 4,
                                                       "ties": "exact"}})
        cases.append({"data": "normal-24", "params": {"method": method, "n_features_to_select": None}})
        cases.append({"data": "paper-like", "params": {"method": method, "n_features_to_select": 3,
                                                       "estimator": "knn", "random_state": 0}})
        cases.append({"data": "mixed", "params": {"method": method, "n_features_to_select": 4,
                                                  "discrete_features": [0, 4]}})
    for case in cases:
        X, y = data[case["data"]]
        case["result"] = fit_record(X, y, **case["params"])
    return cases


def estimator_cases() -> list:
    """BinnedBatch on study-like batches (several replications) under every option."""
    from fstheory.selection.estimators import BinnedBatch
    from fstheory.selection.options import EstimatorOptions

    rng = np.random.default_rng(5)
    x = rng.uniform(-1, 1, (7, 6, 450))
    x[:, 1] = 2 * x[:, 0] - 1
    x[:, 4] = np.round(3 * x[:, 4])
    x[3, 5] = 0.25
    c = rng.integers(0, 3, (7, 450))
    c[2] = 1
    discrete = np.array([False, False, False, False, True, False])
    out = []
    for joint in ("coarse", "coarse-mixed", "cube-root", "product"):
        for conditional in ("per-class", "per-class-m", "pooled", "shared"):
            for edges in ("range", "centred"):
                opt = EstimatorOptions(joint=joint, conditional=conditional, edges=edges)
                for disc in (None, discrete):
                    b = BinnedBatch(x, opt, discrete=disc)
                    first = np.array([0, 2, 5, 1, 4, 3, 0])
                    rows = b.mi_rows(first)
                    p = b.pair_class_rows(first[[1, 3]], c, rows=np.array([1, 3]))
                    out.append({"options": opt.as_dict(), "discrete": disc is not None,
                                "entropy": digest(b.entropy()), "mi_class": digest(b.mi_class(c)),
                                "mi_rows": digest(rows), "pairwise": digest(b.pairwise()),
                                "pair_class": {k: digest(v) for k, v in sorted(p.items())},
                                "class_marginals": [digest(a) for a in b.class_marginals(c)]})
    return out


def main(argv=None) -> int:
    path = Path(argv[0]) if argv else OUT
    ref = {"selector": selector_cases(), "estimator": estimator_cases()}
    from reference_output import write_reference

    write_reference(path, json.dumps(ref, separators=(",", ":")) + "\n")
    print(f"{path}: {len(ref['selector'])} selector fits, {len(ref['estimator'])} estimator batches")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
