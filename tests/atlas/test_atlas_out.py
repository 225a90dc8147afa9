"""`fstheory atlas ... --out STEM`: STEM is checked before any computing, with the rules of
`tables --out`; STEM.png, STEM.pdf and STEM.json are written as one set (an interruption leaves
the three previous files or the three new ones), with the permissions of any new file."""

from __future__ import annotations

import os
import signal
import stat
from pathlib import Path

import pytest

from fstheory.atlas import cli as atlas_cli
from fstheory.atlas.figures import write_map
from fstheory.atlas.phase_map import phase_map
from fstheory.atlas.sweep import AtlasSpec
from fstheory.cli import main
from fstheory.reports import atomic

MAP = ["atlas", "--scenario", "uniform", "--method", "mifs", "--vary", "k", "--vary", "beta"]


def run(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def no_computing(monkeypatch):
    def must_not_run(*args, **kwargs):
        raise AssertionError("computed before checking --out")

    monkeypatch.setattr(atlas_cli, "atlas", must_not_run)
    monkeypatch.setattr("fstheory.atlas.phase_map.phase_map", must_not_run)
    monkeypatch.setattr(atlas_cli, "spec_from_request", must_not_run)


@pytest.mark.parametrize("case, message", [
    ("file-parent", "is not a directory"),
    ("dot", "must be a file stem such as maps/mifs (the files are STEM.png, STEM.pdf, STEM.json)"),
    ("dotdot", "must be a file stem"),
    ("empty", "must be a file stem"),
    ("blank", "must be a file stem"),
    ("slash", "must be a file stem"),
    ("long", "File name too long"),
    ("almost-long", "is too long (256 bytes; at most 255 here)"),
    ("directory", "is a directory; it must be a file stem"),
    ("no-parent", "does not exist"),
    ("target-is-dir", "map.json is a directory"),
])
def test_a_bad_out_is_refused_before_any_computing(capsys, tmp_path, no_computing, case, message):
    (tmp_path / "afile").write_text("x")
    (tmp_path / "map.json").mkdir()
    stem = {"file-parent": tmp_path / "afile" / "map", "dot": ".", "dotdot": "..", "empty": "",
            "blank": "  ", "slash": f"{tmp_path}/", "long": tmp_path / ("x" * 300),
            "almost-long": tmp_path / ("y" * 252), "directory": tmp_path,
            "no-parent": tmp_path / "missing" / "map", "target-is-dir": tmp_path / "map"}[case]
    code, out, err = run(capsys, *MAP, "--out", stem)
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("fstheory: error: parameter 'out'"), err
    assert message in err, err


def test_an_unwritable_folder_is_refused_before_any_computing(capsys, tmp_path, no_computing,
                                                              monkeypatch):
    folder = tmp_path / "ro"
    folder.mkdir()
    real = os.access
    # as root every folder is writable: the check is seen through os.access
    monkeypatch.setattr(os, "access", lambda p, mode: False if Path(p) == folder else real(p, mode))
    code, out, err = run(capsys, *MAP, "--out", folder / "map")
    assert code == 2 and f"the directory {folder} is not writable" in err, err


def test_one_vary_with_out_is_refused_clearly_before_any_computing(capsys, tmp_path, no_computing):
    code, out, err = run(capsys, "atlas", "--scenario", "uniform", "--method", "mifs", "--beta",
                         "0.5", "--vary", "k", "--out", tmp_path / "map")
    assert (code, out) == (2, "") and err.count("\n") == 1
    assert "parameter 'out'" in err and "needs two --vary" in err
    assert list(tmp_path.iterdir()) == []


def test_tables_refuses_a_name_too_long_too(capsys, tmp_path):
    code, out, err = run(capsys, "tables", "--out", tmp_path / ("x" * 300), "--scenario", "uniform")
    assert (code, out) == (2, "") and "File name too long" in err


# ----- the set of three files --------------------------------------------------------------------


@pytest.fixture(scope="module")
def small_map():
    ks = AtlasSpec(scenario="uniform", method="mifs", parameter="k", lo="0.1", hi="0.3", digits=20)
    bs = AtlasSpec(scenario="uniform", method="mifs", parameter="beta", lo="0", hi="1", digits=20,
                   grid=6)
    return phase_map([ks, bs], columns=3, optimal_sets=(frozenset({0, 6}),))


def _previous(stem: Path) -> dict:
    files = {}
    for ext in ("png", "pdf", "json"):
        path = stem.with_name(f"{stem.name}.{ext}")
        path.write_bytes(f"previous {ext}\n".encode())
        files[path.name] = path.read_bytes()
    return files


def _files(folder: Path) -> dict:
    return {p.name: p.read_bytes() for p in folder.iterdir()}


@pytest.mark.slow
def test_a_signal_while_the_files_are_moved_leaves_all_new_files(tmp_path, small_map, monkeypatch):
    """SIGINT right after the first file is in place: held until the three are."""
    stem = tmp_path / "map"
    _previous(stem)
    real = os.replace
    moved = []

    def replace_then_signal(src, dst):
        real(src, dst)
        if Path(dst).parent != tmp_path:  # matplotlib's own files (its font cache)
            return
        moved.append(dst)
        if len(moved) == 1:
            os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(os, "replace", replace_then_signal)
    with pytest.raises(KeyboardInterrupt):
        write_map(small_map, stem)
    monkeypatch.setattr(os, "replace", real)
    after = _files(tmp_path)
    assert sorted(after) == ["map.json", "map.pdf", "map.png"]  # no temporary left
    assert not any(content.startswith(b"previous") for content in after.values())


def test_an_interruption_while_writing_leaves_all_previous_files(tmp_path, small_map, monkeypatch):
    stem = tmp_path / "map"
    before = _previous(stem)
    real = atomic._temporary_beside
    made = []

    def interrupted_at_the_second(path):
        if len(made) == 1:
            raise KeyboardInterrupt
        made.append(real(path))
        return made[-1]

    monkeypatch.setattr(atomic, "_temporary_beside", interrupted_at_the_second)
    with pytest.raises(KeyboardInterrupt):
        write_map(small_map, stem)
    assert _files(tmp_path) == before  # and the first temporary file is gone


@pytest.mark.slow
def test_the_files_have_the_usual_permissions_and_stale_temporaries_go(tmp_path, small_map):
    stale = tmp_path / f"{atomic.STAGING_PREFIX}999999999-dead"
    stale.write_text("left by a killed run")
    old = os.umask(0o022)
    try:
        paths = write_map(small_map, tmp_path / "map")
    finally:
        os.umask(old)
    assert [stat.S_IMODE(p.stat().st_mode) for p in paths] == [0o644] * 3
    assert sorted(p.name for p in tmp_path.iterdir()) == ["map.json", "map.pdf", "map.png"]
