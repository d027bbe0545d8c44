"""nuif-mcp: a stateless MCP stdio server (profile nuif-mcp-tools-0) over nuif-core.

Importing this package is cheap: the MCP stack loads when ``create_server`` is first used, so
``python -m nuif_mcp`` can take over the process's stdout before anything else is imported.
The profile is MCP-PROFILE-0, docs/spec/mcp-profile-0.md in the repository.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

__all__ = ["__version__", "create_server"]

__version__ = "0.1.0"

if TYPE_CHECKING:
    from nuif_mcp._server import create_server


def __getattr__(name: str) -> Any:
    if name == "create_server":
        from nuif_mcp._server import create_server

        return create_server
    raise AttributeError(f"module 'nuif_mcp' has no attribute {name!r}")
