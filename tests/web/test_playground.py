"""The playground page in a real browser: Debian's chromium, headless, driven by Playwright for
Python (the system browser: no browser download), loading the page from ``nuif playground``
started here on 127.0.0.1.  The page starts on the WebAssembly core alone (no request for Python)
and loads Pyodide when a patch, a diff or a catalog first needs it.  A valid document, an invalid
one, a patch (and a failing one) and a diff are pasted; what the page shows (hash, diagnostics with line and column, outline node
count, patched text and inverse, diff) is checked against the direct API.  A screenshot of each
state is saved in the test's folder and copied to tests/web/out/ (git-ignored), to look at.

Chromium missing: skipped with the reason, or a failure under ``NUIF_REQUIRE_CHROMIUM=1``
(``.ci/run`` installs Debian's package and sets it).
"""

from __future__ import annotations

import json
import re
import select
import shutil
import signal
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from nuif_web_support import PYODIDE_PIN, REPO, pyodide_dir, require, wasm_module

import nuif_core

pytestmark = [pytest.mark.slow, pytest.mark.timeout(600)]

CHROMIUM = Path("/usr/bin/chromium")
FLAGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
OUT = REPO / "tests" / "web" / "out"
WAIT_MS = 120_000

VALID = """{
  "nuif": 0,
  "root": {"kind": "screen", "id": "login", "attrs": {"title": "Sign in"}, "children": [
    {"id": "login.email", "kind": "text-field", "attrs": {"label": "Email", "required": true}},
    {"id": "login.row", "kind": "row", "children": [
      {"id": "login.submit", "kind": "button", "attrs": {"label": "Sign in"}},
      {"id": "login.help", "kind": "link", "attrs": {"label": "Help", "href": "/help"}}
    ]}
  ]}
}
"""
#: four schema problems on three lines (one of them twice on one line), and a non-ASCII text
INVALID = """{
  "nuif": 0,
  "root": {"kind": "Screen", "id": "-login", "attrs": {"tïtle": "Connexion"}, "children": [
    {"id": "a", "kind": "text"},
    {"id": "a", "kind": "text"}
  ]}
}
"""
BROKEN = '{"nuif": 0,\n  "root": {"id": "r", "kind": "x",}\n}'
PATCH = json.dumps(
    {
        "nuif_patch": 0,
        "transactions": [
            {
                "ops": [
                    {"op": "set", "id": "login.submit", "attr": "label", "value": "Continue"},
                    {"op": "move", "id": "login.help", "parent": "login", "index": 0},
                    {"op": "remove", "id": "login.email"},
                ]
            }
        ],
    },
    indent=2,
)
BAD_PATCH = '{"nuif_patch": 0, "transactions": [{"ops": [\n  {"op": "remove", "id": "nope"}]}]}'
OTHER = VALID.replace('"Help"', '"Get help"').replace('"row"', '"column"')


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    """``nuif playground --port 0`` (the pure wheel assembled from the installed nuif-core)."""
    runtime = pyodide_dir()
    wasm_module()
    proc = subprocess.Popen(
        [sys.executable, "-m", "nuif_cli", "playground", "--port", "0", "--pyodide", str(runtime)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        stdin=subprocess.DEVNULL,
    )
    try:
        assert proc.stdout is not None
        ready, _, _ = select.select([proc.stdout], [], [], 60)
        assert ready, "nuif playground printed no address within 60 s"
        line = proc.stdout.readline().decode()
        match = re.fullmatch(
            r"NUIF playground: (http://127\.0\.0\.1:\d+/)  \(Ctrl\+C stops it\)\n", line
        )
        assert match, line
        yield match.group(1)
    finally:
        # Ctrl+C, as the page says: the server stops and the process exits by itself (so its
        # coverage data is written, too)
        proc.send_signal(signal.SIGINT)
        try:
            proc.wait(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait(timeout=30)
        for stream in (proc.stdout, proc.stderr):
            if stream:
                stream.close()


@pytest.fixture(scope="module")
def browser_context(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Any]:
    if not CHROMIUM.exists():
        require("CHROMIUM", f"{CHROMIUM} is not installed (apt-get install chromium)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        context = pw.chromium.launch_persistent_context(
            str(tmp_path_factory.mktemp("chromium-profile")),
            executable_path=str(CHROMIUM),
            headless=True,
            args=FLAGS,
            viewport={"width": 1280, "height": 800},
        )
        try:
            yield context
        finally:
            context.close()


class Shots:
    """Screenshots: into the test's folder, and copied to tests/web/out/."""

    def __init__(self, page: Any, folder: Path) -> None:
        self.page = page
        self.folder = folder
        self.taken: list[Path] = []
        OUT.mkdir(exist_ok=True)

    def __call__(self, name: str, *, full_page: bool = True) -> None:
        path = self.folder / f"{name}.png"
        self.page.screenshot(path=str(path), full_page=full_page)
        shutil.copyfile(path, OUT / path.name)
        self.taken.append(path)


def _paste(page: Any, selector: str, text: str) -> None:
    """Put ``text`` into a textarea as a paste does (one input event)."""
    page.focus(selector)
    page.fill(selector, "")
    page.keyboard.insert_text(text)


def _diagnostics(page: Any) -> list[dict[str, Any]]:
    return page.eval_on_selector_all(
        "#diagnostics button",
        "els => els.map(b => ({code: b.dataset.code, line: Number(b.dataset.line), "
        "column: Number(b.dataset.column), text: b.textContent}))",
    )


def _python_asked(urls: list[str]) -> list[str]:
    """The requests for Python: Pyodide's files and the wheel."""
    return [u for u in urls if "/pyodide/" in u or u.endswith(".whl")]


def _ready_text(python: bool) -> str:
    core = f"nuif-core {nuif_core.__version__} ready: WebAssembly core"
    return f"{core} and Python (Pyodide {PYODIDE_PIN})" if python else core


def test_playground_in_chromium(server: str, browser_context: Any, tmp_path: Path) -> None:
    offsite: list[str] = []
    asked: list[str] = []
    held: list[Any] = []  # the wheel's request, held until the loading screen is photographed

    def route(route: Any) -> None:
        url = route.request.url
        asked.append(url)
        if not url.startswith(server):
            offsite.append(url)
            route.abort()
        elif url.endswith(".whl") and not held:
            held.append(route)
        else:
            route.continue_()

    browser_context.route("**/*", route)
    page = browser_context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    shot = Shots(page, tmp_path)

    # --- start: the WebAssembly core, ready without Python ----------------------------------
    page.goto(server)
    page.wait_for_selector("#status[data-stage=ready]", timeout=WAIT_MS)
    assert page.get_attribute("#status", "data-history") == "core ready"
    assert page.text_content("#status-text") == _ready_text(python=False)
    assert not page.is_disabled("#apply") and not page.is_disabled("#diff")
    assert any(u.endswith("/nuif_core.wasm") for u in asked)
    shot("01-ready", full_page=False)

    # --- a valid document: hash, node count, outline, canonical text ---------------------------
    _paste(page, "#doc", VALID)
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('good')", timeout=WAIT_MS
    )
    expected = nuif_core.canonicalize(VALID)
    summary = nuif_core.inspect(VALID)
    assert page.text_content("#hash") == expected.hash
    assert page.get_attribute("#node-count", "data-count") == str(summary.node_count)
    assert page.locator("#outline li.node").count() == summary.node_count == 5
    assert page.text_content("#canonical") == expected.text
    assert page.locator("#diagnostics li").count() == 0
    outline_ids = page.eval_on_selector_all("#outline li.node", "els => els.map(e => e.dataset.id)")
    assert outline_ids == [e.id for e in summary.outline]
    shot("02-valid")
    page.click("#collapse")
    assert page.locator("#outline details[open]").count() == 0
    page.click("#expand")
    assert page.locator("#outline details[open]").count() == 2
    # keyboard: Tab walks the controls in reading order, Enter folds an outline node
    page.focus("#example")
    order = []
    for _ in range(9):
        page.keyboard.press("Tab")
        order.append(page.evaluate("document.activeElement.id || document.activeElement.tagName"))
    assert order == [
        "doc-file",
        "doc",
        "A",
        "apply",
        "patch",
        "basic-catalog",
        "no-catalog",
        "catalog",
        "diff",
    ]
    page.focus("#outline summary")
    page.keyboard.press("Enter")
    assert page.locator("#outline details[open]").count() == 1
    page.keyboard.press("Enter")
    assert page.locator("#outline details[open]").count() == 2

    # --- an invalid document: every diagnostic, at its line and column, marked in the editor ---
    _paste(page, "#doc", INVALID)
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    report = nuif_core.validate(INVALID)
    shown = _diagnostics(page)
    assert [(d["code"], d["line"], d["column"]) for d in shown] == [
        (d.code, d.line, d.column) for d in report.diagnostics
    ]
    assert len(shown) == 4
    for d, got in zip(report.diagnostics, shown, strict=True):
        assert f"line {d.line}, column {d.column}" in got["text"] and d.message in got["text"]
    marked = page.eval_on_selector_all(
        "#doc-editor .backdrop mark:not(.line)", "els => els.map(e => e.textContent)"
    )
    assert len(marked) == len({(d.line, d.column) for d in report.diagnostics})
    bad_lines = page.eval_on_selector_all(
        "#doc-editor .gutter .bad", "els => els.map(e => Number(e.textContent))"
    )
    assert bad_lines == sorted({d.line for d in report.diagnostics})
    assert page.text_content("#hash") == "—" and page.locator("#outline li.node").count() == 0
    # a diagnostic is a button: Enter on it puts the caret at its place in the text
    page.focus("#diagnostics li:nth-child(3) button")
    page.keyboard.press("Enter")
    third = report.diagnostics[2]
    lines = INVALID.split("\n")
    offset = sum(len(x) + 1 for x in lines[: third.line - 1]) + third.column - 1
    assert page.evaluate("document.activeElement.id") == "doc"
    assert page.evaluate("document.querySelector('#doc').selectionStart") == offset
    shot("03-invalid")

    # a text error: one diagnostic, at the stray comma's line and column
    _paste(page, "#doc", BROKEN)
    page.wait_for_function(
        "document.querySelector('#diagnostics button')?.dataset.code === 'NUIF_PARSE'",
        timeout=WAIT_MS,
    )
    [err] = nuif_core.validate(BROKEN).diagnostics
    assert (
        [(d["line"], d["column"]) for d in _diagnostics(page)]
        == [(err.line, err.column)]
        == [(2, 35)]
    )
    shot("04-syntax-error")
    # checking, hashing and the outline asked nothing of Python
    assert _python_asked(asked) == []

    # --- a patch: Python starts (progress meanwhile), then the new hash, patched text, inverse
    # (keyboard: Ctrl+Enter in the patch) ----------------------------------------------------
    _paste(page, "#doc", VALID)
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('good')", timeout=WAIT_MS
    )
    _paste(page, "#patch", PATCH)
    page.keyboard.press("Control+Enter")
    page.wait_for_selector("#status[data-stage=runtime]", timeout=WAIT_MS)
    for _ in range(600):  # route handlers run while Playwright waits: at most 60 s
        if held:
            break
        page.wait_for_timeout(100)
    assert len(held) == 1  # the page asked for the wheel while the runtime loads
    assert page.is_disabled("#apply") and page.is_disabled("#diff")
    assert page.text_content("#patch-verdict") == "Loading Python (Pyodide) to apply the patch…"
    shot("05-python-loading", full_page=False)
    held[0].continue_()
    page.wait_for_function(
        "document.querySelector('#patch-verdict').classList.contains('good')", timeout=WAIT_MS
    )
    patched = nuif_core.apply_patch(VALID, PATCH, inverse=True)
    assert page.text_content("#patched-hash") == patched.hash
    assert page.text_content("#patched") == patched.text
    assert json.loads(page.text_content("#inverse")) == json.loads(patched.inverse)
    assert "1 transaction(s), 3 operation(s)" in page.text_content("#patch-verdict")
    assert page.text_content("#inverse-check") == (
        f"Applied to the result, the inverse gives back the document ({expected.hash})."
    )
    # a hash in running text wraps inside its card: nothing wider than the 1280-pixel window
    assert page.evaluate("document.documentElement.scrollWidth") <= 1280
    history = page.get_attribute("#status", "data-history")
    assert history == "core ready runtime wheel install import ready"
    assert page.text_content("#status-text") == _ready_text(python=True)
    shot("06-patched")

    _paste(page, "#patch", BAD_PATCH)
    page.click("#apply")
    page.wait_for_function(
        "document.querySelector('#patch-verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    with pytest.raises(nuif_core.NuifError) as failed:
        nuif_core.apply_patch(VALID, BAD_PATCH)
    assert str(failed.value) in page.text_content("#patch-verdict")
    assert page.text_content("#patched-hash") == "—" and page.text_content("#inverse-check") == ""
    # located by pointer only (/transactions/0/ops/0/id): marked at the value in the patch text
    assert failed.value.pointer == "/transactions/0/ops/0/id" and failed.value.line is None
    column = BAD_PATCH.split("\n")[1].index('"nope"') + 1
    assert page.text_content("#patch-verdict").endswith(
        f"— in the patch at line 2, column {column}"
    )
    assert page.eval_on_selector_all(
        "#patch-editor .backdrop mark:not(.line)", "els => els.map(e => e.textContent)"
    ) == ['"nope"']
    assert page.eval_on_selector_all(
        "#patch-editor .gutter .bad", "els => els.map(e => e.textContent)"
    ) == ["2"]
    shot("07-patch-error")

    # --- a diff between two documents ------------------------------------------------------------
    _paste(page, "#other", OTHER)
    page.click("#diff")
    page.wait_for_function(
        "document.querySelector('#diff-verdict').classList.contains('good')", timeout=WAIT_MS
    )
    assert json.loads(page.text_content("#diff-out")) == json.loads(nuif_core.diff(VALID, OTHER))
    shot("08-diff")

    # --- a kind catalog: the basic one refuses the unknown kind; a broken one is marked in it ---
    page.click("#basic-catalog")
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    basic = nuif_core.catalogs.basic_text()
    assert page.input_value("#catalog") == basic
    checked = nuif_core.validate(VALID, catalog=basic, max_diagnostics=200)
    shown = [(d["code"], d["line"], d["column"]) for d in _diagnostics(page)]
    assert shown == [(d.code, d.line, d.column) for d in checked.diagnostics]
    assert "NUIF_CATALOG_KIND" in {d.code for d in checked.diagnostics}
    assert page.text_content("#catalog-verdict") == (
        "The document is also checked against this catalog."
    )
    shot("09-catalog")
    _paste(
        page,
        "#catalog",
        '{"nuif_catalog": 0,\n "kinds": {"x": {"attrs": {"$ref": "https://e.x"}}}}',
    )
    page.wait_for_function(
        "document.querySelector('#catalog-verdict').textContent.includes('not valid')",
        timeout=WAIT_MS,
    )
    (refused,) = _diagnostics(page)
    assert refused["code"] == "NUIF_CATALOG" and refused["line"] == 2
    assert page.eval_on_selector_all(
        "#catalog-editor .gutter .bad", "els => els.map(e => e.textContent)"
    ) == ["2"]
    page.click("#no-catalog")
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('good')", timeout=WAIT_MS
    )
    assert page.input_value("#catalog") == ""

    # --- a file dropped on the editor, and one opened with the file picker ----------------------
    page.evaluate(
        """([text]) => {
            const data = new DataTransfer();
            data.items.add(new File([text], "dropped.json", {type: "application/json"}));
            const editor = document.querySelector("#doc-editor");
            editor.dispatchEvent(new DragEvent("dragover", {dataTransfer: data, bubbles: true, cancelable: true}));
            editor.dispatchEvent(new DragEvent("drop", {dataTransfer: data, bubbles: true, cancelable: true}));
        }""",
        [INVALID],
    )
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    assert page.input_value("#doc") == INVALID and len(_diagnostics(page)) == 4
    page.set_input_files(
        "#doc-file",
        files=[{"name": "picked.json", "mimeType": "application/json", "buffer": VALID.encode()}],
    )
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('good')", timeout=WAIT_MS
    )
    assert page.input_value("#doc") == VALID and page.text_content("#hash") == expected.hash

    # --- a phone's width: one column, nothing wider than the screen -----------------------------
    page.set_viewport_size({"width": 390, "height": 844})
    page.wait_for_timeout(200)  # layout settles (no assertion depends on the time)
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    shot("10-phone")
    page.set_viewport_size({"width": 1280, "height": 800})

    assert errors == []
    assert offsite == []  # every file came from the playground server
    page.close()
    browser_context.unroute("**/*")
    assert [p.name for p in shot.taken] == [
        "01-ready.png",
        "02-valid.png",
        "03-invalid.png",
        "04-syntax-error.png",
        "05-python-loading.png",
        "06-patched.png",
        "07-patch-error.png",
        "08-diff.png",
        "09-catalog.png",
        "10-phone.png",
    ]
    assert all(p.stat().st_size > 10_000 for p in shot.taken)


def test_a_start_that_fails_says_why(server: str, browser_context: Any, tmp_path: Path) -> None:
    page = browser_context.new_page()
    page.route("**/*.wasm", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(server)
    page.wait_for_selector("#status[data-stage=failed]", timeout=WAIT_MS)
    text = page.text_content("#status-text")
    assert text == (
        f"The playground could not start: nuif-web: {server}nuif_core.wasm could not be fetched "
        "(HTTP 404)"
    )
    assert page.is_disabled("#apply") and page.is_disabled("#example")
    Shots(page, tmp_path)("11-start-failed", full_page=False)
    page.close()


def test_python_that_cannot_start_says_why_and_the_checks_go_on(
    server: str, browser_context: Any, tmp_path: Path
) -> None:
    page = browser_context.new_page()
    page.route("**/*.whl", lambda route: route.fulfill(status=404, body="gone"))
    page.goto(server)
    page.wait_for_selector("#status[data-stage=ready]", timeout=WAIT_MS)
    _paste(page, "#doc", VALID)
    _valid_shown(page)
    _paste(page, "#other", OTHER)
    page.click("#diff")
    page.wait_for_selector("#status[data-stage=failed]", timeout=WAIT_MS)
    text = page.text_content("#status-text")
    assert text.startswith("Python (Pyodide) could not start: loadNuif: the wheel ")
    assert text.endswith("could not be fetched (HTTP 404)")
    page.wait_for_function(
        "document.querySelector('#diff-verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    assert page.text_content("#diff-verdict") == (
        "No diff: Python (Pyodide) could not start (see the status line)."
    )
    assert not page.is_disabled("#diff")  # a later click tries again
    _paste(page, "#doc", INVALID)  # the WebAssembly core still checks
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    assert len(_diagnostics(page)) == 4
    Shots(page, tmp_path)("12-python-failed", full_page=False)
    page.close()


def test_a_catalog_typed_in_loads_python_then_checks_against_it(
    server: str, browser_context: Any
) -> None:
    held: list[Any] = []  # the wheel, held until the page has said it is loading Python
    page = browser_context.new_page()
    page.route("**/*.whl", lambda route: held.append(route))
    page.goto(server)
    page.wait_for_selector("#status[data-stage=ready]", timeout=WAIT_MS)
    basic = nuif_core.catalogs.basic_text()
    _paste(page, "#doc", VALID)
    _valid_shown(page)
    _paste(page, "#catalog", basic)
    page.wait_for_function(
        "document.querySelector('#catalog-verdict').textContent.startsWith('Loading Python')",
        timeout=WAIT_MS,
    )
    for _ in range(600):  # route handlers run while Playwright waits: at most 60 s
        if held:
            break
        page.wait_for_timeout(100)
    [wheel] = held
    wheel.continue_()
    page.wait_for_function(
        "document.querySelector('#catalog-verdict').textContent.includes('also checked')",
        timeout=WAIT_MS,
    )
    checked = nuif_core.validate(VALID, catalog=basic, max_diagnostics=200)
    shown = [(d["code"], d["line"], d["column"]) for d in _diagnostics(page)]
    assert shown == [(d.code, d.line, d.column) for d in checked.diagnostics]
    assert page.text_content("#status-text") == _ready_text(python=True)
    page.close()


# ---------------------------------------------------------------------------------------------
# for people: no failed request, copy, share, the view follows the marks, a phone's layout


def _ready_page(server: str, browser_context: Any, url: str | None = None) -> Any:
    page = browser_context.new_page()
    page.goto(url or server)
    page.wait_for_selector("#status[data-stage=ready]", timeout=WAIT_MS)
    return page


def _valid_shown(page: Any) -> None:
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('good')", timeout=WAIT_MS
    )


def test_loading_the_page_makes_no_request_that_fails(server: str, browser_context: Any) -> None:
    failed: list[str] = []
    asked: list[str] = []
    page = browser_context.new_page()
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.on("request", lambda r: asked.append(r.url))
    page.on("requestfailed", lambda r: failed.append(f"failed {r.url}"))
    page.goto(server)
    page.wait_for_selector("#status[data-stage=ready]", timeout=WAIT_MS)
    page.wait_for_timeout(500)  # a late icon request would show here (nothing waits on it)
    assert failed == []
    assert not any(url.endswith("/favicon.ico") for url in asked)  # the icon is in the page
    assert page.evaluate("document.querySelector('link[rel=icon]').href").startswith(
        "data:image/svg+xml,"
    )
    page.close()


def test_copy_buttons_put_the_hash_and_the_canonical_text_on_the_clipboard(
    server: str, browser_context: Any
) -> None:
    browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = _ready_page(server, browser_context)
    assert page.is_disabled("#copy-hash") and page.is_disabled("#copy-canonical")
    _paste(page, "#doc", VALID)
    _valid_shown(page)
    expected = nuif_core.canonicalize(VALID)
    page.click("#copy-hash")
    assert page.evaluate("navigator.clipboard.readText()") == expected.hash
    assert page.text_content("#copy-hash") == "Copied"
    page.click("#copy-canonical")
    assert page.evaluate("navigator.clipboard.readText()") == expected.text
    _paste(page, "#doc", INVALID)
    page.wait_for_function("document.querySelector('#copy-hash').disabled", timeout=WAIT_MS)
    page.close()
    browser_context.clear_permissions()


def test_a_shared_link_holds_the_inputs_and_opens_them(
    server: str, browser_context: Any, tmp_path: Path
) -> None:
    browser_context.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = _ready_page(server, browser_context)
    _paste(page, "#doc", VALID)
    _valid_shown(page)
    _paste(page, "#patch", PATCH)
    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url))
    page.click("#share")
    page.wait_for_function("document.querySelector('#share-note').textContent", timeout=WAIT_MS)
    link = page.url
    assert sent == []  # sharing sends nothing: the inputs are in the fragment
    assert link.startswith(server) and "#v1.doc" in link and "&patch" in link
    assert "login.submit" not in link  # encoded, not pasted as text
    assert page.evaluate("navigator.clipboard.readText()") == link
    page.close()
    browser_context.clear_permissions()

    opened = _ready_page(server, browser_context, link)
    _valid_shown(opened)
    assert opened.input_value("#doc") == VALID and opened.input_value("#patch") == PATCH
    assert opened.input_value("#other") == ""
    assert opened.text_content("#hash") == nuif_core.canonicalize(VALID).hash
    assert opened.text_content("#share-note") == "Opened from a shared link."
    Shots(opened, tmp_path)("13-opened-from-a-link", full_page=False)
    opened.close()

    broken = _ready_page(server, browser_context, server + "#v1.doc=%%%")
    assert broken.text_content("#share-note").startswith("This link could not be read")
    assert broken.input_value("#doc") == ""
    broken.close()


#: a problem far to the right: an id that breaks the id rule at the end of a long line
WIDE = (
    '{"nuif": 0, "root": {"kind": "screen", "id": "home", "attrs": {"title": "'
    + "A rather long title that runs well past the editor's right edge " * 3
    + '"}, "children": [{"kind": "text", "id": "-bad"}]}}\n'
)
WIDE_PATCH = (
    '{"nuif_patch": 0, "transactions": [{"ops": [{"op": "set", "id": "home", "attr": "x", '
    '"value": 1}, {"op": "set", "id": "home", "attr": "y", "value": 2}, '
    '{"op": "remove", "id": "no-such-node-anywhere"}]}]}'
)


def _mark_in_view(page: Any, editor: str) -> bool:
    return page.evaluate(
        """(editor) => {
            const root = document.querySelector(editor);
            const box = root.querySelector(".code").getBoundingClientRect();
            const mark = root.querySelector(".backdrop mark:not(.line)").getBoundingClientRect();
            return mark.left >= box.left && mark.right <= box.right
                && mark.top >= box.top && mark.bottom <= box.bottom;
        }""",
        editor,
    )


def test_the_view_scrolls_to_a_mark_off_to_the_right(
    server: str, browser_context: Any, tmp_path: Path
) -> None:
    page = _ready_page(server, browser_context)
    [problem] = nuif_core.validate(WIDE).diagnostics
    assert problem.column > 200  # well past what the editor shows at once
    _paste(page, "#doc", WIDE)
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    page.evaluate("document.querySelector('#doc').scrollLeft = 0")
    page.evaluate("document.querySelector('#doc').dispatchEvent(new Event('scroll'))")
    assert not _mark_in_view(page, "#doc-editor")
    page.click("#diagnostics button")
    assert page.evaluate("document.querySelector('#doc').scrollLeft") > 0
    assert _mark_in_view(page, "#doc-editor")
    # a document opened (not typed) shows its first problem without a click
    page.evaluate("document.querySelector('#example').focus()")
    page.set_input_files(
        "#doc-file",
        files=[{"name": "wide.json", "mimeType": "application/json", "buffer": WIDE.encode()}],
    )
    page.wait_for_function("document.querySelector('#doc').scrollLeft > 0", timeout=WAIT_MS)
    assert _mark_in_view(page, "#doc-editor")
    # a patch's failing operation far to the right: the patch editor scrolls to its mark
    _paste(page, "#doc", VALID.replace('"login"', '"home"', 1))
    _valid_shown(page)
    _paste(page, "#patch", WIDE_PATCH)
    page.evaluate("document.querySelector('#patch').scrollLeft = 0")
    page.click("#apply")
    page.wait_for_function(
        "document.querySelector('#patch-verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    assert page.evaluate("document.querySelector('#patch').scrollLeft") > 0
    assert _mark_in_view(page, "#patch-editor")
    Shots(page, tmp_path)("14-mark-in-view", full_page=False)
    page.close()


def test_on_a_phone_the_diagnostics_follow_the_document(
    server: str, browser_context: Any, tmp_path: Path
) -> None:
    page = _ready_page(server, browser_context)
    page.set_viewport_size({"width": 390, "height": 844})
    _paste(page, "#doc", INVALID)
    page.wait_for_function(
        "document.querySelector('#verdict').classList.contains('bad')", timeout=WAIT_MS
    )
    boxes = page.evaluate(
        """() => Object.fromEntries(["doc-panel", "verdict-panel", "diagnostics-panel",
            "patch-input-panel"].map((id) => {
                const r = document.getElementById(id).getBoundingClientRect();
                return [id, {top: r.top, bottom: r.bottom}];
            }))"""
    )
    doc, verdict, diagnostics, patch = (
        boxes[k] for k in ("doc-panel", "verdict-panel", "diagnostics-panel", "patch-input-panel")
    )
    assert doc["bottom"] <= verdict["top"] <= verdict["bottom"] <= diagnostics["top"]
    assert diagnostics["bottom"] <= patch["top"]  # the other inputs come after
    assert diagnostics["top"] - doc["bottom"] < 200  # near the text: only the verdict between
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    Shots(page, tmp_path)("15-phone-diagnostics")
    page.close()
