"""Bundle the playground page (packages/nuif-web) into nuif-cli as ``nuif_cli/web``, for
``nuif playground``.  From the repository the files are read from ``../nuif-web``; the sdist
carries them at ``src/nuif_cli/web``, where a wheel built from it finds them as package data."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface

#: the page's files (the same list as nuif_cli._playground.PAGE_FILES)
PAGE_FILES = {
    "index.html": "playground/index.html",
    "playground.css": "playground/playground.css",
    "playground.mjs": "playground/playground.mjs",
    "locate.mjs": "playground/locate.mjs",
    "nuif.mjs": "src/nuif.mjs",
}


class CustomBuildHook(BuildHookInterface):
    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        web = Path(self.root).parent / "nuif-web"
        if version == "editable":
            return  # an editable install reads ../nuif-web itself (nuif_cli._playground)
        if not (web / "src" / "nuif.mjs").is_file():
            return  # building from the sdist: the files are already in src/nuif_cli/web
        prefix = "nuif_cli/web" if self.target_name == "wheel" else "src/nuif_cli/web"
        for name, rel in PAGE_FILES.items():
            build_data["force_include"][str(web / rel)] = f"{prefix}/{name}"
