"""JSON values as the strict parser builds them: canonical equality, deep copy, depth.

This is not a public API.  The patch engine and the diff compare, copy and measure attribute
values and ``meta`` with these (iteratively: no recursion limit on deep values).
"""

from __future__ import annotations

from typing import Any

__all__ = ["CONTAINERS", "copy_json", "json_equal", "value_depth", "value_height"]


def json_equal(a: Any, b: Any) -> bool:
    """Equality of two JSON values as their canonical (RFC 8785) forms compare.

    ``True`` is not ``1``, ``1`` equals ``1.0``, object member order does not matter, array order
    does.  Iterative: no recursion limit.
    """
    stack = [(a, b)]
    pop = stack.pop
    push = stack.append
    while stack:
        x, y = pop()
        tx = type(x)
        ty = type(y)
        if tx is str:
            if ty is not str or x != y:
                return False
        elif tx is bool or x is None or ty is bool or y is None:
            if x is not y:
                return False
        elif tx is int or tx is float:
            if (ty is not int and ty is not float) or x != y:
                return False
        elif tx is dict:
            if ty is not dict or len(x) != len(y):
                return False
            for k, v in x.items():
                if k not in y:
                    return False
                push((v, y[k]))
        elif tx is list:
            if ty is not list or len(x) != len(y):
                return False
            push_all = stack.extend
            push_all(zip(x, y, strict=True))
        else:  # pragma: no cover - values come from the strict parser
            if x != y:
                return False
    return True


def copy_json(value: Any) -> Any:
    """A deep copy of a JSON value (dicts and lists are new; scalars are shared)."""
    t = type(value)
    if t is dict:
        return {k: (copy_json(v) if type(v) in CONTAINERS else v) for k, v in value.items()}
    if t is list:
        return [copy_json(v) if type(v) in CONTAINERS else v for v in value]
    return value


#: the types of JSON arrays and objects as the strict parser builds them
CONTAINERS = (dict, list)


def value_height(value: Any) -> tuple[int, int]:
    """``(value_depth(value), number of arrays and objects and members walked)``."""
    t = type(value)
    if t is not dict and t is not list:
        return 0, 1
    deepest = 0
    count = 0
    stack = [(value, 1)]
    while stack:
        v, d = stack.pop()
        if d > deepest:
            deepest = d
        items = v.values() if type(v) is dict else v
        count += 1 + len(items)
        for x in items:
            tx = type(x)
            if tx is dict or tx is list:
                stack.append((x, d + 1))
    return deepest, count


def value_depth(value: Any) -> int:
    """Nesting of arrays and objects in ``value`` (a scalar is 0, ``[]`` is 1, ``[[1]]`` is 2)."""
    return value_height(value)[0]
