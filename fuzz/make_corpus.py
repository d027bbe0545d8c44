"""Regenerate the committed seed corpus ``fuzz/corpus/<target>/`` (deterministic).

    uv run python fuzz/make_corpus.py [--testdata tests/data]

Sources: JSONTestSuite and the cyberphone RFC 8785 vectors in ``tests/data``, the
example document and patch of NUIF-0, hand-written edge cases (the big-integral band, depth,
noncharacters), one tiny package, and a few "recipe" inputs (NUL + seeded random bytes) that
drive each target's structured generator.  Files are named by content hash, so regenerating
is idempotent.
"""

from __future__ import annotations

import argparse
import hashlib
import io
import json
import random
import shutil
import stat
import sys
import zipfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
REPO = HERE.parent

DOC = {
    "nuif": 0,
    "root": {
        "id": "login",
        "kind": "screen",
        "attrs": {"title": "Sign in"},
        "children": [
            {"id": "login.email", "kind": "input", "attrs": {"type": "email", "label": "Email"}},
            {
                "id": "login.submit",
                "kind": "button",
                "attrs": {"label": "Sign in", "primary": True},
            },
        ],
    },
    "meta": {"author": "design-team"},
}
SMALL = {"nuif": 0, "root": {"id": "a", "kind": "screen", "children": [{"id": "b", "kind": "x"}]}}

JSONTESTSUITE = [
    "y_object_basic.json",
    "y_array_arraysWithSpaces.json",
    "y_number_real_capital_e_pos_exp.json",
    "y_string_unicode_escaped_double_quote.json",
    "y_string_surrogates_U+1D11E_MUSICAL_SYMBOL_G_CLEF.json",
    "y_structure_whitespace_array.json",
    "y_object_duplicated_key.json",
    "y_string_nonCharacterInUTF-8_U+FFFF.json",
    "y_number_negative_zero.json",
    "y_string_escaped_control_character.json",
    "y_string_u+2028_line_sep.json",
    "n_array_extra_comma.json",
    "n_number_0.1.2.json",
    "n_string_unescaped_tab.json",
    "n_structure_object_unclosed_no_value.json",
    "n_object_trailing_comment.json",
    "n_number_NaN.json",
    "i_number_huge_exp.json",
    "i_number_too_big_pos_int.json",
    "i_string_1st_surrogate_but_2nd_missing.json",
    "i_string_UTF-8_invalid_sequence.json",
    "i_structure_UTF-8_BOM_empty_object.json",
    "i_number_real_underflow.json",
    "i_string_overlong_sequence_2_bytes.json",
]

EDGE_TEXTS = [
    b"3.333333333333333e20",
    b"[9007199254740992.0, 1e21, 1e-7, -0.0, 5e-324]",
    b"9007199254740991",
    b"[9007199254740992, -1152921504606847000, 100000000000000000000, 999999999999999900000]",
    b"[9007199254740993, 1000000000000000000000, 1152921504606846976]",
    b'{"\\ud83d\\ude00": 1, "\\ue000": 2, "a": 3}',
    b'"\\ufdd0"',
    b"[" * 129 + b"]" * 129,
    b'{"a":1,"a":2}',
    b'"\\u0000\\u001f\\u2028/"',
    b"1E400",
    b"[1,2,3]   ",
]


def _write(folder: Path, blobs: list[bytes]) -> None:
    if folder.exists():
        shutil.rmtree(folder)
    folder.mkdir(parents=True)
    for blob in blobs:
        (folder / hashlib.sha1(blob).hexdigest()[:16]).write_bytes(blob)


def _recipes(seed: str, n: int) -> list[bytes]:
    rnd = random.Random(seed)
    return [b"\x00" + rnd.randbytes(rnd.randint(24, 200)) for _ in range(n)]


def _dump(value: object) -> bytes:
    return json.dumps(value, ensure_ascii=False, indent=1).encode()


def main() -> None:
    ap = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    ap.add_argument("--testdata", type=Path, default=REPO / "tests" / "data")
    args = ap.parse_args()
    testdata = args.testdata
    import nuif_core
    from nuif_core import package

    suite = testdata / "JSONTestSuite" / "test_parsing"
    cyber = sorted((testdata / "jcs-cyberphone" / "testdata" / "input").glob("*.json"))
    codec = [(suite / name).read_bytes() for name in JSONTESTSUITE]
    codec += [p.read_bytes() for p in cyber] + EDGE_TEXTS + _recipes("codec", 6)
    _write(HERE / "corpus" / "codec", codec)
    sys.path.insert(0, str(REPO))  # the benchmarks package (run as a script, fuzz/ is first)

    doc_text = _dump(DOC)
    broken = [
        {**DOC, "nuif": 1},
        {"nuif": 0},
        {"nuif": 0, "root": {"id": "-x", "kind": "Bad"}},
        {"nuif": 0, "root": {"id": "a", "kind": "k", "children": [{"id": "a", "kind": "k"}]}},
        {
            "nuif": 0,
            "root": {"id": "a", "kind": "k", "attrs": {"1bad": 1, "ok": [3.333333333333333e20]}},
        },
        {"nuif": 0, "root": {"id": "a", "kind": "k", "attrs": {}, "children": []}, "meta": {}},
    ]
    big = {"nuif": 0, "root": {"id": "a", "kind": "k", "attrs": {"n": [1e20, 2.0**60, -(2**53)]}}}
    documents = [doc_text, nuif_core.canonicalize(doc_text).canonical, _dump(SMALL)]
    documents += [_dump(big), nuif_core.canonicalize(_dump(big)).canonical]
    documents += [_dump(d) for d in broken] + [b'{"nuif":0,"root":{"id":"a","kind":"k"},"root":1}']
    _write(HERE / "corpus" / "document", documents + _recipes("document", 12))

    base = nuif_core.document_hash(doc_text)
    patches = [
        {
            "nuif_patch": 0,
            "base": base,
            "transactions": [
                {
                    "label": "make submit secondary",
                    "ops": [
                        {"op": "set", "id": "login.submit", "attr": "primary", "value": False},
                        {
                            "op": "insert",
                            "parent": "login",
                            "index": 1,
                            "node": {
                                "id": "login.password",
                                "kind": "input",
                                "attrs": {"type": "password"},
                            },
                        },
                    ],
                }
            ],
        },
        {
            "nuif_patch": 0,
            "transactions": [
                {
                    "ops": [
                        {"op": "move", "id": "login.email", "parent": "login", "index": 1},
                        {"op": "retype", "id": "login.submit", "kind": "ui:button"},
                        {"op": "rename", "id": "login.email", "to": "login.mail"},
                    ]
                }
            ],
        },
        {
            "nuif_patch": 0,
            "transactions": [
                {
                    "ops": [
                        {
                            "op": "edit",
                            "id": "login.email",
                            "attr": "label",
                            "patch": [
                                {"op": "replace", "path": "", "value": {"a": [1, 2]}},
                                {"op": "add", "path": "/a/-", "value": 3},
                                {"op": "test", "path": "/a/2", "value": 3.0},
                            ],
                        },
                        {
                            "op": "meta",
                            "patch": [
                                {"op": "add", "path": "/v", "value": 1},
                                {"op": "remove", "path": "/author"},
                            ],
                        },
                        {"op": "unset", "id": "login", "attr": "title"},
                        {
                            "op": "test",
                            "id": "login.submit",
                            "kind": "button",
                            "attr": "label",
                            "value": "Sign in",
                        },
                    ]
                }
            ],
        },
        {
            "nuif_patch": 0,
            "transactions": [
                {
                    "ops": [
                        {"op": "remove", "id": "login.email"},
                        {"op": "replace", "id": "login", "node": {"id": "login", "kind": "screen"}},
                    ]
                }
            ],
        },
        {
            "nuif_patch": 0,
            "transactions": [{"ops": [{"op": "move", "id": "login", "parent": "login.email"}]}],
        },
        {"nuif_patch": 0, "base": "sha256:" + "0" * 64, "transactions": []},
    ]
    pairs = [doc_text + b"\x1e" + _dump(p) for p in patches]
    pairs.append(
        _dump(SMALL)
        + b"\x1e"
        + b'{"nuif_patch":0,"transactions":[{"ops":[{"op":"set","id":"b","attr":"n","value":3e20}]}]}'
    )
    _write(HERE / "corpus" / "patch", pairs + _recipes("patch", 14))

    # cost: the patch pairs, the adversarial shapes small enough for -max_len, and five recipes
    # per generator of fuzz_cost.py (the last byte picks the generator: atheris reads numbers
    # from the end of the input)
    small = b'{"nuif":0,"root":{"id":"r","kind":"k","attrs":{"x":[0]}}}'
    doubling = [{"op": "add", "path": "/a", "value": [0]}]
    doubling += [{"op": "copy", "from": "/a", "path": "/a/-"}] * 26
    self_copies = [{"op": "copy", "from": "", "path": "/-"}] * 26
    loop = [{"op": "copy", "from": "/a", "path": "/b"}, {"op": "remove", "path": "/b"}] * 60
    kids = [{"id": f"n{i}", "kind": "item"} for i in range(100)]
    wide = json.dumps(
        {"nuif": 0, "root": {"id": "root", "kind": "list", "children": kids}}, separators=(",", ":")
    ).encode()
    fronts = [{"op": "move", "id": f"n{99 - i}", "parent": "root", "index": 0} for i in range(40)]
    root_hash = nuif_core.Session(wide).node_hash("root")
    between = [
        op
        for _ in range(20)
        for op in (
            {"op": "set", "id": "n0", "attr": "t", "value": 0},
            {"op": "test", "id": "root", "hash": root_hash},
        )
    ]
    shapes = [
        (small, [{"op": "meta", "patch": doubling}]),
        (small, [{"op": "edit", "id": "r", "attr": "x", "patch": self_copies}]),
        (
            small,
            [
                {
                    "op": "meta",
                    "patch": [{"op": "add", "path": "/a", "value": list(range(300))}, *loop],
                }
            ],
        ),
        (wide, fronts),
        (wide, between),
    ]
    costly = [
        doc
        + b"\x1e"
        + json.dumps(
            {"nuif_patch": 0, "transactions": [{"ops": ops}]}, separators=(",", ":")
        ).encode()
        for doc, ops in shapes
    ]
    assert all(len(t) <= 8192 for t in costly)  # fuzz/run.py's -max_len for the cost target
    rnd = random.Random("cost")
    generators = [
        b"\x00" + rnd.randbytes(rnd.randint(24, 200)) + bytes([k])
        for k in range(6)
        for _ in range(5)
    ]
    _write(HERE / "corpus" / "cost", pairs + costly + generators)

    b_doc = json.loads(json.dumps(DOC))
    b_doc["root"]["children"].reverse()
    b_doc["root"]["children"][0]["attrs"]["primary"] = False
    b_doc["root"]["kind"] = "dialog"
    b_doc["meta"] = {"author": "x", "v": [1]}
    c_doc = {
        "nuif": 0,
        "root": {
            "id": "login",
            "kind": "screen",
            "children": [
                {"id": "box", "kind": "group", "children": [{"id": "login.email", "kind": "input"}]}
            ],
        },
    }
    diffs = [
        doc_text + b"\x1e" + _dump(b_doc),
        doc_text + b"\x1e" + _dump(c_doc),
        _dump(c_doc) + b"\x1e" + doc_text,
        doc_text + b"\x1e" + doc_text,
        _dump(SMALL) + b"\x1e" + _dump(DOC),
    ]
    _write(HERE / "corpus" / "diff", diffs + _recipes("diff", 14))

    tiny = package.pack(_dump(SMALL), {"assets/logo.svg": b"<svg/>", "assets/a/b.txt": b"hello"})
    bare = package.pack(doc_text)
    hostile = []
    for name, mode in (("assets/../evil", stat.S_IFREG), ("assets/link", stat.S_IFLNK)):
        out = io.BytesIO()
        with zipfile.ZipFile(out, "w") as zf:
            with zipfile.ZipFile(io.BytesIO(tiny)) as src:
                for info in src.infolist():
                    zf.writestr(info, src.read(info))
            extra = zipfile.ZipInfo(name)
            extra.create_system = 3
            extra.external_attr = (mode | 0o644) << 16
            zf.writestr(extra, b"x")
        hostile.append(out.getvalue())
    bomb = io.BytesIO()
    with zipfile.ZipFile(bomb, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in (("document.json", b" " * 200_000), ("manifest.json", b"{}")):
            info = zipfile.ZipInfo(name)  # dated 1980-01-01, not now: the same seed every run
            info.compress_type = zipfile.ZIP_DEFLATED
            zf.writestr(info, data)
    _write(
        HERE / "corpus" / "package",
        [tiny, bare, *hostile, bomb.getvalue(), b"PK\x05\x06" + b"\0" * 18]
        + _recipes("package", 14),
    )
    # inverse: every byte steers the generator, so seeds are random bytes of a few lengths
    rnd = random.Random("inverse")
    _write(HERE / "corpus" / "inverse", [rnd.randbytes(n) for n in (16, 48, 96, 160, 256) * 3])
    # catalog: the basic catalog against the corpus's documents, the invalid catalogs, and recipes
    data = REPO / "tests" / "data" / "catalogs"
    basic = REPO / "packages" / "nuif-core" / "src" / "nuif_core" / "catalogs" / "basic.json"
    docs = sorted((data / "basic" / "valid").glob("*.json"))[:2]
    docs += sorted((data / "basic" / "invalid").glob("*.json"))[:3]
    pairs = [basic.read_bytes() + b"\x1e" + doc.read_bytes() for doc in docs]
    plain = b'{"nuif":0,"root":{"id":"r","kind":"x"}}'
    pairs += [
        bad.read_bytes() + b"\x1e" + plain
        for bad in sorted((data / "invalid-catalogs").glob("*.json"))[:3]
    ]
    _write(HERE / "corpus" / "catalog", pairs + _recipes("catalog", 12))


if __name__ == "__main__":
    main()
