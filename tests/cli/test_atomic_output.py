"""Outputs are written atomically (fstheory.reports.atomic): a failed, interrupted or killed run of
`fstheory tables` leaves the previous files as they were; a bad --out is refused before any
computing; files that the run does not generate are never touched."""

from __future__ import annotations

import errno
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from fstheory.cli import main
from fstheory.reports import atomic, render
from fstheory.reports.atomic import STAGING_PREFIX, staged_output

GENERATED = ["README.md", "objective_table.md", "general_uniform.csv", "orderings_normal.json"]


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def previous_run(out: Path) -> dict[str, bytes]:
    """A destination holding an earlier run's files and a hand-written one."""
    out.mkdir(exist_ok=True)
    files = {name: f"previous {name}\n".encode() for name in GENERATED + ["errata.md"]}
    for name, content in files.items():
        (out / name).write_bytes(content)
    return files


def contents(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in out.iterdir() if p.is_file()}


def staging_dirs(out: Path) -> list[Path]:
    return [p for p in out.iterdir() if p.name.startswith(STAGING_PREFIX)]


# ----- refused before any computing -----------------------------------------------------------


@pytest.mark.parametrize("command", ["tables", "verify", "simulate-study"])
def test_bad_out_is_refused_before_computing(capsys, tmp_path, monkeypatch, command):
    import fstheory.reports.verify as verify_module
    import fstheory.simulation.report as sim_report
    from fstheory.reports import tables

    def must_not_run(*args, **kwargs):
        raise AssertionError("computed before checking --out")

    monkeypatch.setattr(tables, "_write_tables", must_not_run)
    monkeypatch.setattr(verify_module, "verify", must_not_run)
    monkeypatch.setattr(sim_report, "run_study", must_not_run)
    regular = tmp_path / "file.txt"
    regular.write_text("keep me\n")
    cases = [
        ("", "parameter 'out' must be a directory path (got '')"),
        (str(regular), f"output directory '{regular}' exists and is not a directory"),
        (str(tmp_path / "missing" / "out"), f"its parent directory {tmp_path / 'missing'} does not exist"),
        ("/proc/fstheory-out", "output directory '/proc/fstheory-out'"),  # not writable, even by root
    ]
    for out, fragment in cases:
        code, stdout, err = run(capsys, command, "--out", out)
        assert code == 2, (out, err)
        assert err.startswith("fstheory: error: ") and err.count("\n") == 1, err
        assert fragment in err, err
    assert regular.read_text() == "keep me\n"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["file.txt"]


def test_out_empty_does_not_write_into_the_current_directory(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "README.md").write_text("mine\n")
    code, out, err = run(capsys, "tables", "--out", "", "--scenario", "uniform", "--digits", "5")
    assert code == 2 and "parameter 'out'" in err
    assert [p.name for p in tmp_path.iterdir()] == ["README.md"]
    assert (tmp_path / "README.md").read_text() == "mine\n"


# ----- failures while writing ------------------------------------------------------------------


def test_a_full_disk_is_one_line_and_leaves_the_previous_files(capsys, tmp_path, monkeypatch):
    out = tmp_path / "reports"
    before = previous_run(out)

    def full_disk(path, *args, **kwargs):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(render, "open", full_disk, raising=False)
    code, stdout, err = run(capsys, "tables", "--out", str(out), "--scenario", "uniform", "--digits", "5")
    assert code == 2
    err = "".join(line for line in err.splitlines(True) if not line.startswith("fstheory tables: "))
    assert err == (f"fstheory: error: output directory '{out}': cannot write the files (No space "
                   f"left on device); the previous files are unchanged\n")
    assert contents(out) == before and staging_dirs(out) == []


def test_an_exception_inside_leaves_the_destination_as_it_was(tmp_path):
    out = tmp_path / "out"
    before = previous_run(out)
    with pytest.raises(RuntimeError):
        with staged_output(out) as stage:
            (stage / "README.md").write_text("new\n")
            raise RuntimeError("a bug while computing")
    assert contents(out) == before and staging_dirs(out) == []


def test_a_new_directory_is_removed_again_when_the_run_fails(tmp_path):
    out = tmp_path / "new"
    with pytest.raises(RuntimeError):
        with staged_output(out):
            raise RuntimeError
    assert not out.exists()


def test_success_replaces_only_generated_files_readme_last(tmp_path, monkeypatch):
    out = tmp_path / "out"
    before = previous_run(out)
    moved = []
    real_replace = os.replace
    monkeypatch.setattr(atomic.os, "replace", lambda a, b: (moved.append(Path(b).name), real_replace(a, b)))
    with staged_output(out) as stage:
        for name in ("README.md", "objective_table.md", "zeta.md"):
            (stage / name).write_text(f"new {name}\n")
        (stage / "sub").mkdir()
        (stage / "sub" / "a.csv").write_text("new\n")
    assert moved == ["objective_table.md", "a.csv", "zeta.md", "README.md"]
    after = contents(out)
    assert after["errata.md"] == before["errata.md"]  # hand-written: untouched
    assert after["general_uniform.csv"] == before["general_uniform.csv"]  # not regenerated: kept
    assert after["README.md"] == b"new README.md\n" and (out / "sub" / "a.csv").read_text() == "new\n"
    assert staging_dirs(out) == []


def test_a_staging_directory_of_a_dead_process_is_removed_by_the_next_run(tmp_path):
    out = tmp_path / "out"
    previous_run(out)
    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"],
                          capture_output=True, text=True).stdout.strip()
    stale = out / f"{STAGING_PREFIX}{dead}-abc"
    stale.mkdir()
    (stale / "README.md").write_text("half-written\n")
    alive = out / f"{STAGING_PREFIX}{os.getppid()}-xyz"  # a running process's: kept
    alive.mkdir()
    with staged_output(out) as stage:
        (stage / "README.md").write_text("new\n")
    assert staging_dirs(out) == [alive]
    assert (out / "README.md").read_text() == "new\n"


# ----- a real run, interrupted -------------------------------------------------------------------


def _start_tables(out: Path) -> subprocess.Popen:
    """`fstheory tables` of every registered scenario at 30 digits: several seconds of computing
    after the first file. The console script, as a user runs it: under `python -m`, CPython 3.11
    ends a process by SIGINT after it exits whenever a KeyboardInterrupt once escaped an eval() of
    a string (sympy parses that way), even when the program caught it; a shell shows 130 both ways."""
    script = Path(sys.executable).with_name("fstheory")
    return subprocess.Popen([str(script), "tables", "--out", str(out)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def _wait_until_writing(proc: subprocess.Popen, out: Path, timeout: float = 60.0) -> None:
    """Until the run has written its first file into its staging directory."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        assert proc.poll() is None, proc.communicate()
        if any(any(d.iterdir()) for d in staging_dirs(out)):
            return
        time.sleep(0.02)
    proc.kill()
    pytest.fail("the tables run wrote nothing within a minute")


@pytest.mark.parametrize("sig, code, line", [
    pytest.param(signal.SIGTERM, 143, "fstheory: terminated\n", marks=pytest.mark.slow),
    (signal.SIGINT, 130, "fstheory: interrupted\n")])
def test_an_interrupted_tables_run_leaves_the_previous_files_and_no_staging(tmp_path, sig, code, line):
    out = tmp_path / "reports"
    before = previous_run(out)
    proc = _start_tables(out)
    _wait_until_writing(proc, out)
    proc.send_signal(sig)
    stdout, stderr = proc.communicate(timeout=60)
    assert (proc.returncode, stdout) == (code, "") and stderr.endswith(line)
    # before the last line, only the progress lines naming each table group as it starts
    assert all(p.startswith("fstheory tables: ") for p in stderr[: -len(line)].splitlines())
    assert contents(out) == before
    assert staging_dirs(out) == []


@pytest.mark.slow
def test_a_killed_tables_run_leaves_the_previous_files(tmp_path):
    out = tmp_path / "reports"
    before = previous_run(out)
    proc = _start_tables(out)
    _wait_until_writing(proc, out)
    proc.kill()  # SIGKILL: no cleanup possible
    proc.communicate(timeout=60)
    assert contents(out) == before
    assert len(staging_dirs(out)) == 1  # removed by the next run into out (test above)
