"""The objective table rendered from the registry (LaTeX booktabs and Markdown)."""

from fstheory.orderings.methods import METHODS
from fstheory.orderings.objective_table import default_methods, latex_table, markdown_table


def test_default_table_holds_the_paper_and_the_3d_methods():
    assert [m.key for m in default_methods()] == [
        k for k, m in METHODS.items() if m.family in ("paper", "3d")]
    full = markdown_table(list(METHODS.values())).splitlines()[2:]
    assert len(full) == sum(len(m.distinct_readings()) for m in METHODS.values()) == 24 + 8


def test_markdown_has_one_row_per_method_reading():
    lines = markdown_table().splitlines()
    body = lines[2:]
    expected = sum(len(m.distinct_readings()) for m in default_methods())
    assert len(body) == expected == 12 + 12  # 2-D: 8 methods, 4 with two readings; 3-D: 6, 12 readings
    for m in default_methods():
        rows = [r for r in body if r.startswith(f"| {m.display} |")]
        assert len(rows) == len(m.distinct_readings())
        assert all(any(rd.plain.replace("|", "\\|") in r for r in rows) for rd in m.readings.values())
    # bare pipes only as cell separators: every row has exactly 5
    assert all(r.replace("\\|", "").count("|") == 5 for r in lines)
    qmifs = [r for r in body if r.startswith("| QMIFS |")]
    assert "text (default)" in qmifs[1] and "eq. (redQMIFS)" in qmifs[1]


def test_latex_is_booktabs_and_carries_every_rendering():
    tex = latex_table()
    assert tex.count(r"\toprule") == tex.count(r"\midrule") == tex.count(r"\bottomrule") == 1
    for m in default_methods():
        assert all(r.latex in tex for r in m.readings.values())
    assert tex.count(r"\\[0.4cm]") == 24
    # braces balance, so the table compiles as far as grouping goes
    assert tex.count("{") == tex.count("}")
    assert r"MIFS ($\beta\in[0,1]$)" in tex and r"mRMR &" in tex
