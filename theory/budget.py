"""A CPU-time budget for symbolic steps: a long sympy computation becomes a refusal, never a hang.

The engine runs sympy (solve, simplify, integrate, resultants) on expressions that come from
users' scenario files. Most take milliseconds; a few (``exp(exp(X))``, ``exp(1000*X)``, a rule of
high degree) can run for minutes. Every such step runs inside :func:`symbolic_budget`, which
interrupts it after ``seconds`` of the process's CPU time and raises :class:`SymbolicTimeout` with a
reason naming the step.

CPU time, not wall time: a step that other processes slow down gets the same budget, so whether
a value is refused does not depend on the machine's load. The interruption uses ``SIGPROF`` (the
profiling interval timer, which counts the process's user and system time), so it works in the
main thread of a POSIX process, where the command line and the tests run. Elsewhere (a worker thread, Windows) the
budget cannot interrupt and the step runs to its end; nested budgets keep the earliest deadline.

Examples
--------
>>> import sympy as sp
>>> x = sp.Symbol("x")
>>> with symbolic_budget(5, "factor x^2 - 1"):
...     sp.factor(x**2 - 1)
(x - 1)*(x + 1)
>>> import time
>>> try:
...     with symbolic_budget(0.05, "a slow step"):
...         while True:
...             pass
... except SymbolicTimeout as exc:
...     print(exc)
a slow step took longer than 0.05 s of CPU time (symbolic time budget)
"""

from __future__ import annotations

import contextlib
import signal
import threading
import time

__all__ = ["SymbolicTimeout", "symbolic_budget", "DEFAULT_SECONDS"]

#: budget of one symbolic step on user input, in seconds
DEFAULT_SECONDS = 10.0


class SymbolicTimeout(ArithmeticError):
    """A symbolic step that did not finish within its time budget."""

    def __init__(self, what: str, seconds: float):
        self.what, self.seconds = what, seconds
        super().__init__(f"{what} took longer than {seconds:g} s of CPU time (symbolic time "
                         f"budget)")


_active: list = []  # stack of (deadline, what, seconds), innermost last


def _can_interrupt() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


def _on_alarm(signum, frame):
    deadline, what, seconds = min(_active, key=lambda t: t[0])
    raise SymbolicTimeout(what, seconds)


@contextlib.contextmanager
def symbolic_budget(seconds: float = DEFAULT_SECONDS, what: str = "a symbolic step"):
    """Run the body with at most ``seconds`` of CPU time, else raise :class:`SymbolicTimeout`.

    Parameters
    ----------
    seconds : float
        The budget (> 0). Nested budgets: the earliest deadline wins, and the outer one is
        re-armed when the inner one ends.
    what : str
        The step, for the message ("solve g(y) = g(x) for X^3 - X").
    """
    if not _can_interrupt():
        yield
        return
    deadline = time.process_time() + seconds
    entry = (deadline, what, seconds)
    outermost = not _active
    if outermost:
        previous = signal.signal(signal.SIGPROF, _on_alarm)
    _active.append(entry)
    try:
        signal.setitimer(signal.ITIMER_PROF,
                         max(min(t[0] for t in _active) - time.process_time(), 1e-4))
        yield
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
        _active.remove(entry)
        if outermost:
            signal.signal(signal.SIGPROF, previous if previous is not None else signal.SIG_DFL)
        else:
            remaining = min(t[0] for t in _active) - time.process_time()
            signal.setitimer(signal.ITIMER_PROF, max(remaining, 1e-4))
