"""Phase-diagram figures (matplotlib, PNG and PDF) and their data (JSON), written atomically and
byte-identically on regeneration (fixed metadata, no timestamps, Agg backend, DejaVu Sans).

What the figure shows, so that it reads without the JSON:

* a title (the caller's: scenario, method and fixed parameters on the command line);
* each column of the map as a vertical strip coloured by the ordering of each region of its
  partition; a region that is a single value of the swept parameter (an ordering that holds
  only on the line beta = 0, say) is drawn as a thick line in its colour, over the axis where it
  lies on it, and the legend says "only on a line";
* a region hatched when, in its column, the ordering's first features form a relevance-optimal
  set (:meth:`~fstheory.atlas.phase_map.PhaseMap.region_optimal`: per column, never per
  ordering), and left plain otherwise or where the sets are unknown;
* the boundary curves (located breakpoints joined across columns) as black lines, numbered, the
  numbers explained in the legend with their causes;
* the legend in its own panel beside the map (every entry inside the figure): each ordering by
  as many of its first features as tell it from the others, and where it stops.
"""

from __future__ import annotations

import json
from pathlib import Path

import mpmath

from fstheory.atlas.phase_map import PhaseMap
from fstheory.reports.atomic import write_together

__all__ = ["write_map", "write_atomic", "MAP_SUFFIXES"]

_PNG_META = {"Software": None}
_PDF_META = {"Creator": None, "Producer": None, "CreationDate": None}


def write_atomic(path: Path, data: bytes) -> Path:
    """Write ``data`` to ``path`` through a temporary file in the same folder and a rename
    (:func:`fstheory.reports.atomic.write_together`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_together({path: data})[0]


def _float(x) -> float:
    return float(mpmath.mpf(x)) if not hasattr(x, "p") else float(x)


#: eight diagonal lines per inch (9 pt apart along x): every cell of a column crosses one (41
#: columns over the map's width are 9.9 pt wide), so no hatched cell can look plain
_HATCH = "////////"


def ordering_texts(pm: PhaseMap) -> list[str]:
    """One legend text per ordering of ``pm`` (in :meth:`PhaseMap.orderings` order): its first
    features, at least four and as many as tell it from every other ordering, then '...' if
    more follow, and where it stops."""
    orders = pm.orderings()
    texts = []
    for o, stopped in orders:
        n = min(4, len(o))
        while n < len(o) and any(p[:n] == o[:n] for p, _ in orders if p != o):
            n += 1
        text = ", ".join(pm.labels[k] for k in o[:n]) + (", ..." if n < len(o) else "")
        texts.append(text + (f" (stops after {len(o)})" if stopped else ""))
    return texts


def _only_on_lines(pm: PhaseMap) -> dict:
    """ordering -> the values of the swept parameter where it holds, for the orderings every
    region of which is a single value (a line across the columns)."""
    wide = {(r.order, r.stopped) for _, res in pm.columns for r in res.regions if r.hi != r.lo}
    out: dict = {}
    for _, res in pm.columns:
        for r in res.regions:
            key = (r.order, r.stopped)
            if key not in wide:
                out.setdefault(key, set()).add(_float(r.lo))
    return out


def _boundaries(pm: PhaseMap) -> list[tuple[str, list]]:
    """(cause, [curve points, ...]) per distinct cause, in order of first appearance."""
    out: dict = {}
    for c in pm.curves():
        out.setdefault(c["cause"], []).append([(float(x), float(y)) for x, y in c["points"]])
    return list(out.items())


def _palette(n: int):
    """Colours for n orderings: tab10 without its grey (it reads as 'no data'), tab20 beyond."""
    import matplotlib.pyplot as plt
    from matplotlib.colors import ListedColormap

    if n > 9:
        return plt.get_cmap("tab20")
    tab10 = plt.get_cmap("tab10")
    return ListedColormap([tab10(i) for i in (0, 1, 2, 3, 4, 5, 6, 8, 9)])


def _unit(point, frame) -> tuple[float, float]:
    x0, x1, y0, y1 = frame
    return (point[0] - x0) / (x1 - x0), (point[1] - y0) / (y1 - y0)


def _label_spot(points, frame, placed, others):
    """Where to number a boundary: the point of it with the most room (in the map's unit square:
    away from the numbers already placed and from the other boundaries' points, where curves
    meet), off the bottom and top edges; a point on the left or right edge is numbered a little
    inside. None for a boundary that lies along the bottom or top edge."""
    best = None
    for p in points:
        u, v = _unit(p, frame)
        if not 0.01 < v < 0.99:
            continue
        room = min([abs(u - a) + abs(v - b) for a, b in placed]
                   + [2 * (abs(u - a) + abs(v - b)) for a, b in others] + [2.0])
        room -= 0.3 * (u < 0.01 or u > 0.99)  # on a side edge: only if nothing better
        room -= 0.05 * (v < 0.04)  # beside the lines drawn along the bottom edge
        if best is None or room > best[0] + 1e-12:
            best = (room, p, u)
    if best is None:
        return None
    _, p, u = best
    return p, ((9 if u < 0.01 else -9 if u > 0.99 else 0), 0)


def _wrap(text: str, width: int) -> str:
    import textwrap

    return "\n".join(textwrap.wrap(text, width)) or text


def figure(pm: PhaseMap, title: str | None = None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.lines import Line2D
    from matplotlib.patches import Patch, Rectangle

    plt.rcParams.update({"font.family": "DejaVu Sans", "svg.hashsalt": "fstheory",
                         "pdf.compression": 6, "path.simplify": False, "hatch.color": "#3a3a3a",
                         "hatch.linewidth": 0.35})
    orders = pm.orderings()
    texts = ordering_texts(pm)
    lines_only = _only_on_lines(pm)
    cmap = _palette(len(orders))
    fig = plt.figure(figsize=(11.0, 6.2), dpi=150)
    ax = fig.add_axes((0.07, 0.10, 0.50, 0.76))
    panel = fig.add_axes((0.60, 0.02, 0.39, 0.90))
    panel.set_axis_off()
    xs = [_float(x) for x, _ in pm.columns]
    edges = [xs[0]] + [(a + b) / 2 for a, b in zip(xs, xs[1:])] + [xs[-1]]
    ylo, yhi = _float(pm.y.lo), _float(pm.y.hi)
    for j, (_, res) in enumerate(pm.columns):
        for r in res.regions:
            i = orders.index((r.order, r.stopped))
            y0, y1 = _float(r.lo), _float(r.hi)
            if y1 > y0:
                opt = pm.region_optimal(j, r.order)
                ax.add_patch(Rectangle((edges[j], y0), edges[j + 1] - edges[j], y1 - y0,
                                       facecolor=cmap(i % cmap.N), edgecolor="none",
                                       hatch=_HATCH if opt else None, linewidth=0, zorder=1))
            else:  # a region that is one value of the swept parameter: a line, over the axis
                ax.plot([edges[j], edges[j + 1]], [y0, y0], color=cmap(i % cmap.N), linewidth=4,
                        solid_capstyle="butt", zorder=4, clip_on=False)
    boundaries = _boundaries(pm)
    frame = (xs[0], xs[-1], ylo, yhi)
    placed: list = []
    for n, (_, curves) in enumerate(boundaries, 1):
        for pts in curves:
            if len(pts) == 1:  # a boundary at one column only: a point
                ax.plot([pts[0][0]], [pts[0][1]], "o", color="black", markersize=2.5, zorder=3,
                        clip_on=False)
            else:
                ax.plot([p[0] for p in pts], [p[1] for p in pts], color="black", linewidth=0.9,
                        zorder=3)
        others = [_unit(p, frame) for m, (_, cs) in enumerate(boundaries, 1) if m != n
                  for pts in cs for p in pts]
        spot = _label_spot([p for pts in curves for p in pts], frame, placed, others)
        if spot is not None:  # a boundary along the bottom or top edge: the legend tells it
            (mx, my), offset = spot
            placed.append(_unit((mx, my), frame))
            ax.annotate(str(n), (mx, my), xytext=offset, textcoords="offset points", fontsize=7,
                        ha="center", va="center", zorder=5, annotation_clip=False,
                        bbox={"boxstyle": "circle,pad=0.15", "fc": "white", "ec": "black",
                              "lw": 0.6})
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(ylo, yhi)
    ax.set_xlabel(pm.x.parameter)
    ax.set_ylabel(pm.y.parameter)
    if title:
        ax.set_title(title, fontsize=9)
    handles = []
    for i, key in enumerate(orders):
        label = _wrap(f"{i}: {texts[i]}", 58)
        if key in lines_only:
            at = sorted(lines_only[key])
            where = (f"{pm.y.parameter} = {at[0]:g}" if len(at) == 1 else
                     f"{len(at)} values of {pm.y.parameter}")
            handles.append(Line2D([], [], color=cmap(i % cmap.N), linewidth=4,
                                  label=label + f"\n    (only at {where}: drawn as a line)"))
        else:
            handles.append(Patch(facecolor=cmap(i % cmap.N), label=label))
    if pm.column_sets:
        handles.append(Patch(facecolor="white", edgecolor="#3a3a3a", hatch=_HATCH, linewidth=0.5,
                             label="hatched: in that column, the ordering's first features\n"
                                   "form a relevance-optimal set"))
    first = panel.legend(handles=handles, loc="upper left", bbox_to_anchor=(0.0, 1.0),
                         fontsize=6.5, frameon=False, title="orderings (first features)",
                         title_fontsize=7, alignment="left", handlelength=2.2)
    panel.add_artist(first)
    if boundaries:
        bhandles = [Line2D([], [], color="black", linewidth=0.9,
                           label=_wrap(f"{n}: {cause}", 58))
                    for n, (cause, _) in enumerate(boundaries, 1)]
        panel.legend(handles=bhandles, loc="lower left", bbox_to_anchor=(0.0, 0.0), fontsize=6.5,
                     frameon=False, title="boundaries (numbered on the map)", title_fontsize=7,
                     alignment="left", handlelength=2.2)
    return fig


#: the files of a phase diagram, after its stem
MAP_SUFFIXES = (".png", ".pdf", ".json")


def write_map(pm: PhaseMap, stem, title: str | None = None) -> list[Path]:
    """``stem.png``, ``stem.pdf`` (the figure) and ``stem.json`` (orderings, regions per column,
    boundary curves), written as one set (:func:`fstheory.reports.atomic.write_together`: an
    interruption leaves the three previous files, or the three new ones)."""
    import io

    import matplotlib.pyplot as plt

    stem = Path(stem)
    stem.parent.mkdir(parents=True, exist_ok=True)
    fig = figure(pm, title)
    files = {}
    try:
        for ext, meta in (("png", _PNG_META), ("pdf", _PDF_META)):
            buf = io.BytesIO()
            fig.savefig(buf, format=ext, metadata=meta)
            files[stem.with_name(f"{stem.name}.{ext}")] = buf.getvalue()
    finally:
        plt.close(fig)
    text = json.dumps(pm.to_json(), indent=1, ensure_ascii=False) + "\n"
    files[stem.with_name(f"{stem.name}.json")] = text.encode("utf-8")
    return write_together(files)
