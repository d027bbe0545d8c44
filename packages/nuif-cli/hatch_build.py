"""Bundle the playground page (packages/nuif-web) into nuif-cli as ``nuif_cli/web``, for
``nuif playground``.  From the repository the files are read from ``../nuif-web``, after the
WebAssembly core ``nuif_core.wasm`` is built there unless current (``../nuif-core/wasm/build.py``,
with zig: the hook's build dependency ``ziglang``); the sdist carries them at
``src/nuif_cli/web``, where a wheel built from it finds them as package data."""

from __future__ import annotations

import ast
import importlib.util
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


def page_files(root: Path) -> dict[str, str]:
    """The page's files, read from ``nuif_cli._playground.PAGE_FILES`` (one list for the command
    and the build; the module itself cannot be imported here, its dependencies are not in the
    build environment)."""
    tree = ast.parse((root / "src" / "nuif_cli" / "_playground.py").read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.AnnAssign | ast.Assign):
            targets = [node.target] if isinstance(node, ast.AnnAssign) else node.targets
            if any(isinstance(t, ast.Name) and t.id == "PAGE_FILES" for t in targets):
                return dict(ast.literal_eval(node.value))
    raise RuntimeError("nuif_cli/_playground.py has no PAGE_FILES")


def build_wasm(build_script: Path) -> None:
    """Run ``ensure()`` of packages/nuif-core/wasm/build.py (a script, loaded by its path)."""
    spec = importlib.util.spec_from_file_location("nuif_wasm_build", build_script)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.ensure()


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        web = Path(self.root).parent / "nuif-web"
        if version == "editable":
            return  # an editable install reads ../nuif-web itself (nuif_cli._playground)
        if not (web / "src" / "nuif.mjs").is_file():
            return  # building from the sdist: the files are already in src/nuif_cli/web
        build_wasm(Path(self.root).parent / "nuif-core" / "wasm" / "build.py")
        prefix = "nuif_cli/web" if self.target_name == "wheel" else "src/nuif_cli/web"
        for name, rel in page_files(Path(self.root)).items():
            build_data["force_include"][str(web / rel)] = f"{prefix}/{name}"
