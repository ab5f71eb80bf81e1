"""Build the compiled modules of cythello.  Metadata lives in pyproject.toml.

Environment switches:
  CYTHELLO_DEBUG=1     bounds and wraparound checks on, -O0 -g (for debugging crashes)
  CYTHELLO_ANNOTATE=1  write Cython's HTML annotation next to each .pyx (``cython -a``)
  CYTHELLO_NO_V3=1     do not build the x86-64-v3 playouts (_rollout_v3)
"""
import glob
import os
import platform
import sys

try:
    from Cython.Build import cythonize
except ImportError:                # `python3 setup.py ...` without pip's build environment
    sys.exit("Building cythello needs Cython (and NumPy): `python3 -m pip install .` brings "
             "them into its build by itself; for `python3 setup.py build_ext --inplace`, "
             "first `python3 -m pip install 'Cython>=3.0.10,<4' numpy setuptools`.")
from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

DEBUG = os.environ.get("CYTHELLO_DEBUG", "") not in ("", "0")
# The compiled modules: every .pyx of the package, named by its path (cythello/search/uct/
# _tree.pyx is cythello.search.uct._tree), but the x86-64-v3 twins ("<name>_v3.pyx", below).
SOURCES = sorted(glob.glob("src/cythello/**/*.pyx", recursive=True))
MODULES = [os.path.splitext(os.path.relpath(path, "src"))[0].replace(os.sep, ".")[len("cythello."):]
           for path in SOURCES if not path.endswith("_v3.pyx")]
INCLUDE = ["src/cythello/core"]         # the C headers of the core

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
    # -g0 overrides the -g in Python's own CFLAGS: a release wheel carries no debug
    # information (it was 14 MB of the 7.9 MB wheel's unpacked shared objects).
    compile_args = ["-O0", "-g"] if DEBUG else ["-O3", "-g0"]
    compile_args += ["-Wno-unused-function", "-Wno-unreachable-code"]
# Release builds on Linux also drop the symbol table (the module's entry point is a dynamic
# symbol and stays); macOS's linker has no such flag, and -g0 already keeps debug info out.
link_args = ["-s"] if sys.platform.startswith("linux") and not DEBUG else []

extensions = [
    Extension(
        f"cythello.{name}",
        [f"src/cythello/{name.replace('.', '/')}.pyx"],
        include_dirs=INCLUDE,
        extra_compile_args=compile_args,
        extra_link_args=link_args,
        define_macros=[("NPY_NO_DEPRECATED_API", "NPY_1_7_API_VERSION")],
    )
    for name in MODULES
]

# The hot loops once more for x86-64-v3 (AVX2, BMI1/2, POPCNT): each "<name>_v3.pyx" includes
# the same source as its portable module.  cythello.core._cpu loads such a twin only after a
# CPU check, so the package still runs on every x86-64 CPU.  The twins are optional: a
# compiler that cannot build them leaves the portable path alone.
V3_TWINS = [name for name in MODULES
            if os.path.exists(f"src/cythello/{name.replace('.', '/')}_v3.pyx")]

if platform.machine().lower() in ("x86_64", "amd64") and not os.environ.get("CYTHELLO_NO_V3"):
    v3_flags = ["/arch:AVX2"] if sys.platform == "win32" else ["-mavx2", "-mbmi", "-mbmi2",
                                                              "-mpopcnt"]
    extensions += [
        Extension(
            f"cythello.{name}_v3",
            [f"src/cythello/{name.replace('.', '/')}_v3.pyx"],
            include_dirs=INCLUDE,
            extra_compile_args=compile_args + v3_flags,
            extra_link_args=link_args,
            optional=True,
        )
        for name in V3_TWINS
    ]


class BuildExt(build_ext):
    """Names each v3 twin ``<name>.v3.<ext suffix>``: no valid module name, so only the
    CPU-checked loader in ``cythello.core._cpu`` can load it, never a plain ``import``
    (or pydoc walking the package) on a CPU without those instructions."""

    def get_ext_filename(self, fullname):
        path = super().get_ext_filename(fullname)
        if fullname.endswith("_v3"):
            folder, base = os.path.split(path)
            path = os.path.join(folder, base.replace("_v3.", ".v3.", 1))
        return path


setup(
    cmdclass={"build_ext": BuildExt},
    ext_modules=cythonize(
        extensions,
        compiler_directives=directives,
        annotate=os.environ.get("CYTHELLO_ANNOTATE", "") not in ("", "0"),
    ),
)
