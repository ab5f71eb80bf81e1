# cython: language_level=3
"""The pattern evaluation built for x86-64-v3 (AVX2, BMI1/2, POPCNT).  Loaded only by
``_patterns`` after a CPU check (see cythello.core._cpu); it is not importable by name."""

include "_patterns_impl.pxi"
