"""The package's layout stays a layering: no module imports, directly or through others, a
module that imports it back (imports inside functions count too: they tie the modules the
same way, only later; those under ``if TYPE_CHECKING:`` never run and do not).  Read from
the source (Python by its syntax tree, Cython's ``import``/``cimport`` lines by pattern),
so nothing is imported or run."""
import ast
import re
from pathlib import Path

import pytest

SRC = Path(__file__).resolve().parents[1] / "src"
PACKAGE = SRC / "cythello"
CYTHON_IMPORT = re.compile(
    r"^\s*(?:from\s+(\.*)([\w.]*)\s+c?import\s+\(?([\w\s,]+)\)?|c?import\s+([\w.]+))", re.M)

pytestmark = pytest.mark.skipif(not PACKAGE.is_dir(), reason="needs the source tree")


def _module(path):
    parts = list(path.relative_to(SRC).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules():
    return {_module(p): p for p in sorted(PACKAGE.rglob("*"))
            if p.suffix in (".py", ".pyx", ".pxd") and not p.stem.endswith("_v3")}


def _absolute(module, is_package, level, name):
    if level == 0:
        return name
    parts = module.split(".")
    if not is_package:
        parts = parts[:-1]
    if level > 1:
        parts = parts[:len(parts) - (level - 1)]
    return ".".join(parts + ([name] if name else []))


def _runtime_nodes(tree):
    """The nodes of ``tree`` but those under ``if TYPE_CHECKING:`` (imports for the type
    checker alone, never run)."""
    todo = [tree]
    while todo:
        node = todo.pop()
        yield node
        for child in ast.iter_child_nodes(node):
            if isinstance(child, ast.If) and "TYPE_CHECKING" in ast.unparse(child.test):
                todo.extend(child.orelse)
                continue
            todo.append(child)


def _imports(module, path):
    """(base module, names imported from it) of each import statement of ``path``."""
    is_package = path.stem == "__init__"
    if path.suffix == ".py":
        for node in _runtime_nodes(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                for alias in node.names:
                    yield alias.name, []
            elif isinstance(node, ast.ImportFrom):
                yield (_absolute(module, is_package, node.level, node.module or ""),
                       [a.name for a in node.names])
        return
    for m in CYTHON_IMPORT.finditer(path.read_text(encoding="utf-8")):
        if m.group(4):
            yield m.group(4), []
        else:
            names = [n.split(" as ")[0].strip() for n in m.group(3).split(",") if n.strip()]
            yield _absolute(module, is_package, len(m.group(1)), m.group(2)), names


def import_graph():
    """Each module of the package and the package modules it imports."""
    modules = _modules()
    graph = {}
    for module, path in modules.items():
        targets = set()
        for base, names in _imports(module, path):
            # `from pkg import sub` imports the submodule; `from mod import name` the module.
            found = [f"{base}.{n}" for n in names if f"{base}.{n}" in modules]
            if len(found) < len(names) or not names:
                found.append(base)
            targets.update(t for t in found if t in modules and t != module)
        graph[module] = targets
    return graph


def cycles(graph):
    """The strongly connected groups of more than one module (Tarjan's algorithm)."""
    index, low, on_stack, stack, found = {}, {}, set(), [], []

    def visit(v):
        index[v] = low[v] = len(index)
        stack.append(v)
        on_stack.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                found.append(sorted(group))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return found


def test_the_checker_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_the_package_has_no_import_cycles():
    graph = import_graph()
    assert "cythello.search.players" in graph and graph["cythello.search.players"]
    found = cycles(graph)
    detail = "; ".join(
        " ".join(f"{m} -> {sorted(t for t in graph[m] if t in group)}" for m in group)
        for group in found)
    assert found == [], f"import cycles: {detail}"


# The layers below the searches: they may not import search/ (its settings, its players)
# to reach a check or a loader; those live below them (cythello._checks, eval.weights).
LOWER_LAYERS = ("cythello.core", "cythello.eval", "cythello.nn", "cythello.records",
                "cythello.envs", "cythello.book", "cythello._checks", "cythello._files",
                "cythello.errors", "cythello.squares")
# The book builder values positions by the midgame search: the one way down it may go.
MAY_SEARCH = {"cythello.book.build": {"cythello.search.alphabeta._midgame"}}


def test_the_lower_layers_do_not_import_the_searches():
    graph = import_graph()
    wrong = {}
    for module, targets in graph.items():
        if not module.startswith(LOWER_LAYERS):
            continue
        up = {t for t in targets if t.startswith("cythello.search")}
        up -= MAY_SEARCH.get(module, set())
        if up:
            wrong[module] = sorted(up)
    assert wrong == {}, f"imports from below search/ into it: {wrong}"
