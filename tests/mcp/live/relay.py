"""A stdio server command that relays to an already running server: ``python relay.py <socket>``.

Used by tests/mcp/test_live_clients.py to hand a client a server that is already warm: the test
starts ``nuif-mcp`` itself and listens on a Unix socket; the client spawns this relay, which
copies its stdin to the socket and the socket to its stdout until both directions end. It opens
no network connection (an ``AF_UNIX`` socket in the test's temporary directory).
"""

from __future__ import annotations

import os
import selectors
import socket
import sys


def main(path: str) -> int:
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    sock.connect(path)
    sel = selectors.DefaultSelector()
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    sel.register(stdin, selectors.EVENT_READ)
    sel.register(sock, selectors.EVENT_READ)
    open_ends = 2
    while open_ends:
        for key, _ in sel.select(timeout=120) or [(None, None)]:
            if key is None:
                return 1  # nothing moved for two minutes: give up
            if key.fileobj == stdin:
                data = os.read(stdin, 65536)
                if data:
                    sock.sendall(data)
                else:
                    sel.unregister(stdin)
                    sock.shutdown(socket.SHUT_WR)
                    open_ends -= 1
            else:
                data = sock.recv(65536)
                if not data:
                    sel.unregister(sock)
                    open_ends -= 1
                while data:
                    data = data[os.write(stdout, data) :]
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1]))
