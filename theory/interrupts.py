"""arb's integrator with a Python integrand that Ctrl-C, SIGTERM and errors end cleanly.

python-flint's ``acb.integral`` calls the Python integrand from C. It keeps a ``TypeError`` or
``ValueError`` the integrand raises and raises it again when arb has finished, which takes up to
arb's whole evaluation limit (every later evaluation is indeterminate: seconds). Any other
exception -- the ``KeyboardInterrupt`` of Ctrl-C, the command line's SIGTERM exception, the
``SymbolicTimeout`` of SIGPROF, a ``MemoryError`` -- stays set while arb goes on calling the
integrand, and ends as ``SystemError: ... returned a result with an exception set`` (an internal
error instead of exit code 130) or is lost.

:func:`acb_integral` is ``acb.integral`` without that defect; every call of arb's integrator in
fstheory goes through it:

* while arb runs (main thread), the handlers of SIGINT, SIGTERM, SIGALRM and SIGPROF that are Python
  functions only record the signal (a default action, such as SIGTERM's outside the command
  line, still ends the process at once);
* the integrand is wrapped: once a signal is recorded or the integrand has raised, every further
  evaluation returns 0 without calling it, so arb finishes at once (a zero integrand converges at
  its first step), and nothing is ever raised into C;
* when arb returns, the handlers are put back and a recorded signal is passed to its handler
  (which raises ``KeyboardInterrupt``, ...), else the integrand's exception is raised again; the
  value arb computed meanwhile is discarded.

So the exception is raised in Python code, where the cleanup of any interruption runs (the
staged output of :mod:`fstheory.reports.atomic`). A nested call (an integrand that integrates)
hands a recorded signal outwards; the outermost call delivers it. A handler left recording by
an interruption of the restore itself behaves as the handler it replaced.

Examples
--------
>>> v = acb_integral(lambda z, analytic: z * z, 0, 3)
>>> v.real.contains(9), v.rad() < 1e-12
(True, True)
>>> def f(z, analytic):
...     raise ZeroDivisionError("from the integrand")
>>> acb_integral(f, 0, 1)
Traceback (most recent call last):
...
ZeroDivisionError: from the integrand
"""

from __future__ import annotations

import contextlib
import signal
import threading

__all__ = ["acb_integral", "signals_held", "interrupted"]

#: signals whose Python handlers are held back while arb runs
DEFERRED_SIGNALS = tuple(getattr(signal, n) for n in ("SIGINT", "SIGTERM", "SIGALRM", "SIGPROF")
                         if hasattr(signal, n))

_depth = 0  # acb_integral calls running in the main thread (nested ones included)
_pending: list = []  # signals recorded while arb ran, in order of arrival
_handlers: dict = {}  # signal -> the handler it had when the outermost call began


class _Abandoned(BaseException):
    """A nested integral stopped by a recorded signal: unwinds the outer integrand (caught there)
    so that the outermost call delivers the signal."""


def _record(signum, frame):
    if _depth:
        _pending.append(signum)
        return
    handler = _handlers.get(signum)  # left installed by an interrupted restore
    if callable(handler):
        handler(signum, frame)


def _install() -> None:
    for sig in DEFERRED_SIGNALS:
        handler = signal.getsignal(sig)
        if handler is _record:
            continue
        if callable(handler):
            _handlers[sig] = handler
            signal.signal(sig, _record)
        else:
            _handlers.pop(sig, None)


def _restore() -> None:
    for sig, handler in list(_handlers.items()):
        if signal.getsignal(sig) is _record:
            signal.signal(sig, handler)


def _deliver() -> bool:
    """Pass the first recorded signal to its handler; True when the handler returned."""
    signum = _pending[0]
    _pending.clear()
    handler = _handlers.get(signum)
    if callable(handler):
        handler(signum, None)
        return True
    return False


def interrupted() -> bool:
    """Whether a signal was recorded while arb runs (an integrand doing long work of its own
    between arb's calls may stop early: its value is discarded)."""
    return bool(_pending)


@contextlib.contextmanager
def signals_held():
    """Inside the block (main thread), the Python handlers of SIGINT, SIGTERM, SIGALRM and SIGPROF only
    record the signal; when the block ends, the handlers are put back and the first recorded
    signal is passed to its handler (which raises ``KeyboardInterrupt``, ...). Nested blocks
    (and :func:`acb_integral` inside one) leave the delivery to the outermost.

    A Python-level hold, unlike blocking the signal with ``pthread_sigmask``: in a process with
    other threads the kernel may deliver the signal to one of them, whose C handler still has
    the main thread raise at once.

    Yields
    ------
    list
        The signals recorded so far (empty while nothing arrived).
    """
    global _depth
    if threading.current_thread() is not threading.main_thread():
        yield []
        return
    outermost = _depth == 0
    if outermost:
        _pending.clear()
    _depth += 1
    try:
        if outermost:
            _install()
        yield _pending
    finally:
        try:
            if outermost:
                _restore()
        finally:
            _depth -= 1
        if outermost and _pending:
            _deliver()


def acb_integral(func, a, b, **options):
    """``acb.integral(func, a, b, **options)`` (same arguments and value), ended cleanly by a
    signal or by an exception of ``func`` (module docstring).

    Raises
    ------
    BaseException
        What the handler of a signal received meanwhile raises (``KeyboardInterrupt``, ...),
        else the exception ``func`` raised, else what ``acb.integral`` itself raises.
    """
    from flint import acb

    main = threading.current_thread() is threading.main_thread()
    failure: list = []
    zero = acb(0)

    while True:
        with signals_held() as stop:

            def guarded(z, analytic):
                if failure or stop:
                    return zero
                try:
                    value = func(z, analytic)
                    return value if isinstance(value, acb) else acb(value)
                except BaseException as exc:  # noqa: B036 - re-raised after arb returns
                    failure.append(exc)
                    return zero

            value = acb.integral(guarded, a, b, **options)
            interrupted = bool(stop)
        # here a recorded signal was delivered (and raised) by the outermost hold; a nested call
        # unwinds its caller's integrand, and one whose handler only took note integrates again
        if main and _depth and _pending:
            raise _Abandoned()
        if not interrupted:
            break
        failure.clear()
    if failure:
        raise failure[0]
    return value
