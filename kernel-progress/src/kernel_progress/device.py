"""Device side: the functions a kernel calls to publish its progress into its slot.

One writer per slot: a block's thread 0 (slot = the block's index) or a warp's lane 0 (slot =
the warp's index in the grid). The writer keeps its running count, offers it with `report`
(which stores it only when `period_ns` has passed since its last store) and stores the exact
total with `finish` before it exits. Nobody else writes the slot, so no atomic is needed.

The store is `st.volatile.global.u64`: PTX treats a volatile store as a relaxed store at system
scope (sm_70 and later), one the host sees while the kernel runs instead of one the GPU's L2 may
hold until the kernel ends. No fence: the count is a hint while the kernel runs, nothing is
ordered after it, and the kernel's completion makes every store visible. A system-scope atomic
on mapped host memory is what this avoids: GPUs on PCIe without host-native atomics (the H200
of the measurements) do not support one, and a device-scope atomic followed by a system fence
waits for a PCIe round trip at every add.

The time is `%globaltimer` (nanoseconds, the same clock on every SM), read only by the writer.

Under Numba's CUDA simulator (NUMBA_ENABLE_CUDASIM=1) the same names are plain Python: the
store is an assignment and the time is time.monotonic_ns().
"""

from __future__ import annotations

from numba import config, cuda, uint64

SIMULATOR = bool(config.ENABLE_CUDASIM)

if SIMULATOR:
    import time as _time

    def _store(slots, index, value):
        slots[index] = value

    def _now():
        return uint64(_time.monotonic_ns())

    @cuda.jit(device=True)
    def store(slots, index, value):
        """Stores `value` into slots[index] where the host sees it while the kernel runs."""
        _store(slots, index, value)

    @cuda.jit(device=True)
    def now():
        """Nanoseconds on a clock shared by every SM (%globaltimer)."""
        return _now()

    @cuda.jit(device=True)
    def syncwarp():
        """cuda.syncwarp(), which the simulator lacks: its block barrier is a stronger one (every
        thread of the block must then reach it, as every lane of the warp must on a GPU)."""
        cuda.syncthreads()

else:
    from llvmlite import ir
    from numba import types
    from numba.cuda import cgutils
    from numba.cuda.extending import intrinsic

    @intrinsic
    def _store(typingctx, slots, index, value):
        if not (isinstance(slots, types.Array) and slots.ndim == 1
                and slots.dtype == types.uint64 and isinstance(index, types.Integer)
                and isinstance(value, types.Integer)):
            return None

        def codegen(context, builder, sig, args):
            slots_type, index_type, value_type = sig.args
            array, idx, val = args
            ary = context.make_array(slots_type)(context, builder, value=array)
            idx = context.cast(builder, idx, index_type, types.intp)
            ptr = cgutils.get_item_pointer(context, builder, slots_type, ary, [idx],
                                           wraparound=False)
            val = context.cast(builder, val, value_type, types.uint64)
            i64 = ir.IntType(64)
            asm = ir.InlineAsm(ir.FunctionType(ir.VoidType(), [i64, i64]),
                               "st.volatile.global.u64 [$0], $1;", "l,l,~{memory}",
                               side_effect=True)
            builder.call(asm, [builder.ptrtoint(ptr, i64), val])
            return context.get_dummy_value()

        return types.void(slots, index, value), codegen

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
    def now():
        """Nanoseconds on a clock shared by every SM (%globaltimer)."""
        return _now()

    @cuda.jit(device=True)
    def syncwarp():
        """cuda.syncwarp() (all 32 lanes): the warp's counts are in before lane 0 reads them."""
        cuda.syncwarp()


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
