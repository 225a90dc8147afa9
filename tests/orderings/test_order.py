"""fstheory.orderings.order.order: the call behind ``fstheory order``."""

import pytest

import fstheory.engine.evaluate
from fstheory.orderings.explain import summary, to_json
from fstheory.orderings.methods import MethodError
from fstheory.orderings.order import order
from fstheory.scenarios.registry import get_scenario


def test_order_end_to_end():
    r = order(get_scenario("uniform").bind(k="0.8"), "NMIFS")
    assert r.order_labels == ["X", "X^2", "Y^2", "Z^2", "X-Y"]
    assert summary(r).splitlines() == [
        "NMIFS on uniform (delta=0.5, k=0.8, a=3, b=1, d=2)",
        "X, X^2, Y^2, Z^2, X-Y -- stopped after 5: 3X+1 inf-inf, Z 0/0, Y 0/0, W+2 0/0, Z+W 0/0",
    ]
    j = to_json(r)
    assert j["params"]["k"] == "0.8" and j["params"]["delta"] == "0.5"


@pytest.mark.parametrize("method,beta,kw,match", [
    ("nope", None, {}, "parameter 'method' must be one of"),
    ("mifs", "1.2", {}, r"parameter 'beta' of MIFS must be in \[0, 1\]"),
    ("mifs-u", None, {}, "parameter 'beta' is required for MIFS-U"),
    ("qmifs", "0.5", {}, "parameter 'beta' is not accepted by QMIFS"),
    ("qmifs", None, {"reading": "both"}, "parameter 'reading' must be one of table, text"),
    ("mifs", "0", {"zero_beta": "yes"}, "parameter 'zero_beta' must be one of explicit, drop"),
])
def test_bad_input_fails_before_any_value_is_computed(monkeypatch, method, beta, kw, match):
    def boom(*a, **k):
        raise AssertionError("values computed before the method options were checked")

    monkeypatch.setattr(fstheory.engine.evaluate, "evaluate", boom)
    with pytest.raises(MethodError, match=match):
        order(get_scenario("normal").bind(k="0.2"), method, beta, **kw)
