"""Phase-diagram figures (matplotlib, PNG and PDF) and their data (JSON), written atomically and
byte-identically on regeneration (fixed metadata, no timestamps, Agg backend, DejaVu Sans).

Each column of the map is drawn as a vertical strip coloured by the ordering of each region of
its partition; regions whose first features form a relevance-optimal set of their column
(:meth:`~fstheory.atlas.phase_map.PhaseMap.region_optimal`) are hatched, and the legend says
so; the boundary curves (located breakpoints joined across columns) are drawn as black lines.
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


def figure(pm: PhaseMap, title: str | None = None):
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    from matplotlib.patches import Patch, Rectangle

    plt.rcParams.update({"font.family": "DejaVu Sans", "svg.hashsalt": "fstheory",
                         "pdf.compression": 6, "path.simplify": False, "hatch.color": "black",
                         "hatch.linewidth": 0.6})
    orders = pm.orderings()
    cmap = plt.get_cmap("tab20")
    fig, ax = plt.subplots(figsize=(8.0, 5.6), dpi=150)
    xs = [_float(x) for x, _ in pm.columns]
    edges = [xs[0]] + [(a + b) / 2 for a, b in zip(xs, xs[1:])] + [xs[-1]]
    for j, (_, res) in enumerate(pm.columns):
        for r in res.regions:
            i = orders.index((r.order, r.stopped))
            y0, y1 = _float(r.lo), _float(r.hi)
            opt = pm.region_optimal(j, r.order)
            ax.add_patch(Rectangle((edges[j], y0), edges[j + 1] - edges[j], max(y1 - y0, 1e-3),
                                   facecolor=cmap(i % 20), edgecolor="none",
                                   hatch="///" if opt else None, linewidth=0))
    for c in pm.curves():
        pts = [(float(x), float(y)) for x, y in c["points"]]
        ax.plot([p[0] for p in pts], [p[1] for p in pts], color="black", linewidth=0.8)
    ax.set_xlim(xs[0], xs[-1])
    ax.set_ylim(_float(pm.y.lo), _float(pm.y.hi))
    ax.set_xlabel(pm.x.parameter)
    ax.set_ylabel(pm.y.parameter)
    if title:
        ax.set_title(title, fontsize=10)
    handles = []
    for i, (o, st) in enumerate(orders):
        text = ", ".join(pm.labels[k] for k in o[:4]) + (" ..." if len(o) > 4 else "")
        text += " (stops)" if st else ""
        handles.append(Patch(facecolor=cmap(i % 20), label=f"{i}: {text}"))
    if pm.column_sets:
        handles.append(Patch(facecolor="white", edgecolor="black", hatch="///", linewidth=0.5,
                             label="hatched: the first features form a\nrelevance-optimal set "
                                   "of the column\n(relevance_optimal_sets)"))
    ax.legend(handles=handles, fontsize=6, loc="upper left", bbox_to_anchor=(1.01, 1.0),
              title="ordering (first 4)", title_fontsize=6, frameon=False)
    fig.tight_layout()
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
