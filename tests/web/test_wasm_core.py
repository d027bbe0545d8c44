"""nuif-web's WebAssembly core (packages/nuif-web/src/core.mjs over nuif_core.wasm, built from
csrc/ by packages/nuif-core/wasm/build.py) gives, under Node, exactly what the Python core gives:
canonical bytes, hashes, codes, messages, pointers, lines and columns, for canonicalJson,
canonicalize, validate and inspect — on the cross-surface corpus, the conformance suites, and
over 100,000 generated and mutated texts (generated here, replayed in Node by wasm_replay.mjs).

Needs node and zig (``ziglang``, in the dev group); without node these tests skip, unless
``NUIF_REQUIRE_NODE=1`` (set by ``.ci/run``)."""

from __future__ import annotations

import base64
import json
import random
import subprocess
import sys
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

import pytest
from cross_surface import documents
from nuif_strategies import damaged_corpus_texts
from nuif_web_support import REPO, WEB, wasm_build, wasm_module

import nuif_core
from nuif_core import NuifError

pytestmark = pytest.mark.timeout(900)

REPLAY = Path(__file__).resolve().parent / "wasm_replay.mjs"
DATA = REPO / "tests" / "data"


@pytest.fixture(scope="module")
def wasm() -> Path:
    """nuif_core.wasm beside core.mjs, built unless current."""
    return wasm_module()


def python_answer(op: str, data: bytes | str, limit: int = 100) -> dict[str, Any]:
    """What the Python core answers, in the replay's shape."""
    try:
        if op == "canonicalJson":
            return {"ok": nuif_core.canonical_json(data).decode("utf-8")}
        if op == "validate":
            return {"ok": nuif_core.validate(data, max_diagnostics=limit).to_dict()}
        if op == "canonicalize":
            return {"ok": nuif_core.canonicalize(data).to_dict()}
        assert op == "inspect"
        return {"ok": nuif_core.inspect(data, max_outline_nodes=limit).to_dict()}
    except NuifError as err:
        return {"error": err.to_dict()}


def replay(
    requests: Iterable[tuple[str, bytes | str, int]], tmp: Path, hash_route: str = "node"
) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """(the Python answers, the Node answers) for (op, input, limit) requests."""
    src, dst = tmp / "requests.jsonl", tmp / "answers.jsonl"
    want = []
    with src.open("w", encoding="utf-8") as f:
        for op, data, limit in requests:
            req: dict[str, Any] = {"op": op, "max": limit}
            if isinstance(data, bytes):
                req["b64"] = base64.b64encode(data).decode()
            else:
                req["text"] = data
            f.write(json.dumps(req) + "\n")
            want.append(python_answer(op, data, limit))
    done = subprocess.run(
        ["node", str(REPLAY), str(src), str(dst), hash_route],
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr[-4000:]
    got = [json.loads(line) for line in dst.read_text(encoding="utf-8").split("\n") if line]
    assert len(got) == len(want)
    return want, got


def assert_same(
    requests: list[tuple[str, bytes | str, int]], tmp: Path, hash_route: str = "node"
) -> None:
    want, got = replay(requests, tmp, hash_route)
    for (op, data, _), w, g in zip(requests, want, got, strict=True):
        assert g == w, (op, data[:200])


ALL_OPS = ("canonicalJson", "validate", "canonicalize", "inspect")


def test_the_message_templates_are_nuif_cores() -> None:
    check = subprocess.run(
        [sys.executable, str(WEB / "scripts" / "messages.py"), "--check"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert check.returncode == 0, check.stderr


def test_the_module_imports_nothing_and_is_small(wasm: Path) -> None:
    script = (
        "const z = require('zlib'), fs = require('fs');"
        f"const d = fs.readFileSync({json.dumps(str(wasm))});"
        "const m = new WebAssembly.Module(d);"
        "const q = z.constants.BROTLI_PARAM_QUALITY;"
        "console.log(JSON.stringify({imports: WebAssembly.Module.imports(m), raw: d.length,"
        " brotli: z.brotliCompressSync(d, {params: {[q]: 11}}).length}))"
    )
    done = subprocess.run(["node", "-e", script], capture_output=True, text=True, timeout=60)
    facts = json.loads(done.stdout)
    assert facts["imports"] == []
    assert facts["brotli"] <= 64 * 1024, facts


def test_two_builds_give_the_same_bytes(wasm: Path, tmp_path: Path) -> None:
    again = wasm_build().build(tmp_path / "again.wasm")
    assert again.read_bytes() == wasm.read_bytes()


def test_the_cross_surface_corpus_gives_the_python_answers(wasm: Path, tmp_path: Path) -> None:
    requests: list[tuple[str, bytes | str, int]] = []
    for doc in documents():
        requests += [(op, doc, 50) for op in ALL_OPS]
        requests.append(("validate", doc, 1))
    assert len(requests) > 300
    assert_same(requests, tmp_path)
    # the module's own SHA-256 (what browsers use) gives the same hashes as node:crypto
    assert_same(requests, tmp_path, hash_route="module")


def test_every_json_test_suite_file_gives_the_python_answers(wasm: Path, tmp_path: Path) -> None:
    files = sorted((DATA / "JSONTestSuite" / "test_parsing").iterdir())
    assert len(files) > 300
    assert_same(
        [(op, p.read_bytes(), 100) for p in files for op in ("canonicalJson", "validate")],
        tmp_path,
    )


def test_the_rfc_8785_vectors_and_es6_numbers_canonicalize_exactly(
    wasm: Path, tmp_path: Path
) -> None:
    base = DATA / "jcs-cyberphone" / "testdata"
    inputs = sorted((base / "input").iterdir())
    _, got = replay([("canonicalJson", p.read_bytes(), 0) for p in inputs], tmp_path)
    for path, answer in zip(inputs, got, strict=True):
        assert answer == {"ok": (base / "output" / path.name).read_text(encoding="utf-8")}
    lines = (DATA / "jcs-es6-numbers" / "es6testfile-first10000.txt").read_text().split()
    texts = [line.split(",")[1] for line in lines]
    _, [answer] = replay([("canonicalJson", "[" + ",".join(texts) + "]", 0)], tmp_path)
    assert answer["ok"][1:-1].split(",") == texts


def test_strings_with_lone_surrogates_are_nuif_utf8_at_their_offset(
    wasm: Path, tmp_path: Path
) -> None:
    """A JavaScript string holding a lone surrogate is refused as Python refuses the same str
    (encoded with surrogatepass), not silently replaced by U+FFFD."""
    texts = ['"\ud800"', '{"é": "x\udfff"}', '["\U0001f600", "\ud83d"]', '[1,\n "a\udc00b"]']
    requests = [(op, t, 100) for t in texts for op in ALL_OPS]
    want, got = replay(requests, tmp_path)
    assert got == want
    assert all(g["ok"]["diagnostics"][0]["code"] == "NUIF_UTF8" for g in got[1::4])


def test_wide_strings_fill_the_module_in_two_steps_and_come_back_whole(
    wasm: Path, tmp_path: Path
) -> None:
    """A string's UTF-8 goes into room for its length and a quarter; what does not fit (text of
    2-, 3- and 4-byte characters) follows it.  The canonical text comes back as UTF-16 unless it
    is ASCII.  Every split of a character by that first room, and large texts, give Python's
    answers."""
    rng = random.Random(53)
    pools = ["é", "中文字", "\U0001f600\U0001f4a9", "aé中\U0001f600", "\u2028\u00a0"]
    texts = []
    for pool in pools:
        for n in range(120):
            body = "".join(rng.choice(pool) for _ in range(n))
            texts.append(json.dumps({"k": body, "a": [body[: n // 2], 1.5]}, ensure_ascii=False))
            doc = {"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"t": body}}}
            texts.append(json.dumps(doc, ensure_ascii=False))
    big = "".join(rng.choice("中文字\U0001f600é") for _ in range(300_000))
    texts.append(json.dumps({"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"t": big}}}))
    texts.append(json.dumps({"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"t": big}}},
                            ensure_ascii=False))  # fmt: skip
    # refused at the end, after the module's memory grew: the error is read from the input there
    texts.append(texts[-1][:-2] + ",}}")
    # (UTF-16 units: what the first room is sized by)
    two_steps = [t for t in texts if len(t.encode()) > 1.25 * len(t.encode("utf-16-le")) // 2 + 16]
    assert len(two_steps) > 200
    requests = [(op, t, 100) for t in texts for op in ALL_OPS]
    want, got = replay(requests, tmp_path)
    assert got == want
    assert sum("ok" in g for g in got) > len(requests) // 2


def test_inputs_over_the_size_limit_are_nuif_too_large(wasm: Path, tmp_path: Path) -> None:
    limit = nuif_core.Limits.DEFAULT.max_document_bytes
    over = '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"s": "' + "a" * limit + '"}}}'
    astral = '"' + "\U0001f600" * (limit // 4) + '"'  # more bytes than the limit, fewer characters
    requests = [
        ("validate", over, 1),
        ("canonicalJson", over.encode(), 1),
        ("canonicalize", astral, 1),
    ]
    assert_same(requests, tmp_path)


def _documents(rng: random.Random) -> Iterator[bytes]:
    """Small NUIF documents and JSON texts, valid and broken in every layer, then mutated."""
    ids = ["a", "b", "r", "x.1", "n:2", "_", "9", "", "-x", "a b", "é", "a" * 129, "a\\u0041"]
    kinds = ["screen", "button", "ui:button", "a/b", "", "Button", "1x", "x" * 65, "k\\n"]
    attrs = ["label", "on:click", "$x", "", "1bad", "a b", "\\u00e9", "a/b~c"]
    values = [
        "0", "-0", "1.5", "1e21", "1E-7", "123456789012345678901234", "9007199254740993",
        "100000000000000000000", "1e400", "0.1e-400", "true", "null", '"\\ud800"', '"\\udbff\\udfff"',
        '"\\u0000"', '"\\ufdd0"', '"é\\u2028"', '"\uffff"', "[]", "{}", '{"a":1,"a":2}', '"\\x"',
        "01", "1.", "-", '"\t"', "[1,]", "nul", "[[[[[[[[1]]]]]]]]",
    ]  # fmt: skip

    def node(depth: int) -> str:
        members = []
        if rng.random() < 0.95:
            members.append(f'"id": "{rng.choice(ids if rng.random() < 0.3 else ids[:7])}"')
        if rng.random() < 0.95:
            members.append(f'"kind": "{rng.choice(kinds if rng.random() < 0.3 else kinds[:4])}"')
        if rng.random() < 0.5:
            pairs = [f'"{rng.choice(attrs[:4] if rng.random() < 0.8 else attrs)}": '
                     f"{rng.choice(values[:8] if rng.random() < 0.7 else values)}"
                     for _ in range(rng.randint(0, 3))]  # fmt: skip
            members.append('"attrs": {' + ", ".join(pairs) + "}")
        if depth < 4 and rng.random() < 0.5:
            kids = [node(depth + 1) for _ in range(rng.randint(0, 3))]
            members.append('"children": [' + ",".join(kids) + "]")
        if rng.random() < 0.03:
            members.append(f'"extra": {rng.choice(values)}')
        if rng.random() < 0.02:
            return rng.choice(values)
        rng.shuffle(members)
        return "{" + (", " if rng.random() < 0.5 else ",").join(members) + "}"

    while True:
        head = rng.choice(['"nuif": 0', '"nuif": 0', '"nuif": 1', '"nuif": "0"', '"nuif": 0.0'])
        parts = [head, f'"root": {node(0)}']
        if rng.random() < 0.1:
            parts.append(f'"meta": {rng.choice(values)}')
        if rng.random() < 0.05:
            parts.pop(rng.randrange(len(parts)))
        rng.shuffle(parts)
        text = "{" + ",\n ".join(parts) + "}"
        if rng.random() < 0.05:
            text = rng.choice(values)
        data = bytearray(text.encode())
        for _ in range(rng.choice([0, 0, 0, 1, 1, 2])):  # mutations
            at = rng.randrange(len(data) + 1)
            what = rng.randrange(4)
            if what == 0 and at < len(data):
                data[at] = rng.choice(b'{}[]",:0a\\\x00\xff\xc3\xed -e.')
            elif what == 1:
                del data[at : at + rng.randint(1, 4)]
            elif what == 2:
                data[at:at] = rng.choice(
                    [b'"x":1,', b"\xc3", b"1e999", b'"\\ud800"', b",", b"\xef\xbf\xbf"]
                )
            else:
                del data[at:]
        yield bytes(data)


def test_100000_generated_and_mutated_texts_give_the_python_answers(
    wasm: Path, tmp_path: Path
) -> None:
    rng = random.Random(20261207)
    gen = _documents(rng)
    texts = [next(gen) for _ in range(96_000)]
    texts += list(damaged_corpus_texts(seed=7, per_document=700))
    assert len(texts) >= 100_000
    requests: list[tuple[str, bytes | str, int]] = []
    for k, data in enumerate(texts):
        requests.append(("validate", data, 1 + k % 7))
        requests.append(("canonicalJson", data, 0))
        if k % 9 == 0:
            requests.append(("canonicalize", data, 0))
            requests.append(("inspect", data, k % 5))
    want, got = replay(requests, tmp_path)
    mismatches = [
        (op, data[:120], w, g)
        for (op, data, _), w, g in zip(requests, want, got, strict=True)
        if w != g
    ]
    assert not mismatches, (len(mismatches), mismatches[:3])
    reports = [w["ok"] for (op, _, _), w in zip(requests, want, strict=True) if op == "validate"]
    assert {r["valid"] for r in reports} == {True, False}  # the texts reach both answers
    codes = {d["code"] for r in reports for d in r["diagnostics"]}
    assert {
        "NUIF_PARSE",
        "NUIF_UTF8",
        "NUIF_SCHEMA",
        "NUIF_ID",
        "NUIF_KIND",
        "NUIF_NUMBER",
    } <= codes
