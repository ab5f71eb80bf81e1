# cython: language_level=3
# The run-time choice of build (see _cpu.pyx): the one function an x86-64-v3 twin exports.

cdef void* v3_function(str module_file, str name, const char* capsule) except *
