"""Sphinx configuration of cythello's documentation (MyST Markdown pages, the API
reference from the docstrings, reference pages generated from the code).

    python -m pip install ".[docs]" && python -m sphinx -W -b html docs docs/_build/html
"""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent
if os.environ.get("CYTHELLO_DOCS_FROM_SOURCE"):          # an in-place build (setup.py -i)
    sys.path.insert(0, str(ROOT / "src"))

import cythello  # noqa: E402

project = "cythello"
author = "the cythello developers"
copyright = "2026, the cythello developers"
release = version = cythello.__version__

extensions = ["myst_parser", "sphinx.ext.autodoc", "sphinx.ext.napoleon",
              "sphinx.ext.viewcode", "sphinx.ext.intersphinx"]
myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3
source_suffix = {".md": "markdown"}
exclude_patterns = ["_build", "_generated"]
html_theme = "furo"
html_title = f"cythello {release}"
autodoc_member_order = "bysource"
autodoc_typehints = "description"
autodoc_default_options = {"members": True, "undoc-members": False}
intersphinx_mapping = {}                       # no network at build time
suppress_warnings = ["myst.header"]             # pages cut from the old README start at ##
nitpicky = False


# -- pages generated from the code ---------------------------------------------------------

def _settings_page() -> str:
    from cythello import AlphaBetaSettings, PUCTSettings, SearchSettings
    from cythello.search.settings import settings_table
    return ("# Settings\n\n"
            "Generated from the settings types when the documentation is built: each field "
            "is checked once, when a settings object is made (a `TypeError` for a wrong "
            "type, a `SettingsError` naming the field and its range otherwise).\n\n"
            "## `SearchSettings` (the UCT search, `MCTSPlayer`)\n\n"
            f"{settings_table(SearchSettings)}\n\n"
            "## `PUCTSettings` (the PUCT search, `PUCTPlayer`)\n\n"
            f"{settings_table(PUCTSettings)}\n\n"
            "## `AlphaBetaSettings` (the alpha-beta search, `AlphaBetaPlayer`)\n\n"
            f"{settings_table(AlphaBetaSettings)}\n")


def _cli_page() -> str:
    from cythello.cli import build_parser
    parser = build_parser()
    out = ["# The command line", "",
           "Generated from the command's own help when the documentation is built.", "",
           "```text", parser.format_help().rstrip(), "```", ""]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            seen = set()
            for name, sub in action.choices.items():
                if id(sub) in seen:
                    continue
                seen.add(id(sub))
                out += [f"## `cythello {name}`", "", "```text", sub.format_help().rstrip(),
                        "```", ""]
    return "\n".join(out)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def _generate(app, config) -> None:
    sys.path.insert(0, str(DOCS))
    import _plots  # the results' plots, from the result files
    _plots.draw()
    ref = DOCS / "reference"
    _write_if_changed(ref / "settings.md", _settings_page())
    _write_if_changed(ref / "cli.md", _cli_page())


def _mend_source_backlinks(app, exception) -> None:
    """viewcode names every "[docs]" link of a module's source page after the first name
    it saw documented from that module: with ``cythello.SPRT`` documented before
    ``cythello.stats.Pentanomial``, the link of the latter points at
    ``api.html#cythello.Pentanomial``, which no page has.  Point each such link at the id
    the page does have for the object (the one whose last names are the same)."""
    if exception is not None or app.builder.format != "html":
        return
    import re
    out = Path(app.outdir)
    ids: dict = {}

    def ids_of(page: Path) -> set:
        if page not in ids:
            text = page.read_text(encoding="utf-8") if page.is_file() else ""
            ids[page] = set(re.findall(r'id="([^"]+)"', text))
        return ids[page]

    link = re.compile(r'href="([^"#]+\.html)#([^"]+)"')
    for source in (out / "_modules").rglob("*.html"):
        text = source.read_text(encoding="utf-8")
        module = ".".join(source.relative_to(out / "_modules").with_suffix("").parts)

        def mend(m: "re.Match[str]", source: Path = source, module: str = module) -> str:
            page = (source.parent / m.group(1)).resolve()
            known = ids_of(page)
            if m.group(2) in known:
                return m.group(0)
            parts = m.group(2).split(".")
            for keep in range(len(parts) - 1, 0, -1):
                tail = "." + ".".join(parts[-keep:])
                found = sorted(i for i in known if i.endswith(tail))
                if len(found) > 1:             # the one of this source's own module
                    found = [i for i in found if i == module + tail]
                if len(found) == 1:
                    return f'href="{m.group(1)}#{found[0]}"'
            return m.group(0)

        mended = link.sub(mend, text)
        if mended != text:
            source.write_text(mended, encoding="utf-8")


def setup(app):
    app.connect("config-inited", _generate)
    app.connect("build-finished", _mend_source_backlinks)
