"""How a run ends on a signal: SIGTERM raised as an exception, like Ctrl-C's KeyboardInterrupt,
so that cleanup code runs (joblib stops its worker processes, staged outputs are removed); the
exit codes 130 (Ctrl-C) and 143 (SIGTERM). Shared by the command line and the report drivers.
"""

from __future__ import annotations

import os
import signal
import sys
import threading
from contextlib import contextmanager

__all__ = ["EXIT_INTERRUPTED", "EXIT_TERMINATED", "Terminated", "interruption_behind",
           "sigterm_raises", "exit_code", "run_program"]

EXIT_INTERRUPTED = 130
EXIT_TERMINATED = 143


class Terminated(BaseException):
    """SIGTERM received (a BaseException, like KeyboardInterrupt, so cleanup code runs)."""


def _raise_terminated(signum, frame):
    raise Terminated()


@contextmanager
def sigterm_raises():
    """Within the block, SIGTERM raises :class:`Terminated` (main thread only; elsewhere Python
    cannot install a handler and the block runs unchanged)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return
    old = signal.signal(signal.SIGTERM, _raise_terminated)
    try:
        yield
    finally:
        signal.signal(signal.SIGTERM, old)


def interruption_behind(exc: BaseException) -> BaseException | None:
    """The KeyboardInterrupt or SIGTERM exception in the chain of causes and contexts of
    ``exc`` (a C extension that calls back into Python may raise SystemError over it)."""
    seen = set()
    while exc is not None and id(exc) not in seen:
        if isinstance(exc, (KeyboardInterrupt, Terminated)):
            return exc
        seen.add(id(exc))
        exc = exc.__cause__ or exc.__context__
    return None


def exit_code(exc: BaseException, prog: str) -> int:
    """Say on stderr how the run was interrupted; its exit code (130 Ctrl-C, 143 SIGTERM)."""
    if isinstance(exc, Terminated):
        print(f"{prog}: terminated", file=sys.stderr)
        return EXIT_TERMINATED
    print(f"{prog}: interrupted", file=sys.stderr)
    return EXIT_INTERRUPTED


def _exit_at_once(sig, prog: str) -> None:
    """Let ``sig`` end the process at once with its exit code and one line (no cleanup: used
    where there is nothing left to clean up)."""
    code, word = ((EXIT_TERMINATED, "terminated") if sig == signal.SIGTERM
                  else (EXIT_INTERRUPTED, "interrupted"))

    def handler(signum, frame):
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os.write(2, f"{prog}: {word}\n".encode())
        os._exit(code)

    signal.signal(sig, handler)


def run_program(main, prog: str):
    """Run ``main()`` as the whole program and exit with its code. Around the work (where
    ``main`` installs :func:`sigterm_raises` and catches ``KeyboardInterrupt`` to clean up),
    SIGTERM and, once ``main`` has returned, Ctrl-C end the process at once with 143 / 130:
    the interpreter's shutdown (worker pools closing at exit) takes a moment, and a signal there
    would otherwise kill the process by its default action or print a traceback. Only the
    interpreter's very last step, which puts the default actions back, is left: a signal there
    ends the process by SIGTERM's or SIGINT's default action, after every output is complete."""
    if threading.current_thread() is threading.main_thread():
        _exit_at_once(signal.SIGTERM, prog)
    try:
        code = main()
        sys.stdout.flush()
        sys.stderr.flush()
        if threading.current_thread() is threading.main_thread():
            _exit_at_once(signal.SIGINT, prog)
    except KeyboardInterrupt as exc:  # between main's handlers and ours
        code = exit_code(exc, prog)
    sys.exit(code)
