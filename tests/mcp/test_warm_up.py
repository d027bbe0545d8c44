"""The server's start-up warm-up does every kind of work its tools do, so a first request
imports nothing: a request with a ``catalog`` once imported the catalog modules (13 of them,
with the JSON Schema library of the time) on the first call that carried one."""

from __future__ import annotations

import subprocess
import sys

SCRIPT = """
import sys
from nuif_mcp._tools import call_tool, warm_up
warm_up()
before = set(sys.modules)
catalog = ('{"nuif_catalog": 0, "closed": true, "kinds": {"b": {"attrs": {"properties": '
           '{"n": {"pattern": "^[a-z]+$", "multipleOf": 2, "enum": [1, {"a": [2]}]}}, '
           '"additionalProperties": false}, "children": {"max": 0}}}}')
doc = '{"nuif": 0, "root": {"id": "r", "kind": "b", "attrs": {"n": "X", "z": {"q": [1]}}}}'
patch = '{"nuif_patch": 0, "transactions": []}'
answers = [
    call_tool("validate", {"document": doc, "catalog": catalog}),
    call_tool("apply-patch", {"document": doc, "catalog": catalog, "patch": patch}),
    call_tool("validate", {"document": doc, "catalog": "[1,"}),
]
print(repr([type(a).__name__ for a in answers]))
print(" ".join(sorted(set(sys.modules) - before)))
"""


def test_a_first_request_with_a_catalog_imports_nothing() -> None:
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], capture_output=True, text=True, timeout=120, check=True
    )
    answered, imported = done.stdout.splitlines()
    assert "Exception" not in answered
    assert imported == ""
