#!/usr/bin/env bash
# test-deepspeed.sh: the opt-in stage that runs DeepSpeed's own CPU optimizer
# tests (tests/unit/ops/adam/test_cpu_adam.py, adagrad/test_cpu_adagrad.py,
# lion/test_cpu_lion.py) with DeepSpeedCPUAdam/Adagrad/Lion running on accel's
# kernels (accel.deepspeed) instead of DeepSpeed's JIT-built ones.
#
#   DEEPSPEED_SRC=/path/to/DeepSpeed scripts/test-deepspeed.sh
#
# - torch (CPU wheel when its index is reachable, else PyPI's) and deepspeed
#   go into a venv OUTSIDE the build tree: $ACCEL_DS_VENV, default
#   ~/.cache/accel/venv-ds (kept between runs); this repository is
#   pip-installed into it.
# - DeepSpeed's tests are not on PyPI: DEEPSPEED_SRC names a DeepSpeed
#   checkout; its tests are copied to a temporary tree (so the installed
#   deepspeed is the one imported, not the checkout's sources).
# - Every process the tests start gets accel's ops through a sitecustomize
#   calling accel.deepspeed.install_import_hook(); TORCH_EXTENSIONS_DIR points
#   at an empty temporary folder, and the stage fails if DeepSpeed built
#   cpu_adam, cpu_adagrad or cpu_lion there (DeepSpeed's test harness still
#   JIT-builds its own shared-memory communication op, deepspeed_shm_comm,
#   to start its distributed workers on cpu: that is not one of these).
# When something cannot be installed or found, it says why and exits 0
# (skipped); test failures exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
venv=${ACCEL_DS_VENV:-$HOME/.cache/accel/venv-ds}

skip() {
    echo "test-deepspeed: SKIPPED: $*"
    exit 0
}

if [ -z "${DEEPSPEED_SRC:-}" ] || [ ! -f "${DEEPSPEED_SRC}/tests/unit/ops/adam/test_cpu_adam.py" ]; then
    skip "DeepSpeed's tests are not on PyPI; set DEEPSPEED_SRC to a DeepSpeed checkout" \
         "(git clone https://github.com/deepspeedai/DeepSpeed) to run them"
fi

if [ ! -x "$venv/bin/python" ]; then
    python3 -m venv "$venv" || skip "cannot create a venv at $venv (python3-venv missing?)"
fi
py="$venv/bin/python"
if ! "$py" -c "import torch, deepspeed, pytest, numpy, cpuinfo" 2>/dev/null; then
    echo "test-deepspeed: installing torch (CPU) and deepspeed into $venv"
    if ! "$py" -m pip install -q torch --index-url https://download.pytorch.org/whl/cpu; then
        echo "test-deepspeed: the CPU torch index is not reachable; trying PyPI's torch"
        "$py" -m pip install -q torch || skip "pip could not install torch (see above)"
    fi
    "$py" -m pip install -q deepspeed ninja pytest numpy py-cpuinfo ||
        skip "pip could not install deepspeed (see above)"
fi
echo "test-deepspeed: installing accel from $repo into $venv"
"$py" -m pip install -q --force-reinstall --no-deps "$repo" || {
    echo "test-deepspeed: pip install of accel failed"
    exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
mkdir -p "$work/tests/unit/ops" "$work/hook" "$work/ext"
cp "$DEEPSPEED_SRC"/tests/conftest.py "$DEEPSPEED_SRC"/tests/pytest.ini "$work/tests/"
cp "$DEEPSPEED_SRC"/tests/unit/*.py "$work/tests/unit/"
for op in adam adagrad lion; do
    cp -r "$DEEPSPEED_SRC/tests/unit/ops/$op" "$work/tests/unit/ops/"
done
cat >"$work/hook/sitecustomize.py" <<'EOF'
# every process of this stage: DeepSpeed's CPU optimizer builders -> accel's
import accel.deepspeed
accel.deepspeed.install_import_hook()
EOF
export PYTHONPATH="$work/hook" TORCH_EXTENSIONS_DIR="$work/ext"

"$py" - <<'EOF'
import accel, deepspeed, torch
from deepspeed.ops.op_builder import CPUAdamBuilder, CPUAdagradBuilder, CPULionBuilder
for b in (CPUAdamBuilder, CPUAdagradBuilder, CPULionBuilder):
    mod = b().load()
    assert mod.__name__.startswith("accel.deepspeed."), (b, mod)
    print("test-deepspeed: %s().load() -> %s" % (b.__name__, mod.__name__))
impl = accel.get_accelerator().create_op_builder("CPUAdamBuilder").implementation()
print("test-deepspeed: deepspeed %s, torch %s, accel %s (%s)"
      % (deepspeed.__version__, torch.__version__, accel.__version__, impl))
EOF

# test_fused_lion_equal compares DeepSpeedCPULion with FusedLion on the
# accelerator's device; DeepSpeed's cpu accelerator has no FusedLion builder
# (NotImplementedBuilder: "This op had not been implemented on CPU backend"),
# so that test fails there with DeepSpeed's own kernels too: deselect it then.
deselect=()
if ! "$py" -c "
from deepspeed.accelerator import get_accelerator
b = get_accelerator().create_op_builder('FusedLionBuilder')
raise SystemExit(b is None or b.name == 'deepspeed_not_implemented')" >/dev/null 2>&1; then
    echo "test-deepspeed: DeepSpeed's accelerator has no FusedLion here: deselecting test_fused_lion_equal"
    deselect=(--deselect unit/ops/lion/test_cpu_lion.py::TestCPULion::test_fused_lion_equal)
fi

cd "$work/tests"
status=0
"$py" -m pytest -p no:cacheprovider -q -o addopts="" --durations=0 --durations-min=5 \
    unit/ops/adam/test_cpu_adam.py unit/ops/adagrad/test_cpu_adagrad.py \
    unit/ops/lion/test_cpu_lion.py "${deselect[@]}" "$@" || status=$?
echo "test-deepspeed: extensions DeepSpeed JIT-built during the run: $(ls "$work/ext" | tr '\n' ' ')"
if ls "$work/ext" | grep -E '^(cpu_adam|cpu_adagrad|cpu_lion)' >/dev/null; then
    echo "test-deepspeed: FAILED: DeepSpeed JIT-built its own CPU optimizer op"
    exit 1
fi
exit $status
