"""Cross-surface: under Node, nuif-web (its WebAssembly core for validate, inspect and
canonicalize; the pure wheel in Pyodide for applyPatch and diff) gives the same canonical bytes,
hashes, error codes, messages, pointers, lines and columns as the direct API on the shared corpus
(tests/cross_surface.py, which the CLI and MCP tests also run).  One Pyodide serves every request
(the ``node_lines`` fixture); the JavaScript-side argument checks, the module without Python and
start failures are tested here too."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from cross_surface import BIG_DOC, DOC, DUPLICATE_ID_DOC, documents, patches
from nuif_web_support import LINES, PYODIDE_PIN, NodeLines, pyodide_dir, wasm_module

import nuif_core
from nuif_core import NuifError, catalogs

pytestmark = pytest.mark.timeout(600)


def _direct(op: str, args: list[Any]) -> dict[str, Any]:
    """What the direct API gives, in the shape of a nuif-web-lines answer."""
    try:
        if op == "validate":
            return {"ok": nuif_core.validate(args[0]).to_dict()}
        if op == "inspect":
            return {"ok": nuif_core.inspect(args[0], max_outline_nodes=50).to_dict()}
        if op == "canonicalize":
            return {"ok": nuif_core.canonicalize(args[0]).to_dict()}
        if op == "applyPatch":
            return {"ok": nuif_core.apply_patch(args[0], args[1], inverse=True).to_dict()}
        assert op == "diff"
        return {"ok": nuif_core.diff(args[0], args[1]).decode("utf-8")}
    except NuifError as err:
        return {"error": err.to_dict()}


def _requests() -> list[tuple[str, list[Any]]]:
    requests: list[tuple[str, list[Any]]] = []
    for doc in documents():
        requests.append(("validate", [doc]))
        requests.append(("inspect", [doc, {"maxOutlineNodes": 50}]))
        requests.append(("canonicalize", [doc]))
    for patch in patches():
        requests.append(("applyPatch", [DOC, patch, {"inverse": True}]))
    valid = [d for d in documents() if nuif_core.validate(d).valid]
    for a in valid[:4]:
        for b in valid[:4]:
            requests.append(("diff", [a, b]))
    requests.append(("diff", [DOC, "{}"]))  # an invalid second document
    return requests


def test_the_module_is_this_version_with_python_loaded(node_lines: NodeLines) -> None:
    assert node_lines.ready["implementation"] == "wasm"
    assert node_lines.ready["python"] is True
    assert node_lines.ready["version"] == nuif_core.__version__
    assert node_lines.ready["pyodide"] == PYODIDE_PIN


def test_corpus_gives_the_direct_api_bytes_hashes_and_error_locations(
    node_lines: NodeLines,
) -> None:
    requests = _requests()
    answers = node_lines.many(requests)
    mismatches = []
    outcomes: dict[str, set[str]] = {}
    for (op, args), answer in zip(requests, answers, strict=True):
        answer.pop("id")
        expected = _direct(op, args)
        if answer != expected:
            mismatches.append((op, str(args[0])[:60], answer, expected))
        outcomes.setdefault(op, set()).add(next(iter(answer)))
    assert mismatches == []
    # the corpus exercises success and failure of every operation but validate (which reports)
    assert outcomes == {
        "validate": {"ok"},
        "inspect": {"ok", "error"},
        "canonicalize": {"ok", "error"},
        "applyPatch": {"ok", "error"},
        "diff": {"ok", "error"},
    }


def test_canonical_bytes_and_hashes_are_the_compiled_codecs(node_lines: NodeLines) -> None:
    # byte for byte, including the non-ASCII text and the doubles beyond 2^53
    docs = [DOC, BIG_DOC, '{"nuif":0,"root":{"id":"r","kind":"x","attrs":{"t":"é\\u2028😀"}}}']
    answers = node_lines.many([("canonicalize", [d]) for d in docs])
    for doc, answer in zip(docs, answers, strict=True):
        expected = nuif_core.canonicalize(doc)
        assert answer["ok"]["canonical"].encode("utf-8") == expected.canonical
        assert answer["ok"]["hash"] == expected.hash == nuif_core.document_hash(doc)


def test_errors_carry_code_message_pointer_line_and_column(node_lines: NodeLines) -> None:
    text = (
        '{"nuif": 0,\n "root": {"id": "a", "kind": "x",\n  "children": [{"id": "a", "kind": "y"}]}}'
    )
    [answer] = node_lines.many([("canonicalize", [text])])
    assert answer["error"] == {
        "code": "NUIF_DUPLICATE_ID",
        "message": 'id "a" is used twice (first at /root/id)',
        "pointer": "/root/children/0/id",
        "line": 3,
        "column": 23,
    }
    report = node_lines.send("validate", DUPLICATE_ID_DOC)["ok"]
    assert report == nuif_core.validate(DUPLICATE_ID_DOC).to_dict()
    assert report["diagnostics"][0]["line"] == 1 and report["diagnostics"][0]["column"] > 1


@pytest.mark.parametrize(
    ("op", "args", "name", "message"),
    [
        ("canonicalize", [5], "TypeError", "canonicalize: text must be a string or a Uint8Array"),
        ("canonicalJson", [None], "TypeError", "canonicalJson: text must be a string"),
        ("validate", [DOC, {"catalog": 3}], "TypeError", "validate: catalog must be a string"),
        ("applyPatch", [DOC, {"nuif_patch": 0}], "TypeError", "applyPatch: patch must be a string"),
        ("diff", [DOC], "TypeError", "diff: b must be a string"),
        (
            "validate",
            [DOC, {"maxDiagnostics": 0}],
            "RangeError",
            "maxDiagnostics must be an integer of at least 1",
        ),
        (
            "inspect",
            [DOC, {"maxOutlineNodes": 1.5}],
            "RangeError",
            "maxOutlineNodes must be an integer",
        ),
        ("nope", [DOC], "TypeError", 'unknown op "nope"'),
    ],
)
def test_bad_arguments_are_javascript_errors_before_the_core_runs(
    node_lines: NodeLines, op: str, args: list[Any], name: str, message: str
) -> None:
    answer = node_lines.send(op, *args)
    assert answer["throw"]["name"] == name
    assert message in answer["throw"]["message"]
    # ... and the module still answers afterwards
    assert node_lines.send("canonicalize", DOC)["ok"]["hash"] == nuif_core.document_hash(DOC)


def test_a_missing_wheel_fails_the_start_with_its_path(tmp_path: Path) -> None:
    pyodide_dir()
    missing = tmp_path / "nuif_core-0.0.0-py3-none-any.whl"
    done = subprocess.run(
        ["node", str(LINES), str(missing)],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 1
    assert str(missing) in done.stderr and done.stdout == ""


def _node(script: str) -> list[str]:
    """The lines a Node ES module script (importing nuif.mjs as ``nuif``) prints."""
    wasm_module()
    source = f"import * as nuif from {json.dumps(str(LINES.parent.parent / 'src' / 'nuif.mjs'))};\n"
    done = subprocess.run(
        ["node", "--input-type=module", "-e", source + script],
        capture_output=True,
        text=True,
        timeout=120,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout.splitlines()


def test_without_a_wheel_the_core_answers_and_python_operations_say_what_they_need() -> None:
    doc = json.dumps(DOC)
    lines = _node(
        "const api = await nuif.loadNuif();\n"
        "console.log(JSON.stringify([api.implementation, api.version, api.pythonReady]));\n"
        f"console.log(JSON.stringify(api.canonicalize({doc})));\n"
        'console.log(api.canonicalJson(\'{"b": [1.0, 1e2], "a": "\\u00e9"}\'));\n'
        "for (const call of [() => api.applyPatch('{}', '{}'), () => api.diff('{}', '{}'),\n"
        "    () => api.basicCatalog(), () => api.validate('{}', { catalog: '{}' })]) {\n"
        "  try { call(); console.log('no error'); }\n"
        "  catch (e) { console.log(JSON.stringify([e.name, e instanceof nuif.PythonRequiredError,\n"
        "    e.operation, e.message])); }\n"
        "}\n"
    )
    assert json.loads(lines[0]) == ["wasm", nuif_core.__version__, False]
    assert json.loads(lines[1]) == nuif_core.canonicalize(DOC).to_dict()
    assert lines[2] == '{"a":"é","b":[1,100]}'
    operations = ["applyPatch", "diff", "basicCatalog", "validate with a catalog"]
    for line, operation in zip(lines[3:], operations, strict=True):
        name, is_class, named, message = json.loads(line)
        assert (name, is_class, named) == ("PythonRequiredError", True, operation)
        assert message.startswith(f"nuif-web: {operation} runs nuif-core's Python twin in Pyodide")
        assert "nuif.enablePython({ wheel })" in message


def test_enable_python_later_makes_patches_work_and_reads_bytes(pure_wheel: Path) -> None:
    pyodide_dir()
    patch = json.dumps(
        {
            "nuif_patch": 0,
            "transactions": [{"ops": [{"op": "set", "id": "r", "attr": "t", "value": "é"}]}],
        }
    )
    doc = '{"nuif": 0, "root": {"id": "r", "kind": "screen"}}'
    lines = _node(
        "const api = await nuif.loadNuif();\n"
        "const bytes = (s) => new TextEncoder().encode(s);\n"
        f"const first = api.enablePython({{ wheel: {json.dumps(str(pure_wheel))} }});\n"
        f"const second = api.enablePython({{ wheel: 'ignored: the first start is shared' }});\n"
        "await Promise.all([first, second]);\n"
        "console.log(JSON.stringify([first === second, api.pythonReady]));\n"
        f"console.log(JSON.stringify(api.applyPatch(bytes({json.dumps(doc)}), bytes({json.dumps(patch)}))));\n"
        f"console.log(JSON.stringify(api.validate(bytes({json.dumps(doc)}), {{ catalog: api.basicCatalog() }})));\n"
    )
    assert json.loads(lines[0]) == [True, True]
    assert json.loads(lines[1]) == nuif_core.apply_patch(doc, patch).to_dict()
    want = nuif_core.validate(doc, catalog=catalogs.basic_text()).to_dict()
    assert json.loads(lines[2]) == want


@pytest.mark.parametrize(
    ("call", "message"),
    [
        ("nuif.loadNuif({ indexURL: '/pyodide/' })", "loadNuif: `indexURL` is where Pyodide is served"),
        ("(await nuif.loadNuif()).enablePython({})", "enablePython: `wheel` (the pure nuif-core wheel) is required"),
        ("(await nuif.loadNuif()).enablePython({ wheel: 5 })", "enablePython: `wheel` is the pure nuif-core wheel"),
    ],
)  # fmt: skip
def test_start_options_without_a_wheel_are_type_errors(call: str, message: str) -> None:
    [line] = _node(
        f"try {{ await {call}; console.log('started'); }}\n"
        "catch (e) { console.log(e.name + ': ' + e.message); }\n"
    )
    assert line.startswith("TypeError: " + message)


def test_a_failed_start_can_be_tried_again(tmp_path: Path, pure_wheel: Path) -> None:
    pyodide_dir()
    missing = tmp_path / "nuif_core-0.0.0-py3-none-any.whl"
    lines = _node(
        "const api = await nuif.loadNuif();\n"
        f"try {{ await api.enablePython({{ wheel: {json.dumps(str(missing))} }}); }}\n"
        "catch (e) { console.log(JSON.stringify([e.message.includes('nuif_core-0.0.0'), api.pythonReady])); }\n"
        f"await api.enablePython({{ wheel: {json.dumps(str(pure_wheel))} }});\n"
        "console.log(JSON.stringify([api.pythonReady, api.basicCatalog().length > 0]));\n"
    )
    assert [json.loads(x) for x in lines] == [[True, False], [True, True]]
