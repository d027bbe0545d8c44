"""nuif_core: the canonical model of NUIF documents."""
