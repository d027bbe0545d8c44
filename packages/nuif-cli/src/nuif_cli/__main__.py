"""``python -m nuif_cli`` and the ``nuif`` console script."""

from __future__ import annotations

from ._cli import main

__all__ = ["entry", "main"]


def entry() -> None:
    """Console-script entry point: run :func:`main` and exit with its status."""
    raise SystemExit(main())


if __name__ == "__main__":
    entry()
