"""Outputs written all at once or not at all: ``fstheory tables``, ``verify``, ``simulate-study``.

A run writes its files into a staging directory inside the destination (``<out>/.fstheory-tmp-
<pid>-<random>/``) while it computes, and only when everything is written moves them into place,
one ``os.replace`` per file (atomic on POSIX), the README last. So:

* a run that fails, is interrupted (Ctrl-C) or terminated (SIGTERM) removes its staging directory
  and leaves the previous files exactly as they were;
* a run killed outright (SIGKILL, power loss) leaves the previous files as they were and a staging
  directory, which the next run into the same destination removes (its process is gone);
* only the files the run generates are replaced: other files in the destination (the package
  code and the hand-written ``errata.md`` and ``data/`` beside the tables in ``reports/``) are
  never touched.

The destination is checked before any computing (:func:`check_output_dir`): an empty path, a
regular file, a directory whose parent does not exist, or one that cannot be written is refused
with an :class:`OutputError` (command-line exit code 2). A disk that fills up, or any other
failure to write, is also an :class:`OutputError` naming the destination; the previous files are
then unchanged.

Examples
--------
>>> import tempfile, pathlib
>>> with tempfile.TemporaryDirectory() as d:
...     with staged_output(d) as stage:
...         _ = (stage / "a.txt").write_text("new")
...     sorted(p.name for p in pathlib.Path(d).iterdir())
['a.txt']
>>> check_output_dir("")
Traceback (most recent call last):
...
fstheory.reports.atomic.OutputError: parameter 'out' must be a directory path (got '')
"""

from __future__ import annotations

import contextlib
import errno
import os
import re
import shutil
import signal
import tempfile
import threading
from pathlib import Path
from typing import Iterator

from fstheory.errors import UserInputError

__all__ = ["OutputError", "check_output_dir", "check_output_stem", "staged_output",
           "write_together", "STAGING_PREFIX"]

#: name prefix of staging directories (followed by the writing process's id)
STAGING_PREFIX = ".fstheory-tmp-"
_STAGING = re.compile(re.escape(STAGING_PREFIX) + r"(\d+)-")
#: errors that mean the destination cannot take the files, whatever the file
_WRITE_ERRNOS = {errno.ENOSPC, errno.EROFS, errno.EFBIG, getattr(errno, "EDQUOT", errno.ENOSPC)}


class OutputError(UserInputError):
    """An output directory that cannot be used or written; the message names it."""


def check_output_dir(out) -> Path:
    """``out`` as a Path, after refusing what cannot be an output directory.

    Raises
    ------
    OutputError
        For an empty path, an existing non-directory, a path whose parent directory does not
        exist, or a directory that is not writable.
    """
    if out is None or not str(out).strip():
        raise OutputError(f"parameter 'out' must be a directory path (got {str(out or '')!r})")
    try:
        return _checked_dir(out)
    except OSError as exc:  # a name too long, a loop of links, ...
        raise OutputError(f"output directory '{_shown(out)}': {exc.strerror}") from None


def _shown(path) -> str:
    text = str(path)
    return text if len(text) <= 80 else f"{text[:40]}...{text[-20:]}"


def _checked_dir(out) -> Path:
    path = Path(out)
    if path.exists() and not path.is_dir():
        raise OutputError(f"output directory '{out}' exists and is not a directory")
    if not path.exists():
        parent = path.absolute().parent
        if not parent.is_dir():
            raise OutputError(f"output directory '{out}': its parent directory {parent} does not exist")
        if not os.access(parent, os.W_OK | os.X_OK):
            raise OutputError(f"output directory '{out}' cannot be created ({parent} is not writable)")
    elif not os.access(path, os.W_OK | os.X_OK):
        raise OutputError(f"output directory '{out}' is not writable")
    return path


def check_output_stem(stem, suffixes: tuple[str, ...]) -> Path:
    """``stem`` as a Path naming the files ``stem + suffix`` (``maps/mifs`` -> ``maps/mifs.png``),
    after refusing what cannot name them: the rules of :func:`check_output_dir` for the folder
    they go in, and a file name that fits the file system.

    >>> check_output_stem(".", (".png",))
    Traceback (most recent call last):
    ...
    fstheory.reports.atomic.OutputError: parameter 'out' must be a file stem such as maps/mifs (the files are STEM.png) (got '.')

    Raises
    ------
    OutputError
        For an empty stem, ``.``, ``..`` or a path ending in a separator, a stem that is a
        directory, a folder that does not exist, is not a directory or is not writable, a file
        name longer than the file system allows, or a file that would replace a directory.
    """
    text = "" if stem is None else str(stem)
    files = ", ".join("STEM" + s for s in suffixes)
    shape = f"a file stem such as maps/mifs (the files are {files})"
    path = Path(text)
    if not text.strip() or path.name in ("", ".", "..") or text.endswith(("/", os.sep)):
        raise OutputError(f"parameter 'out' must be {shape} (got {_shown(text)!r})")
    try:
        return _checked_stem(path, text, shape, suffixes)
    except OSError as exc:  # a name too long, a loop of links, ...
        raise OutputError(f"parameter 'out' ({_shown(text)!r}): {exc.strerror}") from None


def _checked_stem(path: Path, text: str, shape: str, suffixes: tuple[str, ...]) -> Path:
    if path.is_dir():
        raise OutputError(f"parameter 'out': '{_shown(text)}' is a directory; it must be {shape}")
    parent = path.absolute().parent
    if parent.exists() and not parent.is_dir():
        raise OutputError(f"parameter 'out' ({_shown(text)!r}): {parent} is not a directory")
    if not parent.is_dir():
        raise OutputError(f"parameter 'out' ({_shown(text)!r}): the directory {parent} does not exist")
    if not os.access(parent, os.W_OK | os.X_OK):
        raise OutputError(f"parameter 'out' ({_shown(text)!r}): the directory {parent} is not writable")
    try:
        name_max = os.pathconf(parent, "PC_NAME_MAX")
    except (OSError, ValueError):  # pragma: no cover - a file system that does not say
        name_max = 255
    for suffix in suffixes:
        name = path.name + suffix
        if len(os.fsencode(name)) > name_max:
            raise OutputError(f"parameter 'out': the file name {name[:40]}... is too long "
                              f"({len(os.fsencode(name))} bytes; at most {name_max} here)")
        if (parent / name).is_dir():
            raise OutputError(f"parameter 'out': {parent / name} is a directory")
    return path


def _temporary_beside(path: Path) -> Path:
    """A new empty file in ``path``'s folder, with the permissions of any new file (0666 less
    the umask: 0644 usually, as the files of ``staged_output``), named for stale cleanup."""
    for _ in range(100):
        tmp = path.parent / f"{STAGING_PREFIX}{os.getpid()}-{os.urandom(4).hex()}"
        try:
            os.close(os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o666))
            return tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name in {path.parent}")  # pragma: no cover


def write_together(files: dict) -> list[Path]:
    """Write ``files`` (path -> bytes, all in existing folders) as one set: every file is written
    to a temporary file beside it, then all are renamed into place with SIGINT and SIGTERM held,
    so an interrupted or failed write leaves every previous file as it was, and a finished one
    leaves every new file (a SIGKILL between two renames can still split the set). Temporary
    files left by a killed run are removed by the next write into the same folder.

    Raises
    ------
    OutputError
        When a file cannot be written (the previous files are unchanged then) or moved into
        place.
    """
    paths = [Path(p) for p in files]
    for folder in {p.parent for p in paths}:
        _remove_stale_staging(folder)
    temps: dict = {}
    try:
        try:
            for path, data in zip(paths, files.values()):
                temps[path] = _temporary_beside(path)
                temps[path].write_bytes(data)
        except OSError as exc:
            raise OutputError(f"cannot write {paths[len(temps) - 1] if temps else paths[0]} "
                              f"({exc.strerror}); the previous files are unchanged") from None
        try:
            with _signals_deferred():
                for path in paths:
                    os.replace(temps.pop(path), path)
        except OSError as exc:
            raise OutputError(f"cannot move the new files into place ({exc.strerror}); some "
                              "files may be from the previous run") from None
    finally:
        for tmp in temps.values():
            with contextlib.suppress(OSError):
                tmp.unlink()
    return paths


def _process_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process
        return True
    return True


def _remove_stale_staging(out: Path) -> None:
    """Remove staging directories and temporary files left in ``out`` by runs that were
    killed."""
    for entry in out.iterdir():
        m = _STAGING.match(entry.name)
        if m and int(m.group(1)) != os.getpid() and not _process_alive(int(m.group(1))):
            if entry.is_dir():
                shutil.rmtree(entry, ignore_errors=True)
            else:
                with contextlib.suppress(OSError):
                    entry.unlink()


@contextlib.contextmanager
def _signals_deferred() -> Iterator[None]:
    """Hold SIGINT and SIGTERM while files are moved into place (delivered right after): blocked
    in this thread (a default action waits too), and their Python handlers only recording
    (:func:`fstheory.theory.interrupts.signals_held`), since with other threads in the process
    the kernel may hand the signal to one of them, and the main thread would raise at once."""
    from fstheory.theory.interrupts import signals_held

    sigs = {signal.SIGINT, signal.SIGTERM}
    can_block = hasattr(signal, "pthread_sigmask") and threading.current_thread() is threading.main_thread()
    old = signal.pthread_sigmask(signal.SIG_BLOCK, sigs) if can_block else None
    try:
        with signals_held():
            yield
    finally:
        if can_block:
            signal.pthread_sigmask(signal.SIG_SETMASK, old)


def _commit(stage: Path, out: Path, last: tuple[str, ...]) -> None:
    files = sorted((p for p in stage.rglob("*") if p.is_file()),
                   key=lambda p: (p.relative_to(stage).as_posix() in last, p.relative_to(stage).as_posix()))
    with _signals_deferred():
        for src in files:
            target = out / src.relative_to(stage)
            target.parent.mkdir(parents=True, exist_ok=True)
            os.replace(src, target)


def _is_write_error(exc: OSError, stage: Path) -> bool:
    if exc.errno in _WRITE_ERRNOS:
        return True
    name = exc.filename if isinstance(exc.filename, (str, os.PathLike)) else None
    return name is not None and Path(os.path.abspath(name)).is_relative_to(stage.absolute())


@contextlib.contextmanager
def staged_output(out, *, last: tuple[str, ...] = ("README.md",)) -> Iterator[Path]:
    """A staging directory for the files of one run into ``out``; moved into place on success.

    Parameters
    ----------
    out : path
        The destination directory (created, with no parents, if missing).
    last : tuple of str
        Relative paths moved last (an index that describes the other files).

    Yields
    ------
    pathlib.Path
        The staging directory: write every output under it, with the relative paths it is to
        have under ``out``.

    Raises
    ------
    OutputError
        If ``out`` cannot be used (see :func:`check_output_dir`) or a file cannot be written
        (full disk, read-only file system, ...); nothing in ``out`` has changed then.
    """
    out = check_output_dir(out)
    created = not out.exists()
    try:
        out.mkdir(exist_ok=True)
        _remove_stale_staging(out)
        stage = Path(tempfile.mkdtemp(prefix=f"{STAGING_PREFIX}{os.getpid()}-", dir=out))
    except OSError as exc:
        raise OutputError(f"output directory '{out}': cannot write there ({exc.strerror})") from None
    try:
        try:
            yield stage
        except OSError as exc:
            if not _is_write_error(exc, stage):
                raise
            raise OutputError(
                f"output directory '{out}': cannot write the files ({exc.strerror}); the previous files are "
                f"unchanged"
            ) from None
        try:
            _commit(stage, out, last)
        except OSError as exc:
            raise OutputError(
                f"output directory '{out}': cannot move the new files into place ({exc.strerror}); some "
                f"files may be from the previous run"
            ) from None
    except BaseException:
        shutil.rmtree(stage, ignore_errors=True)
        if created:
            with contextlib.suppress(OSError):
                out.rmdir()
        raise
    shutil.rmtree(stage, ignore_errors=True)
