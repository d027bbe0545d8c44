"""RFC 6902 JSON Patch and RFC 6901 JSON Pointer, with NUIF error codes and canonical equality.

This is not a public API.
This is the engine behind the ``edit`` and ``meta`` operations of a NUIF patch (NUIF-0 §5.6,
docs/spec/nuif-0.1-patches.md).  It is written here rather than taken from the ``jsonpatch`` package
because NUIF needs three things that package does not give:

* **canonical equality** for ``test``: ``true`` is not ``1`` and ``1`` equals ``1.0`` (Python's
  ``==`` says ``True == 1``);
* **NUIF error codes** with a JSON Pointer into the patch: a malformed operation is
  NUIF_PATCH_SCHEMA, a pointer that is malformed or does not resolve is NUIF_PATCH_POINTER, a
  failed ``test`` is NUIF_PATCH_TEST_FAILED;
* **no hidden copies**: the caller decides what to copy (the semantic patch engine copies one
  attribute value, not the whole document).

Errors raised by :func:`compile_json_patch` and :func:`apply_json_patch` carry a pointer into the
JSON Patch array (``/2/path``); the semantic patch engine prefixes it with the location of the
``edit``/``meta`` operation.

Decisions (RFC 6902 leaves them open or the NUIF rules settle them):

* unknown members of an operation are ignored (RFC 6902 §4);
* array indexes are ``0`` or digits without a leading zero; ``-`` is "after the last element"
  and only ``add`` (and the target of ``move``/``copy``) accepts it;
* ``remove`` of the whole value (path ``""``) is NUIF_PATCH_POINTER: a value cannot be absent;
* ``move`` whose ``from`` is a proper prefix of ``path`` (into its own child) is
  NUIF_PATCH_POINTER (RFC 6902 §4.4 forbids it);
* ``copy`` deep-copies, so later operations never alias.
"""

from __future__ import annotations

import re
from typing import Any

from . import _codec
from ._cost import DUMPS_UNITS, OverBudget
from ._errors import NuifError, join_pointer
from ._messages import quote
from ._schema import json_type
from ._undo import MISSING, Inserted, Removed, SetItem
from ._values import CONTAINERS, copy_json, json_equal

__all__ = [
    "Env",
    "apply_json_patch",
    "compile_json_patch",
    "parse_pointer",
    "resolve_pointer",
    "run_json_patch",
    "run_tracked",
]

_INDEX_RE = re.compile(r"0|[1-9][0-9]*", re.ASCII)
_OPS = frozenset({"add", "remove", "replace", "move", "copy", "test"})
#: the members each operation requires besides "op" and "path"
_NEEDS = {
    "add": ("value",),
    "replace": ("value",),
    "test": ("value",),
    "move": ("from",),
    "copy": ("from",),
    "remove": (),
}


# ---------------------------------------------------------------------------------------------
# RFC 6901 pointers


def parse_pointer(pointer: str) -> list[str]:
    """The reference tokens of a JSON Pointer (RFC 6901 §3), unescaped.

    Raises ``ValueError`` with a reason when the text is not a pointer: it must be empty or start
    with ``/``, and ``~`` must be followed by ``0`` or ``1``.
    """
    if pointer == "":
        return []
    if pointer[0] != "/":
        raise ValueError(f"JSON Pointer {quote(pointer)} must be empty or start with '/'")
    tokens = pointer[1:].split("/")
    if "~" in pointer:
        out = []
        for t in tokens:
            if "~" in t:
                if re.search(r"~(?![01])", t):
                    raise ValueError(
                        f"JSON Pointer {quote(pointer)} has '~' not followed by 0 or 1"
                    )
                t = t.replace("~1", "/").replace("~0", "~")
            out.append(t)
        return out
    return tokens


def _index(token: str, length: int, pointer: str, allow_end: bool) -> int:
    """The array index of ``token`` in an array of ``length`` (``allow_end``: ``-``/``length``)."""
    if token == "-":
        if allow_end:
            return length
        raise _PointerError(f"{quote(pointer)}: '-' names no existing array element")
    if _INDEX_RE.fullmatch(token) is None:
        raise _PointerError(
            f"{quote(pointer)}: {quote(token)} is not an array index "
            "(0 or digits without a leading zero)"
        )
    i = int(token)
    if i > length or (i == length and not allow_end):
        raise _PointerError(
            f"{quote(pointer)}: index {i} is out of range for an array of {length} elements"
        )
    return i


class _PointerError(Exception):
    pass


class _TestError(Exception):
    pass


def _container(doc: Any, tokens: list[str], pointer: str) -> Any:
    """The value holding the last token of ``tokens`` (every earlier token must resolve)."""
    cur = doc
    for n in range(len(tokens) - 1):
        cur = _child(cur, tokens[n], pointer, tokens, n)
    return cur


def _child(cur: Any, token: str, pointer: str, tokens: list[str], n: int) -> Any:
    t = type(cur)
    if t is dict:
        try:
            return cur[token]
        except KeyError:
            raise _PointerError(
                f"{quote(pointer)}: no member {quote(token)} at {quote(_prefix(tokens, n))}"
            ) from None
    if t is list:
        return cur[_index(token, len(cur), pointer, False)]
    raise _PointerError(
        f"{quote(pointer)}: {quote(_prefix(tokens, n))} is a {_kind(cur)}, not an object or array"
    )


def _prefix(tokens: list[str], n: int) -> str:
    return join_pointer(tokens[:n])


def _kind(v: Any) -> str:
    """The JSON type name without its article ("boolean", "array", ...)."""
    return json_type(v).rsplit(" ", 1)[-1]


def resolve_pointer(doc: Any, pointer: str | list[str]) -> Any:
    """The value ``pointer`` names in ``doc``; NUIF_PATCH_POINTER when it is malformed or unresolved."""
    try:
        tokens = parse_pointer(pointer) if isinstance(pointer, str) else pointer
        text = pointer if isinstance(pointer, str) else _prefix(tokens, len(tokens))
        cur = doc
        for n, token in enumerate(tokens):
            cur = _child(cur, token, text, tokens, n)
        return cur
    except (ValueError, _PointerError) as exc:
        raise NuifError("NUIF_PATCH_POINTER", str(exc)) from None


# ---------------------------------------------------------------------------------------------
# RFC 6902


def compile_json_patch(ops: Any) -> list[tuple[str, list[str], str, Any, list[str] | None]]:
    """Check the shape of a JSON Patch and parse its pointers, before anything runs.

    Returns ``(op, path_tokens, path_text, value, from_tokens)`` tuples.  Raises
    :class:`NuifError`: NUIF_PATCH_SCHEMA for a shape error (not an array, an operation that is
    not an object, an unknown ``op``, a missing or mistyped member), NUIF_PATCH_POINTER for a
    ``path``/``from`` that is not a JSON Pointer; the error's pointer is into the patch array.
    """
    if type(ops) is not list:
        raise NuifError(
            "NUIF_PATCH_SCHEMA",
            f"a JSON Patch is an array of operations, found a {_kind(ops)}",
            pointer="",
        )
    out = []
    for k, op in enumerate(ops):
        at = f"/{k}"
        if type(op) is not dict:
            raise NuifError(
                "NUIF_PATCH_SCHEMA",
                f"JSON Patch operation {k} is a {_kind(op)}, not an object",
                pointer=at,
            )
        name = op.get("op")
        if type(name) is not str:
            raise NuifError(
                "NUIF_PATCH_SCHEMA",
                f'JSON Patch operation {k} needs an "op" string'
                + ("" if name is None and "op" not in op else f", found a {_kind(name)}"),
                pointer=at + ("/op" if "op" in op else ""),
            )
        if name not in _OPS:
            raise NuifError(
                "NUIF_PATCH_SCHEMA",
                f"JSON Patch operation {k} has an unknown op {quote(name)} "
                "(add, remove, replace, move, copy, test)",
                pointer=at + "/op",
            )
        path = op.get("path")
        if type(path) is not str:
            raise NuifError(
                "NUIF_PATCH_SCHEMA",
                f'JSON Patch operation {k} ({name}) needs a "path" string'
                + ("" if "path" not in op else f", found {_kind(path)}"),
                pointer=at + ("/path" if "path" in op else ""),
            )
        try:
            tokens = parse_pointer(path)
        except ValueError as exc:
            raise NuifError(
                "NUIF_PATCH_POINTER",
                f"JSON Patch operation {k} ({name}): {exc}",
                pointer=at + "/path",
            ) from None
        value = None
        source = None
        for member in _NEEDS[name]:
            if member not in op:
                raise NuifError(
                    "NUIF_PATCH_SCHEMA",
                    f'JSON Patch operation {k} ({name}) needs a "{member}" member',
                    pointer=at,
                )
            if member == "value":
                value = op["value"]
            else:
                frm = op["from"]
                if type(frm) is not str:
                    raise NuifError(
                        "NUIF_PATCH_SCHEMA",
                        f'JSON Patch operation {k} ({name}): "from" must be a string, '
                        f"found {_kind(frm)}",
                        pointer=at + "/from",
                    )
                try:
                    source = parse_pointer(frm)
                except ValueError as exc:
                    raise NuifError(
                        "NUIF_PATCH_POINTER",
                        f"JSON Patch operation {k} ({name}): {exc}",
                        pointer=at + "/from",
                    ) from None
                if name == "move" and len(source) < len(tokens) and tokens[: len(source)] == source:
                    raise NuifError(
                        "NUIF_PATCH_POINTER",
                        f"JSON Patch operation {k} (move): cannot move {quote(frm)} into its own "
                        f"child {quote(path)}",
                        pointer=at + "/path",
                    )
        out.append((name, tokens, path, value, source))
    return out


class Env:
    """What the patch engine lends one JSON Patch run (see :func:`run_tracked`).

    ``log``: the session's undo log, or None (every change in place is recorded there as an
    entry of :mod:`._undo`);
    ``meter``: the work meter (:mod:`._cost`) or None; ``base``: the JSON depth of the object
    that holds the value (the value's own array or object sits at ``base + 1``);
    ``max_depth``; ``size``/``limit``: the document's canonical size before the run and the
    size it may not pass; ``empty_extra``:
    bytes the document gains when the value stops being an empty object (``meta``: it then
    appears as a member), 0 otherwise; ``inverse``: build the undo operations.
    """

    __slots__ = ("base", "empty_extra", "inverse", "limit", "log", "max_depth", "meter", "size")

    def __init__(
        self,
        *,
        log: list[Any] | None = None,
        meter: Any = None,
        base: int = 0,
        max_depth: int = 1 << 30,
        size: int = 0,
        limit: int = 1 << 62,
        empty_extra: int = 0,
        inverse: bool = False,
    ) -> None:
        self.log = log
        self.meter = meter
        self.base = base
        self.max_depth = max_depth
        self.size = size
        self.limit = limit
        self.empty_extra = empty_extra
        self.inverse = inverse


class _Run:
    """The state of one :func:`run_tracked` call: the size change so far and the charging."""

    __slots__ = ("charge", "delta", "dumps", "env", "loads", "log", "member", "shift")

    def __init__(self, env: Env) -> None:
        self.env = env
        self.log = env.log
        meter = env.meter
        self.charge = meter.charge if meter is not None else _no_charge
        self.shift = meter.charge_shift if meter is not None else _no_charge
        self.delta = 0
        self.dumps = _codec.dumps
        self.loads = _codec.loads
        #: the member of the running operation an error points at ("/path", "/from", "/value")
        self.member = "/path"

    def measure(self, value: Any) -> int:
        """Canonical size of a value that is leaving the document (charged)."""
        t = type(value)
        if t is not dict and t is not list:
            return len(self.dumps(value, 0))
        n = len(self.dumps(value, self.env.max_depth))
        self.charge(DUMPS_UNITS * n)
        return n

    def placed(self, value: Any, tokens: list[str], k: int, name: str, member: str) -> bytes:
        """The canonical bytes of ``value`` about to be placed at ``tokens``; NUIF_DEPTH when it
        would nest the document deeper than the limit there."""
        env = self.env
        room = env.max_depth - env.base - len(tokens)
        try:
            return self.dumps(value, room)
        except NuifError as exc:
            if exc.code != "NUIF_DEPTH":
                raise
        raise NuifError(
            "NUIF_DEPTH",
            f"JSON Patch operation {k} ({name}): the value would nest the document more than "
            f"{env.max_depth} levels deep",
            pointer=f"/{k}{member}",
        ) from None

    # -- in-place changes, journaled; each returns the canonical size change -------------------

    def put(self, parent: Any, key: Any, value: Any, vsize: int) -> tuple[int, Any]:
        """Add ``value`` at ``parent[key]`` (a new or existing member, or a list insert at
        ``key``): RFC 6902 ``add``.  Returns (size change, the value it replaced or MISSING)."""
        log = self.log
        if type(parent) is dict:
            old = parent.get(key, MISSING)
            if log is not None:
                log.append(SetItem(parent, key, old))
            if old is MISSING:
                change = (1 if parent else 0) + len(self.dumps(key, 0)) + 1 + vsize
            else:
                change = vsize - self.measure(old)
            parent[key] = value
            return change, old
        n = len(parent)
        if n - key > 64:
            self.shift(n - key)  # the elements the insert moves
        parent.insert(key, value)
        if log is not None:
            log.append(Inserted(parent, key))
        return vsize + (1 if n else 0), MISSING

    def take(self, parent: Any, key: Any) -> tuple[Any, int]:
        """Remove ``parent[key]``; returns (the value, the size change *not* counting the value
        itself: the caller subtracts its size when it leaves the document)."""
        log = self.log
        if type(parent) is dict:
            value = parent.pop(key)
            if log is not None:
                log.append(SetItem(parent, key, value))
            return value, -((1 if parent else 0) + len(self.dumps(key, 0)) + 1)
        n = len(parent)
        if n - key > 64:
            self.shift(n - key)
        value = parent.pop(key)
        if log is not None:
            log.append(Removed(parent, key, value))
        return value, -(1 if n > 1 else 0)

    def swap(self, parent: Any, key: Any, value: Any) -> Any:
        """Replace the existing ``parent[key]``; returns the old value."""
        old = parent[key]
        if self.log is not None:
            self.log.append(SetItem(parent, key, old))
        parent[key] = value
        return old


def _no_charge(units: int) -> None:
    return None


def _resolve(doc: Any, tokens: list[str], pointer: str) -> Any:
    cur = doc
    for n, token in enumerate(tokens):
        cur = _child(cur, token, pointer, tokens, n)
    return cur


def _slot(
    doc: Any, tokens: list[str], path: str, adding: bool, verb: str = "remove"
) -> tuple[Any, Any, str]:
    """The container of the last token, the key in it (an int for arrays) and the concrete
    pointer text (``-`` resolved to the index)."""
    parent = _container(doc, tokens, path)
    last = tokens[-1]
    t = type(parent)
    if t is dict:
        if not adding and last not in parent:
            raise _PointerError(f"{quote(path)}: no member {quote(last)} to {verb}")
        return parent, last, path
    if t is list:
        i = _index(last, len(parent), path, adding)
        return parent, i, (path if last != "-" else path[: path.rfind("/") + 1] + str(i))
    raise _PointerError(
        f"{quote(path)}: {quote(_prefix(tokens, len(tokens) - 1))} is a {_kind(parent)}, "
        "not an object or array"
    )


def run_tracked(doc: Any, compiled: list[Any], env: Env) -> tuple[Any, int, list[Any] | None]:
    """Apply compiled operations to ``doc`` **in place**; returns ``(result, size change,
    inverse operations or None)``.

    Nothing is copied but what ``copy`` asks for.  Every change is written to ``env.log`` (so
    the caller can roll back), the value is held to the depth limit and the document to its
    size limit *at each operation* (NUIF_DEPTH, NUIF_TOO_LARGE with the operation's pointer),
    and the work that depends on the value rather than on the patch is charged to
    ``env.meter``.  The inverse (``env.inverse``) is an RFC 6902 patch that turns the result
    back into ``doc``: it holds only values that left the document (never a live one), so it
    stays right whatever later operations do.  The result is a different object only when an
    operation replaces the whole value.
    """
    run = _Run(env)
    groups: list[list[dict[str, Any]]] | None = [] if env.inverse else None
    was_empty = type(doc) is dict and not doc
    for k, (name, tokens, path, value, source) in enumerate(compiled):
        run.member = "/path"
        try:
            doc, undo = _STEPS[name](run, doc, k, name, tokens, path, value, source)
            if undo is _UNCHANGED:
                continue
        except _PointerError as exc:
            raise NuifError(
                "NUIF_PATCH_POINTER",
                f"JSON Patch operation {k} ({name}): {exc}",
                pointer=f"/{k}{run.member}",
            ) from None
        except _TestError as exc:
            raise NuifError(
                "NUIF_PATCH_TEST_FAILED", f"JSON Patch operation {k} (test): {exc}", pointer=f"/{k}"
            ) from None
        except OverBudget as exc:
            raise NuifError(
                "NUIF_LIMIT_WORK",
                f"JSON Patch operation {k} ({name}): {env.meter.message(exc)}",
                pointer=f"/{k}",
            ) from None
        grown = run.delta
        if type(doc) is not dict or doc:
            if was_empty:
                grown += env.empty_extra
        elif not was_empty:
            grown -= env.empty_extra
        if env.size + grown > env.limit:
            raise NuifError.too_large(
                f"JSON Patch operation {k} ({name}): the document would be {env.size + grown} "
                "bytes of canonical text",
                env.limit,
                pointer=f"/{k}",
            )
        if groups is not None and undo:
            groups.append(undo)
    inverse = None
    if groups is not None:
        inverse = [u for group in reversed(groups) for u in group]
    return doc, run.delta, inverse


# -- one operation each: ``(run, doc, k, name, tokens, path, value, from tokens)`` → ``(the whole
# value after it, the undo operations, None, or _UNCHANGED)``; ``run.member`` is the member an
# error points at

Undo = Any  # list[dict[str, Any]] | None | _UNCHANGED
#: what an operation that changed nothing returns as its undo (no size check, no inverse)
_UNCHANGED: Any = object()


def _test(
    run: _Run, doc: Any, k: int, name: str, tokens: list[str], path: str, value: Any, source: Any
) -> tuple[Any, Undo]:
    current = _resolve(doc, tokens, path)
    if not json_equal(current, value):
        raise _TestError(f"the value at {quote(path)} is not equal to the test value")
    return doc, _UNCHANGED


def _remove(
    run: _Run, doc: Any, k: int, name: str, tokens: list[str], path: str, value: Any, source: Any
) -> tuple[Any, Undo]:
    if not tokens:
        raise _PointerError('cannot remove the whole value (path "")')
    parent, key, where = _slot(doc, tokens, path, False)
    old, change = run.take(parent, key)
    run.delta += change - run.measure(old)
    return doc, [{"op": "add", "path": where, "value": old}]


def _replace_or_add(
    run: _Run, doc: Any, k: int, name: str, tokens: list[str], path: str, value: Any, source: Any
) -> tuple[Any, Undo]:
    run.member = "/value"
    size = len(run.placed(value, tokens, k, name, "/value"))
    run.member = "/path"
    if not tokens:
        run.delta += size - run.measure(doc)
        return value, [{"op": "replace", "path": "", "value": doc}]
    if name == "replace":
        parent, key, where = _slot(doc, tokens, path, False, "replace")
        old = run.swap(parent, key, value)
        run.delta += size - run.measure(old)
        return doc, [{"op": "replace", "path": where, "value": old}]
    parent, key, where = _slot(doc, tokens, path, True)
    change, old = run.put(parent, key, value, size)
    run.delta += change
    return doc, [_undo_add(where, old)]


def _copy(
    run: _Run,
    doc: Any,
    k: int,
    name: str,
    tokens: list[str],
    path: str,
    value: Any,
    source: list[str],
) -> tuple[Any, Undo]:
    run.member = "/from"
    frm = _prefix(source, len(source))
    original = _resolve(doc, source, frm)
    run.member = "/path"
    data = run.placed(original, tokens, k, name, "/from")
    run.charge((DUMPS_UNITS + 1) * len(data))  # written, then read back
    copied = run.loads(data, run.env.max_depth) if type(original) in CONTAINERS else original
    return _add_tracked(run, doc, tokens, path, copied, len(data))


def _move(
    run: _Run,
    doc: Any,
    k: int,
    name: str,
    tokens: list[str],
    path: str,
    value: Any,
    source: list[str],
) -> tuple[Any, Undo]:
    run.member = "/from"
    frm = _prefix(source, len(source))
    if not source:
        # from "" and path not under it (compile checked): only path "" remains
        return doc, _UNCHANGED
    parent, key, frm_where = _slot(doc, source, frm, False)
    moved, change = run.take(parent, key)
    run.member = "/path"
    try:
        if len(tokens) > len(source) and type(moved) in CONTAINERS:
            run.charge(DUMPS_UNITS * len(run.placed(moved, tokens, k, name, "/path")))
        doc, add_undo = _add_tracked(run, doc, tokens, path, moved, 0)
    except (_PointerError, NuifError):
        # put the value back so that callers reading the error see no half-move
        run.put(parent, key, moved, 0)
        raise
    run.delta += change
    if not run.env.inverse:
        return doc, None
    to = add_undo[0]["path"]
    if _is_prefix(to, frm_where):
        max_depth = run.env.max_depth
        snapshot = run.loads(run.dumps(moved, max_depth), max_depth)
        run.charge((DUMPS_UNITS + 1) * len(run.dumps(snapshot, max_depth)))
        return doc, add_undo + [{"op": "add", "path": frm_where, "value": snapshot}]
    undo: list[dict[str, Any]] = [{"op": "move", "from": to, "path": frm_where}]
    if add_undo[0]["op"] == "replace":
        # the overwritten value goes back where ``to`` is once the move back has run: putting
        # the moved value back into its array shifts the elements from its index on, and
        # ``to`` may pass through one of them
        back = _after_insert(to, frm_where, key) if type(parent) is list else to
        undo.append({"op": "add", "path": back, "value": add_undo[0]["value"]})
    return doc, undo


def _after_insert(pointer: str, at: str, index: int) -> str:
    """``pointer`` (resolved: array tokens are indexes) once an element has been inserted into
    an array at ``at`` (its pointer, ending in ``/index``): an index at or past the insert on
    the array's path is one more."""
    array = at[: at.rfind("/")]
    if not pointer.startswith(array + "/"):
        return pointer
    token, slash, rest = pointer[len(array) + 1 :].partition("/")
    if int(token) < index:
        return pointer
    return f"{array}/{int(token) + 1}{slash}{rest}"


_STEPS = {
    "test": _test, "remove": _remove, "replace": _replace_or_add, "add": _replace_or_add,
    "copy": _copy, "move": _move,
}  # fmt: skip


def _undo_add(where: str, old: Any) -> dict[str, Any]:
    if old is MISSING:
        return {"op": "remove", "path": where}
    return {"op": "replace", "path": where, "value": old}


def _add_tracked(
    run: _Run, doc: Any, tokens: list[str], path: str, value: Any, size: int
) -> tuple[Any, list[dict[str, Any]]]:
    """RFC 6902 ``add`` of ``value`` (``size`` canonical bytes, 0 for a moved value whose size
    does not change) at ``tokens``; returns the new whole value and the undo operations."""
    if not tokens:
        run.delta += size - run.measure(doc)
        return value, [{"op": "replace", "path": "", "value": doc}]
    parent, key, where = _slot(doc, tokens, path, True)
    change, old = run.put(parent, key, value, size)
    run.delta += change
    return doc, [_undo_add(where, old)]


def _is_prefix(a: str, b: str) -> bool:
    """True when pointer ``a`` is a proper prefix of pointer ``b`` (token-wise)."""
    return len(a) < len(b) and b.startswith(a) and b[len(a)] == "/"


def run_json_patch(
    doc: Any, compiled: list[tuple[str, list[str], str, Any, list[str] | None]]
) -> Any:
    """Apply compiled operations to ``doc`` **in place** and return the result, with no limits
    (see :func:`run_tracked` for the engine's limited, journaled form).

    On error ``doc`` may be partly changed: callers run this on a copy.  Values carried by the
    patch are inserted as they are (copy them first if the patch is reused); ``copy`` copies.
    """
    return run_tracked(doc, compiled, Env())[0]


def apply_json_patch(doc: Any, patch: Any) -> Any:
    """Apply an RFC 6902 JSON Patch (parsed JSON: a list of operation objects) to a copy of ``doc``.

    Returns the new value; ``doc`` and ``patch`` are never mutated.  ``test`` compares canonical
    forms.  Raises :class:`NuifError` (NUIF_PATCH_SCHEMA, NUIF_PATCH_POINTER,
    NUIF_PATCH_TEST_FAILED) whose pointer is into ``patch``.
    """
    compiled = compile_json_patch(patch)
    compiled = [(n, t, p, copy_json(v), s) for n, t, p, v, s in compiled]
    return run_json_patch(copy_json(doc), compiled)
