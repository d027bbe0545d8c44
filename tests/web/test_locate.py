"""The playground's JSON Pointer locator (packages/nuif-web/playground/locate.mjs), run under
Node, finds the line and column nuif-core itself reports for the diagnostics it locates at a
value (ids, kinds, duplicate ids), on the cross-surface corpus and indented copies of it; and
the value a patch failure's pointer names."""

from __future__ import annotations

import json
import subprocess

from cross_surface import DOC, documents, patches
from nuif_web_support import WEB, pyodide_dir

import nuif_core
from nuif_core import NuifError

#: the codes whose line and column are those of the value at the pointer (not of a member name)
AT_VALUE = {"NUIF_ID", "NUIF_KIND", "NUIF_DUPLICATE_ID"}
EXTRA = [
    '{"nuif": 0, "root": {"attrs": {"t": "é😀\\u2028"}, "kind": "x", "id": "-bad"}}',
    '{"nuif": 0, "root": {"id": "r", "kind": "x", "children": [{"id": "a~b/c", "kind": "Y"},'
    ' {"kind": "y", "id": "r"}]}}',
]


def _locate(cases: list[tuple[str, str | None]]) -> list[dict[str, int] | None]:
    pyodide_dir()  # node is needed (the skip-or-fail rule of tests/web)
    script = (
        "import { locatePointer } from " + json.dumps(str(WEB / "playground" / "locate.mjs")) + ";"
        "let input = ''; for await (const chunk of process.stdin) input += chunk;"
        "const cases = JSON.parse(input);"
        "console.log(JSON.stringify(cases.map(([t, p]) => locatePointer(t, p))));"
    )
    done = subprocess.run(
        ["node", "--input-type=module", "-e", script],
        input=json.dumps(cases),
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _indented(text: str) -> str | None:
    try:
        return json.dumps(json.loads(text), indent=2, ensure_ascii=False)
    except (ValueError, RecursionError):  # not JSON, or nested past Python's json
        return None


def test_locations_agree_with_nuif_cores_diagnostics() -> None:
    texts = [*documents(), *EXTRA]
    texts += [t for t in map(_indented, texts) if t]
    cases, expected = [], []
    for text in texts:
        for d in nuif_core.validate(text).diagnostics:
            if d.code in AT_VALUE and d.line is not None:
                cases.append((text, d.pointer))
                expected.append({"line": d.line, "column": d.column})
    assert len(cases) >= 12 and any(e["line"] > 1 for e in expected)
    assert _locate(cases) == expected


def test_patch_failures_are_located_at_the_value_their_pointer_names() -> None:
    cases, expected = [], []
    for patch in patches():
        for text in (patch, _indented(patch)):
            if text is None:
                continue
            try:
                nuif_core.apply_patch(DOC, text)
            except NuifError as err:
                if err.line is None and err.pointer:
                    cases.append((text, err.pointer))
                    expected.append(err.pointer)
    assert len(cases) >= 4
    for (text, pointer), at in zip(cases, _locate(cases), strict=True):
        assert at is not None, pointer
        lines = text.split("\n")
        line = lines[at["line"] - 1]
        rest = line[at["column"] - 1 :]  # ASCII patches: columns are characters
        # the text there is the JSON of the value the pointer names
        value = json.loads(text)
        for token in pointer.split("/")[1:]:
            value = value[int(token)] if isinstance(value, list) else value[token]
        first = json.dumps(value, ensure_ascii=False).split("\n")[0][:20]
        assert (
            rest.replace(": ", ":")
            .replace(", ", ",")
            .startswith(first.replace(": ", ":").replace(", ", ",")[:10])
        ), (pointer, rest, first)


def test_what_cannot_be_located_is_none() -> None:
    text = '{"a": [1, {"b": 2}], "c~/": 3}'
    assert _locate(
        [
            (text, "/a/1/b"),
            (text, "/c~0~1"),
            (text, ""),
            (text, "/x"),
            (text, "/a/2"),
            (text, "/a/01"),
            (text, "a"),
            (text, None),
        ]
    ) == [
        {"line": 1, "column": 17},
        {"line": 1, "column": 29},
        {"line": 1, "column": 1},
        None,
        None,
        None,
        None,
        None,
    ]
