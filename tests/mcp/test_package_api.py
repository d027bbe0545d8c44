"""nuif_mcp's own names: ``create_server`` is imported on first use (the server's SDK is not
imported by ``import nuif_mcp``), and an unknown name is an AttributeError naming it."""

from __future__ import annotations

import pytest

import nuif_mcp


def test_create_server_is_the_servers_own() -> None:
    from nuif_mcp._server import create_server

    assert nuif_mcp.create_server is create_server


def test_an_unknown_name_is_an_attribute_error() -> None:
    with pytest.raises(AttributeError, match="module 'nuif_mcp' has no attribute 'serve_forever'"):
        nuif_mcp.serve_forever  # noqa: B018 - the lookup is what is tested
