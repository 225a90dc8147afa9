"""Outputs of the study (fstheory.simulation.report): files, the comparison with the printed table."""

from __future__ import annotations

import csv

import pytest

from fstheory.scenarios.registry import get_scenario
from fstheory.simulation.report import (
    frequency_comparison,
    paper_values,
    write_all_frequencies,
    write_figure,
    write_frequency_table,
    write_mean_table,
)
from fstheory.simulation.study import mean_estimates, run_study
from paper_sets import paper_sets


@pytest.fixture(scope="module")
def small():
    return run_study(sizes=(50, 5000), reps=20, seed=1, optimal_sets=paper_sets)


def test_paper_values_are_the_printed_table():
    p = paper_values()
    rows = p["frequency"]["rows"]
    assert len(rows) == 14 and all(len(r["values"]) == 4 for r in rows)
    assert p["mean_estimates"]["rows"]["Our estimate"] == [0.5932, 0.0075, 0.1779, 0.0107, 0.5004]


def test_frequency_table_files(small, tmp_path):
    info = write_frequency_table(small, tmp_path)
    assert info["cells"] == 56
    with open(info["csv"]) as fh:
        rows = list(csv.DictReader(fh))
    assert len(rows) == 56
    cmp = frequency_comparison(small)
    # the "ours" column is the study's result, not the printed value
    for c in cmp:
        assert c["frequency"] == small.frequency(c["scenario"], c["k"], 5000, c["method"], c["beta"])["frequency"]
    md = info["md"].read_text()
    assert md.count("\n| ") == 15  # header + 14 method rows
    assert "\\toprule" in info["tex"].read_text() and "\\bottomrule" in info["tex"].read_text()
    assert write_all_frequencies(small, tmp_path).exists()


def test_mean_table_and_figure(small, tmp_path):
    est = mean_estimates(n=200, reps=10, seed=1)
    info = write_mean_table([("default", est)], tmp_path)
    assert info["exact"][0] == pytest.approx(0.5931471805599453, abs=1e-12)  # ln 2 - 0.1
    assert info["exact"][2] == 0 and info["exact"][4] == 0 and info["exact"][5] == pytest.approx(0.5)
    paths = write_figure(small, tmp_path)
    assert paths["png"].stat().st_size > 10_000 and paths["pdf"].stat().st_size > 5_000


def test_a_scenario_object_runs_like_its_name(small):
    obj = run_study(scenarios=(get_scenario("uniform"),), sizes=(50,), reps=20, seed=1, methods=["mrmr"],
                    optimal_sets=paper_sets)
    by_name = [r for r in small.rows if r["scenario"] == "uniform" and r["n"] == 50 and r["method"] == "mrmr"]
    assert obj.rows == by_name


def test_reproduction_account_counts_readings_and_tie_cells(small, tmp_path):
    from fstheory.simulation.report import write_reproduction

    pooled = run_study(sizes=(5000,), reps=20, seed=1, optimal_sets=paper_sets, estimator={"conditional": "pooled"})
    relative = run_study(sizes=(5000,), reps=20, seed=1, optimal_sets=paper_sets, ties="relative")
    info = write_reproduction({"per-class": small, "pooled": pooled}, relative, tmp_path)
    assert info["cells"] == 56
    cmp = {(c["method"], c["beta"], c["scenario"], c["k"]): c for c in frequency_comparison(small)}
    ref = {(c["method"], c["beta"], c["scenario"], c["k"]): c for c in frequency_comparison(relative)}
    tie = [k for k in cmp if cmp[k]["frequency"] != ref[k]["frequency"]]
    assert info["tie_decided"] == len(tie)
    # the counts are those of the comparison records, split by tie-decided cells
    for z, field in ((2, "reproduced"), (3, "within_3se")):
        assert info["counts"][("per-class", z, True)] == sum(cmp[k][field] for k in tie)
        assert info["counts"][("per-class", z, False)] == sum(cmp[k][field] for k in cmp if k not in tie)
        assert info["counts"][("per-class", 3, False)] >= info["counts"][("per-class", 2, False)]
    assert all(not cmp[k]["reproduced"] for k in info["no_reading"])
    text = info["md"].read_text()
    assert "| per-class |" in text and "| pooled |" in text and "no reading reproduces" in text
