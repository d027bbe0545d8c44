"""Package entry names that Windows or macOS cannot hold as written.

Every rule is applied by the writer (``pack`` refuses to create the package) and by the reader
(``read``, ``verify`` and ``unpack`` refuse an archive made by another tool), with the code
NUIF_PACKAGE, the entry named in the message, the rule stated, and nothing written on refusal.
"""

from __future__ import annotations

import io
import unicodedata
import warnings
import zipfile
from pathlib import Path

import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st

import nuif_core
from nuif_core import NuifError, _package_names, package

DOC = '{"nuif": 0, "root": {"id": "home", "kind": "screen"}}'
HASH = nuif_core.canonicalize(DOC).hash


def archive_with(names: list[str]) -> bytes:
    """A package that lists ``names`` in its manifest and holds each (``b"x"``): what another
    tool could write.  Everything but the names is valid."""
    import hashlib

    digest = hashlib.sha256(b"x").hexdigest()
    manifest = nuif_core.dumps(
        {
            "nuif_package": 0,
            "document": HASH,
            "assets": {n: {"sha256": digest, "bytes": 1} for n in names},
        }
    )
    out = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # duplicate names, written on purpose
        with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
            zf.writestr("document.json", nuif_core.canonicalize(DOC).canonical)
            zf.writestr("manifest.json", manifest)
            for name in names:
                zf.writestr(name, b"x")
    return out.getvalue()


def listing(root: Path) -> list[str]:
    return sorted(str(p.relative_to(root)) for p in root.rglob("*"))


def refused_everywhere(names: list[str], tmp_path: Path) -> tuple[NuifError, NuifError]:
    """``pack`` and every reader refuse ``names`` with NUIF_PACKAGE; ``unpack`` writes nothing.
    Returns the writer's and the reader's errors."""
    with pytest.raises(NuifError) as packed:
        package.pack(DOC, dict.fromkeys(names, b"x"))
    assert packed.value.code == "NUIF_PACKAGE", packed.value
    data = archive_with(names)
    errors = []
    for read in (lambda: package.read(data), lambda: package.verify(io.BytesIO(data))):
        with pytest.raises(NuifError) as info:
            read()
        assert info.value.code == "NUIF_PACKAGE", info.value
        errors.append(info.value)
    assert errors[0].message == errors[1].message
    (tmp_path / "pkg.nuif").write_bytes(data)
    (tmp_path / "work").mkdir()
    with pytest.raises(NuifError) as unpacked:
        package.unpack(tmp_path / "pkg.nuif", tmp_path / "work" / "out")
    assert unpacked.value.message == errors[0].message
    assert listing(tmp_path) == ["pkg.nuif", "work"]
    return packed.value, errors[0]


def accepted_everywhere(names: list[str], tmp_path: Path) -> None:
    data = package.pack(DOC, dict.fromkeys(names, b"x"))
    assert sorted(package.read(data).assets) == sorted(names)
    assert sorted(package.read(archive_with(names)).assets) == sorted(names)
    package.unpack(data, tmp_path / "out")
    for name in names:
        assert (tmp_path / "out").joinpath(*name.split("/")).read_bytes() == b"x"


# ---------------------------------------------------------------------------------------------
# the examples: names that collide or cannot be created


def test_a_name_and_its_trailing_dot_and_space_twins_are_refused_together(tmp_path: Path) -> None:
    packed, read = refused_everywhere(["assets/a", "assets/a.", "assets/a "], tmp_path)
    # pack checks the names in byte order ('a', 'a ', 'a.'); the reader in archive order
    assert "'assets/a '" in packed.message
    assert "ends in a space, which Windows drops: it would be the file 'a' there" in packed.message
    assert "'assets/a.'" in read.message
    assert "ends in a dot, which Windows drops: it would be the file 'a' there" in read.message


@pytest.mark.parametrize("name", ["assets/a.", "assets/a "])
def test_each_trailing_twin_is_refused_on_its_own(name: str, tmp_path: Path) -> None:
    packed, read = refused_everywhere([name], tmp_path)
    for err in (packed, read):
        assert repr(name) in err.message and "which Windows drops" in err.message


def test_con_and_nul_txt_of_the_issue_are_refused(tmp_path: Path) -> None:
    packed, read = refused_everywhere(["assets/con", "assets/NUL.txt"], tmp_path)
    # pack checks 'assets/NUL.txt' first (byte order: 'N' < 'c'); the reader 'assets/con'
    assert "'assets/NUL.txt'" in packed.message
    assert "device name NUL, which Windows reserves" in packed.message
    assert "'assets/con'" in read.message
    assert "device name CON, which Windows reserves" in read.message
    (tmp_path / "alone").mkdir()
    packed, read = refused_everywhere(["assets/NUL.txt"], tmp_path / "alone")
    for err in (packed, read):
        assert "'assets/NUL.txt'" in err.message and "device name NUL" in err.message


# ---------------------------------------------------------------------------------------------
# reserved device names


RESERVED = [
    ("assets/con", "CON"),
    ("assets/PRN", "PRN"),
    ("assets/Aux.png", "AUX"),
    ("assets/nul.tar.gz", "NUL"),
    ("assets/nul .txt", "NUL"),  # spaces before the extension are dropped too
    ("assets/ nul.txt", "NUL"),
    ("assets/nul..txt", "NUL"),
    ("assets/COM1", "COM1"),
    ("assets/com9.log", "COM9"),
    ("assets/com0", "COM0"),
    ("assets/lpt5", "LPT5"),
    ("assets/LPT9.x", "LPT9"),
    ("assets/com\u00b9", "COM\u00b9"),
    ("assets/com\u00b2.txt", "COM\u00b2"),
    ("assets/lpt\u00b3", "LPT\u00b3"),
    ("assets/conin$", "CONIN$"),
    ("assets/CONOUT$.txt", "CONOUT$"),
    ("assets/clock$", "CLOCK$"),
    ("assets/con/logo.png", "CON"),  # in a directory segment
    ("assets/img/aux.d/logo.png", "AUX"),
]


@pytest.mark.parametrize(("name", "device"), RESERVED)
def test_windows_device_names_are_refused_in_any_segment_with_any_extension(
    name: str, device: str, tmp_path: Path
) -> None:
    packed, read = refused_everywhere([name], tmp_path)
    for err in (packed, read):
        assert repr(name) in err.message
        assert f"device name {device}, which Windows reserves" in err.message


@pytest.mark.parametrize(
    "name",
    [
        "assets/console.png",
        "assets/com10",
        "assets/com",
        "assets/lpt",
        "assets/nul_x.txt",
        "assets/xnul",
        "assets/auxiliary/logo.png",
        "assets/.con",
        "assets/con-figure",
        "assets/com1x",
    ],
)
def test_names_that_only_resemble_device_names_are_accepted(name: str, tmp_path: Path) -> None:
    assert package.check_asset_name(name) is None
    accepted_everywhere([name], tmp_path)


# ---------------------------------------------------------------------------------------------
# characters, trailing dots and spaces, short names


@pytest.mark.parametrize("char", list('<>"|?*'))
def test_characters_windows_forbids_are_refused(char: str, tmp_path: Path) -> None:
    name = f"assets/a{char}b.png"
    packed, read = refused_everywhere([name], tmp_path)
    for err in (packed, read):
        assert repr(name) in err.message
        assert f"{char!r}, a character Windows does not allow in file names" in err.message


@pytest.mark.parametrize(
    ("name", "segment"),
    [
        ("assets/dir./logo.png", "dir."),
        ("assets/dir /logo.png", "dir "),
        ("assets/logo.png.", "logo.png."),
        ("assets/logo.png  ", "logo.png  "),
        ("assets/...", "..."),
        ("assets/ ", " "),
    ],
)
def test_a_segment_ending_in_a_dot_or_space_is_refused(
    name: str, segment: str, tmp_path: Path
) -> None:
    packed, read = refused_everywhere([name], tmp_path)
    for err in (packed, read):
        assert repr(name) in err.message
        assert f"its segment {segment!r} ends in a" in err.message


@pytest.mark.parametrize(
    "name", ["assets/PROGRA~1", "assets/logo~2.png", "assets/IMG~10/a.png", "assets/~1"]
)
def test_a_segment_shaped_like_a_windows_short_name_is_refused(name: str, tmp_path: Path) -> None:
    packed, read = refused_everywhere([name], tmp_path)
    for err in (packed, read):
        assert repr(name) in err.message and "Windows short (8.3) name" in err.message


@pytest.mark.parametrize(
    "name",
    [
        "assets/a~",
        "assets/a~b",
        "assets/a~1b.png",
        "assets/1~a",
        "assets/.hidden",
        "assets/a b.png",
    ],
)
def test_tildes_leading_dots_and_inner_spaces_are_accepted(name: str, tmp_path: Path) -> None:
    accepted_everywhere([name], tmp_path)


# ---------------------------------------------------------------------------------------------
# collisions


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("assets/Logo.png", "assets/logo.png"),  # ASCII case
        ("assets/\u00c9t\u00e9.png", "assets/\u00e9t\u00e9.png"),  # non-ASCII case: NTFS folds it
        ("assets/e\u0301.png", "assets/\u00e9.png"),  # NFD and NFC: macOS normalizes
        ("assets/\u0131.png", "assets/I.png"),  # dotless i upper-cases to I on Windows
        ("assets/\u212a.png", "assets/k.png"),  # Kelvin sign folds to k (Go's EqualFold)
        ("assets/stra\u00dfe.png", "assets/STRASSE.png"),  # full case folding (refuses more)
        ("assets/a\u200cb.png", "assets/ab.png"),  # HFS+ ignores U+200C
        ("assets/Img/logo.png", "assets/img/LOGO.png"),  # across directory segments
    ],
)
def test_names_that_would_be_one_file_on_windows_or_macos_collide(
    first: str, second: str, tmp_path: Path
) -> None:
    packed, read = refused_everywhere([first, second], tmp_path)
    for err in (packed, read):
        assert repr(first) in err.message and repr(second) in err.message
        assert "would be the same file on Windows or macOS" in err.message


def test_a_directory_differing_only_by_case_is_one_directory_and_accepted(tmp_path: Path) -> None:
    # no file overwrites another: on Windows both land in one directory, which is fine
    accepted_everywhere(["assets/Img/a.png", "assets/img/b.png"], tmp_path)


def test_a_file_and_a_directory_differing_only_by_case_collide(tmp_path: Path) -> None:
    packed, read = refused_everywhere(["assets/IMG", "assets/img/a.png"], tmp_path)
    for err in (packed, read):
        assert "'assets/IMG'" in err.message and "'assets/img/a.png'" in err.message


# ---------------------------------------------------------------------------------------------
# property: names that differ only by case, trailing dots or spaces always collide

SEGMENT = st.text(
    alphabet=st.characters(
        codec="utf-8",
        categories=("Lu", "Ll", "Lt", "Nd"),
        include_characters="-_",
    ),
    min_size=1,
    max_size=12,
)


def _valid_name(segments: list[str]) -> str | None:
    name = "assets/" + "/".join(segments)
    return name if package.check_asset_name(name) is None else None


@settings(max_examples=200, deadline=None)
@given(
    segments=st.lists(SEGMENT, min_size=1, max_size=3),
    flips=st.lists(st.booleans(), min_size=40, max_size=40),
    tails=st.one_of(  # half the twins differ by case alone
        st.just(["", "", ""]),
        st.lists(st.sampled_from(["", ".", " ", "..", ". ", " ."]), min_size=3, max_size=3),
    ),
)
def test_names_differing_only_by_case_or_trailing_dots_and_spaces_always_collide(
    segments: list[str], flips: list[bool], tails: list[str]
) -> None:
    base = _valid_name(segments)
    if base is None:  # a drawn segment is itself refused (a device name, a short name...)
        event("base refused on its own")
        return
    # the twin: each letter's case flipped at random, each segment with a dot/space tail
    twin_segments = []
    k = 0
    # three tails drawn, one per segment there may be: those of absent segments go unused
    for segment, tail in zip(segments, tails, strict=False):
        chars = []
        for ch in segment:
            flip = flips[k % len(flips)]
            k += 1
            chars.append(ch.swapcase() if flip and len(ch.swapcase()) == 1 else ch)
        twin_segments.append("".join(chars) + tail)
    twin = "assets/" + "/".join(twin_segments)
    if twin == base:
        event("no twin drawn")
        return
    assert _package_names.fold(twin) == _package_names.fold(base), (base, twin)
    assert _package_names.fold(unicodedata.normalize("NFD", twin)) == _package_names.fold(base)
    with pytest.raises(NuifError) as info:
        package.pack(DOC, {base: b"1", twin: b"2"})
    err = info.value
    assert err.code == "NUIF_PACKAGE"
    if any(segment.endswith((".", " ")) for segment in twin_segments):
        # refused on its own, for the tail Windows would drop
        event("twin refused for its tail")
        assert repr(twin) in err.message and "which Windows drops" in err.message
    else:
        event("twin collides")
        assert repr(twin) in err.message and repr(base) in err.message
        assert "would be the same file on Windows or macOS" in err.message
    # the reader refuses the same pair, whoever wrote it
    with pytest.raises(NuifError) as read:
        package.read(archive_with([base, twin]))
    assert read.value.code == "NUIF_PACKAGE" and repr(twin) in read.value.message


def test_the_fold_key_separates_names_that_are_different_files() -> None:
    distinct = [
        "assets/a",
        "assets/b",
        "assets/a.png",
        "assets/a/b",
        "assets/\u00e9",
        "assets/e",
        "assets/\u0130",
    ]
    keys = {_package_names.fold(n) for n in distinct}
    assert len(keys) == len(distinct)


def test_every_character_and_its_case_twins_have_one_fold_key() -> None:
    # exhaustive over Unicode: upper, lower, title case and case folding of one character (the
    # mappings NTFS's upper-case table, Go's EqualFold and APFS derive from) never give a name
    # that the collision check would take for another file
    checked = 0
    for cp in range(0x110000):
        ch = chr(cp)
        if 0xD800 <= cp <= 0xDFFF:
            continue
        twins = {ch.upper(), ch.lower(), ch.title(), ch.casefold()} - {ch}
        for twin in twins:
            assert _package_names.fold(twin) == _package_names.fold(ch), (hex(cp), twin)
            checked += 1
    assert checked > 2800  # about 3,100 twins: every cased character has one at least


def test_pack_dir_refuses_a_tree_holding_a_device_name_or_a_case_twin(tmp_path: Path) -> None:
    # Linux holds these files; a package holding them could not be unpacked on Windows
    (tmp_path / "one").mkdir()
    (tmp_path / "one" / "con.txt").write_bytes(b"x")
    with pytest.raises(NuifError) as info:
        package.pack_dir(DOC, tmp_path / "one")
    assert info.value.code == "NUIF_PACKAGE"
    assert "'assets/con.txt'" in info.value.message and "device name CON" in info.value.message
    (tmp_path / "two").mkdir()
    (tmp_path / "two" / "Logo.png").write_bytes(b"1")
    (tmp_path / "two" / "logo.png").write_bytes(b"2")
    with pytest.raises(NuifError) as info:
        package.pack_dir(DOC, tmp_path / "two")
    assert info.value.code == "NUIF_PACKAGE"
    assert "'assets/Logo.png' and 'assets/logo.png'" in info.value.message
