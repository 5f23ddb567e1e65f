# test_readme.py: the README's Python blocks, run as written (each in a fresh
# interpreter) by the python of a venv that holds only this package, as the
# README makes it (scripts/test-python.sh sets ACCEL_README_PYTHON); a block
# that needs another package fails here.
import os
import re
import subprocess

import pytest

README = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "README.md")


def python_blocks():
    with open(README) as f:
        return re.findall(r"^```python\n(.*?)^```$", f.read(), re.S | re.M)


def test_readme_has_python_blocks():
    assert python_blocks(), "README.md has no ```python block"


@pytest.mark.parametrize("index", range(len(python_blocks())))
def test_readme_python_block_runs_as_written(index, tmp_path):
    python = os.environ.get("ACCEL_README_PYTHON")
    if not python:
        pytest.skip("ACCEL_README_PYTHON (the README's venv) is set by scripts/test-python.sh")
    env = {k: v for k, v in os.environ.items()
           if k not in ("PYTHONPATH", "ACCEL_ACCELERATOR", "DS_ACCELERATOR")}
    result = subprocess.run([python, "-c", python_blocks()[index]], cwd=tmp_path, env=env,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, "README block %d:\n%s\n%s" % (index, result.stdout,
                                                                  result.stderr)
