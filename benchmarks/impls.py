"""What each benchmark runs: NUIF's functions and the peers', all taking the input *bytes*.

Every callable takes UTF-8 input bytes (what a service reads off a socket or a file) and returns
what the operation produces.  Roles: ``ours`` (nuif_core), ``peer`` (what users would pick
instead) and ``baseline`` (not an alternative: a floor the targets are measured against; the
dashboard shows its MB/s but no "nuif vs" ratio column).

Canonicalize (text → canonical bytes + hash):

* ``nuif``        ``nuif_core.canonicalize(t)`` — NUIF document: parse, validate §3, normalize,
                  RFC 8785, SHA-256 (the result carries ``.canonical`` and ``.hash``);
* ``nuif-codec``  ``nuif_core._codec.canonical_json(t)`` + ``hashlib.sha256``: the generic RFC 8785
                  codec that loaded (compiled unless ``NUIF_NO_EXTENSIONS``), no document schema;
* ``nuif-py``     the same through the pure-Python twin ``nuif_core._codec_py`` (the fallback).
                  ``NUIF_NO_EXTENSIONS`` is read at import and cannot be switched in-process, so
                  the twin is called directly: it shows the compiled speed-up of the codec;
* ``rfc8785``     ``rfc8785.dumps(json.loads(t))`` (JCS, no hash);
* ``json``        ``json.dumps(json.loads(t), sort_keys=True, separators=(",", ":"),
                  ensure_ascii=False)`` (not JCS: Python float repr, code-point key order; no hash);
* ``orjson``      ``orjson.dumps(orjson.loads(t), option=orjson.OPT_SORT_KEYS)`` (not JCS; no hash);
* ``sha256``      baseline: ``hashlib.sha256(t).digest()`` over the input itself, no parsing — the
                  floor of the SHA-256 targets (canonicalize's time ÷ this time ≤ 2× at 64 KiB and
                  1 MiB, ≤ 2.5× at 16 MiB).

Validate and inspect have one peer each, what a user would write without NUIF: ``orjson`` parse
+ a Python walk checking the §3 rules (validate) or counting nodes/depth/kinds (inspect) + a hash
of orjson's sorted dump.  Apply-patch's peer ``jsonpatch`` parses the document with ``json``,
applies the equivalent RFC 6902 patch text, dumps sorted and hashes — the same text → text + hash
job.  Diff's peer is ``jsonpatch.make_patch`` on the two parsed documents.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import jsonpatch
import orjson
import rfc8785

import nuif_core
from nuif_core import _codec

MAX_DEPTH = 128
_codec_py = _codec.twin()


def sha(b: bytes) -> str:
    return "sha256:" + hashlib.sha256(b).hexdigest()


@dataclass(frozen=True)
class Impl:
    name: str
    role: str  # "ours" | "peer" | "baseline"
    fn: Callable[..., Any] | None
    missing: str | None = None  # why fn is None (a contract function not written yet)


def _api(name: str) -> tuple[Callable[..., Any] | None, str | None]:
    fn = getattr(nuif_core, name, None)
    if fn is None:
        return None, f"nuif_core.{name} does not exist yet (docs/api-contract-draft.md)"
    return fn, None


# -- canonicalize ------------------------------------------------------------------------------


def nuif_canonicalize(data: bytes) -> tuple[bytes, str]:
    r = nuif_core.canonicalize(data)
    return r.canonical, r.hash


def nuif_codec(data: bytes) -> tuple[bytes, str]:
    c = _codec.canonical_json(data, MAX_DEPTH)
    return c, sha(c)


def nuif_py(data: bytes) -> tuple[bytes, str]:
    c = _codec_py.canonical_json(data, MAX_DEPTH)
    return c, sha(c)


def peer_rfc8785(data: bytes) -> bytes:
    return rfc8785.dumps(json.loads(data))  # type: ignore[no-any-return]


def peer_json(data: bytes) -> str:
    return json.dumps(json.loads(data), sort_keys=True, separators=(",", ":"), ensure_ascii=False)


def peer_orjson(data: bytes) -> bytes:
    return orjson.dumps(orjson.loads(data), option=orjson.OPT_SORT_KEYS)


def baseline_sha256(data: bytes) -> bytes:
    """SHA-256 of the input bytes as they are (hashlib, OpenSSL): the work canonicalize cannot
    avoid, over the same number of bytes, without reading the JSON."""
    return hashlib.sha256(data).digest()


CANONICALIZE = [
    Impl("nuif", "ours", nuif_canonicalize),
    Impl("nuif-codec", "ours", nuif_codec),
    Impl("nuif-py", "ours", nuif_py),
    Impl("rfc8785", "peer", peer_rfc8785),
    Impl("json", "peer", peer_json),
    Impl("orjson", "peer", peer_orjson),
    Impl("sha256", "baseline", baseline_sha256),
]

# -- validate / inspect ------------------------------------------------------------------------

_ID = re.compile(r"[A-Za-z0-9_][A-Za-z0-9_.:-]{0,127}")
_KIND = re.compile(r"[a-z][a-z0-9-]*(?:[.:/][a-z][a-z0-9-]*)*")
_ATTR = re.compile(r"[A-Za-z_$@][A-Za-z0-9_$@.:-]{0,127}")
_NODE_KEYS = {"id", "kind", "attrs", "children"}


def _walk_problems(doc: Any) -> list[str]:
    """The §3 schema rules, checked the way a user would with a parsed document."""
    problems: list[str] = []
    if not isinstance(doc, dict) or set(doc) - {"nuif", "root", "meta"} or doc.get("nuif") != 0:
        return ["document"]
    seen: set[str] = set()
    stack = [doc.get("root")]
    while stack:
        node = stack.pop()
        if not isinstance(node, dict) or set(node) - _NODE_KEYS:
            problems.append("node")
            continue
        nid, kind = node.get("id"), node.get("kind")
        if not isinstance(nid, str) or not _ID.fullmatch(nid) or nid in seen:
            problems.append(f"id {nid!r}")
        seen.add(nid)  # type: ignore[arg-type]
        if not isinstance(kind, str) or len(kind) > 64 or not _KIND.fullmatch(kind):
            problems.append(f"kind {kind!r}")
        attrs = node.get("attrs", {})
        if not isinstance(attrs, dict) or any(not _ATTR.fullmatch(a) for a in attrs):
            problems.append("attrs")
        kids = node.get("children", [])
        if not isinstance(kids, list):
            problems.append("children")
        else:
            stack.extend(kids)
    return problems


def peer_validate(data: bytes) -> tuple[bool, str]:
    doc = orjson.loads(data)
    return not _walk_problems(doc), sha(orjson.dumps(doc, option=orjson.OPT_SORT_KEYS))


def peer_inspect(data: bytes) -> dict[str, Any]:
    doc = orjson.loads(data)
    kinds: Counter[str] = Counter()
    max_depth = 0
    stack = [(doc["root"], 1)]
    while stack:
        node, depth = stack.pop()
        kinds[node["kind"]] += 1
        max_depth = max(max_depth, depth)
        stack.extend((c, depth + 1) for c in node.get("children", ()))
    canonical = orjson.dumps(doc, option=orjson.OPT_SORT_KEYS)
    return {
        "hash": sha(canonical),
        "node_count": sum(kinds.values()),
        "max_depth": max_depth,
        "kinds": dict(sorted(kinds.items())),
        "input_bytes": len(data),
        "canonical_bytes": len(canonical),
    }


def _impls_api(op: str, peer: Impl) -> list[Impl]:
    fn, missing = _api(op)
    return [Impl("nuif", "ours", fn, missing), peer]


VALIDATE = _impls_api("validate", Impl("orjson+walk", "peer", peer_validate))
INSPECT = _impls_api("inspect", Impl("orjson+walk", "peer", peer_inspect))

# -- apply-patch / diff ------------------------------------------------------------------------


def peer_jsonpatch_apply(data: bytes, rfc6902: bytes) -> tuple[str, str]:
    doc = json.loads(data)
    jsonpatch.JsonPatch.from_string(rfc6902).apply(doc, in_place=True)
    out = json.dumps(doc, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return out, sha(out.encode())


def peer_jsonpatch_diff(a: bytes, b: bytes) -> str:
    return jsonpatch.make_patch(json.loads(a), json.loads(b)).to_string()  # type: ignore[no-any-return]


_apply, _apply_missing = _api("apply_patch")
_diff, _diff_missing = _api("diff")
APPLY_PATCH = [
    Impl("nuif", "ours", _apply, _apply_missing),
    Impl("jsonpatch", "peer", peer_jsonpatch_apply),
]
DIFF = [Impl("nuif", "ours", _diff, _diff_missing), Impl("jsonpatch", "peer", peer_jsonpatch_diff)]
