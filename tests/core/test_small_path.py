"""The one-call path of small documents (``_speedups_small.pxi``, ``csrc/nuif_small.h``): the
front doors give it the calls they take whose input is shorter than 16 KiB; it answers a valid
document in one C function on buffers kept between calls, and passes everything else on to the
general path.  Whichever path answers, the answer -- result, report or error with its code,
message, pointer, line and column -- is the same."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nuif_strategies import (attr_names, damaged_corpus_texts, ids, kinds, reindented_texts,
                             values)
from nuif_switches import general_path

import nuif_core
from nuif_core import NuifError, _codec

_speedups = _codec.compiled() or pytest.skip("the compiled codec is not built", allow_module_level=True)
if _codec.IMPLEMENTATION != "compiled":
    pytest.skip("the pure-Python twin is the codec in use: no doors", allow_module_level=True)
if _speedups.hash_backend() != "openssl":
    pytest.skip("the path hashes with libcrypto's block functions only", allow_module_level=True)

SMALL_MAX = 16 * 1024


def _outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    try:
        return fn(*args, **kwargs)
    except NuifError as e:
        return ("NuifError", e.code, e.message, e.pointer, e.line, e.column)


def _both_ways(data: bytes) -> tuple[Any, Any, int]:
    """(canonicalize's and validate's outcomes, how many of the two the path answered); the
    general path's outcomes are asserted to be the same."""
    before = _speedups._small_count()
    got = (_outcome(nuif_core.canonicalize, data), _outcome(nuif_core.validate, data))
    taken = _speedups._small_count() - before
    with general_path(_speedups):
        assert _speedups._small_count() == before + taken
        want = (_outcome(nuif_core.canonicalize, data), _outcome(nuif_core.validate, data))
        assert _speedups._small_count() == before + taken  # off: it answers nothing
    assert got == want
    return got[0], got[1], taken


def _doc(root: dict[str, Any], meta: Any = None, indent: int | None = None) -> bytes:
    d: dict[str, Any] = {"nuif": 0, "root": root}
    if meta is not None:
        d["meta"] = meta
    return json.dumps(d, indent=indent, ensure_ascii=False).encode()


def test_it_answers_valid_documents_and_passes_the_rest_on() -> None:
    valid = _doc({"id": "a", "kind": "k", "attrs": {"t": "é\n", "n": [1, 2.5, 1e20]},
                  "children": []}, meta={})
    result, report, taken = _both_ways(valid)
    assert taken == 2
    assert result.canonical == (b'{"nuif":0,"root":{"attrs":{"n":[1,2.5,100000000000000000000],'
                                b'"t":"\xc3\xa9\\n"},"id":"a","kind":"k"}}')
    assert result.hash == "sha256:" + hashlib.sha256(result.canonical).hexdigest()
    assert result.changed is True and report.valid is True and report.hash == result.hash
    # canonical input: unchanged
    assert _both_ways(result.canonical)[0].changed is False
    for broken in (valid[:-1], valid.replace(b'"a"', b'"a", "id": "b"'),   # text errors
                   valid.replace(b'"k"', b'"K"'),                          # a schema problem
                   valid.replace(b'"kind": "k"', b'"kind": "k", "x": 1'),
                   b'{"nuif": 0, "root": {"id": "a", "kind": "k", "children": [{"id": "a", '
                   b'"kind": "k"}]}}',                                     # a duplicate id
                   b"\xef\xbb\xbf" + valid, valid.replace(b"\xc3\xa9", b"\xc3"),
                   b'{"nuif": 1, "root": {"id": "a", "kind": "k"}}', b"[]", b""):
        canonical, report, taken = _both_ways(broken)
        assert taken == 0, broken
        assert isinstance(canonical, tuple) or canonical is None or report.valid is False


def _sized(n: int) -> bytes:
    """A valid document of exactly n bytes (n >= 65)."""
    head = b'{"nuif": 0, "root": {"id": "a", "kind": "k", "attrs": {"t": "'
    tail = b'"}}}'
    return head + b"x" * (n - len(head) - len(tail)) + tail


def test_inputs_shorter_than_16_kib_are_its_own() -> None:
    for n, mine in ((65, True), (SMALL_MAX - 1, True), (SMALL_MAX, False), (SMALL_MAX + 1, False)):
        data = _sized(n)
        assert len(data) == n
        assert _both_ways(data)[2] == (2 if mine else 0), n


def test_switches_that_route_small_inputs_otherwise_turn_it_off() -> None:
    data = _sized(1000)
    arms: list[tuple[Callable[[], Any], Callable[[Any], Any]]] = [
        (lambda: _speedups._set_small(False), _speedups._set_small),
        (lambda: _speedups._set_sha_beside(False), _speedups._set_sha_beside),
        (lambda: _speedups._set_sha_beside(True, True), _speedups._set_sha_beside),
        (lambda: _speedups._set_openssl(False), _speedups._set_openssl),
        (lambda: _speedups._set_walk(False), _speedups._set_walk),
    ]
    want = _both_ways(data)[:2]
    for turn_off, restore in arms:
        old = turn_off()
        try:
            before = _speedups._small_count()
            assert (nuif_core.canonicalize(data), nuif_core.validate(data)) == want
            assert _speedups._small_count() == before
        finally:
            restore(old)
    assert _both_ways(data)[2] == 2


def _deep(depth: int) -> bytes:
    return _doc({"id": "a", "kind": "k"}, meta={"m": json.loads("[" * depth + "1" + "]" * depth)})


def test_documents_nesting_deeper_than_its_stacks_go_the_general_way() -> None:
    # the tape's deepest level: the document object, meta, then the arrays; the path's stacks
    # hold 32 levels, two of them the check's margin
    for depth, mine in ((1, True), (27, True), (28, True), (29, False), (126, False)):
        result, report, taken = _both_ways(_deep(depth))
        assert result.canonical.count(b"[") == depth and report.valid
        assert taken == (2 if mine else 0), depth
    # past the default limit of 128: a NUIF_DEPTH error, from the general path
    canonical, report, taken = _both_ways(_deep(127))
    assert canonical[:2] == ("NuifError", "NUIF_DEPTH") and taken == 0


def test_doubles_only_python_prints_go_the_general_way() -> None:
    data = _doc({"id": "a", "kind": "k", "attrs": {"x": [0.1, 1e-7, 123.456e300, 5e-324]}})
    assert _both_ways(data)[2] == 2
    old = _speedups._set_float_libs(False)
    try:
        result, _, taken = _both_ways(data)
    finally:
        _speedups._set_float_libs(old)
    assert taken == 0
    assert result.canonical.endswith(b'"x":[0.1,1e-7,1.23456e+302,5e-324]},"id":"a","kind":"k"}}')


def _growing(count: int) -> bytes:
    """A valid document whose canonical text is up to about four times its size (each 1e20 is
    written in full, 21 digits)."""
    return (b'{"nuif": 0, "root": {"id": "a", "kind": "k", "attrs": {"n": ['
            + b",".join([b"1e20"] * count) + b"]}}}")


def test_a_text_that_outgrows_its_buffer_is_hashed_across_the_move() -> None:
    """From freed buffers, the text starts in one of the input's size and moves while it is
    written and hashed, at every offset of a 64-byte block."""
    for count in list(range(1, 70)) + [500, 3000]:
        data = _growing(count)
        want = _canonical(data)
        _speedups._small_reset()
        result, report, taken = _both_ways(data)
        assert taken == 2 and (count < 10 or len(result.canonical) > len(data) + 64)
        assert (result.canonical, result.hash) == want and report.hash == want[1]


def _canonical(data: bytes) -> tuple[bytes, str]:
    """The twin's canonical text and its hashlib hash (no compiled code involved)."""
    text = _codec.twin().canonical_document(data, 128, 250_000)
    assert text is not None
    return text, "sha256:" + hashlib.sha256(text).hexdigest()


def test_buffers_kept_from_a_large_call_serve_small_ones_and_the_reverse() -> None:
    texts = [_growing(3000), _sized(70), _deep(20), _sized(SMALL_MAX - 1), _growing(2)]
    for _ in range(2):
        for data in texts + texts[::-1]:
            result, report, taken = _both_ways(data)
            assert taken == 2
            assert (result.canonical, result.hash) == _canonical(data)


def _with_ids(prefix: str, clash: bool = False) -> bytes:
    kids = [{"id": f"{prefix}{i}", "kind": "k"} for i in range(8)]
    if clash:
        kids.append({"id": f"{prefix}7", "kind": "k"})
    return _doc({"id": "r", "kind": "k", "children": kids})


def test_its_id_set_starts_anew_each_call_through_every_generation() -> None:
    """Each call stamps its ids with a new generation, and a set whose generations are used up
    is zeroed; generations only move forward here (one used twice between zeroings would see
    the ids of its first use), and the set is left to be zeroed by the next call."""
    x, y = _with_ids("x"), _with_ids("y")
    _speedups._set_small_generation(0xFFFF)  # the next call zeroes the set
    try:
        assert _both_ways(x)[2] == 2
        for gen in (5, 0xFFFD, 0xFFFE):  # 0xFFFE: the second call of y zeroes the set
            _speedups._set_small_generation(gen)
            assert _both_ways(y)[2] == 2
            _, report, taken = _both_ways(_with_ids("y", clash=True))
            assert taken == 0 and report.valid is False
            assert [d.code for d in report.diagnostics] == ["NUIF_DUPLICATE_ID"]
        _speedups._set_small_generation(0xFFFF)
        assert _both_ways(x)[2] == 2
        assert _both_ways(_with_ids("x", clash=True))[2] == 0
        for _ in range(3):
            assert _both_ways(x)[2] == 2
    finally:
        _speedups._set_small_generation(0xFFFF)


def test_corpus_documents_damaged_and_whole_get_the_same_answers() -> None:
    taken = 0
    inserts = (b'"x":1,', b"\xc3", b"1e999", b'"\\ud800"', b",", b'"\\u0041"', b"[[[[", b"1e20,")
    texts = list(damaged_corpus_texts(20261205, 20, inserts))
    for data in texts:
        taken += _both_ways(data)[2]
    assert 0 < taken < 2 * len(texts)  # some answered here, some passed on


def test_reindented_and_generated_texts_get_the_same_answers() -> None:
    for data in reindented_texts():
        _both_ways(data)
        _both_ways(_doc({"id": "a", "kind": "k"}, meta={"m": json.loads(data)}, indent=3))


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(ids, kinds, st.dictionaries(attr_names, values, max_size=5),
       st.lists(st.tuples(ids, kinds), max_size=4), st.sampled_from([None, 0, 1, 2, "\t"]),
       st.one_of(st.none(), st.dictionaries(attr_names, values, max_size=3)))
def test_generated_documents_get_the_same_answers(
    node_id: str, kind: str, attrs: dict[str, Any], kids: list[tuple[str, str]], indent: Any,
    meta: Any
) -> None:
    root: dict[str, Any] = {"id": node_id, "kind": kind, "attrs": attrs,
                            "children": [{"id": i, "kind": k} for i, k in kids]}
    data = _doc(root, meta=meta, indent=indent)
    result, report, _ = _both_ways(data)
    if not isinstance(result, tuple) and result is not None:
        assert result.hash == "sha256:" + hashlib.sha256(result.canonical).hexdigest()
