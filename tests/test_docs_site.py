"""The documentation site (mkdocs.yml): docs/ and the API reference build with ``--strict``, and
the strict build still fails on a broken link or anchor (so the check cannot quietly stop)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import nuif_core

ROOT = Path(__file__).resolve().parent.parent
BUILD_SECONDS = 300


def _build(config_dir: Path, site: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "mkdocs", "build", "--strict", "--site-dir", str(site)],
        cwd=config_dir,
        capture_output=True,
        text=True,
        timeout=BUILD_SECONDS,
        env={**os.environ, "NO_MKDOCS_2_WARNING": "1"},  # Material's banner, not a warning
    )


def test_the_site_builds_strictly_with_the_api_reference(tmp_path: Path) -> None:
    done = _build(ROOT, tmp_path / "site")
    assert done.returncode == 0, done.stdout + done.stderr
    api = (tmp_path / "site" / "api" / "index.html").read_text(encoding="utf-8")
    for name in ("canonicalize", "apply_patch", "NuifError", "package.pack"):
        assert f'id="nuif_core.{name}"' in api, f"the API page does not document {name}"
    assert ":func:`" not in api and ":class:`" not in api  # Sphinx roles are shown as code


def test_the_api_page_lists_every_public_name() -> None:
    text = (ROOT / "docs" / "api.md").read_text(encoding="utf-8")
    block = text.split("::: nuif_core\n", 1)[1].split(":::", 1)[0]
    listed = re.findall(r"^ {8}- (\S+)$", block, re.M)
    assert sorted(listed) == sorted(nuif_core.__all__)


PLANTED = """# Planted

[a missing page](no-such-page.md), [a missing anchor](format.md#no-such-heading),
[a missing anchor here](#no-such-heading), [a missing repository file](../NO-SUCH-FILE.md),
[a missing heading in the repository](../README.md#no-such-heading).
"""


def test_a_broken_link_or_anchor_fails_the_strict_build(tmp_path: Path) -> None:
    # a copy of docs/ and mkdocs.yml; everything else at the root is the repository's own
    shutil.copytree(ROOT / "docs", tmp_path / "docs")
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "  - API reference: api.md\n" in config
    config = config.replace(
        "  - API reference: api.md\n", "  - API reference: api.md\n  - planted.md\n"
    )
    (tmp_path / "mkdocs.yml").write_text(config, encoding="utf-8")
    for entry in ROOT.iterdir():
        if entry.name not in {"docs", "mkdocs.yml", "site"} and not entry.name.startswith("."):
            (tmp_path / entry.name).symlink_to(entry)
    (tmp_path / "docs" / "planted.md").write_text(PLANTED, encoding="utf-8")

    done = _build(tmp_path, tmp_path / "site")
    out = done.stdout + done.stderr
    assert done.returncode != 0, out
    warnings = [line for line in out.splitlines() if line.startswith("WARNING")]
    assert warnings and all("'planted.md'" in w for w in warnings), out  # the copy itself is clean
    for link in (
        "'no-such-page.md'",
        "'format.md#no-such-heading'",
        "'#no-such-heading'",
        "'../NO-SUCH-FILE.md'",
        "'../README.md#no-such-heading'",
    ):
        assert any(link in w for w in warnings), f"no warning for {link}:\n{out}"
