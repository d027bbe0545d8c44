"""The Python layers of nuif_core (docs/architecture.md, "The Python layers"), held statically.

The import graph is built from the source with ``ast`` (function-level imports included, so a
late import cannot hide a cycle): no module of the core may reach itself through imports, no
module may import a private (underscore) name from another module of the core, and only the
codec selection (``_codec``) may import either codec; tests, benchmarks and fuzzers reach a
codec through its test hook (``_codec.twin()``, ``_codec.compiled()``).  Each rule is also run
on a small tree with one violation, so that it is shown to fail.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CORE = REPO / "packages" / "nuif-core" / "src" / "nuif_core"
PACKAGE = "nuif_core"
CODECS = {"_speedups", "_codec_py"}
SELECTION = "_codec"
#: the calls that import a module named by a string
_IMPORTERS = {"importorskip", "import_module", "__import__"}


def _module_name(path: Path, root: Path) -> str:
    """``_session`` for ``<root>/_session.py``, ``""`` for the package's ``__init__``."""
    return "" if path.stem == "__init__" else path.stem


def _imports(tree: ast.AST, this: str) -> list[tuple[str, str | None, int]]:
    """Every import of a core module in ``tree`` (module ``this`` of the package), anywhere in
    it: ``(module imported, name taken from it or None, line)``; ``""`` is the package itself."""
    out: list[tuple[str, str | None, int]] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.ImportFrom):
            if node.level == 1:
                base = node.module or ""
            elif node.level == 0 and node.module and node.module.split(".")[0] == PACKAGE:
                base = node.module[len(PACKAGE) + 1 :] if node.module != PACKAGE else ""
            else:
                continue
            for alias in node.names:
                if base == "":
                    # ``from . import _codec`` names a module; ``from . import dumps`` a name
                    out.append(
                        (alias.name, None, node.lineno)
                        if alias.name.startswith("_") or alias.name == "package"
                        else ("", alias.name, node.lineno)
                    )
                else:
                    out.append((base, alias.name, node.lineno))
        elif isinstance(node, ast.Import):
            for alias in node.names:
                parts = alias.name.split(".")
                if parts[0] == PACKAGE:
                    out.append((".".join(parts[1:2]), None, node.lineno))
    return out


def _graph(root: Path) -> dict[str, list[tuple[str, str | None, int]]]:
    return {
        _module_name(p, root): _imports(ast.parse(p.read_text(encoding="utf-8")), p.stem)
        for p in sorted(root.glob("*.py"))
    }


def _cycles(graph: dict[str, list[tuple[str, str | None, int]]]) -> list[list[str]]:
    """One cycle per strongly connected group of modules that import each other (with the
    package ``__init__`` as ``""``: a module that imports the facade depends on all of it)."""
    edges = {
        m: sorted({t for t, _, _ in imps if t in graph and t != m}) for m, imps in graph.items()
    }
    found: list[list[str]] = []
    state: dict[str, int] = {}
    stack: list[str] = []

    def visit(m: str) -> None:
        state[m] = 1
        stack.append(m)
        for t in edges[m]:
            if state.get(t) == 1:
                found.append(stack[stack.index(t) :] + [t])
            elif t not in state:
                visit(t)
        stack.pop()
        state[m] = 2

    for m in sorted(edges):
        if m not in state:
            visit(m)
    return found


def _private_imports(graph: dict[str, list[tuple[str, str | None, int]]]) -> list[str]:
    return [
        f"{m or '__init__'}:{line} takes {name} from {t or '__init__'}"
        for m, imps in graph.items()
        for t, name, line in imps
        if name is not None and name.startswith("_") and t != m
    ]


def _codec_imports(files: list[Path], allowed: set[str]) -> list[str]:
    """Imports of a codec module (``_speedups``, ``_codec_py``) outside ``allowed`` files."""
    out = []
    for p in files:
        if p.name in allowed:
            continue
        tree = ast.parse(p.read_text(encoding="utf-8"))
        for t, name, line in _imports(tree, p.stem):
            if t in CODECS or name in CODECS:
                out.append(f"{p.relative_to(p.parents[1]).as_posix()}:{line} imports {t or name}")
        for node in ast.walk(tree):  # importorskip("nuif_core._speedups") is an import too
            if (
                isinstance(node, ast.Call)
                and getattr(node.func, "attr", getattr(node.func, "id", "")) in _IMPORTERS
                and node.args
                and isinstance(node.args[0], ast.Constant)
                and node.args[0].value in {f"{PACKAGE}.{c}" for c in CODECS}
            ):
                out.append(f"{p.name}:{node.lineno} imports {node.args[0].value}")
    return out


# -- the rules on the real tree ----------------------------------------------------------------


def test_the_core_has_no_import_cycle():
    graph = _graph(CORE)
    assert len(graph) > 20  # every module was read
    assert _cycles(graph) == []


def test_no_module_of_the_core_imports_a_private_name_from_another():
    assert _private_imports(_graph(CORE)) == []


def test_only_the_codec_selection_imports_a_codec():
    files = sorted(CORE.glob("*.py"))
    assert _codec_imports(files, {f"{SELECTION}.py"}) == []
    # and the selection does import both (else the rule above says nothing)
    selection = {t for t, _, _ in _imports(ast.parse((CORE / "_codec.py").read_text()), SELECTION)}
    assert selection >= CODECS


def test_tests_benchmarks_and_fuzzers_reach_a_codec_through_the_test_hook():
    files = [
        p
        for folder in ("tests", "benchmarks", "fuzz")
        for p in sorted((REPO / folder).rglob("*.py"))
        if p.name != "test_layers.py"  # this file names the codecs to find them
        # fuzz/out (git-ignored) holds the ASan build's copy of nuif_core itself
        and "out" not in p.relative_to(REPO / folder).parts[:1]
    ]
    assert len(files) > 50
    assert _codec_imports(files, set()) == []


def test_the_package_module_does_not_import_the_facade():
    # nuif_core.package is loaded on first use by the facade: importing the facade back from it
    # would be the cycle the graph above cannot see through ``importlib``
    graph = _graph(CORE)
    assert [(t, n) for t, n, _ in graph["package"] if t == ""] == []


# -- each rule fails on a violation --------------------------------------------------------------


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / PACKAGE
    root.mkdir()
    for name, text in files.items():
        (root / name).write_text(text, encoding="utf-8")
    return root


def test_a_cycle_through_a_function_level_import_is_found(tmp_path):
    root = _tree(
        tmp_path,
        {
            "__init__.py": "from ._a import f\n",
            "_a.py": "from ._b import g\n\ndef f():\n    return g()\n",
            "_b.py": "def g():\n    from ._a import f  # late\n    return f\n",
            "_c.py": "from . import _a\n",
        },
    )
    assert _cycles(_graph(root)) == [["_a", "_b", "_a"]]


def test_a_cycle_through_the_facade_is_found(tmp_path):
    root = _tree(
        tmp_path,
        {
            "__init__.py": "from ._a import f\n",
            "_a.py": "def f():\n    from . import dumps\n    return dumps\n",
        },
    )
    assert _cycles(_graph(root)) == [["", "_a", ""]]


def test_a_private_name_taken_from_another_module_is_found(tmp_path):
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "_a.py": "_X = 1\nY = 2\n",
            "_b.py": "from ._a import Y, _X\n",
            "_c.py": "def f():\n    from nuif_core._a import _X\n    return _X\n",
        },
    )
    assert _private_imports(_graph(root)) == ["_b:1 takes _X from _a", "_c:2 takes _X from _a"]


def test_a_codec_imported_outside_the_selection_is_found(tmp_path):
    root = _tree(
        tmp_path,
        {
            "__init__.py": "",
            "_codec.py": "from . import _codec_py\n",
            "_x.py": "def f():\n    from ._codec_py import dumps_str\n    return dumps_str\n",
            "_y.py": "from nuif_core import _speedups as compiled\n",
            "test_z.py": 'import pytest\ns = pytest.importorskip("nuif_core._speedups")\n',
        },
    )
    found = _codec_imports(sorted(root.glob("*.py")), {"_codec.py"})
    assert found == [
        "nuif_core/_x.py:2 imports _codec_py",
        "nuif_core/_y.py:1 imports _speedups",
        "test_z.py:2 imports nuif_core._speedups",
    ]


LOWEST = ["_errors", "_limits", "_cost", "_rfc8785", "_messages", "_undo", "_values"]


@pytest.mark.parametrize("module", LOWEST)
def test_the_lowest_layers_import_nothing_above_them(module):
    # the bottom of docs/architecture.md's order: errors, limits, spelling, messages (and the
    # self-contained helpers beside them) import only from below
    order = LOWEST
    below = set(order[: order.index(module)])
    imported = {t for t, _, _ in _graph(CORE)[module]}
    assert imported <= below, imported - below


def test_the_map_names_every_module():
    # docs/architecture.md answers "where does X live": every module of the core is on it
    text = (REPO / "docs" / "architecture.md").read_text(encoding="utf-8")
    missing = [p.name for p in sorted(CORE.glob("*.py")) if f"`{p.name}`" not in text]
    assert missing == []


def test_what_the_compiled_codec_takes_from_the_python_side_exists():
    # the compiled codec (its .pyx and .pxi parts) imports its messages and helpers from the layers
    # below it: every name must be where it looks, or its first error would raise AttributeError
    import importlib

    # what the module runs (its stub, _speedups.pyi, imports for the type checker only)
    sources = {
        p.name: p.read_text(encoding="utf-8")
        for p in sorted(CORE.glob("_speedups*.p[xy]?"))
        if p.suffix in (".pyx", ".pxi")
    }
    assert {"_speedups.pyx", "_speedups_loads.pxi", "_speedups_dump.pxi"} <= set(sources)
    imported = [
        (module, name.strip())
        for text in sources.values()
        for module, names in re.findall(r"^from nuif_core\.(\w+) import ([\w, ]+)$", text, re.M)
        for name in names.split(",")
    ]
    imported = [(module, name.split(" as ")[0].strip()) for module, name in imported]
    assert ("_messages", "DUPLICATE_KEY") in imported  # the pattern still finds the import lines
    # the layers below the codec, and the two it hands its front doors' results over in
    # (the default limits and the result classes: data, never a callable bound into it)
    for module, name in imported:
        assert module in {"_errors", "_messages", "_rfc8785", "_limits", "_results"}, module
        assert hasattr(importlib.import_module(f"nuif_core.{module}"), name), (module, name)
    # the twin answers only whole calls the argument guard hands over (``return _tw().f(…)``):
    # no message, helper or private name is read off it
    reads = [
        (file, line.strip())
        for file, text in sources.items()
        for line in text.splitlines()
        if "_tw()." in line and not re.fullmatch(r"\s*return _tw\(\)\.\w+\([\w, ]*\)", line)
    ]
    assert reads == []


def test_nuif_too_large_is_built_in_one_place():
    # core, CLI and MCP build NUIF_TOO_LARGE with NuifError.too_large, so it reads one way: no
    # other call anywhere in the packages passes the code
    calls = [
        f"{p.relative_to(REPO).as_posix()} {ast.unparse(node.func)}"
        for p in sorted((REPO / "packages").glob("*/src/**/*.py"))
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, ast.Call)
        and any(isinstance(a, ast.Constant) and a.value == "NUIF_TOO_LARGE" for a in node.args)
    ]
    assert calls == ["packages/nuif-core/src/nuif_core/_errors.py cls"]
    too_large = [
        p.relative_to(REPO).parts[1]
        for p in sorted((REPO / "packages").glob("*/src/**/*.py"))
        if ".too_large(" in p.read_text(encoding="utf-8")
    ]
    assert {"nuif-core", "nuif-cli", "nuif-mcp"} <= set(too_large)


def test_the_too_large_builder_reads_one_way():
    from nuif_core import NuifError

    err = NuifError.too_large("the patch text is 9 bytes", 8, pointer="/x")
    assert (err.code, err.message, err.pointer) == (
        "NUIF_TOO_LARGE",
        "the patch text is 9 bytes; the limit is 8 bytes",
        "/x",
    )
    err = NuifError.too_large("a is 9 bytes", 8, limit_name="the inline limit", advice=": split it")
    assert err.message == "a is 9 bytes; the inline limit is 8 bytes: split it"
