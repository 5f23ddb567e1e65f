#!/usr/bin/env bash
# test-deepspeed.sh: the opt-in stage that runs DeepSpeed's own CPU optimizer
# tests (tests/unit/ops/adam/test_cpu_adam.py, ZenFlow's cross-process test
# among them, adagrad/test_cpu_adagrad.py, lion/test_cpu_lion.py) plus
# python/tests/ds_checks/check_cpu_lion.py, with DeepSpeedCPUAdam/Adagrad/
# Lion running on accel's kernels (accel.deepspeed) instead of DeepSpeed's
# JIT-built ones, and proves where the steps ran.
#
#   scripts/test-deepspeed.sh [pytest arguments]
#
# - torch (CPU wheel when its index is reachable, else PyPI's) and deepspeed
#   go into a venv OUTSIDE the build tree: $ACCEL_DS_VENV, default
#   ~/.cache/accel/venv-ds (kept between runs); this repository is
#   pip-installed into it.
# - DeepSpeed's tests are not on PyPI: DEEPSPEED_SRC names a DeepSpeed
#   checkout, else the tag of the installed version is cloned into
#   ~/.cache/accel/deepspeed-src-<version>. The tests are copied to a
#   temporary tree (so the installed deepspeed is the one imported).
# - Every process gets accel's ops through the package's own switch,
#   ACCEL_DEEPSPEED_OPS=1 (a .pth import hook): DeepSpeed's harness starts
#   its workers with forkserver, ZenFlow's test its optimizer process with
#   spawn. TORCH_EXTENSIONS_DIR is a folder of this stage's
#   ($ACCEL_DS_EXTENSIONS, default ~/.cache/accel/torch-extensions-ds, kept
#   between runs for DeepSpeed's other JIT ops: deepspeed_shm_comm, which
#   its harness builds to start workers on cpu, and fused_adam, whose CPU
#   build its FusedAdam test compares with); cpu_adam, cpu_adagrad and
#   cpu_lion are removed from it first, and the stage fails if DeepSpeed
#   built any of them during the run. DS_UNITTEST_TIMEOUT (DeepSpeed's
#   per-test limit, 600 s) defaults to 3600 here: those first JIT builds
#   take minutes on a small machine.
# - Proof, per process: ACCEL_DEEPSPEED_COUNT_DIR makes every process write
#   how many steps of each op libaccel ran for it (accel.deepspeed
#   step_counts()); the stage fails unless forkserver workers ran cpu_adam,
#   cpu_adagrad and cpu_lion steps in libaccel and ZenFlow's test passed.
# When something cannot be installed or fetched, it says why and exits 0
# (skipped); test failures exit non-zero.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
venv=${ACCEL_DS_VENV:-$HOME/.cache/accel/venv-ds}

skip() {
    echo "test-deepspeed: SKIPPED: $*"
    exit 0
}

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
ds_version=$("$py" -c "import deepspeed; print(deepspeed.__version__)" 2>/dev/null | tail -1)

src=${DEEPSPEED_SRC:-$HOME/.cache/accel/deepspeed-src-$ds_version}
if [ ! -f "$src/tests/unit/ops/adam/test_cpu_adam.py" ]; then
    [ -n "${DEEPSPEED_SRC:-}" ] && skip "DEEPSPEED_SRC=$DEEPSPEED_SRC has no tests/unit/ops/adam/test_cpu_adam.py"
    echo "test-deepspeed: fetching DeepSpeed v$ds_version's tests into $src"
    rm -rf "$src.partial"
    git clone -q --depth 1 --branch "v$ds_version" https://github.com/deepspeedai/DeepSpeed \
        "$src.partial" 2>&1 | tail -2 ||
        true
    [ -f "$src.partial/tests/unit/ops/adam/test_cpu_adam.py" ] ||
        skip "could not fetch DeepSpeed v$ds_version's tests (they are not on PyPI); set" \
             "DEEPSPEED_SRC to a DeepSpeed checkout"
    mv "$src.partial" "$src"
fi

echo "test-deepspeed: installing accel from $repo into $venv"
"$py" -m pip install -q --force-reinstall --no-deps "$repo" || {
    echo "test-deepspeed: pip install of accel failed"
    exit 1
}

work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ext=${ACCEL_DS_EXTENSIONS:-$HOME/.cache/accel/torch-extensions-ds}
mkdir -p "$work/tests/unit/ops" "$work/counts" "$ext"
rm -rf "$ext"/cpu_adam "$ext"/cpu_adagrad "$ext"/cpu_lion
cp "$src"/tests/conftest.py "$src"/tests/pytest.ini "$work/tests/"
cp "$src"/tests/unit/*.py "$work/tests/unit/"
for op in adam adagrad lion; do
    cp -r "$src/tests/unit/ops/$op" "$work/tests/unit/ops/"
done
cp python/tests/ds_checks/check_cpu_lion.py "$work/tests/unit/ops/lion/test_accel_cpu_lion.py"
export ACCEL_DEEPSPEED_OPS=1 ACCEL_DEEPSPEED_COUNT_DIR="$work/counts" TORCH_EXTENSIONS_DIR="$ext"
export DS_UNITTEST_TIMEOUT=${DS_UNITTEST_TIMEOUT:-3600}

"$py" - <<'PY'
import accel, deepspeed, torch
from deepspeed.ops.op_builder import CPUAdamBuilder, CPUAdagradBuilder, CPULionBuilder
for b in (CPUAdamBuilder, CPUAdagradBuilder, CPULionBuilder):
    mod = b().load()
    assert mod.__name__.startswith("accel.deepspeed."), (b, mod)
    print("test-deepspeed: %s().load() -> %s" % (b.__name__, mod.__name__))
impl = accel.get_accelerator().create_op_builder("CPUAdamBuilder").implementation()
print("test-deepspeed: deepspeed %s, torch %s, accel %s (%s)"
      % (deepspeed.__version__, torch.__version__, accel.__version__, impl))
PY

# test_fused_lion_equal compares DeepSpeedCPULion with FusedLion on the
# accelerator's device; DeepSpeed's cpu accelerator has no FusedLion builder
# (NotImplementedBuilder: "This op had not been implemented on CPU backend"),
# so that test fails there with DeepSpeed's own kernels too: deselect it then
# (test_accel_cpu_lion.py steps CPU Lion against a reference instead).
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
    --junitxml="$work/results.xml" \
    unit/ops/adam/test_cpu_adam.py unit/ops/adagrad/test_cpu_adagrad.py \
    unit/ops/lion/test_cpu_lion.py unit/ops/lion/test_accel_cpu_lion.py \
    "${deselect[@]}" "$@" || status=$?
echo "test-deepspeed: DeepSpeed's JIT-built extensions in $ext: $(ls "$ext" | tr '\n' ' ')"
if ls "$ext" | grep -E '^(cpu_adam|cpu_adagrad|cpu_lion)$' >/dev/null; then
    echo "test-deepspeed: FAILED: DeepSpeed JIT-built its own CPU optimizer op"
    exit 1
fi
"$py" "$repo/scripts/deepspeed_step_counts.py" "$work/counts" "$work/results.xml" || status=$?
exit $status
