"""Connecting to a Dask scheduler (``--scheduler ADDRESS``), refused within a connect timeout.

``distributed.Client(address, timeout=...)`` does not bound everything: pointed at a port where
something else listens it can wait forever (an HTTP server waits for a request, Dask for the
server's greeting), and a server that answers with other bytes is read as a Dask frame of any
length (an HTTP proxy's reply made it allocate 3 EiB: MemoryError). So :func:`connect` first
checks the address, then talks to it directly: a Dask scheduler sends its handshake as soon as a
connection is accepted (one frame: an 8-byte length, a frame count, the frame lengths, and a
msgpack map naming ``compression``, ``python`` and ``pickle-protocol``). Only when that greeting
arrives within the timeout is the real client made, itself under the same deadline. Every failure
is a :class:`SimulationInputError` (exit code 2) naming the parameter and the address.

A ``tls://`` address cannot be greeted in clear text: it is checked up to the TCP connection,
and the client's TLS handshake runs under the deadline. An ``inproc://`` address (a cluster in
this process, ``LocalCluster(processes=False)``) is given to the client directly.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time

from fstheory.simulation.errors import SimulationInputError

__all__ = ["DEFAULT_CONNECT_TIMEOUT", "MAX_CONNECT_TIMEOUT", "connect", "parse_timeout"]

#: seconds to wait for a scheduler to answer (``--connect-timeout``)
DEFAULT_CONNECT_TIMEOUT = 10.0
#: the longest accepted connect timeout, in seconds
MAX_CONNECT_TIMEOUT = 3600.0

#: the largest greeting accepted from a scheduler, in bytes (Dask's is about 60)
_MAX_GREETING = 1 << 16
_SCHEMES = ("tcp", "tls")


def _client_type():
    try:
        from distributed import Client
    except ImportError:
        raise SimulationInputError(
            "parameter 'scheduler' needs dask.distributed (install the 'dask' extra: "
            "pip install 'fstheory[dask]')") from None
    return Client


def parse_timeout(value, name: str = "connect_timeout") -> float:
    """A connect timeout in seconds: a number (or its text) in (0, :data:`MAX_CONNECT_TIMEOUT`]."""
    from fractions import Fraction

    from fstheory.user_numbers import parse_rational

    expected = (f"parameter '{name}' must be a number of seconds in (0, {MAX_CONNECT_TIMEOUT:g}] "
                f"(got {value!r})")
    if isinstance(value, str):
        q = parse_rational(value, name)
    elif isinstance(value, (int, float, Fraction)) and not isinstance(value, bool):
        q = Fraction(value) if value == value and abs(value) != float("inf") else None
    else:
        q = None
    if q is None or not 0 < q <= MAX_CONNECT_TIMEOUT:
        raise SimulationInputError(expected)
    return float(q)


def _address(address) -> tuple[str, str, int]:
    """(scheme, host, port) of a scheduler address, or a refusal naming what is wrong."""
    from distributed.comm.addressing import parse_address, parse_host_port

    shape = "a Dask scheduler address such as tcp://host:8786"
    if not isinstance(address, str) or not address.strip():
        raise SimulationInputError(f"parameter 'scheduler' must be {shape} (got {address!r})")
    text = address.strip()
    try:
        scheme, location = parse_address(text)
    except ValueError:
        raise SimulationInputError(f"parameter 'scheduler' must be {shape} (got {address!r})") from None
    if scheme == "inproc":  # a cluster in this process (LocalCluster(processes=False))
        return scheme, location, 0
    if scheme not in _SCHEMES:
        raise SimulationInputError(
            f"parameter 'scheduler': the scheme {scheme + '://'!r} is not supported (got "
            f"{address!r}; expected tcp://host:port or tls://host:port)")
    try:
        host, port = parse_host_port(location)
    except ValueError:
        raise SimulationInputError(
            f"parameter 'scheduler' must be {shape}, with a port (got {address!r})") from None
    if not host or not 0 < int(port) < 65536 or any(c.isspace() for c in host):
        raise SimulationInputError(f"parameter 'scheduler' must be {shape} (got {address!r})")
    return scheme, host, int(port)


def _receive(sock: socket.socket, n: int, deadline: float) -> bytes:
    data = b""
    while len(data) < n:
        left = deadline - time.monotonic()
        if left <= 0:
            raise socket.timeout()
        sock.settimeout(left)
        chunk = sock.recv(n - len(data))
        if not chunk:
            raise ConnectionResetError("the connection was closed")
        data += chunk
    return data


def _is_dask_greeting(frame: bytes) -> bool:
    """One Dask message: a frame count, that many lengths, frames filling the rest, the
    handshake's keys in them."""
    if len(frame) < 16:
        return False
    (count,) = struct.unpack_from("<Q", frame)
    if not 1 <= count <= 16 or len(frame) < 8 * (count + 1):
        return False
    lengths = struct.unpack_from(f"<{count}Q", frame, 8)
    return 8 * (count + 1) + sum(lengths) == len(frame) and b"pickle-protocol" in frame


def _greet(scheme: str, host: str, port: int, address: str, timeout: float) -> None:
    if scheme == "inproc":
        return
    deadline = time.monotonic() + timeout
    try:
        sock = socket.create_connection((host, port), timeout=timeout)
    except socket.gaierror as exc:
        raise SimulationInputError(
            f"parameter 'scheduler': cannot resolve the host {host!r} of {address!r} "
            f"({exc.strerror or exc})") from None
    except socket.timeout:
        raise _silent(address, timeout) from None
    except OSError as exc:
        raise SimulationInputError(
            f"parameter 'scheduler': cannot connect to {address!r} "
            f"({exc.strerror or type(exc).__name__})") from None
    with sock:
        if scheme != "tcp":
            return
        try:
            (length,) = struct.unpack("<Q", _receive(sock, 8, deadline))
            if not 16 <= length <= _MAX_GREETING:
                raise _not_dask(address)
            if not _is_dask_greeting(_receive(sock, length, deadline)):
                raise _not_dask(address)
        except socket.timeout:
            raise _silent(address, timeout) from None
        except OSError:
            raise _not_dask(address) from None


def _silent(address: str, timeout: float) -> SimulationInputError:
    return SimulationInputError(
        f"parameter 'scheduler': no Dask scheduler answered at {address!r} within {timeout:g} s "
        f"(the connect timeout)")


def _not_dask(address: str) -> SimulationInputError:
    return SimulationInputError(
        f"parameter 'scheduler': what answers at {address!r} is not a Dask scheduler")


def connect(scheduler, timeout: float = DEFAULT_CONNECT_TIMEOUT):
    """A ``distributed.Client`` for ``scheduler`` (an address; a Client is returned as it is),
    made within ``timeout`` seconds or refused.

    Raises
    ------
    SimulationInputError
        For an address that is malformed, of another scheme than tcp/tls, that cannot be
        resolved or reached, that no Dask scheduler answers within ``timeout`` seconds, or where
        something else answers; or when dask.distributed is not installed.
    """
    Client = _client_type()
    if isinstance(scheduler, Client):
        return scheduler
    timeout = parse_timeout(timeout)
    scheme, host, port = _address(scheduler)
    address = scheduler.strip()
    _greet(scheme, host, port, address, timeout)
    made: dict = {}

    def make():
        try:
            made["client"] = Client(address, timeout=timeout)
        except BaseException as exc:  # noqa: B036 - handed to the caller's thread
            made["error"] = exc

    # distributed may wait past its own timeout: the client is made in a daemon thread and
    # abandoned if the deadline passes (the process can still exit)
    worker = threading.Thread(target=make, name="fstheory-dask-connect", daemon=True)
    worker.start()
    worker.join(timeout + 1)
    if "client" in made:
        return made["client"]
    if "error" in made and not isinstance(made["error"], (OSError, TimeoutError)):
        raise made["error"]
    detail = made.get("error")
    if detail is None:
        raise _silent(address, timeout)
    raise SimulationInputError(
        f"parameter 'scheduler': cannot connect to the Dask scheduler at {address!r} "
        f"({str(detail).splitlines()[0][:200] if str(detail) else type(detail).__name__})")


@contextlib.contextmanager
def connected(scheduler, timeout: float = DEFAULT_CONNECT_TIMEOUT):
    """The ``distributed.Client`` of ``scheduler`` inside the block (:func:`connect`; None stays
    None, a Client is used as it is): what :func:`fstheory.parallel.run_tasks` is given. A client
    made here for an address is closed at the end of the block."""
    if scheduler is None:
        yield None
        return
    client = connect(scheduler, timeout)
    try:
        yield client
    finally:
        if client is not scheduler:
            client.close()
