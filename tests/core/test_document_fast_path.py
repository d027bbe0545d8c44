"""The compiled fast path for documents (``_speedups.canonical_document``) against the Python path.

``canonicalize``, ``validate``, ``is_canonical``, ``document_hash``, ``inspect`` and the patch
engine first ask ``_codec.canonical_document`` (parse + NUIF-0 §3 + canonical text in one
compiled pass); it answers for valid documents and returns None at any schema problem, so the
Python checker (the oracle) keeps reporting every diagnostic.  These properties pin that split:
identical bytes for valid documents, None (never a wrong answer) for damaged ones, identical text
errors, and public results identical to the pure Python path.
"""

from __future__ import annotations

import hashlib
import json
import random
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nuif_strategies import attr_names, ids, kinds, text, values

import nuif_core
from nuif_core import Limits, NuifError, _codec, _document
from nuif_core._document import Diagnostic, ValidationReport, hash_bytes, normalize
from nuif_core._schema import Checker

_speedups = _codec.compiled() or pytest.skip(
    "the compiled codec is not built", allow_module_level=True
)
_codec_py = _codec.twin()

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

# every spelling of the version number 0
ZEROS = ["0", "-0", "0.0", "-0.0", "0e5", "0E-3", "1e-400", "-0.000e+10"]


@st.composite
def documents(draw: Any) -> dict[str, Any]:
    """Valid documents, empty ``attrs``/``children``/``meta`` included (normalization drops them)."""
    used: set[str] = set()

    def node(depth: int) -> dict[str, Any]:
        node_id = draw(ids.filter(lambda i: i not in used))
        used.add(node_id)
        out: dict[str, Any] = {"id": node_id, "kind": draw(kinds)}
        if draw(st.booleans()):
            out["attrs"] = draw(st.dictionaries(attr_names, values, max_size=3))
        if depth < 4 and draw(st.booleans()):
            out["children"] = [node(depth + 1) for _ in range(draw(st.integers(0, 3)))]
        return out

    doc: dict[str, Any] = {"nuif": 0, "root": node(0)}
    if draw(st.booleans()):
        doc["meta"] = draw(st.dictionaries(text, values, max_size=2))
    return doc


def _write(doc: Any, rng: random.Random) -> bytes:
    """Some text of ``doc``: shuffled members, any indentation, escapes or not, any zero."""

    def shuffle(v: Any) -> Any:
        if isinstance(v, dict):
            items = list(v.items())
            rng.shuffle(items)
            return {k: shuffle(x) for k, x in items}
        if isinstance(v, list):
            return [shuffle(x) for x in v]
        return v

    out = json.dumps(shuffle(doc), indent=rng.choice([None, 0, 2]), ensure_ascii=rng.random() < 0.3)
    if isinstance(doc, dict) and doc.get("nuif") == 0 and type(doc.get("nuif")) is int:
        out = out.replace('"nuif": 0', '"nuif": ' + rng.choice(ZEROS), 1)
    return out.encode("utf-8")


def _parse_checked(data: bytes, limits: Limits, max_diagnostics: int) -> tuple[Any, Checker]:
    """The Python checker over compiled ``loads``' values (the oracle of the reporter)."""
    value = _codec.loads(data, limits.max_depth)
    checker = Checker(limits.max_nodes, max_diagnostics)
    checker.document(value)
    return value, checker


def _python_canonical(data: bytes, limits: Limits) -> bytes | None:
    """The Python path: compiled ``loads``, the Python checker, normalize, compiled ``dumps``."""
    value, checker = _parse_checked(data, limits, 1)
    if checker.found:
        return None
    return _codec.dumps(normalize(value), limits.max_depth)


def _python_validate(data: bytes, limits: Limits, max_diagnostics: int = 100) -> ValidationReport:
    """``validate`` as it was before the fast path (the oracle of every diagnostic)."""
    try:
        value, checker = _parse_checked(data, limits, max_diagnostics)
    except NuifError as err:
        return ValidationReport(False, None, (Diagnostic.from_error(err),))
    if checker.found:
        return ValidationReport(
            False, None, _document.diagnostics(checker, data), checker.truncated
        )
    return ValidationReport(True, hash_bytes(_codec.dumps(normalize(value), limits.max_depth)))


def _err(fn: Any, *args: Any) -> tuple[Any, ...] | None:
    try:
        fn(*args)
    except NuifError as e:
        return (e.code, e.message, e.pointer, e.line, e.column)
    return None


@SETTINGS
@given(documents(), st.randoms(use_true_random=False))
def test_fast_path_writes_the_python_paths_canonical_text_for_valid_documents(
    doc: dict[str, Any], rnd: random.Random
) -> None:
    data = _write(doc, rnd)
    lim = Limits.DEFAULT
    expected = _python_canonical(data, lim)
    assert expected is not None
    fast = _speedups.canonical_document(data, lim.max_depth, lim.max_nodes)
    assert fast == expected
    assert _codec_py.canonical_document(data, lim.max_depth, lim.max_nodes) == expected
    result = nuif_core.canonicalize(data)
    assert result.canonical == expected and result.hash == hash_bytes(expected)
    assert nuif_core.validate(data) == _python_validate(data, lim)
    assert nuif_core.is_canonical(data) is (data == expected)


def _own(node: dict[str, Any], key: str, kind: type) -> Any:
    """``node[key]``, made an empty ``kind`` first when an earlier damage made it something
    else."""
    if not isinstance(node.get(key), kind):
        node[key] = kind()
    return node[key]


def _damage(doc: dict[str, Any], rng: random.Random) -> Any:
    """``doc`` with one or more schema problems (§3), as Python values."""
    nodes: list[dict[str, Any]] = []
    stack = [doc["root"]]
    while stack:
        n = stack.pop()
        nodes.append(n)
        stack.extend(n.get("children", ()))
    for _ in range(rng.randint(1, 3)):
        node = rng.choice(nodes)
        what = rng.randrange(22)
        if what == 0:
            node["id"] = rng.choice(["", ".x", "a b", "é", "x" * 129, "a\n", "-a", "a/b"])
        elif what == 1:
            node["id"] = rng.choice(nodes).get("id")  # maybe a duplicate (an earlier step may
            # have removed or retyped that id)
        elif what == 2:
            node["kind"] = rng.choice(["", "A", "a..b", "a/", "1a", "a" * 65, "ä", "a:B"])
        elif what == 3:
            _own(node, "attrs", dict)[rng.choice(["", "1x", "a b", "é", "x" * 129, "-"])] = 1
        elif what == 4:
            node[rng.choice(["id", "kind", "attrs", "children"])] = rng.choice(
                [None, 1, 1.5, True, "s", [], {}, [1]]
            )
        elif what == 5:
            node.pop(rng.choice(["id", "kind"]), None)
        elif what == 6:
            node[rng.choice(["extra", "ID", "child", ""])] = 1
        elif what == 7:
            _own(node, "children", list).append(rng.choice([None, 1, "x", [], {}, {"id": "z"}]))
        elif what == 8:
            doc["nuif"] = rng.choice([1, -1, 0.5, "0", None, True, False, [], 2e-300])
        elif what == 9:
            doc.pop(rng.choice(["nuif", "root"]), None)
        elif what == 10:
            doc["meta"] = rng.choice([None, [], 1, "x", True])
        elif what == 11:
            doc[rng.choice(["extra", "Nuif", "", "metadata"])] = {}
        elif what == 12:
            doc["root"] = rng.choice([None, [], 1, "x", {}])
        elif what == 13:
            node["id"] = str(node.get("id")) + "\u00e9"
        elif what == 14:
            node["kind"] = "button\u0131"
        elif what == 15:
            node["id"] = "x" * 128  # a valid edge: 128 characters
        elif what == 16:
            node["kind"] = "k" * 64  # a valid edge: 64 characters
        elif what == 17:
            _own(node, "attrs", dict)["a" * 128] = None  # a valid edge
        elif what == 18:
            _own(node, "attrs", dict)["ok"] = {"id": 1, "kind": [], "attrs": 5}  # any JSON
        elif what == 19:
            node["children"] = [{"id": "dup", "kind": "k"}, {"id": "dup", "kind": "k"}]
        elif what == 20:
            node["children"] = []
            node["attrs"] = {}
        else:
            return rng.choice([[], None, 1, "doc", [doc]])
    return doc


@SETTINGS
@given(documents(), st.randoms(use_true_random=False), st.integers(1, 40), st.integers(1, 100))
def test_fast_path_returns_none_at_every_schema_problem_and_validate_reports_as_before(
    doc: dict[str, Any], rnd: random.Random, max_nodes: int, max_diagnostics: int
) -> None:
    damaged = _damage(doc, rnd)
    data = _write(damaged, rnd)
    lim = Limits.DEFAULT.tighten(max_nodes=max_nodes)
    expected = _python_canonical(data, lim)
    fast = _speedups.canonical_document(data, lim.max_depth, lim.max_nodes)
    assert fast == expected  # None exactly when the Python checker finds a problem
    assert _codec_py.canonical_document(data, lim.max_depth, lim.max_nodes) == expected
    assert nuif_core.validate(
        data, limits=lim, max_diagnostics=max_diagnostics
    ) == _python_validate(data, lim, max_diagnostics)
    try:
        got: Any = nuif_core.canonicalize(data, limits=lim).canonical
    except NuifError as e:
        got = (e.code, e.message, e.pointer, e.line, e.column)
    if expected is None:
        first = _python_validate(data, lim, 1).diagnostics[0]
        assert got == (first.code, first.message, first.pointer, first.line, first.column)
    else:
        assert got == expected


def _mutate(data: bytes, rng: random.Random) -> bytes:
    """Byte-level damage: the kind of text errors a fuzzer finds first."""
    b = bytearray(data)
    for _ in range(rng.randint(1, 3)):
        at = rng.randrange(len(b) + 1)
        what = rng.randrange(6)
        if what == 0 and b:
            del b[min(at, len(b) - 1)]
        elif what == 1:
            b[at:at] = bytes([rng.choice(b'{}[],:"\\ 0-e.tnu\x00\x1f\xff\xc3\xed\xef')])
        elif what == 2:
            b[at:at] = rng.choice(
                [
                    b"\\ud800",
                    b"\\ufdd0",
                    "\ufdd0".encode(),
                    b"1e400",
                    b"9007199254740993",
                    b"\xef\xbb\xbf",
                    b'"a":1,"a":2',
                ]
            )
        elif what == 3:
            del b[at:]
        elif what == 4:
            b[at:at] = b"[" * rng.randint(1, 12)
        else:
            b[at:at] = b" \t\r\n"[rng.randrange(4) :]
    return bytes(b)


@SETTINGS
@given(documents(), st.randoms(use_true_random=False), st.integers(1, 12))
def test_fast_path_raises_the_text_errors_loads_raises(
    doc: dict[str, Any], rnd: random.Random, max_depth: int
) -> None:
    data = _mutate(_write(doc, rnd), rnd)
    lim = Limits.DEFAULT.tighten(max_depth=max_depth)
    text_error = _err(_codec_py.loads, data, max_depth)
    fast_error = _err(_speedups.canonical_document, data, max_depth, lim.max_nodes)
    assert fast_error == text_error
    assert _err(_codec_py.canonical_document, data, max_depth, lim.max_nodes) == text_error
    if text_error is not None:
        report = nuif_core.validate(data, limits=lim)
        assert report == ValidationReport(False, None, (Diagnostic(*text_error),))
        with pytest.raises(NuifError) as info:
            nuif_core.canonicalize(data, limits=lim)
        e = info.value
        assert (e.code, e.message, e.pointer, e.line, e.column) == text_error
    else:
        assert nuif_core.validate(data, limits=lim) == _python_validate(data, lim)


def test_the_node_limit_counts_every_node_like_the_checker() -> None:
    doc = {
        "nuif": 0,
        "root": {
            "id": "r",
            "kind": "k",
            "children": [{"id": f"c{i}", "kind": "k"} for i in range(9)],
        },
    }
    data = json.dumps(doc).encode()
    assert _speedups.canonical_document(data, 128, 10) is not None
    assert _speedups.canonical_document(data, 128, 9) is None
    err = nuif_core.validate(data, limits=Limits(max_nodes=9)).diagnostics[0]
    assert err.code == "NUIF_LIMIT_NODES"


def test_many_ids_grow_the_id_set_and_a_late_duplicate_is_still_found() -> None:
    kids = [{"id": f"n{i}", "kind": "k"} for i in range(5000)]
    doc = {"nuif": 0, "root": {"id": "r", "kind": "k", "children": kids}}
    data = json.dumps(doc).encode()
    assert _speedups.canonical_document(data, 128, 250_000) == _python_canonical(data, Limits())
    kids.append({"id": "n1234", "kind": "k"})
    data = json.dumps(doc).encode()
    assert _speedups.canonical_document(data, 128, 250_000) is None
    assert nuif_core.validate(data).diagnostics[0].code == "NUIF_DUPLICATE_ID"


def test_escaped_names_are_checked_after_unescaping() -> None:
    data = (
        rb'{"nu\u0069f": 0, "root": {"\u0069d": "\u0041b", "kind": "\u0062utton",'
        rb' "attrs": {"\u0061ria-label": "x"}}}'
    )
    assert _speedups.canonical_document(data, 128, 10) == (
        b'{"nuif":0,"root":{"attrs":{"aria-label":"x"},"id":"Ab","kind":"button"}}'
    )
    bad = rb'{"nuif": 0, "root": {"id": "a\"b", "kind": "k"}}'
    assert _speedups.canonical_document(bad, 128, 10) is None
    assert nuif_core.validate(bad).diagnostics[0].code == "NUIF_ID"


# characters at the edges of the name rules' classes (and one beyond ASCII)
EDGE_CHARS = [
    "a",
    "z",
    "A",
    "Z",
    "0",
    "9",
    "-",
    "_",
    ".",
    ":",
    "/",
    "$",
    "@",
    ",",
    ";",
    "`",
    "{",
    "[",
    "]",
    "\x7f",
    "é",
] + [" "]


def _names(base: str) -> list[str]:
    """``base`` at every length from 1 to 40 (the vector checks read 16 and 32 bytes), each with
    every edge character at every position, the first and the last included."""
    out = []
    for n in range(1, 41):
        name = (base * 41)[:n]
        out.append(name)
        for i in range(n):
            out += [name[:i] + c + name[i + 1 :] for c in EDGE_CHARS]
    return out


def _fast_verdict(node_id: str, kind: str, attr: str, escaped: bool) -> bool:
    """Whether the fast path accepts a one-node document with these names.  ``escaped``: every
    name's first character written as a \\u escape, so the id and kind are built in the arena,
    each followed there by the next string (which starts with a letter)."""

    def spell(s: str) -> str:
        text = json.dumps(s)
        return f'"\\u{ord(s[0]):04x}{text[2:]}' if escaped else text

    data = (
        f'{{"nuif":0,"root":{{"id":{spell(node_id)},"kind":{spell(kind)},'
        f'"attrs":{{{spell(attr)}:{spell("zz")}}}}}}}'
    ).encode()
    return _speedups.canonical_document(data, 128, 10) is not None


@pytest.mark.parametrize("escaped", [False, True])
def test_ids_kinds_and_attribute_names_at_every_length_and_position(escaped: bool) -> None:
    """The compiled checks of names (16 bytes at a time where they can be read so) accept exactly
    what the rules of NUIF-0 §3 accept, as the Python checker reads them."""
    from nuif_core import _schema

    for kind in _names("ab-c:d2/e") + _names("a.b") + ["a" * 64, "a" * 65, "a/", "a:b/", "a::b"]:
        assert _fast_verdict("n", kind, "x", escaped) == (_schema.kind_problem(kind) is None), kind
    for node_id in _names("s3.ui:rich-text_3") + ["a" * 128, "a" * 129]:
        assert _fast_verdict(node_id, "k", "x", escaped) == (_schema.id_problem(node_id) is None), (
            node_id
        )
    for attr in _names("on:Click$@_-.9") + ["a" * 128, "a" * 129]:
        assert _fast_verdict("n", "k", attr, escaped) == (_schema.attr_problem(attr) is None), attr


def test_a_double_written_as_an_integer_beyond_2_pow_53_gives_the_patch_engine_its_model() -> None:
    # 2^53 as a float is a valid value whose canonical form is an integer literal beyond
    # 2^53 - 1; since NUIF-0.1 that canonical text parses back, to the same double
    data = b'{"nuif": 0, "root": {"id": "r", "kind": "k", "attrs": {"x": 9007199254740992.0}}}'
    canonical = nuif_core.canonicalize(data).canonical
    assert canonical == b'{"nuif":0,"root":{"attrs":{"x":9007199254740992},"id":"r","kind":"k"}}'
    _, got, doc = _document.parse_canonical(data)
    assert got == canonical and doc["root"]["attrs"]["x"] == 2.0**53
    assert type(doc["root"]["attrs"]["x"]) is float
    assert _document.parse_canonical(canonical)[2] == doc
    result = nuif_core.apply_patch(
        data,
        b'{"nuif_patch": 0, "transactions": [{"ops": [{"op": "set", "id": "r", "attr": "y",'
        b' "value": 1}]}]}',
    )
    assert result.base == hash_bytes(canonical)
    assert result.canonical == canonical.replace(b"9007199254740992}", b'9007199254740992,"y":1}')


_UTF8_PIECES = [
    b"a",
    b" ",
    b'"',
    b"\xc3\xa9",
    b"\xe6\x9d\xb1",
    b"\xf0\x9f\x98\x80",
    b"\xed\x9f\xbf",
    b"\xee\x80\x80",
    b"\xf4\x8f\xbf\xbd",
    b"\x80",
    b"\xc0\xaf",
    b"\xc2",
    b"\xe0\x9f\x80",
    b"\xed\xa0\x80",
    b"\xf0\x8f\xbf\xbf",
    b"\xf4\x90\x80\x80",
    b"\xf5",
    b"\xff",
    b"\xe6\x9d",
    b"\xf0\x9f\x98",
]


@SETTINGS
@given(st.lists(st.sampled_from(_UTF8_PIECES), max_size=40), st.integers(0, 3))
def test_the_fast_utf8_check_reports_the_first_bad_byte_like_pythons_decoder(
    pieces: list[bytes], pad: int
) -> None:
    body = b"".join(pieces).replace(b'"', b"")
    data = b'["' + b"x" * pad + body + b'"]'
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as e:
        expected: Any = ("NUIF_UTF8", e.start)
    else:
        expected = None
    for fn in (_speedups.canonical_json, _speedups.loads):
        err: NuifError | None = None
        try:
            fn(data, 8)
        except NuifError as exc:
            err = exc
        if err is not None and err.code == "NUIF_UTF8":
            assert expected is not None
            assert (err.line, err.column) == _codec_py_position(data, expected[1])
        else:  # accepted, or refused for another reason: only a text Python decodes
            assert expected is None, err and err.code


def _codec_py_position(data: bytes, offset: int) -> tuple[int | None, int | None]:
    with pytest.raises(NuifError) as info:  # the twin refuses invalid UTF-8 too
        _codec_py.loads(data, 8)
    assert info.value.code == "NUIF_UTF8"
    return info.value.line, info.value.column


# -- canonicalize in one compiled call (``_codec.canonical_result``) ------------------------------


@SETTINGS
@given(documents(), st.randoms(use_true_random=False))
def test_canonical_result_builds_the_result_the_dataclass_constructor_builds(
    doc: dict[str, Any], rnd: random.Random
) -> None:
    data = _write(doc, rnd)
    lim = Limits.DEFAULT
    canonical = _python_canonical(data, lim)
    assert canonical is not None
    expected = _document.CanonicalResult(canonical, hash_bytes(canonical), canonical != data)
    for impl in (_speedups, _codec_py):
        got = impl.canonical_result(data, lim.max_depth, lim.max_nodes, _document.CanonicalResult)
        assert type(got) is _document.CanonicalResult
        assert got == expected and hash(got) == hash(expected) and repr(got) == repr(expected)
        assert type(got.changed) is bool
    assert nuif_core.canonicalize(data) == expected
    assert nuif_core.canonicalize(data.decode("utf-8")) == expected
    assert nuif_core.canonicalize(bytearray(data)) == expected


def test_a_result_filled_by_the_compiled_call_is_frozen_like_any_other() -> None:
    import dataclasses

    r = _speedups.canonical_result(
        b'{"nuif":0,"root":{"id":"a","kind":"b"}}', 128, 10, _document.CanonicalResult
    )
    assert r == _document.CanonicalResult(r.canonical, r.hash, False)
    assert r.text == '{"nuif":0,"root":{"id":"a","kind":"b"}}'
    assert r.to_dict() == {"canonical": r.text, "hash": r.hash, "changed": False}
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.hash = "x"  # type: ignore[misc]
    assert dataclasses.replace(r, changed=True).changed is True


def test_canonical_result_calls_make_when_it_cannot_fill_its_slots() -> None:
    import dataclasses

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        canonical: bytes
        hash: str
        changed: bool

        def __post_init__(self) -> None:
            object.__setattr__(self, "hash", self.hash.upper())

    @dataclasses.dataclass(frozen=True)
    class NoSlots:
        canonical: bytes
        hash: str
        changed: bool

    @dataclasses.dataclass(frozen=True, slots=True, init=False)
    class OwnInit:
        canonical: bytes
        hash: str
        changed: bool

        def __init__(self, canonical: bytes, hash: str, changed: bool) -> None:
            object.__setattr__(self, "canonical", canonical)
            object.__setattr__(self, "hash", "own")
            object.__setattr__(self, "changed", changed)

    @dataclasses.dataclass(frozen=True, slots=True)
    class Rerouted:
        canonical: bytes
        hash: str
        changed: bool

    # a field whose descriptor is no longer the slot's: a property that sets the slot its way
    slot = Rerouted.__dict__["hash"]
    Rerouted.hash = property(  # type: ignore[assignment]
        lambda self: slot.__get__(self), lambda self, v: slot.__set__(self, "set:" + v)
    )

    data = b'{"nuif": 0, "root": {"id": "a", "kind": "b"}}'
    for impl in (_speedups, _codec_py):
        as_tuple = impl.canonical_result(data, 128, 10, lambda *a: a)
        assert impl.canonical_result(data, 128, 10, Rerouted).hash == "set:" + as_tuple[1]
        assert as_tuple == (
            b'{"nuif":0,"root":{"id":"a","kind":"b"}}',
            hash_bytes(as_tuple[0]),
            True,
        )
        assert impl.canonical_result(data, 128, 10, Checked).hash == as_tuple[1].upper()
        assert impl.canonical_result(data, 128, 10, NoSlots) == NoSlots(*as_tuple)
        assert impl.canonical_result(data, 128, 10, OwnInit).hash == "own"
        # and the plain class still gets its slots filled after another class was refused
        got = impl.canonical_result(data, 128, 10, _document.CanonicalResult)
        assert got == _document.CanonicalResult(*as_tuple)
        assert impl.canonical_result(b'{"nuif": 0, "root": {}}', 128, 10, tuple) is None


# -- validate's valid report in one compiled call (``_codec.valid_report``) ------------------------


@SETTINGS
@given(documents(), st.randoms(use_true_random=False))
def test_valid_report_builds_the_report_the_dataclass_constructor_builds(
    doc: dict[str, Any], rnd: random.Random
) -> None:
    data = _write(doc, rnd)
    lim = Limits.DEFAULT
    canonical = _python_canonical(data, lim)
    assert canonical is not None
    expected = _document.ValidationReport(True, hash_bytes(canonical))
    for impl in (_speedups, _codec_py):
        got = impl.valid_report(data, lim.max_depth, lim.max_nodes, _document.ValidationReport)
        assert type(got) is _document.ValidationReport
        assert got == expected and hash(got) == hash(expected) and repr(got) == repr(expected)
        assert got.diagnostics == () and got.truncated is False and bool(got) is True
    assert nuif_core.validate(data) == expected
    assert nuif_core.validate(data.decode("utf-8")) == expected


def test_a_report_filled_by_the_compiled_call_is_frozen_like_any_other() -> None:
    import dataclasses

    r = _speedups.valid_report(
        b'{"nuif":0,"root":{"id":"a","kind":"b"}}', 128, 10, _document.ValidationReport
    )
    assert r.to_dict() == {"valid": True, "hash": r.hash, "diagnostics": [], "truncated": False}
    with pytest.raises(dataclasses.FrozenInstanceError):
        r.valid = False  # type: ignore[misc]
    assert dataclasses.replace(r, truncated=True).truncated is True


def test_valid_report_calls_make_when_it_cannot_fill_its_slots_and_refuses_problems() -> None:
    import dataclasses

    @dataclasses.dataclass(frozen=True, slots=True)
    class Checked:
        valid: bool
        hash: str
        diagnostics: tuple[Any, ...] = ()
        truncated: bool = False

        def __post_init__(self) -> None:
            object.__setattr__(self, "hash", self.hash.upper())

    data = b'{"nuif": 0, "root": {"id": "a", "kind": "b"}}'
    h = hash_bytes(b'{"nuif":0,"root":{"id":"a","kind":"b"}}')
    for impl in (_speedups, _codec_py):
        assert impl.valid_report(data, 128, 10, lambda *a: a) == (True, h, (), False)
        assert impl.valid_report(data, 128, 10, Checked).hash == h.upper()
        assert impl.valid_report(data, 128, 10, _document.ValidationReport).hash == h
        # a schema problem is for the Python checker to report; a text error raises
        assert impl.valid_report(b'{"nuif": 0, "root": {}}', 128, 10, tuple) is None
        with pytest.raises(NuifError) as info:
            impl.valid_report(b'{"nuif": 0,', 128, 10, tuple)
        assert info.value.code == "NUIF_PARSE"
    report = nuif_core.validate(b'{"nuif": 0, "root": {}}')
    assert not report.valid and report.diagnostics[0].code.startswith("NUIF_")


def test_hash_bytes_is_hashlibs_sha256_for_bytes_and_buffers() -> None:
    import hashlib

    for data in (b"", b"a", b'{"nuif":0}', bytes(range(256)) * 9):
        expected = "sha256:" + hashlib.sha256(data).hexdigest()
        for value in (data, bytearray(data), memoryview(data)):
            assert _speedups.hash_bytes(value) == expected
            assert _codec_py.hash_bytes(value) == expected
            assert hash_bytes(value) == expected
    for impl in (_speedups, _codec_py):
        with pytest.raises(TypeError):
            impl.hash_bytes("text")


def test_canonicalize_keeps_the_size_limit_for_bytes_str_and_buffers() -> None:
    data = b'{"nuif": 0, "root": {"id": "a", "kind": "b"}}'
    lim = Limits(max_document_bytes=len(data))
    assert nuif_core.canonicalize(data, limits=lim).changed is True
    small = Limits(max_document_bytes=len(data) - 1)
    for value in (data, data.decode(), bytearray(data), memoryview(data)):
        with pytest.raises(NuifError) as info:
            nuif_core.canonicalize(value, limits=small)
        assert info.value.code == "NUIF_TOO_LARGE"


@pytest.mark.parametrize(
    "children",
    [
        0,
        1,
        2,
        3,
        5,
        6,
        7,
        12,
        13,
        25,
        26,
        51,
        52,
        100,
        101,
        102,
        203,
        204,
        205,
        408,
        409,
        410,
        511,
        512,
        513,
        1023,
        1024,
        1025,
    ],
)
def test_the_id_set_is_sized_from_the_tape_and_still_finds_every_duplicate(children: int) -> None:
    kids = [{"id": f"n{i}", "kind": "k"} for i in range(children)]
    doc = {"nuif": 0, "root": {"id": "r", "kind": "k", "children": kids}}
    data = json.dumps(doc).encode()
    assert _speedups.canonical_document(data, 128, 250_000) == _python_canonical(data, Limits())
    for dup in ("r", f"n{children - 1}" if children else "r"):
        kids.append({"id": dup, "kind": "k"})
        bad = json.dumps(doc).encode()
        kids.pop()
        assert _speedups.canonical_document(bad, 128, 250_000) is None
        assert nuif_core.validate(bad).diagnostics[0].code == "NUIF_DUPLICATE_ID"


def test_the_id_set_tells_apart_ids_that_share_all_but_one_byte_at_every_length() -> None:
    # the set's hash reads words, overlapping ones and, below 4 bytes, three bytes of an id: ids
    # that differ only where a read does not look must still be found different
    ids = []
    for n in range(1, 41):
        for at in range(n):
            for ch in "ab":
                ids.append("x" * at + ch + "x" * (n - at - 1))
    ids = list(dict.fromkeys(ids))
    kids = [{"id": i, "kind": "k"} for i in ids]
    doc = {"nuif": 0, "root": {"id": "root", "kind": "k", "children": kids}}
    data = json.dumps(doc).encode()
    assert _speedups.canonical_document(data, 128, 250_000) == _python_canonical(data, Limits())
    assert nuif_core.inspect(data).node_count == len(ids) + 1
    for dup in (ids[0], ids[1], ids[len(ids) // 2], ids[-1]):
        kids.append({"id": dup, "kind": "k"})
        bad = json.dumps(doc).encode()
        kids.pop()
        assert _speedups.canonical_document(bad, 128, 250_000) is None
        found = nuif_core.validate(bad).diagnostics
        assert [d.code for d in found] == ["NUIF_DUPLICATE_ID"]


def test_tables_kept_from_a_large_document_serve_small_and_large_ones_after_it() -> None:
    # the id set's table and the doubles are kept between calls: a small document uses a part of
    # a large table (zeroed), a larger one grows it; stale entries must never count
    def doc(children: int, dup: str | None = None, x: float = 0.1) -> bytes:
        kids = [
            {"id": f"n{i}", "kind": "k", "attrs": {"w": x * (i + 1) / 3}} for i in range(children)
        ]
        if dup is not None:
            kids.append({"id": dup, "kind": "k"})
        return json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "children": kids}}).encode()

    sequence = [
        doc(3000),
        doc(5),
        doc(5, "n2"),
        doc(40, "r"),
        doc(6000, "n5999"),
        doc(6000),
        doc(7),
        doc(3000, "n0", 0.7),
        doc(2),
    ]
    for data in sequence:
        expected = _python_canonical(data, Limits())
        assert _speedups.canonical_document(data, 128, 250_000) == expected
        if expected is None:
            assert [d.code for d in nuif_core.validate(data).diagnostics] == ["NUIF_DUPLICATE_ID"]


def test_the_kept_id_table_is_zeroed_when_its_generations_run_out() -> None:
    # entries carry a 16-bit generation, one more per call, instead of the table being zeroed
    # for each call; past 0xFFFF the table is zeroed once and the count starts again at 1, so
    # the entries of an earlier call with generation 1 must be gone by then
    def doc(prefix: str, dup: bool = False) -> bytes:
        kids = [{"id": f"{prefix}{i}", "kind": "k"} for i in range(20)]
        if dup:
            kids.append({"id": f"{prefix}7", "kind": "k"})
        return json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "children": kids}}).encode()

    x, y = doc("x"), doc("y")
    want_x, want_y = _python_canonical(x, Limits()), _python_canonical(y, Limits())
    old = _speedups._settings(id_generation=0)
    try:
        assert _speedups.canonical_document(x, 128, 1000) == want_x  # generation 1
        for gen in (5, 0xFFFD):
            _speedups._settings(id_generation=gen)
            assert _speedups.canonical_document(y, 128, 1000) == want_y
            assert _speedups.canonical_document(doc("y", True), 128, 1000) is None
        _speedups._settings(id_generation=0xFFFF)
        assert _speedups.canonical_document(x, 128, 1000) == want_x  # 1 again, zeroed
        assert _speedups.canonical_document(doc("x", True), 128, 1000) is None
        for _ in range(3):
            assert _speedups.canonical_document(x, 128, 1000) == want_x
    finally:
        _speedups._settings(**old)


def _deep_document(depth: int, tail: str = "") -> bytes:
    """A valid document whose meta nests ``depth`` arrays (the parser's stack grows)."""
    return (
        b'{"nuif": 0, "root": {"id": "r", "kind": "k"}, "meta": {"m": '
        + b"[" * depth
        + tail.encode()
        + b"]" * depth
        + b"}}"
    )


def test_buffers_kept_between_calls_serve_deep_then_shallow_then_failing_texts() -> None:
    texts = [
        _deep_document(100),
        _deep_document(1),
        _deep_document(60, '{"a": 1, "a": 2}'),
        _deep_document(3, '{"b": 1, "a": 2, "c": [1, 2]}'),
        _deep_document(127),
        _deep_document(128),
        b'{"nuif": 0, "root": {"id": "r", "kind": "k", "x": 1}}',
    ]
    for _ in range(3):
        for data in texts:
            for max_depth in (128, 5):
                expected = _err(_codec_py.canonical_document, data, max_depth, 100)
                assert _err(_speedups.canonical_document, data, max_depth, 100) == expected
                if expected is None:
                    assert _speedups.canonical_document(data, max_depth, 100) == (
                        _codec_py.canonical_document(data, max_depth, 100)
                    )


def test_a_parse_started_while_another_holds_the_kept_buffers_gets_its_own() -> None:
    # a garbage collection during a parse (here: while the error is built) may run any Python
    # code, such as another canonicalize; the inner call must not share the outer's buffers
    import gc

    inner_text = _deep_document(40, '{"z": 1, "y": [true, null, "s"]}')
    inner_expected = _codec_py.canonical_document(inner_text, 128, 100)
    # objects in the path: the error's pointer reads every frame of the parser's stack
    outer_text = _deep_document(3, '{"k": ' * 30 + '{"a": 1, "a": 2}' + "}" * 30)
    seen: list[bytes | None] = []
    armed = [False]

    def nested(phase: str, info: dict[str, int]) -> None:
        if armed[0] and phase == "start":
            seen.append(_speedups.canonical_document(inner_text, 128, 100))

    old = gc.get_threshold()
    gc.callbacks.append(nested)
    try:
        gc.set_threshold(1, 1, 1)
        armed[0] = True
        outer = _err(_speedups.canonical_document, outer_text, 128, 100)
    finally:
        armed[0] = False
        gc.set_threshold(*old)
        gc.callbacks.remove(nested)
    assert seen and all(s == inner_expected for s in seen)
    assert outer == _err(_codec_py.canonical_document, outer_text, 128, 100)
    assert outer is not None and outer[0] == "NUIF_DUPLICATE_KEY"
    assert _speedups.canonical_document(inner_text, 128, 100) == inner_expected
    assert _speedups.canonical_document(outer_text.replace(b'"a": 2', b'"b": 2'), 128, 100) == (
        _codec_py.canonical_document(outer_text.replace(b'"a": 2', b'"b": 2'), 128, 100)
    )


def _growing_document(count: int) -> bytes:
    """A valid document whose canonical text is longer than itself: each ``1e20`` of its meta is
    written out in full (21 digits)."""
    return (
        b'{"nuif":0,"root":{"id":"r","kind":"k"},"meta":{"m":['
        + b",".join([b"1e20"] * count)
        + b"]}}"
    )


def _canonical_of(data: bytes) -> tuple[bytes, str]:
    """The canonical text and hash the Python twin gives (no compiled writer involved)."""
    text = _codec_py.canonical_document(data, 128, 250_000)
    assert text is not None
    return text, "sha256:" + hashlib.sha256(text).hexdigest()


@pytest.mark.parametrize("route", ["best", "portable"])
def test_a_text_that_outgrows_the_kept_scratch_moves_into_its_bytes_object_as_it_is_written(
    route: str,
) -> None:
    data = _growing_document(3000)  # ~15 KB in, ~66 KB out
    expected = _canonical_of(data)
    assert len(expected[0]) > 4 * len(data)
    # the first buffer (input size + 64) is kept-size; its first growth is not
    old_keep = _speedups._settings(scratch_keep=len(data) + 64)
    old_route = _speedups._settings(
        sha256_route=_speedups.hash_backend() if route == "best" else route
    )
    try:
        got = nuif_core.canonicalize(data)
        kept = _speedups._counters()["scratch_kept"]
        again = nuif_core.canonicalize(data)
    finally:
        _speedups._settings(**old_route)
        _speedups._settings(**old_keep)
    assert (got.canonical, got.hash) == expected == (again.canonical, again.hash)
    assert kept == len(data) + 64  # the scratch it started in is kept for the next call


def test_the_output_scratch_is_kept_between_calls_up_to_its_limit() -> None:
    def doc(children: int) -> bytes:
        kids = [{"id": f"n{i}", "kind": "k", "attrs": {"t": "x" * 40}} for i in range(children)]
        return json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k", "children": kids}}).encode()

    small, medium, large = doc(10), doc(300), doc(2000)
    limit = 64 * 1024
    assert len(small) < len(medium) < limit < len(large)
    old = _speedups._settings(scratch_keep=limit)
    try:
        assert _speedups._counters()["scratch_kept"] == 0  # setting the limit drops what was kept
        kept = []
        for data in (small, large, medium, small, large, medium):
            assert (lambda r: (r.canonical, r.hash))(nuif_core.canonicalize(data)) == (
                _canonical_of(data)
            )
            kept.append(_speedups._counters()["scratch_kept"])
    finally:
        _speedups._settings(**old)
    # small's buffer is kept; large never fits the limit, goes into its bytes object and leaves
    # the scratch alone; medium's grows it, and it never shrinks
    assert kept[0] == kept[1] >= len(small) + 64
    assert kept[2] == kept[3] == kept[4] == kept[5] >= len(medium) + 64
    assert max(kept) <= limit


def test_calls_on_two_threads_each_write_into_their_own_buffer() -> None:
    import threading

    # every call holds the GIL from start to end: the kept buffers are never shared
    texts = [_growing_document(400), _deep_document(30, '{"b": "x", "a": [1, 2.5]}') * 1]
    expected = [_canonical_of(t) for t in texts]
    results: list[list[tuple[bytes, str]]] = [[], []]

    def run(k: int) -> None:
        for _ in range(40):
            r = nuif_core.canonicalize(texts[k])
            results[k].append((r.canonical, r.hash))

    threads = [threading.Thread(target=run, args=(k,)) for k in (0, 1)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert not any(t.is_alive() for t in threads)
    assert results == [[expected[0]] * 40, [expected[1]] * 40]


def test_an_output_past_the_kept_scratch_is_written_into_its_own_bytes_with_the_huge_page_hint() -> (
    None
):
    from benchmarks.corpus import generate

    data = generate("ui", 5 * 1024 * 1024)  # an output above the 4 MiB scratch and hint threshold
    text = _speedups.canonical_json(data, 128)
    assert len(text) > 1 << 20
    assert text == _speedups.dumps(_speedups.loads(data, 128), 128)  # another writer's text
    assert nuif_core.canonicalize(text).changed is False
