"""The front doors: with the compiled codec, ``nuif_core.canonicalize`` and ``validate`` are
compiled functions that take the common call (bytes within the default limits) with no Python
frame, and hand every other call to the Python functions (``_document.python_canonicalize`` and
``python_validate``).  Whichever way a call goes, the answer -- result, report or error, with its
code, message, pointer, line and column -- is the Python function's."""

from __future__ import annotations

import inspect
import json
import os
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from nuif_strategies import attr_names, damaged_corpus_texts, ids, kinds, values

import nuif_core
from benchmarks import corpus
from nuif_core import Limits, NuifError, _codec, _document

_speedups = _codec.compiled() or pytest.skip(
    "the compiled codec is not built", allow_module_level=True
)
if _codec.IMPLEMENTATION != "compiled":  # NUIF_NO_EXTENSIONS=1: test_the_twin_codec_gets_no_doors
    pytest.skip("the pure-Python twin is the codec in use: no doors", allow_module_level=True)

DOOR_CANONICALIZE = nuif_core.canonicalize
DOOR_VALIDATE = nuif_core.validate
PY_CANONICALIZE = _document.python_canonicalize
PY_VALIDATE = _document.python_validate


def _outcome(fn: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """What a call answered: its result, or its NuifError's five fields, or another exception's
    type and text."""
    try:
        return fn(*args, **kwargs)
    except NuifError as e:
        return ("NuifError", e.code, e.message, e.pointer, e.line, e.column)
    except Exception as e:
        return (type(e).__name__, str(e))


def _python_frames(fn: Callable[[], Any]) -> list[str]:
    """The names of the Python functions of ``nuif_core._document`` that run during ``fn()``."""
    seen: list[str] = []
    here = _document.__file__

    def profile(frame: Any, event: str, arg: Any) -> None:
        if event == "call" and frame.f_code.co_filename == here:
            seen.append(frame.f_code.co_name)

    sys.setprofile(profile)
    try:
        fn()
    finally:
        sys.setprofile(None)
    return seen


def test_the_exported_functions_are_the_compiled_ones_with_the_python_functions_signatures() -> (
    None
):
    assert nuif_core.canonicalize is _document.canonicalize is _speedups.canonicalize
    assert nuif_core.validate is _document.validate is _speedups.validate
    assert DOOR_CANONICALIZE is not PY_CANONICALIZE and DOOR_VALIDATE is not PY_VALIDATE
    for door, python in ((DOOR_CANONICALIZE, PY_CANONICALIZE), (DOOR_VALIDATE, PY_VALIDATE)):
        assert not hasattr(door, "__wrapped__")  # help() describes what runs
        assert door.__module__ == "nuif_core._speedups"
        assert door.__name__ == python.__name__
        want = inspect.signature(python)
        got = inspect.signature(door)
        assert [(p.name, p.kind, p.default) for p in got.parameters.values()] == [
            (p.name, p.kind, p.default) for p in want.parameters.values()
        ]
        assert inspect.cleandoc(door.__doc__) == inspect.cleandoc(python.__doc__)


def test_the_common_call_runs_no_python_frame_and_every_other_call_runs_the_python_function() -> (
    None
):
    data = corpus.load("ui", 1024)
    assert _python_frames(lambda: DOOR_CANONICALIZE(data)) == []
    assert _python_frames(lambda: DOOR_VALIDATE(data)) == []
    assert _python_frames(lambda: DOOR_VALIDATE(data, max_diagnostics=3)) == []
    text = data.decode()
    # str, limits given, another max_diagnostics type, a buffer: the Python functions' calls
    assert _python_frames(lambda: DOOR_CANONICALIZE(text))[0] == "canonicalize"
    assert (
        _python_frames(lambda: DOOR_CANONICALIZE(data, limits=Limits.DEFAULT))[0] == "canonicalize"
    )
    assert _python_frames(lambda: DOOR_CANONICALIZE(bytearray(data)))[0] == "canonicalize"
    assert _python_frames(lambda: DOOR_VALIDATE(text))[0] == "validate"
    assert _python_frames(lambda: DOOR_VALIDATE(data, max_diagnostics=True))[0] == "validate"
    # a schema problem: the door's compiled call said None, the Python path reports it
    bad = json.dumps({"nuif": 0, "root": {"id": "-x", "kind": "k"}}).encode()
    frames = _python_frames(lambda: _outcome(DOOR_CANONICALIZE, bad))
    assert frames[0] == "_canonicalize_checked" and "canonicalize" not in frames
    assert _python_frames(lambda: DOOR_VALIDATE(bad))[0] == "_validate_checked"
    # a text error: the compiled call raised it, the door's report of it is the Python one's
    assert _python_frames(lambda: DOOR_VALIDATE(b"{"))[0] == "_error_report"


def test_a_codec_bound_in_its_place_takes_the_doors_calls() -> None:
    """A test or fuzzer that binds the twin (or a wrapper) in ``_codec`` sees every call."""
    data = corpus.load("strings", 1024)
    seen: list[str] = []
    for name in ("canonical_result", "valid_report"):
        real = getattr(_codec, name)

        def counting(*args: Any, _real: Any = real, _name: str = name) -> Any:
            seen.append(_name)
            return _real(*args)

        setattr(_codec, name, counting)
        try:
            assert _outcome(DOOR_CANONICALIZE, data) == _outcome(PY_CANONICALIZE, data)
            assert _outcome(DOOR_VALIDATE, data) == _outcome(PY_VALIDATE, data)
        finally:
            setattr(_codec, name, real)
    assert seen == ["canonical_result", "canonical_result", "valid_report", "valid_report"]
    seen.clear()
    DOOR_CANONICALIZE(data)
    DOOR_VALIDATE(data)
    assert seen == []  # bound back: the doors take the calls again


def test_the_twin_codec_gets_no_doors() -> None:
    env = {**os.environ, "NUIF_NO_EXTENSIONS": "1"}
    env.pop("NUIF_REQUIRE_EXTENSION", None)
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import nuif_core; from nuif_core import _document as d; "
            "print(nuif_core.IMPLEMENTATION, nuif_core.canonicalize is d.python_canonicalize, "
            "nuif_core.validate is d.python_validate, type(nuif_core.canonicalize).__name__)",
        ],
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=True,
    ).stdout.split()
    assert out == ["python", "True", "True", "function"]


def _texts() -> Iterator[bytes]:
    """Valid, damaged and broken documents of the benchmark corpus's three shapes."""
    return damaged_corpus_texts(20261202, 12)


@pytest.mark.parametrize("data", list(_texts()), ids=lambda d: f"{len(d)}:{hash(d) & 0xFFFF:x}")
def test_every_answer_is_the_python_functions(data: bytes) -> None:
    assert _outcome(DOOR_CANONICALIZE, data) == _outcome(PY_CANONICALIZE, data)
    for max_diagnostics in (100, 1, 2):
        assert _outcome(DOOR_VALIDATE, data, max_diagnostics=max_diagnostics) == _outcome(
            PY_VALIDATE, data, max_diagnostics=max_diagnostics
        )
    text = data.decode("utf-8", "surrogateescape")
    for other in (text, bytearray(data), memoryview(data)):
        assert _outcome(DOOR_CANONICALIZE, other) == _outcome(PY_CANONICALIZE, other)
        assert _outcome(DOOR_VALIDATE, other) == _outcome(PY_VALIDATE, other)
    tight = Limits.DEFAULT.tighten(max_nodes=3, max_depth=6)
    assert _outcome(DOOR_CANONICALIZE, data, limits=tight) == _outcome(
        PY_CANONICALIZE, data, limits=tight
    )
    assert _outcome(DOOR_VALIDATE, data, limits=tight) == _outcome(PY_VALIDATE, data, limits=tight)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    ids,
    kinds,
    st.dictionaries(attr_names, values, max_size=4),
    st.booleans(),
    st.sampled_from(["", "-x", "A", None, 7]),
)
def test_generated_documents_get_the_python_functions_answers(
    node_id: str, kind: str, attrs: dict[str, Any], indent: bool, spoil: Any
) -> None:
    root: dict[str, Any] = {
        "id": node_id,
        "kind": kind,
        "attrs": attrs,
        "children": [{"id": node_id + "c", "kind": kind}],
    }
    if spoil != "":
        root["children"][0]["kind"] = spoil  # a schema problem (or none: "-x" is a kind error)
    data = json.dumps(
        {"nuif": 0, "root": root}, indent=2 if indent else None, ensure_ascii=False
    ).encode()
    assert _outcome(DOOR_CANONICALIZE, data) == _outcome(PY_CANONICALIZE, data)
    assert _outcome(DOOR_VALIDATE, data) == _outcome(PY_VALIDATE, data)


def test_the_arguments_are_refused_as_the_python_functions_refuse_them() -> None:
    data = corpus.load("ui", 1024)
    for args, kwargs in (
        ((), {}),
        ((data, data), {}),
        ((data,), {"limit": None}),
        ((123,), {}),
        ((None,), {}),
        ((data,), {"limits": "x"}),
    ):
        door = _outcome(DOOR_CANONICALIZE, *args, **kwargs)
        assert door == _outcome(PY_CANONICALIZE, *args, **kwargs) or (
            door[0] == "TypeError" and _outcome(PY_CANONICALIZE, *args, **kwargs)[0] == "TypeError"
        )
    for md in (0, -1, "3", 2.5, None):
        assert _outcome(DOOR_VALIDATE, data, max_diagnostics=md) == _outcome(
            PY_VALIDATE, data, max_diagnostics=md
        )
    too_big = b" " * (Limits.DEFAULT.max_document_bytes + 1)
    assert _outcome(DOOR_CANONICALIZE, too_big) == _outcome(PY_CANONICALIZE, too_big)
    assert _outcome(DOOR_CANONICALIZE, too_big)[1] == "NUIF_TOO_LARGE"
    assert _outcome(DOOR_VALIDATE, too_big) == _outcome(PY_VALIDATE, too_big)
