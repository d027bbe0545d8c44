"""nuif-mcp's memory stays bounded over many distinct catalogs: 16 requests with 24.5 KB
catalogs once took its RSS from 74 MB to 1.34 GB (every catalog kept, with its patterns' DFAs).
The server runs the tool code of a real request (``call_tool``) in a process of its own; its RSS
is read with psutil after 100 and after 1,000 distinct catalogs."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

SCRIPT = """
import json, sys
import psutil
from nuif_mcp._tools import call_tool, warm_up

warm_up()
me = psutil.Process()
kinds = {}
for k in range(38):
    kinds[f"k{k}"] = {"attrs": {"type": "object", "properties": {
        f"p{i}": {"type": "string", "pattern": "^[a-z]{1,%d}(-[a-z0-9]+)*$" % (8 + i),
                  "maxLength": 200} for i in range(6)}
        | {"grow": {"pattern": "(a|b)*a(a|b){12}$"}},
        "additionalProperties": {"enum": [f"v{j}" for j in range(8)]}}}
doc = json.dumps({"nuif": 0, "root": {"id": "r", "kind": "k0", "attrs": {
    "p0": "abc-1", "p1": "x" * 150, "q": "v3", "r": "zz",
    # a value whose pattern builds a new DFA state at nearly every character
    "grow": "".join("ab"[(i * 7919) % 11 % 2] for i in range(3000)) + "!"}}})
rss = {}
for n in range(1, 1001):
    kinds["k0"]["description"] = f"catalog {n}"  # each text distinct
    text = json.dumps({"nuif_catalog": 0, "kinds": kinds})
    answer = call_tool("validate", {"document": doc, "catalog": text})
    if n in (100, 1000):
        rss[n] = me.memory_info().rss
print(json.dumps({"rss": rss, "size": len(text), "answer": str(answer)[:2000]}))
"""


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_rss_is_bounded_over_a_thousand_distinct_catalogs() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=580, check=True
    )
    out = json.loads(done.stdout)
    assert 20_000 < out["size"] < 30_000
    assert "NUIF_CATALOG_ATTRS" in out["answer"]  # each catalog was read and applied
    growth = out["rss"]["1000"] - out["rss"]["100"]
    print(
        f"RSS after 100: {out['rss']['100'] // 2**20} MiB, growth to 1,000: {growth // 2**20} MiB"
    )
    assert growth < 50 * 1024 * 1024, growth
    assert out["rss"]["1000"] < 300 * 1024 * 1024
