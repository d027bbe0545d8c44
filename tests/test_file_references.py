"""Every file a comment, a docstring or a doc names exists.

The comments and docstrings of the code (Python, Cython, C and C++, JavaScript and TypeScript,
TOML, YAML, CMake, the shell scripts) and the text of every Markdown file of ours are read for
the names of repository files: paths such as ``csrc/nuif_walk.h`` or ``tests/core/test_walk.py``,
bare names with a source extension such as ``nuif_tape.h``, and the targets of Markdown links
``[text](target#anchor)``.  A path resolves when it exists relative to the referring file's
folder or one above it (up to the repository root), to a package's folder or its ``src``
(``packages/nuif-web``, ``packages/nuif-cli/src``), or to the core package's ``src/nuif_core``
and ``csrc``; a bare name resolves when a file of that name exists anywhere in the repository;
a Markdown link's target resolves relative to its file only.  URLs, absolute paths (``/tmp``),
globs (``*.pxi``) and templates (``<target>``, ``{c,h}``) name no one file and are not read.
Vendored and generated trees (the vendored C libraries, node_modules, build and dist folders,
the fuzzers' corpus and output, the copied conformance suites) are neither read nor searched for
bare names.

What is not a repository file (a file the user or a run creates, a system header, another
project's file) is in ALLOWED, each with its reason.  CHANGELOG.md is read like the rest: a name
an entry keeps for history (a file it says was removed) is in HISTORY, by file and name, with
its reason.  The test lists every dangling name at once, as ``file:line: name``.
"""

from __future__ import annotations

import bisect
import functools
import os
import re
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

REPO = Path(__file__).resolve().parent.parent
CORE = "packages/nuif-core"

# -- the files -------------------------------------------------------------------------------

#: folders that are never ours, wherever they are: environments, caches, build and install trees
PRUNED_NAMES = frozenset(
    {
        ".git",
        ".venv",
        ".uv",
        ".cache",
        ".hypothesis",
        ".benchmarks",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        "__pycache__",
        "node_modules",
        "build",
        "dist",
        "htmlcov",
    }
)
#: folders (from the root) that a run writes or that the project does not write: not read,
#: not searched for bare names
PRUNED_PATHS = frozenset(
    {
        "site",  # the documentation site (mkdocs build)
        "benchmarks/out",  # benchmark runs' output
        "fuzz/out",  # the fuzzers' builds and findings
    }
)
#: folders that are repository files (a path into them resolves) but are not read, and whose
#: files do not resolve bare names: vendored code and generated inputs
UNREAD_PATHS = frozenset(
    {
        f"{CORE}/csrc/third_party",  # fast_float and Dragonbox, vendored as they are
        "fuzz/corpus",  # the fuzzers' seed inputs, written by fuzz/make_corpus.py
        "tests/data",  # copied conformance suites (tests/data/README.md is read)
    }
)
#: generated files that may sit in a working tree (gitignored): never resolve a name
GENERATED = re.compile(r"(\.so|\.py[cod]|\.pyd)$|^packages/nuif-core/src/nuif_core/[^/]+\.c$")

#: the languages read, by suffix (or whole name), and how their comments are found
HASH_CODE = {".py", ".pyi", ".pyx", ".pxi", ".pxd"}
HASH_CONF = {".toml", ".yml", ".yaml", ".cfg"}
C_LIKE = {".h", ".c", ".cpp", ".mjs", ".js", ".ts"}
CMAKE = {".cmake"}
SHELL_FILES = {".ci/run"}
SHELL_FOLDERS = {"scripts"}  # scripts/* without a suffix of the kinds above are shell
MARKDOWN = {".md"}


class Tree:
    """The repository's files and folders, as paths relative to the root."""

    def __init__(self, root: Path) -> None:
        self.files: set[str] = set()
        self.dirs: set[str] = {""}
        self.names: set[str] = set()  # the bare names of the files outside UNREAD_PATHS
        self.read: list[str] = []  # the files whose comments or text are read
        for top, dirs, files in os.walk(root):
            rel = Path(top).relative_to(root).as_posix()
            rel = "" if rel == "." else rel
            dirs[:] = [
                d
                for d in dirs
                if d not in PRUNED_NAMES
                and not d.endswith(".egg-info")
                and _join(rel, d) not in PRUNED_PATHS
            ]
            self.dirs.update(_join(rel, d) for d in dirs)
            unread = any(rel == u or rel.startswith(u + "/") for u in UNREAD_PATHS)
            for name in files:
                path = _join(rel, name)
                if GENERATED.search(path):
                    continue
                self.files.add(path)
                if unread and path != "tests/data/README.md":
                    continue
                self.names.add(name)
                if language(path) is not None:
                    self.read.append(path)
        self.read.sort()

        packages = sorted(d for d in self.dirs if PurePosixPath(d).parent.as_posix() == "packages")
        #: the folders a path is looked up from besides the referring file's own and those
        #: above it: each package's folder and its src, the core's Python and C source folders
        self.bases = (
            *packages,
            *(f"{p}/src" for p in packages if f"{p}/src" in self.dirs),
            f"{CORE}/src/nuif_core",
            f"{CORE}/csrc",
        )

    def exists(self, path: str) -> bool:
        return path in self.files or path in self.dirs


def _join(a: str, b: str) -> str:
    return f"{a}/{b}" if a else b


def language(path: str) -> str | None:
    """How the file at ``path`` is read: "hash", "conf", "c", "cmake", "shell", "md" or None."""
    p = PurePosixPath(path)
    suffix = p.suffix
    if suffix in HASH_CODE:
        return "hash"
    if suffix in HASH_CONF:
        return "conf"
    if suffix in C_LIKE:
        return "c"
    if suffix in CMAKE or p.name == "CMakeLists.txt":
        return "cmake"
    if suffix in MARKDOWN:
        return "md"
    if path in SHELL_FILES or (p.parent.as_posix() in SHELL_FOLDERS and suffix in ("", ".sh")):
        return "shell"
    return None


# -- the comments ----------------------------------------------------------------------------

_STR = r"""(?:[rRbBuUfF]{0,2})(?:"(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')"""
_TSTR = r'''(?:[rRbBuUfF]{0,2})(?:"""(?:\\.|[^\\])*?"""|\'\'\'(?:\\.|[^\\])*?\'\'\')'''
_LEXERS = {
    # Python and Cython: comments, and triple-quoted strings that open a statement (docstrings)
    "hash": re.compile(rf"(?P<c>#[^\n]*)|(?P<t>{_TSTR})|{_STR}", re.S),
    # TOML, YAML, setup.cfg: comments only (a multi-line string is a value)
    "conf": re.compile(rf"(?P<c>(?:(?<=\s)|^)#[^\n]*)|{_TSTR}|{_STR}", re.S | re.M),
    "c": re.compile(
        r"(?P<c>/\*.*?\*/|//[^\n]*)|`(?:\\.|[^`\\])*`|"
        r""""(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*'""",
        re.S,
    ),
    # CMake: comments, bracket comments; bracket arguments and strings are not comments
    "cmake": re.compile(
        r"(?P<c>#\[(?P<e1>=*)\[.*?\](?P=e1)\]|#[^\n]*)|\[(?P<e2>=*)\[.*?\](?P=e2)\]"
        r'|"(?:\\.|[^"\\])*"',
        re.S,
    ),
    "shell": re.compile(r"(?P<c>(?:(?<=\s)|^)#[^\n]*)|'[^']*'|\"(?:\\.|[^\"\\])*\"", re.M),
}
_BRACKETS = str.maketrans("([{)]}", "((()))")


def comments(text: str, kind: str) -> Iterator[tuple[int, str]]:
    """The comments and docstrings of ``text`` (read as ``kind``, see language()), each as its
    offset in ``text`` and its text; Markdown is one piece, the whole file.

    A docstring is a triple-quoted string that opens its line outside any bracket, after a line
    that does not end in a backslash: a statement of its own (a string inside a call's arguments
    is an argument)."""
    if kind == "md":
        yield 0, text
        return
    depth, last, before = 0, 0, ""
    for m in _LEXERS[kind].finditer(text):
        code = text[last : m.start()]
        opened = code.translate(_BRACKETS)
        depth = max(0, depth + opened.count("(") - opened.count(")"))
        before = code.rstrip()[-1:] or before
        if m.group("c") is not None:
            yield m.start(), m.group()
        else:
            if kind == "hash" and m.group("t") is not None:
                line_start = text.rfind("\n", 0, m.start()) + 1
                if not text[line_start : m.start()].strip() and depth == 0 and before != "\\":
                    yield m.start(), m.group()
            before = '"'
        last = m.end()


# -- the names in a comment ------------------------------------------------------------------

#: suffixes that make a token with a slash a file name
FILE_SUFFIXES = frozenset(
    {
        *("py", "pyi", "pyx", "pxi", "pxd", "h", "c", "cpp", "hpp", "mjs", "cjs", "js", "ts"),
        *("json", "md", "toml", "yml", "yaml", "cfg", "ini", "txt", "in", "cmake", "sh"),
        *("html", "css", "svg", "lock", "sha256"),
    }
)
#: suffixes that make a bare name (no slash) a file name: the source and configuration kinds
BARE_SUFFIXES = frozenset(
    {"py", "pyi", "pyx", "pxi", "pxd", "h", "c", "cpp", "mjs", "js", "ts", "md", "toml", "yml"}
    | {"yaml", "cmake"}
)

_URL = re.compile(r"\b[a-zA-Z][\w+.-]*://[^\s)>\]`'\"]*|\bmailto:\S+|\bwww\.\S+")
_TOKEN = re.compile(r"(?<![\w.~$@/-])(?:\.{1,2}/)*[\w.+-]*[\w+-](?:/[\w.+-]+)*/?")
_LINK = re.compile(r"\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)|^\s*\[[^\]]+\]:\s*(\S+)", re.M)
_CODE = re.compile(r"^(```|~~~).*?^\1|`[^`\n]*`", re.S | re.M)
#: characters next to a token that make it part of a glob, a template or an expression
_TEMPLATE = set("*<>{}$%")


def names(text: str, kind: str, tree: Tree) -> Iterator[tuple[int, str, str]]:
    """Every file name in the comments of ``text``: (offset, name, how) with ``how`` "path"
    (has a slash), "bare" or "link" (a Markdown link's target)."""
    top = {d for d in tree.dirs if d and "/" not in d} | {"csrc", "src"}
    for start, chunk in comments(text, kind):
        if kind == "md":
            # a link in code (a fenced block, a code span) is an example, not a link
            linkable = _CODE.sub(lambda m: " " * len(m.group()), chunk)
            for m in _LINK.finditer(linkable):
                target = m.group(1) or m.group(2)
                if not re.match(r"[a-zA-Z][\w+.-]*:|#", target):
                    yield start + m.start(), target.split("#")[0], "link"
        plain = _URL.sub(lambda m: " " * len(m.group()), chunk)
        for m in _TOKEN.finditer(plain):
            token = m.group().rstrip(".")
            before = plain[m.start() - 1] if m.start() else " "
            after = plain[m.start() + len(token)] if m.start() + len(token) < len(plain) else " "
            if before in _TEMPLATE or after in _TEMPLATE:
                continue
            if "/" in token.strip("/"):
                last = token.rstrip("/").rsplit("/", 1)[1]
                first = token.lstrip("./").split("/", 1)[0]
                suffix = last.rsplit(".", 1)[1] if "." in last else ""
                if suffix in FILE_SUFFIXES or first in top:
                    yield start + m.start(), token, "path"
            elif (
                "." in token
                and not token.startswith((".", "/"))
                and token.rsplit(".", 1)[1] in BARE_SUFFIXES
            ):
                yield start + m.start(), token, "bare"


def resolves(name: str, how: str, where: str, tree: Tree) -> bool:
    """Whether ``name``, found in the file ``where`` as ``how``, names a repository file."""
    if how == "bare":
        return name in tree.names
    here = [p.as_posix() for p in PurePosixPath(where).parents]
    here = ["" if p == "." else p for p in here]
    bases = here[:1] if how == "link" else [*here, *tree.bases]
    for base in bases:
        path = os.path.normpath(_join(base, name)) if name else base
        if path == ".":
            path = ""
        if not path.startswith("..") and tree.exists(path.replace(os.sep, "/")):
            return True
    return False


# -- what is not a repository file -----------------------------------------------------------

#: names that are not repository files, each with the reason; an entry ending in "/" allows
#: the folder and every name under it
ALLOWED: dict[str, str] = {
    "Python.h": "CPython's C API header, from the interpreter's include folder",
    "etree.pyx": "lxml's module, whose layout of one .pyx with .pxi parts the codec follows",
    ".vscode/mcp.json": "an MCP client's configuration, which the user writes",
    ".cursor/mcp.json": "an MCP client's configuration, which the user writes",
    "assets/": "member names inside a .nuif package, not repository files",
    "input/X.json": "tests/data/README.md: X stands for each vector's name",
    "output/X.json": "tests/data/README.md: X stands for each vector's name",
    "outhex/X.txt": "tests/data/README.md: X stands for each vector's name",
    "../SECURITY.md": "a link as a page under docs/ writes it (mkdocs_hooks.py)",
    "./nuif.mjs": "the module where a web app serves it (docs/web.md's example)",
    "pyodide.mjs": "a file of the npm package pyodide (node_modules, installed by npm ci)",
    "pyodide.asm.mjs": "a file of the npm package pyodide (node_modules, installed by npm ci)",
    "packages/nuif-web/node_modules/": "installed by npm ci, git-ignored",
    "packages/nuif-core/build": "scikit-build-core's build folder (build-dir), git-ignored",
    "src/nuif_cli/web": "the page's copy in nuif-cli's sdist, written by hatch_build.py",
    "benchmarks/out/": "the benchmark runs' output, git-ignored",
    "fuzz/out/": "the fuzzers' builds, logs and findings, git-ignored",
    "tests/web/out/": "the playground test's screenshots, git-ignored",
}

#: names one file keeps on purpose although the file is gone: (file, name) -> the reason
HISTORY: dict[tuple[str, str], str] = {
    ("CHANGELOG.md", "_speedups_parser.pxi"): "its entry says the one-pass parser was removed",
    ("docs/parser-design.md", "nuif_stage1.h"): "a decision record: the removed index parser",
    ("docs/parser-design.md", "nuif_stage2.h"): "a decision record: the removed index parser",
    ("docs/parser-design.md", "benchmarks/stage1/"): "a decision record: the removed index parser",
    ("docs/parser-design.md", "nuif_small.h"): "a decision record: the removed small-document path",
    ("docs/parser-design.md", "_speedups_parser.pxi"): "a decision record: the removed parser",
}


def allowed(name: str, where: str) -> bool:
    if (where, name) in HISTORY:
        return True
    return name in ALLOWED or any(
        k.endswith("/") and (name.startswith(k) or name == k[:-1]) for k in ALLOWED
    )


def dangling(tree: Tree, path: str, text: str) -> list[tuple[int, str]]:
    """(line, name) of each name in ``text`` (the file ``path``) that names no file."""
    kind = language(path)
    assert kind is not None, path
    lines = [0] + [m.end() for m in re.finditer("\n", text)]
    found: list[tuple[int, str]] = []
    for offset, name, how in names(text, kind, tree):
        if resolves(name, how, path, tree) or allowed(name, path):
            continue
        line = bisect.bisect_right(lines, offset)
        if (line, name) not in found:  # a link's target is also a path in its text
            found.append((line, name))
    return found


# -- the tests -------------------------------------------------------------------------------


@functools.cache
def _tree() -> Tree:
    return Tree(REPO)


def test_every_named_file_exists() -> None:
    tree = _tree()
    assert len(tree.read) > 200, tree.read  # the walk found the repository
    report = []
    for path in tree.read:
        text = (REPO / path).read_text(encoding="utf-8", errors="replace")
        report += [f"{path}:{line}: {name}" for line, name in dangling(tree, path, text)]
    assert not report, "names of files that do not exist:\n" + "\n".join(report)


def test_the_detector_finds_a_missing_name() -> None:
    """On synthetic Python, C and Markdown texts: each missing name is found, on its line; the
    existing names, names in code, URLs, absolute paths, globs and templates are not."""
    tree = _tree()
    py = (
        "'''Reads csrc/nuif_walk.h (see docs/catalogs.md).'''\n"
        "x = 'csrc/not_a_comment.h'\n"
        "# csrc/nuif_tape.h and nuif_gone.h, src/nuif_core/*.pxi, https://example.org/a/b.py\n"
        "# /tmp/x.py, fuzz/out/<target>/x.py, nuif_{a,b}.h\n"
    )
    assert dangling(tree, "tests/synthetic.py", py) == [(3, "nuif_gone.h")]
    c = '/* csrc/nuif_tape.h */\nconst char *s = "gone/file.h";\n// tests/core/test_gone.py\n'
    assert dangling(tree, "packages/nuif-core/csrc/x.h", c) == [(3, "tests/core/test_gone.py")]
    md = "See [the walk](architecture.md#the-walk)\nand [gone](gone.md), `[x](code.md)`.\n"
    assert dangling(tree, "docs/synthetic.md", md) == [(2, "gone.md"), (2, "code.md")]
