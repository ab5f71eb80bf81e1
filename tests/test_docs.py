"""The README and the documentation are checked like code: every Python snippet runs as
written (each page's snippets in order, in one fresh interpreter, in an empty folder),
and the Sphinx build passes with warnings as errors.

A snippet may be preceded by a marker line:

* ``<!-- snippet: slow -->``: it runs only with ``-m slow`` (a page with one is slow);
* ``<!-- snippet: needs torch -->``: it runs only where that module imports (optional
  libraries: PyTorch, JAX), and is reported as skipped elsewhere.
"""
from __future__ import annotations

import importlib.util
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md"] + sorted((ROOT / "docs").rglob("*.md"))
MARKER = re.compile(r"<!--\s*snippet:\s*(slow|needs\s+[\w.]+)\s*-->")


def snippets(page: Path):
    """``(line, code, marker)`` for each fenced Python block of a page."""
    lines = page.read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            found = MARKER.search(before)
            out.append((i + 1, "\n".join(lines[i + 1:j]), found.group(1) if found else None))
            i = j
        i += 1
    return out


def _param(page: Path):
    marks = [pytest.mark.slow] if any(m == "slow" for *_, m in snippets(page)) else []
    return pytest.param(page, id=str(page.relative_to(ROOT)), marks=marks)


@pytest.mark.parametrize("page", [_param(p) for p in PAGES if snippets(p)])
def test_the_snippets_of_a_page_run_as_written(page, tmp_path):
    parts, missing = [], []
    for line, code, marker in snippets(page):
        if marker and marker.startswith("needs"):
            module = marker.split()[1]
            if importlib.util.find_spec(module) is None:
                missing.append(f"line {line} needs {module}")
                continue
        parts.append(f"# --- {page.name}, line {line}\n{code}\n")
    script = tmp_path / "snippets.py"
    script.write_text("\n".join(parts), encoding="utf-8")
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), MPLBACKEND="Agg")
    run = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env,
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, f"{page.name}: snippets failed\n{run.stderr[-3000:]}"
    if missing:
        pytest.skip("; ".join(missing))


def test_the_readmes_links_lead_somewhere():
    """Sphinx checks the links between the docs' pages; the READMEs are read on GitHub and
    PyPI, outside it: each relative link must name a file of the repository (a committed
    one: not a page the docs build generates)."""
    generated = {ROOT / "docs/reference/cli.md", ROOT / "docs/reference/settings.md"}
    for readme in (ROOT / "README.md", ROOT / "research" / "README.md"):
        text = readme.read_text(encoding="utf-8")
        targets = re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text)
        assert targets
        for target in targets:
            if "://" in target:
                continue
            path = (readme.parent / target).resolve()
            assert path.exists() and path not in generated, f"{readme.name}: {target}"


def test_every_page_is_in_the_table_of_contents():
    """A page no toctree names is a warning in Sphinx; this says which, faster."""
    docs = ROOT / "docs"
    named = set()
    for page in docs.rglob("*.md"):
        text = page.read_text(encoding="utf-8")
        for block in re.findall(r"```\{toctree\}(.*?)```", text, flags=re.S):
            for entry in block.split("\n"):
                entry = entry.strip()
                if entry and not entry.startswith(":"):
                    named.add((page.parent / entry).resolve().with_suffix(".md"))
    pages = {p.resolve() for p in docs.rglob("*.md")} - {(docs / "index.md").resolve()}
    assert not sorted(str(p) for p in pages - named)


def test_every_match_row_has_the_headers_fields():
    """A comma left unquoted in a description shifts a row of the strength table and
    plot; the Sphinx build (an optional extra) would say so, this always does."""
    import csv
    with (ROOT / "docs/results/data/matches.csv").open(encoding="utf-8") as f:
        rows = list(csv.reader(f))
    bad = [n for n, row in enumerate(rows, 1) if len(row) != len(rows[0])]
    assert not bad, f"matches.csv lines {bad} do not have the {len(rows[0])} fields"
    for row in rows[1:]:
        games, wins, draws, losses = (int(row[i]) for i in (3, 4, 5, 6))
        assert wins + draws + losses == games and float(row[8]) > 0, row


@pytest.mark.skipif(not (ROOT / "docs" / "conf.py").exists(), reason="needs the docs/ folder")
@pytest.mark.skipif(importlib.util.find_spec("sphinx") is None,
                    reason="the docs extra is not installed (pip install '.[docs]')")
def test_the_documentation_builds_without_warnings(tmp_path):
    run = subprocess.run([sys.executable, "-m", "sphinx", "-W", "--keep-going", "-q", "-b",
                          "html", str(ROOT / "docs"), str(tmp_path / "html")],
                         capture_output=True, text=True, timeout=600)
    assert run.returncode == 0, run.stderr[-5000:]
    built = tmp_path / "html"
    for name in ("index.html", "reference/api.html", "reference/settings.html",
                 "tutorials/python.html"):
        assert (built / name).is_file(), name
    api = (built / "reference/api.html").read_text(encoding="utf-8")
    assert "MCTSPlayer" in api and "solve" in api
    # The results' plots, drawn from the result files by docs/_plots.py.
    images = {p.name for p in (built / "_images").iterdir()}
    assert {"strength.svg", "probcut.svg"} <= images
    shutil.rmtree(built)
