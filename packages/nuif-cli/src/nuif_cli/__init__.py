"""nuif_cli: the ``nuif`` command line for NUIF documents, patches and ``.nuif`` packages.

Entry points: ``nuif`` (console script) and ``python -m nuif_cli``; both call
:func:`nuif_cli._cli.main`.  This module is kept empty on purpose: importing it must cost
nothing, and nothing here may pull in the MCP stack.
"""
