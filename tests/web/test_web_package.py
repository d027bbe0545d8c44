"""packages/nuif-web as a package: one version with the Python distributions, exact pins in a
lock without download addresses, one Pyodide version everywhere, and types for every export."""

from __future__ import annotations

import json
import re
import subprocess

from nuif_web_support import PYODIDE_PIN, WEB, pyodide_dir, wasm_module

import nuif_core
from nuif_cli import _playground


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
    for name, version in {**package["dependencies"], **package["devDependencies"]}.items():
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
    exported = set(
        re.findall(r"^export (?:async function|function|const|class) (\w+)", module, re.M)
    ) | set(re.findall(r"^export \{ (\w+) \};", module, re.M))
    declared = set(re.findall(r"^export declare (?:function|const|class) (\w+)", types, re.M))
    assert exported == declared
    assert exported == {
        "PYODIDE_VERSION",
        "VERSION",
        "NuifError",
        "PythonRequiredError",
        "loadNuif",
    }
    operations = [
        "validate",
        "inspect",
        "canonicalize",
        "canonicalJson",
        "canonicalJsonBytes",
        "applyPatch",
        "diff",
        "basicCatalog",
        "enablePython",
    ]
    methods = set(re.findall(r"^    (\w+)\(", module, re.M))
    assert set(operations) <= methods
    for name in operations:
        assert re.search(rf"^  {name}\(", types, re.M), name


def test_the_types_accept_the_documented_use_and_refuse_the_wrong_one() -> None:
    """``tsc -p types-check`` (strict): types-check/usage.ts compiles, and each of its
    ``@ts-expect-error`` lines (a number as text, an object as patch, enablePython without a
    wheel, an object as JSON text, a misspelt option, a catalog as an object, awaiting a string)
    is an error — an unused one fails the
    compilation."""
    pyodide_dir()  # node and `npm ci` (which also installs the pinned typescript)
    pin = json.loads((WEB / "package.json").read_text())["devDependencies"]["typescript"]
    tsc = WEB / "node_modules" / "typescript" / "bin" / "tsc"
    installed = json.loads((tsc.parent.parent / "package.json").read_text())["version"]
    assert installed == pin
    usage = (WEB / "types-check" / "usage.ts").read_text()
    assert usage.count("// @ts-expect-error") == 7
    done = subprocess.run(
        ["node", str(tsc), "-p", "types-check"],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 0, done.stdout + done.stderr


def test_the_npm_package_ships_the_module_and_nothing_built_beside_it() -> None:
    """``npm pack`` (dry run) packs the WebAssembly core (once built: docs/web.md) with the
    JavaScript, and not the build's stamp."""
    pyodide_dir()  # node and npm
    wasm_module()
    done = subprocess.run(
        ["npm", "pack", "--dry-run", "--json"],
        cwd=WEB,
        capture_output=True,
        text=True,
        timeout=300,
        stdin=subprocess.DEVNULL,
        check=True,
    )
    [packed] = json.loads(done.stdout)
    files = {f["path"] for f in packed["files"]}
    assert {"src/nuif.mjs", "src/core.mjs", "src/messages.mjs", "src/nuif.d.ts"} <= files
    assert "src/nuif_core.wasm" in files and "src/nuif_core.wasm.stamp" not in files
    assert "bench/bench-lines.mjs" not in files and "scripts/messages.py" not in files
