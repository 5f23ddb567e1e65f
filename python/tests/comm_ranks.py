# comm_ranks.py: accel.comm across ranks, run by test_comm.py under mpirun
# (tests/comm/run_mpi.sh). Every rank checks each collective against a result
# computed here from the ranks' known inputs; exits 1 on the first mismatch.
import sys

import numpy as np

import accel


def main():
    with accel.comm.init() as comm:
        rank, size = comm.rank, comm.size
        base = np.arange(7, dtype=np.float32)
        expected_sum = sum(base + r for r in range(size))

        got = comm.all_reduce(base + rank)  # in place, on a fresh array
        assert np.array_equal(got, expected_sum), (rank, got)
        out = np.zeros(7, dtype=np.float32)
        comm.all_reduce(base + rank, op="avg", out=out)
        assert np.allclose(out, expected_sum / size), (rank, out)
        ints = np.array([rank, -rank, 3], dtype=np.int64)
        comm.all_reduce(ints, op="max")
        assert list(ints) == [size - 1, 0, 3], (rank, ints)

        gathered = np.zeros(2 * size, dtype=np.int32)
        comm.all_gather(np.array([rank, 10 * rank], dtype=np.int32), gathered)
        assert list(gathered) == [v for r in range(size) for v in (r, 10 * r)], gathered

        blocks = np.arange(3 * size, dtype=np.float64) + rank
        mine = np.zeros(3, dtype=np.float64)
        comm.reduce_scatter(blocks, mine)
        want = sum(np.arange(3 * size, dtype=np.float64)[3 * rank:3 * rank + 3] + r
                   for r in range(size))
        assert np.array_equal(mine, want), (rank, mine)

        value = np.full(4, rank, dtype=np.uint8)
        comm.broadcast(value, root=size - 1)
        assert list(value) == [size - 1] * 4, (rank, value)

        total = np.zeros(2, dtype=np.float32)
        comm.reduce(np.array([1, rank], dtype=np.float32), root=0, out=total)
        if rank == 0:
            assert list(total) == [size, sum(range(size))], total

        ring = np.zeros(5, dtype=np.float32)
        with accel.comm.group():  # a ring: every rank sends right, receives from the left
            comm.send(np.full(5, rank, dtype=np.float32), (rank + 1) % size)
            comm.recv(ring, (rank - 1) % size)
        assert np.all(ring == (rank - 1) % size), (rank, ring)

        half = comm.split(rank % 2)
        assert half.size == (size + 1 - rank % 2) // 2, (rank, half.size)
        assert half.rank == rank // 2, (rank, half.rank)
        half.destroy()
        comm.barrier()

        # An all_gather whose output is too small is refused on every rank
        # before any rank enters it, so no rank is left waiting.
        try:
            comm.all_gather(base, np.zeros(7, dtype=np.float32))
        except ValueError as exc:
            assert "needs %d" % (7 * size) in str(exc), exc
        else:
            raise AssertionError("a too-small all_gather output was accepted")
    if rank == 0:
        print("comm_ranks: %d ranks agree" % size)


if __name__ == "__main__":
    try:
        main()
    except AssertionError as exc:
        print("comm_ranks: check failed: %r" % (exc,), file=sys.stderr)
        sys.exit(1)
