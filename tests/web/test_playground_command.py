"""``nuif playground``: where it finds the page, the wheel and the Pyodide runtime, the error that
names the one command fetching the runtime, and what its 127.0.0.1 server answers (and refuses).
A stand-in runtime folder is enough here; the real one runs in test_playground.py."""

from __future__ import annotations

import base64
import hashlib
import http.client
import io
import json
import threading
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest
from dist_build import clean_env, uv_build
from nuif_web_support import PYODIDE_PIN, WEB, wasm_build, wasm_module

from nuif_cli import _playground
from nuif_cli._cli import main


def _fake_runtime(folder: Path, version: str = PYODIDE_PIN) -> Path:
    folder.mkdir(parents=True)
    for name in _playground.PYODIDE_FILES:
        (folder / name).write_bytes(b"\0asm" if name.endswith(".wasm") else b"// " + name.encode())
    (folder / "package.json").write_text(json.dumps({"name": "pyodide", "version": version}))
    return folder


@pytest.fixture
def no_runtime(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Neither a checkout's runtime nor the cache's: the cache lives in tmp_path/cache."""
    monkeypatch.setattr(_playground, "_CHECKOUT_WEB", tmp_path / "no-checkout")
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    return tmp_path / "cache"


def test_a_missing_runtime_names_the_one_command_that_fetches_it(no_runtime: Path, capsys) -> None:
    assert main(["playground", "--port", "0"]) == 2
    err = capsys.readouterr().err
    folder = no_runtime / "nuif" / f"pyodide-{PYODIDE_PIN}"
    assert f"npm install --prefix {folder} pyodide@{PYODIDE_PIN}" in err
    assert "--pyodide DIR" in err and "docs/web.md" in err


def test_the_cache_folder_that_command_fills_is_found(no_runtime: Path) -> None:
    runtime = _fake_runtime(
        no_runtime / "nuif" / f"pyodide-{PYODIDE_PIN}" / "node_modules" / "pyodide"
    )
    assert _playground.find_pyodide(None) == runtime


def test_a_checkouts_runtime_comes_first(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    checkout = tmp_path / "nuif-web"
    runtime = _fake_runtime(checkout / "node_modules" / "pyodide")
    monkeypatch.setattr(_playground, "_CHECKOUT_WEB", checkout)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "cache"))
    _fake_runtime(
        tmp_path / "cache" / "nuif" / f"pyodide-{PYODIDE_PIN}" / "node_modules" / "pyodide"
    )
    assert _playground.find_pyodide(None) == runtime


def test_pyodide_option_errors(tmp_path: Path, capsys) -> None:
    assert main(["playground", "--pyodide", str(tmp_path)]) == 2
    err = capsys.readouterr().err
    assert f"--pyodide {tmp_path}: not a Pyodide runtime folder (no pyodide.mjs" in err
    old = _fake_runtime(tmp_path / "old", version="0.27.0")
    assert main(["playground", "--pyodide", str(old)]) == 2
    err = capsys.readouterr().err
    assert f"holds Pyodide 0.27.0; the playground needs {PYODIDE_PIN}" in err


def test_wheel_option_must_name_a_pure_wheel(tmp_path: Path, capsys) -> None:
    runtime = _fake_runtime(tmp_path / "pyodide")
    compiled = tmp_path / "nuif_core-0.1.0-cp311-cp311-linux_x86_64.whl"
    compiled.write_bytes(b"PK")
    assert main(["playground", "--pyodide", str(runtime), "--wheel", str(compiled)]) == 2
    assert "expected the pure wheel nuif_core-<v>-py3-none-any.whl" in capsys.readouterr().err
    missing = tmp_path / "nuif_core-0.1.0-py3-none-any.whl"
    assert main(["playground", "--pyodide", str(runtime), "--wheel", str(missing)]) == 2
    assert f"nuif: {missing}: No such file or directory" in capsys.readouterr().err


def test_the_assembled_wheel_holds_what_the_release_pure_wheel_holds(tmp_path: Path) -> None:
    uv_build(
        "--wheel", "packages/nuif-core", "-o", str(tmp_path), env=clean_env(NUIF_NO_EXTENSIONS="1")
    )
    [release] = tmp_path.glob("nuif_core-*-py3-none-any.whl")
    name, data = _playground.pure_wheel()
    assert name == release.name
    with zipfile.ZipFile(release) as a, zipfile.ZipFile(io.BytesIO(data)) as b:
        code_a = {n: a.read(n) for n in a.namelist() if n.startswith("nuif_core/")}
        code_b = {n: b.read(n) for n in b.namelist() if n.startswith("nuif_core/")}
        assert code_a == code_b and "nuif_core/_codec_py.py" in code_b
        assert sorted(n for n in b.namelist() if ".dist-info/" in n) == sorted(
            n for n in a.namelist() if ".dist-info/" in n
        )
        record = b.read(name.split("-py3")[0] + ".dist-info/RECORD").decode().splitlines()
        for line in record:
            path, digest, size = line.split(",")
            if digest:  # every file's hash and size, as a wheel installer checks them
                raw = hashlib.sha256(b.read(path)).digest()
                assert digest == "sha256=" + base64.urlsafe_b64encode(raw).rstrip(b"=").decode()
                assert int(size) == len(b.read(path))
    assert _playground.pure_wheel() == (name, data)  # deterministic


def test_the_cli_wheel_bundles_the_page(tmp_path: Path) -> None:
    # (the build makes the WebAssembly core itself, unless current: see hatch_build.py)
    uv_build("--wheel", "--out-dir", str(tmp_path), "packages/nuif-cli", env=clean_env())
    [wheel] = tmp_path.glob("nuif_cli-*.whl")
    with zipfile.ZipFile(wheel) as zf:
        for name, rel in _playground.PAGE_FILES.items():
            assert zf.read(f"nuif_cli/web/{name}") == (WEB / rel).read_bytes(), name
        assert zf.read("nuif_cli/web/nuif_core.wasm")[:4] == b"\0asm"


def test_a_checkout_without_the_built_module_names_the_build_command(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    checkout = tmp_path / "nuif-web"
    for rel in _playground.PAGE_FILES.values():
        if not rel.endswith(".wasm"):
            (checkout / rel).parent.mkdir(parents=True, exist_ok=True)
            (checkout / rel).write_bytes((WEB / rel).read_bytes())
    monkeypatch.setattr(_playground, "_CHECKOUT_WEB", checkout)
    # (a checkout without packages/nuif-core/wasm/build.py beside it, as one without zig)
    with pytest.raises(_playground.UsageError) as refused:
        _playground.page_files()
    assert str(refused.value) == (
        f"{checkout / 'src' / 'nuif_core.wasm'} is not built yet: build it with "
        "`uv run python packages/nuif-core/wasm/build.py` (zig, from the dev group; docs/web.md)"
    )


def test_a_checkout_with_zig_builds_a_stale_module_before_serving_it(
    capsys: pytest.CaptureFixture[str],
) -> None:
    wasm_module()
    build = wasm_build()
    wasm, stamp = build.DEFAULT_OUT, build.stamp_of(build.DEFAULT_OUT)
    kept = stamp.read_text()
    stamp.write_text("stale")  # as after an edit of csrc/
    try:
        files = _playground.page_files()
        assert "building the WebAssembly core" in capsys.readouterr().err
        assert stamp.read_text() == kept == build.fingerprint()
        assert files["nuif_core.wasm"] == wasm.read_bytes()
        _playground.page_files()  # current now: nothing built, nothing said
        assert capsys.readouterr().err == ""
    finally:
        stamp.write_text(build.fingerprint())


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[str, int, Path]]:
    wasm_module()
    runtime = _fake_runtime(tmp_path / "pyodide")
    (tmp_path / "secret.txt").write_text("not for the browser")
    server = _playground.make_server(0, str(runtime), None)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    host, port = server.server_address[:2]
    try:
        yield host, port, runtime
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=30)


def _get(host: str, port: int, path: str, method: str = "GET") -> tuple[int, str, bytes]:
    conn = http.client.HTTPConnection(host, port, timeout=30)
    try:
        conn.request(method, path)
        response = conn.getresponse()
        return response.status, response.getheader("Content-Type") or "", response.read()
    finally:
        conn.close()


def test_the_server_answers_the_page_the_wheel_and_the_runtime(served) -> None:
    host, port, _ = served
    assert host == "127.0.0.1"
    status, kind, body = _get(host, port, "/")
    assert (status, kind) == (200, "text/html; charset=utf-8")
    assert body == (WEB / "playground" / "index.html").read_bytes()
    status, kind, body = _get(host, port, "/nuif.mjs")
    assert (status, kind, body) == (
        200,
        "text/javascript; charset=utf-8",
        (WEB / "src" / "nuif.mjs").read_bytes(),
    )
    status, kind, body = _get(host, port, "/nuif_core.wasm")
    assert (status, kind, body) == (
        200,
        "application/wasm",
        (WEB / "src" / "nuif_core.wasm").read_bytes(),
    )
    config = json.loads(_get(host, port, "/playground.json")[2])
    assert config == {"wheel": _playground.pure_wheel()[0], "pyodide": "pyodide/"}
    status, kind, body = _get(host, port, "/" + config["wheel"])
    assert (status, body) == (200, _playground.pure_wheel()[1])
    status, kind, body = _get(host, port, "/pyodide/pyodide.asm.wasm")
    assert (status, kind, body) == (200, "application/wasm", b"\0asm")
    status, _, body = _get(host, port, "/index.html", method="HEAD")
    assert (status, body) == (200, b"")


@pytest.mark.parametrize(
    "path",
    [
        "/secret.txt",
        "/pyodide/../secret.txt",
        "/pyodide/%2e%2e/secret.txt",
        "/pyodide/",
        "/pyodide",
        "/../secret.txt",
        "/nope.html",
    ],
)
def test_the_server_serves_nothing_else(served, path: str) -> None:
    host, port, _ = served
    status, _, body = _get(host, port, path)
    assert status == 404 and b"not for the browser" not in body


def test_the_server_refuses_other_methods(served) -> None:
    host, port, _ = served
    assert _get(host, port, "/", method="POST")[0] == 501


def test_a_port_in_use_is_a_usage_error(served, capsys) -> None:
    _, port, runtime = served
    assert main(["playground", "--port", str(port), "--pyodide", str(runtime)]) == 2
    err = capsys.readouterr().err
    assert err.startswith(f"nuif: error: cannot listen on 127.0.0.1:{port}: ")
