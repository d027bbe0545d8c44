"""The seeded document generator: deterministic, exact sizes, valid NUIF, the promised content."""

from __future__ import annotations

import hashlib
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import jsonpatch
import pytest
import rfc8785

import nuif_core
from benchmarks import corpus
from nuif_core import _codec

REPO = Path(__file__).resolve().parents[2]
_codec_py = _codec.twin()
SMALL = ["1KiB", "64KiB", "1MiB"]


def _ids(doc: dict) -> list[str]:
    return [n["id"] for n, _, _ in corpus.iter_nodes(doc)]


def test_the_same_seed_gives_the_same_bytes():
    for shape in corpus.SHAPES:
        assert corpus.generate(shape, "64KiB", seed=5) == corpus.generate(shape, "64KiB", seed=5)


def test_a_different_seed_gives_a_different_document():
    assert corpus.generate("ui", "64KiB", seed=1) != corpus.generate("ui", "64KiB", seed=2)


def test_output_does_not_depend_on_the_hash_seed_or_the_process():
    code = (
        "import hashlib, sys; sys.path.insert(0, sys.argv[1]); from benchmarks import corpus; "
        "print(*(hashlib.sha256(corpus.generate(s, '64KiB')).hexdigest() "
        "for s in corpus.SHAPES))"
    )
    digests = []
    for hash_seed in ("1", "2"):
        env = dict(os.environ, PYTHONHASHSEED=hash_seed)
        out = subprocess.run(
            [sys.executable, "-c", code, str(REPO)],
            env=env,
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        ).stdout.split()
        digests.append(out)
    here = [hashlib.sha256(corpus.generate(s, "64KiB")).hexdigest() for s in corpus.SHAPES]
    assert digests[0] == digests[1] == here


@pytest.mark.parametrize("size", SMALL)
@pytest.mark.parametrize("shape", corpus.SHAPES)
def test_documents_hit_their_size_exactly_and_are_valid_nuif(shape, size):
    data = corpus.generate(shape, size)
    assert len(data) == corpus.SIZES[size]
    report = nuif_core.validate(data)
    assert report.valid, report.diagnostics[:5]
    assert report.hash == nuif_core.canonicalize(data).hash


@pytest.mark.slow
@pytest.mark.parametrize("shape", corpus.SHAPES)
def test_16MiB_documents_hit_their_size_and_stay_within_the_default_limits(shape):
    data = corpus.load(shape, "16MiB")  # the benchmarks' cached file (generated if missing)
    assert len(data) == 16 * 1024 * 1024 == nuif_core.Limits.DEFAULT.max_document_bytes
    assert data == corpus.generate(shape, "16MiB")
    assert nuif_core.validate(data).valid


@pytest.mark.parametrize("shape", corpus.SHAPES)
def test_documents_are_strict_i_json_for_the_pure_python_twin_too(shape):
    data = corpus.generate(shape, "64KiB")
    assert _codec_py.loads(data, 128) == json.loads(data)


@pytest.mark.parametrize("shape", corpus.SHAPES)
def test_documents_are_already_normalized_so_peers_produce_our_canonical_bytes(shape):
    data = corpus.generate(shape, "64KiB")
    assert rfc8785.dumps(json.loads(data)) == nuif_core.canonicalize(data).canonical


@pytest.mark.parametrize("shape", corpus.SHAPES)
def test_canonical_text_of_every_document_parses_again(shape):
    # every canonical text parses again (NUIF-0.1); the generated corpus holds plain numbers
    canonical = nuif_core.canonicalize(corpus.generate(shape, "1MiB")).canonical
    assert nuif_core.is_canonical(canonical)


def test_ui_documents_have_the_promised_mix_of_content():
    data = corpus.generate("ui", "1MiB")
    text = data.decode()
    doc = json.loads(data)
    ids = _ids(doc)
    assert len(ids) == len(set(ids)) > 500
    assert re.search(r"[^\x00-\x7f]", text)  # literal non-ASCII
    for escape in ("\\n", "\\t", '\\"', "\\\\", "\\u0001", "\\ud83d"):  # escaped strings
        assert escape in text, escape
    for literal in (r"-\d", r"\d\.\d", r"\de\+\d", r"\de-\d", r"\dE"):  # every number shape
        assert re.search(literal, text), literal
    assert "5e-324" in text and "1.7976931348623157e+308" in text
    assert nuif_core.inspect(data).max_depth >= 5
    assert {"ui:button", "acme.cards/header"} <= set(nuif_core.inspect(data).kinds)


def test_numbers_documents_hold_large_float_arrays():
    doc = json.loads(corpus.generate("numbers", "1MiB"))
    arrays = [
        n["attrs"]["values"] for n, _, _ in corpus.iter_nodes(doc) if "values" in n.get("attrs", {})
    ]
    assert max(map(len, arrays)) >= 2048
    assert sum(isinstance(x, float) for a in arrays for x in a) > 0.9 * sum(map(len, arrays))


def test_strings_documents_hold_long_non_ascii_strings_with_escapes():
    doc = json.loads(corpus.generate("strings", "1MiB"))
    texts = [
        n["attrs"]["text"] for n, _, _ in corpus.iter_nodes(doc) if "text" in n.get("attrs", {})
    ]
    longest = max(texts, key=len)
    assert len(longest) > 4000
    assert any(ord(c) > 0xFFFF for c in longest) and "\n" in longest and '"' in longest


def test_ui_nodes_has_exactly_the_requested_node_count():
    for n in (1, 100, 10_000):
        data = corpus.ui_nodes(n)
        assert nuif_core.inspect(data).node_count == n
        assert nuif_core.validate(data).valid


def _apply_sets_by_id(document: bytes, patch: bytes) -> dict:
    doc = json.loads(document)
    by_id = {n["id"]: n for n, _, _ in corpus.iter_nodes(doc)}
    for tx in json.loads(patch)["transactions"]:
        for op in tx["ops"]:
            assert op["op"] == "set"
            by_id[op["id"]].setdefault("attrs", {})[op["attr"]] = op["value"]
    return doc


def test_set_patch_and_its_rfc6902_twin_make_the_same_document():
    document = corpus.ui_nodes(10_000)
    patch, rfc = corpus.set_patch(document, 1000, base="sha256:" + "0" * 64)
    p = json.loads(patch)
    assert p["nuif_patch"] == 0 and p["base"] == "sha256:" + "0" * 64
    assert all(len(t["ops"]) <= 1000 for t in p["transactions"])
    assert sum(len(t["ops"]) for t in p["transactions"]) == len(rfc) == 1000
    ids = set(_ids(json.loads(document)))
    assert all(op["id"] in ids for t in p["transactions"] for op in t["ops"])
    by_jsonpatch = jsonpatch.apply_patch(json.loads(document), rfc)
    assert rfc8785.dumps(by_jsonpatch) == rfc8785.dumps(_apply_sets_by_id(document, patch))
    assert nuif_core.validate(json.dumps(by_jsonpatch)).valid


def test_nuif_apply_patch_agrees_with_jsonpatch_on_the_benchmark_patch():
    apply_patch = getattr(nuif_core, "apply_patch", None)
    if apply_patch is None:
        pytest.skip("nuif_core.apply_patch does not exist yet")
    document = corpus.ui_nodes(100)
    base = nuif_core.document_hash(document)
    patch, rfc = corpus.set_patch(document, 10, base=base)
    result = apply_patch(document, patch)
    assert result.canonical == rfc8785.dumps(jsonpatch.apply_patch(json.loads(document), rfc))


def test_variant_is_a_valid_edit_of_the_same_tree():
    a = corpus.generate("ui", "64KiB")
    b = corpus.variant(a)
    assert b == corpus.variant(a)
    assert nuif_core.validate(b).valid
    ids_a, ids_b = set(_ids(json.loads(a))), set(_ids(json.loads(b)))
    assert ids_a != ids_b and len(ids_a & ids_b) > 0.9 * len(ids_a)
    assert nuif_core.document_hash(a) != nuif_core.document_hash(b)


def test_the_diff_benchmark_inputs_round_trip_through_nuif_diff_and_apply_patch():
    a = corpus.generate("ui", "64KiB")
    b = corpus.variant(a)
    patch = nuif_core.diff(a, b)
    assert nuif_core.apply_patch(a, patch).canonical == nuif_core.canonicalize(b).canonical


def test_sizes_too_small_for_a_document_are_refused():
    # smaller than the parts every document has (the root's head and the meta)
    with pytest.raises(ValueError, match=r"^100 bytes is too small for a ui document$"):
        corpus.generate("ui", 100)
    # room for those parts, none for a section
    with pytest.raises(ValueError, match=r"^400 bytes is too small for a numbers document$"):
        corpus.generate("numbers", 400)


def test_an_unknown_shape_is_refused():
    with pytest.raises(
        ValueError, match=r"^unknown shape 'tables'; choose from \('ui', 'numbers', 'strings'\)$"
    ):
        corpus.generate("tables", "1KiB")


def test_cache_files_are_keyed_by_the_generator_source(tmp_path, monkeypatch):
    monkeypatch.setattr(corpus, "OUT_DIR", tmp_path)
    data = corpus.load("numbers", "1MiB")
    files = list(tmp_path.iterdir())
    assert len(files) == 1 and corpus._SOURCE_DIGEST in files[0].name
    assert files[0].read_bytes() == data == corpus.load("numbers", "1MiB")
