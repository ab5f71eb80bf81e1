#!/usr/bin/env bash
# Build the compiled modules with AddressSanitizer and UndefinedBehaviorSanitizer (gcc or
# clang on Linux) in a scratch copy of the tree, then run the in-process tests against
# them.  Any out-of-bounds access, use-after-free or undefined behaviour in the C code
# aborts the run with a report.
# Usage: tools/check_sanitizers.sh [pytest args]
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
git ls-files | tar -cf - -T - | tar -xf - -C "$work"
cd "$work"
CFLAGS="-fsanitize=address,undefined -fno-omit-frame-pointer -g" \
LDFLAGS="-fsanitize=address,undefined" CYTHELLO_DEBUG=1 \
    python3 setup.py -q build_ext --inplace
cc=${CC:-gcc}
export LD_PRELOAD="$($cc -print-file-name=libasan.so) $($cc -print-file-name=libubsan.so)"
export ASAN_OPTIONS=detect_leaks=0 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
PYTHONPATH=src python3 -c "import cythello.search.uct._tree as m; assert m.__file__.startswith('$work'), m.__file__"
# The protocol tests start fresh interpreters (the installed package): leave them out.
PYTHONPATH=src python3 -m pytest -q -p no:cacheprovider tests/test_rules.py tests/test_board.py \
    tests/test_mcts.py tests/test_endgame.py tests/test_fuzz.py "$@"
