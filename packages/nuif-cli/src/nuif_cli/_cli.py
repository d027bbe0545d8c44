"""The ``nuif`` command line (reference: docs/cli.md).

Conventions: data on stdout, diagnostics on stderr; ``-`` is stdin or stdout; exit status 0 when
everything is fine, 1 when a document, patch or package is invalid or a check failed, 2 for a
usage error or a file that cannot be read or written.  Errors are one short line
(``nuif: NUIF_CODE: message``) unless ``-v`` asks for the traceback.

Start-up cost matters (``nuif hash`` runs in editors' save hooks): this module imports only the
standard library pieces argparse needs; the core and everything else are imported inside the
command that uses them.
"""

from __future__ import annotations

import argparse
import sys
from typing import TYPE_CHECKING

if TYPE_CHECKING:  # typing costs start-up time; annotations are strings here
    from collections.abc import Sequence
    from typing import Any

from ._diag import named, read_document
from ._io import STDIO, UsageError

EXIT_OK = 0
EXIT_INVALID = 1
EXIT_USAGE = 2
#: ended by SIGTERM after cleaning up (128 + 15, what a shell shows for a process it killed)
EXIT_TERMINATED = 143

_DESCRIPTION = """\
Validate, canonicalize, hash, patch, diff and package NUIF documents.

Exit status: 0 ok; 1 invalid input or failed check; 2 usage error or unreadable/unwritable file.
Try `nuif demo` for a short tour.  Reference: docs/cli.md."""


class _VersionAction(argparse.Action):
    """``--version``, computed only when asked (importing metadata costs start-up time)."""

    def __init__(self, option_strings: Sequence[str], dest: str, **kwargs: Any) -> None:
        super().__init__(option_strings, dest, nargs=0, default=argparse.SUPPRESS, **kwargs)

    def __call__(self, parser: argparse.ArgumentParser, *args: Any, **kwargs: Any) -> None:
        print(version_text())
        parser.exit(EXIT_OK)


def version_text() -> str:
    import platform
    from importlib import metadata

    import nuif_core

    try:
        cli_version = metadata.version("nuif-cli")
    except metadata.PackageNotFoundError:  # pragma: no cover - running from a source tree
        cli_version = "unknown"
    codec = f"{nuif_core.IMPLEMENTATION} codec"
    if nuif_core.ROUTES:
        # the compiled codec's optional routes, for bug reports (docs/format.md)
        codec += f" [{', '.join(nuif_core.ROUTES)}]"
    return (
        f"nuif {cli_version} (nuif-core {nuif_core.__version__}, {codec}, "
        f"Python {platform.python_version()})"
    )


def _jobs(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a number of processes, got {value!r}") from None
    if n < 0:
        raise argparse.ArgumentTypeError("--jobs must be 0 (every CPU) or more")
    return n


def _positive(value: str) -> int:
    try:
        n = int(value)
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected a positive number, got {value!r}") from None
    if n < 1:
        raise argparse.ArgumentTypeError("expected a positive number")
    return n


def add_report_options(p: argparse.ArgumentParser, json_help: str) -> None:
    """``-q/--quiet`` and ``--json``, the options of every command that reports."""
    p.add_argument(
        "-q",
        "--quiet",
        action="store_true",
        help="print no OK lines, summaries or progress: only failures, errors and data",
    )
    p.add_argument("--json", action="store_true", help=json_help)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="nuif",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action=_VersionAction, help="print the versions and exit")
    parser.add_argument(
        "-v", "--verbose", action="count", default=0, help="show tracebacks on errors"
    )
    # -v is also accepted after the command name (SUPPRESS keeps the top-level value)
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument(
        "-v", "--verbose", action="count", default=argparse.SUPPRESS, help="show tracebacks"
    )
    batch = argparse.ArgumentParser(add_help=False)
    batch.add_argument(
        "-j",
        "--jobs",
        type=_jobs,
        default=None,
        metavar="N",
        help="worker processes (0 = every CPU; default: 1, or every CPU from 256 files on)",
    )
    batch.add_argument(
        "--no-progress", action="store_true", help="never draw the progress bar on stderr"
    )

    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, help: str, *parents: argparse.ArgumentParser) -> argparse.ArgumentParser:
        p = sub.add_parser(name, help=help, description=help, parents=[common, *parents])
        p.set_defaults(parser=p)  # a usage error shows this command's usage
        return p

    p = add(
        "validate", "report every problem of each document as FILE:LINE:COL: CODE message", batch
    )
    p.add_argument("files", nargs="+", metavar="FILE", help="documents ('-' = stdin)")
    p.add_argument(
        "--max-diagnostics",
        type=_positive,
        default=10_000,
        metavar="N",
        help="at most N diagnostics per file (default 10000)",
    )
    add_report_options(p, "one JSON report per line instead")
    p.add_argument(
        "--catalog",
        metavar="FILE",
        help="also check each document against this kind catalog (NUIF-0 §9; '-' = stdin)",
    )
    p.set_defaults(run=cmd_validate)

    p = add("inspect", "summarize a document: hash, sizes, kinds, depth, outline")
    p.add_argument("file", metavar="FILE", help="document ('-' = stdin)")
    add_report_options(p, "print the summary as JSON")
    p.add_argument(
        "--outline",
        type=int,
        default=50,
        metavar="N",
        help="show at most N outline nodes (default 50)",
    )
    p.set_defaults(run=cmd_inspect)

    p = add("canonicalize", "write the canonical text, check it, or fix files in place", batch)
    p.add_argument("files", nargs="+", metavar="FILE", help="documents ('-' = stdin)")
    mode = p.add_mutually_exclusive_group()
    mode.add_argument(
        "-o", "--output", metavar="OUT", help="write to OUT ('-' = stdout, the default)"
    )
    mode.add_argument("-i", "--in-place", action="store_true", help="rewrite each file atomically")
    mode.add_argument(
        "--check", action="store_true", help="list the files that are not canonical (exit 1)"
    )
    p.add_argument(
        "--no-newline",
        action="store_true",
        help="write the bare canonical text, without the final line feed",
    )
    add_report_options(p, "one JSON object per file (hash, canonical, error; with one FILE: text)")
    p.set_defaults(run=cmd_canonicalize)

    p = add("hash", "print 'sha256:<hex>  FILE' lines, or check them with --check LIST", batch)
    p.add_argument("files", nargs="*", metavar="FILE", help="documents ('-' = stdin)")
    p.add_argument("-c", "--check", metavar="LIST", help="verify the lines of LIST ('-' = stdin)")
    add_report_options(p, "one JSON object per file (hash, valid, error; with --check: ok)")
    p.set_defaults(run=cmd_hash)

    p = add("apply-patch", "apply a semantic patch to a document")
    p.add_argument("document", metavar="DOC", help="document ('-' = stdin)")
    p.add_argument("patch", metavar="PATCH", help="patch ('-' = stdin)")
    p.add_argument(
        "-o", "--output", default=STDIO, metavar="OUT", help="new document ('-' = stdout)"
    )
    p.add_argument("--inverse", metavar="FILE", help="also write the inverse patch to FILE")
    p.add_argument(
        "--catalog",
        metavar="FILE",
        help="refuse a patch whose result breaks this kind catalog (NUIF-0 §9; '-' = stdin)",
    )
    add_report_options(p, "print the whole result (hashes, counts) as JSON")
    p.set_defaults(run=cmd_apply_patch)

    p = add("diff", "print the patch that turns document A into document B")
    p.add_argument("a", metavar="A", help="old document ('-' = stdin)")
    p.add_argument("b", metavar="B", help="new document ('-' = stdin)")
    p.add_argument("-o", "--output", default=STDIO, metavar="OUT", help="patch file ('-' = stdout)")
    p.add_argument(
        "--exit-code", action="store_true", help="exit 1 when the documents differ (like git diff)"
    )
    add_report_options(p, "print the hashes, whether they differ, and the patch as JSON")
    p.set_defaults(run=cmd_diff)

    p = add("pack", "build a .nuif package from a document and an assets directory")
    p.add_argument("document", metavar="DOC", help="document ('-' = stdin)")
    p.add_argument("--assets", metavar="DIR", help="directory whose files become assets/…")
    p.add_argument(
        "-o", "--output", required=True, metavar="OUT.nuif", help="package ('-' = stdout)"
    )
    p.set_defaults(run=cmd_pack)

    p = add("unpack", "verify a .nuif package and extract it into a new directory")
    p.add_argument("package", metavar="PKG", help="package ('-' = stdin)")
    p.add_argument("-o", "--output", required=True, metavar="DIR", help="directory to create")
    add_report_options(p, "print the hash, the directory and the asset count as JSON")
    p.set_defaults(run=cmd_unpack)

    p = add("verify", "check every name, size and hash of .nuif packages")
    p.add_argument("packages", nargs="+", metavar="PKG", help="packages ('-' = stdin)")
    add_report_options(p, "one JSON summary per line")
    p.set_defaults(run=cmd_verify)

    from ._batch_cmd import add_parser as add_batch  # nuif batch: Dask (docs/scale.md)

    add_batch(sub, common)

    from ._json_cmd import add_parser as add_json  # nuif json: RFC 8785 of any JSON

    add_json(sub, common, batch)

    p = add("demo", "a short end-to-end run on a bundled example document")
    p.add_argument(
        "--dir", metavar="DIR", help="keep the files in DIR (default: a temporary directory)"
    )
    p.set_defaults(run=cmd_demo)

    p = add("completion", "print a shell completion script for nuif (bash, zsh or fish)")
    p.add_argument("shell", choices=["bash", "zsh", "fish"], help="the shell")
    p.epilog = (
        "install: bash: nuif completion bash > ~/.local/share/bash-completion/completions/nuif; "
        "zsh: nuif completion zsh > ~/.zfunc/_nuif (with fpath+=~/.zfunc before compinit); "
        "fish: nuif completion fish > ~/.config/fish/completions/nuif.fish"
    )
    p.set_defaults(run=cmd_completion)

    p = add("playground", "serve the NUIF playground page on 127.0.0.1 and print its address")
    p.add_argument("--port", type=int, default=8787, help="port (default 8787; 0 = any free one)")
    p.add_argument("--pyodide", metavar="DIR", help="the Pyodide runtime folder (docs/web.md)")
    p.add_argument("--wheel", metavar="FILE", help="serve this pure nuif-core wheel")
    p.set_defaults(run=cmd_playground)
    return parser


# ---------------------------------------------------------------------------------------------
# entry point


def main(argv: list[str] | None = None) -> int:
    """Run the ``nuif`` command line and return its exit status (never raises SystemExit)."""
    parser = build_parser()
    try:
        args, extras = parser.parse_known_args(argv)
        if extras:  # said by the command's own parser, with its usage (not the top-level one)
            getattr(args, "parser", parser).error(f"unrecognized arguments: {' '.join(extras)}")
    except SystemExit as exc:  # --help, --version, usage errors
        code = exc.code
        return code if isinstance(code, int) else (EXIT_OK if code is None else EXIT_USAGE)
    if getattr(args, "run", None) is None:
        parser.print_usage(sys.stderr)
        print(
            "nuif: error: a command is required (try 'nuif --help' or 'nuif demo')", file=sys.stderr
        )
        return EXIT_USAGE
    try:
        with _TerminateAsInterrupt():
            return _run(args)
    except Terminated:  # between the command's end and the handler's removal
        print("nuif: terminated", file=sys.stderr)
        return EXIT_TERMINATED


def _run(args: argparse.Namespace) -> int:
    try:
        return int(args.run(args))
    except UsageError as exc:
        _fail(args, exc, f"nuif: error: {exc}")
        return EXIT_USAGE
    except CatalogError as exc:
        _fail(args, exc, f"nuif: {exc}")
        return EXIT_USAGE
    except BrokenPipeError:
        # the reader went away (`nuif hash * | head`): stop quietly, as cat does
        _silence_stdout()
        return EXIT_INVALID
    except KeyboardInterrupt as exc:
        if isinstance(exc, Terminated):
            print("nuif: terminated", file=sys.stderr)
            return EXIT_TERMINATED
        print("nuif: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:
        from nuif_core import NuifError

        from ._diag import InputError
        from ._io import OutputError

        if isinstance(exc, InputError):
            _fail(args, exc.error, str(exc))
            return EXIT_INVALID
        if isinstance(exc, NuifError):
            _fail(args, exc, f"nuif: {exc}")
            return EXIT_INVALID
        if isinstance(exc, OutputError):
            _fail(args, exc, f"nuif: NUIF_IO: {exc}")
            return EXIT_USAGE
        if isinstance(exc, OSError):
            from ._diag import quoted

            filename = exc.filename
            if isinstance(filename, bytes):
                import os

                filename = os.fsdecode(filename)
            name = f"{quoted(str(filename))}: " if filename else ""
            _fail(args, exc, f"nuif: {name}{exc.strerror or exc}")
            return EXIT_USAGE
        _fail(args, exc, f"nuif: internal error: {type(exc).__name__}: {exc}")
        return EXIT_USAGE


class Terminated(KeyboardInterrupt):
    """SIGTERM, raised in the main thread like Ctrl-C so that every ``finally`` and ``except
    BaseException`` runs: temporary files are removed and a cluster is closed (exit 143)."""


class _TerminateAsInterrupt:
    """While a command runs, SIGTERM raises :class:`Terminated` (once: a second SIGTERM during
    the clean-up is ignored); the previous handler is restored afterwards."""

    def __init__(self) -> None:
        self.installed = False
        self.previous: Any = None
        self.fired = False

    def _handler(self, signum: int, frame: Any) -> None:
        if not self.fired:
            self.fired = True
            raise Terminated()

    def __enter__(self) -> None:
        import signal

        if not hasattr(signal, "SIGTERM"):
            return
        try:
            self.previous = signal.signal(signal.SIGTERM, self._handler)
        except ValueError:  # not the main thread of the main interpreter: leave SIGTERM alone
            return
        self.installed = True

    def __exit__(self, *exc: Any) -> None:
        if self.installed:
            import signal

            previous = signal.SIG_DFL if self.previous is None else self.previous
            signal.signal(signal.SIGTERM, previous)


class CatalogError(Exception):
    """The ``--catalog`` FILE is not a valid catalog (exit 2): reads
    ``FILE:LINE:COL: NUIF_CATALOG message (at POINTER)``, as a diagnostic of a document does."""

    def __init__(self, name: str, error: Any) -> None:
        from ._diag import line

        self.error = error
        # as every diagnostic: the user's name for the file, <stdin> for '-'
        super().__init__(
            line(name, error.code, error.message, error.pointer, error.line, error.column)
        )


def read_catalog(name: str) -> bytes:
    """The text of the ``--catalog`` FILE (``-`` = stdin), checked: a catalog that is not valid
    raises :class:`CatalogError`.  The text is what is passed on (workers compile it once each)."""
    from nuif_core import Catalog, NuifError

    from ._io import read_input

    try:
        data = read_input(name, Catalog.BOUNDS["max_catalog_bytes"], "catalog")
        Catalog(data)
    except NuifError as err:
        if err.code != "NUIF_CATALOG":  # the file is longer than a catalog may be
            err = NuifError("NUIF_CATALOG", "catalog: " + err.message)
        raise CatalogError(name, err) from None
    return data


def _fail(args: argparse.Namespace, exc: BaseException, line: str) -> None:
    if getattr(args, "verbose", 0):
        import traceback

        traceback.print_exception(exc, file=sys.stderr)
    from ._style import Painter

    print(Painter.for_stream(sys.stderr).line(line), file=sys.stderr)


def _silence_stdout() -> None:
    import os

    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, AttributeError):
        pass


def _one_stdin(*names: str | None) -> None:
    if sum(1 for n in names if n == STDIO) > 1:
        raise UsageError("stdin ('-') can be read only once")


# ---------------------------------------------------------------------------------------------
# batch commands


def _run_batch(
    args: argparse.Namespace, op: str, items: list[Any], options: dict[str, Any], label: str
) -> tuple[int, int, int]:
    """Run a batch, print its lines in input order, return (worst status, failures, changed)."""
    from ._batch import Progress, run
    from ._style import Painter

    quiet = getattr(args, "quiet", False)
    progress = Progress.for_stderr(len(items), label, args.no_progress or quiet)
    paint_out, paint_err = Painter.for_stream(sys.stdout), Painter.for_stream(sys.stderr)
    worst = failures = changed = 0
    out = sys.stdout
    try:
        out_is_tty = out.isatty()
    except (AttributeError, ValueError):
        out_is_tty = False
    try:
        for status, out_lines, err_lines, did_change in run(
            op, items, options, args.jobs, progress
        ):
            if err_lines or (out_lines and out_is_tty):  # the bar shares the terminal
                progress.clear()
            for line in out_lines:
                out.write(paint_out.line(line) + "\n")
            if err_lines:
                out.flush()
                for line in err_lines:
                    print(paint_err.line(line), file=sys.stderr)
            worst = max(worst, status)
            failures += status != 0
            changed += did_change
    finally:
        progress.clear()
        out.flush()
    return worst, failures, changed


def _note(args: argparse.Namespace, text: str) -> None:
    """A summary or a note on stderr (not with -q/--quiet, nor with --json)."""
    if not (getattr(args, "quiet", False) or getattr(args, "json", False)):
        print(text, file=sys.stderr)


def run_files(
    args: argparse.Namespace, op: str, items: list[Any], options: dict[str, Any], label: str
) -> int:
    """The many-file commands (``_batch`` operations) with the report options: ``--json`` gives
    one JSON object per file, ``-q`` drops the OK lines and the summary.  Returns the worst
    status."""
    options = {**options, "report": args.json, "quiet": args.quiet}
    worst, failures, changed = _run_batch(args, op, items, options, label)
    n = len(items)
    if op == "check" and failures:
        invalid = failures - changed
        _note(
            args,
            f"nuif: {changed} of {n} files are not canonical"
            + (f", {invalid} invalid or unreadable" if invalid else ""),
        )
    elif op == "in-place":
        _note(
            args,
            f"nuif: {changed} file{'s' if changed != 1 else ''} canonicalized, "
            f"{n - changed - failures} already canonical"
            + (f", {failures} failed" if failures else ""),
        )
    elif op == "validate" and failures and n > 1:
        _note(args, f"nuif: {failures} of {n} files are invalid or unreadable")
    elif op == "hash-check" and failures:
        _note(args, f"nuif: WARNING: {failures} of {n} computed hashes did NOT match")
    return worst


def cmd_validate(args: argparse.Namespace) -> int:
    _one_stdin(*args.files, args.catalog)
    catalog = read_catalog(args.catalog) if args.catalog is not None else None
    if args.json:
        return _validate_json(args, catalog)
    return run_files(
        args,
        "validate",
        list(args.files),
        {"max_diagnostics": args.max_diagnostics, "catalog": catalog},
        "validate",
    )


def _validate_json(args: argparse.Namespace, catalog: bytes | None = None) -> int:
    import json

    from nuif_core import Limits, NuifError, validate

    from ._diag import shown
    from ._io import read_input

    worst = 0
    for name in args.files:
        try:
            data = read_input(name, Limits.DEFAULT.max_document_bytes)
        except OSError as exc:
            print(f"nuif: {shown(name)}: {exc.strerror or exc}", file=sys.stderr)
            worst = max(worst, EXIT_USAGE)
            continue
        except NuifError as err:
            report: dict[str, Any] = {
                "valid": False,
                "hash": None,
                "diagnostics": [err.to_dict()],
                "truncated": False,
            }
        else:
            report = validate(data, max_diagnostics=args.max_diagnostics, catalog=catalog).to_dict()
        if not report["valid"]:
            worst = max(worst, EXIT_INVALID)
        print(json.dumps({"file": name, **report}, ensure_ascii=False))
    return worst


def canonicalize_many(
    args: argparse.Namespace, files: list[str], options: dict[str, Any], label: str, more: str
) -> int | None:
    """The forms of ``canonicalize`` and ``json canonicalize`` that are batch runs (``-i``, or
    ``--json`` of one FILE), or None when the call writes one FILE's text (the caller's job);
    ``more`` names the other many-file option the message suggests, if any."""
    if args.in_place:
        if STDIO in files:
            raise UsageError("--in-place needs files, not stdin ('-')")
        return run_files(args, "in-place", files, options, label)
    if len(files) != 1:
        raise UsageError(f"several files need --in-place{more} (one output cannot hold them)")
    if args.json:
        if args.output not in (None, STDIO):
            raise UsageError("--json prints to stdout (no -o)")
        return run_files(args, "canonical-text", files, options, label)
    return None


def cmd_canonicalize(args: argparse.Namespace) -> int:
    from ._io import canonical_file, write_output

    files = list(args.files)
    _one_stdin(*files)
    options = {"no_newline": args.no_newline}
    if args.check:
        if args.no_newline:
            raise UsageError(
                "--no-newline says what to write; --check writes nothing (a file is canonical "
                "with or without its one final line feed)"
            )
        return run_files(args, "check", files, options, "check")
    ran = canonicalize_many(args, files, options, "canonicalize", " or --check")
    if ran is not None:
        return ran
    from nuif_core import Limits, canonicalize

    data = read_document(files[0], Limits.DEFAULT.max_document_bytes)
    with named(files[0], data):
        result = canonicalize(data)
    write_output(args.output or STDIO, canonical_file(result.canonical, args.no_newline))
    return EXIT_OK


def cmd_hash(args: argparse.Namespace) -> int:
    if args.check is not None:
        if args.files:
            raise UsageError("give either FILE arguments or --check LIST, not both")
        return _hash_check(args)
    if not args.files:
        raise UsageError("give at least one FILE ('-' for stdin), or --check LIST")
    _one_stdin(*args.files)
    return run_files(args, "hash", list(args.files), {}, "hash")


def parse_hash_line(line: bytes) -> tuple[str, str] | None:
    """``sha256:<hex>  FILE`` (two spaces, or one, or ``' *'`` as sha256sum writes it), the
    bytes of one line of a list; a line that starts with a backslash holds FILE in the escaped
    form ``nuif hash`` writes for names that need it (``_diag.quoted``; GNU sha256sum's form).
    Returns ``(hash, FILE)``, FILE as ``os.fsdecode`` gives names; None for a malformed line."""
    import re

    from ._diag import unquoted

    escaped = line.startswith(b"\\")
    m = re.fullmatch(rb"(sha256:[0-9a-f]{64}) [ *]?(.+)", line[1:] if escaped else line, re.DOTALL)
    if not m:
        return None
    name = unquoted(m.group(2), escaped)  # a literal name may start with a backslash too
    return None if name is None else (m.group(1).decode("ascii"), name)


def _hash_check(args: argparse.Namespace) -> int:
    from ._diag import shown
    from ._io import read_input

    raw = read_input(args.check, 64 * 1024 * 1024, "hash list")
    items: list[tuple[str, str]] = []
    bad_lines = 0
    # lines end at line feeds only (a name may hold U+2028, a form feed…, which nuif hash
    # escapes but another writer may not); a CR before the LF is a CRLF list's (nuif hash
    # escapes every CR of a name, docs/cli.md)
    lines = raw.split(b"\n")
    if lines and not lines[-1]:
        lines.pop()
    for number, line in enumerate(lines, 1):
        if line.endswith(b"\r"):
            line = line[:-1]
        if not line.strip():
            continue
        parsed = parse_hash_line(line)
        if parsed is None:
            bad_lines += 1
            print(
                f"nuif: {shown(args.check)}:{number}: not a 'sha256:<hex>  FILE' line",
                file=sys.stderr,
            )
        else:
            items.append(parsed)
    _one_stdin(args.check, *(name for _, name in items))
    if not items and not bad_lines:
        raise UsageError(f"{shown(args.check)} lists no files")
    worst = run_files(args, "hash-check", items, {}, "hash --check")
    return max(worst, EXIT_INVALID if bad_lines else EXIT_OK)


# ---------------------------------------------------------------------------------------------
# single-document commands


def cmd_inspect(args: argparse.Namespace) -> int:
    import nuif_core

    if args.outline < 0:
        raise UsageError("--outline must be 0 or more")
    data = read_document(args.file, nuif_core.Limits.DEFAULT.max_document_bytes)
    with named(args.file, data):
        info = nuif_core.inspect(data, max_outline_nodes=args.outline)
    if args.json:
        import json

        print(json.dumps({"file": args.file, **info.to_dict()}, ensure_ascii=False, indent=2))
        return EXIT_OK
    from ._diag import quoted

    kinds = ", ".join(f"{kind} {count}" for kind, count in info.kinds.items())
    canonical = "yes" if info.is_canonical else "no"
    lines = [
        f"file       {quoted(args.file)}",
        f"hash       {info.hash}",
        f"canonical  {canonical} ({info.canonical_bytes} bytes canonical, {info.input_bytes} as given)",
        f"nodes      {info.node_count}, depth {info.max_depth}",
        f"root       {info.root.id} ({info.root.kind})",
        f"kinds      {kinds}",
    ]
    if info.outline:
        lines.append("outline")
        for entry in info.outline:
            children = f"  [{entry.children} children]" if entry.children else ""
            lines.append(f"  {'  ' * (entry.depth - 1)}{entry.id}  {entry.kind}{children}")
        if info.truncated:
            lines.append(f"  … {info.node_count - len(info.outline)} more nodes (--outline N)")
    print("\n".join(lines))
    return EXIT_OK


def cmd_apply_patch(args: argparse.Namespace) -> int:
    import nuif_core

    from ._diag import InputError, first_invalid
    from ._diag import line as diagnostic_line
    from ._io import write_output

    _one_stdin(args.document, args.patch, args.catalog)
    if args.inverse == STDIO or (args.json and args.output != STDIO):
        raise UsageError("--inverse needs a file; --json prints to stdout (no -o)")
    from ._io import check_outputs

    check_outputs(("-o", args.output), ("--inverse", args.inverse))
    catalog = read_catalog(args.catalog) if args.catalog is not None else None
    limits = nuif_core.Limits.DEFAULT
    document = read_document(args.document, limits.max_document_bytes)
    patch = read_document(args.patch, limits.max_patch_bytes, "patch")
    try:
        result = nuif_core.apply_patch(
            document, patch, inverse=args.inverse is not None, catalog=catalog
        )
    except nuif_core.NuifError as err:
        # the document is checked first: when it is valid, the patch is at fault
        if first_invalid([(args.document, document)]) is not None:
            raise InputError(args.document, err, document) from None
        if err.code in ("NUIF_CATALOG_KIND", "NUIF_CATALOG_ATTRS", "NUIF_CATALOG_CHILDREN"):
            # the patched document breaks the catalog: the pointer is into that document, which
            # is no file, so the patch is named without a line and column
            text = diagnostic_line(args.patch, err.code, err.message, err.pointer)
            raise InputError(args.patch, err, text=text) from None
        raise InputError(args.patch, err, patch) from None
    if args.inverse is not None:
        from ._io import write_file

        assert result.inverse is not None  # asked for with inverse=True
        write_file(args.inverse, result.inverse)
    if args.json:
        import json

        print(json.dumps(result.to_dict(), ensure_ascii=False, indent=2))
    else:
        write_output(args.output, result.canonical, newline_on_tty=True)
    return EXIT_OK


def cmd_diff(args: argparse.Namespace) -> int:
    import nuif_core

    from ._diag import InputError, first_invalid
    from ._io import write_output

    _one_stdin(args.a, args.b)
    limit = nuif_core.Limits.DEFAULT.max_document_bytes
    a = read_document(args.a, limit)
    b = read_document(args.b, limit)
    if args.json and args.output != STDIO:
        raise UsageError("--json prints to stdout (no -o)")
    try:
        patch = nuif_core.diff(a, b)
    except nuif_core.NuifError as err:
        culprit = first_invalid([(args.a, a), (args.b, b)])
        if culprit is None:  # both valid: no patch within the limits (neither input's fault)
            raise
        raise InputError(culprit, err, a if culprit == args.a else b) from None
    hash_a, hash_b = nuif_core.document_hash(a), nuif_core.document_hash(b)
    if args.json:
        import json

        report = {
            "a": args.a,
            "b": args.b,
            "base": hash_a,
            "hash": hash_b,
            "differ": hash_a != hash_b,
            "patch": json.loads(patch),
        }
        print(json.dumps(report, ensure_ascii=False, indent=2))
    else:
        write_output(args.output, patch, newline_on_tty=True)
    if args.exit_code and hash_a != hash_b:
        return EXIT_INVALID
    return EXIT_OK


# ---------------------------------------------------------------------------------------------
# packages


def _package_source(name: str) -> Any:
    """A package path, or the bytes of stdin (a ZIP needs seeking), bounded by the limits."""
    if name != STDIO:
        return name
    from nuif_core import Limits

    limit = Limits.DEFAULT.max_package_bytes + Limits.DEFAULT.max_document_bytes
    data = sys.stdin.buffer.read(limit + 1)
    if len(data) > limit:
        from nuif_core import NuifError

        raise NuifError("NUIF_PACKAGE_LIMIT", f"the package on stdin is more than {limit} bytes")
    return data


def cmd_pack(args: argparse.Namespace) -> int:
    from nuif_core import Limits, NuifError, canonicalize, package

    from ._diag import InputError
    from ._io import write_output

    if args.output == STDIO and sys.stdout.isatty():
        raise UsageError("refusing to write a binary package to a terminal (use -o FILE.nuif)")
    document = read_document(args.document, Limits.DEFAULT.max_document_bytes)
    with named(args.document, document):
        canonical = canonicalize(document).canonical
    try:
        data = package.pack_dir(canonical, args.assets)
    except NuifError as err:  # the document is valid: the assets are at fault
        raise InputError(args.assets or args.document, err) from None
    write_output(args.output, data)
    return EXIT_OK


def cmd_unpack(args: argparse.Namespace) -> int:
    from nuif_core import NuifError, package

    from ._diag import InputError, package_error_line

    try:
        result = package.unpack(_package_source(args.package), args.output)
    except NuifError as err:
        raise InputError(args.package, err, text=package_error_line(args.package, err)) from None
    if args.json:
        import json

        report = {
            "file": args.package,
            "directory": args.output,
            "hash": result.hash,
            "assets": len(result.assets),
        }
        print(json.dumps(report, ensure_ascii=False))
    elif not args.quiet:
        from ._diag import quoted

        print(f"{result.hash}  {quoted(args.output)} ({len(result.assets)} assets)")
    return EXIT_OK


def cmd_verify(args: argparse.Namespace) -> int:
    import json

    from nuif_core import NuifError, package

    from ._diag import package_error_line, quoted, shown
    from ._style import Painter

    _one_stdin(*args.packages)
    paint = Painter.for_stream(sys.stderr)
    worst = 0
    for name in args.packages:
        try:
            summary = package.verify(_package_source(name))
        except NuifError as err:
            print(paint.line(package_error_line(name, err)), file=sys.stderr)
            worst = max(worst, EXIT_INVALID)
            continue
        except OSError as exc:
            print(f"nuif: {shown(name)}: {exc.strerror or exc}", file=sys.stderr)
            worst = max(worst, EXIT_USAGE)
            continue
        if args.json:
            print(json.dumps({"file": name, **summary.to_dict()}, ensure_ascii=False))
        elif not args.quiet:
            n = len(summary.manifest["assets"])
            print(
                f"{quoted(name)}: OK {summary.hash} ({n} asset{'s' if n != 1 else ''}, "
                f"{summary.total_bytes} bytes)"
            )
    return worst


def cmd_demo(args: argparse.Namespace) -> int:
    from ._demo import run_demo

    return run_demo(args.dir)


def cmd_completion(args: argparse.Namespace) -> int:
    from ._completion import cmd_completion as run

    return run(args)


def cmd_playground(args: argparse.Namespace) -> int:
    from ._playground import run_playground

    return run_playground(args.port, args.pyodide, args.wheel)
