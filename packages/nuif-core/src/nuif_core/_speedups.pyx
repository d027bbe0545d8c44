# cython: language_level=3
# Placeholder being replaced by the compiled codec; see _codec_py.py for the contract.
from nuif_core._codec_py import loads, dumps, canonical_json
