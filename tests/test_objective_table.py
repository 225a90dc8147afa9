"""The objective table rendered from the registry (LaTeX booktabs and Markdown)."""

from fstheory.orderings.methods import METHODS
from fstheory.orderings.objective_table import latex_table, markdown_table


def test_markdown_has_one_row_per_method_reading():
    lines = markdown_table().splitlines()
    body = lines[2:]
    expected = sum(2 if m.readings_differ else 1 for m in METHODS.values())
    assert len(body) == expected == 12
    for m in METHODS.values():
        rows = [r for r in body if r.startswith(f"| {m.display} |")]
        assert len(rows) == (2 if m.readings_differ else 1)
        assert any(m.readings["table"].plain.replace("|", "\\|") in r for r in rows)
    # bare pipes only as cell separators: every row has exactly 5
    assert all(r.replace("\\|", "").count("|") == 5 for r in lines)
    qmifs = [r for r in body if r.startswith("| QMIFS |")]
    assert "text (default)" in qmifs[1] and "eq. (redQMIFS)" in qmifs[1]


def test_latex_is_booktabs_and_carries_every_rendering():
    tex = latex_table()
    assert tex.count(r"\toprule") == tex.count(r"\midrule") == tex.count(r"\bottomrule") == 1
    for m in METHODS.values():
        assert m.readings["table"].latex in tex
        assert m.readings["text"].latex in tex
    assert tex.count(r"\\[0.4cm]") == 12
    # braces balance, so the table compiles as far as grouping goes
    assert tex.count("{") == tex.count("}")
    assert r"MIFS ($\beta\in[0,1]$)" in tex and r"mRMR &" in tex
