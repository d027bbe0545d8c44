"""The stable error code set, and every §1–§4 code triggered with its location."""

from __future__ import annotations

import pickle

import pytest

import nuif_core
from nuif_core import ERROR_CODES, Limits, NuifError

#: The public contract (NUIF-0 §6): adding a code is fine, renaming or removing one breaks users.
PINNED_CODES = {
    "NUIF_UTF8",
    "NUIF_PARSE",
    "NUIF_UNICODE",
    "NUIF_DUPLICATE_KEY",
    "NUIF_NUMBER",
    "NUIF_DEPTH",
    "NUIF_TOO_LARGE",
    "NUIF_VALUE",
    "NUIF_SCHEMA",
    "NUIF_VERSION",
    "NUIF_ID",
    "NUIF_DUPLICATE_ID",
    "NUIF_KIND",
    "NUIF_ATTR",
    "NUIF_LIMIT_NODES",
    "NUIF_LIMIT_TRANSACTIONS",
    "NUIF_LIMIT_OPERATIONS",
    "NUIF_LIMIT_WORK",
    "NUIF_PATCH_SCHEMA",
    "NUIF_PATCH_BASE_MISMATCH",
    "NUIF_PATCH_NOT_FOUND",
    "NUIF_PATCH_ID_EXISTS",
    "NUIF_PATCH_INDEX",
    "NUIF_PATCH_ROOT",
    "NUIF_PATCH_CYCLE",
    "NUIF_PATCH_ATTR_MISSING",
    "NUIF_PATCH_POINTER",
    "NUIF_PATCH_TEST_FAILED",
    "NUIF_PACKAGE",
    "NUIF_PACKAGE_LIMIT",
    "NUIF_CATALOG",
    "NUIF_CATALOG_KIND",
    "NUIF_CATALOG_ATTRS",
    "NUIF_CATALOG_CHILDREN",
    "NUIF_ARGUMENTS",
}


def test_error_code_set_is_pinned() -> None:
    assert set(ERROR_CODES) == PINNED_CODES
    for code, meaning in ERROR_CODES.items():
        assert code.startswith("NUIF_") and code == code.upper() and meaning


def test_unknown_code_cannot_be_raised() -> None:
    with pytest.raises(AssertionError):
        NuifError("NUIF_NOPE", "x")


def test_error_text_reads_code_message_and_location() -> None:
    err = NuifError(
        "NUIF_DUPLICATE_ID",
        'id "a" is used twice',
        pointer="/root/children/1/id",
        line=1,
        column=52,
    )
    assert (
        str(err)
        == 'NUIF_DUPLICATE_ID: id "a" is used twice (at /root/children/1/id, line 1 column 52)'
    )
    assert err.to_dict() == {
        "code": "NUIF_DUPLICATE_ID",
        "message": 'id "a" is used twice',
        "pointer": "/root/children/1/id",
        "line": 1,
        "column": 52,
    }
    assert isinstance(err, ValueError)


def test_error_survives_pickling() -> None:
    err = NuifError("NUIF_PARSE", "bad", line=2, column=3)
    back = pickle.loads(pickle.dumps(err))
    assert (back.code, back.message, back.line, back.column) == ("NUIF_PARSE", "bad", 2, 3)


def _err(text, **kw) -> NuifError:
    with pytest.raises(NuifError) as info:
        nuif_core.canonical_json(text, **kw)
    return info.value


# One case per §1 code: text, code, pointer, line, column.
TEXT_CASES = [
    (b'{"a": "\xff"}', "NUIF_UTF8", None, 1, 8),
    (b"\n\n  [1, 2 \xc3\x28]", "NUIF_UTF8", None, 3, 9),
    (b"\xef\xbb\xbf{}", "NUIF_PARSE", None, 1, 1),
    (b"", "NUIF_PARSE", None, 1, 1),
    (b'{"a": [1, 2,]}', "NUIF_PARSE", None, 1, 13),
    (b'{\n  "a": tru\n}', "NUIF_PARSE", None, 2, 11),
    (b"[01]", "NUIF_PARSE", None, 1, 3),
    (b"[NaN]", "NUIF_PARSE", None, 1, 2),
    (b"[1] // c", "NUIF_PARSE", None, 1, 5),
    (b"['a']", "NUIF_PARSE", None, 1, 2),
    (b'["a\tb"]', "NUIF_PARSE", None, 1, 4),
    (b'["\xc3\xa9", "\\ud800"]', "NUIF_UNICODE", "/1", 1, 8),
    (b'{"k": "\xef\xb7\x90"}', "NUIF_UNICODE", "/k", 1, 8),
    (b'{"x": {"a": 1,\n "a": 2}}', "NUIF_DUPLICATE_KEY", "/x/a", 2, 2),
    (b'{"n": [1e400]}', "NUIF_NUMBER", "/n/0", 1, 8),
    (b"[9007199254740993]", "NUIF_NUMBER", "/0", 1, 2),
    (b"[-9007199254740993]", "NUIF_NUMBER", "/0", 1, 2),
    (b'{"big":\n  [1, 1000000000000000000000]}', "NUIF_NUMBER", "/big/1", 2, 7),
]


@pytest.mark.parametrize(("text", "code", "pointer", "line", "column"), TEXT_CASES)
def test_text_errors_carry_code_and_location(text, code, pointer, line, column) -> None:
    err = _err(text)
    assert (err.code, err.pointer, err.line, err.column) == (code, pointer, line, column), str(err)


def test_integer_limit_is_inclusive_of_2_pow_53_minus_1() -> None:
    assert nuif_core.canonical_json(b"[9007199254740991,-9007199254740991]") == (
        b"[9007199254740991,-9007199254740991]"
    )
    # beyond it, an integer literal is accepted only as the RFC 8785 text of a double (NUIF-0.1)
    assert nuif_core.canonical_json(b"[9007199254740992,-9007199254740992]") == (
        b"[9007199254740992,-9007199254740992]"
    )
    # a literal with a fraction or exponent is a double and rounds, as NUIF-0 §1 says
    assert nuif_core.canonical_json(b"[9007199254740993.0, 1e-400, -0, -0.0]") == (
        b"[9007199254740992,0,0,0]"
    )


def test_depth_error_names_the_container_that_is_one_too_deep() -> None:
    err = _err(b'{"a": [[[]]]}', limits=Limits(max_depth=3))
    assert (err.code, err.pointer, err.line, err.column) == ("NUIF_DEPTH", "/a/0/0", 1, 9)
    assert nuif_core.canonical_json(b'{"a": [[]]}', limits=Limits(max_depth=3)) == b'{"a":[[]]}'


def test_ten_megabytes_of_open_brackets_is_a_clean_depth_error(codec) -> None:
    data = b"[" * (10 * 1024 * 1024)
    with pytest.raises(NuifError) as info:
        codec.canonical_json(data, 128)
    assert info.value.code == "NUIF_DEPTH"
    assert (info.value.line, info.value.column) == (1, 129)
    with pytest.raises(NuifError) as info:
        codec.loads(b'{"a":' * 1000000, 128)
    assert info.value.code == "NUIF_DEPTH"


def test_text_over_16_mib_is_refused_before_parsing() -> None:
    limit = Limits.DEFAULT.max_document_bytes
    big = b" " * limit + b"0"  # would be valid JSON: the size alone refuses it
    err = _err(big)
    assert err.code == "NUIF_TOO_LARGE"
    assert str(limit) in err.message
    report = nuif_core.validate(big)
    assert not report.valid and report.diagnostics[0].code == "NUIF_TOO_LARGE"
    # exactly at the limit is allowed
    assert nuif_core.canonical_json(b" " * (limit - 1) + b"0") == b"0"


def test_size_limit_counts_utf8_bytes_of_str_input() -> None:
    text = '"' + "é" * 10 + '"'  # 12 characters, 22 bytes
    assert _err(text, limits=Limits(max_document_bytes=21)).code == "NUIF_TOO_LARGE"
    assert nuif_core.canonical_json(text, limits=Limits(max_document_bytes=22)) == text.encode()


def test_str_with_lone_surrogate_is_a_utf8_error() -> None:
    err = _err('["a\ud800"]')
    assert (err.code, err.line, err.column) == ("NUIF_UTF8", 1, 4)


def test_non_text_input_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        nuif_core.canonical_json(123)  # type: ignore[arg-type]
