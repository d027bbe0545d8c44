"""No distribution imports another's private names: nuif-cli and nuif-mcp use nuif-core through
its public API (``nuif_core.__all__``, its public submodules ``catalogs`` and ``package``), and
neither reaches into the other.  (nuif-web ships no Python; its build script
``scripts/messages.py`` reads nuif-core's message templates, which is what it is for.)"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import nuif_core

REPO = Path(__file__).resolve().parents[1]
SOURCES = {
    "nuif_cli": REPO / "packages" / "nuif-cli" / "src" / "nuif_cli",
    "nuif_mcp": REPO / "packages" / "nuif-mcp" / "src" / "nuif_mcp",
}
OTHERS = {"nuif_core", *SOURCES}
PUBLIC_SUBMODULES = {"catalogs", "package"}


def _private(name: str) -> bool:
    return name.startswith("_") and not (name.startswith("__") and name.endswith("__"))


def private_uses(source: str, own: str) -> list[str]:
    """The private names of another distribution that ``source`` (a module of ``own``) imports
    or reads as an attribute of an imported module."""
    found: list[str] = []
    aliases: dict[str, str] = {}  # local name -> distribution module it is
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            for alias in node.names:
                top, *rest = alias.name.split(".")
                if top in OTHERS and top != own:
                    if any(_private(part) for part in rest):
                        found.append(alias.name)
                    aliases[alias.asname or top] = top
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            top, *rest = node.module.split(".")
            if top not in OTHERS or top == own:
                continue
            if any(_private(part) for part in rest):
                found.append(node.module)
            elif not rest:
                found += [f"{top}.{a.name}" for a in node.names if _private(a.name)]
    for node in ast.walk(ast.parse(source)):
        if (
            isinstance(node, ast.Attribute)
            and isinstance(node.value, ast.Name)
            and node.value.id in aliases
            and _private(node.attr)
        ):
            found.append(f"{aliases[node.value.id]}.{node.attr}")
    return found


@pytest.mark.parametrize("own", sorted(SOURCES))
def test_no_distribution_imports_anothers_private_names(own: str) -> None:
    files = sorted(SOURCES[own].rglob("*.py"))
    assert len(files) >= 5
    found = {
        str(path.relative_to(REPO)): uses
        for path in files
        if (uses := private_uses(path.read_text(encoding="utf-8"), own))
    }
    assert found == {}


def test_what_they_use_of_nuif_core_is_public() -> None:
    names = set()
    for folder in SOURCES.values():
        for path in folder.rglob("*.py"):
            for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
                if isinstance(node, ast.ImportFrom) and node.module == "nuif_core":
                    names |= {a.name for a in node.names}
    assert names, "the CLI and the server use nuif_core"
    assert names <= set(nuif_core.__all__) | PUBLIC_SUBMODULES


@pytest.mark.parametrize(
    ("source", "uses"),
    [
        ("from nuif_core._errors import error_dict", ["nuif_core._errors"]),
        ("from nuif_core import _codec", ["nuif_core._codec"]),
        ("import nuif_core\nnuif_core._codec.routes()", ["nuif_core._codec"]),
        ("import nuif_core as core\ncore._locate", ["nuif_core._locate"]),
        ("import nuif_mcp._tools", ["nuif_mcp._tools"]),
        (
            "from nuif_core import validate, __version__\nimport nuif_core\nnuif_core.__version__",
            [],
        ),
        ("from ._io import x\nfrom nuif_cli import _diag", []),  # its own private modules
    ],
)
def test_the_check_finds_each_way_of_reaching_in(source: str, uses: list[str]) -> None:
    assert private_uses(source, "nuif_cli") == uses
