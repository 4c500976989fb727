"""Device side: what a kernel calls to count its progress into its block's slot.

`tally(slots, count)` is the one call: each thread passes what it finished since its last call
(True or 1 for an item, 0 or False for a thread past the work). The threads of a warp that make
the call together sum their counts with warp votes (`vote.sync.ballot` and `popc`, one vote per
bit of the largest count), and the lowest of them adds the sum to the block's slot with one
atomic whose result is unused, so nothing waits for its reply. No barrier: a thread that
returned before the call, or one that calls it more often than its neighbours, counts what it
passed and holds nobody up. The slot is the block's linear index in a 1D, 2D or 3D grid.

Why nothing waits: the previous design summed the block with counting barriers and had the
block's first thread load its slot from mapped host memory and store it back. On the article's
program (19,532 blocks) that cost the kernel 13.5% against the article's own counter on an H100
(results/nvidia-h100/2026-12-05-confirm/kernel-progress-cost.json), a fixed 0.16 ms that a
12 ms kernel hid (+0.45%): a wait in every block, the load's PCIe round trip the candidate.
examples/article_cost.py separates the load from the barriers (its load_store and store_only
ways) and times this design against the kernel without any counter.

`report` / `finish` are the lower-level pair for a writer that keeps its own count (a block's
thread 0 or a warp's lane 0, with its tally in shared memory): `report` stores when `period_ns`
has passed since the writer's last store, `finish` stores the exact total. No barrier per call.
Their store is `st.volatile.global.u64`, which the GPU's L1 does not keep: it reaches the L2,
where the host's copy reads it.

The slots are in device memory; the host reads them with a copy on a stream of its own that
does not wait for the kernel's (host.py). The kernel's end makes every add and store final.

The time is `%globaltimer` (nanoseconds, the same clock on every SM), read only by the writer.

Under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) the same names are plain Python: the
store is an assignment, the time is time.monotonic_ns(), and as the simulator has no warp votes
each thread of `tally` adds its own count.
"""

from __future__ import annotations

from numba import config, cuda, int32, uint64

SIMULATOR = bool(config.ENABLE_CUDASIM)

if SIMULATOR:
    import time as _time

    def _store(slots, index, value):
        slots[index] = value

    def _load(slots, index):
        return uint64(slots[index])

    def _now():
        return uint64(_time.monotonic_ns())

    @cuda.jit(device=True)
    def store(slots, index, value):
        """Stores `value` into slots[index] where the host sees it while the kernel runs."""
        _store(slots, index, uint64(value))

    @cuda.jit(device=True)
    def load(slots, index):
        """slots[index] as stored last (by this thread), read past the caches."""
        return _load(slots, index)

    @cuda.jit(device=True)
    def now():
        """Nanoseconds on a clock shared by every SM (%globaltimer)."""
        return _now()

    @cuda.jit(device=True)
    def syncwarp():
        """cuda.syncwarp(), which the simulator lacks: its block barrier is a stronger one (every
        thread of the block must then reach it, as every lane of the warp must on a GPU)."""
        cuda.syncthreads()

    @cuda.jit(device=True)
    def warp_total(count):
        """(adds, sum): the simulator has no warp votes, so each thread is its own group."""
        return True, uint64(count)

else:
    from llvmlite import ir
    from numba import types
    from numba.cuda import cgutils
    from numba.cuda.extending import intrinsic

    def _slot_pointer(context, builder, slots_type, array, idx, index_type):
        ary = context.make_array(slots_type)(context, builder, value=array)
        idx = context.cast(builder, idx, index_type, types.intp)
        ptr = cgutils.get_item_pointer(context, builder, slots_type, ary, [idx],
                                       wraparound=False)
        return builder.ptrtoint(ptr, ir.IntType(64))

    def _is_slots(slots, index):
        return (isinstance(slots, types.Array) and slots.ndim == 1
                and slots.dtype == types.uint64 and isinstance(index, types.Integer))

    @intrinsic
    def _store(typingctx, slots, index, value):
        if not (_is_slots(slots, index) and isinstance(value, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            slots_type, index_type, value_type = sig.args
            array, idx, val = args
            address = _slot_pointer(context, builder, slots_type, array, idx, index_type)
            val = context.cast(builder, val, value_type, types.uint64)
            i64 = ir.IntType(64)
            asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [i64, i64]),
                               "st.volatile.global.u64 [$0], $1;", "l,l,~{memory}",
                               side_effect=True)
            builder.call(asm, [address, val])
            return context.get_dummy_value()

        return types.void(slots, index, value), codegen

    @intrinsic
    def _load(typingctx, slots, index):
        if not _is_slots(slots, index):
            return None

        def codegen(context, builder, sig, args):
            slots_type, index_type = sig.args
            array, idx = args
            address = _slot_pointer(context, builder, slots_type, array, idx, index_type)
            i64 = ir.IntType(64)
            asm = ir.InlineAsm(ir.FunctionType(i64, [i64]),
                               "ld.volatile.global.u64 $0, [$1];", "=l,l,~{memory}",
                               side_effect=True)
            return builder.call(asm, [address])

        return types.uint64(slots, index), codegen

    @intrinsic
    def _now(typingctx):
        def codegen(context, builder, sig, args):
            i64 = ir.IntType(64)
            asm = ir.InlineAsm(ir.FunctionType(i64, []), "mov.u64 $0, %globaltimer;", "=l",
                               side_effect=True)
            return builder.call(asm, [])

        return types.uint64(), codegen

    @cuda.jit(device=True)
    def store(slots, index, value):
        """Stores `value` into slots[index] where the host sees it while the kernel runs."""
        _store(slots, index, uint64(value))

    @cuda.jit(device=True)
    def load(slots, index):
        """slots[index] as stored last (by this thread), read past the caches."""
        return _load(slots, index)

    @cuda.jit(device=True)
    def now():
        """Nanoseconds on a clock shared by every SM (%globaltimer)."""
        return _now()

    @cuda.jit(device=True)
    def syncwarp():
        """cuda.syncwarp() (all 32 lanes): the warp's counts are in before lane 0 reads them."""
        cuda.syncwarp()

    @cuda.jit(device=True)
    def warp_total(count):
        """(adds, sum): the sum of `count` over the lanes of the warp that call this together
        (cuda.activemask()), and whether this lane is the lowest of them, the one to add it. One
        ballot per bit of the largest count and one vote more to stop: 0/1 counts take a ballot
        and two votes."""
        mask = cuda.activemask()
        c = uint64(count)
        total = uint64(0)
        bit = uint64(0)
        while bit < uint64(64) and cuda.any_sync(mask, (c >> bit) != uint64(0)):
            ones = cuda.popc(cuda.ballot_sync(mask, int32((c >> bit) & uint64(1))))
            total += uint64(ones) << bit
            bit += uint64(1)
        return cuda.laneid == cuda.ffs(mask) - 1, total


@cuda.jit(device=True)
def block_index():
    """The block's index in the grid, counted x first (1D, 2D or 3D grids): its slot."""
    return cuda.blockIdx.x + cuda.gridDim.x * (cuda.blockIdx.y
                                               + cuda.gridDim.y * cuda.blockIdx.z)


@cuda.jit(device=True)
def block_sum(count):
    """The sum of `count` over the block's threads, for every thread; a barrier that every
    thread of the block must reach. One count-barrier per bit of the largest count, each a
    `bar.red.popc` (no shared memory, no atomic, any block shape): 0/1 counts take one, plus
    one `bar.red.or` per bit and one to stop."""
    c = uint64(count)
    total = uint64(0)
    bit = 0
    while bit < 64 and cuda.syncthreads_or(int32((c >> uint64(bit)) != uint64(0))):
        ones = cuda.syncthreads_count(int32((c >> uint64(bit)) & uint64(1)))
        total += uint64(ones) << uint64(bit)
        bit += 1
    return total


@cuda.jit(device=True)
def tally(slots, count):
    """Adds what this thread finished since its last call (True/1 for one item, 0 or False for a
    thread past the work) to its block's slot. The lanes of a warp that call it together are
    summed with warp votes and the lowest adds the sum with one atomic it does not wait for; a
    thread that returned before the call counts nothing and stops nobody. A grid with more
    blocks than slots counts only the blocks that have one (the host's check then says so)."""
    adds, done = warp_total(count)
    if adds and done != uint64(0):
        b = block_index()
        if b < slots.shape[0]:
            cuda.atomic.add(slots, b, done)


@cuda.jit(device=True)
def padded(n):
    """`n` rounded up to a whole number of grid-stride rounds: `range(cuda.grid(1), padded(n),
    cuda.gridsize(1))` gives every thread the same number of rounds, so a `tally` in the loop
    is reached by all of them (the work itself goes under `if i < n`)."""
    stride = cuda.gridsize(1)
    return (n + stride - 1) // stride * stride


@cuda.jit(device=True)
def report(slots, index, count, last, period_ns):
    """The writer's running `count`: stored into slots[index] when `period_ns` nanoseconds have
    passed since `last` (the time of the writer's previous store, or of its start: `now()`).
    Returns the time of the last store, to pass to the next call. Cheap when not due: one read
    of the clock and a compare."""
    t = now()
    if t - uint64(last) >= uint64(period_ns):
        store(slots, index, uint64(count))
        return t
    return uint64(last)


@cuda.jit(device=True)
def finish(slots, index, count):
    """The writer's exact total, always stored: the host's sum is exact once every writer has
    called it."""
    store(slots, index, uint64(count))
