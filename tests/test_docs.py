"""The README and the documentation are checked like code: every Python snippet runs as
written (each page's snippets in order, in one fresh interpreter, in an empty folder),
and the Sphinx build passes with warnings as errors.

A snippet may be preceded by a marker line:

* ``<!-- snippet: slow -->``: it runs only with ``-m slow`` (a page with one is slow);
* ``<!-- snippet: script -->``: it runs on its own, as a file a reader saves and runs (a
  script that starts worker processes, which import it again);
* ``<!-- snippet: needs torch -->``: it runs only where that module imports (optional
  libraries: PyTorch, JAX), and is reported as skipped elsewhere.

A snippet may be followed by ``<!-- output -->`` and a ``text`` block: what it prints, line
for line (``...`` for any text, such as a time); the test compares.  Every snippet's output
is checked to come once: worker processes that import the page's script again would print
it twice more.
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
MARKER = re.compile(r"<!--\s*snippet:\s*(slow|script|needs\s+[\w.]+)\s*-->")
OUTPUT = re.compile(r"<!--\s*output\s*-->")
# Printed between the snippets of a page run as one script: each must appear once, so that
# a snippet whose worker processes re-run the page's code (printing it all again) fails.
SEPARATOR = "\x1e-- snippet "


def _fence(lines, i):
    """The index of the line closing the fenced block opened at line ``i``."""
    j = i + 1
    while lines[j].strip() != "```":
        j += 1
    return j


def snippets(page: Path):
    """``(line, code, marker, expected)`` for each fenced Python block of a page:
    ``marker`` from the comment line before it (``slow``, ``script``: it runs on its own,
    as a file a reader saves and runs, ``needs MODULE``), ``expected`` the lines of the
    ``text`` block that follows it after an ``<!-- output -->`` line (what the page says it
    prints; ``...`` in a line stands for any text), else None."""
    lines = page.read_text(encoding="utf-8").split("\n")
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            j = _fence(lines, i)
            before = next((lines[k] for k in range(i - 1, -1, -1) if lines[k].strip()), "")
            found = MARKER.search(before)
            after = [k for k in range(j + 1, min(j + 6, len(lines))) if lines[k].strip()]
            expected = None
            if len(after) >= 2 and OUTPUT.search(lines[after[0]]) \
                    and lines[after[1]].strip() == "```text":
                end = _fence(lines, after[1])
                expected = lines[after[1] + 1:end]
            out.append((i + 1, "\n".join(lines[i + 1:j]), found.group(1) if found else None,
                        expected))
            i = j
        i += 1
    return out


def _param(page: Path):
    marks = [pytest.mark.slow] if any(s[2] == "slow" for s in snippets(page)) else []
    return pytest.param(page, id=str(page.relative_to(ROOT)), marks=marks)


def _matches(expected, printed):
    """Whether the printed lines are the expected ones (``...`` matching any text)."""
    if len(expected) != len(printed):
        return False
    return all(re.fullmatch(".*".join(map(re.escape, want.split("..."))), got.rstrip())
               for want, got in zip(expected, printed))


def _run(script: Path, cwd: Path) -> "subprocess.CompletedProcess[str]":
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), MPLBACKEND="Agg")
    return subprocess.run([sys.executable, str(script)], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=600)


@pytest.mark.parametrize("page", [_param(p) for p in PAGES if snippets(p)])
def test_the_snippets_of_a_page_run_as_written(page, tmp_path):
    """Each page's snippets run in order in one script (those marked ``script`` each in a
    script of its own, first); each prints its part once, and what the page says it
    prints."""
    parts, missing, expectations, scripts = [], [], {}, []
    for n, (line, code, marker, expected) in enumerate(snippets(page)):
        if marker and marker.startswith("needs"):
            module = marker.split()[1]
            if importlib.util.find_spec(module) is None:
                missing.append(f"line {line} needs {module}")
                continue
        if marker == "script":
            scripts.append((line, code, expected))
            continue
        parts.append(f"# --- {page.name}, line {line}\nprint({SEPARATOR!r} + {str(n)!r}, "
                     f"flush=True)\n{code}\n")
        if expected is not None:
            expectations[str(n)] = (line, expected)
    # The scripts first: the page's other snippets may read what they made.
    for line, code, expected in scripts:
        own = tmp_path / f"script_{line}.py"
        own.write_text(code + "\n", encoding="utf-8")
        run = _run(own, tmp_path)
        assert run.returncode == 0, f"{page.name}, line {line}: failed\n{run.stderr[-3000:]}"
        if expected is not None:
            printed = run.stdout.rstrip("\n").split("\n") if run.stdout.strip() else []
            assert _matches(expected, printed), \
                f"{page.name}, line {line} printed:\n{run.stdout}\nthe page says:\n" + \
                "\n".join(expected)
    script = tmp_path / "snippets.py"
    script.write_text("\n".join(parts), encoding="utf-8")
    run = _run(script, tmp_path)
    assert run.returncode == 0, f"{page.name}: snippets failed\n{run.stderr[-3000:]}"
    sections = run.stdout.split(SEPARATOR)[1:]
    names = [section.split("\n", 1)[0] for section in sections]
    assert len(names) == len(set(names)), \
        f"{page.name}: snippets printed more than once (worker processes re-running the page?)"
    for section in sections:
        name, _, text = section.partition("\n")
        if name in expectations:
            line, expected = expectations[name]
            printed = text.rstrip("\n").split("\n") if text.strip() else []
            assert _matches(expected, printed), \
                f"{page.name}, line {line} printed:\n{text}\nthe page says:\n" + \
                "\n".join(expected)
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
        assert wins + draws + losses == games, row
        if row[8]:
            assert float(row[8]) > 0, row
        else:       # won or lost in every game: no interval, the Elo is the 95 % bound
            assert wins in (0, games) and draws == 0, row


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
    # Every link to a place in a page finds it (the source pages' "[docs]" links too).
    ids, broken = {}, []
    for page in built.rglob("*.html"):
        for target, anchor in re.findall(r'href="([^"#:]+\.html)#([^"]+)"',
                                         page.read_text(encoding="utf-8")):
            path = (page.parent / target).resolve()
            if path not in ids:
                ids[path] = set(re.findall(r'id="([^"]+)"', path.read_text(encoding="utf-8"))
                                ) if path.is_file() else set()
            if anchor not in ids[path]:
                broken.append(f"{page.relative_to(built)} -> {target}#{anchor}")
    assert not broken, broken[:10]
    shutil.rmtree(built)


def test_the_readme_strength_table_is_the_results_file():
    """One source for the strength figures: the README's table is written from the results
    file the strength page is drawn from (tools/readme_strength.py), so it cannot drift."""
    import csv
    spec = importlib.util.spec_from_file_location("readme_strength",
                                                  ROOT / "tools" / "readme_strength.py")
    tool = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(tool)
    text = (ROOT / "README.md").read_text(encoding="utf-8")
    assert tool.current(text) == tool.table(), \
        "run python3 tools/readme_strength.py --write"
    # Each row names the figures of its line in the results file.
    rows = list(csv.DictReader((ROOT / "docs/results/data/matches.csv").open(encoding="utf-8")))
    changed = [dict(r, elo=str(int(r["elo"]) + 1)) for r in rows]
    assert tool.table(changed) != tool.table(rows)


README_FIGURE_COMMANDS = [      # the README's figure commands, in a smoke form
    ["benchmarks/bench_engine.py", "--seconds", "0.05", "--rounds", "1"],
    ["benchmarks/bench_rules.py", "--seconds", "0.1"],
    ["benchmarks/strength.py", "--games", "2", "--time", "0.01", "--workers", "1",
     "--pair", "easy", "random"],
    ["benchmarks/bench_eval.py"],
    ["benchmarks/bench_endgame.py", "--suite", "1-19", "--threads", "1", "--quiet"],
    ["benchmarks/bench_midgame.py", "--depths", "4", "--seconds", "0.05", "--probcut", "1.5"],
    ["benchmarks/bench_quality.py", "--endgame", "--times", "0.01", "--players", "easy"],
]


@pytest.mark.slow
@pytest.mark.parametrize("command", README_FIGURE_COMMANDS, ids=lambda c: c[0])
def test_the_readmes_figure_commands_run_against_the_installed_package(command, tmp_path):
    """As a newcomer runs them after the README's install: from another folder, with no
    PYTHONPATH, so that an unbuilt source tree is never what they import."""
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert f"python3 {command[0]}" in readme
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    done = subprocess.run([sys.executable, str(ROOT / command[0]), *command[1:]], cwd=tmp_path,
                          env=env, capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    assert "Traceback" not in done.stderr
