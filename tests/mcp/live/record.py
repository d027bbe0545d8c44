"""A stdio server command that records the exchange: ``python record.py <prefix> <cmd> [args...]``.

Used by tests/mcp/test_live_clients.py between a host CLI and ``nuif-mcp``. It starts ``cmd``
with its stderr in ``<prefix>.err`` and copies the client's stdin to the server and the server's
stdout to the client, writing each chunk to ``<prefix>.in`` / ``<prefix>.out`` *before* passing
it on: whatever one side has received is already on disk, even when a host kills the whole process
group as soon as it has read an answer (Codex does, after a refusal). ``tee`` writes its
standard output first, so it can be killed between the two writes.
"""

from __future__ import annotations

import os
import selectors
import subprocess
import sys


def main(prefix: str, command: list[str]) -> int:
    with open(prefix + ".err", "wb") as err:
        server = subprocess.Popen(
            command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=err
        )
    assert server.stdin is not None and server.stdout is not None
    to_server, from_server = server.stdin.fileno(), server.stdout.fileno()
    stdin, stdout = sys.stdin.fileno(), sys.stdout.fileno()
    sent = open(prefix + ".in", "wb", buffering=0)  # noqa: SIM115 - closed at exit
    answered = open(prefix + ".out", "wb", buffering=0)  # noqa: SIM115
    sel = selectors.DefaultSelector()
    sel.register(stdin, selectors.EVENT_READ, (sent, to_server))
    sel.register(from_server, selectors.EVENT_READ, (answered, stdout))
    forwarding = {to_server: True, stdout: True}
    while True:
        events = sel.select(timeout=120)
        if not events:
            server.kill()  # nothing moved for two minutes: give up
            return 1
        for key, _ in events:
            record, target = key.data
            data = os.read(key.fd, 65536)
            if not data:
                sel.unregister(key.fd)
                if key.fd == stdin:  # the client is done: so is the server's input
                    server.stdin.close()
                    forwarding[to_server] = False
                    continue
                os.close(stdout)  # the server is done: the client sees end of output
                return server.wait(timeout=60)
            record.write(data)
            try:
                while data and forwarding[target]:
                    data = data[os.write(target, data) :]
            except BrokenPipeError:
                forwarding[target] = False  # that side is gone; keep recording the other


if __name__ == "__main__":
    sys.exit(main(sys.argv[1], sys.argv[2:]))
