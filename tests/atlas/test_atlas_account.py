"""The account in reports/atlas/README.md states what the committed atlas files hold: for every
row of its certificate table that names one file, the number of rows, whether all are
certified, the cells proved and that none rests on an assumption; and the number of certified
crossings it quotes."""

from __future__ import annotations

import json
import re
from pathlib import Path

ATLAS = Path(__file__).resolve().parents[2] / "reports" / "atlas"
README = (ATLAS / "README.md").read_text(encoding="utf-8")
# | what (`stem`) | N rows | all N[, ...] | cells[ (DISR d)] |
ROW = re.compile(r"^\| [^|]*\(`(\w+)`\) \| (\d+) rows \| all (\d+)[^|]* \| (\d+)(?: \(DISR (\d+)\))? \|$",
                 re.M)


def _rows(stem):
    data = json.loads((ATLAS / f"{stem}.json").read_text(encoding="utf-8"))
    return data if isinstance(data, list) else data["rows"]


def test_certificate_table_matches_the_files():
    found = ROW.findall(README)
    assert {f[0] for f in found} >= {"k_uniform", "delta_uniform", "k_normal", "sigma_normal",
                                     "k_laplace", "k3d_uniform", "k3d_normal", "k3d_laplace"}
    for stem, n, n_all, cells, disr in found:
        rows = _rows(stem)
        assert len(rows) == int(n) == int(n_all), stem
        assert all(r["certificate"]["certified"] for r in rows), stem
        assert sum(r["certificate"]["cells"] for r in rows) == int(cells), stem
        if disr:
            (d,) = [r for r in rows if r["method"].startswith("DISR")]
            assert d["certificate"]["cells"] == int(disr)


def test_no_certificate_rests_on_an_assumption():
    # every input of the committed results is enclosed (the constant MI(Y^2, X-Y) too), so no
    # certificate lists an assumption and the account's table qualifies none
    for stem, _, _, _, _ in ROW.findall(README):
        assert not any(r["certificate"].get("assumptions") for r in _rows(stem)), stem
    assert "given one constant" not in README


def test_quoted_crossing_counts():
    m = re.search(r"each\s+of the (\d+) crossings located in the 2-D rows and the (\d+) in\s+the "
                  r"3-D rows", README)
    assert m, "the account no longer quotes the crossing counts"
    two_d = sum(len(r["certificate"]["brackets"]) for s in ("k_uniform", "delta_uniform",
                                                            "k_normal", "sigma_normal", "k_laplace")
                for r in _rows(s))
    three_d = sum(len(r["certificate"]["brackets"])
                  for s in ("k3d_uniform", "k3d_normal", "k3d_laplace") for r in _rows(s))
    assert (int(m.group(1)), int(m.group(2))) == (two_d, three_d)
