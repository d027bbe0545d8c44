"""Documents for the suites, loaded once per process (the 16 MiB ones come from the disk cache)."""

from __future__ import annotations

import functools

from benchmarks import corpus

SIZES = list(corpus.SIZES)
SHAPES = list(corpus.SHAPES)
#: apply-patch scenarios: (label, nodes in the document, set operations)
PATCH_SCENARIOS = [("small-100-nodes-10-ops", 100, 10), ("10k-nodes-1k-ops", 10_000, 1_000)]


@functools.cache
def doc(shape: str, size: str) -> bytes:
    return corpus.load(shape, size)


@functools.cache
def diff_pair(size: str) -> tuple[bytes, bytes]:
    a = corpus.load("ui", size)
    return a, corpus.load_variant("ui", size)


@functools.cache
def patch_case(n_nodes: int, n_ops: int) -> tuple[bytes, bytes, bytes]:
    """(document, NUIF patch text, equivalent RFC 6902 patch text)."""
    import json

    from benchmarks.impls import nuif_codec

    document = corpus.load_ui_nodes(n_nodes)
    _, base = nuif_codec(document)  # generated documents are normalized: generic JCS = canonical
    patch, rfc = corpus.set_patch(document, n_ops, base=base)
    return document, patch, json.dumps(rfc, ensure_ascii=False).encode()
