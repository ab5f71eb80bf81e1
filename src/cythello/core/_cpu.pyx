# cython: language_level=3
"""The run-time choice of build for the hot C code.

Each module whose inner loops gain from x86-64-v3 (AVX2, BMI1/2, POPCNT) is compiled twice:
the portable module, which every wheel can run, and a ``.v3`` twin built from the same
source with those instructions allowed.  The twin is loaded here, and only here, once the
CPU and the OS are known to run it; its file name (``_name.v3.<ext suffix>``) is no valid
module name, so neither ``import`` nor tools that walk the package (pydoc, pkgutil) can
load it by accident on an older CPU.  Both builds give identical results; set
``CYTHELLO_PORTABLE=1`` to keep the portable one.
"""
import importlib.machinery
import importlib.util
import os

from cpython.pycapsule cimport PyCapsule_GetPointer

cdef extern from "cy_cpu.h" nogil:
    int cy_cpu_has_v3()


def cpu_has_v3():
    """Whether this CPU and OS can run the x86-64-v3 build (AVX2, BMI1/2, POPCNT)."""
    return bool(cy_cpu_has_v3())


def portable_forced():
    """Whether ``CYTHELLO_PORTABLE`` asks for the portable build everywhere."""
    return os.environ.get("CYTHELLO_PORTABLE", "") not in ("", "0")


def load_v3(str module_file, str name):
    """The x86-64-v3 twin of the module at ``module_file`` (the portable module's
    ``__file__``), loaded as ``name`` (for example ``"cythello.search.endgame._solver_v3"``), or
    None where the CPU, the environment or the build (a compiler that could not make it)
    rules it out."""
    if portable_forced() or not cy_cpu_has_v3():
        return None
    folder = os.path.dirname(module_file)
    stem = name.rpartition(".")[2]
    if not stem.endswith("_v3"):
        raise ValueError(f"not the name of a v3 twin: {name!r}")
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        path = os.path.join(folder, stem[:len(stem) - 3] + ".v3" + suffix)   # drop "_v3"
        if os.path.exists(path):
            loader = importlib.machinery.ExtensionFileLoader(name, path)
            spec = importlib.util.spec_from_file_location(name, path, loader=loader)
            module = importlib.util.module_from_spec(spec)
            loader.exec_module(module)
            return module
    return None


cdef void* v3_function(str module_file, str name, const char* capsule) except *:
    """The function the x86-64-v3 twin of a module (see :func:`load_v3`) exports through
    its ``_capsule()``, or NULL where the portable build runs.  The capsule's name carries
    the function's signature, so a mismatched pair of builds fails to load instead of
    crashing."""
    fast = load_v3(module_file, name)
    if fast is None:
        return NULL
    return PyCapsule_GetPointer(fast._capsule(), capsule)
