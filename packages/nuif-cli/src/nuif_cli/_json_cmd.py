"""``nuif json canonicalize|hash|check FILE…``: RFC 8785 for any strict I-JSON text.

The same reading and writing as ``nuif_core.canonical_json`` (NUIF-0 §1, §2), for JSON that is
not a NUIF document: signatures, content addresses, lock files.  Registered by
``_cli.build_parser``; the per-file work is ``_batch``'s, with ``options["json"]`` set.
"""

from __future__ import annotations

import argparse
import sys
from typing import Any

HELP = "canonical JSON (RFC 8785) of any strict I-JSON text, not only NUIF documents"

DESCRIPTION = """\
RFC 8785 (JSON Canonicalization Scheme) for any JSON text that is strict I-JSON (RFC 7493),
the same bytes as nuif_core.canonical_json.

Refused, although lax JSON tools accept them (each is an error with its line and column, exit 1):
  lone surrogates ("\\ud800")       UTF-8 cannot hold them: each tool writes something else (an
                                   error, U+FFFD, raw bytes), so there is no one canonical text
  noncharacters (U+FDD0..U+FDEF,   I-JSON forbids them; they are for a program's internal use
    U+FFFE, U+FFFF, ...)           and do not travel
  big integers (9007199254740993)  RFC 8785 writes every number as an IEEE double; an integer
                                   beyond 2^53 that is not exactly the text of a double would be
                                   silently changed (…993 becomes …992), so it is refused rather
                                   than altered. 100000000000000000000 (how RFC 8785 writes 1e20)
                                   is accepted
  duplicate member names           I-JSON forbids them: parsers disagree on which one wins
  also: a byte-order mark, comments, trailing commas, NaN and Infinity, invalid UTF-8, numbers
  that overflow, nesting deeper than 128, texts over 16 MiB.

A file is canonical as the canonical text, or the canonical text and one line feed (NUIF-0
§2.4); canonicalize writes the text and one line feed unless --no-newline.  Hashes are sha256
of the canonical text alone.  Exit status: 0 ok; 1 invalid input or not canonical; 2 usage error
or unreadable/unwritable file."""


def add_parser(sub: Any, common: argparse.ArgumentParser, batch: argparse.ArgumentParser) -> None:
    """``nuif json`` and its three commands; ``common`` and ``batch`` are the shared option
    groups of ``_cli.build_parser`` (-v; -j/--no-progress)."""
    from ._cli import add_report_options

    group = sub.add_parser(
        "json",
        help=HELP,
        description=DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
        parents=[common],
    )
    cmds = group.add_subparsers(dest="json_command", metavar="COMMAND")

    def add(name: str, help: str) -> argparse.ArgumentParser:
        p: argparse.ArgumentParser = cmds.add_parser(
            name,
            help=help,
            description=help + "\n\n" + DESCRIPTION,
            formatter_class=argparse.RawDescriptionHelpFormatter,
            parents=[common, batch],
        )
        p.add_argument("files", nargs="+", metavar="FILE", help="JSON texts ('-' = stdin)")
        p.set_defaults(parser=p)
        return p

    p = add("canonicalize", "write the RFC 8785 canonical text, or fix files in place")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "-o", "--output", metavar="OUT", help="write to OUT ('-' = stdout, the default)"
    )
    mode.add_argument("-i", "--in-place", action="store_true", help="rewrite each file atomically")
    p.add_argument(
        "--no-newline",
        action="store_true",
        help="write the bare canonical text, without the final line feed",
    )
    add_report_options(p, "one JSON object per file (hash, canonical, error; with one FILE: text)")
    p.set_defaults(run=cmd_canonicalize)

    p = add("hash", "print 'sha256:<hex>  FILE': the SHA-256 of each file's canonical text")
    add_report_options(p, "one JSON object per file (hash, valid, canonical, error)")
    p.set_defaults(run=cmd_hash)

    p = add("check", "list the files that are not canonical (exit 1)")
    add_report_options(p, "one JSON object per file (hash, valid, canonical, error)")
    p.set_defaults(run=cmd_check)

    group.set_defaults(run=_missing_command, parser=group)


def _missing_command(args: argparse.Namespace) -> int:
    from ._io import UsageError

    args.parser.print_usage(sys.stderr)
    raise UsageError("nuif json needs a command: canonicalize, hash or check")


OPTIONS = {"json_text": True}


def cmd_canonicalize(args: argparse.Namespace) -> int:
    from ._cli import EXIT_OK, _one_stdin, canonicalize_many
    from ._io import STDIO

    files = list(args.files)
    _one_stdin(*files)
    options = {**OPTIONS, "no_newline": args.no_newline}
    ran = canonicalize_many(args, files, options, "json canonicalize", "")
    if ran is not None:
        return ran
    from nuif_core import Limits, canonical_json

    from ._diag import named, read_document
    from ._io import canonical_file, write_output

    data = read_document(files[0], Limits.DEFAULT.max_document_bytes, "JSON")
    with named(files[0], data):
        canonical = canonical_json(data)
    write_output(args.output or STDIO, canonical_file(canonical, args.no_newline))
    return EXIT_OK


def cmd_hash(args: argparse.Namespace) -> int:
    from ._cli import _one_stdin, run_files

    _one_stdin(*args.files)
    return run_files(args, "hash", list(args.files), OPTIONS, "json hash")


def cmd_check(args: argparse.Namespace) -> int:
    from ._cli import _one_stdin, run_files

    _one_stdin(*args.files)
    return run_files(args, "check", list(args.files), OPTIONS, "json check")
