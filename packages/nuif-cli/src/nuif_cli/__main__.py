"""``python -m nuif_cli`` and the ``nuif`` console script."""

from __future__ import annotations

from ._cli import EXIT_TERMINATED, main

__all__ = ["entry", "main"]


def entry() -> None:
    """Console-script entry point: run :func:`main` and exit with its status.

    After SIGTERM (status 143) the command has already cleaned up what it owns (temporary files,
    a cluster it started); the process then ends at once rather than wait for threads a library
    left behind (a Dask client still connecting to a scheduler that never answers)."""
    status = main()
    if status == EXIT_TERMINATED:
        import os
        import sys

        for stream in (sys.stdout, sys.stderr):
            try:
                stream.flush()
            except (OSError, ValueError):
                pass
        os._exit(status)
    raise SystemExit(status)


if __name__ == "__main__":
    entry()
