"""The reproduced tables (reports/) and the verification against the paper's printed tables.

* Regenerating the tables (every registered scenario, 30 digits, 2 worker processes, as
  `make reproduce-tables`) gives files byte-identical to the committed ones, and no committed
  table is left over; the same for verification.md. Generic scenarios are exercised with a small
  declared one.
* verify counts every printed cell once (80 numeric + 110 MI + 60 general + 410 ordering cells),
  classifies the known disagreements, and its exit code follows the errata file: a synthetic wrong
  cell is an erratum and makes the exit code 1 until it is documented with the right class.
"""

from __future__ import annotations

import json
from decimal import Decimal
from pathlib import Path

import mpmath
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from fstheory.cli import main
from fstheory.reports import paper_data, tables, verify
from fstheory.scenarios.declaration import ClassRule, Feature, Parameter, ParameterError, Scenario
from fstheory.scenarios.symbols import X, Y, k
from fstheory.theory.laws import Uniform
from report_values import STORE, values_at

REPORTS = Path(tables.__file__).parent
HAND_WRITTEN = {"errata.md"}
WRITTEN_BY_VERIFY = {"verification.md"}


@pytest.fixture(scope="module")
def regenerated(tmp_path_factory):
    """As `make reproduce-tables`: the points computed in 2 worker processes (the committed files
    must not depend on it; test_generators_are_generic_over_scenarios runs the one-process path)."""
    out = tmp_path_factory.mktemp("tables")
    files = tables.generate(out, digits=30, jobs=2, store=STORE)
    return out, files


@pytest.fixture(scope="module")
def verified():
    return verify.verify(30, store=STORE)


# ----- regeneration ---------------------------------------------------------------------------


@pytest.mark.slow
def test_regenerated_tables_are_byte_identical_to_the_committed_ones(regenerated):
    out, files = regenerated
    # objective + numeric tables, 3 tables (general, MI, orderings) x every registered scenario
    # (the paper's two, Scenario III and the five shipped examples of scenarios/), 4 formats;
    # joint, 3-D orderings, first sets and the methods of FEAST and praznik x 4 scenarios (the
    # paper's three and XOR): 4 tables x 3 formats (md, csv, json) each; README
    from fstheory.scenarios.registry import scenario_names

    assert len(files) == (2 + 3 * len(scenario_names())) * 4 + 4 * 4 * 3 + 1
    for f in files:
        committed = REPORTS / f.name
        assert committed.exists(), f"{f.name} is generated but not committed"
        assert f.read_bytes() == committed.read_bytes(), f"{f.name} differs from the committed file"


@pytest.mark.slow
def test_no_stale_generated_file_is_committed(regenerated):
    out, files = regenerated
    names = {f.name for f in files}
    committed = {p.name for p in REPORTS.iterdir()
                 if p.is_file() and p.suffix in {".md", ".tex", ".csv", ".json"}}
    assert committed - names == HAND_WRITTEN | WRITTEN_BY_VERIFY


@pytest.mark.slow
def test_verification_md_is_byte_identical_to_the_committed_one(verified, tmp_path):
    verify.write_text(tmp_path / "verification.md", verify.render(verified))
    assert (tmp_path / "verification.md").read_bytes() == (REPORTS / "verification.md").read_bytes()


@pytest.mark.slow
def test_numeric_table_values_full_precision_in_csv(regenerated):
    out, _ = regenerated
    rows = (out / "numeric_table.csv").read_text().splitlines()
    row = next(r for r in rows if r.startswith("normal,V4,"))
    mi02 = row.split(",")[-2]
    assert mi02.startswith("0.1092286695297667327140940150")  # 30 significant digits
    assert "| V4 | `X-Y` | $\\mathcal{N}\\left(0, 2\\right)$ | 1.7655 | 0.1092 | 0.0039 |" in (
        out / "numeric_table.md").read_text()


@pytest.mark.slow
def test_general_table_shows_skew_normal_lambda_and_structure_reasons(regenerated):
    out, _ = regenerated
    g = json.loads((out / "general_normal.json").read_text())
    lam = [f["mi_class"]["plain"].rsplit("lambda = ", 1)[-1] for f in g["features"]
           if f["mi_class"]["kind"] == "skew-normal"]
    assert lam == ["1/k", "1/k", "(1 - k)/(k + 1)", "k"]
    zero = {f["label"]: f["mi_class"]["reason"] for f in g["features"] if f["mi_class"]["plain"] == "0"}
    assert zero["X^2"].startswith("symmetry (X -> -X, Y -> -Y)")
    assert zero["Z"] == "independent of the class (no common base variable)"
    u = json.loads((out / "general_uniform.json").read_text())
    assert u["features"][1]["h"]["plain"] == "log(2*delta*Abs(a))"


@pytest.mark.slow
def test_ordering_tables_have_every_method_beta_row(regenerated):
    out, _ = regenerated
    for scenario in ("uniform", "normal"):
        t = json.loads((out / f"orderings_{scenario}.json").read_text())
        assert [p["k"] for p in t["parts"]] == ["0.2", "0.8"]
        for part in t["parts"]:
            assert len(part["rows"]) == 14  # 4 MIFS + 4 MIFS-U + 6 methods without beta
            assert all(len(r["order"]) == 10 for r in part["rows"])


def _toy() -> Scenario:
    return Scenario(
        name="toy", title="Toy: X, Y i.i.d. Unif(-1, 1)", source="tests",
        parameters=(Parameter("k", None, "unit"),), base={X: Uniform(-1, 1), Y: Uniform(-1, 1)},
        features=(Feature("X", X), Feature("Y^2", Y**2), Feature("X+Y", X + Y)),
        class_rule=ClassRule({X: 1, Y: k}, 0))


@pytest.mark.slow
def test_generators_are_generic_over_scenarios(tmp_path):
    """A third, declared scenario comes out of the same code (three features): its class is
    Scenario I's, recognised by content, so MI(C, X) is Scenario I's closed form; MI(C, Y^2) is
    a symmetry zero and MI(C, X+Y) takes the numerical route."""
    files = tables.generate(tmp_path, digits=12, scenarios=["uniform", _toy()])
    names = {f.name for f in files}
    assert {"general_toy.md", "mi_features_toy.tex", "orderings_toy.csv"} <= names
    o = json.loads((tmp_path / "orderings_toy.json").read_text())
    assert all(len(r["order"]) == 3 for p in o["parts"] for r in p["rows"])
    g = json.loads((tmp_path / "general_toy.json").read_text())
    assert [f["mi_class"]["kind"] for f in g["features"]] == ["closed", "structure", "numeric"]
    assert g["features"][0]["mi_class"]["plain"] == "-k/2 + log(2)"
    assert g["features"][2]["law"]["plain"] == "Tri(-2, 2, 0)"
    assert "`toy` -- Toy" in (tmp_path / "README.md").read_text()
    n = json.loads((tmp_path / "numeric_table.json").read_text())
    assert [b["scenario"] for b in n["scenarios"]] == ["uniform", "toy"]


def test_bad_arguments(capsys):
    with pytest.raises(ValueError, match="parameter 'digits' must be an integer in \\[1, 100\\]"):
        tables.generate("/nonexistent", digits=0)
    with pytest.raises(ParameterError, match="unknown scenario 'nope'"):
        tables.generate("/nonexistent", digits=10, scenarios=["nope"])
    with pytest.raises(ParameterError, match="parameter 'jobs' must be a positive integer"):
        tables.generate("/nonexistent", digits=10, jobs=0)
    with pytest.raises(verify.VerifyError, match="parameter 'digits'"):
        verify.verify(5)

    assert main(["tables", "--out", "/nonexistent", "--digits", "5", "--verify"]) == 2
    assert "parameter 'digits' must be at least 10 with --verify" in capsys.readouterr().err


@pytest.mark.slow
def test_tables_with_verify_write_the_same_verification_md(regenerated, tmp_path, capsys):
    """`fstheory tables --verify` (what `make reproduce-tables` runs): the tables, then the
    verification of `fstheory verify` from the values this process computed; the same file."""
    argv = ["tables", "--out", str(tmp_path), "--scenario", "uniform", "--scenario", "normal",
            "--verify"]
    assert main(argv) == 0
    assert capsys.readouterr().out.splitlines()[-1].startswith("verify: 660 printed cells -- ")
    assert (tmp_path / "verification.md").read_bytes() == (REPORTS / "verification.md").read_bytes()


# ----- verification on the paper's tables --------------------------------------------------------


@pytest.mark.slow
def test_every_printed_cell_is_counted_once(verified):
    t = paper_data.load()
    n_cells = len(t.cells()) + sum(len(r.printed) for r in t.orderings)
    assert (len(t.cells("numeric")), len(t.cells("mi_features")), len(t.cells("general"))) == (80, 110, 60)
    assert n_cells == 660
    assert len(verified.verdicts) == n_cells
    assert sum(verified.counts().values()) == n_cells
    assert len({v.cell_id for v in verified.verdicts}) == n_cells


@pytest.mark.slow
def test_paper_verification_passes_with_the_documented_errata(verified):
    assert verified.exit_code == 0
    assert verified.counts() == {"match": 641, "rounding slip": 7, "erratum": 7, "label typo": 2,
                                 "ordering": 3}
    by_id = {v.cell_id: v for v in verified.verdicts}
    e = by_id["numeric:normal:V4:mi_c:0.2"]
    assert e.klass == "erratum" and e.entry == "E1"
    assert e.reproduced == "0.10922866952976673271"
    assert "agrees with the exact value to 30 significant digits" in e.second_route
    assert by_id["numeric:normal:V4:mi_c:0.8"].reproduced.startswith("0.003896982276")
    assert by_id["numeric:uniform:V3:h"].klass == "rounding slip"
    assert by_id["general:uniform:V9:description"].klass == "label typo"
    assert by_id["general:normal:V5:description"].klass == "label typo"
    assert by_id["general:uniform:V2:h"].klass == "erratum"
    assert by_id["general:normal:V2:h"].klass == "match"  # 1/2 ln(2 pi e a^2) holds for a < 0
    assert by_id["orderings:uniform:k=0.8:NMIFS:3"].klass == "ordering"
    assert by_id["mi_features:normal:V4:V3"].klass == "match"  # 0.1078


@pytest.mark.slow
def test_printed_sn_expression_is_two_mi_minus_ln2(verified):
    """E2: the printed E[ln(2 Phi(-A0/k) Phi(A1/k))] evaluated by quadrature = 2 MI - ln 2."""
    from fstheory.reports.printed_forms import sn_product
    from fstheory.scenarios.registry import get_scenario

    s = get_scenario("normal")
    mi = values_at(s, {"k": "0.2"}, 30).mi_class[0].value
    with mpmath.workdps(30):
        printed = sn_product("-1/k", "-1/k", "1/k", "1/k", s, {"k": "0.2"})
        assert abs(printed - (2 * mi - mpmath.log(2))) < mpmath.mpf(10) ** -25


@pytest.mark.slow
def test_ordering_disagreement_is_explained(verified):
    row = next(r for r in verified.rows if r.row.row_id == "orderings:normal:k=0.2:MIFS-U (beta=.7,1)")
    assert row.derived["1"] == list(row.row.printed)
    assert row.derived["0.7"][:2] == ["X", "X-Y"]
    (detail,) = row.details
    assert "They part at position 2: printed Y, derived X-Y." in detail
    assert "With the paper's printed values put back (MI(C,X-Y) = 0.0947), the printed row follows." in detail
    assert "Step 2: X-Y wins with 0.0148480." in detail


# ----- the classification and the errata file ---------------------------------------------------


@settings(max_examples=200, deadline=None)
@given(st.integers(min_value=-10**9, max_value=10**9), st.integers(min_value=1, max_value=6),
       st.integers(min_value=1, max_value=99), st.sampled_from([-2, -1, 0, 1, 2]))
def test_classify_decimal(units, decimals, frac, shift):
    """x strictly inside a rounding interval: the right rounding is a match, one unit off a slip,
    two units off an erratum."""
    unit = Decimal(1).scaleb(-decimals)
    x = Decimal(units) * unit + unit * (Decimal(frac) / 100 - Decimal("0.5"))  # never half-way
    correct = x.quantize(unit)
    printed = format(correct + shift * unit, "f")
    with mpmath.workdps(40):
        klass, _ = verify.classify_decimal(printed, mpmath.mpf(str(x)))
    assert klass == {0: "match", 1: "rounding slip", 2: "erratum"}[abs(shift)]


def test_parse_errata_rejects_bad_entries():
    with pytest.raises(verify.VerifyError, match="class 'typo' is not one of"):
        verify.parse_errata("### E9 (typo): x\nCells: `a`\n")
    with pytest.raises(verify.VerifyError, match="'Cells:' outside an entry"):
        verify.parse_errata("Cells: `a`\n")
    with pytest.raises(verify.VerifyError, match="defined twice"):
        verify.parse_errata("### E1 (erratum): x\n### E1 (erratum): y\n")


def _synthetic_data(tmp_path) -> Path:
    """A small printed-tables file: one correct cell, one slip, one wrong value, one label typo,
    one wrong ordering cell."""
    data = json.loads(paper_data.DATA_PATH.read_text())
    keep = {("uniform", "V4", "h"): "0.5000", ("uniform", "V4", "mi_c:0.2"): "0.1786",
            ("uniform", "V4", "mi_c:0.8"): "0.0300"}
    cells = []
    for c in data["numeric"]["cells"]:
        key = (c["scenario"], c["row"], c["column"])
        if key in keep:
            c = dict(c, printed=keep[key], form={"decimal": keep[key]})
            cells.append(c)
    data["numeric"]["cells"] = cells
    data["mi_features"]["cells"] = []
    gen = [c for c in data["general"]["cells"]
           if (c["scenario"], c["row"], c["column"]) == ("normal", "V5", "description")]
    data["general"]["cells"] = gen
    row = dict(data["orderings"]["rows"][0])  # Scenario I, k = 0.2, MIFS beta = 0
    row["printed"] = ["X", "Y", "X-Y"] + row["printed"][3:]  # printed X, X-Y, Y: 2 and 3 swapped
    data["orderings"]["rows"] = [row]
    path = tmp_path / "paper_tables.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.slow
def test_synthetic_wrong_cell_is_an_erratum_and_fails_until_documented(tmp_path):
    data = _synthetic_data(tmp_path)
    errata = tmp_path / "errata.md"
    errata.write_text("# none\n")
    r = verify.verify(30, errata, data, store=STORE)
    assert len(r.verdicts) == 3 + 1 + 10
    by_id = {v.cell_id: v for v in r.verdicts}
    assert by_id["numeric:uniform:V4:h"].klass == "match"
    assert by_id["numeric:uniform:V4:mi_c:0.2"].klass == "rounding slip"
    wrong = by_id["numeric:uniform:V4:mi_c:0.8"]
    assert wrong.klass == "erratum" and wrong.detail == "correct rounding 0.0201"
    assert "second route" in wrong.second_route
    assert by_id["general:normal:V5:description"].klass == "label typo"
    assert by_id["orderings:uniform:k=0.2:MIFS (beta=0):2"].klass == "ordering"
    assert r.exit_code == 1
    assert {v.cell_id for v in r.undocumented} == {
        "numeric:uniform:V4:mi_c:0.2", "numeric:uniform:V4:mi_c:0.8",
        "general:normal:V5:description", "orderings:uniform:k=0.2:MIFS (beta=0):2",
        "orderings:uniform:k=0.2:MIFS (beta=0):3"}

    documented = (
        "### A (rounding slip): s\nCells: `numeric:uniform:V4:mi_c:0.2`\n"
        "### B (erratum): e\nCells: `numeric:uniform:V4:mi_c:0.8`\n"
        "### C (label typo): l\nCells: `general:normal:V5:description`\n"
        "### D (ordering): o\nCells: `orderings:uniform:k=0.2:MIFS (beta=0):2`, "
        "`orderings:uniform:k=0.2:MIFS (beta=0):3`\n")
    errata.write_text(documented)
    assert verify.verify(30, errata, data, store=STORE).exit_code == 0

    errata.write_text(documented.replace("### B (erratum)", "### B (rounding slip)"))
    r = verify.verify(30, errata, data, store=STORE)
    assert r.exit_code == 1 and [v.cell_id for v, _ in r.misclassified] == ["numeric:uniform:V4:mi_c:0.8"]

    errata.write_text(documented + "### E (erratum): stale\nCells: `numeric:uniform:V4:h`, `nope`\n")
    r = verify.verify(30, errata, data, store=STORE)
    assert r.exit_code == 1
    assert {(c, why) for c, _, why in r.stale} == {
        ("numeric:uniform:V4:h", "the cell now matches"), ("nope", "no such printed cell")}


@pytest.mark.slow
def test_main_writes_verification_and_returns_the_exit_code(tmp_path, capsys):
    data = _synthetic_data(tmp_path)
    errata = tmp_path / "errata.md"
    errata.write_text("# none\n")
    assert verify.main(tmp_path, 30, errata, data) == 1
    line = capsys.readouterr().out.strip()
    assert line.startswith("verify: 14 printed cells -- 9 match, 1 rounding slip, 1 erratum, "
                           "1 label typo, 2 ordering; NOT OK: 5 undocumented")
    text = (tmp_path / "verification.md").read_text()
    assert "undocumented: `numeric:uniform:V4:mi_c:0.8` (erratum)" in text


def test_printed_forms_are_parsed_not_evaluated(tmp_path):
    from fstheory.reports.printed_forms import FormError, parse
    from fstheory.scenarios.registry import get_scenario

    with pytest.raises(FormError, match="unknown name '__import__'"):
        parse("__import__('os').system('true')", get_scenario("uniform"))


def test_errata_t1_square_entropy_turns_negative_before_one_over_2_pi_e():
    """errata.md T1: h(Y^2) = (1 + ln pi - gamma)/2 + ln sigma^2 < 0 for sigma^2 < 0.45669, while
    the paper names 1/(2 pi e) = 0.0585 as the threshold for negative entropies."""
    from fstheory.scenarios.registry import get_scenario

    s = get_scenario("normal")
    below = values_at(s, {"k": "0.2", "sigma": "0.67"}, 15)  # sigma^2 = 0.4489
    above = values_at(s, {"k": "0.2", "sigma": "0.68"}, 15)  # sigma^2 = 0.4624
    assert below.entropy[2].value < 0 < above.entropy[2].value
    assert below.entropy[0].value > 0  # h(X) = ln(2 pi e sigma^2)/2 still positive
    assert below.entropy[2].text(5) == "-0.017198"
    with mpmath.workdps(20):
        threshold = mpmath.exp(-(1 + mpmath.log(mpmath.pi) - mpmath.euler) / 2)
        assert abs(threshold - mpmath.mpf("0.456687")) < 1e-6
