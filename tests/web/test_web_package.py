"""packages/nuif-web as a package: one version with the Python distributions, exact pins in a
lock without download addresses, one Pyodide version everywhere, and types for every export."""

from __future__ import annotations

import json
import re

import nuif_core
from nuif_cli import _playground
from nuif_web_support import PYODIDE_PIN, WEB


def test_version_is_the_distributions_version() -> None:
    package = json.loads((WEB / "package.json").read_text())
    lock = json.loads((WEB / "package-lock.json").read_text())
    assert package["version"] == lock["version"] == lock["packages"][""]["version"]
    assert package["version"] == nuif_core.__version__


def test_lock_pins_exactly_and_records_no_download_addresses() -> None:
    text = (WEB / "package-lock.json").read_text()
    lock = json.loads(text)
    assert '"resolved"' not in text and "://" not in text
    package = json.loads((WEB / "package.json").read_text())
    for name, version in package["dependencies"].items():
        assert re.fullmatch(r"\d+\.\d+\.\d+", version), f"{name} is not pinned exactly"
        assert lock["packages"][f"node_modules/{name}"]["version"] == version
    for name, entry in lock["packages"].items():
        assert not name or entry["integrity"].startswith("sha512-"), name
    npmrc = (WEB / ".npmrc").read_text().split()
    assert "omit-lockfile-registry-resolved=true" in npmrc


def test_one_pyodide_version_everywhere() -> None:
    module = (WEB / "src" / "nuif.mjs").read_text()
    assert f'export const PYODIDE_VERSION = "{PYODIDE_PIN}";' in module
    assert _playground.PYODIDE_VERSION == PYODIDE_PIN


def test_every_export_is_typed() -> None:
    module = (WEB / "src" / "nuif.mjs").read_text()
    types = (WEB / "src" / "nuif.d.ts").read_text()
    exported = set(re.findall(r"^export (?:async function|function|const|class) (\w+)", module, re.M))
    declared = set(re.findall(r"^export declare (?:function|const|class) (\w+)", types, re.M))
    assert exported == declared == {"PYODIDE_VERSION", "NuifError", "loadNuif"}
    methods = set(re.findall(r"^    (\w+)\(", module, re.M))
    assert {"validate", "inspect", "canonicalize", "applyPatch", "diff"} <= methods
    for name in ("validate", "inspect", "canonicalize", "applyPatch", "diff"):
        assert re.search(rf"^  {name}\(", types, re.M), name
