"""MkDocs hook (mkdocs.yml, "Links"): the links from docs/ to repository files outside docs/.

MkDocs checks the links between pages of docs/; a link that leaves docs/ (``../README.md``) it can
only report as not found, like a broken one.  This hook takes those links first: the file must
exist in the repository, and a ``#fragment`` must be one of its headings as the code host names
them, or it logs a warning (``mkdocs build --strict`` fails).  On the site the link becomes the
repository path, or a link to the code host when ``repo_url`` is set.
"""

from __future__ import annotations

import os
import posixpath
import re
import xml.etree.ElementTree as etree
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlsplit

import griffe
from markdown import Extension, Markdown
from markdown.treeprocessors import Treeprocessor
from mkdocs.config.defaults import MkDocsConfig
from mkdocs.plugins import get_plugin_logger
from mkdocs.structure.pages import Page

log = get_plugin_logger("repo-links")

_page: list[Page] = []  # the page being rendered (on_page_markdown is followed by its rendering)


def on_config(config: MkDocsConfig) -> MkDocsConfig:
    config.markdown_extensions.append(_RepoLinks(config))  # type: ignore[arg-type]
    return config


def on_page_markdown(markdown: str, page: Page, **_: Any) -> str:
    _page[:] = [page]
    return markdown


class _RepoLinks(Extension):
    def __init__(self, config: MkDocsConfig) -> None:
        super().__init__()
        self.config = config

    def extendMarkdown(self, md: Markdown) -> None:
        # before MkDocs' own link check ("relpath", priority 0)
        md.treeprocessors.register(_Rewrite(md, self.config), "nuif_repo_links", 1)


class _Rewrite(Treeprocessor):
    def __init__(self, md: Markdown, config: MkDocsConfig) -> None:
        super().__init__(md)
        self.config = config

    def run(self, root: etree.Element) -> None:
        if not _page:
            return
        src = _page[0].file.src_uri
        repo = Path(self.config.config_file_path).parent  # mkdocs.yml is at the repository's root
        docs = Path(self.config.docs_dir)
        for el in root.iter("a"):
            href = el.get("href", "")
            scheme, netloc, path, _, anchor = urlsplit(href)
            if scheme or netloc or not path or path.startswith("/"):
                continue
            target = posixpath.normpath(posixpath.join(posixpath.dirname(src), unquote(path)))
            if not target.startswith("../"):
                continue  # inside docs/: MkDocs checks it
            dest = Path(os.path.normpath(docs / target))
            rel = dest.relative_to(repo).as_posix() if dest.is_relative_to(repo) else None
            if rel is None or not dest.exists():
                log.warning(f"Doc file '{src}' links to '{href}', which is not in the repository.")
                continue
            if anchor and dest.suffix == ".md" and anchor not in _anchors(dest):
                log.warning(f"Doc file '{src}' links to '{href}', but {rel} has no such heading.")
            if self.config.repo_url:
                kind = "tree" if dest.is_dir() else "blob"
                fragment = f"#{anchor}" if anchor else ""
                el.set("href", f"{self.config.repo_url.rstrip('/')}/{kind}/HEAD/{rel}{fragment}")
                continue
            # no code host configured: the text, and the path when the text is not the path
            del el.attrib["href"]
            el.tag = "span"
            el.set("title", f"{rel}{'#' + anchor if anchor else ''} in the repository")
            text = "".join(el.itertext()).strip()
            if text == rel and not len(el):  # [SECURITY.md](../SECURITY.md): the path, as code
                el.text, code = None, etree.SubElement(el, "code")
                code.text = rel
            elif text != rel:  # [the README](../README.md): "the README (`README.md`)"
                code = etree.SubElement(el, "code")
                code.text, code.tail = rel, ")"
                if len(el) > 1:
                    el[-2].tail = (el[-2].tail or "") + " ("
                else:
                    el.text = (el.text or "") + " ("


def _anchors(path: Path) -> frozenset[str]:
    """The anchors a code host gives the headings of a Markdown file (duplicates get -1, -2...)."""
    text = re.sub(r"^```.*?^```[ \t]*$", "", path.read_text(encoding="utf-8"), flags=re.S | re.M)
    seen: dict[str, int] = {}
    out = set()
    for m in re.finditer(r"^#{1,6}[ \t]+(.+?)[ \t]*#*$", text, re.M):
        title = re.sub(r"\[([^\]]*)\]\([^)]*\)", r"\1", m.group(1))  # a link's text stays
        base = re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")
        n = seen.get(base, 0)
        seen[base] = n + 1
        out.add(base if n == 0 else f"{base}-{n}")
    return frozenset(out)


# --- the API reference ----------------------------------------------------------------------------

_ROLE = re.compile(r":(?:py:)?(?:func|class|meth|attr|data|mod|exc|obj|const):`(~?)([^`]+)`")


class SphinxRoles(griffe.Extension):
    """A griffe extension (mkdocs.yml, mkdocstrings' ``extensions``): the docstrings' Sphinx roles,
    ``:func:`pack``` or ``:class:`~nuif_core.NuifError```, are shown as code (``pack``,
    ``NuifError``) rather than as the role's raw text."""

    def on_object(self, *, obj: griffe.Object, **_: Any) -> None:
        if obj.docstring is not None:
            obj.docstring.value = _ROLE.sub(_as_code, obj.docstring.value)


def _as_code(m: re.Match[str]) -> str:
    target = m.group(2)
    return f"`{target.rsplit('.', 1)[-1] if m.group(1) else target}`"
