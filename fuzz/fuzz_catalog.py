"""Fuzz target 8: kind catalogs — a hostile catalog against a document (NUIF-0 §9).

Input: ``catalog`` 0x1E ``document`` (two texts).  An input starting with NUL is a recipe: the
catalog is drawn by tests/catalog_gen.py's generator (every §9.4 keyword, ``$ref`` graphs that
descend, patterns) from a seed the fuzzer picks, with one of a few hostile shapes mixed in
(``$ref`` definitions that apply the next one twice, patterns whose DFA keeps growing, a
schema applied to every member), and the document holds generated values.

Properties of every input:

* ``Catalog(text)`` raises only :class:`nuif_core.NuifError` with the code ``NUIF_CATALOG``;
* ``validate(document, catalog=…)`` never raises (a catalog that is not valid is its one
  diagnostic), and every diagnostic has a known code;
* **the verdict is a pure function**: the report is the same for the text (cached), for a freshly
  read ``Catalog`` and on a second call;
* **the work is within the bound**: ``Catalog.work`` of the parsed document is at most the bound
  (or the bound plus one, with the report saying the bound was reached).
"""

from __future__ import annotations

import sys
from pathlib import Path

import _common as c
import atheris

with atheris.instrument_imports():
    sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))
    from catalog_gen import Generator, catalog_text, document_text

    import nuif_core
    from nuif_core import Catalog, NuifError, _codec
    from nuif_core._catalog_eval import WORK_BOUND

_HOSTILE = [
    lambda n: (
        {"$ref": "#/$defs/d0"},
        {
            **{
                f"d{i}": {"allOf": [{"$ref": f"#/$defs/d{i + 1}"}, {"$ref": f"#/$defs/d{i + 1}"}]}
                for i in range(n)
            },
            f"d{n}": {"type": "string"},
        },
    ),
    lambda n: ({"pattern": f"(a|b)*a(a|b){{{n * 10}}}$"}, {}),
    lambda n: ({"additionalProperties": {"pattern": f"(a?){{{n * 20}}}b"}}, {}),
]


def check(catalog: bytes, document: bytes) -> None:
    try:
        cat = Catalog(catalog)
    except NuifError as err:
        if err.code != "NUIF_CATALOG":
            c.fail("Catalog raised another code", err.code, err.message)
        cat = None
    report = nuif_core.validate(document, catalog=catalog)
    for d in report.diagnostics:
        c.check_error(NuifError(d.code, d.message))
    if cat is None:
        if [d.code for d in report.diagnostics] != ["NUIF_CATALOG"]:
            c.fail("an invalid catalog is not the one diagnostic", report.to_dict())
        return
    if nuif_core.validate(document, catalog=Catalog(catalog)) != report:
        c.fail("a fresh Catalog answers otherwise", report.to_dict())
    if nuif_core.validate(document, catalog=catalog) != report:
        c.fail("a second call answers otherwise", report.to_dict())
    try:
        value = _codec.loads(document, 128)
    except NuifError:
        return
    work = cat.work(value)
    over = any(
        "needs more work than one validation allows" in d.message for d in report.diagnostics
    )
    if work > WORK_BOUND + 1 or ((work == WORK_BOUND + 1) != over and not report.truncated):
        c.fail("the work is not what the bound says", work, report.to_dict())


def TestOneInput(data: bytes) -> None:
    if data[:1] != b"\x00":
        check(*c.split2(data))
        return
    fdp = atheris.FuzzedDataProvider(data[1:])
    gen = Generator(fdp.ConsumeIntInRange(0, 2**31))
    schema, defs = gen.catalog()
    if fdp.ConsumeIntInRange(0, 3) == 0:
        schema, defs = _HOSTILE[fdp.ConsumeIntInRange(0, len(_HOSTILE) - 1)](
            fdp.ConsumeIntInRange(1, 18)
        )
    value = gen.value()
    if fdp.ConsumeBool():
        value = {
            f"k{i}": "ab" * fdp.ConsumeIntInRange(0, 200)
            for i in range(fdp.ConsumeIntInRange(0, 64))
        }
    check(catalog_text(schema, defs).encode(), document_text(value).encode())


if __name__ == "__main__":
    c.main(TestOneInput)
