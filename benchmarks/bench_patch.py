"""apply-patch (N `set` operations, NUIF vs jsonpatch on the equivalent RFC 6902 patch) and diff
(NUIF's semantic diff vs jsonpatch.make_patch)."""

from __future__ import annotations

import pytest

from benchmarks._docs import PATCH_SCENARIOS, SIZES, diff_pair, patch_case
from benchmarks.harness import run
from benchmarks.impls import APPLY_PATCH, DIFF


@pytest.mark.parametrize("impl", APPLY_PATCH, ids=lambda i: i.name)
@pytest.mark.parametrize("scenario", PATCH_SCENARIOS, ids=lambda s: s[0])
def test_apply_patch(benchmark, scenario, impl):
    if impl.fn is None:
        pytest.skip(impl.missing)
    label, n_nodes, n_ops = scenario
    document, patch, rfc6902 = patch_case(n_nodes, n_ops)
    run(
        benchmark,
        impl.fn,
        document,
        patch if impl.role == "ours" else rfc6902,
        op="apply-patch",
        shape="ui",
        size=label,
        impl=impl.name,
        role=impl.role,
        input_bytes=len(document),
        nodes=n_nodes,
        ops=n_ops,
        patch_bytes=len(patch if impl.role == "ours" else rfc6902),
    )


@pytest.mark.parametrize("impl", DIFF, ids=lambda i: i.name)
@pytest.mark.parametrize("size", SIZES)
def test_diff(benchmark, size, impl):
    if impl.fn is None:
        pytest.skip(impl.missing)
    a, b = diff_pair(size)
    run(
        benchmark,
        impl.fn,
        a,
        b,
        op="diff",
        shape="ui",
        size=size,
        impl=impl.name,
        role=impl.role,
        input_bytes=len(a) + len(b),
    )


#: diff scenarios by node count: (label, nodes); ``b`` is corpus.variant(a) (ids persist)
DIFF_NODE_SCENARIOS = [("small-100-nodes", 100), ("10k-nodes", 10_000)]


@pytest.mark.parametrize("impl", DIFF, ids=lambda i: i.name)
@pytest.mark.parametrize("scenario", DIFF_NODE_SCENARIOS, ids=lambda s: s[0])
def test_diff_nodes(benchmark, scenario, impl):
    """Diff two documents of N nodes where ids persist (attribute edits, retypes, swaps, a few
    inserted and removed leaves): NUIF's semantic diff vs jsonpatch.make_patch."""
    if impl.fn is None:
        pytest.skip(impl.missing)
    from benchmarks import corpus

    label, n_nodes = scenario
    a = corpus.load_ui_nodes(n_nodes)
    b = corpus.variant(a)
    run(
        benchmark,
        impl.fn,
        a,
        b,
        op="diff",
        shape="ui",
        size=label,
        impl=impl.name,
        role=impl.role,
        input_bytes=len(a) + len(b),
        nodes=n_nodes,
    )
