"""The four tools: typed arguments -> one nuif-core call -> typed result.

Every tool is a pure function of its arguments: same input, same output, whatever came before on
the connection. Each runs synchronously on the event loop thread (the core is CPU-bound and the
server has exactly one thread).

Outcomes:

* success -> ``structuredContent`` (the core's ``to_dict()`` shape, checked against the declared
  output model) and one text block with the same JSON, compact;
* input the tool cannot process (arguments, document, patch, limits) -> a tool result with
  ``isError: true`` whose text is ``str(NuifError)``, starting with the stable code
  (``NUIF_DUPLICATE_ID: ...``), and the error's fields under ``_meta["dev.nuif/error"]``;
  ``validate`` is the exception by design: an invalid document is a success (``valid: false``
  and its diagnostics), and only bad arguments or a text over the inline limit are errors;
* anything else is a server fault, raised to the request layer, which logs the traceback on stderr
  and answers JSON-RPC ``-32603`` without details.
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import mcp_types as types
import pydantic_core
from pydantic import BaseModel, ValidationError

import nuif_core
from nuif_core import Limits, NuifError
from nuif_mcp._models import (
    ApplyPatchArguments,
    ApplyPatchResult,
    CanonicalizeArguments,
    CanonicalizeResult,
    InspectArguments,
    InspectResult,
    ValidateArguments,
    ValidateResult,
)

__all__ = [
    "ERROR_META_KEY",
    "JSON_SCHEMA_DIALECT",
    "TOOLS",
    "ToolSpec",
    "call_tool",
    "tool_definitions",
    "warm_up",
]

logger = logging.getLogger("nuif_mcp.tools")

#: Key of the structured error in a failed tool result's ``_meta``.
ERROR_META_KEY = "dev.nuif/error"

JSON_SCHEMA_DIALECT = "https://json-schema.org/draft/2020-12/schema"

#: The inline profile: 1 MiB of document text and 1 MiB of patch text.
LIMITS: Limits = Limits.MCP

_ANNOTATIONS: dict[str, bool] = {
    "read_only_hint": True,
    "destructive_hint": False,
    "idempotent_hint": True,
    "open_world_hint": False,
}

#: The examples below are real output: tests/mcp/test_documented_examples.py keeps them so.
_DUPLICATE_ID_ERROR = (
    'NUIF_DUPLICATE_ID: id "a" is used twice (first at /root/children/0/id) '
    "(at /root/children/1/id, line 1 column 84)"
)
_ARGUMENTS_ERROR = "NUIF_ARGUMENTS: unknown argument 'extra'"
_DUPLICATE_ID_DIAGNOSTIC = (
    '{"code":"NUIF_DUPLICATE_ID","message":"id \\"a\\" is used twice (first at '
    '/root/children/0/id)","pointer":"/root/children/1/id","line":1,"column":84}'
)

_PATCH_ERROR = (
    'NUIF_PATCH_NOT_FOUND: transactions/0/ops/0 (remove): no node has the id "zz" '
    "(at /transactions/0/ops/0/id)"
)
_ARGUMENTS_NOTE = (
    "NUIF_ARGUMENTS means the arguments themselves were wrong (unknown name, wrong type), for "
    f"example `{_ARGUMENTS_ERROR}`"
)
_DOCUMENT_TOO_LARGE = "NUIF_TOO_LARGE means the document text is over the 1 MiB inline limit"


def _errors_note(invalid: str, example: str, limits: str) -> str:
    """How inspect, canonicalize and apply-patch report input they cannot process."""
    return (
        "Results: a successful call has isError false and structuredContent matching the output "
        "schema (and the same JSON as text). Errors: when the input cannot be processed (bad "
        f"arguments, {invalid}, a limit) the result has isError true and no "
        "structuredContent; its text starts with a stable NUIF_* code, then says what is wrong and "
        f"where (JSON Pointer, line, column), for example `{example}`: fix the input and call "
        f"again. {_ARGUMENTS_NOTE}; {limits}."
    )


#: validate reports an invalid document as a normal result; only bad calls are errors.
_VALIDATE_NOTE = (
    "Results: an invalid document is a normal result, not an error: isError is false, `valid` is "
    "false, `hash` is null and `diagnostics` lists every problem, for example "
    f"`{_DUPLICATE_ID_DIAGNOSTIC}`. Errors: only a call the tool cannot process has isError true "
    "(no structuredContent; the text starts with a stable NUIF_* code): "
    f"{_ARGUMENTS_NOTE}; {_DOCUMENT_TOO_LARGE}."
)
_DOCUMENT_NOTE = _errors_note("an invalid document", _DUPLICATE_ID_ERROR, _DOCUMENT_TOO_LARGE)
_PATCH_NOTE = _errors_note(
    "an invalid document or patch",
    _PATCH_ERROR,
    "NUIF_TOO_LARGE means a text, or the patched document, would exceed the 1 MiB inline limit; "
    "NUIF_LIMIT_WORK means a patch repeats more work than its size allows: split it",
)


@dataclass(frozen=True, slots=True)
class ToolSpec:
    name: str
    title: str
    description: str
    arguments: type[BaseModel]
    result: type[BaseModel]
    run: Callable[[Any], dict[str, Any]]


def _check_size(what: str, text: str, limit: int) -> None:
    """Refuse inline text above ``limit`` bytes of UTF-8 before the core sees it."""
    n = len(text)
    if n * 4 <= limit:  # no character takes more than 4 bytes
        return
    size = n if n > limit else len(text.encode("utf-8", "surrogatepass"))
    if size > limit:
        raise NuifError.too_large(
            f"the {what} text is {size} bytes of UTF-8",
            limit,
            limit_name="the inline limit of this server",
            advice=" (use the nuif CLI or the Python API for larger documents)",
        )


def _validate(args: ValidateArguments) -> dict[str, Any]:
    _check_size("document", args.document, LIMITS.max_document_bytes)
    # a catalog's text is bounded by the core (1 MiB, NUIF-0 §9.6), as on every surface
    return nuif_core.validate(args.document, limits=LIMITS, catalog=args.catalog).to_dict()


def _inspect(args: InspectArguments) -> dict[str, Any]:
    _check_size("document", args.document, LIMITS.max_document_bytes)
    return nuif_core.inspect(
        args.document, max_outline_nodes=args.max_outline_nodes, limits=LIMITS
    ).to_dict()


def _canonicalize(args: CanonicalizeArguments) -> dict[str, Any]:
    _check_size("document", args.document, LIMITS.max_document_bytes)
    return nuif_core.canonicalize(args.document, limits=LIMITS).to_dict()


def _apply_patch(args: ApplyPatchArguments) -> dict[str, Any]:
    _check_size("document", args.document, LIMITS.max_document_bytes)
    _check_size("patch", args.patch, LIMITS.max_patch_bytes)
    result = nuif_core.apply_patch(
        args.document,
        args.patch,
        inverse=args.include_inverse,
        limits=LIMITS,
        catalog=args.catalog,
    )
    return result.to_dict()


TOOLS: tuple[ToolSpec, ...] = (
    ToolSpec(
        name="validate",
        title="Validate a NUIF document",
        description=(
            "Check a NUIF document (a JSON UI tree of nodes with unique ids) against every rule of "
            "NUIF-0 and report all problems at once. The argument `document` holds the document's JSON "
            "text. `valid` says whether the document is valid, `hash` is its canonical hash when it "
            "is, and `diagnostics` lists each problem with a stable code, a message, a JSON Pointer "
            "and a line/column. Use it before relying on a document you wrote or received. With "
            "`catalog` (a kind catalog's JSON text), each node is also checked against the catalog: "
            "a kind it does not list (NUIF_CATALOG_KIND), attributes its schema refuses "
            "(NUIF_CATALOG_ATTRS, e.g. a misspelled or mistyped attribute), children it does not "
            "allow (NUIF_CATALOG_CHILDREN); a catalog that is not valid gives one NUIF_CATALOG "
            "diagnostic located in the catalog. " + _VALIDATE_NOTE
        ),
        arguments=ValidateArguments,
        result=ValidateResult,
        run=_validate,
    ),
    ToolSpec(
        name="inspect",
        title="Inspect a NUIF document",
        description=(
            "Summarize a valid NUIF document without returning it: its canonical hash, whether the text "
            "is already canonical, sizes in bytes, node count, depth, how many nodes of each kind, the "
            "root, and a bounded outline (id, kind, depth, child count per node, in document order; "
            "`max_outline_nodes` bounds it, `truncated` says it was cut). Use it to understand a large "
            "document cheaply before editing it. An invalid document is an error result (the first "
            "problem); call validate to list all problems. " + _DOCUMENT_NOTE
        ),
        arguments=InspectArguments,
        result=InspectResult,
        run=_inspect,
    ),
    ToolSpec(
        name="canonicalize",
        title="Canonicalize a NUIF document",
        description=(
            "Return the canonical text of a NUIF document (RFC 8785 JSON of the normalized document: "
            "sorted keys, no whitespace, empty attrs/children/meta removed), its hash "
            '("sha256:<hex>") and whether the input differed from it. Documents with the same meaning '
            "have the same canonical text and hash, so compare documents by hash. " + _DOCUMENT_NOTE
        ),
        arguments=CanonicalizeArguments,
        result=CanonicalizeResult,
        run=_canonicalize,
    ),
    ToolSpec(
        name="apply-patch",
        title="Apply a NUIF semantic patch",
        description=(
            "Apply a NUIF semantic patch to a document and return the new document as canonical text, "
            "with its hash, the input's hash (`base`), whether anything changed, operation counts and, "
            "if `include_inverse` is true, the inverse patch. Nothing is stored or written: the result "
            "is a new value, and the caller keeps it. `document` holds the document's JSON text and "
            "`patch` the patch's JSON text; operations address nodes by id. The patch is atomic: if any "
            "operation fails nothing is applied and the error names the operation "
            "(transactions/<i>/ops/<j>). If the patch has a `base`, it must equal the document's hash "
            "(NUIF_PATCH_BASE_MISMATCH otherwise). With `catalog` (a kind catalog's JSON text), a "
            "patch whose result breaks the catalog is refused with the first NUIF_CATALOG_* "
            "problem of the patched document. " + _PATCH_NOTE
        ),
        arguments=ApplyPatchArguments,
        result=ApplyPatchResult,
        run=_apply_patch,
    ),
)

_BY_NAME: dict[str, ToolSpec] = {spec.name: spec for spec in TOOLS}


def _schema(model: type[BaseModel]) -> dict[str, Any]:
    return {"$schema": JSON_SCHEMA_DIALECT, **model.model_json_schema()}


def tool_definitions() -> list[types.Tool]:
    """The ``tools/list`` entries: schemas generated from the models, annotations, titles."""
    return [
        types.Tool(
            name=spec.name,
            title=spec.title,
            description=spec.description,
            input_schema=_schema(spec.arguments),
            output_schema=_schema(spec.result),
            annotations=types.ToolAnnotations(title=spec.title, **_ANNOTATIONS),
        )
        for spec in TOOLS
    ]


def _arguments_error(exc: ValidationError) -> NuifError:
    """Describe what is wrong with the arguments, without echoing their (possibly huge) values."""
    problems: list[str] = []
    for err in exc.errors(include_url=False, include_input=False):
        where = ".".join(str(part) for part in err["loc"]) or "arguments"
        kind = err["type"]
        if kind == "extra_forbidden":
            problems.append(f"unknown argument {where!r}")
        elif kind == "missing":
            problems.append(f"missing required argument {where!r}")
        else:
            problems.append(f"{where}: {err['msg'].lower()}")
    return NuifError("NUIF_ARGUMENTS", "; ".join(problems))


def _error_result(err: NuifError) -> types.CallToolResult:
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=str(err))],
        is_error=True,
        _meta={ERROR_META_KEY: err.to_dict()},
    )


def call_tool(name: str, arguments: dict[str, Any] | None) -> types.CallToolResult | None:
    """Run tool ``name``; ``None`` when there is no such tool (a protocol fault for the caller)."""
    spec = _BY_NAME.get(name)
    if spec is None:
        return None
    try:
        try:
            args = spec.arguments.model_validate({} if arguments is None else arguments)
        except ValidationError as exc:
            raise _arguments_error(exc) from None
        value = spec.result.model_validate(spec.run(args)).model_dump(mode="json")
    except NuifError as err:
        return _error_result(err)
    text = pydantic_core.to_json(value).decode("utf-8")
    return types.CallToolResult(
        content=[types.TextContent(type="text", text=text)],
        structured_content=value,
        is_error=False,
    )


_WARM_UP_DOCUMENT = (
    '{"meta": {"\\u00e9t\\u00e9": [1.5e3, -0, "\\ud83d\\ude00"], "a\\u0000": null}, "nuif": 0, '
    '"root": {"kind": "screen", "id": "w", "attrs": {"label": "\\u00fc\\u2028", "b": true}, '
    '"children": [{"id": "w.1", "kind": "ui:box"}]}}'
)


#: a small catalog the warm-up checks its document against (the document breaks it)
_WARM_UP_CATALOG = (
    '{"nuif_catalog": 0, "closed": true, "kinds": {"screen": {"attrs": {"properties": '
    '{"label": {"pattern": "^[a-z]+$", "multipleOf": 2}, "b": {"const": {"x": [1]}}}, '
    '"additionalProperties": false}, "children": {"kinds": ["button"]}}}}'
)


def warm_up() -> None:
    """Run every tool once, on valid and invalid input, at start-up.

    The core and the libraries below it load some modules lazily (codecs, for example); doing
    each kind of work once here keeps those imports, and the files they open, out of serving time.
    """
    samples: list[tuple[str, dict[str, Any]]] = [
        ("validate", {"document": _WARM_UP_DOCUMENT}),
        (
            "validate",
            {
                "document": '{"nuif": 0, "root": {"id": "a", "kind": "x", "children": [{"id": "a", "kind": "x"}]}}'
            },
        ),
        ("validate", {"document": '{\n  "nuif": 0,\n  "root": \u00e9'}),
        ("inspect", {"document": _WARM_UP_DOCUMENT, "max_outline_nodes": 1}),
        ("inspect", {"document": _WARM_UP_DOCUMENT, "max_outline_nodes": "1", "extra": 1}),
        ("canonicalize", {"document": _WARM_UP_DOCUMENT}),
        ("canonicalize", {"document": "[1e400]"}),
        (
            "apply-patch",
            {
                "document": _WARM_UP_DOCUMENT,
                "patch": '{"nuif_patch": 0, "transactions": []}',
                "include_inverse": True,
            },
        ),
        ("apply-patch", {"document": _WARM_UP_DOCUMENT, "patch": "[]"}),
        # kind catalogs: a catalog read, a document checked against it (a pattern, a number, a
        # member no schema admits, a failing object shown in a message) and a patch refused
        ("validate", {"document": _WARM_UP_DOCUMENT, "catalog": _WARM_UP_CATALOG}),
        (
            "apply-patch",
            {
                "document": _WARM_UP_DOCUMENT,
                "patch": '{"nuif_patch": 0, "transactions": []}',
                "catalog": _WARM_UP_CATALOG,
            },
        ),
        ("validate", {"document": _WARM_UP_DOCUMENT, "catalog": "{"}),
    ]
    for name, arguments in samples:
        try:
            call_tool(name, arguments)
        except Exception:  # a core without a function yet: that tool will answer -32603 when called
            logger.debug("warm-up of %s failed", name, exc_info=True)
