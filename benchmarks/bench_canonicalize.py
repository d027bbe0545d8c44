"""canonicalize: text → canonical bytes + hash, NUIF against rfc8785, json and orjson."""

from __future__ import annotations

import pytest

from benchmarks import interleaved
from benchmarks._docs import SHAPES, SIZES, doc
from benchmarks.harness import run
from benchmarks.impls import CANONICALIZE


@pytest.mark.parametrize("impl", CANONICALIZE, ids=lambda i: i.name)
@pytest.mark.parametrize("size", SIZES)
@pytest.mark.parametrize("shape", SHAPES)
def test_canonicalize(benchmark, shape, size, impl):
    data = doc(shape, size)
    run(
        benchmark,
        impl.fn,
        data,
        op="canonicalize",
        shape=shape,
        size=size,
        impl=impl.name,
        role=impl.role,
        input_bytes=len(data),
        slow=impl.name == "nuif-py",
    )
    if impl.name == "nuif":
        interleaved.record(benchmark, "canonicalize", shape, size)
