"""Ctrl-C and SIGTERM inside arb's certified quadrature (fstheory.theory.interrupts).

python-flint's ``acb.integral`` calls a Python integrand from C and cannot pass a
KeyboardInterrupt through: raised in the integrand, it ended as "SystemError ... returned a
result with an exception set" (exit code 1), or was lost. Every call goes through
``acb_integral``, which holds the signal until arb returns. Checked at each call site with a
signal sent while its integrand runs, and on the command line with signals at random times.
"""

from __future__ import annotations

import os
import random
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import sympy as sp
from flint import arb, ctx

from fstheory.signals import Terminated
from fstheory.theory.interrupts import acb_integral

pytestmark = pytest.mark.slow


PACKAGE_DIRS = ("theory", "scenarios", "engine", "orderings", "atlas", "reports", "selection",
                "simulation", "fstheory")
ROOT = Path(__file__).resolve().parents[2]


def test_every_call_of_arbs_integrator_goes_through_acb_integral():
    direct = []
    for d in PACKAGE_DIRS:
        for path in (ROOT / d).rglob("*.py"):
            if path.name == "interrupts.py":
                continue
            for n, line in enumerate(path.read_text().splitlines(), 1):
                if re.search(r"\bacb\.integral\(", line):
                    direct.append(f"{path.relative_to(ROOT)}:{n}")
    assert direct == []


# ----- each call site, a signal while its integrand runs ------------------------------------------


class _Term(BaseException):
    """What a SIGTERM handler raises (the command line's is a BaseException too)."""


def _raise_term(signum, frame):
    raise _Term()


def _python_calls(run) -> int:
    count = [0]

    def hook(frame, event, arg):
        if event == "call":
            count[0] += 1

    sys.setprofile(hook)
    try:
        run()
    finally:
        sys.setprofile(None)
    return count[0]


def _signal_at_call(run, n: int, sig: int) -> tuple[BaseException | None, int]:
    """Run ``run`` sending ``sig`` to this process at its ``n``-th Python function call; return
    what it raised and how many Python calls it made after the signal."""
    count = [0]

    def hook(frame, event, arg):
        if event == "call":
            count[0] += 1
            if count[0] == n:
                os.kill(os.getpid(), sig)

    old_term = signal.signal(signal.SIGTERM, _raise_term)
    raised = None
    sys.setprofile(hook)
    try:
        run()
    except BaseException as exc:  # noqa: B036 - the test looks at what was raised
        raised = exc
    finally:
        sys.setprofile(None)
        signal.signal(signal.SIGTERM, old_term)
    return raised, count[0] - n


def _certified():
    from fstheory.theory.quadrature import certified

    with_prec(200, lambda: certified(
        lambda m: (lambda z, an: (z * z).exp() * (1 + z).log(analytic=an)),
        [arb(0), arb(1), arb(3)], arb(10) ** -50))


def with_prec(bits, run):
    old = ctx.prec
    ctx.prec = bits
    try:
        return run()
    finally:
        ctx.prec = old


def _laplace_class():
    from fstheory.atlas.certificate.laplace import class_mi_ball

    with_prec(200, lambda: class_mi_ball("X-Y", arb("0.3")))


def _normal_constant():
    from fstheory.theory.special_integrals import NORMAL_INTEGRALS, normal_integral_ball

    with_prec(64, lambda: normal_integral_ball(list(NORMAL_INTEGRALS)[2]))


def _laplace_constant():
    from fstheory.theory.special_integrals import laplace_integral_ball

    with_prec(200, laplace_integral_ball)


def _sympy_integral():
    from fstheory.theory.arbexpr import arb_of

    x = sp.Symbol("x")
    with_prec(200, lambda: arb_of(sp.Integral(sp.exp(-x**2) * sp.log(1 + x), (x, 0, 2))))


def _skew_normal():
    from fstheory.theory.skew_normal import skew_normal_mi_ball

    with_prec(200, lambda: skew_normal_mi_ball(arb("0.7")))


def _skew_normal_derivative():
    from fstheory.theory.skew_normal import skew_normal_mi_derivative_ball

    with_prec(200, lambda: skew_normal_mi_derivative_ball(arb("0.7")))


def _normal_fibre():
    from fstheory.theory.normal_fibre import NormalFibre, conditional_entropy_ball

    fib = NormalFibre(1 / sp.pi, sp.Rational(1, 2), sp.Integer(1), sp.Rational(13, 10))
    with_prec(32, lambda: conditional_entropy_ball(fib))


SITES = {"theory.quadrature.certified": _certified,
         "atlas.certificate.laplace": _laplace_class,
         "theory.special_integrals (normal)": _normal_constant,
         "theory.special_integrals (laplace)": _laplace_constant,
         "theory.arbexpr (sympy integral)": _sympy_integral,
         "theory.skew_normal": _skew_normal,
         "theory.skew_normal (derivative)": _skew_normal_derivative,
         "theory.normal_fibre (nested)": _normal_fibre}


@pytest.mark.parametrize("site", list(SITES))
def test_a_signal_inside_each_call_sites_integrand_ends_it_cleanly(site):
    run = SITES[site]
    run()  # warm: imports and caches out of the way
    total = _python_calls(run)
    assert total > 200, f"{site}: too little work to interrupt ({total} calls)"
    for fraction in (0.1, 0.35, 0.6, 0.9):
        for sig, expected in ((signal.SIGINT, KeyboardInterrupt), (signal.SIGTERM, _Term)):
            raised, after = _signal_at_call(run, int(total * fraction), sig)
            assert type(raised) is expected, (site, fraction, sig, repr(raised))
            # promptly: arb does not go on evaluating the integrand after the signal
            assert after < 200, (site, fraction, sig, after)
    run()  # the handlers are back: an uninterrupted call still works


def test_an_integrand_that_raises_ends_the_integral_at_once():
    calls = [0]

    def f(z, analytic):
        calls[0] += 1
        if calls[0] == 5:
            raise ZeroDivisionError("here")
        return (z * z).exp()

    with pytest.raises(ZeroDivisionError, match="here"):
        with_prec(300, lambda: acb_integral(f, 0, 100, eval_limit=10**7))
    assert calls[0] == 5

    calls[0] = 0

    def g(z, analytic):
        calls[0] += 1
        if calls[0] == 5:
            raise ValueError("kept by python-flint, raised after its evaluation limit")
        return (z * z).exp()

    with pytest.raises(ValueError, match="kept by"):
        with_prec(300, lambda: acb_integral(g, 0, 100, eval_limit=10**7))
    assert calls[0] == 5


def test_a_nested_integral_hands_the_signal_to_the_outermost_call():
    seen = []

    def inner(z, analytic):
        return (z * z).exp()

    def outer(t, analytic):
        seen.append(1)
        if len(seen) == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return acb_integral(inner, 0, 1) * t

    with pytest.raises(KeyboardInterrupt):
        acb_integral(outer, 0, 1)
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler
    assert len(seen) <= 4


def test_a_handler_that_returns_gets_the_integral_recomputed():
    """A signal whose handler only takes note must not leave the zeros of the stopped run in the
    value: the integral is computed again."""
    noted = []
    old = signal.signal(signal.SIGINT, lambda s, f: noted.append(s))
    calls = [0]

    def f(z, analytic):
        calls[0] += 1
        if calls[0] == 3:
            os.kill(os.getpid(), signal.SIGINT)
        return z * z

    try:
        v = acb_integral(f, 0, 3)
    finally:
        signal.signal(signal.SIGINT, old)
    assert noted == [signal.SIGINT]
    assert v.real.contains(9) and v.rad() < 1e-10


def test_outside_the_main_thread_the_integrand_errors_still_come_through():
    import threading

    out = []

    def work():
        try:
            acb_integral(lambda z, an: 1 / 0, 0, 1)
        except ZeroDivisionError as exc:
            out.append(exc)
        out.append(acb_integral(lambda z, an: z, 0, 2))

    t = threading.Thread(target=work)
    t.start()
    t.join()
    assert isinstance(out[0], ZeroDivisionError) and out[1].real.contains(2)


# ----- the command line, signals at random times ------------------------------------------------


def _tables(out: Path) -> subprocess.Popen:
    """`fstheory tables` of the `mixed` scenario: about half of its time is spent in arb's
    certified quadrature (the console script, as in test_atomic_output)."""
    script = Path(sys.executable).with_name("fstheory")
    return subprocess.Popen([str(script), "tables", "--scenario", "mixed", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _mark(out: Path) -> dict[str, bytes]:
    """Make every file of ``out`` differ from what a finished run writes; return the contents."""
    for p in out.iterdir():
        if p.is_file():
            p.write_bytes(p.read_bytes() + b"\nprevious run\n")
    return _contents(out)


def _contents(out: Path) -> dict[str, bytes]:
    """The files of ``out`` (a staging directory left behind shows as a name with None)."""
    return {p.name: p.read_bytes() if p.is_file() else None for p in out.iterdir()}


def test_sigint_and_sigterm_at_random_times_exit_130_143_and_keep_the_previous_files(tmp_path):
    out = tmp_path / "reports"
    start = time.monotonic()
    proc = _tables(out)
    _, err = proc.communicate(timeout=1800)
    assert proc.returncode == 0, err
    duration = time.monotonic() - start  # this machine, at its current load
    before = _mark(out)
    rng = random.Random(25)
    interrupted = 0
    for trial in range(10):
        sig, code, line = ((signal.SIGINT, 130, "fstheory: interrupted\n") if trial % 2 == 0
                           else (signal.SIGTERM, 143, "fstheory: terminated\n"))
        delay = rng.uniform(0.05, 0.9) * duration
        proc = _tables(out)
        deadline = time.monotonic() + delay
        while proc.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        if proc.poll() is not None:  # finished before its signal (a lighter load): not a trial
            proc.communicate()
            before = _mark(out)
            continue
        proc.send_signal(sig)
        stdout, stderr = proc.communicate(timeout=600)
        if "fstheory tables: wrote" in stdout:  # the signal came as it finished (every file
            # written): 0, its code with its line, or, in the interpreter's last step, by the
            # signal's default action
            assert (proc.returncode in (0, -sig)
                    or (proc.returncode, stderr.endswith(line)) == (code, True)), (trial, delay)
            before = _mark(out)
            continue
        assert (proc.returncode, stdout) == (code, ""), (trial, delay, stderr[-400:])
        assert stderr.endswith(line), (trial, delay, stderr[-400:])
        assert _contents(out) == before, (trial, delay)
        interrupted += 1
    assert interrupted >= 6


@pytest.mark.parametrize("cause, code, line", [(KeyboardInterrupt, 130, "fstheory: interrupted\n"),
                                               ("terminated", 143, "fstheory: terminated\n")])
def test_a_signal_under_an_error_of_c_code_is_still_an_interruption(capsys, monkeypatch, cause,
                                                                    code, line):
    """Another C extension calling back into Python may raise SystemError over the
    KeyboardInterrupt: the command line looks through the chain."""
    from fstheory import cli
    from fstheory.engine import evaluate

    exc_type = Terminated if cause == "terminated" else cause

    def c_callback(*args, **kwargs):
        try:
            raise exc_type()
        except BaseException:
            raise SystemError("<cyfunction f> returned a result with an exception set")  # noqa: B904

    monkeypatch.setattr(evaluate, "evaluate", c_callback)
    assert cli.main(["values", "--k", "0.2"]) == code
    assert capsys.readouterr().err == line


def _children(pid: int) -> list[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if int(fields[1]) == pid:
            out.append(int(stat.parent.name))
    return out


@pytest.mark.slow
@pytest.mark.parametrize("sig, code", [(signal.SIGTERM, 143), (signal.SIGINT, 130)])
def test_the_atlas_report_driver_stops_its_workers_on_a_signal(tmp_path, sig, code):
    """`make reproduce-atlas`'s driver, stopped while its two workers sweep: 130/143, one line,
    and no worker process left running."""
    proc = subprocess.Popen([sys.executable, "-m", "fstheory.atlas.report", str(tmp_path / "a"),
                             "2"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stderr.readline()  # the first progress line: the workers are starting
    assert "atlas:" in line, line
    deadline = time.monotonic() + 120
    while len(workers := _children(proc.pid)) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(workers) >= 2, workers
    time.sleep(1)
    proc.send_signal(sig)
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == code, err[-400:]
    assert err.endswith("atlas: terminated\n" if code == 143 else "atlas: interrupted\n")
    deadline = time.monotonic() + 30
    while any(Path(f"/proc/{w}").exists() for w in workers) and time.monotonic() < deadline:
        time.sleep(0.2)
    left = [w for w in workers if Path(f"/proc/{w}").exists()
            and "zombie" not in Path(f"/proc/{w}/status").read_text().lower()]
    assert not left, left
