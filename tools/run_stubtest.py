"""Check every compiled module's ``.pyi`` stub against the built module (mypy's stubtest).

The module list is setup.py's ``MODULES``, read here, so a new extension module is checked
without anyone remembering to add it to CI:

    python tools/run_stubtest.py
"""
import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def compiled_modules() -> list:
    """The dotted names of the extension modules setup.py builds."""
    tree = ast.parse((ROOT / "setup.py").read_text())
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
                isinstance(t, ast.Name) and t.id == "MODULES" for t in node.targets):
            return [f"cythello.{name}" for name in ast.literal_eval(node.value)]
    raise SystemExit("setup.py has no MODULES list")


def main() -> int:
    command = [sys.executable, "-m", "mypy.stubtest", *compiled_modules(),
               "--allowlist", str(ROOT / "tools" / "stubtest-allowlist.txt"),
               # Earlier stubtests reported those Cython attributes; mypy 2.4's does not
               # (they are still there): an entry unused with one version is no error.
               "--ignore-unused-allowlist"]
    return subprocess.call(command, cwd=ROOT)


if __name__ == "__main__":
    sys.exit(main())
