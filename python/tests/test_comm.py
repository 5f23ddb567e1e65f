# test_comm.py: accel.comm in this process (a one-rank communicator over MPI
# on cpu) and across 4 ranks under mpirun (comm_ranks.py); bad arguments
# raise with a sentence and leave the buffers as they were.
import os
import subprocess
import sys

import numpy as np
import pytest

import accel

HERE = os.path.dirname(os.path.abspath(__file__))
RUN_MPI = os.path.join(HERE, "..", "..", "tests", "comm", "run_mpi.sh")


@pytest.fixture(scope="module")
def comm():
    info = accel.comm.engine_info()
    if not info["available"]:
        pytest.skip("no collectives engine here: " + info["detail"])
    with accel.comm.init() as communicator:
        yield communicator


def test_engine_info():
    info = accel.comm.engine_info()
    assert info["backend_name"] == accel.get_accelerator().communication_backend_name()
    assert set(info) == {"backend_name", "engine", "available", "detail"}


def test_one_rank(comm):
    assert (comm.rank, comm.size) == (0, 1)
    assert comm.engine == "mpi"
    data = np.arange(5, dtype=np.float32)
    assert comm.all_reduce(data, op="avg") is data
    assert list(data) == [0, 1, 2, 3, 4]
    out = np.zeros(5, dtype=np.float32)
    comm.all_gather(data, out)
    assert list(out) == [0, 1, 2, 3, 4]
    comm.barrier()
    assert "rank=0, size=1" in repr(comm)


def test_accel_tensors(comm):
    acc = accel.get_accelerator()
    t = acc.zeros((2, 3), "int32")
    np.from_dlpack(t)[:] = 7
    comm.all_reduce(t, op="prod")
    assert np.from_dlpack(t).tolist() == [[7, 7, 7], [7, 7, 7]]


def test_bad_arguments_change_nothing(comm):
    data = np.arange(4, dtype=np.float32)
    with pytest.raises(ValueError, match="needs 4"):
        comm.all_gather(data, np.zeros(3, dtype=np.float32))
    with pytest.raises(ValueError, match="not one of sum, prod"):
        comm.all_reduce(data, op="mean")
    with pytest.raises(TypeError, match="float32 but the output is int64"):
        comm.all_reduce(data, out=np.zeros(4, dtype=np.int64))
    with pytest.raises(ValueError, match="not contiguous"):
        comm.all_reduce(np.arange(8, dtype=np.float32)[::2])
    readonly = np.arange(4, dtype=np.float32)
    readonly.flags.writeable = False
    with pytest.raises(ValueError, match="read-only"):
        comm.all_reduce(readonly)
    with pytest.raises(TypeError, match="not a DLPack producer"):
        comm.all_reduce([1.0, 2.0])
    with pytest.raises(accel.AccelInvalidArgument, match="root 2 is not a rank"):
        comm.broadcast(data, root=2)
    assert list(data) == [0, 1, 2, 3]


def test_destroyed():
    communicator = accel.comm.init()
    communicator.destroy()
    communicator.destroy()  # twice is harmless
    with pytest.raises(ValueError, match="destroyed"):
        communicator.all_reduce(np.zeros(1, dtype=np.float32))


def test_four_ranks():
    if not accel.comm.engine_info()["available"]:
        pytest.skip("no collectives engine here")
    # This process started MPI as a singleton (the fixture): its variables
    # would make the ranks join it instead of their own mpirun.
    env = {k: v for k, v in os.environ.items()
           if not k.startswith(("OMPI_", "PMIX_", "PMI_", "OPAL_", "ORTE_"))}
    result = subprocess.run(["bash", RUN_MPI, "4", sys.executable,
                             os.path.join(HERE, "comm_ranks.py")],
                            capture_output=True, text=True, timeout=240, env=env)
    if result.returncode == 77:
        pytest.skip(result.stdout.strip())
    assert result.returncode == 0, result.stdout + result.stderr
    assert "comm_ranks: 4 ranks agree" in result.stdout
