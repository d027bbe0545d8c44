"""tests/mcp: the helpers live in ``nuif_mcp_wire`` (beside this file); make it importable."""

from __future__ import annotations

import sys
from pathlib import Path

_HERE = str(Path(__file__).resolve().parent)
if _HERE not in sys.path:
    sys.path.insert(0, _HERE)
