"""validate against the basic catalog, side by side with plain validate (NUIF-0 §9).

The document is a screen made of the basic catalog's kinds (forms, lists, cards, text, images),
pretty-printed, valid against the catalog and exactly the size of its label; the target: 1 MiB
validated against ``nuif_core.catalogs.basic()`` within 100 ms (``docs/catalogs.md``).

    uv run pytest benchmarks/bench_catalog.py --benchmark-only
"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest

import nuif_core
from benchmarks.harness import run
from nuif_core import catalogs

KiB = 1024
MiB = 1024 * 1024
SIZES = {"64KiB": 64 * KiB, "1MiB": MiB}
_WORDS = "account address amount billing card city code country date email name number order pay "
_WORDS += "phone plan postal price quantity review save ship street total update user Änderung 注文"
_WORDS_LIST = _WORDS.split()


class _Maker:
    def __init__(self, seed: int) -> None:
        self.r = random.Random(seed)
        self.n = 0

    def id(self, kind: str) -> str:
        self.n += 1
        return f"{kind}-{self.n}"

    def words(self, lo: int, hi: int) -> str:
        return " ".join(self.r.choices(_WORDS_LIST, k=self.r.randrange(lo, hi))).capitalize()

    def leaf(self) -> dict[str, Any]:
        r = self.r
        kind = r.choice(["text", "button", "input", "checkbox", "link", "image", "select"])
        attrs: dict[str, Any]
        if kind == "text":
            attrs = {"text": self.words(3, 20), "style": r.choice(["body", "caption", "title"])}
        elif kind == "button":
            attrs = {"label": self.words(1, 3), "action": f"do.{self.n}"}
            if r.random() < 0.5:
                attrs["variant"] = r.choice(["primary", "secondary", "danger"])
        elif kind == "input":
            attrs = {
                "label": self.words(1, 3),
                "name": f"field_{self.n}",
                "type": r.choice(["text", "email", "tel", "number"]),
                "placeholder": self.words(1, 4),
                "required": r.random() < 0.5,
            }
        elif kind == "checkbox":
            attrs = {"label": self.words(2, 6), "name": f"opt_{self.n}", "checked": False}
        elif kind == "link":
            attrs = {"label": self.words(1, 4), "href": f"/help/{self.n}"}
        elif kind == "image":
            attrs = {
                "src": f"https://img.example/{self.n}.png",
                "alt": self.words(2, 6),
                "width": r.choice([64, 128, 320]),
                "height": r.choice([64, 128, 240]),
            }
        else:
            attrs = {
                "label": self.words(1, 3),
                "name": f"pick_{self.n}",
                "options": [{"value": f"v{i}", "label": self.words(1, 2)} for i in range(3)],
            }
        return {"id": self.id(kind), "kind": kind, "attrs": attrs}

    def section(self) -> dict[str, Any]:
        r = self.r
        kind = r.choice(["card", "stack", "row", "list"])
        if kind == "list":
            items = [
                {"id": self.id("list-item"), "kind": "list-item", "children": [self.leaf()]}
                for _ in range(r.randrange(2, 6))
            ]
            return {
                "id": self.id(kind),
                "kind": kind,
                "attrs": {"ordered": False},
                "children": items,
            }
        attrs: dict[str, Any] = {"gap": r.choice([4, 8, 16])}
        if kind == "card":
            attrs = {"title": self.words(1, 4), "elevation": r.randrange(0, 3)}
        children = [self.leaf() for _ in range(r.randrange(2, 8))]
        if r.random() < 0.3:
            children.append({"id": self.id("divider"), "kind": "divider"})
        return {"id": self.id(kind), "kind": kind, "attrs": attrs, "children": children}


def basic_document(size: int, seed: int = 20261206) -> bytes:
    """A pretty-printed document valid against the basic catalog, exactly ``size`` bytes."""
    maker = _Maker(seed)
    root: dict[str, Any] = {
        "id": "screen",
        "kind": "screen",
        "attrs": {"title": "Checkout"},
        "children": [],
    }
    doc = {"nuif": 0, "root": root, "meta": {"padding": ""}}
    used = len(json.dumps(doc, indent=2, ensure_ascii=False).encode())
    while True:
        section = maker.section()
        grows = len(json.dumps(section, indent=2, ensure_ascii=False).encode()) + 16
        if used + grows * 2 > size:  # room to spare for the indentation of the whole
            break
        root["children"].append(section)
        used = len(json.dumps(doc, indent=2, ensure_ascii=False).encode())
    doc["meta"]["padding"] = "x" * (size - used)
    data = json.dumps(doc, indent=2, ensure_ascii=False).encode()
    assert len(data) == size, (len(data), size)
    return data


_DOCS: dict[str, bytes] = {}


def _doc(size: str) -> bytes:
    if size not in _DOCS:
        _DOCS[size] = basic_document(SIZES[size])
    return _DOCS[size]


@pytest.mark.parametrize("impl", ["validate", "validate+catalog"])
@pytest.mark.parametrize("size", list(SIZES))
def test_validate_against_the_basic_catalog(benchmark, size, impl):
    data = _doc(size)
    catalog = catalogs.basic()
    if impl == "validate":
        fn: Any = nuif_core.validate
        role = "peer"
    else:

        def fn(text: bytes) -> nuif_core.ValidationReport:
            return nuif_core.validate(text, catalog=catalog)

        role = "ours"
    out = run(
        benchmark,
        fn,
        data,
        op="validate-catalog",
        shape="basic",
        size=size,
        impl=impl,
        role=role,
        input_bytes=len(data),
    )
    assert out.valid is True, out.diagnostics[:3]
