"""The one parallel runner: a function over a list of tasks, in this process, in local worker
processes (joblib's loky backend) or on a Dask cluster (joblib's dask backend).

:func:`run_tasks` serves the tables (:mod:`fstheory.reports.compute`), the atlas
(:mod:`fstheory.atlas.sweep`, :mod:`fstheory.atlas.report`, :mod:`fstheory.atlas.phase_map`),
the simulation study (:mod:`fstheory.simulation.study`) and the reference scripts. The results
come back in task order and do not depend on ``jobs`` or the scheduler: each task is a pure
function of its arguments.

Progress follows one protocol, :class:`Progress`: ``progress(label, done, total)``, called with
``done = 0`` before the first task and after each task (``done`` counts the tasks' weights).
Only the command line draws it (with :func:`progress_printer`); the library never writes to
stderr on its own.

Examples
--------
>>> run_tasks(abs, [-2, 3, -5])
[2, 3, 5]
>>> seen = []
>>> run_tasks(str, [1, 2], progress=lambda label, done, total: seen.append((label, done, total)),
...           label="digits")
['1', '2']
>>> seen
[('digits', 0, 2), ('digits', 1, 2), ('digits', 2, 2)]
"""

from __future__ import annotations

import os
import sys
from typing import Callable, Protocol, Sequence

__all__ = ["LOCAL_WORKERS_PER_CORE", "Progress", "progress_printer", "run_tasks"]

#: Local worker processes per core at most (``jobs`` larger than that is capped).
LOCAL_WORKERS_PER_CORE = 2


class Progress(Protocol):
    """What :func:`run_tasks` reports to: ``label`` names the work, ``done`` of ``total``."""

    def __call__(self, label: str, done: int, total: int) -> None: ...


def run_tasks(func: Callable, tasks: Sequence, *, jobs: int = 1, scheduler=None,
              progress: Progress | None = None, label: str = "tasks",
              weights: Sequence | None = None) -> list:
    """``[func(t) for t in tasks]``, in ``jobs`` worker processes.

    Parameters
    ----------
    func : picklable callable of one task (a module-level function)
    tasks : the tasks, picklable
    jobs : int
        Local worker processes (loky); 1 runs in this process; -1 uses every core. Never more
        than the tasks, nor more than :data:`LOCAL_WORKERS_PER_CORE` per core.
    scheduler : distributed.Client, optional
        A connected Dask client (:func:`fstheory.simulation.scheduler.connected` makes one from
        an address): the tasks run on its workers (joblib's dask backend; ``jobs`` 1 means all
        of them).
    progress : :class:`Progress`, optional
    label : str
        The name ``progress`` is given.
    weights : sequence of numbers, optional
        Each task's share of the work for ``progress`` (default 1 each).
    """
    weights = [1] * len(tasks) if weights is None else list(weights)
    total = int(sum(weights))
    done = 0

    def report():
        if progress is not None:
            progress(label, done, total)

    report()
    results = []
    if scheduler is None and jobs == 1:
        for task, w in zip(tasks, weights):
            results.append(func(task))
            done += w
            report()
        return results
    from joblib import Parallel, delayed, parallel_config

    if scheduler is not None:
        backend = parallel_config(backend="dask")
        jobs = -1 if jobs == 1 else jobs
    else:
        backend = parallel_config(backend="loky")
        cores = os.cpu_count() or 1
        jobs = cores if jobs == -1 else jobs
        jobs = max(1, min(jobs, len(tasks), LOCAL_WORKERS_PER_CORE * cores))
    with backend:
        # one task per dispatch: the tasks are coarse, of very unequal cost, and the generator
        # hands each result over as it comes, in order
        gen = Parallel(n_jobs=jobs, batch_size=1, return_as="generator")(
            delayed(func)(t) for t in tasks)
        for res, w in zip(gen, weights):
            results.append(res)
            done += w
            report()
    return results


def progress_printer(prefix: str, stream=None):
    """The one drawing of :class:`Progress` on stderr, for the command line's entry points only
    (``fstheory``, ``python -m fstheory.atlas.report``): on a terminal one updating line
    ``prefix: label [####....] 42.0%``; otherwise a line ``prefix: label done/total`` at the
    start, at each tenth of the work passed and at the end."""
    stream = stream or sys.stderr
    tty = stream.isatty()
    shown = {}  # label -> the last tenth written (off a terminal)

    def show(label: str, done: int, total: int) -> None:
        if tty:
            frac = done / total if total else 1.0
            filled = int(30 * frac)
            stream.write(f"\r\033[K{prefix}: {label} [{'#' * filled}{'.' * (30 - filled)}] "
                         f"{100 * frac:5.1f}%" + ("\n" if done >= total else ""))
        else:
            tenth = 10 * done // total if total else 10
            if done == 0 or done == total or tenth > shown.get(label, 0):
                stream.write(f"{prefix}: {label} {done}/{total}\n")
            shown[label] = 0 if done == total else tenth
        stream.flush()

    return show
