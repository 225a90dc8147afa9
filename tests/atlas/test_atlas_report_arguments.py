"""The atlas report driver (``python -m fstheory.atlas.report``) checks its arguments before any
work: one line naming the argument, exit 2."""

import subprocess
import sys

import pytest

from fstheory.atlas.report import SCENARIOS, arguments


@pytest.mark.parametrize("argv, words", [
    (["OUT", "x"], "jobs: expected a whole number at least 1, got 'x'"),
    (["OUT", "0"], "jobs: expected a whole number at least 1, got '0'"),
    (["OUT", "2", "zz"], "rows: expected '3d', '3d=S1,S2' or 'lib=S1,S2', got 'zz'"),
    (["OUT", "2", "lib="], "rows: expected '3d', '3d=S1,S2' or 'lib=S1,S2', got 'lib='"),
    (["OUT", "2", "3d=uniform,foo"], "rows: unknown scenario 'foo'"),
    (["OUT", "2", "3d=uniform"], "k_uniform.json is missing"),
])
def test_bad_arguments_are_one_line_and_exit_2(tmp_path, capsys, argv, words):
    argv = [str(tmp_path / "atlas") if a == "OUT" else a for a in argv]
    with pytest.raises(SystemExit) as e:
        arguments(argv)
    assert e.value.code == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and words in err


def test_an_existing_file_is_not_an_output_folder(tmp_path, capsys):
    f = tmp_path / "file"
    f.write_text("x")
    with pytest.raises(SystemExit):
        arguments([str(f)])
    assert f"out: {f} exists and is not a folder" in capsys.readouterr().err


def test_the_makefile_forms_are_accepted(tmp_path):
    out = tmp_path / "atlas"
    assert arguments([str(out), "2", "3d"])["what"] == "3d"
    assert arguments([str(out), "2", "lib=uniform,laplace"])["scenarios"] == ("uniform", "laplace")
    assert arguments([])["scenarios"] == SCENARIOS and arguments([])["jobs"] == 2


def test_the_module_refuses_before_any_work(tmp_path):
    r = subprocess.run([sys.executable, "-m", "fstheory.atlas.report", str(tmp_path), "2",
                        "3d=normal"], capture_output=True, text=True, timeout=120)
    assert r.returncode == 2 and r.stdout == ""
    assert r.stderr.strip().endswith("(make reproduce-atlas)") and "Traceback" not in r.stderr
