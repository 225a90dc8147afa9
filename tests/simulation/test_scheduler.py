"""``--scheduler``: an address where no Dask scheduler answers is one line and exit code 2 within
the connect timeout (fstheory.simulation.scheduler); a real cluster of several worker processes
gives byte-identical results."""

from __future__ import annotations

import http.server
import socket
import socketserver
import threading
import time

import pytest

from fstheory.cli import main


def run(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


class _Server:
    """A TCP server in a thread: ``kind`` says what it does with a connection."""

    def __init__(self, kind: str):
        self.kind = kind
        self.sock = socket.socket()
        self.sock.bind(("127.0.0.1", 0))
        self.sock.listen(16)
        self.port = self.sock.getsockname()[1]
        self.stop = threading.Event()
        self.open: list = []
        threading.Thread(target=self._serve, daemon=True).start()

    def _serve(self):
        if self.kind == "backlog":  # listens, never accepts: the connection waits in the backlog
            self.stop.wait()
            return
        self.sock.settimeout(0.2)
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.open.append(conn)
            threading.Thread(target=self._answer, args=(conn,), daemon=True).start()

    def _answer(self, conn):
        try:
            if self.kind == "silent":  # accepts and says nothing, forever
                self.stop.wait()
            elif self.kind == "proxy":  # an HTTP proxy: an error page for any bytes received
                conn.settimeout(30)
                if conn.recv(1024):
                    conn.sendall(b"HTTP/1.1 400 Bad Request\r\nContent-Length: 11\r\n\r\nBad Request")
                self.stop.wait()
            elif self.kind == "banner":  # speaks first, not Dask (an SSH server's banner)
                conn.sendall(b"SSH-2.0-OpenSSH_9.6\r\n")
                self.stop.wait()
        except OSError:
            pass

    def close(self):
        self.stop.set()
        for c in self.open:
            c.close()
        self.sock.close()


@pytest.fixture
def http_server():
    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    server = socketserver.ThreadingTCPServer(("127.0.0.1", 0), Quiet)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"tcp://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


@pytest.mark.parametrize("command", ["simulate", "atlas"])
@pytest.mark.parametrize("kind", ["silent"] + [  # each waits for the timeout: one in test-fast
    pytest.param(k, marks=pytest.mark.slow) for k in ("backlog", "proxy", "banner", "http")])
def test_a_listener_that_is_not_a_dask_scheduler_is_refused_within_the_timeout(
        capsys, http_server, command, kind):
    if kind == "http":
        address, server = http_server, None
    else:
        server = _Server(kind)
        address = f"tcp://127.0.0.1:{server.port}"
    argv = (["simulate", "--scenario", "uniform", "--k", "0.2", "--sizes", "50", "--reps", "10"]
            if command == "simulate" else
            ["atlas", "--scenario", "uniform", "--method", "mrmr", "--vary", "k"])
    start = time.monotonic()
    try:
        code, out, err = run(capsys, *argv, "--scheduler", address, "--connect-timeout", "1.5")
    finally:
        if server is not None:
            server.close()
    elapsed = time.monotonic() - start
    assert (code, out) == (2, ""), err
    assert err.count("\n") == 1 and err.startswith("fstheory: error: parameter 'scheduler': ")
    if kind in ("silent", "backlog", "http", "proxy"):
        assert f"no Dask scheduler answered at '{address}' within 1.5 s" in err
    else:
        assert "is not a Dask scheduler" in err
    assert elapsed < 1.5 + 60  # the timeout, and a margin for a loaded machine: never a hang


@pytest.mark.parametrize("address, message", [
    ("bogus://x", "the scheme 'bogus://' is not supported"),
    ("http://127.0.0.1:8786", "the scheme 'http://' is not supported"),
    ("not an address", "must be a Dask scheduler address such as tcp://host:8786, with a port"),
    ("tcp://host-without-port", "with a port"),
    ("", "must be a Dask scheduler address"),
    ("tcp://127.0.0.1:1", "cannot connect to 'tcp://127.0.0.1:1'"),
    ("tcp://name.invalid:8786", "cannot resolve the host 'name.invalid'"),
])
@pytest.mark.parametrize("command", ["simulate", "simulate-study"])
def test_a_bad_scheduler_address_is_one_line_and_exit_2(capsys, tmp_path, address, message, command):
    argv = (["simulate", "--scenario", "uniform", "--k", "0.2", "--sizes", "50", "--reps", "10"]
            if command == "simulate" else ["simulate-study", "--out", str(tmp_path / "sim")])
    code, out, err = run(capsys, *argv, "--scheduler", address)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and message in err, err


@pytest.mark.parametrize("value", ["0", "-1", "abc", "1e9", "nan"])
def test_a_bad_connect_timeout_is_refused(capsys, value):
    code, out, err = run(capsys, "simulate", "--scenario", "uniform", "--k", "0.2", "--sizes", "50",
                         "--reps", "10", "--connect-timeout", value)
    assert code == 2 and "parameter 'connect-timeout'" in err, err


def test_the_api_refuses_a_silent_address_within_its_timeout():
    from fstheory.simulation.scheduler import connect
    from fstheory.simulation.errors import SimulationInputError

    server = _Server("silent")
    try:
        start = time.monotonic()
        with pytest.raises(SimulationInputError, match="within 0.5 s"):
            connect(f"tcp://127.0.0.1:{server.port}", timeout=0.5)
        assert time.monotonic() - start < 30
    finally:
        server.close()


# ----- a real cluster -----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def cluster():
    import distributed

    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  dashboard_address=None) as c:
        yield c


SIMULATE = ["simulate", "--scenario", "uniform", "--scenario", "normal", "--k", "0.2,0.8",
            "--sizes", "50,200", "--reps", "300", "--seed", "7", "--json"]
ATLAS = ["atlas", "--scenario", "uniform", "--method", "mrmr", "--vary", "k", "--grid", "8",
         "--json"]


@pytest.mark.slow
@pytest.mark.parametrize("argv", [SIMULATE, ATLAS], ids=["simulate", "atlas"])
def test_a_local_cluster_of_worker_processes_gives_byte_identical_results(capsys, cluster, argv):
    code, local, err = run(capsys, *argv)
    assert code == 0, err
    transitions = cluster.scheduler.transition_counter
    code, remote, err = run(capsys, *argv, "--scheduler", cluster.scheduler_address)
    assert code == 0, err
    assert remote == local
    assert len(cluster.workers) == 2
    assert cluster.scheduler.transition_counter > transitions  # the work went to the cluster
