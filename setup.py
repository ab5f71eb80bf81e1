"""Build the compiled modules of cythello.  Metadata lives in pyproject.toml.

Environment switches:
  CYTHELLO_DEBUG=1     bounds and wraparound checks on, -O0 -g (for debugging crashes)
  CYTHELLO_ANNOTATE=1  write Cython's HTML annotation next to each .pyx (``cython -a``)
"""
import os
import sys

from Cython.Build import cythonize
from setuptools import Extension, setup

DEBUG = os.environ.get("CYTHELLO_DEBUG", "") not in ("", "0")
MODULES = ["_board", "_rollout", "_pool", "_mcts", "_endgame"]

directives = {
    "language_level": 3,
    "boundscheck": DEBUG,
    "wraparound": DEBUG,
    "initializedcheck": DEBUG,
    "cdivision": True,
    "embedsignature": True,
    "embedsignature.format": "python",
}

if sys.platform == "win32":
    compile_args = ["/Od", "/Zi"] if DEBUG else ["/O2"]
else:
    # Portable flags only: wheels must run on every CPU of their platform (no -march).
    compile_args = ["-O0", "-g"] if DEBUG else ["-O3"]
    compile_args += ["-Wno-unused-function", "-Wno-unreachable-code"]

extensions = [
    Extension(
        f"cythello.{name}",
        [f"src/cythello/{name}.pyx"],
        include_dirs=["src/cythello"],
        extra_compile_args=compile_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

setup(
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        annotate=os.environ.get("CYTHELLO_ANNOTATE", "") not in ("", "0"),
    ),
)
