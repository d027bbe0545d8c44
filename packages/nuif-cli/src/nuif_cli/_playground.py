"""``nuif playground``: serve the NUIF playground page (packages/nuif-web) on 127.0.0.1.

The page runs nuif-core's C core compiled to WebAssembly, and its pure-Python twin through
Pyodide once a patch, a diff or a catalog needs it. What is served:

* the page (``index.html``, ``playground.css``, ``playground.mjs``, ``locate.mjs``) and the module
  (``nuif.mjs``, ``core.mjs``, ``messages.mjs``, ``nuif_core.wasm``): bundled in the nuif-cli
  wheel (``nuif_cli/web``), or read from ``packages/nuif-web`` in a checkout (where
  ``nuif_core.wasm`` is built by ``packages/nuif-core/wasm/build.py``);
* ``nuif_core-<v>-py3-none-any.whl``: the pure wheel, assembled from the installed nuif-core's
  Python files (the files the release's pure wheel holds), or the one ``--wheel`` names;
* ``pyodide/``: the Pyodide runtime (the npm package ``pyodide``, pinned below), which no Python
  wheel carries: ``--pyodide DIR``, else a checkout's ``packages/nuif-web/node_modules/pyodide``,
  else the cache folder that the one command in the error message fills (docs/web.md);
* ``playground.json``: where the page finds the wheel and the runtime;
* ``favicon.ico``: a small SVG icon (the request every browser makes).

Nothing is fetched from anywhere else; the server binds 127.0.0.1 only and serves GET and HEAD.
Every request gets an HTTP answer (400 for a path holding a NUL byte, 404 for anything else not
served); a client that disconnects is dropped silently; a connection idle for ``TIMEOUT`` seconds
is closed.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import sys
import zipfile
from base64 import urlsafe_b64encode
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any, cast

from ._io import UsageError

#: the Pyodide release the page is tested with (packages/nuif-web/package.json pins the same)
PYODIDE_VERSION = "314.0.8"
#: the files of the page, and where each lives in packages/nuif-web
PAGE_FILES = {
    "index.html": "playground/index.html",
    "playground.css": "playground/playground.css",
    "playground.mjs": "playground/playground.mjs",
    "locate.mjs": "playground/locate.mjs",
    "nuif.mjs": "src/nuif.mjs",
    "core.mjs": "src/core.mjs",
    "messages.mjs": "src/messages.mjs",
    "nuif_core.wasm": "src/nuif_core.wasm",
}
#: the Pyodide files the page loads
PYODIDE_FILES = (
    "pyodide.mjs",
    "pyodide.asm.mjs",
    "pyodide.asm.wasm",
    "python_stdlib.zip",
    "pyodide-lock.json",
)
TYPES = {
    ".html": "text/html; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".mjs": "text/javascript; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".json": "application/json",
    ".map": "application/json",
    ".wasm": "application/wasm",
    ".zip": "application/zip",
    ".whl": "application/zip",
    ".svg": "image/svg+xml",
}
#: seconds a connection may stay silent (no request, or not reading the answer) before it is closed
TIMEOUT = 30.0
#: the icon the browser asks for at /favicon.ico
FAVICON = (
    b'<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16">'
    b'<rect width="16" height="16" rx="3" fill="#2b5797"/>'
    b'<path d="M4 12V4l8 8V4" fill="none" stroke="#fff" stroke-width="2"/></svg>\n'
)
_CHECKOUT_WEB = Path(__file__).resolve().parents[3] / "nuif-web"


def cache_dir() -> Path:
    """Where the documented command puts Pyodide: ``$XDG_CACHE_HOME/nuif`` (``~/.cache/nuif``)."""
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "nuif" / f"pyodide-{PYODIDE_VERSION}"


def fetch_command() -> str:
    return f"npm install --prefix {cache_dir()} pyodide@{PYODIDE_VERSION}"


def page_files() -> dict[str, bytes]:
    """The page and the module: bundled in the wheel, or from a checkout's packages/nuif-web."""
    bundled = resources.files("nuif_cli").joinpath("web")
    if bundled.joinpath("index.html").is_file():
        return {name: bundled.joinpath(name).read_bytes() for name in PAGE_FILES}
    if (_CHECKOUT_WEB / PAGE_FILES["nuif.mjs"]).is_file():
        _checkout_wasm()
    if all((_CHECKOUT_WEB / rel).is_file() for rel in PAGE_FILES.values()):
        return {name: (_CHECKOUT_WEB / rel).read_bytes() for name, rel in PAGE_FILES.items()}
    wasm = _CHECKOUT_WEB / PAGE_FILES["nuif_core.wasm"]
    if (_CHECKOUT_WEB / PAGE_FILES["nuif.mjs"]).is_file() and not wasm.is_file():
        raise UsageError(
            f"{wasm} is not built yet: build it with "
            "`uv run python packages/nuif-core/wasm/build.py` (zig, from the dev group; docs/web.md)"
        )
    raise UsageError(  # pragma: no cover - an install that lost its package data
        "the playground page is missing from this nuif-cli installation (nuif_cli/web); reinstall nuif-cli"
    )


def _checkout_wasm() -> None:
    """In a checkout with zig at hand (the dev group's ``ziglang``), build the page's WebAssembly
    core unless it is current (``packages/nuif-core/wasm/build.py``: a few seconds, once per
    change of csrc/); without zig, what is built is served, and nothing built is said so."""
    import importlib.util

    script = _CHECKOUT_WEB.parent / "nuif-core" / "wasm" / "build.py"
    if not script.is_file() or importlib.util.find_spec("ziglang") is None:
        return
    spec = importlib.util.spec_from_file_location("nuif_wasm_build", script)
    if spec is None or spec.loader is None:  # pragma: no cover - a file that cannot be loaded
        return
    build = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(build)
    if not build.is_current():
        print("nuif playground: building the WebAssembly core (nuif_core.wasm)...", file=sys.stderr)
        build.ensure()


def _pyodide_version(folder: Path) -> str | None:
    try:
        return str(json.loads((folder / "package.json").read_text(encoding="utf-8"))["version"])
    except (OSError, ValueError, KeyError, TypeError):
        return None


def find_pyodide(option: str | None) -> Path:
    """The Pyodide runtime folder: ``--pyodide``, a checkout's, or the cache's (checked)."""
    if option is not None:
        candidates = [Path(option)]
    else:
        candidates = [
            _CHECKOUT_WEB / "node_modules" / "pyodide",
            cache_dir() / "node_modules" / "pyodide",
        ]
    for folder in candidates:
        missing = [name for name in PYODIDE_FILES if not (folder / name).is_file()]
        if missing and option is None:
            continue
        if missing:
            raise UsageError(
                f"--pyodide {option}: not a Pyodide runtime folder (no {', '.join(missing)}); "
                f"fetch the runtime with `{fetch_command()}` and pass "
                f"{cache_dir() / 'node_modules' / 'pyodide'}"
            )
        version = _pyodide_version(folder)
        if version != PYODIDE_VERSION:
            raise UsageError(
                f"{folder} holds Pyodide {version}; the playground needs {PYODIDE_VERSION}: "
                f"fetch it with `{fetch_command()}`"
            )
        return folder
    raise UsageError(
        f"the Pyodide runtime (npm package pyodide {PYODIDE_VERSION}, about 14 MB) is not here; "
        f"fetch it once with\n    {fetch_command()}\nthen run `nuif playground` again "
        "(or pass --pyodide DIR, a folder holding pyodide.mjs; see docs/web.md)"
    )


def _record_hash(data: bytes) -> str:
    return "sha256=" + urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=").decode()


#: the folders of nuif_core whose data files the pure wheel holds besides its Python files
_DATA_FOLDERS = {"catalogs": (".py", ".json")}


def _package_files() -> list[tuple[str, bytes]]:
    """The Python files of the installed nuif_core (no compiled module), and its data folders."""
    package = resources.files("nuif_core")
    files = [
        (f"nuif_core/{item.name}", item.read_bytes())
        for item in package.iterdir()
        if item.is_file() and (item.name.endswith(".py") or item.name == "py.typed")
    ]
    for folder, suffixes in _DATA_FOLDERS.items():
        files += [
            (f"nuif_core/{folder}/{item.name}", item.read_bytes())
            for item in package.joinpath(folder).iterdir()
            if item.is_file() and item.name.endswith(suffixes)
        ]
    return sorted(files)


def _wheel(files: list[tuple[str, bytes]], info: str) -> bytes:
    """A wheel of ``files`` whose RECORD (in the dist-info folder ``info``) lists them."""
    record = "".join(f"{name},{_record_hash(data)},{len(data)}\n" for name, data in files)
    files = [*files, (f"{info}/RECORD", (record + f"{info}/RECORD,,\n").encode())]
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w", zipfile.ZIP_DEFLATED) as zf:
        for name, data in files:
            entry = zipfile.ZipInfo(name, date_time=(1980, 1, 1, 0, 0, 0))
            entry.compress_type = zipfile.ZIP_DEFLATED
            entry.external_attr = 0o644 << 16
            zf.writestr(entry, data)
    return out.getvalue()


def pure_wheel() -> tuple[str, bytes]:
    """The pure wheel of the installed nuif-core: its Python files (no compiled module), its
    shipped catalogs and a dist-info, as ``NUIF_NO_EXTENSIONS=1 uv build --wheel
    packages/nuif-core`` makes it."""
    import nuif_core

    version = nuif_core.__version__
    info = f"nuif_core-{version}.dist-info"
    files = _package_files()
    files.append(
        (
            f"{info}/METADATA",
            f"Metadata-Version: 2.1\nName: nuif-core\nVersion: {version}\n"
            "Requires-Python: >=3.11\n".encode(),
        )
    )
    files.append(
        (
            f"{info}/WHEEL",
            b"Wheel-Version: 1.0\nGenerator: nuif-cli playground\nRoot-Is-Purelib: true\n"
            b"Tag: py3-none-any\n",
        )
    )
    return f"nuif_core-{version}-py3-none-any.whl", _wheel(files, info)


class Site:
    """What the server answers: in-memory files, and the Pyodide folder under ``pyodide/``."""

    def __init__(self, pyodide: Path, wheel: tuple[str, bytes]) -> None:
        self.pyodide = pyodide.resolve()
        self.files = page_files()
        self.files["favicon.ico"] = FAVICON
        wheel_name, wheel_bytes = wheel
        self.files[wheel_name] = wheel_bytes
        self.files["playground.json"] = json.dumps(
            {"wheel": wheel_name, "pyodide": "pyodide/"},
            indent=2,
        ).encode()

    def get(self, path: str) -> bytes | Path | None:
        path = path.split("?", 1)[0].split("#", 1)[0]
        if path == "/":
            path = "/index.html"
        name = path.lstrip("/")
        if name in self.files:
            return self.files[name]
        if name.startswith("pyodide/") and ".." not in name.split("/"):
            try:  # a name too long for the file system is not there either
                target = (self.pyodide / name[len("pyodide/") :]).resolve()
                if target.is_file() and target.is_relative_to(self.pyodide):
                    return target
            except (OSError, ValueError):
                pass
        return None


def _handler(site: Site, timeout: float) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        server_version = "nuif-playground"

        def handle(self) -> None:
            try:
                super().handle()
            except (ConnectionError, TimeoutError):  # the client left, or stopped reading: drop it
                self.close_connection = True

        def _answer(self, body: bool) -> None:
            if "\0" in self.path or "%00" in self.path:
                self.send_error(HTTPStatus.BAD_REQUEST, "a NUL byte in the path")
                return
            found = site.get(self.path)
            if found is None:
                self.send_error(HTTPStatus.NOT_FOUND, "not part of the playground")
                return
            if isinstance(found, Path):
                try:
                    data = found.read_bytes()
                except OSError:  # gone or unreadable since it was found
                    self.send_error(HTTPStatus.NOT_FOUND, "not part of the playground")
                    return
                suffix = found.suffix
            else:
                data = found
                name = self.path.split("?", 1)[0]
                suffix = ".svg" if found is FAVICON else os.path.splitext(name)[1]
            kind = TYPES.get(suffix or ".html", "application/octet-stream")
            self.send_response(HTTPStatus.OK)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(data)))
            self.send_header("Cache-Control", "no-cache")
            self.send_header("X-Content-Type-Options", "nosniff")
            self.end_headers()
            if body:
                self.wfile.write(data)

        def do_GET(self) -> None:
            self._answer(True)

        def do_HEAD(self) -> None:
            self._answer(False)

        def log_message(
            self, format: str, *args: Any
        ) -> None:  # quiet: one line per request is noise
            pass

    Handler.timeout = timeout  # socket timeout of every read and write on a connection
    return Handler


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a connection still open does not hold up Ctrl+C

    def handle_error(self, request: Any, client_address: Any) -> None:
        """One line, not a traceback, for a request the handler failed on."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionError, TimeoutError)):
            return
        print(
            f"nuif: playground: a request from {client_address[0]} failed: {exc!r}", file=sys.stderr
        )


def make_server(
    port: int, pyodide: str | None, wheel: str | None, *, timeout: float = TIMEOUT
) -> ThreadingHTTPServer:
    """The server, bound to 127.0.0.1:``port`` (0: any free port), not yet serving; a connection
    silent for ``timeout`` seconds is closed."""
    folder = find_pyodide(pyodide)
    if wheel is not None:
        path = Path(wheel)
        if not path.name.endswith("-py3-none-any.whl"):
            raise UsageError(
                f"--wheel {wheel}: expected the pure wheel nuif_core-<v>-py3-none-any.whl"
            )
        chosen = (path.name, path.read_bytes())
    else:
        chosen = pure_wheel()
    return _Server(("127.0.0.1", port), _handler(Site(folder, chosen), timeout))


def run_playground(port: int, pyodide: str | None, wheel: str | None) -> int:
    try:
        server = make_server(port, pyodide, wheel)
    except OSError as exc:
        if exc.filename:
            raise
        raise UsageError(f"cannot listen on 127.0.0.1:{port}: {exc.strerror or exc}") from None
    host, bound = cast("tuple[str, int]", server.server_address[:2])  # an AF_INET address
    print(f"NUIF playground: http://{host}:{bound}/  (Ctrl+C stops it)", flush=True)
    try:
        server.serve_forever()
    except KeyboardInterrupt:
        print("nuif: playground stopped", file=sys.stderr)
    finally:
        server.server_close()
    return 0
