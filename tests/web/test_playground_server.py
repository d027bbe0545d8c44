"""The ``nuif playground`` server under malformed requests, disconnecting clients and idle
connections: every request gets an HTTP answer, nothing prints a traceback, and an idle
connection is closed by the server. A real server on 127.0.0.1, raw sockets, bounded waits."""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

from nuif_cli import _playground

WAIT = 5.0  # every socket operation of these tests
BIG = 32 * 1024 * 1024  # more than the loopback socket buffers hold


def _fake_runtime(folder: Path) -> Path:
    folder.mkdir(parents=True)
    for name in _playground.PYODIDE_FILES:
        (folder / name).write_bytes(b"// " + name.encode())
    (folder / "package.json").write_text(
        json.dumps({"name": "pyodide", "version": _playground.PYODIDE_VERSION})
    )
    return folder


@dataclass
class Served:
    host: str
    port: int
    runtime: Path
    done: Callable[[int], None]  # wait until this many connections were handled to the end


@pytest.fixture
def serve(tmp_path: Path) -> Iterator[Callable[..., Served]]:
    servers = []

    def start(**options: float) -> Served:
        runtime = _fake_runtime(tmp_path / f"pyodide-{len(servers)}")
        server = _playground.make_server(0, str(runtime), None, **options)
        finished = threading.Semaphore(0)
        handle = server.process_request_thread

        def counted(request, client_address) -> None:  # the handler's thread, error report included
            try:
                handle(request, client_address)
            finally:
                finished.release()

        server.process_request_thread = counted  # type: ignore[method-assign]
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        servers.append((server, thread))

        def done(count: int) -> None:
            for _ in range(count):
                assert finished.acquire(timeout=10), "the server did not finish a connection"

        host, port = server.server_address[:2]
        return Served(host, port, runtime, done)

    yield start
    for server, thread in servers:
        server.shutdown()
        server.server_close()
        thread.join(timeout=10)


def _exchange(served: Served, raw: bytes) -> bytes:
    """Send ``raw``, read the answer until the server closes (HTTP/1.0)."""
    with socket.create_connection((served.host, served.port), timeout=WAIT) as sock:
        sock.sendall(raw)
        chunks = []
        while chunk := sock.recv(65536):
            chunks.append(chunk)
    return b"".join(chunks)


def _status(answer: bytes) -> int:
    assert answer.startswith(b"HTTP/1."), answer[:80]
    return int(answer.split(b" ", 2)[1])


@pytest.mark.parametrize("path", [b"/pyodide/a\0b", b"/pyodide/a%00b", b"/\0", b"/index.html%00"])
def test_a_nul_byte_in_the_path_is_a_400_not_a_dropped_connection(serve, capfd, path) -> None:
    served = serve()
    assert _status(_exchange(served, b"GET " + path + b" HTTP/1.1\r\nHost: x\r\n\r\n")) == 400
    served.done(1)
    assert "Traceback" not in capfd.readouterr().err


def test_a_long_request_path_gets_an_answer(serve, capfd) -> None:
    served = serve()
    one_long_name = b"/pyodide/" + b"a" * 5000  # longer than a file name may be
    many_names = b"/pyodide/" + (b"b" * 200 + b"/") * 40  # longer than a path may be
    for path, status in [(one_long_name, 404), (many_names, 404), (b"/" + b"c" * 70000, 414)]:
        assert _status(_exchange(served, b"GET " + path + b" HTTP/1.1\r\n\r\n")) == status
    served.done(3)
    assert "Traceback" not in capfd.readouterr().err


def test_a_client_leaving_mid_download_prints_no_traceback(serve, capfd) -> None:
    served = serve()
    (served.runtime / "big.bin").write_bytes(b"\0" * BIG)
    with socket.socket() as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
        sock.settimeout(WAIT)
        sock.connect((served.host, served.port))
        sock.sendall(b"GET /pyodide/big.bin HTTP/1.1\r\n\r\n")
        assert sock.recv(16).startswith(b"HTTP/1.0 200")
        # closing with unread data sends a reset: the server's write fails
    served.done(1)
    assert capfd.readouterr().err == ""


def test_a_client_resetting_mid_request_prints_no_traceback(serve, capfd) -> None:
    served = serve()
    with socket.socket() as sock:
        sock.settimeout(WAIT)
        sock.connect((served.host, served.port))
        sock.sendall(b"GET /index.ht")
        time.sleep(0.2)  # not needed for the reset; lets the server be reading when it comes
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\1\0\0\0\0\0\0\0")  # close = reset
    served.done(1)
    assert capfd.readouterr().err == ""


def test_an_idle_connection_is_closed_by_the_server(serve, capfd) -> None:
    assert _playground.make_server.__kwdefaults__["timeout"] == _playground.TIMEOUT == 30
    served = serve(timeout=0.5)
    with socket.create_connection((served.host, served.port), timeout=1) as sock:
        deadline = time.monotonic() + 60  # a hang guard only: the server's timeout is 0.5 s
        closed = False
        while not closed and time.monotonic() < deadline:
            try:
                closed = sock.recv(1) == b""
            except TimeoutError:
                continue
            except ConnectionResetError:
                closed = True
        assert closed, "the server kept an idle connection open"
    served.done(1)
    assert capfd.readouterr().err == ""
    # the server still answers
    assert _status(_exchange(served, b"GET / HTTP/1.0\r\n\r\n")) == 200


def test_the_favicon_the_browser_asks_for_is_served(serve) -> None:
    served = serve()
    answer = _exchange(served, b"GET /favicon.ico HTTP/1.0\r\n\r\n")
    assert _status(answer) == 200
    head, body = answer.split(b"\r\n\r\n", 1)
    assert b"\r\nContent-Type: image/svg+xml\r\n" in head
    assert body.startswith(b"<svg ") and body.rstrip().endswith(b"</svg>")
