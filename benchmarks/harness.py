"""Helpers for every ``benchmarks/bench_*.py`` suite (ours, and bench_mcp.py / bench_cli.py).

Use :func:`run` instead of calling the ``benchmark`` fixture directly: it names the group, fills
``extra_info`` with what the dashboard needs, and picks rounds that keep the whole suite bounded::

    from benchmarks.harness import run


    def test_roundtrip(benchmark):
        data = b"..."
        run(
            benchmark,
            call_tool,
            data,
            op="mcp-roundtrip",
            shape="ui",
            size="1KiB",
            impl="nuif-mcp",
            role="ours",
            input_bytes=len(data),
        )

``benchmarks/conftest.py`` then adds ``mb_per_s`` (from the median) and ``ratio_to`` (against the
other implementations of the same group) to every entry at the end of the session, so
``--benchmark-json`` / ``--benchmark-autosave`` output is directly usable by the dashboard.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

KiB = 1024
MiB = 1024 * 1024


def nuif_codec() -> str | None:
    """Which RFC 8785 codec ``nuif_core`` runs on: ``compiled (<routes>)``, ``python`` (the
    twin, e.g. under ``NUIF_NO_EXTENSIONS``) or ``placeholder`` (a compiled ``_speedups`` that only
    re-exports the twin).  Recorded with every ``ours`` entry so a dashboard never credits the wrong code."""
    try:
        from nuif_core import _codec
    except ImportError:
        return None
    if getattr(_codec, "IMPLEMENTATION", "python") != "compiled":
        return "python"
    if _codec.canonical_json is _codec.twin().canonical_json:
        return "placeholder"
    # the compiled codec's optional fast routes (docs/format.md), as `nuif --version` names them
    return f"compiled ({', '.join(_codec.routes())})"


def group_name(op: str, shape: str, size: str) -> str:
    return f"{op} {shape} {size}"


def rounds_for(input_bytes: int, slow: bool = False) -> tuple[int, int] | None:
    """``(rounds, warmup_rounds)`` for pedantic runs, or None to let pytest-benchmark calibrate.

    Up to 64 KiB the default calibration (≥ 5 rounds, ~1 s) is cheap.  Above, every round is one
    call: 7 rounds (+1 warm-up) up to 2 MiB, 5 (+1 warm-up) beyond — a median of 3 proved too
    noisy on a shared 2-core machine, and more would let the 16 MiB groups dominate the run.  *slow* implementations (the pure-Python twin) get 3 and 1.
    """
    if input_bytes <= 64 * KiB and not slow:
        return None
    if input_bytes <= 2 * MiB:
        return (3, 0) if slow else (7, 1)
    return (1, 0) if slow else (5, 1)


def run(
    benchmark: Any,
    fn: Callable[..., Any],
    *args: Any,
    op: str,
    shape: str,
    size: str,
    impl: str,
    role: str,
    input_bytes: int,
    slow: bool = False,
    rounds: tuple[int, int] | None = None,
    **extra: Any,
) -> Any:
    """Benchmark ``fn(*args)`` as implementation *impl* of group ``op shape size``."""
    benchmark.group = group_name(op, shape, size)
    benchmark.extra_info.update(
        op=op, shape=shape, size=size, impl=impl, role=role, input_bytes=int(input_bytes), **extra
    )
    if role == "ours" and "nuif_codec" not in extra:
        benchmark.extra_info["nuif_codec"] = nuif_codec()
    plan = rounds or rounds_for(input_bytes, slow)
    if plan is None:
        return benchmark(fn, *args)
    n, warmup = plan
    benchmark.extra_info["rounds_policy"] = f"pedantic {n} rounds, {warmup} warm-up"
    return benchmark.pedantic(fn, args=args, rounds=n, warmup_rounds=warmup, iterations=1)
