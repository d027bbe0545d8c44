"""validate (all diagnostics + hash) and inspect (hash, counts, outline), with a Python peer."""

from __future__ import annotations

import pytest

from benchmarks import interleaved
from benchmarks._docs import SHAPES, SIZES, doc
from benchmarks.harness import run
from benchmarks.impls import INSPECT, VALIDATE


@pytest.mark.parametrize("impl", VALIDATE, ids=lambda i: i.name)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("shape", SHAPES)
def test_validate(benchmark, shape, size, impl):
    if impl.fn is None:
        pytest.skip(impl.missing)
    data = doc(shape, size)
    out = run(
        benchmark,
        impl.fn,
        data,
        op="validate",
        shape=shape,
        size=size,
        impl=impl.name,
        role=impl.role,
        input_bytes=len(data),
    )
    assert (out.valid if impl.role == "ours" else out[0]) is True
    if impl.role == "ours":
        interleaved.record(benchmark, "validate", shape, size)


@pytest.mark.parametrize("impl", INSPECT, ids=lambda i: i.name)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("shape", SHAPES)
def test_inspect(benchmark, shape, size, impl):
    if impl.fn is None:
        pytest.skip(impl.missing)
    data = doc(shape, size)
    run(
        benchmark,
        impl.fn,
        data,
        op="inspect",
        shape=shape,
        size=size,
        impl=impl.name,
        role=impl.role,
        input_bytes=len(data),
    )
