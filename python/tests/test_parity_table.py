# test_parity_table.py: docs/python.md's table of torch.accelerator's names
# against accel's is what scripts/parity_table.py makes from both packages.
# With torch installed the whole table is regenerated and compared; without
# torch, accel's columns are rebuilt from the torch names the table lists,
# so a name accel drops or gains still fails here. Every torch name must
# have an accel counterpart.
import importlib.util
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def _generator():
    spec = importlib.util.spec_from_file_location("parity_table",
                                                  ROOT / "scripts" / "parity_table.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_table_matches_torch_and_accel():
    torch = pytest.importorskip(
        "torch", reason="torch is not installed here (ACCEL_PY_TORCH=1 scripts/test-python.sh "
        "installs it): the table's torch column is checked against accel only")
    try:
        import torch.accelerator.memory  # noqa: F401
        import torch.accelerator.random  # noqa: F401
    except ImportError as exc:
        pytest.skip("this torch (%s) has no torch.accelerator.memory/random: %s"
                    % (torch.__version__, exc))
    gen = _generator()
    assert gen.doc_block() == gen.table(gen.torch_names(torch)), (
        "docs/python.md's parity table is stale: run scripts/parity_table.py --write")


def test_accel_columns_match_the_table():
    gen = _generator()
    block = gen.doc_block()
    names = gen.doc_names(block)
    assert len(names) >= 30  # torch.accelerator, .memory, .random and Graph rows
    assert block == gen.table(names), (
        "accel's names changed: run scripts/parity_table.py --write (needs torch)")


def test_every_torch_name_has_an_accel_counterpart():
    gen = _generator()
    missing = [line for line in gen.doc_block().splitlines()
               if line.startswith("| `torch.") and line.split("|")[2].strip() == "—"]
    assert not missing, missing
