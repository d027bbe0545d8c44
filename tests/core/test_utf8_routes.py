"""Every route of the whole-input UTF-8 check gives Python's strict decoder's verdict.

Before parsing, the compiled codec checks that the whole input is UTF-8: with 32- or 16-byte
vector table lookups (``csrc/nuif_utf8.h``; AVX2 or SSSE3 on x86-64, picked at import from the
CPU; NEON on arm64) where the build has them, else with the scalar loop in the same header.
``utf8_backend()`` names the route and ``_settings(utf8_route=...)`` switches it, so these tests run each
route over the same inputs and hold all of them to ``bytes.decode("utf-8")`` (strict: no overlong
forms, no surrogates, nothing above U+10FFFF).  The vector code carries state from one block to
the next, so the bad byte of every error class is put at every offset of inputs of 1..200 bytes:
before, on and after each 16-, 32- and 64-byte boundary, and at the very end.
"""

from __future__ import annotations

import platform
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from nuif_core import _codec
from nuif_core._errors import NuifError

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it

BEST = compiled.utf8_backend()
# the routes this CPU and build can run, the fastest first
ROUTES = {
    "avx2": ["avx2", "ssse3", "scalar"],
    "ssse3": ["ssse3", "scalar"],
    "neon": ["neon", "scalar"],
}.get(BEST, ["scalar"])


@contextmanager
def route(name: str) -> Iterator[None]:
    old = compiled._settings(utf8_route=name)
    try:
        assert compiled.utf8_backend() == name
        yield
    finally:
        compiled._settings(**old)


def python_says(data: bytes) -> bool:
    try:
        data.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def verdicts(*inputs: bytes) -> dict[str, list[bool]]:
    """Each route's verdicts on the inputs, and Python's under the key "python"."""
    out = {"python": [python_says(d) for d in inputs]}
    for name in ROUTES:
        with route(name):
            out[name] = [compiled._utf8_check(d) for d in inputs]
    return out


def assert_all_agree(*inputs: bytes) -> None:
    got = verdicts(*inputs)
    want = got.pop("python")
    for name, seen in got.items():
        wrong = [d for d, a, b in zip(inputs, seen, want, strict=True) if a != b]
        assert not wrong, f"{name} disagrees with Python on {wrong[:3]!r}"


# -- the route -----------------------------------------------------------------------------------


def cpu_flags() -> set[str]:
    try:
        text = Path("/proc/cpuinfo").read_text()
    except OSError:
        return set()
    for line in text.splitlines():
        if line.startswith("flags"):
            return set(line.split(":", 1)[1].split())
    return set()


def test_the_route_is_the_best_vector_code_the_cpu_runs() -> None:
    machine = platform.machine().lower()
    if machine in ("aarch64", "arm64"):  # NEON is part of arm64: no CPU flag to look at
        assert ("scalar" if compiled.scan_backend() == "portable" else "neon") == BEST
        return
    flags = cpu_flags()
    if machine not in ("x86_64", "amd64") or not flags:
        pytest.skip("vector routes exist on x86-64 and arm64; x86-64's CPU flags come from Linux")
    if compiled.scan_backend() == "portable":  # built with NUIF_SCAN_PORTABLE
        assert BEST == "scalar"
    else:
        assert ("avx2" if "avx2" in flags else "ssse3" if "ssse3" in flags else "scalar") == BEST


def test_the_route_can_be_switched_to_scalar_and_back() -> None:
    with route("scalar"):
        assert compiled.utf8_backend() == "scalar"
    assert compiled.utf8_backend() == BEST


def test_a_route_the_cpu_or_build_lacks_is_refused() -> None:
    # the other architecture's routes are always among them (x86-64 has no NEON, arm64 no AVX2)
    missing = [r for r in ("avx2", "ssse3", "neon") if r not in ROUTES]
    assert "neon" in missing or ("avx2" in missing and "ssse3" in missing)
    for name in missing:
        with pytest.raises(ValueError, match=f"cannot check UTF-8 with {name}"):
            compiled._settings(utf8_route=name)
        assert compiled.utf8_backend() == BEST
    with pytest.raises(ValueError, match=r"^this CPU or build cannot check UTF-8 with sse9$"):
        compiled._settings(utf8_route="sse9")
    assert compiled.utf8_backend() == BEST


# -- random inputs -------------------------------------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.binary(max_size=300))
def test_all_routes_agree_with_python_on_random_bytes(data: bytes) -> None:
    assert_all_agree(data)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(
        st.sampled_from(
            [
                0x00,
                0x41,
                0x7F,
                0x80,
                0x8F,
                0x90,
                0x9F,
                0xA0,
                0xBF,
                0xC0,
                0xC1,
                0xC2,
                0xDF,
                0xE0,
                0xED,
                0xEF,
                0xF0,
                0xF4,
                0xF5,
                0xFF,
            ]
        ),
        max_size=200,
    )
)
def test_all_routes_agree_with_python_on_bytes_drawn_from_the_boundary_values(
    data: list[int],
) -> None:
    assert_all_agree(bytes(data))


@settings(max_examples=300, deadline=None)
@given(st.text(max_size=120), st.data())
def test_all_routes_agree_with_python_on_valid_text_with_one_byte_changed(
    text: str,
    data: st.DataObject,
) -> None:
    raw = text.encode("utf-8")
    assert_all_agree(raw)
    assert verdicts(raw)["python"] == [True]
    if raw:
        i = data.draw(st.integers(0, len(raw) - 1))
        b = data.draw(st.integers(0, 255))
        assert_all_agree(raw[:i] + bytes([b]) + raw[i + 1 :], raw[:i], raw[i:])


# -- every error class at every offset -----------------------------------------------------------

# the bytes of one bad spot (each an error wherever it stands, and whatever follows)
BAD = {
    "overlong 2-byte C0": b"\xc0\x80",
    "overlong 2-byte C1": b"\xc1\xbf",
    "overlong 3-byte E0 80": b"\xe0\x80\x80",
    "overlong 3-byte E0 9F": b"\xe0\x9f\xbf",
    "overlong 4-byte F0 80": b"\xf0\x80\x80\x80",
    "overlong 4-byte F0 8F": b"\xf0\x8f\xbf\xbf",
    "surrogate ED A0": b"\xed\xa0\x80",
    "surrogate ED BF": b"\xed\xbf\xbf",
    "above U+10FFFF F4 90": b"\xf4\x90\x80\x80",
    "above U+10FFFF F4 BF": b"\xf4\xbf\xbf\xbf",
    "F5": b"\xf5\x80\x80\x80",
    "F7": b"\xf7\xbf\xbf\xbf",
    "F8": b"\xf8\x88\x80\x80",
    "FF": b"\xff",
    "lone continuation 80": b"\x80",
    "lone continuation BF": b"\xbf",
    "2-byte cut": b"\xc3",
    "3-byte cut after 1": b"\xe2",
    "3-byte cut after 2": b"\xe2\x82",
    "4-byte cut after 1": b"\xf0",
    "4-byte cut after 2": b"\xf0\x9f",
    "4-byte cut after 3": b"\xf0\x9f\x98",
    "one continuation too many after 2": b"\xc3\xa9\x80",
    "one continuation too many after 3": b"\xe2\x82\xac\x80",
    "one continuation too many after 4": b"\xf0\x9f\x98\x80\x80",
    "lead then lead": b"\xc3\xc3\xa9",
}

# the extremes that must stay valid (first and last of each range)
GOOD = {
    "C2 80": b"\xc2\x80",
    "DF BF": b"\xdf\xbf",
    "E0 A0 80": b"\xe0\xa0\x80",
    "ED 9F BF": b"\xed\x9f\xbf",
    "EE 80 80": b"\xee\x80\x80",
    "EF BF BF": b"\xef\xbf\xbf",
    "F0 90 80 80": b"\xf0\x90\x80\x80",
    "F3 BF BF BF": b"\xf3\xbf\xbf\xbf",
    "F4 8F BF BF": b"\xf4\x8f\xbf\xbf",
}

# What surrounds the spot: ASCII (the vector code's fast path) or mixed 1- to 4-byte characters.
FILLERS = {"ascii": "a", "mixed": "aé€😀Ωж中"}


@cache
def filled(filler: str, size: int) -> bytes:
    """Valid UTF-8 of exactly ``size`` bytes made from the filler's characters (ASCII to top up)."""
    out = bytearray()
    chars = filler * (size + 1)
    for ch in chars:
        b = ch.encode("utf-8")
        if len(out) + len(b) > size:
            break
        out += b
    return bytes(out) + b"a" * (size - len(out))


def placements(spot: bytes, filler: str) -> list[bytes]:
    """The spot at every offset of inputs of 1..200 bytes (cut at the end when it is longer)."""
    out = []
    for n in range(1, 201):
        for at in range(n):
            body = filled(filler, at) + spot + filled(filler, max(0, n - at - len(spot)))
            out.append(body[:n])
    return out


@pytest.mark.parametrize("filler", sorted(FILLERS))
@pytest.mark.parametrize("name", sorted(BAD))
def test_every_route_finds_each_error_class_at_every_offset(name: str, filler: str) -> None:
    cases = placements(BAD[name], FILLERS[filler])
    assert_all_agree(*cases)
    if not name.startswith("one continuation") and name != "lead then lead":
        # the spot itself is bad, so every input that holds its first byte is refused
        assert not any(verdicts(*cases)[ROUTES[0]])


@pytest.mark.parametrize("filler", sorted(FILLERS))
@pytest.mark.parametrize("name", sorted(GOOD))
def test_every_route_accepts_the_extreme_valid_sequences_at_every_offset(
    name: str,
    filler: str,
) -> None:
    spot = GOOD[name]
    cases = [
        filled(FILLERS[filler], at) + spot + filled(FILLERS[filler], after)
        for at in range(200)
        for after in (0, 1, 2, 3, 37)
    ]
    got = verdicts(*cases)
    for r in ROUTES:
        assert all(got[r]), r


@pytest.mark.parametrize(
    "n", [0, 1, 15, 16, 17, 31, 32, 33, 63, 64, 65, 127, 128, 129, 4096, 65537]
)
def test_every_route_accepts_long_valid_texts_and_refuses_a_cut_last_character(n: int) -> None:
    good = filled(FILLERS["mixed"], n)
    cut = filled(FILLERS["mixed"], n) + "😀".encode()[:3]
    assert_all_agree(good, cut, cut[1:], good + b"\x80", b"\x80" + good)


# -- the codec ------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "bad", [b"\xed\xa0\x80", b"\xe0\x9f\xbf", b"\xf4\x90\x80\x80", b"\xc3", b"\x80"]
)
@pytest.mark.parametrize("at", [0, 13, 14, 15, 30, 31, 62, 63, 64, 100])
def test_the_codec_reports_the_same_utf8_error_on_every_route(bad: bytes, at: int) -> None:
    text = b'{"k":"' + "é".encode() * at + bad + b'"}'
    seen = set()
    for name in ROUTES:
        with route(name), pytest.raises(NuifError) as info:
            compiled.canonical_json(text, 128)
        e = info.value
        assert e.code == "NUIF_UTF8"
        seen.add((e.message, e.line, e.column))
    assert len(seen) == 1
    good = b'{"k":"' + "é".encode() * at + b'"}'
    outs = set()
    for name in ROUTES:
        with route(name):
            outs.add(compiled.canonical_json(good, 128))
    assert len(outs) == 1
