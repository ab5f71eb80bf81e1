# cython: language_level=3
"""The pattern evaluation's C interface, for the search modules.

A set of weights is a block of int16 tables, one per stage, each TABLE_SIZE long (every
pattern's 3**n configurations unpacked, then the parity weights), in 1/EVAL_SCALE disc.
``evaluate`` returns the expected final disc difference for the side owning ``P``, in those
units.  The function pointer comes from :func:`evaluator_function` because the module is
built twice (portable and x86-64-v3) and the faster build is chosen at import.
"""
from libc.stdint cimport uint64_t, int16_t

from cythello.eval._layout cimport EVAL_SCALE, N_STAGES, TABLE_SIZE, eval_fn

cdef eval_fn evaluator_function() noexcept

cdef class PatternWeights:
    cdef object _table            # the numpy array that owns the memory
    cdef const int16_t* table     # N_STAGES x TABLE_SIZE
    cdef readonly dict info       # provenance and training metadata
