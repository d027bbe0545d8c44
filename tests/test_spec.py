"""The specification (docs/spec/) and the code define the same contract.

A document may span several pages: NUIF-0 is docs/spec/nuif-0.1.md (conventions, §1–§4, §6, the
appendices), nuif-0.1-patches.md (§5, §8), nuif-0.1-packages.md (§7) and nuif-0.1-catalogs.md (§9).  A document's sections
are the numbered headings of all its pages, each number on exactly one page, and each table below
is read from the page that holds its section.

The checks read the spec's tables and headings, never its prose:

* the error codes of NUIF-0 §6.2 are exactly ``nuif_core.ERROR_CODES``, and no other ``NUIF_*``
  code is named anywhere in the spec;
* the settings of the limits tables (NUIF-0 §4.1, §7.6) are exactly the fields of
  ``nuif_core.Limits``, with the same defaults; the MCP profile's limits are ``Limits.MCP``'s;
* the operations table (NUIF-0 §5.3) lists exactly the operations the patch reader accepts, with
  the same required and optional members, and the inverse table covers each of them;
* the tools table (MCP-PROFILE-0 §3.2) lists exactly the server's four tools, with the arguments
  and result fields of their models;
* every "NUIF-0 §n" / "MCP-PROFILE-0 §n" cited in the repository (Markdown and code), every "§n"
  inside the spec (a section of the document the page belongs to), and every link into or out of
  the spec pages reaches a section or heading that exists (a link whose text is a citation
  reaches that very section, on the page that has it); nothing points at a copy of the spec
  outside the repository, which a clone does not have;
* no section number is defined twice in a document, and no page of a document carries one of
  the checked tables outside the page that holds its section (it would escape the check).

Each checker returns a list of problems.  The ``..._catches_...`` tests feed each one a spec with
a violation planted, so that a checker that stopped checking fails too.
"""

from __future__ import annotations

import dataclasses
import os
import re
from collections.abc import Callable
from pathlib import Path

import pytest

from nuif_core import ERROR_CODES, Limits
from nuif_core._patch_read import OP_MEMBERS

ROOT = Path(__file__).resolve().parent.parent
SPEC = ROOT / "docs" / "spec"
NUIF_PAGE = SPEC / "nuif-0.1.md"  # the main page: conventions, §1–§4, §6, the appendices
NUIF_PATCHES_PAGE = SPEC / "nuif-0.1-patches.md"  # §5, §8
NUIF_PACKAGES_PAGE = SPEC / "nuif-0.1-packages.md"  # §7
NUIF_CATALOGS_PAGE = SPEC / "nuif-0.1-catalogs.md"  # §9
MCP_PAGE = SPEC / "mcp-profile-0.md"
#: each document → its pages, the main one first
PAGES_OF = {
    "NUIF-0": (NUIF_PAGE, NUIF_PATCHES_PAGE, NUIF_PACKAGES_PAGE, NUIF_CATALOGS_PAGE),
    "MCP-PROFILE-0": (MCP_PAGE,),
}
DOCUMENT_OF = {page: doc for doc, pages in PAGES_OF.items() for page in pages}
#: the tables the checkers read, by their columns → (document, the sections whose pages hold them)
_CHECKED_TABLES = {
    ("code", "meaning"): ("NUIF-0", ("6.2",)),
    ("setting", "default"): ("NUIF-0", ("4.1", "7.6")),
    ("op", "members"): ("NUIF-0", ("5.3",)),
    ("forward", "inverse"): ("NUIF-0", ("5.8",)),
    ("limit", "value", "error"): ("MCP-PROFILE-0", ("3.1",)),
    ("tool", "arguments"): ("MCP-PROFILE-0", ("3.2",)),
}

#: directories never searched for citations (environments, builds, caches, vendored clients)
_PRUNE = {"node_modules", "build", "dist", "__pycache__", "site-packages"}
_CODE_SUFFIXES = {".py", ".pyx", ".pxi", ".pxd", ".pyi", ".h", ".c", ".cpp", ".mjs", ".ts", ".toml"}
_UNITS = {"": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}
_LIMIT_FIELDS = {f.name: f.default for f in dataclasses.fields(Limits)}


# --- reading Markdown ---------------------------------------------------------------------------


def _without_code_blocks(text: str) -> str:
    return re.sub(r"^```.*?^```[ \t]*$", "", text, flags=re.S | re.M)


def _headings(text: str) -> list[str]:
    pattern = re.compile(r"^#{1,6}[ \t]+(.+?)[ \t]*#*$", re.M)
    return [m.group(1).strip() for m in pattern.finditer(_without_code_blocks(text))]


def _slug(title: str) -> str:
    """The anchor GitHub gives a heading."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def _anchors(text: str) -> set[str]:
    seen: dict[str, int] = {}
    out = set()
    for title in _headings(text):
        base = _slug(title)
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return out


def _numbered(text: str) -> list[tuple[str, str]]:
    """(section number, anchor) of each numbered heading, in order: ``## 5. Semantic patches`` is
    ``5``, ``5-semantic-patches``; ``### 5.3 Operations`` is ``5.3``, ``53-operations``."""
    out = []
    for title in _headings(text):
        m = re.match(r"(\d+(?:\.\d+)*)\.?\s+\S", title)
        if m:
            out.append((m.group(1), _slug(title)))
    return out


# --- reading the spec: documents, their pages and sections -------------------------------------


def _section_index(pages: dict[Path, str]) -> dict[str, dict[str, tuple[Path, str]]]:
    """Document → section number → (the page that has it, its anchor): the numbered headings of
    all the document's pages.  (A number defined twice is for ``section_problems`` to report;
    here the first one counts.)"""
    index: dict[str, dict[str, tuple[Path, str]]] = {}
    for doc, own in PAGES_OF.items():
        index[doc] = {}
        for page in own:
            for number, anchor in _numbered(pages.get(page, "")):
                index[doc].setdefault(number, (page, anchor))
    return index


def _pages_holding(pages: dict[Path, str], doc: str, *numbers: str) -> list[Path]:
    """The pages of ``doc`` that hold the sections ``numbers``, each once, in the order of the
    numbers; a section no page has adds none."""
    index = _section_index(pages)[doc]
    return list(dict.fromkeys(index[n][0] for n in numbers if n in index))


def _checked_tables(
    pages: dict[Path, str], *columns: str
) -> list[tuple[list[str], list[list[str]]]]:
    """The tables with ``columns`` on the page(s) that hold their sections (``_CHECKED_TABLES``)."""
    doc, numbers = _CHECKED_TABLES[columns]
    held = _pages_holding(pages, doc, *numbers)
    return [table for page in held for table in _tables_with(pages[page], *columns)]


def _split_row(line: str) -> list[str]:
    cells = re.split(r"(?<!\\)\|", line.strip())
    return [c.strip() for c in cells[1:-1]]


def _tables(text: str) -> list[tuple[list[str], list[list[str]]]]:
    """Every Markdown table: (lower-cased header cells, rows of cells). Indented ones too."""
    tables = []
    lines = _without_code_blocks(text).splitlines()
    i = 0
    while i < len(lines):
        line = lines[i].strip()
        below = lines[i + 1].strip() if i + 1 < len(lines) else ""
        if line.startswith("|") and re.fullmatch(r"\|(\s*:?-+:?\s*\|)+", below):
            header = [c.lower() for c in _split_row(line)]
            rows = []
            i += 2
            while i < len(lines) and lines[i].strip().startswith("|"):
                rows.append(_split_row(lines[i]))
                i += 1
            tables.append((header, rows))
        else:
            i += 1
    return tables


def _tables_with(text: str, *columns: str) -> list[tuple[list[str], list[list[str]]]]:
    return [t for t in _tables(text) if all(c in t[0] for c in columns)]


def _names(cell: str) -> list[tuple[str, bool]]:
    """The backticked names of a cell, each with whether it is marked optional (``name``?)."""
    return [(m.group(1), m.group(2) == "?") for m in re.finditer(r"`([^`]+)`(\??)", cell)]


def _number(cell: str) -> int | None:
    """``16 MiB``, ``250,000``, ``128`` → the integer; anything else → None."""
    m = re.fullmatch(r"(\d[\d,]*)\s*(KiB|MiB|GiB)?", cell.strip())
    if m is None:
        return None
    return int(m.group(1).replace(",", "")) * _UNITS[m.group(2) or ""]


# --- the checkers -------------------------------------------------------------------------------


def section_problems(pages: dict[Path, str]) -> list[str]:
    """Every page of a document is there, and each section number is defined once in the
    document: on one of its pages, once."""
    problems = []
    for doc, own in PAGES_OF.items():
        defined: dict[str, list[str]] = {}
        for page in own:
            if page not in pages:
                problems.append(f"{doc}: its page {page.name} is missing")
            for number, _ in _numbered(pages.get(page, "")):
                defined.setdefault(number, []).append(page.name)
        problems += [
            f"{doc} §{number} is defined {len(names)} times: {', '.join(names)}"
            for number, names in defined.items()
            if len(names) > 1
        ]
    return problems


def stray_table_problems(pages: dict[Path, str]) -> list[str]:
    """A checked table (``_CHECKED_TABLES``) on a page of its document that does not hold its
    section would escape its checker, which reads only the page that does."""
    problems = []
    for columns, (doc, numbers) in _CHECKED_TABLES.items():
        holding = _pages_holding(pages, doc, *numbers)
        problems += [
            f"{page.name} has a table with the columns {', '.join(columns)}, which belongs on the "
            f"page of {doc} " + ", ".join(f"§{n}" for n in numbers)
            for page in PAGES_OF[doc]
            if page not in holding and _tables_with(pages.get(page, ""), *columns)
        ]
    return problems


def error_code_problems(pages: dict[Path, str]) -> list[str]:
    tables = _checked_tables(pages, "code", "meaning")
    if len(tables) != 1:
        return [f"expected one error-code table (columns code, meaning), found {len(tables)}"]
    header, rows = tables[0]
    sections = _section_index(pages)["NUIF-0"]
    problems = []
    defined: list[str] = []
    for row in rows:
        names = [n for n, _ in _names(row[0])]
        if len(names) != 1 or not re.fullmatch(r"NUIF_[A-Z0-9_]+", names[0]):
            problems.append(f"error table row without one code: {row[0]!r}")
            continue
        code = names[0]
        defined.append(code)
        if "defined in" in header:
            cited = re.findall(r"§(\d+(?:\.\d+)*)", row[header.index("defined in")])
            if not cited:
                problems.append(f"{code}: no section given")
            problems += [
                f"{code}: cites §{s}, which does not exist" for s in cited if s not in sections
            ]
    problems += [
        f"{c} is defined twice" for c in sorted({c for c in defined if defined.count(c) > 1})
    ]
    problems += [f"{c} is in ERROR_CODES, not in the spec" for c in ERROR_CODES if c not in defined]
    problems += [f"{c} is in the spec, not in ERROR_CODES" for c in defined if c not in ERROR_CODES]
    return problems


def unknown_code_problems(pages: dict[str, str]) -> list[str]:
    """Every NUIF_* code named anywhere in the spec pages is a real one (catches typos in prose)."""
    return [
        f"{name} names {code}, which is not in ERROR_CODES"
        for name, text in pages.items()
        for code in sorted(set(re.findall(r"\bNUIF_[A-Z0-9_]*[A-Z0-9]\b", text)))
        if code not in ERROR_CODES
    ]


def limit_problems(pages: dict[Path, str]) -> list[str]:
    tables = _checked_tables(pages, "setting", "default")
    if not tables:
        return ["no limits table (columns setting, default)"]
    problems = []
    found: dict[str, int] = {}
    for header, rows in tables:
        for row in rows:
            names = [n for n, _ in _names(row[header.index("setting")])]
            if len(names) != 1:
                problems.append(f"limits row without one setting: {row!r}")
                continue
            value = _number(row[header.index("default")])
            if value is None:
                problems.append(
                    f"{names[0]}: default {row[header.index('default')]!r} is no number"
                )
                continue
            if names[0] in found:
                problems.append(f"{names[0]} is in the limits tables twice")
            found[names[0]] = value
    for name, default in _LIMIT_FIELDS.items():
        if name not in found:
            problems.append(f"Limits.{name} is not in the spec's limits tables")
        elif found[name] != default:
            problems.append(f"Limits.{name} defaults to {default}, the spec says {found[name]}")
    problems += [
        f"the spec's setting {n} is no field of Limits" for n in found if n not in _LIMIT_FIELDS
    ]
    return problems


def mcp_limit_problems(pages: dict[Path, str]) -> list[str]:
    from nuif_mcp._stdio import MAX_LINE_BYTES

    tables = _checked_tables(pages, "limit", "value", "error")
    if len(tables) != 1:
        return [f"expected one MCP limits table (columns limit, value, error), found {len(tables)}"]
    header, rows = tables[0]
    stated: dict[str, int | None] = {}
    for row in rows:
        what, value = row[header.index("limit")], _number(row[header.index("value")])
        for name, _ in _names(what):
            if name in _LIMIT_FIELDS:
                stated[name] = value
        if "JSON-RPC line" in what:
            stated["line"] = value
    problems = []
    for name, default in _LIMIT_FIELDS.items():
        value = getattr(Limits.MCP, name)
        if (value != default or name in stated) and stated.get(name) != value:
            problems.append(f"Limits.MCP.{name} is {value}, the profile says {stated.get(name)}")
    if stated.get("line") != MAX_LINE_BYTES:
        problems.append(
            f"the line limit is {MAX_LINE_BYTES}, the profile says {stated.get('line')}"
        )
    return problems


def operation_problems(pages: dict[Path, str]) -> list[str]:
    tables = _checked_tables(pages, "op", "members")
    if len(tables) != 1:
        return [f"expected one operations table (columns op, members), found {len(tables)}"]
    header, rows = tables[0]
    problems = []
    found: dict[str, tuple[set[str], set[str]]] = {}
    for row in rows:
        names = [n for n, _ in _names(row[header.index("op")])]
        if len(names) != 1:
            problems.append(f"operations row without one op: {row[0]!r}")
            continue
        members = _names(row[header.index("members")])
        found[names[0]] = ({m for m, opt in members if not opt}, {m for m, opt in members if opt})
    for op, (required, optional) in OP_MEMBERS.items():
        if op not in found:
            problems.append(f"the patch reader accepts {op!r}, the spec does not define it")
        elif found[op] != (set(required), set(optional)):
            problems.append(
                f"{op}: the reader wants {sorted(required)} and optionally {sorted(optional)}, "
                f"the spec says {sorted(found[op][0])} and optionally {sorted(found[op][1])}"
            )
    problems += [
        f"the spec defines {op!r}, the reader does not" for op in found if op not in OP_MEMBERS
    ]
    inverse = _checked_tables(pages, "forward", "inverse")
    if len(inverse) != 1:
        problems.append(
            f"expected one inverse table (columns forward, inverse), found {len(inverse)}"
        )
    else:
        forward = {n for row in inverse[0][1] for n, _ in _names(row[0])}
        problems += [
            f"the inverse table has no row for {op!r}" for op in OP_MEMBERS if op not in forward
        ]
    return problems


def tool_problems(pages: dict[Path, str]) -> list[str]:
    from nuif_mcp._tools import TOOLS

    tables = _checked_tables(pages, "tool", "arguments")
    if len(tables) != 1:
        return [f"expected one tools table (columns tool, arguments), found {len(tables)}"]
    header, rows = tables[0]
    results_at = next((i for i, c in enumerate(header) if "result" in c), None)
    if results_at is None:
        return ["the tools table has no result column"]
    problems = []
    found = {}
    for row in rows:
        names = [n for n, _ in _names(row[header.index("tool")])]
        if len(names) != 1:
            problems.append(f"tools row without one tool: {row[0]!r}")
            continue
        found[names[0]] = row
    anchors = {anchor for _, anchor in _section_index(pages)["MCP-PROFILE-0"].values()}
    for spec in TOOLS:
        if spec.name not in found:
            problems.append(f"the server has the tool {spec.name!r}, the profile does not")
            continue
        row = found[spec.name]
        arguments = set(_names(row[header.index("arguments")]))
        wanted = {(n, not f.is_required()) for n, f in spec.arguments.model_fields.items()}
        if arguments != wanted:
            problems.append(
                f"{spec.name}: arguments {sorted(wanted)}, the profile: {sorted(arguments)}"
            )
        results = {n for n, _ in _names(row[results_at])}
        if results != set(spec.result.model_fields):
            problems.append(
                f"{spec.name}: result fields {sorted(spec.result.model_fields)}, "
                f"the profile: {sorted(results)}"
            )
        if not any(a.endswith("-" + _slug(spec.name)) for a in anchors):
            problems.append(f"the profile has no numbered section headed `{spec.name}`")
    names = {spec.name for spec in TOOLS}
    problems += [
        f"the profile defines the tool {n!r}, the server has none" for n in found if n not in names
    ]
    return problems


_PREFIX = r"NUIF-0(?:\.1)?|MCP-PROFILE-0|RFC \d+|JSON-RPC 2\.0"
_RUN = r"§\d+(?:\.\d+)*(?:\s*(?:/|,|and|or|–)\s*§\d+(?:\.\d+)*)*"
_CITATION = re.compile(rf"(?:(?P<prefix>{_PREFIX})\s+)?(?P<run>{_RUN})")
_LINKED_CITATION = re.compile(r"(NUIF-0(?:\.1)?|MCP-PROFILE-0) §(\d+(?:\.\d+)*)")


def _document(prefix: str | None, bare: str | None) -> str | None:
    if prefix is None:
        return bare
    if prefix.startswith("NUIF-0"):
        return "NUIF-0"
    return "MCP-PROFILE-0" if prefix == "MCP-PROFILE-0" else None  # an RFC: not ours


def _cited(text: str, *, bare: str | None) -> list[tuple[str, str]]:
    """(document, section) of every citation run ("NUIF-0 §4 and §7.6"); a run without a prefix
    belongs to ``bare`` (None: ignored)."""
    out = []
    for m in _CITATION.finditer(text):
        doc = _document(m.group("prefix"), bare)
        if doc is not None:
            out += [(doc, s) for s in re.findall(r"§(\d+(?:\.\d+)*)", m.group("run"))]
    return out


def citation_problems(files: dict[Path, str], pages: dict[Path, str]) -> list[str]:
    """``files``: Markdown and code outside the spec; ``pages``: the spec pages. Paths are
    absolute; a link's target is resolved from the file that holds it.  A bare "§n" on a page of
    a document is a section of that document, on whichever of its pages."""
    sections = _section_index(pages)
    problems = []
    for path, text in {**files, **pages}.items():
        where = path.relative_to(ROOT) if path.is_relative_to(ROOT) else path
        for doc, section in _cited(text, bare=DOCUMENT_OF.get(path)):
            if section not in sections[doc]:
                problems.append(f"{where}: cites {doc} §{section}, which does not exist")
        if "shared/spec" in text:
            problems.append(f"{where}: points at shared/spec, which a clone does not have")
        if path.suffix != ".md":
            continue
        prose = re.sub(r"`[^`\n]*`", "", _without_code_blocks(text))  # code spans hold no links
        for m in re.finditer(r"\[([^\]]*)\]\(([^)\s]+)\)", prose):
            label, link = m.group(1), m.group(2)
            target, _, anchor = link.partition("#")
            if re.match(r"[a-z]+:", target):
                continue
            dest = (path.parent / target).resolve() if target else path
            if not dest.is_relative_to(SPEC) and path not in pages:
                continue  # neither end is in docs/spec
            if dest in pages:
                dest_text = pages[dest]
            elif dest.is_dir() and not anchor:
                continue
            elif dest.is_file():
                dest_text = dest.read_text(encoding="utf-8")
            else:
                problems.append(f"{where}: link to {link}, which does not exist")
                continue
            if anchor and dest.suffix == ".md" and anchor not in _anchors(dest_text):
                problems.append(f"{where}: link to {link}, which has no such heading")
            cited = _LINKED_CITATION.fullmatch(label)
            if cited:  # the page that has the section, and its heading when an anchor is given
                doc = _document(cited.group(1), None)
                page, heading = sections[doc].get(cited.group(2), (None, None))
                if dest != page or (anchor and anchor != heading):
                    problems.append(f"{where}: [{label}] links to {link}, not to that section")
    return problems


# --- the files ----------------------------------------------------------------------------------


def _spec_pages() -> dict[Path, str]:
    return {p: p.read_text(encoding="utf-8") for p in sorted(SPEC.glob("*.md"))}


def _repository_files() -> dict[Path, str]:
    """Markdown and code of the repository outside docs/spec (no environments or builds)."""
    out = {}
    for dirpath, dirnames, filenames in os.walk(ROOT):
        dirnames[:] = sorted(d for d in dirnames if not d.startswith(".") and d not in _PRUNE)
        here = Path(dirpath)
        if here == SPEC:
            continue
        for name in filenames:
            path = here / name
            if path == Path(__file__).resolve():
                continue  # this file plants violations on purpose
            if (
                path.suffix == ".md" or path.suffix in _CODE_SUFFIXES
            ) and path.stat().st_size < 4 << 20:
                out[path] = path.read_text(encoding="utf-8", errors="replace")
    return out


# --- the tests ----------------------------------------------------------------------------------


def test_the_spec_pages_exist() -> None:
    pages = _spec_pages()
    assert set(pages) == {SPEC / "README.md", *DOCUMENT_OF}, "a new spec page belongs in PAGES_OF"
    sections = _section_index(pages)
    assert set(sections["NUIF-0"]) >= {"1", "2", "3", "4", "5", "6", "7", "8"}
    assert set(sections["MCP-PROFILE-0"]) >= {"1", "2", "3", "4"}


def test_each_section_is_defined_once_and_each_table_is_on_its_sections_page() -> None:
    pages = _spec_pages()
    assert section_problems(pages) == []
    assert stray_table_problems(pages) == []


def test_error_codes_are_exactly_those_of_the_spec() -> None:
    pages = _spec_pages()
    assert error_code_problems(pages) == []
    assert unknown_code_problems({p.name: t for p, t in pages.items()}) == []


def test_limits_and_their_defaults_are_exactly_those_of_the_spec() -> None:
    assert limit_problems(_spec_pages()) == []


def test_the_mcp_profile_limits_are_those_of_the_server() -> None:
    assert mcp_limit_problems(_spec_pages()) == []


def test_patch_operations_are_exactly_those_of_the_spec() -> None:
    assert operation_problems(_spec_pages()) == []


def test_mcp_tools_are_exactly_those_of_the_profile() -> None:
    assert tool_problems(_spec_pages()) == []


def test_every_cited_section_and_spec_link_exists() -> None:
    files = _repository_files()
    assert ROOT / "README.md" in files and ROOT / "docs" / "errors.md" in files
    assert citation_problems(files, _spec_pages()) == []


# --- each checker can fail ----------------------------------------------------------------------


def _replace(old: str, new: str) -> Callable[[str], str]:
    def plant(text: str) -> str:
        assert old in text, f"the planted violation needs {old!r} in the page"
        return text.replace(old, new, 1)

    return plant


def _drop_row(first_cell: str) -> Callable[[str], str]:
    def plant(text: str) -> str:
        out, n = re.subn(rf"^\s*\| {re.escape(first_cell)} \|.*\n", "", text, count=1, flags=re.M)
        assert n == 1, f"no row starting {first_cell!r}"
        return out

    return plant


def _codes_named(pages: dict[Path, str]) -> list[str]:
    return unknown_code_problems({p.name: t for p, t in pages.items()})


#: name → (the page the violation is planted in, the checker, the plant)
_PLANTED = {
    # (a) error codes
    "code-missing": (NUIF_PAGE, error_code_problems, _drop_row("`NUIF_PATCH_ROOT`")),
    "code-extra": (
        NUIF_PAGE,
        error_code_problems,
        _replace("| `NUIF_ARGUMENTS` |", "| `NUIF_BOGUS` | §6.3 | no |\n| `NUIF_ARGUMENTS` |"),
    ),
    "code-section": (
        NUIF_PAGE,
        error_code_problems,
        _replace("| `NUIF_UTF8` | §1.1 |", "| `NUIF_UTF8` | §1.99 |"),
    ),
    "code-typo": (NUIF_PAGE, _codes_named, _replace("`NUIF_PATCH_ROOT`", "`NUIF_PATCH_ROOTS`")),
    "code-typo-elsewhere": (
        NUIF_PATCHES_PAGE,
        _codes_named,
        _replace("`NUIF_PATCH_ROOT`", "`NUIF_PATCH_ROOTS`"),
    ),
    # (b) limits
    "limit-default": (
        NUIF_PAGE,
        limit_problems,
        _replace("| `max_depth` | 128 |", "| `max_depth` | 64 |"),
    ),
    "limit-unit": (
        NUIF_PACKAGES_PAGE,
        limit_problems,
        _replace("| `max_asset_bytes` | 64 MiB |", "| `max_asset_bytes` | 64 KiB |"),
    ),
    "limit-missing": (NUIF_PACKAGES_PAGE, limit_problems, _drop_row("one entry, inflated")),
    "limit-extra": (NUIF_PAGE, limit_problems, _replace("| `max_nodes` |", "| `max_children` |")),
    "mcp-limit": (
        MCP_PAGE,
        mcp_limit_problems,
        _replace("`max_patch_bytes` | 1 MiB", "`max_patch_bytes` | 2 MiB"),
    ),
    "mcp-line": (
        MCP_PAGE,
        mcp_limit_problems,
        _replace("newline (§1.2) | 4 MiB", "newline (§1.2) | 1 MiB"),
    ),
    # (c) operations
    "op-missing": (NUIF_PATCHES_PAGE, operation_problems, _drop_row("`rename`")),
    "op-extra": (
        NUIF_PATCHES_PAGE,
        operation_problems,
        _replace("| `retype` |", "| `copy` | `id`, `to` | x | x |\n| `retype` |"),
    ),
    "op-members": (
        NUIF_PATCHES_PAGE,
        operation_problems,
        _replace("`parent`, `node`, `index`?", "`parent`, `node`, `index`"),
    ),
    "op-inverse": (
        NUIF_PATCHES_PAGE,
        operation_problems,
        _replace("| `retype`, `rename` |", "| `retype` |"),
    ),
    # (d) tools
    "tool-name": (
        MCP_PAGE,
        tool_problems,
        _replace("| `apply-patch` | `document`", "| `apply_patch` | `document`"),
    ),
    "tool-argument": (MCP_PAGE, tool_problems, _replace("`patch`, `include_inverse`?", "`patch`")),
    "tool-result": (
        MCP_PAGE,
        tool_problems,
        _replace("`canonical`, `hash`, `changed` |", "`canonical`, `hash` |"),
    ),
    # (e) sections and pages
    "section-twice": (
        NUIF_PATCHES_PAGE,
        section_problems,
        _replace("## 8. Cost model", "## 4. Cost model"),
    ),
    "section-twice-on-a-page": (
        NUIF_PACKAGES_PAGE,
        section_problems,
        _replace("### 7.7 Unpacking", "### 7.6 Unpacking"),
    ),
    "section-moved-away": (  # §5.3 no longer on the page with the operations table
        NUIF_PATCHES_PAGE,
        operation_problems,
        _replace("### 5.3 Operations", "### Operations"),
    ),
    "table-stray": (
        NUIF_PATCHES_PAGE,
        stray_table_problems,
        _replace(
            "## 8. Cost model", "| code | meaning |\n|---|---|\n| `NUIF_LIMIT_WORK` | x |\n\n## 8."
        ),
    ),
}


@pytest.mark.parametrize("name", list(_PLANTED))
def test_each_checker_catches_a_planted_violation(name: str) -> None:
    page, checker, plant = _PLANTED[name]
    pages = _spec_pages()
    assert checker(pages) == []
    assert checker({**pages, page: plant(pages[page])}) != []


def test_the_section_checker_catches_a_missing_page() -> None:
    pages = _spec_pages()
    del pages[NUIF_PACKAGES_PAGE]
    assert section_problems(pages) != []


@pytest.mark.parametrize(
    "planted",
    [
        "See NUIF-0 §10 for more.",
        "Limits: NUIF-0 §4 and §4.9.",
        "MCP-PROFILE-0 §3.9 says so.",
        "[the limits](spec/nuif-0.1.md#4-limitz)",
        "[NUIF-0 §4](spec/nuif-0.1.md#3-documents)",
        "[NUIF-0 §3.1](spec/mcp-profile-0.md#31-common-rules)",
        "[NUIF-0 §5.3](spec/nuif-0.1.md#53-operations)",  # §5 is on the patches page
        "[NUIF-0 §5.3](spec/nuif-0.1.md)",
        "[NUIF-0 §7](spec/nuif-0.1-patches.md)",
        "[the operations](spec/nuif-0.1-patches.md#53-operationz)",
        "[the profile](spec/mcp-profile-1.md)",
        "The contract: `../" + "shared/spec/NUIF-0.md`.",  # (split: git grep finds no such path)
    ],
)
def test_the_citation_checker_catches_a_planted_violation(planted: str) -> None:
    pages = _spec_pages()
    fake = ROOT / "docs" / "planted.md"
    good = (
        "NUIF-0 §4, §7.6 and [NUIF-0 §5](spec/nuif-0.1-patches.md#5-semantic-patches); "
        "[NUIF-0 §5.3](spec/nuif-0.1-patches.md#53-operations), "
        "[NUIF-0 §7](spec/nuif-0.1-packages.md), [NUIF-0 §4](spec/nuif-0.1.md#4-limits); RFC 6902 §4."
    )
    assert citation_problems({fake: good}, pages) == []
    assert citation_problems({fake: planted}, pages) != []
    assert citation_problems({fake.with_suffix(".py"): planted}, pages) != [] or "](" in planted


def test_the_citation_checker_catches_a_broken_link_or_section_inside_the_spec() -> None:
    pages = _spec_pages()
    assert citation_problems({}, pages) == []
    link = dict(pages)
    link[NUIF_PAGE] = pages[NUIF_PAGE].replace(
        "(mcp-profile-0.md#31-common-rules)", "(mcp-profile-0.md#31)"
    )
    assert link[NUIF_PAGE] != pages[NUIF_PAGE]
    assert citation_problems({}, link) != []
    section = dict(pages)
    section[MCP_PAGE] = pages[MCP_PAGE] + "\nSee §12.\n"
    assert citation_problems({}, section) != []


@pytest.mark.parametrize("page", PAGES_OF["NUIF-0"])
def test_a_bare_section_on_a_nuif_page_is_one_of_nuif_0(page: Path) -> None:
    pages = _spec_pages()
    elsewhere = {**pages, page: pages[page] + "\nSee §1.5, §5.3, §6.2 and §7.6.\n"}
    assert citation_problems({}, elsewhere) == []
    missing = {**pages, page: pages[page] + "\nSee §5.99.\n"}
    assert citation_problems({}, missing) != []
    mcp_only = {**pages, page: pages[page] + "\nSee §3.7.\n"}  # MCP-PROFILE-0 has §3.7, NUIF-0 not
    assert citation_problems({}, mcp_only) != []


# --- the catalog bounds (NUIF-0 §9.6) -------------------------------------------------------------

#: the rows of the §9.6 table, by their first cell → the bound's name in ``Catalog.BOUNDS``
_CATALOG_BOUND_ROWS = {
    "catalog text": "max_catalog_bytes",
    "kinds": "max_kinds",
    "schemas": "max_schemas",
    "literal values": "max_literal_values",
    "schema depth": "max_schema_depth",
    "`$ref` chain": "max_ref_chain",
    "pattern": "max_pattern_states",
    "all patterns": "max_catalog_pattern_states",
    "evaluation work": "max_evaluation_work",
}


def _catalog_bound_problems(text: str) -> list[str]:
    from nuif_core import Catalog

    section = text[text.index("### 9.6 Bounds") : text.index("### 9.7")]
    rows = {}
    for line in section.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("|") and len(cells) == 3 and cells[0] not in ("bound", "---"):
            rows[cells[0]] = cells[1]
    problems = []
    if set(rows) != set(_CATALOG_BOUND_ROWS):
        problems.append(f"the rows of §9.6 are {sorted(rows)}")
    for row, name in _CATALOG_BOUND_ROWS.items():
        value = Catalog.BOUNDS[name]
        written = "1 MiB" if name == "max_catalog_bytes" else f"{value:,}"
        if row in rows and not rows[row].startswith(written):
            problems.append(f"§9.6 {row}: {rows[row]!r}, the code has {value:,}")
    group = Catalog.BOUNDS["max_group_depth"]
    if f"Groups nest at most {group} deep" not in text:
        problems.append(f"§9.4 does not say groups nest at most {group} deep")
    names = set(_CATALOG_BOUND_ROWS.values()) | {"max_group_depth"}
    if names != set(Catalog.BOUNDS):
        problems.append(f"Catalog.BOUNDS has {sorted(set(Catalog.BOUNDS) - names)} unlisted")
    return problems


def test_the_catalog_bounds_are_the_code_s() -> None:
    assert _catalog_bound_problems(NUIF_CATALOGS_PAGE.read_text("utf-8")) == []


def test_the_catalog_bound_check_catches_a_changed_value() -> None:
    text = NUIF_CATALOGS_PAGE.read_text("utf-8")
    planted = text.replace(
        "| evaluation work | 10,000,000 units |", "| evaluation work | 9 units |"
    )
    assert planted != text
    assert any("evaluation work" in p for p in _catalog_bound_problems(planted))
