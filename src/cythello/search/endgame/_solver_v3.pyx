# cython: language_level=3
"""The endgame solver's search built for x86-64-v3 (AVX2, BMI1/2, POPCNT).  Loaded only by
``_solver`` after a CPU check (see cythello.core._cpu); it is not importable by name."""

include "_solver_impl.pxi"
