"""Fuzz target 8: inverse patches of RFC 6902 sequences inside ``edit`` and ``meta``.

Input: bytes that steer ``tests/jsonpatch_model.py``'s generator (``pick(n)`` draws from them):
where the value sits (``meta`` or an attribute under ``edit``), the value, and up to five
operations aimed at it (``move`` and ``copy`` onto existing and new members, elements removed
from an array on the target's path, now and then one the reference refuses).

Properties: the engine applies exactly what the naive reference applies (same canonical result)
and refuses what it refuses; on success the inverse patch applies and gives back the original
document's hash.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import _common as c
import atheris

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
import jsonpatch_model as model


def TestOneInput(data: bytes) -> None:
    fdp = atheris.FuzzedDataProvider(data)
    where, value, ops, _done, problem = model.trial(lambda n: fdp.ConsumeIntInRange(0, n - 1))
    if problem is not None:
        c.fail(problem, json.dumps({"where": where, "value": value, "ops": ops}))


if __name__ == "__main__":
    c.main(TestOneInput)
