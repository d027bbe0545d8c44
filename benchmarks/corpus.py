"""The one seeded generator of realistic NUIF documents, shared by the benchmarks and the tests.

Shapes (every one a *valid, already normalized* NUIF document — unique ids, §3 id/kind/attribute
name rules, I-JSON values: no noncharacters, no lone surrogates, integers within ±(2^53 − 1), no
empty ``attrs``/``children``/``meta``):

* ``ui``      node trees: ids, kinds, mixed attributes (strings, non-ASCII and escaped strings,
              numbers of every shape, booleans, null, arrays, nested style objects);
* ``numbers`` a dashboard whose ``series`` nodes hold large float arrays in their attributes;
* ``strings`` paragraphs whose attributes hold long non-ASCII strings full of escapes.

Sizes are bytes of pretty-printed UTF-8 input (``indent=2``, like ``json.dumps(doc, indent=2,
ensure_ascii=False)``, except that some strings are written with ``\\uXXXX`` escapes and some
numbers with unusual but valid literals such as ``1E3`` or ``2.50``).  Every document hits its
target size *exactly*: the generator adds subtrees while they fit, then fills the last few bytes
with an ASCII ``meta.padding`` string.

Determinism: only ``random.Random(seed)`` drives choices, dicts keep insertion order and nothing
depends on ``PYTHONHASHSEED``, so the same ``(shape, size, seed)`` gives the same bytes.

``load(shape, size)`` caches files under ``benchmarks/out/`` (git-ignored), keyed by a digest of
this source file so a change to the generator never serves stale documents.
"""

from __future__ import annotations

import hashlib
import json
import os
import random
import re
from collections.abc import Iterator
from dataclasses import dataclass
from json.encoder import encode_basestring, encode_basestring_ascii  # type: ignore[attr-defined]
from pathlib import Path
from typing import Any

__all__ = [
    "DEFAULT_SEED",
    "SHAPES",
    "SIZES",
    "Esc",
    "Lit",
    "generate",
    "iter_nodes",
    "load",
    "load_path",
    "load_ui_nodes",
    "load_variant",
    "set_patch",
    "size_label",
    "ui_nodes",
    "variant",
    "write_pretty",
]

KiB = 1024
MiB = 1024 * 1024
#: the sizes of pretty-printed input, by label (labels are the pytest ids: ``-k 1KiB``)
SIZES: dict[str, int] = {"1KiB": KiB, "64KiB": 64 * KiB, "1MiB": MiB, "16MiB": 16 * MiB}
SHAPES: tuple[str, ...] = ("ui", "numbers", "strings")
DEFAULT_SEED = 20251130
MAX_SAFE_INTEGER = 2**53 - 1

OUT_DIR = Path(__file__).resolve().parent / "out"
_SOURCE_DIGEST = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]


def size_label(n: int) -> str:
    for label, size in SIZES.items():
        if size == n:
            return label
    return f"{n}B"


# ---------------------------------------------------------------------------------------------
# Values that the pretty-printer writes specially


class Esc(str):
    """A string written with ``\\uXXXX`` escapes for every non-ASCII character (astral
    characters as a valid surrogate *pair*), as ``ensure_ascii=True`` writers do."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Lit:
    """A number written with an exact (valid I-JSON) literal, e.g. ``1E3``, ``2.50``, ``-0``."""

    text: str


def write_pretty(value: Any, level: int = 0) -> str:
    """``json.dumps(value, indent=2, ensure_ascii=False)`` at indentation *level*, plus
    :class:`Esc` strings and :class:`Lit` numbers."""
    out: list[str] = []
    _write(value, level, out)
    return "".join(out)


def _scalar(v: Any) -> str | None:
    t = type(v)
    if t is str:
        return encode_basestring(v)  # type: ignore[no-any-return]
    if t is float:
        return float.__repr__(v)
    if t is int:
        return int.__repr__(v)
    if t is bool:
        return "true" if v else "false"
    if v is None:
        return "null"
    if t is Esc:
        return encode_basestring_ascii(v)  # type: ignore[no-any-return]
    if t is Lit:
        return v.text  # type: ignore[no-any-return]
    return None


def _write(v: Any, level: int, out: list[str]) -> None:
    s = _scalar(v)
    if s is not None:
        out.append(s)
        return
    inner = "\n" + "  " * (level + 1)
    close = "\n" + "  " * level
    if type(v) is dict:
        if not v:
            out.append("{}")
            return
        out.append("{")
        sep = inner
        for k, x in v.items():
            out.append(sep)
            sep = "," + inner
            out.append(encode_basestring_ascii(k) if type(k) is Esc else encode_basestring(k))
            out.append(": ")
            _write(x, level + 1, out)
        out.append(close + "}")
    elif type(v) is list:
        if not v:
            out.append("[]")
            return
        scalars = [_scalar(x) for x in v]
        if None not in scalars:  # fast path: flat arrays (the float arrays of ``numbers``)
            out.append("[" + inner + ("," + inner).join(scalars) + close + "]")  # type: ignore[arg-type]
            return
        out.append("[")
        sep = inner
        for x in v:
            out.append(sep)
            sep = "," + inner
            _write(x, level + 1, out)
        out.append(close + "]")
    else:
        raise TypeError(f"cannot write {type(v).__name__}")


# ---------------------------------------------------------------------------------------------
# Vocabulary

_WORDS = [
    "sign",
    "in",
    "email",
    "password",
    "submit",
    "cancel",
    "account",
    "settings",
    "profile",
    "search",
    "results",
    "filter",
    "sort",
    "price",
    "total",
    "order",
    "cart",
    "checkout",
    "shipping",
    "address",
    "city",
    "country",
    "save",
    "delete",
    "edit",
    "share",
    "open",
    "close",
    "next",
    "previous",
    "help",
    "about",
    "terms",
    "privacy",
    "notifications",
    "messages",
    "inbox",
    "archive",
    "draft",
]
_INTL = [
    "Größe",
    "café",
    "naïve",
    "Ærøskøbing",
    "Привет",
    "мир",
    "Ελληνικά",
    "こんにちは",
    "東京都",
    "你好",
    "世界",
    "한국어",
    "مرحبا",
    "שלום",
    "हिन्दी",
    "ไทย",
    "🙂",
    "👩‍💻",
    "🇫🇷",
    "𝔘𝔫𝔦𝔠𝔬𝔡𝔢",
    "ﬁnance",
    "e\u0301",
    "Å",
    "ｱｲｳ",
    "€",
    "½",
    "№",
    "‰",
]
_ESCAPY = [
    '"quoted"',
    "back\\slash",
    "line\nbreak",
    "tab\there",
    "cr\r",
    "\b",
    "\f",
    "\x01",
    "\x1f",
    "\u2028",
    "\u2029",
    "</script>",
    "a/b",
    "\\n literally",
    "C:\\Users\\nuif",
]
_LOREM = (
    "Lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor incididunt ut "
    "labore et dolore magna aliqua "
)
# Object keys that stress RFC 8785's UTF-16 ordering (astral vs U+E000..U+FFFF) and escaping.
_KEYS = [
    "en",
    "fr",
    "ja",
    "ar",
    "zh-Hant",
    "é",
    "ｱ",
    "😀",
    "\u20ac",
    'a"b',
    "tab\tkey",
    "Z",
    "_",
    "",
]
_NUMBER_LITERALS = [
    "1E3",
    "2.50",
    "-0",
    "0.000001",
    "1e-7",
    "1.0",
    "-1.5E+10",
    "100e-2",
    "0e0",
    "4.0E-3",
    "123456789012345678e-5",
    "9007199254740991",
    "-9007199254740991",
]
_NUMBER_EDGES = [
    5e-324,
    2.2250738585072014e-308,
    1.7976931348623157e308,
    0.1,
    1e21,
    1e-6,
    1e-7,
    1.2345678901234568e21,
    0.000001,
    9007199254740991.0,
    333333333.3333333,
]


def _jcs_safe(x: float) -> float:
    """Keep doubles out of [2^53, 1e21): RFC 8785 writes them as integer literals
    (``1e20`` → ``100000000000000000000``), which NUIF-0 §1 then rejects when the canonical
    text is parsed again (NUIF_NUMBER) — see benchmarks/README.md, "Known core issues"."""
    if MAX_SAFE_INTEGER < abs(x) < 1e21:
        return x * 1e6
    return x


_CONTAINERS = [
    "stack",
    "row",
    "column",
    "card",
    "form",
    "list",
    "tabs",
    "acme.cards/header",
    "ui:panel",
]
_LEAVES = [
    "text",
    "button",
    "ui:button",
    "input",
    "image",
    "icon",
    "link",
    "select",
    "badge",
    "divider",
    "list-item",
    "acme.cards/avatar",
    "x-chart:sparkline",
]
_ATTR_NAMES = [
    "label",
    "aria-label",
    "on:click",
    "data-testid",
    "visible",
    "hidden",
    "width",
    "height",
    "tags",
    "$ref",
    "@i18n",
    "bind.value",
    "_private",
    "grid:cols",
    "style",
    "i18n",
    "placeholder",
    "tooltip",
    "weight",
    "opacity",
    "href",
    "src",
    "min",
    "max",
]
_ID_SAFE = re.compile(r"[^A-Za-z0-9_.:-]")


class _Gen:
    """Random values, nodes and subtrees for one seed."""

    def __init__(self, seed: int, plain: bool = False) -> None:
        self.r = random.Random(seed)
        self.plain = plain  # no Esc/Lit: values that json.loads/json.dumps round-trip exactly
        self.next_id = 0

    # -- scalars -------------------------------------------------------------------------------
    def number(self) -> Any:
        r = self.r
        k = r.randrange(11)
        if k == 0:
            return r.randrange(0, 100)
        if k == 1:
            return -r.randrange(1, 10**6)
        if k == 2:
            return r.randrange(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER + 1)
        if k == 3:
            return round(r.uniform(-1000, 1000), r.randrange(1, 6))
        if k == 4:
            return r.random()
        if k == 5:
            return r.uniform(1, 10) * 10.0 ** r.randrange(21, 300)  # always ≥ 1e21
        if k == 6:
            return -r.uniform(1, 10) * 10.0 ** -r.randrange(7, 300)
        if k == 7 and not self.plain:
            return Lit(r.choice(_NUMBER_LITERALS))
        if k == 8:
            return r.choice(_NUMBER_EDGES)
        if k == 9:
            return r.randrange(0, 10000) / 4
        return r.randrange(-100, 100)

    def words(self, lo: int, hi: int) -> str:
        return " ".join(self.r.choices(_WORDS, k=self.r.randrange(lo, hi)))

    def string(self) -> Any:
        r = self.r
        k = r.randrange(8)
        if k <= 2:
            return self.words(1, 5).capitalize()
        if k <= 4:
            return " ".join(r.choices(_WORDS + _INTL, k=r.randrange(1, 6)))
        if k == 5:
            return "".join(r.choices(_WORDS + _ESCAPY, k=r.randrange(2, 6)))
        s = " ".join(r.choices(_INTL + _ESCAPY, k=r.randrange(1, 5)))
        return s if self.plain else Esc(s)

    def value(self, depth: int = 0) -> Any:
        r = self.r
        k = r.randrange(10)
        if k <= 3:
            return self.string()
        if k <= 6:
            return self.number()
        if k == 7:
            return r.choice([True, False, None])
        if depth >= 2:
            return self.string()
        if k == 8:
            return [self.value(depth + 1) for _ in range(r.randrange(1, 5))]
        return {self.key(): self.value(depth + 1) for _ in range(r.randrange(1, 4))}

    def key(self) -> Any:
        r = self.r
        if r.random() < 0.5:
            return r.choice(_KEYS)
        return r.choice(_WORDS) + r.choice(["", "-", "_", "."]) + r.choice(_WORDS)

    # -- nodes ---------------------------------------------------------------------------------
    def new_id(self, kind: str, prefix: str) -> str:
        self.next_id += 1
        return f"{prefix}{_ID_SAFE.sub('_', kind)}-{self.next_id}"

    def attrs(self, kind: str) -> dict[str, Any]:
        r = self.r
        out: dict[str, Any] = {}
        for name in r.sample(_ATTR_NAMES, r.randrange(1, 7)):
            if name == "style":
                out[name] = {
                    "color": f"#{r.randrange(1 << 24):06x}",
                    "padding": [r.randrange(0, 32) for _ in range(4)],
                    "font": {
                        "family": r.choice(["Inter", "Noto Sans JP", "Segoe UI"]),
                        "size": r.choice([12, 14, 16, 20.5, 1.25e1]),
                    },
                }
            elif name == "i18n":
                out[name] = {r.choice(_KEYS): self.string() for _ in range(r.randrange(1, 5))}
            elif name in ("visible", "hidden"):
                out[name] = r.choice([True, False, None])
            elif name == "tags":
                out[name] = [self.string() for _ in range(r.randrange(1, 4))]
            elif name in ("width", "height", "weight", "opacity", "min", "max", "grid:cols"):
                out[name] = self.number()
            else:
                out[name] = self.value()
        if kind in ("text", "button", "ui:button", "link") and "label" not in out:
            out["label"] = self.string()
        return out

    def subtree(self, n_nodes: int, prefix: str, max_depth: int = 6) -> dict[str, Any]:
        """A subtree of exactly *n_nodes* nodes (depth ≤ *max_depth*), built breadth-first."""
        r = self.r
        kind = r.choice(_CONTAINERS) if n_nodes > 1 else r.choice(_LEAVES)
        root = {"id": self.new_id(kind, prefix), "kind": kind, "attrs": self.attrs(kind)}
        open_: list[tuple[dict[str, Any], int]] = [(root, 1)] if n_nodes > 1 else []
        made = 1
        while made < n_nodes:
            # prefer recent containers (deep, realistic trees), sometimes an older one (wide ones)
            idx = len(open_) - 1 - min(int(r.expovariate(0.7)), len(open_) - 1)
            parent, depth = open_[idx]
            container = depth + 1 < max_depth and r.random() < 0.35
            kind = r.choice(_CONTAINERS if container else _LEAVES)
            node = {"id": self.new_id(kind, prefix), "kind": kind, "attrs": self.attrs(kind)}
            parent.setdefault("children", []).append(node)
            made += 1
            if container:
                open_.append((node, depth + 1))
            if len(parent["children"]) >= r.randrange(3, 12):
                open_.pop(idx)
                if not open_:
                    open_.append((root, 1))
        return root

    # -- shape sections ------------------------------------------------------------------------
    def ui_section(self, remaining: int, n: int) -> dict[str, Any]:
        if remaining > 256 * KiB:
            count = self.r.randrange(40, 120)
        elif remaining > 8 * KiB:
            count = self.r.randrange(3, 15)
        else:
            count = 1
        return self.subtree(count, f"s{n}.")

    def numbers_section(self, remaining: int, n: int) -> dict[str, Any]:
        r = self.r
        if remaining > 256 * KiB:
            length = r.randrange(2048, 8192)
        elif remaining > 16 * KiB:
            length = r.randrange(128, 512)
        else:
            length = r.randrange(4, 16)
        base = r.uniform(-50, 500)
        spread = r.choice([0.01, 1.0, 250.0, 1e6])
        mode = r.randrange(4)
        values: list[Any] = []
        for _ in range(length):
            x = base + r.gauss(0, spread)
            if mode == 0:
                values.append(x)  # full 17-digit doubles: the common case for measured data
            elif mode == 1:
                values.append(round(x, 2))
            elif mode == 2:
                values.append(x * 10.0 ** r.randrange(-12, 30))  # exponents both ways
            else:
                values.append(r.choice([x, round(x, 3), float(int(x)), x * 1e-9, x * 1e25]))
            values[-1] = _jcs_safe(values[-1])
        series_kind = r.choice(["series", "x-chart:series"])
        return {
            "id": self.new_id(series_kind, f"s{n}."),
            "kind": series_kind,
            "attrs": {
                "label": self.string(),
                "unit": r.choice(["ms", "°C", "MB/s", "€", "req/s"]),
                "color": f"#{r.randrange(1 << 24):06x}",
                "start": r.randrange(1_600_000_000_000, 1_800_000_000_000),
                "values": values,
            },
        }

    def long_string(self, n_chars: int) -> str:
        r = self.r
        frags = r.choices(_WORDS + _INTL + _ESCAPY + _INTL, k=max(1, n_chars // 6))
        return " ".join(frags)

    def strings_section(self, remaining: int, n: int) -> dict[str, Any]:
        r = self.r
        if remaining > 2 * MiB:
            chars = r.randrange(16 * KiB, 64 * KiB)
        elif remaining > 64 * KiB:
            chars = r.randrange(2 * KiB, 8 * KiB)
        else:
            chars = r.randrange(40, 200)
        text = self.long_string(chars)
        kind = r.choice(["paragraph", "text", "ui:rich-text"])
        attrs: dict[str, Any] = {"text": text, "lang": r.choice(["en", "fr", "ja", "ar", "ru"])}
        if r.random() < 0.3:
            s = self.long_string(chars // 4)
            attrs["alt"] = s if self.plain else Esc(s)
        return {"id": self.new_id(kind, f"s{n}."), "kind": kind, "attrs": attrs}


_ROOTS = {
    "ui": ("app", "screen"),
    "numbers": ("dashboard", "ui:dashboard"),
    "strings": ("article", "document"),
}
# Where sections sit: document (0) > "root" (1) > "children" (2) > items at level 3.
_SECTION_LEVEL = 3


def generate(shape: str, size: int | str, seed: int = DEFAULT_SEED) -> bytes:
    """The pretty-printed document of *shape*, exactly *size* bytes (an int or a SIZES label)."""
    if shape not in SHAPES:
        raise ValueError(f"unknown shape {shape!r}; choose from {SHAPES}")
    target = SIZES[size] if isinstance(size, str) else int(size)
    g = _Gen(seed * 1000 + SHAPES.index(shape))
    root_id, root_kind = _ROOTS[shape]
    root_attrs = {"title": g.string(), "theme": g.r.choice(["light", "dark"])}
    meta: dict[str, Any] = {
        "generator": "benchmarks.corpus",
        "shape": shape,
        "seed": seed,
        "padding": "",
    }
    head = (
        '{\n  "nuif": 0,\n  "root": {\n    "id": '
        + json.dumps(root_id)
        + ',\n    "kind": '
        + json.dumps(root_kind)
        + ',\n    "attrs": '
        + write_pretty(root_attrs, 2)
        + ',\n    "children": [\n      '
    ).encode()
    sep = b",\n      "
    tail_empty = ('\n    ]\n  },\n  "meta": ' + write_pretty(meta, 1) + "\n}").encode()
    fixed = len(head) + len(tail_empty)
    if fixed > target:
        raise ValueError(f"{target} bytes is too small for a {shape} document")
    make = getattr(g, f"{shape}_section")
    sections: list[bytes] = []
    total = fixed
    misses = 0
    n = 0
    while misses < 4:
        n += 1
        remaining = target - total
        blob = write_pretty(make(remaining, n), _SECTION_LEVEL).encode()
        extra = len(blob) + (len(sep) if sections else 0)
        if extra <= remaining:
            sections.append(blob)
            total += extra
            misses = 0
        else:
            misses += 1
    if not sections:
        raise ValueError(f"{target} bytes is too small for a {shape} document")
    pad = target - total
    meta["padding"] = (_LOREM * (pad // len(_LOREM) + 1))[:pad]
    tail = ('\n    ]\n  },\n  "meta": ' + write_pretty(meta, 1) + "\n}").encode()
    data = head + sep.join(sections) + tail
    assert len(data) == target, (len(data), target)
    return data


def ui_nodes(n_nodes: int, seed: int = DEFAULT_SEED) -> bytes:
    """A pretty-printed ``ui`` document with exactly *n_nodes* nodes (root included)."""
    g = _Gen(seed * 1000 + 7)
    children: list[dict[str, Any]] = []
    left = n_nodes - 1
    n = 0
    while left > 0:
        n += 1
        count = min(left, g.r.randrange(20, 120))
        children.append(g.subtree(count, f"s{n}."))
        left -= count
    root: dict[str, Any] = {"id": "app", "kind": "screen", "attrs": {"title": g.string()}}
    if children:
        root["children"] = children
    doc = {"nuif": 0, "root": root, "meta": {"generator": "benchmarks.corpus", "seed": seed}}
    return write_pretty(doc).encode()


def _cache_path(name: str) -> Path:
    return OUT_DIR / f"{name}.{_SOURCE_DIGEST}.json"


def _cached(name: str, make: Any) -> bytes:
    path = _cache_path(name)
    try:
        return path.read_bytes()
    except FileNotFoundError:
        pass
    data: bytes = make()
    OUT_DIR.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(f".tmp{os.getpid()}")
    tmp.write_bytes(data)
    os.replace(tmp, path)
    for stale in OUT_DIR.glob(f"{name}.*.json"):  # files of earlier generator versions
        if stale != path:
            stale.unlink(missing_ok=True)
    return data


def load(shape: str, size: int | str, seed: int = DEFAULT_SEED) -> bytes:
    """:func:`generate`, cached on disk under ``benchmarks/out/`` (small sizes: in memory only)."""
    target = SIZES[size] if isinstance(size, str) else int(size)
    if target <= 64 * KiB:
        return generate(shape, target, seed)
    return _cached(f"{shape}-{size_label(target)}-s{seed}", lambda: generate(shape, target, seed))


def load_path(shape: str, size: int | str, seed: int = DEFAULT_SEED) -> Path:
    """The cache file of :func:`load` (created if needed): for benchmarks run in a subprocess."""
    target = SIZES[size] if isinstance(size, str) else int(size)
    _cached(f"{shape}-{size_label(target)}-s{seed}", lambda: generate(shape, target, seed))
    return _cache_path(f"{shape}-{size_label(target)}-s{seed}")


def load_variant(shape: str, size: int | str, seed: int = DEFAULT_SEED) -> bytes:
    """:func:`variant` of :func:`load` (the second input of the diff benchmarks), cached."""
    target = SIZES[size] if isinstance(size, str) else int(size)
    return _cached(
        f"{shape}-{size_label(target)}-s{seed}-variant",
        lambda: variant(load(shape, target, seed), seed),
    )


def load_ui_nodes(n_nodes: int, seed: int = DEFAULT_SEED) -> bytes:
    return _cached(f"ui-{n_nodes}nodes-s{seed}", lambda: ui_nodes(n_nodes, seed))


# ---------------------------------------------------------------------------------------------
# Patches and variants


def iter_nodes(doc: dict[str, Any]) -> Iterator[tuple[dict[str, Any], str, dict[str, Any] | None]]:
    """Pre-order ``(node, json_pointer, parent)`` over a parsed document."""
    stack: list[tuple[dict[str, Any], str, dict[str, Any] | None]] = [(doc["root"], "/root", None)]
    while stack:
        node, ptr, parent = stack.pop()
        yield node, ptr, parent
        kids = node.get("children", [])
        for i in range(len(kids) - 1, -1, -1):
            stack.append((kids[i], f"{ptr}/children/{i}", node))


def _pointer_token(s: str) -> str:
    return s.replace("~", "~0").replace("/", "~1")


def set_patch(
    document: bytes, n_ops: int, seed: int = DEFAULT_SEED, *, base: str | None = None
) -> tuple[bytes, list[dict[str, Any]]]:
    """*n_ops* ``set`` operations on existing ids of *document* as a NUIF patch (text), and the
    equivalent RFC 6902 operations (``add`` on ``/…/attrs/<name>``) for ``jsonpatch``.

    Every node of a generated document has a non-empty ``attrs`` object, so ``add`` on one of
    its members is exactly ``set`` (create or replace).  Transactions hold at most 1,000
    operations (NUIF-0 §4 allows 1,024).  *base* is the document hash to pin, if given.
    """
    doc = json.loads(document)
    nodes = [(n, p) for n, p, _ in iter_nodes(doc) if n.get("attrs")]
    g = _Gen(seed * 1000 + 11, plain=True)
    r = g.r
    ops: list[dict[str, Any]] = []
    rfc: list[dict[str, Any]] = []
    for _ in range(n_ops):
        node, ptr = r.choice(nodes)
        if r.random() < 0.6:
            attr = r.choice(sorted(node["attrs"]))
        else:
            attr = r.choice(_ATTR_NAMES + ["data-rev", "on:hover", "@state"])
        value = g.value()
        ops.append({"op": "set", "id": node["id"], "attr": attr, "value": value})
        rfc.append({"op": "add", "path": f"{ptr}/attrs/{_pointer_token(attr)}", "value": value})
    transactions = [
        {"label": f"set batch {i // 1000 + 1}", "ops": ops[i : i + 1000]}
        for i in range(0, len(ops), 1000)
    ]
    patch: dict[str, Any] = {"nuif_patch": 0}
    if base is not None:
        patch["base"] = base
    patch["transactions"] = transactions
    return json.dumps(patch, ensure_ascii=False).encode(), rfc


def variant(document: bytes, seed: int = DEFAULT_SEED, *, fraction: float = 0.1) -> bytes:
    """*document* edited the way a design tool edits one: attribute changes on about *fraction*
    of the nodes, some retyped nodes, some siblings swapped, a few leaves removed and inserted.
    Ids persist, so a semantic diff can use set/unset/retype/move.  Pretty-printed like the input.
    """
    doc = json.loads(document)
    g = _Gen(seed * 1000 + 13, plain=True)
    g.next_id = 10**7  # new ids cannot collide with the generator's
    r = g.r
    nodes = list(iter_nodes(doc))
    n = max(1, int(len(nodes) * fraction))
    for node, _, _ in r.sample(nodes, min(n, len(nodes))):
        attrs = node["attrs"]
        k = r.randrange(4)
        if k == 0 and len(attrs) > 1:
            del attrs[r.choice(sorted(attrs))]
        else:
            attrs[r.choice(_ATTR_NAMES)] = g.value()
    for node, _, parent in r.sample(nodes, max(1, n // 10)):
        if parent is not None:
            node["kind"] = r.choice(_LEAVES if "children" not in node else _CONTAINERS)
    parents = [p for p, _, _ in nodes if len(p.get("children", ())) >= 2]
    for p in r.sample(parents, min(len(parents), max(1, n // 10))):
        kids = p["children"]
        i, j = r.sample(range(len(kids)), 2)
        kids[i], kids[j] = kids[j], kids[i]
    for p in r.sample(parents, min(len(parents), max(1, n // 20))):
        kids = p["children"]
        leaves = [i for i, c in enumerate(kids) if "children" not in c]
        if leaves and len(kids) > 1:
            del kids[r.choice(leaves)]
        kids.insert(r.randrange(len(kids) + 1), g.subtree(1, "new."))
    return write_pretty(doc).encode()
