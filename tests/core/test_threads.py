"""The codec's second threads are kept in a pool, and what runs on them does not change results.

The split walk's helper, the index pipe's worker and the hashing thread all run on the pool of
``csrc/nuif_indexpipe.h`` (``nuif_thread_spawn``): a thread that finished a job waits there for the
next one, first spinning for ``_set_thread_spin`` microseconds, then asleep.  Inputs from 32 KiB
to 2/3 KiB per microsecond of the spin are parsed with the split walk only while a pooled thread
is spinning (it starts at
once; a sleeping one takes ~20 us to wake, which the split walk of such an input does not win
back).  Here: the pool is reused, can be switched off, starts empty in a forked child; the
mid-size split happens exactly when a thread spins and leaves the canonical text as it is; the
spin's switch and environment variable refuse what they cannot do, and the sizes shared follow
the spin.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import nuif_core
import pytest
from nuif_core import _codec

from benchmarks import corpus

compiled = _codec.compiled()  # this file tests the compiled codec: not collected without it

THREADS = compiled.split_backend() == "thread"
needs_threads = pytest.mark.skipif(
    not THREADS, reason="the split walk needs threads and a second usable CPU"
)


@contextmanager
def spinning(us: int, hot: tuple[int, int] | None = None,
             record: tuple[float, float, bool, int] = (0.0, 0.0, False, 16)) -> Iterator[None]:
    """Pooled threads spin ``us`` microseconds; ``hot``: the sizes split while one spins (else
    those that follow the spin); ``record``: the mid-size split's record, guard and trial rate
    (``_set_hot_record``; by default no guard: every mid-size call is offered to the thread)."""
    old_hot = compiled._set_hot(None, None)
    compiled._set_hot(*old_hot)
    old = compiled._set_thread_spin(us)
    old_record = compiled._set_hot_record(*record)
    if hot is not None:
        compiled._set_hot(*hot)
    try:
        yield
    finally:
        compiled._set_thread_spin(old)
        compiled._set_hot(*old_hot)
        compiled._set_hot_record(*old_record)


@contextmanager
def alone() -> Iterator[None]:
    """Every input parsed on the calling thread (no split walk, no index pipe)."""
    old_split = compiled._set_split(None)
    old_hot = compiled._set_hot(None, None)
    old_pipe = compiled._set_index_pipe(0)
    try:
        yield
    finally:
        compiled._set_split(*old_split)
        compiled._set_hot(*old_hot)
        compiled._set_index_pipe(old_pipe)


def reference(doc: bytes) -> nuif_core.CanonicalResult:
    with alone():
        return nuif_core.canonicalize(doc)


def wait_until(cond, seconds: float = 10.0) -> bool:  # type: ignore[no-untyped-def]
    """Poll ``cond`` every 10 ms for at most ``seconds``."""
    deadline = time.monotonic() + seconds
    while not cond():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.01)
    return True


def test_the_spin_switch_refuses_a_negative_spin_and_returns_the_old_one() -> None:
    with pytest.raises(ValueError):
        compiled._set_thread_spin(-1)
    old = compiled._set_thread_spin(7)
    try:
        assert compiled._set_thread_spin(old) == 7
    finally:
        compiled._set_thread_spin(old)


@needs_threads
def test_by_default_mid_size_inputs_are_shared_with_a_spinning_thread() -> None:
    """From 32 KiB up to 2/3 KiB per microsecond of the spin (200 us: 133 KiB)."""
    old = compiled._set_hot(None, None)
    compiled._set_hot(*old)
    old_spin = compiled._set_thread_spin(0)
    try:
        assert old_spin == 200
        assert old == (32 << 10, 200 * 682)
        assert compiled._set_hot(None, None) == (32 << 10, 0)  # no spin: no mid-size split
        compiled._set_hot(*old)
        compiled._set_thread_spin(50)
        assert compiled._set_hot(None, None) == (32 << 10, 50 * 682)
    finally:
        compiled._set_thread_spin(old_spin)
        compiled._set_hot(*old)


@needs_threads
def test_large_inputs_reuse_the_pooled_thread() -> None:
    doc = corpus.load("ui", "1MiB")
    want = reference(doc)
    assert nuif_core.canonicalize(doc) == want  # a thread is in the pool after this
    created0, reused0, _ = compiled._thread_counts()
    for _ in range(5):
        assert nuif_core.canonicalize(doc) == want
    created1, reused1, _ = compiled._thread_counts()
    # every call hands its split walk and its hashing to pooled threads: at least five jobs went
    # to a thread already there, and fewer threads started than the ten jobs
    assert reused1 - reused0 >= 5
    assert created1 - created0 < 10
    # the last job's thread is back in the pool once it has run to its end (on a loaded machine,
    # a moment after the call returned)
    assert wait_until(lambda: compiled._thread_counts()[2] >= 1)
    assert compiled._thread_counts()[2] <= 4


@needs_threads
def test_without_the_pool_each_job_starts_a_thread_and_results_are_the_same() -> None:
    doc = corpus.load("strings", "1MiB")
    want = reference(doc)
    old = compiled._set_thread_pool(False)
    try:
        assert old is True
        assert wait_until(lambda: compiled._thread_counts()[2] == 0), "idle threads did not exit"
        created0, reused0, _ = compiled._thread_counts()
        for _ in range(3):
            assert nuif_core.canonicalize(doc) == want
        created1, reused1, _ = compiled._thread_counts()
        assert reused1 == reused0
        assert created1 - created0 >= 3
        assert wait_until(lambda: compiled._thread_counts()[2] == 0)
    finally:
        compiled._set_thread_pool(old)
    nuif_core.canonicalize(doc)
    assert wait_until(lambda: compiled._thread_counts()[2] >= 1), "the pool keeps no thread again"


@needs_threads
@pytest.mark.parametrize("shape", corpus.SHAPES)
def test_mid_size_inputs_are_split_only_while_a_pooled_thread_spins(shape: str) -> None:
    doc = corpus.load(shape, "64KiB")
    want = reference(doc)
    with spinning(0):  # nothing spins: walked alone, every time
        assert wait_until(lambda: not compiled._thread_hot())
        walks = compiled._split_walks()
        for _ in range(5):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._split_walks() == walks
        assert not compiled._thread_hot()
    # two seconds: spinning through the loop, however loaded the machine (the sizes shared as by
    # default)
    with spinning(2_000_000, (32 << 10, 200 * 682)):
        assert nuif_core.canonicalize(doc) == want  # alone, and a thread is left spinning
        assert wait_until(compiled._thread_hot), "no thread spins after a mid-size call"
        walks = compiled._split_walks()
        for _ in range(5):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._split_walks() > walks
        # outside 32-133 KiB a spinning thread changes nothing below the split walk's own 512 KiB
        for size in (16 << 10, 256 << 10):
            other = corpus.load(shape, size)
            other_want = reference(other)
            walks = compiled._split_walks()
            assert nuif_core.canonicalize(other) == other_want
            assert compiled._split_walks() == walks, size
    assert wait_until(lambda: not compiled._thread_hot()), "a thread still spins after the spin"


@needs_threads
def test_mid_size_errors_are_the_same_while_a_thread_spins() -> None:
    doc = corpus.load("ui", "64KiB")
    cut = doc[: len(doc) * 3 // 4] + b"\x01" + doc[len(doc) * 3 // 4 :]
    with alone(), pytest.raises(nuif_core.NuifError) as alone_err:
        nuif_core.canonicalize(cut)
    with spinning(2_000_000, (32 << 10, 200 * 682)):
        nuif_core.canonicalize(doc)
        assert wait_until(compiled._thread_hot)
        walks = compiled._split_walks()
        with pytest.raises(nuif_core.NuifError) as split_err:
            nuif_core.canonicalize(cut)
        assert compiled._split_walks() == walks + 1
    assert split_err.value.to_dict() == alone_err.value.to_dict()


@needs_threads
@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork here")
def test_a_forked_child_starts_with_an_empty_pool() -> None:
    doc = corpus.load("numbers", "1MiB")
    want = reference(doc)
    assert nuif_core.canonicalize(doc) == want
    assert compiled._thread_counts()[0] >= 1
    pid = os.fork()
    if pid == 0:  # the child: no test machinery past this point, only an exit status
        code = 1
        try:
            empty = compiled._thread_counts() == (0, 0, 0)
            same = nuif_core.canonicalize(doc) == want
            code = 0 if empty and same and compiled._thread_counts()[0] >= 1 else 1
        finally:
            os._exit(code)
    deadline = time.monotonic() + 60
    while True:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        if time.monotonic() > deadline:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
            pytest.fail("the forked child did not finish in 60 s")
        time.sleep(0.01)
    assert os.WIFEXITED(status) and os.WEXITSTATUS(status) == 0


@pytest.mark.parametrize(
    ("value", "spin", "warns"),
    [("0", 0, False), ("250", 250, False), ("abc", 200, True), ("-5", 200, True),
     ("2000000", 200, True), ("\u00b2", 200, True)],
)
def test_the_spin_comes_from_the_environment(value: str, spin: int, warns: bool) -> None:
    code = (
        "import warnings; warnings.simplefilter('always')\n"
        "with warnings.catch_warnings(record=True) as w:\n"
        "    from nuif_core import _codec\n"
        "    c = _codec.compiled()\n"
        "print(c._set_thread_spin(0), sum(issubclass(x.category, RuntimeWarning) and\n"
        "      'NUIF_THREAD_SPIN_US' in str(x.message) for x in w))\n"
    )
    env = dict(os.environ, NUIF_THREAD_SPIN_US=value)
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True,
                         timeout=60, check=True).stdout.split()
    assert out == [str(spin), "1" if warns else "0"]


@needs_threads
def test_the_record_keeps_a_split_that_was_slower_away_and_measures_walking_alone() -> None:
    doc = corpus.load("numbers", "64KiB")
    want = reference(doc)
    # (averages far apart, so that no slow call on a loaded machine turns the record round)
    with spinning(2_000_000, (32 << 10, 200 * 682), (1e9, 1.0, True, 0)):
        nuif_core.canonicalize(corpus.load("numbers", "1MiB"))  # split: a thread left spinning
        assert wait_until(compiled._thread_hot), "no thread spins after a large call"
        walks = compiled._split_walks()
        for _ in range(5):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._thread_hot()
        assert compiled._split_walks() == walks  # split slower: walked alone, though one spins
        split, alone, probe = compiled._hot_record_state()
        assert split == 1e9 and alone != 1.0 and alone > 0 and not probe


@needs_threads
def test_the_record_keeps_a_faster_split_and_measures_it() -> None:
    doc = corpus.load("numbers", "64KiB")
    want = reference(doc)
    with spinning(2_000_000, (32 << 10, 200 * 682), (1.0, 1e9, True, 0)):
        assert nuif_core.canonicalize(doc) == want  # alone (or split), a thread left spinning
        assert wait_until(compiled._thread_hot), "no thread spins after a mid-size call"
        walks = compiled._split_walks()
        for _ in range(5):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._split_walks() > walks
        split, _, _ = compiled._hot_record_state()
        assert split != 1.0 and split > 0  # the split walks measured


@needs_threads
def test_trials_measure_the_way_the_record_does_not_take() -> None:
    doc = corpus.load("strings", "64KiB")
    want = reference(doc)
    # one call in one is a trial: with the split slower, a call tries it -- it leaves a thread
    # spinning when none is, and the next call takes that thread
    with spinning(2_000_000, (32 << 10, 200 * 682), (1e9, 1.0, True, 1)):
        walks = compiled._split_walks()
        assert nuif_core.canonicalize(doc) == want
        assert wait_until(compiled._thread_hot), "the trial left no thread spinning"
        assert nuif_core.canonicalize(doc) == want
        assert compiled._split_walks() >= walks + 1
        assert compiled._hot_record_state()[0] < 1e9  # the split measured again
    # with the split faster, each call tries walking alone instead, though a thread spins
    with spinning(2_000_000, (32 << 10, 200 * 682), (1.0, 1e9, True, 1)):
        nuif_core.canonicalize(corpus.load("strings", "1MiB"))  # split: a thread left spinning
        assert wait_until(compiled._thread_hot)
        walks = compiled._split_walks()
        for _ in range(4):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._split_walks() == walks
        assert compiled._hot_record_state()[1] < 1e9  # walking alone measured again


@pytest.mark.parametrize(("setter", "state", "seen"), [
    ("_set_hot_record", "_hot_record_state", (4.0, 5.0, False)),  # (split, alone, probe)
    ("_set_solo_record", "_solo_record_state", (4.0, 5.0)),  # (follower, none)
])
def test_the_record_switches_refuse_negative_values_and_return_the_old_setting(
        setter: str, state: str, seen: tuple[float, ...]) -> None:
    put, get = getattr(compiled, setter), getattr(compiled, state)
    old = put(1.0, 2.0, True, 3)
    try:
        assert put(4.0, 5.0, False, 0) == (1.0, 2.0, True, 3)
        assert get() == seen
        for bad in ((-1.0, 0.0), (0.0, -1.0)):
            with pytest.raises(ValueError):
                put(*bad)
        with pytest.raises(ValueError):
            put(0.0, 0.0, True, -1)
        assert put(0.0, 0.0) == (4.0, 5.0, False, 0)
    finally:
        put(*old)


@needs_threads
def test_the_record_times_a_hashed_call_to_the_end_of_its_hash(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A shared call's text is hashed by the follower while it is written, so its record runs to
    the end of the hash; a call walked alone must be timed to the end of its hash too, else
    walking alone looks faster by the whole hash (and `strings` 64 KiB was kept alone, 1.14x
    slower).  Here the hash of a call walked alone is made 20 ms late: its record shows it."""
    import hashlib

    doc = corpus.load("strings", "64KiB")
    want = reference(doc)
    late_s = 0.020

    def late_sha256(data: bytes):  # type: ignore[no-untyped-def]
        time.sleep(late_s)
        return hashlib.sha256(data)

    monkeypatch.setattr(compiled, "_sha256", late_sha256)
    old_ssl = compiled._set_openssl(False)  # the hash through hashlib (now: late_sha256)
    try:
        # walking alone the better by far, and no trials: every call walks alone, timed
        with spinning(2_000_000, record=(1e9, 1.0, True, 0)):
            assert nuif_core.canonicalize(doc) == want
            _, alone, _ = compiled._hot_record_state()
    finally:
        compiled._set_openssl(old_ssl)
    # the record: the seed (1.0) and this call, per KiB of input
    assert alone >= (late_s * 1e9 * 1024 / len(doc)) / 2


@contextmanager
def solo(record: tuple[float, float, bool, int]) -> Iterator[None]:
    """The solo record (a follower for the text of a call walked alone): ``(follower, none,
    guard, trial)`` as ``_set_solo_record`` takes them."""
    old = compiled._set_solo_record(*record)
    try:
        yield
    finally:
        compiled._set_solo_record(*old)


# the mid-size split's record far against sharing, no trials: every mid-size call walks alone
WALK_ALONE = (1e9, 1.0, True, 0)
MID_SIZES = (32 << 10, 200 * 682)


@needs_threads
@pytest.mark.parametrize("shape", ["ui", "strings", "numbers"])
def test_a_call_walked_alone_has_its_text_hashed_by_a_follower(shape: str) -> None:
    """The walk warms a pooled thread; the writer finds it spinning and hands it the hash (and
    the §3 check's share): the same text and hash, the follower counted, the solo record fed."""
    doc = corpus.load(shape, "64KiB")
    want = reference(doc)
    with spinning(2_000_000, MID_SIZES, WALK_ALONE), solo((1.0, 1e9, True, 0)):
        assert nuif_core.canonicalize(doc) == want  # warms a thread, if none spins yet
        assert wait_until(compiled._thread_hot), "the walk left no thread spinning"
        compiled._set_solo_record(1.0, 1e9, True, 0)  # (that call may have found none in time)
        walks, started = compiled._split_walks(), compiled._follow_last()[0]
        for _ in range(5):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._split_walks() == walks  # walked alone
        # hashed by a follower (each call's, on a quiet machine: one whose thread is not back
        # to spinning in time, on a busy one, hashes its text itself and says so to the record)
        assert compiled._follow_last()[0] > started
        follow, plain = compiled._solo_record_state()
        assert follow != 1.0 and follow > 0 and plain > 0


@needs_threads
def test_a_follower_for_a_call_walked_alone_leaves_errors_as_they_are() -> None:
    """A document the §3 check refuses, or whose text is not I-JSON, is refused with the same
    diagnostics when its text was offered a follower."""
    doc = corpus.load("ui", "64KiB")
    bad_kind = doc.replace(b'"kind": "form"', b'"kind": "Form!"', 1)
    dup = doc.replace(b'"theme": "light"', b'"theme": "light", "theme": 1', 1)
    assert bad_kind != doc and dup != doc
    cases = [bad_kind, dup]
    with alone():
        want = [nuif_core.validate(d) for d in cases]
    assert all(not w.valid for w in want)
    with spinning(2_000_000, MID_SIZES, WALK_ALONE), solo((1.0, 1e9, True, 0)):
        nuif_core.canonicalize(doc)
        assert wait_until(compiled._thread_hot)
        for d, w in zip(cases, want):
            for _ in range(2):
                with pytest.raises(nuif_core.NuifError) as err:
                    nuif_core.canonicalize(d)
                assert err.value.code == w.diagnostics[0].code
                assert err.value.pointer == w.diagnostics[0].pointer
        assert nuif_core.canonicalize(doc) == reference(doc)  # and a valid one after them


@needs_threads
def test_the_solo_record_keeps_a_slower_follower_away_and_measures_without() -> None:
    doc = corpus.load("strings", "64KiB")
    want = reference(doc)
    with spinning(2_000_000, MID_SIZES, WALK_ALONE), solo((1e9, 1.0, True, 0)):
        nuif_core.canonicalize(corpus.load("strings", "1MiB"))  # a thread left spinning
        assert wait_until(compiled._thread_hot)
        started = compiled._follow_last()[0]
        for _ in range(5):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._follow_last()[0] == started  # hashed by the writer, after its text
        follow, plain = compiled._solo_record_state()
        assert follow == 1e9 and plain != 1.0 and plain > 0


@needs_threads
def test_solo_trials_measure_the_way_the_record_does_not_take() -> None:
    doc = corpus.load("numbers", "64KiB")
    want = reference(doc)
    # one call in one goes the other way: the follower, slower by the record, is tried each time
    with spinning(2_000_000, MID_SIZES, WALK_ALONE), solo((1e9, 1.0, True, 1)):
        nuif_core.canonicalize(doc)
        assert wait_until(compiled._thread_hot)
        started = compiled._follow_last()[0]
        for _ in range(3):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._follow_last()[0] > started
        assert compiled._solo_record_state()[0] < 1e9  # the follower measured again


@needs_threads
def test_above_the_mid_size_range_a_call_walked_alone_gets_a_follower_too() -> None:
    """From the mid-size range's top to the pipe's threshold, walks are not shared; their texts
    are offered a follower by the solo record (the writer wakes the thread), and their times go
    to the solo record only, never to the split's."""
    doc = corpus.load("ui", 256 << 10)
    want = reference(doc)
    with spinning(2_000_000, MID_SIZES, (5.0, 7.0, True, 0)), solo((1.0, 1e9, True, 0)):
        nuif_core.canonicalize(corpus.load("ui", "64KiB"))  # a thread left spinning
        assert wait_until(compiled._thread_hot)
        compiled._set_solo_record(1.0, 1e9, True, 0)
        walks, started = compiled._split_walks(), compiled._follow_last()[0]
        hot = compiled._hot_record_state()
        for _ in range(3):
            assert nuif_core.canonicalize(doc) == want
        assert compiled._split_walks() == walks
        assert compiled._follow_last()[0] > started
        assert compiled._hot_record_state() == hot  # the split's record: not these calls
        follow, plain = compiled._solo_record_state()
        assert follow != 1.0 and follow > 0 and plain > 0
        # switched off: hashed after the writer, and not timed at all
        old = compiled._set_gap_follow(False)
        try:
            assert old is True
            started, solo_before = compiled._follow_last()[0], compiled._solo_record_state()
            for _ in range(2):
                assert nuif_core.canonicalize(doc) == want
            assert compiled._follow_last()[0] == started
            assert compiled._solo_record_state() == solo_before
        finally:
            assert compiled._set_gap_follow(old) is False


@needs_threads
def test_by_default_the_record_guards_and_fills_in_from_the_first_calls() -> None:
    """A fresh process: the guard is on, one call in 16 is a trial, and mid-size calls in a loop
    measure both ways (the first walks alone, a later one finds the thread it left spinning)."""
    code = (
        "import nuif_core; from nuif_core import _codec; from benchmarks import corpus; "
        "c = _codec.compiled(); d = corpus.load('numbers', '64KiB'); "
        "print(c._set_hot_record(0.0, 0.0), c._set_solo_record(0.0, 0.0))\n"
        "import time; t = time.monotonic() + 20\n"
        "while (min(c._hot_record_state()[:2]) == 0 or min(c._solo_record_state()) == 0)\\\n"
        "        and time.monotonic() < t:\n"
        "    nuif_core.canonicalize(d)\n"
        "s, a, _ = c._hot_record_state(); f, p = c._solo_record_state()\n"
        "print(s > 0, a > 0, f > 0, p > 0)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True,
                         timeout=120, cwd=str(Path(__file__).resolve().parents[2])
                         ).stdout.splitlines()
    assert out == ["(0.0, 0.0, True, 16) (0.0, 0.0, True, 16)", "True True True True"]
