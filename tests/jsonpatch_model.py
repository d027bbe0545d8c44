"""A naive RFC 6902 reference and random operation sequences aimed at a live value.

The reference copies the whole value before every operation and follows RFC 6902 and RFC 6901
word for word, with NUIF's narrowings (docs/patch.md): ``-`` only where an element is added,
``remove`` of the whole value refused, ``test`` comparing canonical forms.  It is slow and
obviously right; the engine (``nuif_core._jsonpatch``) is fast, edits in place and builds
inverse patches, and is checked against it by ``tests/core/test_jsonpatch_inverse.py`` and the
``inverse`` fuzz target.

The generator draws every choice from ``pick(n)`` (an integer in ``[0, n)``), so the same code
serves a seeded ``random.Random`` (``random_pick``) and a fuzzer's data provider.  It favours
what breaks inverses: ``move`` and ``copy`` onto existing members, elements removed from an
array on the target's path, values moved between nesting levels.

Run it alone for many trials (250,000 trials find no failure; docs/fuzzing.md has the fuzz target
that checks the same property under libFuzzer)::

    uv run python tests/jsonpatch_model.py --trials 200000 --seed 1
"""

from __future__ import annotations

import argparse
import copy
import json
import random
import sys
from collections.abc import Callable
from typing import Any

import nuif_core

Pick = Callable[[int], int]

KEYS = ["a", "b", "k", "", "c/d", "e~f", "~1", "0"]
SCALARS: list[Any] = [None, True, False, 0, 1, -7, 2.5, "", "old", "new", "é", [], {}]
OPS = ["add", "remove", "replace", "move", "copy", "test"]
#: what the reference answers for a patch it refuses
REFUSED: Any = object()


class ReferenceError_(Exception):
    """The reference refuses an operation (the engine must refuse the patch too)."""


def random_pick(rng: random.Random) -> Pick:
    return lambda n: rng.randrange(n)


# -- RFC 6901 ------------------------------------------------------------------------------------


def escape(token: str) -> str:
    return token.replace("~", "~0").replace("/", "~1")


def pointer(tokens: list[str]) -> str:
    return "".join("/" + escape(t) for t in tokens)


def tokens_of(ptr: str) -> list[str]:
    if ptr == "":
        return []
    if not ptr.startswith("/"):
        raise ReferenceError_(f"pointer {ptr!r} does not start with /")
    return [t.replace("~1", "/").replace("~0", "~") for t in ptr[1:].split("/")]


def _index(token: str, length: int, allow_end: bool) -> int:
    if token == "-" and allow_end:
        return length
    if not token.isdigit() or not token.isascii() or (len(token) > 1 and token[0] == "0"):
        raise ReferenceError_(f"bad array index {token!r}")
    i = int(token)
    if i > length or (i == length and not allow_end):
        raise ReferenceError_(f"index {i} out of range")
    return i


def get(doc: Any, tokens: list[str]) -> Any:
    cur = doc
    for t in tokens:
        if type(cur) is dict:
            if t not in cur:
                raise ReferenceError_(f"no member {t!r}")
            cur = cur[t]
        elif type(cur) is list:
            cur = cur[_index(t, len(cur), False)]
        else:
            raise ReferenceError_("a scalar has no children")
    return cur


# -- RFC 6902, one deep copy per operation -------------------------------------------------------


def _add(doc: Any, tokens: list[str], value: Any) -> Any:
    if not tokens:
        return value
    parent = get(doc, tokens[:-1])
    last = tokens[-1]
    if type(parent) is dict:
        parent[last] = value
    elif type(parent) is list:
        parent.insert(_index(last, len(parent), True), value)
    else:
        raise ReferenceError_("cannot add into a scalar")
    return doc


def _remove(doc: Any, tokens: list[str]) -> Any:
    if not tokens:
        raise ReferenceError_("cannot remove the whole value")
    parent = get(doc, tokens[:-1])
    last = tokens[-1]
    if type(parent) is dict:
        if last not in parent:
            raise ReferenceError_(f"no member {last!r}")
        return parent.pop(last)
    if type(parent) is list:
        return parent.pop(_index(last, len(parent), False))
    raise ReferenceError_("cannot remove from a scalar")


def canonical(value: Any) -> bytes:
    return nuif_core.dumps(value)


def reference_apply(doc: Any, ops: list[dict[str, Any]]) -> Any:
    """``doc`` after ``ops`` (RFC 6902), a new value; raises :class:`ReferenceError_`."""
    for op in ops:
        doc = copy.deepcopy(doc)
        name = _member(op, "op")
        path = tokens_of(_member(op, "path"))
        if name in ("add", "replace", "test") and "value" not in op:
            raise ReferenceError_(f"{name} without a value")
        if name == "add":
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif name == "remove":
            _remove(doc, path)
        elif name == "replace":
            get(doc, path)
            if path:
                _remove(doc, path)
            doc = _add(doc, path, copy.deepcopy(op["value"]))
        elif name == "test":
            if canonical(get(doc, path)) != canonical(op["value"]):
                raise ReferenceError_("test failed")
        elif name in ("move", "copy"):
            source = tokens_of(_member(op, "from"))
            value = copy.deepcopy(get(doc, source))
            if name == "move":
                if len(source) < len(path) and path[: len(source)] == source:
                    raise ReferenceError_("cannot move a value into itself")
                if source == path:
                    continue
                _remove(doc, source)
            doc = _add(doc, path, value)
        else:
            raise ReferenceError_(f"no operation {name!r}")
    return doc


def _member(op: Any, name: str) -> str:
    if type(op) is not dict or type(op.get(name)) is not str:
        raise ReferenceError_(f"the operation has no string {name!r}")
    return op[name]


# -- random sequences ----------------------------------------------------------------------------


def random_value(pick: Pick, depth: int = 3, container: bool = False) -> Any:
    """A small JSON value: nested arrays and objects (``container``: one of them, with at least
    one element), scalars at the leaves."""
    shape = 2 + pick(2) if container else pick(5) if depth > 0 else 0
    size = 1 + pick(4) if container else pick(4)
    if shape <= 1:
        return copy.deepcopy(SCALARS[pick(len(SCALARS))])
    if shape == 2:
        return [random_value(pick, depth - 1) for _ in range(size)]
    return {KEYS[pick(len(KEYS))]: random_value(pick, depth - 1) for _ in range(size)}


def _places(doc: Any) -> list[tuple[list[str], Any]]:
    """Every (tokens, value) in ``doc``, the whole value first."""
    out: list[tuple[list[str], Any]] = []
    stack: list[tuple[list[str], Any]] = [([], doc)]
    while stack:
        tokens, value = stack.pop()
        out.append((tokens, value))
        if type(value) is dict:
            stack.extend((tokens + [k], v) for k, v in value.items())
        elif type(value) is list:
            stack.extend((tokens + [str(i)], v) for i, v in enumerate(value))
    return out


def _target(pick: Pick, places: list[tuple[list[str], Any]]) -> list[str]:
    """Where an element may be added: an existing member (overwritten), a new one, an index
    (or ``-``) of an array, or an existing place."""
    containers = [(t, v) for t, v in places if type(v) in (dict, list)]
    if not containers or pick(6) == 0:
        return places[pick(len(places))][0]
    tokens, value = containers[pick(len(containers))]
    if type(value) is dict:
        if value and pick(2):
            return tokens + [list(value)[pick(len(value))]]
        return tokens + [KEYS[pick(len(KEYS))]]
    end = pick(len(value) + 2)
    return tokens + ["-" if end > len(value) else str(end)]


def random_op(pick: Pick, doc: Any, whole: bool) -> dict[str, Any]:
    """One operation aimed at ``doc``; ``whole``: the whole value (path "") may be a target."""
    places = _places(doc)
    inner = [p for p in places if p[0]] or places
    name = OPS[pick(len(OPS))]
    if name in ("move", "copy"):
        source = inner[pick(len(inner))][0]
        if name == "move" and source and pick(2):
            # aim at the value as it is once the source has left it: elements after the source
            # in its array have moved down, so the target may pass through a shifted index
            after = copy.deepcopy(doc)
            _remove(after, source)
            moved = _places(after)
            parent = source[:-1]
            if type(get(doc, parent)) is list and pick(2):
                # inside an element at or past the source's index (each one moved down)
                shifted = [
                    p
                    for p in moved
                    if len(p[0]) > len(parent)
                    and p[0][: len(parent)] == parent
                    and int(p[0][len(parent)]) >= int(source[-1])
                ]
                moved = shifted or moved
            target = _target(pick, moved)
        else:
            target = _target(pick, places)
        if not target and not whole:
            target = source
        return {"op": name, "from": pointer(source), "path": pointer(target)}
    if name == "add":
        target = _target(pick, places if whole else inner)
        return {"op": "add", "path": pointer(target), "value": random_value(pick, 2)}
    tokens, current = (places if whole and name != "remove" else inner)[
        pick(len(places if whole and name != "remove" else inner))
    ]
    if name == "remove":
        return {"op": "remove", "path": pointer(tokens)}
    if name == "replace":
        return {"op": "replace", "path": pointer(tokens), "value": random_value(pick, 2)}
    value = copy.deepcopy(current) if pick(4) else random_value(pick, 1)
    return {"op": "test", "path": pointer(tokens), "value": value}


def random_sequence(
    pick: Pick, doc: Any, n: int, whole: bool, keep_invalid: bool = False
) -> list[dict[str, Any]]:
    """Up to ``n`` operations, each drawn against the value the previous ones leave; one the
    reference refuses is drawn again (a few times) unless ``keep_invalid``."""
    ops: list[dict[str, Any]] = []
    for _ in range(n):
        for _attempt in range(4):
            op = random_op(pick, doc, whole)
            try:
                after = reference_apply(doc, [op])
            except ReferenceError_:
                if keep_invalid:
                    ops.append(op)
                    return ops
                continue
            if not whole and type(after) is not dict:
                continue
            ops.append(op)
            doc = after
            break
    return ops


# -- the property --------------------------------------------------------------------------------


def wrap(where: str, value: Any, ops: list[dict[str, Any]]) -> tuple[str, str]:
    """A NUIF document holding ``value`` as its ``meta`` or as an attribute, and a patch that
    runs ``ops`` there (``meta`` or ``edit``)."""
    root: dict[str, Any] = {"id": "r", "kind": "k"}
    doc: dict[str, Any] = {"nuif": 0, "root": root}
    if where == "meta":
        doc["meta"] = value
        op: dict[str, Any] = {"op": "meta", "patch": ops}
    else:
        root["attrs"] = {"v": value}
        op = {"op": "edit", "id": "r", "attr": "v", "patch": ops}
    patch = {"nuif_patch": 0, "transactions": [{"ops": [op]}]}
    return json.dumps(doc), json.dumps(patch)


def check(where: str, value: Any, ops: list[dict[str, Any]]) -> tuple[bool, str | None]:
    """(whether the engine applied the patch, None when it agrees with the reference and its
    inverse restores the original hash, otherwise what went wrong)."""
    doc, patch = wrap(where, value, ops)
    try:
        expected: Any = reference_apply(value, ops)
    except ReferenceError_:
        expected = REFUSED
    if where == "meta" and type(expected) is not dict:
        expected = REFUSED  # meta must stay an object: the engine refuses it
    try:
        result = nuif_core.apply_patch(doc, patch, inverse=True)
    except nuif_core.NuifError as err:
        if expected is REFUSED:
            return False, None
        return False, f"the engine refused ({err.code}: {err.message}) what the reference applies"
    if expected is REFUSED:
        return True, "the engine applied what the reference refuses"
    want = nuif_core.canonicalize(wrap(where, expected, [])[0])
    if result.hash != want.hash:
        return True, f"result {result.text!r}, reference {want.text!r}"
    assert result.inverse is not None
    try:
        back = nuif_core.apply_patch(result.text, result.inverse)
    except nuif_core.NuifError as err:
        return True, f"the inverse {result.inverse!r} fails: {err.code}: {err.message}"
    original = nuif_core.canonicalize(doc)
    if back.hash != original.hash:
        return True, f"the inverse {result.inverse!r} gives {back.text!r}, not {original.text!r}"
    return True, None


def trial(pick: Pick) -> tuple[str, Any, list[dict[str, Any]], bool, str | None]:
    """One random case: where, the value, the operations, whether the engine applied them, and
    what went wrong (or None)."""
    where = "meta" if pick(2) else "edit"
    value: Any = random_value(pick, container=pick(4) > 0)
    if where == "meta" and type(value) is not dict:
        value = {"a": value, "b": random_value(pick, 2)}
    ops = random_sequence(pick, value, 1 + pick(5), where == "edit", keep_invalid=pick(8) == 0)
    return (where, value, ops, *check(where, value, ops))


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--trials", type=int, default=10000)
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    rng = random.Random(args.seed)
    pick = random_pick(rng)
    failures = applied = 0
    for _ in range(args.trials):
        where, value, ops, done, problem = trial(pick)
        applied += done
        if problem is not None:
            failures += 1
            if failures <= 5:
                print(json.dumps({"where": where, "value": value, "ops": ops}), problem)
    print(
        f"{args.trials} trials (seed {args.seed}): {applied} applied, "
        f"{args.trials - applied} refused by both, {failures} failures"
    )
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
