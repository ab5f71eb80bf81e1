"""Check every compiled module's ``.pyi`` stub against the built module (mypy's stubtest).

The modules are setup.py's: every ``.pyx`` of the package but the x86-64-v3 twins, so a new
extension module is checked without anyone remembering to add it to CI:

    python tools/run_stubtest.py
"""
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def compiled_modules() -> list:
    """The dotted names of the extension modules setup.py builds: every .pyx of the package
    but the x86-64-v3 twins, found the way setup.py finds them."""
    sources = sorted((ROOT / "src" / "cythello").rglob("*.pyx"))
    return [".".join(p.relative_to(ROOT / "src").with_suffix("").parts)
            for p in sources if not p.stem.endswith("_v3")]


def main() -> int:
    command = [sys.executable, "-m", "mypy.stubtest", *compiled_modules(),
               "--allowlist", str(ROOT / "tools" / "stubtest-allowlist.txt"),
               # Earlier stubtests reported those Cython attributes; mypy 2.4's does not
               # (they are still there): an entry unused with one version is no error.
               "--ignore-unused-allowlist"]
    return subprocess.call(command, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
