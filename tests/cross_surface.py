"""The corpus every cross-surface test runs: documents and patches, valid and invalid.

The direct API, the ``nuif`` CLI (tests/cli/test_cross_surface.py) and the MCP tools
(tests/mcp/test_cross_surface.py) must give identical canonical text, hashes and error codes on it.
"""

from __future__ import annotations

import json
from pathlib import Path

import nuif_core

DOC = (
    '{"root": {"kind": "screen", "id": "login", "children": [{"id": "login.submit", '
    '"kind": "button", "attrs": {"label": "Sign in"}}]}, "nuif": 0}'
)
#: a document holding 1e20 and 2**60 (canonical: 100000000000000000000 and 1152921504606847000)
BIG_DOC = (
    '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"big": 1e20, '
    '"p60": 1152921504606846976.0, "neg": -9007199254740992, "ok": 123456789012345680000}}}'
)
DUPLICATE_ID_DOC = '{"nuif":0,"root":{"id":"a","kind":"screen","children":[{"id":"a","kind":"x"}]}}'

SUITE = Path(__file__).resolve().parent / "data" / "JSONTestSuite" / "test_parsing"


def documents() -> list[str]:
    """Documents: canonical, pretty, invalid in every layer, and a sample of JSONTestSuite."""
    docs = [
        DOC,
        DUPLICATE_ID_DOC,
        nuif_core.canonicalize(DOC).text,
        '{"nuif": 0, "root": {"id": "r", "kind": "screen", "attrs": {}, "children": []}, "meta": {}}',
        '{"nuif": 1, "root": {"id": "r", "kind": "screen"}}',
        '{"nuif": 0, "root": {"id": "bad id", "kind": "screen"}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "Screen"}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"9": 1}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"n": 1e400}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"n": 9007199254740993}}}',
        # NUIF-0.1: doubles RFC 8785 writes as integers beyond 2^53 - 1, and that text read back
        BIG_DOC,
        nuif_core.canonicalize(BIG_DOC).text,
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"n": 1000000000000000000000}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"a": 1, "a": 2}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"s": "\\ud800"}}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "attrs": {"v": [1.0, -0, 1e21, 1e-7, "é\\u2028"]}}, "meta": {"z": 1, "a": null}}',
        '{"nuif": 0, "root": {"id": "r", "kind": "x"}, "extra": 1}',
        "[" * 200 + "]" * 200,
        "",
        "\ufeff{}",
        '{"nuif": 0, "root": {"id": "r", "kind": "x", "children": ['
        + ",".join(f'{{"id": "c{i}", "kind": "k{i % 3}"}}' for i in range(300))
        + "]}}",
    ]
    assert SUITE.is_dir(), f"conformance data not found at {SUITE} (tests/data)"
    for path in sorted(SUITE.glob("*.json"))[::6]:
        try:
            text = path.read_bytes().decode("utf-8")
        except UnicodeDecodeError:
            continue  # not representable as a JSON string argument
        if any(0xD800 <= ord(c) <= 0xDFFF for c in text):
            continue
        docs.append(text)
    return docs


def patches() -> list[str]:
    """Patch texts for ``DOC``: successes, and failures of every kind."""
    base = nuif_core.canonicalize(DOC).hash
    patches = [
        {
            "nuif_patch": 0,
            "base": base,
            "transactions": [
                {"ops": [{"op": "set", "id": "login", "attr": "title", "value": "Hi"}]}
            ],
        },
        {
            "nuif_patch": 0,
            "transactions": [
                {
                    "ops": [
                        {
                            "op": "insert",
                            "parent": "login",
                            "index": 0,
                            "node": {"id": "n", "kind": "text"},
                        }
                    ]
                }
            ],
        },
        {"nuif_patch": 0, "transactions": [{"ops": [{"op": "remove", "id": "login"}]}]},
        {
            "nuif_patch": 0,
            "transactions": [
                {"ops": [{"op": "set", "id": "login", "attr": "n", "value": [1e20, 2.0**60]}]}
            ],
        },
        {"nuif_patch": 0, "transactions": [{"ops": [{"op": "remove", "id": "nope"}]}]},
        {"nuif_patch": 0, "base": "sha256:" + "1" * 64, "transactions": []},
        {"nuif_patch": 1, "transactions": []},
        {
            "nuif_patch": 0,
            "transactions": [
                {"ops": [{"op": "move", "id": "login.submit", "parent": "login.submit"}]}
            ],
        },
    ]
    big = '{"nuif_patch": 0, "transactions": [{"ops": [{"op": "set", "id": "login", "attr": "n", '
    refused = big + '"value": 9007199254740993}]}]}'  # NUIF_NUMBER, not silently rounded
    accepted = big + '"value": 100000000000000000000}]}]}'
    return [json.dumps(p) for p in patches] + ["{", refused, accepted]
