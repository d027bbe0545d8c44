"""The structural-index parser builds the one-pass parser's tape, and errors do not change.

The compiled codec builds its token tape with the structural-index parser (``csrc/nuif_stage1.h``
indexes the input 64 bytes per step, ``csrc/nuif_stage2.h`` walks the index) and re-reads every
input it refuses with the one-pass parser, which raises the error.  So two things must hold, for
every stage-1 route this CPU runs and for index chunks small enough that short inputs cross them:

* where the indexed parser accepts an input, its tape is the one-pass parser's, token for token,
  with the same arena, member-name order, doubles and depth (``_tape``);
* it accepts every valid input but the few it leaves to the one-pass parser on purpose (numbers
  whose conversion leaves the float library's range), refuses every invalid one, and the codec's
  results and errors (code, message, pointer, line, column) are those of the one-pass parser.

Both hold for the second stage's direct walk too (``"direct"`` among the routes below: no index,
the walk finds each next token itself), which builds the tapes of inputs below 1 MiB by default,
and for the split walk, which builds those of 1 MiB and more: the direct walk taking the segments
a helper thread parsed ahead of it (``"split0"``: the helper starts guessing at the first byte,
so that nearly every array is taken from it; ``"split500"``: at the middle, as by default).  Here
the split walk starts once its helper is done, so it meets every segment the helper made.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from benchmarks import corpus
from nuif_core import _codec
from nuif_core._errors import NuifError
from tests.nuif_strategies import indented_texts, reindented_texts, values

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it

DATA = Path(__file__).resolve().parent.parent / "data"
ALL_ROUTES = ("avx2", "ssse3", "neon", "portable")


def _runs(name: str) -> bool:
    try:
        old = compiled._set_stage1_route(name)
    except ValueError:
        return False
    compiled._set_stage1_route(old)
    return True


ROUTES = [r for r in ALL_ROUTES if _runs(r)]
# the stage-1 routes, the second stage's walk without an index, and that walk split over two threads
SPLITS = ["split0", "split500"]
WALKS = ROUTES + ["direct"] + SPLITS
# 64: every block is a chunk; 16384: the default
CHUNKS = [64, 16384]


@contextmanager
def indexing(route: str, chunk: int = 0) -> Iterator[None]:
    """Every input through the structural-index parser, with this route and chunk size (route
    ``"direct"``: through its second stage alone; ``"split<permille>"``: that stage's split walk,
    its helper starting at that many thousandths of the input)."""
    direct = is_direct(route)
    old_min = compiled._set_indexed(None if direct else 0)
    old_direct = compiled._set_direct(0 if direct else None)
    old_route = compiled._set_stage1_route(ROUTES[0] if direct else route)
    old_chunk = compiled._set_index_chunk(chunk)
    old_split = compiled._set_split(0 if route in SPLITS else None,
                                    int(route[5:]) if route in SPLITS else -1, True)
    try:
        yield
    finally:
        compiled._set_indexed(old_min)
        compiled._set_direct(old_direct)
        compiled._set_stage1_route(old_route)
        compiled._set_index_chunk(old_chunk)
        compiled._set_split(*old_split)


def is_direct(route: str) -> bool:
    """Whether ``route`` is the second stage without an index (the direct or the split walk)."""
    return route == "direct" or route in SPLITS


@contextmanager
def one_pass() -> Iterator[None]:
    old = compiled._set_indexed(None)
    old_direct = compiled._set_direct(None)
    old_split = compiled._set_split(None)
    try:
        yield
    finally:
        compiled._set_indexed(old)
        compiled._set_direct(old_direct)
        compiled._set_split(*old_split)


def outcome(data: bytes, depth: int = 128) -> tuple:
    """What the codec answers: the canonical bytes, or every field of the error."""
    try:
        return ("ok", compiled.canonical_json(data, depth))
    except NuifError as e:
        return ("error", e.code, str(e), e.pointer, e.line, e.column)


def one_pass_tape(data: bytes, depth: int = 128) -> tuple | None:
    try:
        return compiled._tape(data, depth, False)
    except NuifError:
        return None


def left_to_one_pass(text: bytes) -> bool:
    """Valid inputs the indexed parser refuses on purpose: a number whose double conversion
    underflows or overflows the float library's range (exponents of three digits)."""
    return bool(re.search(rb"[eE][-+]?0*\d{3,}", text))


def check(data: bytes, route: str, chunk: int = 0, depth: int = 128) -> tuple | None:
    """Hold the indexed parser to the one-pass parser on ``data``; returns the indexed tape."""
    want = one_pass_tape(data, depth)
    with indexing(route, chunk):
        got = compiled._tape(data, depth, True, is_direct(route))
        if want is None:
            assert got is None, f"{route}: accepted what the one-pass parser refuses: {data[:80]!r}"
        elif got is None:
            assert left_to_one_pass(data), f"{route}: refused a valid input: {data[:80]!r}"
        else:
            assert got == want, f"{route}: another tape for {data[:80]!r}"
        with_index = outcome(data, depth)
    with one_pass():
        assert with_index == outcome(data, depth)
    return got


# -- the route -----------------------------------------------------------------------------------


def test_the_backend_names_a_route_this_cpu_runs() -> None:
    with indexing(ROUTES[0]):
        assert compiled.index_backend() == ROUTES[0]
    assert ROUTES[-1] == "portable"
    with one_pass():
        assert compiled.index_backend() == "off"


def test_switches_refuse_what_they_cannot_do() -> None:
    with pytest.raises(ValueError):
        compiled._set_stage1_route("sse9")
    for route in set(ALL_ROUTES) - set(ROUTES):
        with pytest.raises(ValueError, match="cannot index"):
            compiled._set_stage1_route(route)
    for bad in (63, 100, 32768, -64):
        with pytest.raises(ValueError, match="multiple of 64"):
            compiled._set_index_chunk(bad)


# -- valid documents: the same tape ----------------------------------------------------------------


@cache
def corpus_docs() -> list[bytes]:
    docs = [corpus.load(shape, size) for shape in ("ui", "strings", "numbers")
            for size in ("1KiB", "64KiB")]
    # compact text too: no whitespace between the structural characters
    docs += [json.dumps(json.loads(d), ensure_ascii=False, separators=(",", ":")).encode()
             for d in docs[:3]]
    return docs


@pytest.mark.parametrize("chunk", CHUNKS)
@pytest.mark.parametrize("route", WALKS)
def test_corpus_documents_get_the_same_tape(route: str, chunk: int) -> None:
    for doc in corpus_docs():
        assert check(doc, route, chunk) is not None  # the fast path took it


@pytest.mark.parametrize("route", WALKS)
def test_every_conformance_case_agrees(route: str) -> None:
    """JSONTestSuite (y_, n_, i_), the RFC 8785 and cyberphone examples: the same tape or the
    same refusal, and the same codec result or error."""
    files = sorted((DATA / "JSONTestSuite" / "test_parsing").iterdir())
    files += sorted((DATA / "rfc8785-examples").glob("*.json"))
    files += sorted((DATA / "jcs-cyberphone" / "testdata" / "input").glob("*.json"))
    assert len(files) > 300
    accepted = 0
    for f in files:
        for chunk in (64, 0):
            accepted += check(f.read_bytes(), route, chunk) is not None
    assert accepted > 150  # the y_ and accepted i_ cases, twice


@pytest.mark.parametrize("route", WALKS)
def test_integers_beyond_2_53_that_are_their_doubles_text(route: str) -> None:
    """NUIF-0.1 accepts an integer literal beyond 2^53 - 1 exactly when it is its double's RFC
    8785 text: the indexed parser takes those itself (a literal token, as the one-pass parser
    makes), and leaves the others to the one-pass parser to report."""
    accepted = ["9007199254740992", "-9007199254740992", "18014398509481984",
                "100000000000000000000", "-295147905179352830000"]
    refused = ["9007199254740993", "123456789012345678901234567890", "100000000000000000001"]
    for lit in accepted:
        for text in (f"[{lit}]", f'{{"a": {lit}, "b": [1, {lit}]}}'):
            assert check(text.encode(), route) is not None, text
    for lit in refused:
        assert check(f"[{lit}]".encode(), route) is None, lit


@pytest.mark.parametrize("route", WALKS)
def test_ten_thousand_es6_numbers(route: str) -> None:
    """Every number of the ES6 test file (doubles of every magnitude): one array, the same tape
    (the same F_LIT / F_DBL choices and doubles)."""
    lines = (DATA / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().splitlines()
    texts = [line.split(",")[1] for line in lines if line]
    literals = [t for t in texts if not re.fullmatch(r"-?\d{16,}", t)]
    assert len(literals) > 9000
    check(("[" + ",".join(literals) + "]").encode(), route)
    check(("[" + ",\n ".join(literals) + "]").encode(), route, 64)


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(value=values, pretty=st.booleans(), route=st.sampled_from(WALKS),
       chunk=st.sampled_from([64, 128, 0]))
def test_generated_values(value: object, pretty: bool, route: str, chunk: int) -> None:
    text = json.dumps(value, ensure_ascii=pretty, indent=1 if pretty else None)
    check(text.encode(), route, chunk)


# -- strings across blocks and chunks ----------------------------------------------------------------


STRING_BODIES = [
    "plain ascii",
    "tab\\there \\\\ \\\" quote \\/ slash",
    "\\u00e9\\u4e16\\u754c \\ud83d\\ude00 \\u001f \\u0022 \\u005c",
    "é世界🙂 mixed \\n with escapes",
    "\u0fff\uffbf\ufdcf\ufdf0\U0001fffd",  # near-misses of noncharacters: all valid
    "\\\\\\\\\\\\\\\\",  # a run of eight backslashes (four escaped ones)
    # escapes in a row and one right before the closing quote (the walk then skips its scan)
    "\\ud835\\udc00\\ud835\\udc01\\n\\t\\u0041\\/x\\u00e9",
    r"\u0000\u001f\"\\\b\f\r",
]


@pytest.mark.parametrize("route", WALKS)
def test_strings_at_every_offset_across_block_and_chunk_boundaries(route: str) -> None:
    for body in STRING_BODIES:
        for pad in range(40, 140):
            for key in (False, True):
                text = ('{"' + body + '":1}') if key else ('["' + body + '"]')
                data = (" " * pad + text).encode()
                assert check(data, route, 64) is not None, data


def _escape_spellings() -> list[str]:
    """Every two-character escape and every \\u escape of an ASCII character, in lowercase and
    uppercase hex, plus a few beyond ASCII."""
    out = ["\\" + e for e in '"\\/bfnrt']
    for cp in list(range(0x80)) + [0xE9, 0x2028, 0xFEFF]:
        out += sorted({f"\\u{cp:04x}", f"\\u{cp:04X}"})
    return out


def _canonical_spelling(esc: str) -> bool:
    """Whether RFC 8785 writes the character ``esc`` escapes exactly as ``esc``."""
    return json.dumps(json.loads(f'"{esc}"'), ensure_ascii=False) == f'"{esc}"'


@pytest.mark.parametrize("route", ["one-pass", "direct", "split0"])
def test_values_whose_escapes_are_canonical_point_at_the_input(route: str) -> None:
    """A string value whose escapes are all spelled as the writer spells them is its own canonical
    text: its token points at the input (no F_ESC, nothing in the arena).  Any other escape puts
    the value in the arena, the text before it copied as it is and the rest in canonical form;
    the canonical bytes are those of the pure-Python codec either way."""
    twin = _codec.twin()
    spellings = _escape_spellings()
    in_place = [e for e in spellings if _canonical_spelling(e)]
    # the writer's spellings: \" \\ \b \f \n \r \t and \u00xx (lowercase) for other controls
    assert len(in_place) == 7 + 32 - 5
    for esc in spellings:
        for before in ("", "a", "\\n", "ab\\tc"):
            for after in ("", "z", "\\\\", "\\u0001y", "\\u00e9"):
                body = before + esc + after
                data = f'["{body}",{{"{body}":0}}]'.encode()
                with one_pass() if route == "one-pass" else indexing(route, 64):
                    if route == "one-pass":
                        tape = one_pass_tape(data)
                    else:
                        tape = compiled._tape(data, 128, True, True)
                    got = compiled.canonical_json(data, 128)
                assert tape is not None, data
                value = tape[0][1]  # the array's first element
                canonical = _canonical_spelling(esc) and after != "\\u00e9"
                if canonical:
                    assert value[1] == 0 and value[2] == 2 and value[3] == len(body), data
                else:
                    assert value[1] & 1, data  # F_ESC: decoded into the arena
                want = twin.canonical_json(data, 128)
                assert got == want, data
                if canonical:  # the value's canonical text is its input text
                    assert want.startswith(f'["{body}",'.encode()), data


@pytest.mark.parametrize("route", WALKS)
def test_newlines_and_indentations_of_every_width(route: str) -> None:
    """Pretty-printed text: the direct walk reads a newline's indentation of up to 32 spaces in
    one step and goes on from there with the general whitespace scan."""
    for data in indented_texts():
        check(data, route, 64)


@pytest.mark.parametrize("route", WALKS)
def test_indentations_the_walk_does_not_guess(route: str) -> None:
    """The direct walk takes a line's indentation to be the last one it read at that depth, and
    counts it where that guess is wrong: lines one space off, at random widths, with other
    whitespace behind, deeper than the 64 depths it keeps guesses for."""
    for data in reindented_texts():
        check(data, route, 64)


@pytest.mark.parametrize("route", WALKS)
def test_long_strings_span_chunks(route: str) -> None:
    long_plain = "x" * 40_000
    long_esc = ("abc\\n\\u00e9" * 5000)
    doc = f'{{"a":"{long_plain}","b":["{long_esc}",1.5,"{long_plain}é"],"c":{{}}}}'.encode()
    for chunk in (64, 1024, 0):
        assert check(doc, route, chunk) is not None


# -- errors -------------------------------------------------------------------------------------------


BAD = [
    b"", b" ", b"\xef\xbb\xbf{}", b"[1 2]", b"[1,]", b'{"a" 1}', b'{"a":1,}', b'{"a":1 "b":2}',
    b"[tru]", b"[truex]", b'[true"x"]', b"[1.]", b"[.5]", b"[01]", b"[-]", b"[1e]", b"[1e+]",
    b"[1.5.3]", b"[1x]", b"[nul]", b"[falsey]", b"{}}", b"[]]", b"[[]", b"{", b'{"a"', b'{"a":',
    b'["a\\x"]', b'["\\u12"]', b'["\\uZZZZ"]', b'["\\ud800"]', b'["\\udc00"]', b'["\\ud800\\u0041"]',
    b'["\\ufdd0"]', b'["\\uffff"]', b'["\\ud83f\\udfff"]', '["\ufdd0"]'.encode(),
    '["\uffff"]'.encode(), '["x\U0010ffff"]'.encode(), '{"\ufffe":1}'.encode(),
    b'["a\x01b"]', b'["a\nb"]', b'"unterminated', b'{"a":1,"a":2}', b'{"b":{"a":[],"a":{}}}',
    b"[1e400]", b"[-1e400]", b"[123456789012345678]", b"[\x00]", b"[1]\x00", b"{} x", b"1 2",
    b"[1]\xff", b'["\xc3"]', b"[\"\\", b"[\"\\u", b"[9007199254740993]",
    # the input or the string ending, or a bad byte coming, right after an escape
    b'["\\n', b'["\\u0041', b'["\\ud835\\udc00', b'{"\\n', b'["\\n\\x"]', b'["\\n\x01"]',
    b'["\\n\x01\\"]', b'["\\u0041\\ud800"]', b'["\\t\\ufffe"]', b'["\\n\\',
    # duplicates among 3, 8 and 9 members (the small objects' sort finds them itself, the larger
    # ones' after the merge sort), apart and side by side in the input
    b'{"a":1,"b":2,"a":3}', b'{"b":1,"c":2,"d":3,"e":4,"f":5,"g":6,"h":7,"b":8}',
    b'{"i":1,"h":2,"g":3,"f":4,"e":5,"d":6,"c":7,"b":8,"a":9,"e":0}',
    b'{"a":1,"b":2,"c":3,"d":4,"e":5,"f":6,"g":7,"h":8,"h":9}',
]


@pytest.mark.parametrize("route", WALKS)
def test_invalid_inputs_raise_what_the_one_pass_parser_raises(route: str) -> None:
    for data in BAD:
        for pad in (0, 61, 62, 63):
            check(b" " * pad + data, route, 64)


@pytest.mark.parametrize("route", WALKS)
def test_depth_limit(route: str) -> None:
    for depth in range(0, 8):
        for limit in (-1, 0, 1, 3, 5, 128):
            check(b"[" * depth + b"1" + b"]" * depth, route, 64, limit)
            check(b'{"a":' * depth + b"1" + b"}" * depth, route, 64, limit)


@pytest.mark.parametrize("route", SPLITS)
def test_depth_limit_across_a_segment(route: str) -> None:
    """A segment's own depth counts from the array around it: the split walk takes it only when
    the whole stays within the limit, else parses it itself and refuses it where the one-pass
    parser does."""
    for limit in (3, 4, 8, 40):
        for inner in range(0, 4):
            outer = limit - 1 - inner
            if outer < 1:
                continue
            for extra in (0, 1):
                doc = (b"[" * outer + b"1," + b"[" * (inner + extra) + b"2" + b"]" * (inner + extra)
                       + b",3" + b"]" * outer)
                check(doc, route, 64, limit)


def test_the_split_walk_takes_the_helpers_segments() -> None:
    """The split walk takes its helper's segments (so the tests above exercise the splicing, not
    only the walk), and still builds the one-pass tape.  The helper guesses at values after a
    comma that are not strings (after a comma, a string may be a member name), parses from there
    to the bracket that closes that array, then guesses again after it: here it starts at the
    first byte, and the walk is made to meet every segment it made."""
    with indexing("split0"):
        for doc, segments in (
            # from 2 to the first array's end (its inner arrays with it), then from 8
            (b'{"a": [1, 2, [3, 4], {"b": [5, 6]}], "c": [7, 8]}', 2),
            (b'["a", "b", ["c", "d"]]', 1),  # from the inner array on
            (b'["a", "b", "c"]', 0),  # strings only: no guess
            (b'{"a": 1, "b": 2}', 0),  # after a comma in an object: a name
            (corpus.load("ui", "64KiB"), 8),
            (corpus.load("numbers", "64KiB"), 2),
        ):
            assert compiled._tape(doc, 128, True, True) == one_pass_tape(doc)
            assert compiled._split_taken() == segments, doc[:60]


@settings(max_examples=200, deadline=None)
@given(cut=st.integers(0, 2000), byte=st.integers(0, 255), route=st.sampled_from(WALKS))
def test_mutated_documents(cut: int, byte: int, route: str) -> None:
    doc = corpus_docs()[1]  # strings, 1 KiB
    at = cut % len(doc)
    check(doc[:at] + bytes([byte]) + doc[at + 1:], route, 64)
    check(doc[:at], route, 64)


# -- the index pipe: stage 1 on a second thread -------------------------------------------------------


@contextmanager
def piped(lazy: bool = False, chunk: int = 64) -> Iterator[None]:
    """Every input indexed through the pipe (csrc/nuif_indexpipe.h), in 64-byte chunks."""
    old_min = compiled._set_index_pipe(1, lazy)
    old_chunk = compiled._set_index_chunk(chunk)
    try:
        yield
    finally:
        compiled._set_index_pipe(old_min)
        compiled._set_index_chunk(old_chunk)


def test_by_default_large_inputs_on_two_threads_where_two_cpus_are_usable() -> None:
    """The split walk builds the tapes of inputs of 512 KiB and more where a second CPU is
    usable (measured faster there, docs/parser-design.md), which leaves the indexed parser (its
    first stage on the index pipe from 1 MiB) unused unless the split walk is switched off; the
    direct walk builds every other tape, and the one-pass parser only re-reads what they refuse."""
    import os

    two = len(os.sched_getaffinity(0)) >= 2 if hasattr(os, "sched_getaffinity") else True
    old_pipe = compiled._set_index_pipe(0)
    compiled._set_index_pipe(old_pipe)
    old_min = compiled._set_indexed(None)
    compiled._set_indexed(old_min)
    old_split = compiled._set_split(None)
    compiled._set_split(*old_split)
    # and below that, every input goes to the second stage's direct walk
    old_direct = compiled._set_direct(None)
    compiled._set_direct(old_direct)
    assert old_direct == 0
    if two:
        assert (old_min, old_pipe) == (1 << 20, 1 << 20)
        assert old_split == (512 << 10, 500, False)
        assert compiled.index_backend() == ROUTES[0]
        assert compiled.split_backend() == "thread"
    else:
        assert (old_min, old_pipe) == (None, 0)
        assert old_split[0] is None
        assert compiled.index_backend() == "off"
        assert compiled.split_backend() == "off"


def test_the_split_walk_racing_its_helper_builds_the_same_tape() -> None:
    """As by default (the walk does not wait for its helper), on 1 MiB documents: whichever of
    the helper's segments the walk meets in time, the tape is the one-pass parser's."""
    for shape in corpus.SHAPES:
        doc = corpus.load(shape, "1MiB")
        want = one_pass_tape(doc)
        for permille in (0, 300, 500, 700):
            old = compiled._set_split(0, permille, False)
            try:
                got = compiled._tape(doc, 128, True, True)
            finally:
                compiled._set_split(*old)
            assert got == want, (shape, permille)


@pytest.mark.parametrize("lazy", [False, True])
def test_piped_tapes_and_errors_are_the_same(lazy: bool) -> None:
    """Through the pipe, with the worker racing the parsing thread (or, lazy, doing nothing so
    that the parsing thread indexes every chunk itself): the same tapes, refusals and errors."""
    docs = corpus_docs() + [b" " * pad + bad for bad in BAD for pad in (0, 63)]
    files = sorted((DATA / "JSONTestSuite" / "test_parsing").iterdir())
    with piped(lazy):
        for data in docs + [f.read_bytes() for f in files]:
            check(data, ROUTES[0], 64)
            if compiled._tape(data, 128, True) is not None:
                by_worker, chunks = compiled._index_pipe_counts()
                assert chunks == -(-len(data) // 64), data[:40]
                assert by_worker <= chunks
                if lazy:
                    assert by_worker == 0


def test_the_worker_indexes_chunks_when_it_runs() -> None:
    """Parses of a 64 KiB document in 64-byte chunks (1,024 chunks each): the worker thread
    commits chunks, so the pipe is not just the parsing thread indexing alone.  A busy machine
    may not schedule a worker before its parse is over: up to 200 parses give it the chance."""
    doc = corpus.load("ui", "64KiB")
    want = one_pass_tape(doc)
    total = 0
    with piped():
        for _ in range(200):
            assert compiled._tape(doc, 128, True) == want
            total += compiled._index_pipe_counts()[0]
            if total:
                break
    assert total > 0


def test_many_pipes_start_and_stop_cleanly() -> None:
    """Threads started and stopped in quick succession, on inputs that stop early (refused in
    the first chunks) and late: nothing leaks, hangs or crashes, and the results hold."""
    doc = corpus.load("strings", "64KiB")
    early = b"[1 2]" + doc
    late = doc[:-1]
    with piped(chunk=128):
        for k in range(300):
            data = (doc, early, late)[k % 3]
            got = compiled._tape(data, 128, True)
            assert (got is None) == (k % 3 != 0)
