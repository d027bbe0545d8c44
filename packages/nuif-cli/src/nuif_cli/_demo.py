"""``nuif demo``: the whole tool chain on a bundled example, with the command for each step.

Every step runs through the same core calls as the real commands and checks what NUIF promises
(same hash whatever the formatting, inverse patches restore the bytes, diff reproduces the
target, packages are deterministic and round-trip byte for byte).  Exit status 0 when every
check holds, 1 otherwise.
"""

from __future__ import annotations

import tempfile
from importlib import resources
from pathlib import Path


class _Demo:
    def __init__(self, workdir: Path) -> None:
        self.dir = workdir
        self.failures = 0

    def step(self, title: str, command: str) -> None:
        print(f"\n== {title}\n$ {command}")

    def say(self, text: str) -> None:
        print(f"  {text}")

    def check(self, ok: bool, what: str) -> None:
        print(f"  {'ok  ' if ok else 'FAIL'} {what}")
        self.failures += not ok

    def write(self, name: str, data: bytes) -> Path:
        path = self.dir / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
        return path


def _data(name: str) -> bytes:
    return resources.files("nuif_cli").joinpath("data", name).read_bytes()


def run_demo(keep_dir: str | None = None) -> int:
    if keep_dir is not None:
        Path(keep_dir).mkdir(parents=True, exist_ok=True)
        return _run(Path(keep_dir))
    with tempfile.TemporaryDirectory(prefix="nuif-demo-") as tmp:
        return _run(Path(tmp))


def _run(workdir: Path) -> int:
    import nuif_core
    from nuif_core import package

    demo = _Demo(workdir)
    print(f"nuif demo — working in {workdir}")
    source = _data("example.json")
    demo.write("example.json", source)
    demo.write("change.patch.json", _data("example.patch.json"))
    demo.write("assets/logo.svg", _data("logo.svg"))

    demo.step("validate: strict I-JSON and the NUIF schema", "nuif validate example.json")
    report = nuif_core.validate(source)
    demo.check(
        report.valid, f"example.json is a valid NUIF document ({len(source)} bytes, pretty-printed)"
    )
    doc_hash = report.hash or ""
    demo.say(f"hash  {doc_hash}")

    demo.step("inspect: what is in it", "nuif inspect example.json")
    info = nuif_core.inspect(source)
    demo.say(
        f"{info.node_count} nodes, depth {info.max_depth}, root {info.root.id} ({info.root.kind})"
    )
    demo.say("kinds " + ", ".join(f"{k} {n}" for k, n in info.kinds.items()))
    demo.check(not info.is_canonical, "the pretty-printed text is not canonical (yet)")

    demo.step(
        "canonicalize: one byte sequence per meaning",
        "nuif canonicalize example.json -o canonical.json",
    )
    canon = nuif_core.canonicalize(source)
    demo.write("canonical.json", canon.canonical)
    demo.say(
        f"{len(source)} bytes -> {len(canon.canonical)} bytes (sorted members, no spaces, empty attrs/children dropped)"
    )
    demo.check(canon.hash == doc_hash, f"same hash as the pretty text: {canon.hash}")
    demo.check(
        nuif_core.is_canonical(canon.canonical), "canonical.json passes `nuif canonicalize --check`"
    )

    demo.step(
        "apply-patch: semantic operations addressed by id, with an inverse",
        "nuif apply-patch canonical.json change.patch.json -o patched.json --inverse undo.patch.json",
    )
    result = nuif_core.apply_patch(canon.canonical, _data("example.patch.json"), inverse=True)
    demo.write("patched.json", result.canonical)
    demo.write("undo.patch.json", result.inverse or b"")
    counts = {k: v for k, v in result.counts.to_dict().items() if v}
    demo.say(f"base {result.base}")
    demo.say(f"new  {result.hash}")
    demo.say("counts " + ", ".join(f"{k} {v}" for k, v in counts.items()))
    undo = nuif_core.apply_patch(result.canonical, result.inverse or b"")
    demo.check(
        undo.canonical == canon.canonical,
        f"the inverse patch restores the original byte for byte ({undo.hash})",
    )

    demo.step("diff: the patch between two documents", "nuif diff canonical.json patched.json")
    patch = nuif_core.diff(canon.canonical, result.canonical)
    demo.write("diff.patch.json", patch)
    ops = [op["op"] for t in nuif_core.loads(patch)["transactions"] for op in t["ops"]]
    demo.say(f"{len(ops)} operations: {', '.join(ops)}")
    replay = nuif_core.apply_patch(canon.canonical, patch)
    demo.check(
        replay.canonical == result.canonical,
        "applying the diff to the original gives patched.json exactly",
    )

    demo.step(
        "pack / verify / unpack: the document with its assets",
        "nuif pack patched.json --assets assets -o screen.nuif && nuif verify screen.nuif "
        "&& nuif unpack screen.nuif -o unpacked",
    )
    first = package.pack_dir(result.canonical, workdir / "assets")
    second = package.pack_dir(result.canonical, workdir / "assets")
    demo.write("screen.nuif", first)
    import hashlib

    demo.say(f"screen.nuif  {len(first)} bytes, sha256 {hashlib.sha256(first).hexdigest()}")
    demo.check(first == second, "packing twice gives the same bytes")
    summary = package.verify(workdir / "screen.nuif")
    demo.check(
        summary.hash == result.hash, f"verified: every hash and size matches ({summary.hash})"
    )
    unpacked = workdir / "unpacked"
    package.unpack(workdir / "screen.nuif", unpacked)
    demo.check(
        (unpacked / "document.json").read_bytes() == result.canonical
        and (unpacked / "assets" / "logo.svg").read_bytes() == _data("logo.svg"),
        "unpacked files are byte-identical to the originals",
    )
    again = package.pack_dir((unpacked / "document.json").read_bytes(), unpacked / "assets")
    demo.check(again == first, "re-packing the unpacked directory gives the same package bytes")

    print()
    if demo.failures:
        print(f"demo: {demo.failures} check(s) FAILED")
        return 1
    print("demo: every check passed")
    return 0
