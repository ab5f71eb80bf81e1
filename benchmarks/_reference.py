"""Build and run the portable-C yardstick (``benchmarks/yardstick/``: plain bitboard C
without ``-march``, measuring random playouts/s, perft(11) and a minimal UCT on the
machine it runs on) beside our figures, so that results are ratios from one run."""
import json
import os
import shutil
import subprocess
import tempfile
from contextlib import contextmanager
from pathlib import Path
from typing import Callable, Iterator, Optional

ROOT = Path(__file__).resolve().parent.parent
CANDIDATES = [os.environ.get("CYTHELLO_BENCH_REFERENCE", ""),
              str(ROOT / "benchmarks" / "yardstick")]


def c_compiler() -> Optional[str]:
    """The C compiler to build the benchmarks' C programs with ($CC, cc or gcc), if any."""
    return shutil.which(os.environ.get("CC", "cc")) or shutil.which("gcc")


@contextmanager
def yardstick() -> Iterator[Optional[Callable[[float], dict]]]:
    """The yardstick built once: a function that runs it (``seconds`` for each timed
    figure; perft(11) takes what it takes) and returns its JSON figures; None when its
    source or a C compiler is missing."""
    src = next((Path(c) for c in CANDIDATES if c and (Path(c) / "refbench.c").exists()), None)
    cc = c_compiler()
    if src is None or cc is None:
        yield None
        return
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "refbench"
        subprocess.run([cc, "-O2", "-o", str(exe), str(src / "refbench.c"), "-lm"], check=True)

        def run(seconds: float) -> dict:
            out = subprocess.run([str(exe), str(seconds)], check=True, capture_output=True,
                                 text=True)
            return json.loads(out.stdout)

        yield run


def reference(seconds: float = 2.0) -> Optional[dict]:
    """The yardstick's JSON figures, or None when its source or a C compiler is missing."""
    with yardstick() as run:
        return run(seconds) if run else None


def core_round_trip_ns() -> Optional[float]:
    """A cache line's round trip between two threads (``core_latency.c``), or None without
    a C compiler or POSIX threads."""
    cc = c_compiler()
    if cc is None:
        return None
    with tempfile.TemporaryDirectory() as tmp:
        exe = Path(tmp) / "core_latency"
        built = subprocess.run([cc, "-O2", "-pthread", "-o", str(exe),
                                str(Path(__file__).with_name("core_latency.c"))],
                               capture_output=True)
        if built.returncode != 0:
            return None
        out = subprocess.run([str(exe)], capture_output=True, text=True, timeout=60)
    return float(out.stdout) if out.returncode == 0 else None


def ratio(ours: float, theirs: Optional[float]) -> str:
    return f"{ours / theirs:.2f}x" if theirs else "n/a"
