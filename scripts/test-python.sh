#!/usr/bin/env bash
# test-python.sh: the Python stage of test.sh: `pip install .` (the wheel
# scikit-build-core builds from this CMake project) into a venv under the
# build tree, then pytest python/tests against the installed package (not
# the source tree), with numpy, and torch too when ACCEL_PY_TORCH=1 asks to
# install it; the README's example in a venv holding only the package.
# scripts/test-deepspeed.sh is the opt-in DeepSpeed stage.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=${ACCEL_PY_VENV:-build/python-venv}
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
py="$PWD/$venv/bin/python"
[[ "$venv" = /* ]] && py="$venv/bin/python"
"$py" -m pip install -q pytest "numpy>=1.22"
if [ "${ACCEL_PY_TORCH:-0}" = 1 ]; then
    "$py" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu ||
        "$py" -m pip install -q torch
fi
# The wheel `pip install .` builds, installed here and into a second venv
# that gets nothing else: the README's venv, where test_readme.py runs the
# README's Python example as written (ACCEL_README_PYTHON).
wheels="$PWD/build/python-wheel"
rm -rf "$wheels"
"$py" -m pip wheel -q --no-deps -w "$wheels" .
"$py" -m pip install -q --force-reinstall --no-deps "$wheels"/accel-*.whl
readme_venv="$PWD/build/python-readme-venv"
[ -x "$readme_venv/bin/python" ] || python3 -m venv "$readme_venv"
"$readme_venv/bin/python" -m pip install -q --force-reinstall "$wheels"/accel-*.whl
export ACCEL_README_PYTHON="$readme_venv/bin/python"
cd build # import the installed package, not ./python
"$py" -c "import accel, sys; assert 'site-packages' in accel.__file__, accel.__file__; \
a = accel.get_accelerator(); print('python: accel', accel.__version__, 'from', accel.__file__, \
'->', a.device_name(), a.device_count())"
"$py" -m pytest -q -p no:cacheprovider ../python/tests "$@"
