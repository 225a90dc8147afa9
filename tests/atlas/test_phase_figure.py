"""The phase diagram of `fstheory atlas ... --vary k --vary beta --out STEM` reads without its
JSON: a title, a distinct legend label per ordering, orderings that hold only on a line drawn as
lines, a hatch that marks exactly the cells whose column finds the first features
relevance-optimal (visible in every such cell), numbered boundary curves explained in a legend
that fits in the figure. The map here is made up (no computing): 41 columns over k in [0, 1]."""

from __future__ import annotations

import io
import re
from pathlib import Path

import numpy as np
import pytest
import sympy as sp

from fstheory.atlas.figures import figure, ordering_texts
from fstheory.atlas.phase_map import PhaseMap
from fstheory.atlas.sweep import AtlasResult, AtlasSpec, Breakpoint, Region
from fstheory.cli import main

LABELS = ("X", "3X+1", "Y^2", "X-Y", "Z", "Z^2", "Y", "X^2", "W+2", "Z+W")
X, X3, Y2, XY, Z, Z2, Y, X2, W2, ZW = range(10)
# A and B share their first five features; C and D stop, D is C continued; C holds at beta = 0
A = ((X, XY, Z, W2, ZW, Y2, X3, X2), True)
B = ((X, XY, Z, W2, ZW, Y, X3, Y2, X2), True)
C = ((X, XY, Y, Z, W2, ZW), True)
D = ((X, XY, Y, Z, W2, ZW, X3, Y2, X2), True)
E = ((X, Y, Z, W2, ZW, XY, X3, Y2, X2), True)
N = 41


def _column(j: int, boundaries: bool = True):
    k = sp.Rational(j, N - 1)
    spec = AtlasSpec(method="mifs-u", parameter="beta", lo="0", hi="1", scenario="normal")
    r = sp.Rational
    # cuts: C on beta = 0 only; D up to c1; B a small cell (c1, c1 + 1/80); A up to c2; E above
    c1 = r(1, 5) + r(j, 200)
    c2 = r(4, 5) - r(j, 400)
    regions = [Region(r(0), r(0), *C, r(0)), Region(r(0), c1, *D, c1 / 2),
               Region(c1, c1 + r(1, 80), *B, c1), Region(c1 + r(1, 80), c2, *A, c2 / 2),
               Region(c2, r(1), *E, c2)]
    bps = [Breakpoint(r(0), 3, "beta = 0 exactly (0*inf)", ("Y", "Z"), "value"),
           Breakpoint(c1, 6, "", ("Y", "Y^2"), "crossing"),
           Breakpoint(c1 + r(1, 80), 6, "", ("Y^2", "Y"), "crossing"),
           Breakpoint(c2, 2, "", ("X-Y", "Y"), "crossing")]
    return k, AtlasResult(spec, LABELS, "MIFS-U (beta varied)", bps if boundaries else [],
                          regions, [])


def made_up_map(sets=None, boundaries: bool = True) -> PhaseMap:
    x = AtlasSpec(method="mifs-u", parameter="k", lo="0", hi="1", scenario="normal")
    y = AtlasSpec(method="mifs-u", parameter="beta", lo="0", hi="1", scenario="normal")
    optimal = (frozenset({X, XY}), frozenset({X, Y}))
    # B's first pair {X, X-Y} is optimal on the left half only; D's too; E's {X, Y} everywhere
    column_sets = sets or [optimal if j < N // 2 else (frozenset({X, Y}),) for j in range(N)]
    return PhaseMap(x, y, [_column(j, boundaries) for j in range(N)], LABELS, column_sets)


def _draw(pm):
    fig = figure(pm, "Scenario II: X, Y, Z, W i.i.d. N(0, sigma^2)\nMIFS-U")
    buf = io.BytesIO()
    fig.savefig(buf, format="png")
    fig.canvas.draw()
    return fig, np.asarray(fig.canvas.buffer_rgba())[:, :, :3].astype(int)


@pytest.fixture(scope="module")
def drawn():
    import matplotlib.pyplot as plt

    pm = made_up_map()
    fig, image = _draw(pm)
    yield pm, fig, image
    plt.close(fig)


@pytest.fixture(scope="module")
def drawn_without_boundaries():
    import matplotlib.pyplot as plt

    pm = made_up_map(boundaries=False)
    fig, image = _draw(pm)
    yield pm, fig, image
    plt.close(fig)


def _legend_texts(fig) -> list[str]:
    return [t.get_text() for ax in fig.axes for lg in [ax.get_legend()] + [
        a for a in ax.artists if a.__class__.__name__ == "Legend"] if lg is not None
        for t in lg.get_texts()]


def test_each_ordering_has_its_own_label_saying_where_it_stops(drawn):
    pm, fig, _ = drawn
    texts = ordering_texts(pm)
    assert len(set(texts)) == len(texts) == 5
    order = pm.orderings()
    a, b, c, d = (texts[order.index(key)] for key in (A, B, C, D))
    assert a.startswith("X, X-Y, Z, W+2, Z+W, Y^2") and b.startswith("X, X-Y, Z, W+2, Z+W, Y,")
    assert c == "X, X-Y, Y, Z, W+2, Z+W (stops after 6)"
    assert d == "X, X-Y, Y, Z, W+2, Z+W, 3X+1, ... (stops after 9)"
    legend = " ".join(_legend_texts(fig))
    for i, t in enumerate(texts):
        assert f"{i}: {t}".split(",")[0] in legend


def test_an_ordering_on_the_line_beta_0_only_is_drawn_as_a_line_and_said_so(drawn):
    pm, fig, image = drawn
    ax = fig.axes[0]
    i = pm.orderings().index(C)
    lines = [ln for ln in ax.get_lines() if ln.get_linewidth() >= 3
             and set(ln.get_ydata()) == {0.0}]
    assert len(lines) == N  # one segment per column
    assert "(only at beta = 0: drawn as a line)" in " ".join(_legend_texts(fig))
    # visible: along the bottom edge of the map, the pixels have C's colour
    colour = np.array(lines[0].get_color()[:3]) * 255 if not isinstance(lines[0].get_color(), str) \
        else None
    (x0, y0), (x1, _) = ax.transData.transform([(0.1, 0), (0.9, 0)])
    h = image.shape[0]
    row = image[int(round(h - y0)) - 1, int(x0):int(x1)]
    assert colour is not None and np.all(np.abs(row - colour).max(axis=1) < 40), i


def test_the_hatch_marks_exactly_the_optimal_cells_and_shows_in_each(drawn_without_boundaries):
    """B's small cells (1/41 wide, 1/80 high) are optimal on the left half only: hatched there,
    and the hatch visible in every one of them; plain on the right half (the map drawn without
    its boundary curves, whose black lines run along the cells)."""
    pm, fig, image = drawn_without_boundaries
    ax = fig.axes[0]
    h = image.shape[0]
    for j, (_, res) in enumerate(pm.columns):
        region = next(r for r in res.regions if (r.order, r.stopped) == B)
        optimal = pm.region_optimal(j, region.order)
        assert optimal == (j < N // 2)
        x0, x1 = (float(sp.Rational(j, N - 1)) + d / (N - 1) for d in (-0.45, 0.45))
        x0, x1 = max(x0, 0.0), min(x1, 1.0)
        (px0, py0), (px1, py1) = ax.transData.transform([(x0, float(region.lo)),
                                                         (x1, float(region.hi))])
        cell = image[int(h - py1) + 2:int(h - py0) - 2, int(px0) + 1:int(px1) - 1]
        dark = (cell.sum(axis=2) < 200).any()
        assert dark == optimal, (j, optimal)


def test_boundaries_are_numbered_and_explained_once_each(drawn):
    pm, fig, _ = drawn
    numbers = sorted(t.get_text() for t in fig.axes[0].texts)
    causes = {c["cause"] for c in pm.curves()}
    assert len(causes) == 4  # beta = 0, and three crossings
    assert numbers == ["2", "3", "4"]  # the one along the bottom edge is told by the legend alone
    legend = _legend_texts(fig)
    for n, cause in enumerate(["beta = 0 exactly (0*inf)", "objectives of Y and Y^2 cross at step 6",
                               "objectives of Y^2 and Y cross at step 6",
                               "objectives of X-Y and Y cross at step 2"], 1):
        assert sum(t.replace("\n", " ") == f"{n}: {cause}" for t in legend) == 1


def test_the_title_and_every_legend_entry_fit_in_the_figure(drawn):
    _, fig, _ = drawn
    renderer = fig.canvas.get_renderer()
    box = fig.bbox
    assert fig.axes[0].get_title().startswith("Scenario II")
    legends = [a for ax in fig.axes for a in [ax.get_legend(), *ax.artists]
               if a is not None and a.__class__.__name__ == "Legend"]
    assert len(legends) == 2
    for lg in legends:
        e = lg.get_window_extent(renderer)
        assert box.x0 <= e.x0 and e.x1 <= box.x1 and box.y0 <= e.y0 and e.y1 <= box.y1


def test_the_command_line_map_has_a_title_with_scenario_and_method():
    from fstheory.atlas.cli import map_title

    spec = AtlasSpec(method="mifs-u", parameter="k", lo="0", hi="1", scenario="normal",
                     fixed=(("sigma", "2"),))
    assert map_title(spec) == "Scenario II: X, Y, Z, W i.i.d. N(0, sigma^2)\nMIFS-U (sigma=2)"


def test_the_readme_recipe_runs_as_written(capsys, monkeypatch):
    """The README's map command, up to the computing (stubbed): accepted; --beta with --vary beta
    is refused saying what to do."""
    readme = Path(__file__).resolve().parents[2].joinpath("README.md").read_text()
    m = re.search(r"`fstheory (atlas --scenario normal --method mifs-u\s+--vary k --vary beta "
                  r"--out map)`", readme)
    assert m, "the README shows the map command"
    argv = m.group(1).split()
    seen = []

    def stub(specs, **kwargs):
        seen.append([s.parameter for s in specs])
        raise KeyboardInterrupt  # stop before any computing

    monkeypatch.setattr("fstheory.atlas.phase_map.phase_map", stub)
    assert main(argv) == 130 and seen == [["k", "beta"]]
    capsys.readouterr()
    assert main(argv + ["--beta", "0.7"]) == 2
    err = capsys.readouterr().err
    assert "(--beta 0.7): drop --beta to vary it" in err
