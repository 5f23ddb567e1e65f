# test_cpu_warning.py: DeepSpeed's "Setting accelerator to CPU ..." warning,
# which auto-detect logs on reaching cpu, is printed where DeepSpeed prints
# it (once per process, by get_accelerator() without an override) and
# nowhere else: not by `accel report`, which lists every candidate's reason
# itself, not by a forked child, not by accel's DeepSpeed glue in a process
# where DeepSpeed's own accelerator (which warned already) is cpu.
import os
import subprocess
import sys
import textwrap

import pytest

import accel
from test_deepspeed_glue import FAKE

WARNING = "Setting accelerator to CPU"


def run(code, tmp_path=None, **extra_env):
    env = {k: v for k, v in os.environ.items()
           if k not in ("ACCEL_ACCELERATOR", "DS_ACCELERATOR", "ACCEL_LOG", "PYTHONPATH")}
    env.update(extra_env)
    return subprocess.run([sys.executable, "-c", textwrap.dedent(code)], env=env, cwd=tmp_path,
                          capture_output=True, text=True, timeout=120)


@pytest.fixture(scope="module", autouse=True)
def auto_detect_reaches_cpu():
    result = run("import accel; print(accel.get_accelerator().selection_method(), "
                 "accel.get_accelerator().device_name())")
    if result.stdout.split()[-1:] != ["cpu"]:
        pytest.skip("auto-detect does not reach cpu here: %s" % result.stdout.strip())


def test_report_does_not_print_it():
    result = run("import sys; from accel.__main__ import main; sys.argv[1:] = ['report']; main()")
    assert result.returncode == 0, result.stderr
    assert "cpu (auto detect)" in result.stdout
    assert WARNING not in result.stderr + result.stdout


def test_once_per_process_and_not_in_a_forked_child():
    result = run("""
        import os, accel
        accel.get_accelerator(); accel.get_accelerator()
        pid = os.fork()
        if pid == 0:
            accel.get_accelerator()
            os._exit(0)
        os.waitpid(pid, 0)
        """)
    assert result.returncode == 0, result.stderr
    assert result.stderr.count(WARNING) == 1, result.stderr


def test_not_with_an_override():
    result = run("import accel; accel.get_accelerator()", DS_ACCELERATOR="cpu")
    assert result.returncode == 0, result.stderr
    assert WARNING not in result.stderr


def test_deepspeed_glue_does_not_repeat_deepspeeds_warning(tmp_path):
    for name, text in FAKE.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    result = run("""
        import numpy as np
        import deepspeed.ops.adam, accel.deepspeed
        accel.deepspeed.use_accel_ops()
        op = deepspeed.ops.adam.CPUAdamBuilder().load()
        p = np.ones(8, np.float32)
        op.create_adam(0)
        op.adam_update(0, 1, 1e-3, 0.9, 0.999, 1e-8, 0.0, True, p, np.ones(8, np.float32),
                       np.zeros(8, np.float32), np.zeros(8, np.float32))
        assert accel.deepspeed.step_counts()["cpu_adam"] == 1
        """, tmp_path, PYTHONPATH=str(tmp_path))
    assert result.returncode == 0, result.stderr
    assert WARNING not in result.stderr
