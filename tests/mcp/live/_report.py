"""What every Python live-client driver prints: one JSON object on stdout (stdlib only).

The drivers run in the clients' own virtual environments (``live/python/*.txt``), so this module
imports nothing but the standard library. Shape, shared with the JavaScript drivers::

    {
        "client": ...,
        "version": ...,
        "mode": ...,
        "protocolVersion": ...,
        "tools": [{"name", "annotations", "hasOutputSchema"}],
        "calls": [{"name", "isError", "structuredContent", "text"}],
        "error": {"message", "code"},
    }  # only when connecting or a call failed
"""

from __future__ import annotations

import json
import sys
import traceback
from importlib.metadata import version
from typing import Any


def load_calls(path: str) -> list[dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        return json.load(f)


def new_report(client: str, distribution: str, mode: str) -> dict[str, Any]:
    return {"client": client, "version": version(distribution), "mode": mode, "calls": []}


def error_of(exc: BaseException) -> dict[str, Any]:
    """The innermost message and JSON-RPC code of ``exc`` (exception groups unwrapped)."""
    while isinstance(exc, BaseExceptionGroup) and exc.exceptions:
        exc = exc.exceptions[0]
    seen = exc
    code = None
    messages = []
    while seen is not None:
        messages.append(f"{type(seen).__name__}: {seen}")
        error = getattr(seen, "error", None)
        code = code or getattr(seen, "code", None) or getattr(error, "code", None)
        seen = seen.__cause__ or seen.__context__
        if len(messages) > 5:
            break
    return {"message": " <- ".join(messages), "code": code if isinstance(code, int) else None}


def emit(report: dict[str, Any], exc: BaseException | None = None) -> None:
    if exc is not None:
        report["error"] = error_of(exc)
        traceback.print_exception(exc, file=sys.stderr)
    sys.stdout.write(json.dumps(report) + "\n")
    sys.stdout.flush()


def tool_entry(name: str, annotations: Any, output_schema: Any) -> dict[str, Any]:
    if annotations is not None and hasattr(annotations, "model_dump"):
        annotations = annotations.model_dump(by_alias=True, exclude_none=True)
    return {"name": name, "annotations": annotations, "hasOutputSchema": bool(output_schema)}
