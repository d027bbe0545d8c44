"""The three distributions are released together under one version, and pin each other exactly."""

from __future__ import annotations

import re
import tomllib
from importlib import metadata
from pathlib import Path

import nuif_core

REPO = Path(__file__).resolve().parents[2]
PACKAGES = ("nuif-core", "nuif-cli", "nuif-mcp")


def _project(name: str) -> dict:
    with open(REPO / "packages" / name / "pyproject.toml", "rb") as fh:
        return tomllib.load(fh)["project"]


def test_all_distributions_share_one_version() -> None:
    versions = {name: _project(name)["version"] for name in PACKAGES}
    assert len(set(versions.values())) == 1, versions
    assert nuif_core.__version__ == versions["nuif-core"]
    for name in PACKAGES:
        assert metadata.version(name) == versions[name], "reinstall: the environment is stale"


def test_the_web_package_shares_the_version() -> None:
    """packages/nuif-web (npm: the Pyodide module and the playground) is released with them."""
    import json

    web = json.loads((REPO / "packages" / "nuif-web" / "package.json").read_text())
    assert web["version"] == _project("nuif-core")["version"]


def test_surfaces_pin_the_core_exactly() -> None:
    version = _project("nuif-core")["version"]
    for name in ("nuif-cli", "nuif-mcp"):
        deps = _project(name)["dependencies"]
        core = [d for d in deps if re.match(r"nuif-core\b", d)]
        assert core == [f"nuif-core=={version}"], (name, deps)


def test_cli_does_not_depend_on_the_mcp_stack() -> None:
    deps = " ".join(_project("nuif-cli")["dependencies"])
    assert "mcp" not in deps.replace("nuif-", "") and "pydantic" not in deps


def test_the_core_has_no_runtime_dependencies() -> None:
    assert _project("nuif-core").get("dependencies", []) == []


def test_kind_catalogs_need_no_extra_anywhere() -> None:
    """Kind catalogs are nuif-core's own code: no distribution has a catalogs extra, and none
    depends on a JSON Schema library for them."""
    for name in ("nuif-core", "nuif-cli", "nuif-mcp"):
        project = _project(name)
        assert "catalogs" not in project.get("optional-dependencies", {}), name
        every = [*project.get("dependencies", [])]
        every += [d for ds in project.get("optional-dependencies", {}).values() for d in ds]
        assert not [d for d in every if "jsonschema" in d or "[catalogs]" in d], name


def test_package_module_is_reachable_as_an_attribute_and_lazily() -> None:
    import subprocess
    import sys

    code = (
        "import sys, nuif_core; assert 'zipfile' not in sys.modules; "
        "assert nuif_core.package.read; assert 'zipfile' in sys.modules"
    )
    subprocess.run([sys.executable, "-c", code], check=True, timeout=60)
