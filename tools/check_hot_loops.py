"""Check with ``cython -a`` that the hot C functions touch no Python object.

    python3 tools/check_hot_loops.py      # exit 1 and the offending lines if any does

Cython's annotation scores each source line by how much Python C-API code it generated;
the search, rollout and perft loops must all score 0.
"""
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src" / "cythello"
# Source files (an include file or a .pxd is annotated as a .pyx copy, with the files it includes
# inlined) and the functions in them that must not touch Python.
HOT = {
    "search/uct/_playout_impl.pxi": ["pick_move", "_playout_loop"],
    "search/uct/_rollout": ["playout"],
    "search/uct/_tree": ["_select", "_expand", "_before", "_back_up_values", "_propagate_proof",
                         "_iterate", "_run", "_link", "_table_add", "_count_visit", "_flush",
                         "_work", "_recycle", "_run_recycling"],
    "search/uct/_transpositions": ["table_probe", "table_store", "_hash"],
    "core/_perft": ["_perft"],
    "core/_stability": ["stable_discs"],
    "search/uct/_pool": ["pool_alloc", "pool_keep_subtree", "pool_compact", "_relink",
                         "_mark_below", "pool_recycle_threshold", "_rank"],
    "search/endgame/_solver_impl.pxi": ["_solve_1", "_solve_2", "_solve_3", "_solve_4", "_nws",
                                        "_nws_shallow", "_nws_table", "_order",
                                        "_eval_search", "_pvs", "_probe", "_store", "_split",
                                        "_search_move", "_take"],
    "search/alphabeta/_midgame": ["_pvs", "_order", "_rotate", "_static", "_leaves", "_probe",
                                  "_read", "_write", "_store", "_help", "_root", "_deepen",
                                  "_probcut", "_sigma", "_selective", "_reference", "_leaf_move"],
    "search/_batch.pxd": ["batch_slot", "pending_find", "pending_take"],
    "search/puct/_forest": ["_alloc", "_descend", "_select", "_expand", "_fill_children", "_backup",
                            "_compact", "_gather", "_submit", "_recycle_threshold", "_rank",
                            "_descend_shared", "_expand_shared", "_add_path", "_flush",
                            "_shared_worker", "_result", "_units", "_negamax", "_minimax_up"],
    "nn/_pattern": ["evaluate_position", "answer_position", "_searched_value"],
    "eval/_patterns_impl.pxi": ["_cut", "_eight", "_read", "_instances", "_indices", "_sum",
                                "_evaluate", "_both_views", "_add", "_search_views",
                                "_search"],
}


def function_lines(source, name):
    start = next(i for i, l in enumerate(source) if re.search(rf"cdef [^=]*\b{name}\(", l))
    indent = len(source[start]) - len(source[start].lstrip())
    end = start + 1
    while end < len(source) and (not source[end].strip()
                                 or len(source[end]) - len(source[end].lstrip()) > indent):
        end += 1
    return start + 2, end          # 1-based, body only


def main() -> int:
    failures = 0
    with tempfile.TemporaryDirectory() as tmp:
        pkg = Path(tmp) / "cythello"
        shutil.copytree(SRC, pkg, ignore=shutil.ignore_patterns("*.so", "*.pyd", "*.c", "*.html"))
        for source, names in HOT.items():
            module = re.sub(r"\.px[id]$", "_check", source)
            if source.endswith((".pxi", ".pxd")):    # a .pxd's inline functions too
                # Its own includes inlined: the annotation covers one file only.
                folder = (pkg / source).parent
                text = re.sub(r'^include "(.+)"$',
                              lambda m, folder=folder: (folder / m.group(1)).read_text(),
                              (pkg / source).read_text(), flags=re.M)
                (pkg / f"{module}.pyx").write_text(text)
            subprocess.run([sys.executable, "-m", "cython", "-3", "-a", "-I", tmp,
                            "-X", "boundscheck=False", "-X", "wraparound=False",
                            "-X", "cdivision=True", "-I", str(pkg / "core"),
                            str(pkg / f"{module}.pyx")],
                           check=True, capture_output=True)
            html = (pkg / f"{module}.html").read_text()
            scores = {int(n): int(s) for s, n in re.findall(
                r'class="cython line score-(\d+)"[^>]*>.*?<span class="">(\d+)</span>', html)}
            source = (pkg / f"{module}.pyx").read_text().splitlines()
            for name in names:
                first, last = function_lines(source, name)
                bad = [n for n in range(first, last + 1) if scores.get(n, 0) > 0]
                print(f"{module}.{name:<18} lines {first}-{last}: "
                      + ("no Python" if not bad else f"Python on lines {bad}"))
                failures += bool(bad)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
