# test_deepspeed_glue.py: use_accel_ops() and install_import_hook() against a
# stand-in `deepspeed` package with the same shape (an accelerator object with
# get/create_op_builder, set_accelerator, op_builder names bound at import),
# so the glue is checked without torch or DeepSpeed. Each case runs in a
# fresh interpreter (the glue changes sys.modules).
import os
import subprocess
import sys
import textwrap

import accel

FAKE = {
    "deepspeed/__init__.py": "",
    "deepspeed/accelerator/__init__.py": """
        class DeepSpeedAccelerator:
            pass

        class DSBuilder:
            NAME = "ds_jit"
            def load(self):
                return "jit-built"

        class CPU_Accelerator(DeepSpeedAccelerator):
            def __init__(self):
                self._name = "cpu"
            def get_op_builder(self, class_name):
                return DSBuilder if class_name.endswith("Builder") else None
            def create_op_builder(self, class_name):
                cls = self.get_op_builder(class_name)
                return cls() if cls else None

        _current = CPU_Accelerator()

        def get_accelerator():
            return _current

        def set_accelerator(acc):
            global _current
            assert isinstance(acc, DeepSpeedAccelerator)
            _current = acc
        """,
    "deepspeed/ops/__init__.py": "",
    "deepspeed/ops/op_builder/__init__.py": """
        from deepspeed.accelerator import get_accelerator
        CPUAdamBuilder = get_accelerator().get_op_builder("CPUAdamBuilder")
        CPULionBuilder = get_accelerator().get_op_builder("CPULionBuilder")
        FusedAdamBuilder = get_accelerator().get_op_builder("FusedAdamBuilder")
        """,
    "deepspeed/ops/adam.py": "from deepspeed.ops.op_builder import CPUAdamBuilder\n",
}

CHECKS = """
import accel.deepspeed as ad
from deepspeed.accelerator import get_accelerator, CPU_Accelerator, DSBuilder
import deepspeed.ops.adam as adam
import deepspeed.ops.op_builder as ob
assert adam.CPUAdamBuilder is ad.CPUAdamBuilder, adam.CPUAdamBuilder
assert ob.CPULionBuilder is ad.CPULionBuilder
assert ob.FusedAdamBuilder is DSBuilder  # not ours: left alone
acc = get_accelerator()
assert isinstance(acc, CPU_Accelerator) and acc._name == "cpu"
assert acc.create_op_builder("CPUAdamBuilder").load().__name__ == "accel.deepspeed.cpu_adam"
assert acc.create_op_builder("FusedAdamBuilder").load() == "jit-built"
ad.use_accel_ops()  # idempotent
assert get_accelerator() is acc
print("glue ok")
"""


def run(tmp_path, prologue):
    for name, text in FAKE.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    package_root = os.path.dirname(os.path.dirname(accel.__file__))
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(tmp_path), package_root]))
    return subprocess.run([sys.executable, "-c", prologue + CHECKS], env=env,
                          capture_output=True, text=True, timeout=120)


def test_import_hook_before_deepspeed(tmp_path):
    result = run(tmp_path, "import accel.deepspeed\naccel.deepspeed.install_import_hook()\n")
    assert result.returncode == 0, result.stderr
    assert "glue ok" in result.stdout


def test_use_accel_ops_after_deepspeed(tmp_path):
    prologue = ("import deepspeed.ops.adam\nimport accel.deepspeed\n"
                "accel.deepspeed.use_accel_ops()\n")
    result = run(tmp_path, prologue)
    assert result.returncode == 0, result.stderr
    assert "glue ok" in result.stdout


def test_without_glue_deepspeed_keeps_its_builders(tmp_path):
    result = run(tmp_path, "")
    assert result.returncode != 0  # the checks need the glue: they can fail
    assert "AssertionError" in result.stderr
