"""Wrong uses of the public API that the type checker must refuse.

Each line that ends in a comment ``E:`` and a mypy error code must draw exactly that error, and no other line may
draw one (tests/test_house_rules.py runs mypy over this file in strict mode).  It is never run."""

from __future__ import annotations

from typing import Any

import nuif_core
import nuif_core.catalogs
import nuif_core.package

DOC = '{"nuif": 0, "root": {"id": "home", "kind": "screen"}}'
PATCH: dict[str, Any] = {"nuif_patch": 0, "transactions": []}


def wrong() -> None:
    nuif_core.canonicalize(DOC, max_depth=3)  # E: call-arg
    nuif_core.canonicalize(42)  # E: arg-type
    nuif_core.validate(DOC, max_diagnostics="10")  # E: arg-type
    nuif_core.validate(DOC).hash.upper()  # E: union-attr
    nuif_core.apply_patch(DOC, PATCH, True)  # E: call-arg
    nuif_core.apply_patch(DOC, PATCH).inverse.decode()  # E: union-attr
    nuif_core.Limits(max_depth="64")  # E: arg-type
    nuif_core.canonicalize(DOC).canonical = b""  # E: misc
    text: str = nuif_core.canonicalize(DOC).canonical  # E: assignment
    nuif_core.diff(DOC, None)  # E: arg-type
    print(nuif_core.inspect(DOC).root.name)  # E: attr-defined
    nuif_core.node_hash(DOC)  # E: call-arg
    nuif_core.package.pack(DOC, {"assets/a.txt": "text"})  # E: dict-item
    nuif_core.Session(DOC).apply(PATCH, inverse=1.5)  # E: arg-type
    nuif_core.validate(DOC, catalog=nuif_core.catalogs.basic)  # E: arg-type
    print(text)
