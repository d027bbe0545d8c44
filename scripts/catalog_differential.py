"""Catalog verdicts against jsonschema (exact on numbers) over generated schemas and values.

    uv run python scripts/catalog_differential.py --cases 200000 --seed 1

Prints the cases compared, the catalogs refused and why, the cases skipped (a value a NUIF
document cannot hold), and each disagreement with what reproduces it; exit 1 if there is one.
tests/core/test_catalog_differential.py runs a smaller count of the same.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests"))

from catalog_gen import Generator, catalog_text, document_text, oracle

import nuif_core
from nuif_core import Catalog, NuifError


def run(cases: int, seed: int, per_catalog: int = 20) -> dict[str, Any]:
    gen = Generator(seed)
    compared = 0
    refused: Counter[str] = Counter()
    skipped = 0
    accepted = 0
    wrong: list[dict[str, Any]] = []
    while compared < cases:
        schema, defs = gen.catalog()
        text = catalog_text(schema, defs)
        try:
            catalog = Catalog(text)
        except NuifError as err:
            refused[err.message.split(":")[1].strip()[:60]] += 1
            continue
        for _ in range(per_catalog):
            value = gen.value()
            doc = document_text(value)
            report = nuif_core.validate(doc, catalog=catalog)
            if any(not d.code.startswith("NUIF_CATALOG") for d in report.diagnostics):
                skipped += 1  # a value no NUIF document holds (an attribute name, a number)
                continue
            compared += 1
            theirs = oracle(schema, defs, value)
            accepted += theirs
            if report.valid != theirs:
                wrong.append(
                    {
                        "catalog": json.loads(text),
                        "document": json.loads(doc),
                        "nuif": report.valid,
                        "jsonschema": theirs,
                        "diagnostics": [d.to_dict() for d in report.diagnostics[:3]],
                    }
                )
    return {
        "compared": compared,
        "accepted": accepted,
        "refused": dict(refused),
        "skipped": skipped,
        "wrong": wrong,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--cases", type=int, default=20_000)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    out = run(args.cases, args.seed)
    print(json.dumps({k: v for k, v in out.items() if k != "wrong"}, indent=2))
    for case in out["wrong"][:20]:
        print(json.dumps(case))
    print(f"disagreements: {len(out['wrong'])}")
    return 1 if out["wrong"] else 0


if __name__ == "__main__":
    sys.exit(main())
