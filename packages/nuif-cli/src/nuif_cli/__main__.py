"""``python -m nuif_cli`` and the ``nuif`` console script."""

from __future__ import annotations

import os
import sys

from ._cli import EXIT_TERMINATED, main

__all__ = ["entry", "main"]


def entry() -> None:
    """Console-script entry point: run :func:`main` and exit with its status.

    After SIGTERM the command has already cleaned up (its temporary files are gone, a cluster it
    started is closed); the process then ends at once instead of waiting for library threads
    still trying to reach a scheduler, which can take as long as ``--connect-timeout``."""
    status = main()
    if status == EXIT_TERMINATED:
        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
    raise SystemExit(status)


if __name__ == "__main__":
    entry()
