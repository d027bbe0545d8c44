"""``inspect`` in one compiled call (``_codec.inspect_summary``) against the Python path.

The compiled ``inspect_summary`` parses, checks (NUIF-0 §3) and writes the document as
``canonical_document`` does, then reads the node tree off the checked token tape: node count,
depth, kinds, root and the outline, without building the Python model.  It returns None exactly
when ``canonical_document`` does, and ``inspect`` then takes the Python path (model + walk), which
owns every error.  These properties pin that split: the same ``Inspection`` as the Python path for
valid documents in any spelling, the same errors for invalid ones, and the twin agreeing with the
compiled module.
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import nuif_core
from nuif_core import Limits, NuifError, _codec, _document
from nuif_core._document import Inspection, NodeRef, OutlineEntry
from tests.core.test_document_fast_path import ZEROS, _damage, _mutate, documents

_speedups = _codec.compiled() or pytest.skip(
    "the compiled codec is not built", allow_module_level=True
)
_codec_py = _codec.twin()

# modest: every example runs inspect four times per implementation
SETTINGS = settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.too_slow])
OUTLINES = (0, 1, 3, 100)


def _python_inspect(data: bytes, limits: Limits, max_outline: int) -> Inspection:
    """``inspect`` as it was before the compiled summary: the canonical text and the model from
    ``parse_canonical``, then the walk over the model."""
    data, canonical, doc = _document.parse_canonical(data, limits)
    return _document._inspection(data, canonical, doc, max_outline)


def _model_inspect(data: bytes, limits: Limits, max_outline: int) -> Inspection:
    """The fallback of ``inspect`` (Python checker, normalized model of the input)."""
    canonical, doc = _document._checked_canonical(data, limits)
    return _document._inspection(data, canonical, doc, max_outline)


def _err(fn: Any, *args: Any, **kwargs: Any) -> tuple[Any, ...] | None:
    try:
        fn(*args, **kwargs)
    except NuifError as e:
        return (e.code, e.message, e.pointer, e.line, e.column)
    return None


def tuple_of(*args: Any) -> tuple[Any, ...]:
    return args


def _summary(impl: Any, data: bytes, limits: Limits, max_outline: int, plain: bool = False) -> Any:
    classes = (tuple_of, tuple_of, tuple_of) if plain else (Inspection, OutlineEntry, NodeRef)
    return impl.inspect_summary(data, limits.max_depth, limits.max_nodes, max_outline, *classes)


# -- spellings ------------------------------------------------------------------------------------


class _Raw(str):
    """Text that ``_spell`` writes as it is (a number literal)."""


def _string(s: str, rng: random.Random, escape: float) -> str:
    """A JSON string literal of ``s``, with some characters written as ``\\u`` escapes."""
    out = ['"']
    for ch in s:
        cp = ord(ch)
        if rng.random() < escape or ch in '"\\' or cp < 0x20:
            if cp >= 0x10000:
                cp -= 0x10000
                out.append(f"\\u{0xD800 + (cp >> 10):04x}\\u{0xDC00 + (cp & 0x3FF):04X}")
            elif ch in '"\\/' and rng.random() < 0.5:
                out.append("\\" + ch)
            else:
                out.append(f"\\u{cp:04X}" if rng.random() < 0.5 else f"\\u{cp:04x}")
        else:
            out.append(ch)
    out.append('"')
    return "".join(out)


def _spell(value: Any, rng: random.Random, escape: float) -> str:
    """Some text of ``value``: members shuffled, random whitespace, escapes in every string."""
    sep = rng.choice(["", " ", "\n  ", "\t"])
    if isinstance(value, dict):
        items = list(value.items())
        rng.shuffle(items)
        body = ("," + sep).join(
            _string(k, rng, escape) + sep + ":" + sep + _spell(v, rng, escape) for k, v in items
        )
        return "{" + sep + body + sep + "}"
    if isinstance(value, list):
        return "[" + sep + ("," + sep).join(_spell(v, rng, escape) for v in value) + sep + "]"
    if isinstance(value, _Raw):
        return str(value)
    if isinstance(value, str):
        return _string(value, rng, escape)
    return json.dumps(value)


def _pad_empty(doc: dict[str, Any], rng: random.Random) -> dict[str, Any]:
    """``doc`` with empty ``attrs``, ``children`` and ``meta`` added here and there (all valid)."""
    stack = [doc["root"]]
    while stack:
        node = stack.pop()
        if "attrs" not in node and rng.random() < 0.3:
            node["attrs"] = {}
        if "children" not in node and rng.random() < 0.3:
            node["children"] = []
        stack.extend(node.get("children", ()))
    if "meta" not in doc and rng.random() < 0.3:
        doc["meta"] = {}
    return doc


def _text(doc: Any, rng: random.Random) -> bytes:
    if isinstance(doc, dict) and type(doc.get("nuif")) is int and doc["nuif"] == 0:
        doc = {**doc, "nuif": _Raw(rng.choice(ZEROS))}  # any spelling of the version 0
    return _spell(doc, rng, rng.choice([0.0, 0.2, 1.0])).encode("utf-8")


# -- valid documents ------------------------------------------------------------------------------


@SETTINGS
@given(documents(), st.randoms(use_true_random=False))
def test_inspect_gives_the_python_paths_inspection_for_valid_documents_in_any_spelling(
    doc: dict[str, Any], rnd: random.Random
) -> None:
    data = _text(_pad_empty(doc, rnd), rnd)
    lim = Limits.DEFAULT
    for max_outline in OUTLINES:
        expected = _python_inspect(data, lim, max_outline)
        assert _model_inspect(data, lim, max_outline) == expected
        got = nuif_core.inspect(data, max_outline_nodes=max_outline)
        assert type(got) is Inspection
        assert got == expected and repr(got) == repr(expected)
        assert list(got.kinds) == list(expected.kinds)  # sorted by kind, as before
        assert type(got.is_canonical) is bool and type(got.truncated) is bool
        assert all(type(e) is OutlineEntry for e in got.outline) and type(got.root) is NodeRef
        assert got.to_dict() == expected.to_dict()


@SETTINGS
@given(documents(), st.randoms(use_true_random=False), st.sampled_from(OUTLINES))
def test_the_compiled_summary_and_its_twin_agree(
    doc: dict[str, Any], rnd: random.Random, max_outline: int
) -> None:
    data = _text(_pad_empty(doc, rnd), rnd)
    lim = Limits.DEFAULT
    compiled = _summary(_speedups, data, lim, max_outline)
    assert compiled == _summary(_codec_py, data, lim, max_outline)
    assert compiled == _python_inspect(data, lim, max_outline)
    plain = _summary(_speedups, data, lim, max_outline, plain=True)
    assert plain == _summary(_codec_py, data, lim, max_outline, plain=True)
    assert plain[7] == (compiled.root.id, compiled.root.kind)
    assert plain[8] == tuple((e.id, e.kind, e.depth, e.children) for e in compiled.outline)


# -- invalid documents ----------------------------------------------------------------------------


@SETTINGS
@given(documents(), st.randoms(use_true_random=False), st.integers(1, 40))
def test_inspect_raises_the_python_paths_error_for_documents_with_schema_problems(
    doc: dict[str, Any], rnd: random.Random, max_nodes: int
) -> None:
    data = _text(_damage(doc, rnd), rnd)
    lim = Limits.DEFAULT.tighten(max_nodes=max_nodes)
    canonical = _speedups.canonical_document(data, lim.max_depth, lim.max_nodes)
    for impl in (_speedups, _codec_py):
        got = _summary(impl, data, lim, 3)
        assert (got is None) is (canonical is None)  # None exactly when canonical_document is
    expected_error = _err(_python_inspect, data, lim, 3)
    assert _err(nuif_core.inspect, data, max_outline_nodes=3, limits=lim) == expected_error
    if expected_error is None:
        assert nuif_core.inspect(data, max_outline_nodes=3, limits=lim) == _python_inspect(
            data, lim, 3
        )
    else:
        assert canonical is None
        first = nuif_core.validate(data, limits=lim, max_diagnostics=1).diagnostics[0]
        assert expected_error == (
            first.code,
            first.message,
            first.pointer,
            first.line,
            first.column,
        )


@SETTINGS
@given(documents(), st.randoms(use_true_random=False), st.integers(1, 12))
def test_inspect_raises_the_text_errors_loads_raises(
    doc: dict[str, Any], rnd: random.Random, max_depth: int
) -> None:
    data = _mutate(_text(doc, rnd), rnd)
    lim = Limits.DEFAULT.tighten(max_depth=max_depth)
    text_error = _err(_codec_py.loads, data, max_depth)
    for impl in (_speedups, _codec_py):
        assert _err(_summary, impl, data, lim, 3) == text_error
    if text_error is not None:
        assert _err(nuif_core.inspect, data, limits=lim) == text_error
    else:
        assert _err(nuif_core.inspect, data, limits=lim) == _err(_python_inspect, data, lim, 100)


# -- examples -------------------------------------------------------------------------------------


def test_escaped_ids_and_kinds_are_reported_unescaped() -> None:
    data = (
        rb'{"meta": {}, "nu\u0069f": 0, "root": {"children": [{"kind": "\u0062utton",'
        rb' "id": "\u0061", "children": [], "attrs": {}}, {"\u0069d": "b\u002Ec", "kind":'
        rb' "x\u003ay", "children": [{"id": "c", "kind": "button"}]}], "\u0069d": "r",'
        rb' "kind": "scr\u0065en"}}'
    )
    info = nuif_core.inspect(data)
    assert info == _python_inspect(data, Limits.DEFAULT, 100)
    assert info.kinds == {"button": 2, "screen": 1, "x:y": 1}
    assert info.root == NodeRef("r", "screen")
    assert info.outline == (
        OutlineEntry("r", "screen", 1, 2),
        OutlineEntry("a", "button", 2, 0),
        OutlineEntry("b.c", "x:y", 2, 1),
        OutlineEntry("c", "button", 3, 0),
    )
    assert (info.node_count, info.max_depth, info.truncated, info.is_canonical) == (
        4,
        3,
        False,
        False,
    )


def test_many_kinds_grow_the_kind_table_and_keep_every_count() -> None:
    # 300 kinds (the table starts at 64 slots), each used 1 to 3 times, in a deep-ish tree
    kinds = [f"k{i}-{'x' * (i % 7)}" for i in range(300)]
    nodes = [{"id": f"n{i}", "kind": kinds[(i * 7) % 300]} for i in range(600)]
    for i in range(1, 600):
        nodes[(i - 1) // 3].setdefault("children", []).append(nodes[i])
    data = json.dumps({"nuif": 0, "root": nodes[0]}).encode()
    for max_outline in (0, 1, 599, 600, 601, 10**30):
        info = nuif_core.inspect(data, max_outline_nodes=max_outline)
        assert info == _python_inspect(data, Limits.DEFAULT, max_outline)
        assert info == _summary(_codec_py, data, Limits.DEFAULT, max_outline)
    assert sum(info.kinds.values()) == 600 and len(info.kinds) == 300
    assert info.truncated is False and len(info.outline) == 600


def test_a_deep_chain_reports_its_depth() -> None:
    node: dict[str, Any] = {"id": "leaf", "kind": "k"}
    for i in range(60):
        node = {"id": f"n{i}", "kind": "k", "attrs": {"a": [[{"id": "x"}]]}, "children": [node]}
    data = json.dumps({"nuif": 0, "root": node}).encode()
    info = nuif_core.inspect(data, max_outline_nodes=3)
    assert (info.max_depth, info.node_count, info.truncated) == (61, 61, True)
    assert info == _python_inspect(data, Limits.DEFAULT, 3)


def test_inspect_keeps_its_argument_checks_limits_and_input_types() -> None:
    data = b'{"nuif": 0, "root": {"id": "a", "kind": "b", "children": [{"id": "c", "kind": "d"}]}}'
    expected = _python_inspect(data, Limits.DEFAULT, 100)
    for text in (data, data.decode(), bytearray(data), memoryview(data)):
        assert nuif_core.inspect(text) == expected
    with pytest.raises(TypeError):
        nuif_core.inspect(data, max_outline_nodes=True)
    with pytest.raises(TypeError):
        nuif_core.inspect(data, max_outline_nodes=1.0)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"^max_outline_nodes must not be negative$"):
        nuif_core.inspect(data, max_outline_nodes=-1)
    with pytest.raises(NuifError) as info:
        nuif_core.inspect(data, limits=Limits(max_nodes=1))
    assert info.value.code == "NUIF_LIMIT_NODES"
    with pytest.raises(NuifError) as info:
        nuif_core.inspect(data, limits=Limits(max_document_bytes=len(data) - 1))
    assert info.value.code == "NUIF_TOO_LARGE"
    assert nuif_core.inspect(data, limits=Limits(max_nodes=2)) == expected
    with pytest.raises(TypeError):
        nuif_core.inspect(data, limits={"max_nodes": 2})  # type: ignore[arg-type]


def test_an_inspection_filled_by_the_compiled_call_is_frozen_like_any_other() -> None:
    import dataclasses

    info = _speedups.inspect_summary(
        b'{"nuif":0,"root":{"id":"a","kind":"b"}}', 128, 10, 5, Inspection, OutlineEntry, NodeRef
    )
    assert info.is_canonical is True and info.outline == (OutlineEntry("a", "b", 1, 0),)
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.hash = "x"  # type: ignore[misc]
    with pytest.raises(dataclasses.FrozenInstanceError):
        info.outline[0].depth = 2  # type: ignore[misc]
    assert hash(info.root) == hash(NodeRef("a", "b"))


def test_large_generated_documents_give_the_python_paths_inspection() -> None:
    from benchmarks.corpus import generate

    for shape in ("ui", "strings", "numbers"):
        data = generate(shape, 256 * 1024)
        for max_outline in (0, 100, 10**6):
            assert nuif_core.inspect(data, max_outline_nodes=max_outline) == _python_inspect(
                data, Limits.DEFAULT, max_outline
            )


def test_the_codec_dispatcher_exports_the_loaded_modules_summary() -> None:
    impl = _speedups if _codec.IMPLEMENTATION == "compiled" else _codec_py
    assert _codec.inspect_summary is impl.inspect_summary
