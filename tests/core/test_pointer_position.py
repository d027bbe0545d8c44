"""``nuif_core.pointer_position``: where the value a JSON Pointer names starts in a JSON text, as
line and column (the column counting characters), the longest resolving prefix's place when the
pointer does not resolve, and ``None`` for what is not a pointer."""

from __future__ import annotations

import pytest

import nuif_core

DOC = (
    '{"nuif": 0,\n "root": {"id": "é", "kind": "x",\n  "children": [{"id": "a~/b", "kind": "y"}]}}'
)


@pytest.mark.parametrize(
    ("pointer", "where"),
    [
        ("", (1, 1)),
        ("/nuif", (1, 10)),
        ("/root", (2, 10)),
        ("/root/kind", (2, 30)),  # after "é": characters, not bytes
        ("/root/children/0/id", (3, 23)),
        ("/root/children/0/kind", (3, 39)),
        ("/root/children/7", (3, 15)),  # no such index: the array
        ("/root/nope/deeper", (2, 10)),  # no such member: the object
    ],
)
def test_the_value_or_its_longest_resolving_prefix(pointer: str, where: tuple[int, int]) -> None:
    assert nuif_core.pointer_position(DOC, pointer) == where
    assert nuif_core.pointer_position(DOC.encode(), pointer) == where


def test_escaped_member_names_resolve() -> None:
    text = '{"a/b": {"c~d": [true]}}'
    assert nuif_core.pointer_position(text, "/a~1b/c~0d/0") == (1, 18)


@pytest.mark.parametrize("pointer", ["root", "#/root", "a/b"])
def test_what_is_not_a_pointer_has_no_place(pointer: str) -> None:
    assert nuif_core.pointer_position(DOC, pointer) is None


def test_it_places_a_patch_operations_error_as_the_cli_does() -> None:
    patch = '{"nuif_patch": 0, "transactions": [{"ops": [\n  {"op": "remove", "id": "nope"}]}]}'
    with pytest.raises(nuif_core.NuifError) as failed:
        nuif_core.apply_patch('{"nuif": 0, "root": {"id": "r", "kind": "x"}}', patch)
    assert failed.value.line is None
    column = patch.split("\n")[1].index('"nope"') + 1
    assert nuif_core.pointer_position(patch, failed.value.pointer or "") == (2, column)
