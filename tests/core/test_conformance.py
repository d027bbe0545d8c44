"""Public conformance suites (tests/data), through both codecs, byte for byte."""

from __future__ import annotations

import csv
import json
import struct
from pathlib import Path

import pytest

from nuif_core import NuifError

MAX_DEPTH = 128


def _double(hex_bits: str) -> float:
    return struct.unpack(">d", bytes.fromhex(hex_bits.rjust(16, "0")))[0]


def test_cyberphone_vectors_canonicalize_byte_for_byte(codec, testdata: Path) -> None:
    base = testdata / "jcs-cyberphone" / "testdata"
    inputs = sorted((base / "input").iterdir())
    assert len(inputs) >= 6
    for path in inputs:
        expected = (base / "output" / path.name).read_bytes()
        assert codec.canonical_json(path.read_bytes(), MAX_DEPTH) == expected, path.name
        # the canonical text is a fixed point
        assert codec.canonical_json(expected, MAX_DEPTH) == expected, path.name


def test_cyberphone_outhex_matches_output(codec, testdata: Path) -> None:
    base = testdata / "jcs-cyberphone" / "testdata"
    for path in sorted((base / "outhex").iterdir()):
        expected = bytes.fromhex(path.read_text().replace("\n", " ").replace(" ", ""))
        source = base / "input" / path.name.replace(".txt", ".json")
        assert codec.canonical_json(source.read_bytes(), MAX_DEPTH) == expected, path.name


def test_es6_number_file_formats_every_double_exactly(codec, testdata: Path) -> None:
    lines = (testdata / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().splitlines()
    assert len(lines) == 10000
    mismatches = []
    for line in lines:
        bits, expected = line.split(",")
        got = codec.dumps(_double(bits), MAX_DEPTH).decode()
        if got != expected:
            mismatches.append((bits, expected, got))
        # and the expected text parses back to the same canonical text and the same double,
        # integral doubles in [2^53, 1e21) included (written as integer literals: NUIF-0.1)
        if codec.canonical_json(expected.encode(), MAX_DEPTH).decode() != expected:
            mismatches.append((bits, expected, "reparse"))
        elif codec.loads(expected.encode(), MAX_DEPTH) != _double(bits):
            mismatches.append((bits, expected, "value"))
    assert mismatches == []


def test_es6_number_file_holds_integer_literals_beyond_2_pow_53(testdata: Path) -> None:
    # the read-back check above covers the NUIF-0.1 band only if the file has such lines
    lines = (testdata / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().splitlines()
    texts = [line.split(",")[1] for line in lines]
    big = [t for t in texts if t.lstrip("-").isdigit() and abs(int(t)) > 2**53 - 1]
    assert len(big) >= 10


def test_rfc8785_appendix_b_numbers(codec, testdata: Path) -> None:
    with open(testdata / "rfc8785-examples" / "appendix-b-number-samples.csv", newline="") as fh:
        rows = list(csv.DictReader(fh))
    assert rows
    for row in rows:
        x = _double(row["ieee754_hex"])
        if row["must_error"] == "true":
            with pytest.raises(NuifError) as info:
                codec.dumps(x, MAX_DEPTH)
            assert info.value.code == "NUIF_NUMBER"
        else:
            assert codec.dumps(x, MAX_DEPTH).decode() == row["expected"], row["comment"]


def test_rfc8785_section_3_2_example(codec, testdata: Path) -> None:
    base = testdata / "rfc8785-examples"
    got = codec.canonical_json((base / "section-3.2.2-input.json").read_bytes(), MAX_DEPTH)
    assert got == (base / "section-3.2.3-canonical-output.json").read_bytes().rstrip(b"\n")
    hex_text = (base / "section-3.2.4-canonical-output.hex.txt").read_text()
    assert got == bytes.fromhex("".join(hex_text.split()))


def test_rfc8785_sort_order_is_utf16(codec, testdata: Path) -> None:
    base = testdata / "rfc8785-examples"
    got = json.loads(
        codec.canonical_json((base / "section-3.2.3-sort-input.json").read_bytes(), 128)
    )
    expected = json.loads((base / "section-3.2.3-sort-expected-value-order.json").read_text())
    assert list(got.values()) == expected


# --- JSONTestSuite -----------------------------------------------------------------------------

#: y_ files NUIF rejects on purpose (strict I-JSON, NUIF-0 §1), with the code they get.
Y_EXCLUSIONS = {
    "y_object_duplicated_key.json": "NUIF_DUPLICATE_KEY",
    "y_object_duplicated_key_and_value.json": "NUIF_DUPLICATE_KEY",
    "y_string_escaped_noncharacter.json": "NUIF_UNICODE",
    "y_string_last_surrogates_1_and_2.json": "NUIF_UNICODE",
    "y_string_nonCharacterInUTF-8_U+10FFFF.json": "NUIF_UNICODE",
    "y_string_nonCharacterInUTF-8_U+FFFF.json": "NUIF_UNICODE",
    "y_string_unicode_U+10FFFE_nonchar.json": "NUIF_UNICODE",
    "y_string_unicode_U+1FFFE_nonchar.json": "NUIF_UNICODE",
    "y_string_unicode_U+FDD0_nonchar.json": "NUIF_UNICODE",
    "y_string_unicode_U+FFFE_nonchar.json": "NUIF_UNICODE",
}

#: The i_ ("implementation defined") files: our choice for each, documented in
#: docs/canonical-json.md.  "ok" means accepted.
I_CHOICES = {
    "i_number_double_huge_neg_exp.json": "ok",  # 1e-400-like: rounds to 0
    "i_number_huge_exp.json": "NUIF_NUMBER",  # overflows to infinity
    "i_number_neg_int_huge_exp.json": "NUIF_NUMBER",
    "i_number_pos_double_huge_exp.json": "NUIF_NUMBER",
    "i_number_real_neg_overflow.json": "NUIF_NUMBER",
    "i_number_real_pos_overflow.json": "NUIF_NUMBER",
    "i_number_real_underflow.json": "ok",
    # integer literals beyond 2^53 - 1: accepted only as the RFC 8785 text of a double (NUIF-0.1)
    "i_number_too_big_neg_int.json": "NUIF_NUMBER",  # -123123123123123123123123123123
    "i_number_too_big_pos_int.json": "ok",  # 100000000000000000000 is how 1e20 is written
    "i_number_very_big_negative_int.json": "NUIF_NUMBER",
    "i_object_key_lone_2nd_surrogate.json": "NUIF_UNICODE",
    "i_string_1st_surrogate_but_2nd_missing.json": "NUIF_UNICODE",
    "i_string_1st_valid_surrogate_2nd_invalid.json": "NUIF_UNICODE",
    "i_string_UTF-16LE_with_BOM.json": "NUIF_UTF8",
    "i_string_UTF-8_invalid_sequence.json": "NUIF_UTF8",
    "i_string_UTF8_surrogate_U+D800.json": "NUIF_UTF8",
    "i_string_incomplete_surrogate_and_escape_valid.json": "NUIF_UNICODE",
    "i_string_incomplete_surrogate_pair.json": "NUIF_UNICODE",
    "i_string_incomplete_surrogates_escape_valid.json": "NUIF_UNICODE",
    "i_string_invalid_lonely_surrogate.json": "NUIF_UNICODE",
    "i_string_invalid_surrogate.json": "NUIF_UNICODE",
    "i_string_invalid_utf-8.json": "NUIF_UTF8",
    "i_string_inverted_surrogates_U+1D11E.json": "NUIF_UNICODE",
    "i_string_iso_latin_1.json": "NUIF_UTF8",
    "i_string_lone_second_surrogate.json": "NUIF_UNICODE",
    "i_string_lone_utf8_continuation_byte.json": "NUIF_UTF8",
    "i_string_not_in_unicode_range.json": "NUIF_UTF8",
    "i_string_overlong_sequence_2_bytes.json": "NUIF_UTF8",
    "i_string_overlong_sequence_6_bytes.json": "NUIF_UTF8",
    "i_string_overlong_sequence_6_bytes_null.json": "NUIF_UTF8",
    "i_string_truncated-utf-8.json": "NUIF_UTF8",
    "i_string_utf16BE_no_BOM.json": "NUIF_UTF8",
    "i_string_utf16LE_no_BOM.json": "NUIF_UTF8",
    "i_structure_500_nested_arrays.json": "NUIF_DEPTH",
    "i_structure_UTF-8_BOM_empty_object.json": "NUIF_PARSE",
}


def _outcome(codec, data: bytes) -> str:
    try:
        codec.canonical_json(data, MAX_DEPTH)
    except NuifError as err:
        return err.code
    return "ok"


def _suite(testdata: Path) -> list[Path]:
    files = sorted((testdata / "JSONTestSuite" / "test_parsing").iterdir())
    assert len(files) == 318
    return files


def test_jsontestsuite_y_files_are_accepted_except_documented_exclusions(codec, testdata) -> None:
    got = {p.name: _outcome(codec, p.read_bytes()) for p in _suite(testdata) if p.name[0] == "y"}
    rejected = {name: code for name, code in got.items() if code != "ok"}
    assert rejected == Y_EXCLUSIONS


def test_jsontestsuite_n_files_are_all_rejected(codec, testdata) -> None:
    accepted = [
        p.name
        for p in _suite(testdata)
        if p.name[0] == "n" and _outcome(codec, p.read_bytes()) == "ok"
    ]
    assert accepted == []


def test_jsontestsuite_n_files_fail_with_text_codes_and_locations(codec, testdata) -> None:
    for p in _suite(testdata):
        if p.name[0] != "n":
            continue
        with pytest.raises(NuifError) as info:
            codec.canonical_json(p.read_bytes(), MAX_DEPTH)
        err = info.value
        assert err.code in {
            "NUIF_PARSE",
            "NUIF_UTF8",
            "NUIF_UNICODE",
            "NUIF_NUMBER",
            "NUIF_DEPTH",
        }, p.name
        assert err.line is not None and err.line >= 1 and err.column >= 1, p.name


def test_jsontestsuite_i_files_follow_documented_choices(codec, testdata) -> None:
    got = {p.name: _outcome(codec, p.read_bytes()) for p in _suite(testdata) if p.name[0] == "i"}
    assert got == I_CHOICES


def test_jsontestsuite_codecs_agree_on_every_file(testdata) -> None:
    from nuif_core import _codec

    _codec_py = _codec.twin()

    for p in _suite(testdata):
        data = p.read_bytes()
        results = []
        for mod in (_codec_py, _codec):
            try:
                results.append(("ok", mod.canonical_json(data, MAX_DEPTH)))
            except NuifError as err:
                results.append(("err", (err.code, err.message, err.pointer, err.line, err.column)))
        assert results[0] == results[1], p.name
