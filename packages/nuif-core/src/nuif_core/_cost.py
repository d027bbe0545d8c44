"""The work meter: what one patch application may spend, and the refusal when it would spend more.

Every operation of the patch engine costs a bounded amount per byte it carries, plus work that
depends on the document it runs on (serializing a subtree to hash it, measuring a value that a
patch destroys, copying a value inside a JSON Patch, shifting a long list, finding a child's
position).  That second kind is *metered*: each application of a patch gets a budget that is
a fixed multiple of what was handed in,

    budget = WORK_PER_BYTE × (canonical document bytes + patch bytes) + WORK_FLOOR

and the engine charges every metered step in **units** of about 10 ns: ``DUMPS_UNITS`` (2)
per byte of canonical JSON the codec writes from Python values (``dumps`` of a tree of small
objects runs at 14–23 ns a byte), one more per byte it reads back (``loads``), 8 per element a
Python loop visits (a position replayed, a position map rebuilt, a value walked for its
height), and one per 32 pointers a list insert or removal moves (a ``memmove``).  A patch whose metered work would pass
its budget stops at that operation with NUIF_LIMIT_WORK, and nothing is applied.  So the time
and memory of any patch are linear in the size of its inputs, whatever the patch asks for.
docs/patch.md ("Cost") lists what each operation is charged.
"""

from __future__ import annotations

__all__ = [
    "DUMPS_UNITS",
    "WORK_FLOOR",
    "WORK_PER_BYTE",
    "Meter",
    "MiB",
    "OverBudget",
    "budget_for",
]

MiB = 1024 * 1024
#: units of metered work a patch may spend per byte of canonical document and patch text
WORK_PER_BYTE = 16
#: units every patch may spend, however small its inputs
WORK_FLOOR = 8 * MiB
#: units per byte the codec writes from Python values (serializing a subtree to hash or measure it)
DUMPS_UNITS = 2


def budget_for(document_bytes: int, patch_bytes: int) -> int:
    """The work budget of one patch application (see the module docstring)."""
    return WORK_PER_BYTE * (document_bytes + patch_bytes) + WORK_FLOOR


class OverBudget(Exception):
    """Raised by :meth:`Meter.charge`; the patch engine turns it into NUIF_LIMIT_WORK with the
    location of the operation that was running."""

    def __init__(self, used: int, budget: int) -> None:
        super().__init__(used, budget)
        self.used = used
        self.budget = budget


class Meter:
    """Counts metered work against a budget (``used`` is what was charged so far, ``shifted``
    the part of it that paid for list shifts)."""

    __slots__ = ("budget", "shifted", "used")

    def __init__(self, budget: int) -> None:
        self.budget = budget
        self.used = 0
        self.shifted = 0

    def charge_shift(self, elements: int) -> None:
        """A list insert or removal that moves ``elements`` pointers (a memmove): one unit per 32."""
        units = elements >> 5
        self.shifted += units
        self.charge(units)

    def charge(self, units: int) -> None:
        used = self.used + units
        self.used = used
        if used > self.budget:
            raise OverBudget(used, self.budget)

    def message(self, exc: OverBudget) -> str:
        return (
            f"the patch needs more work than its size allows: at least {exc.used} units of a "
            f"budget of {exc.budget} ({WORK_PER_BYTE} per byte of document and patch text, plus "
            f'{WORK_FLOOR}); split it into smaller patches (docs/patch.md, "Cost")'
        )
