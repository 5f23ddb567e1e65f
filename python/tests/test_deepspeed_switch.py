# test_deepspeed_switch.py: ACCEL_DEEPSPEED_OPS=1 (the .pth file `pip install
# .` puts in site-packages, python/_accel_deepspeed_hook.py) reaches worker
# processes that use_accel_ops() cannot: multiprocessing's forkserver and
# spawn workers import DeepSpeed's builders and get accel's, and their steps
# run in libaccel (each worker's step_counts()). Against the stand-in
# deepspeed package of test_deepspeed_glue.py, in fresh interpreters.
import os
import subprocess
import sys
import textwrap

import pytest

from test_deepspeed_glue import FAKE

PROBE = """
import multiprocessing as mp
import sys


def worker():
    import numpy as np
    import deepspeed.ops.adam as adam
    op = adam.CPUAdamBuilder().load()
    if op == "jit-built":
        return "deepspeed's own op"
    import accel.deepspeed
    op.create_adam(0)
    p = np.ones(16, np.float32)
    op.adam_update(0, 1, 1e-3, 0.9, 0.999, 1e-8, 0.0, True, p, np.ones(16, np.float32),
                   np.zeros(16, np.float32), np.zeros(16, np.float32))
    return "%s, libaccel steps %d" % (op.__name__, accel.deepspeed.step_counts()["cpu_adam"])


if __name__ == "__main__":
    assert "accel" not in sys.modules  # the switch alone loads nothing
    for method in ("forkserver", "spawn"):
        with mp.get_context(method).Pool(1) as pool:
            print("%s: %s" % (method, pool.apply(worker)))
"""


def run_probe(tmp_path, **extra_env):
    for name, text in FAKE.items():
        path = tmp_path / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(textwrap.dedent(text))
    (tmp_path / "probe.py").write_text(PROBE)
    env = {k: v for k, v in os.environ.items() if k != "ACCEL_DEEPSPEED_OPS"}
    env.update(extra_env, PYTHONPATH=str(tmp_path))
    return subprocess.run([sys.executable, "probe.py"], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=180)


def test_switch_reaches_forkserver_and_spawn_workers(tmp_path):
    result = run_probe(tmp_path, ACCEL_DEEPSPEED_OPS="1")
    assert result.returncode == 0, result.stderr
    for method in ("forkserver", "spawn"):
        assert "%s: accel.deepspeed.cpu_adam, libaccel steps 1" % method in result.stdout, \
            result.stdout + result.stderr


@pytest.mark.parametrize("value", [None, "0", ""])
def test_without_the_switch_workers_keep_deepspeeds_op(tmp_path, value):
    extra = {} if value is None else {"ACCEL_DEEPSPEED_OPS": value}
    result = run_probe(tmp_path, **extra)
    assert result.returncode == 0, result.stderr
    assert result.stdout.count("deepspeed's own op") == 2, result.stdout


def test_a_value_other_than_0_or_1_is_refused_with_a_sentence(tmp_path):
    result = run_probe(tmp_path, ACCEL_DEEPSPEED_OPS="yes")
    assert result.returncode == 0, result.stderr
    assert "ACCEL_DEEPSPEED_OPS=yes is neither 1 (on) nor 0 (off)" in result.stderr
    assert result.stdout.count("deepspeed's own op") == 2, result.stdout
