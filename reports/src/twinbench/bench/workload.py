"""A workload declared as data, and its run: the public API (docs/python.md).

The user declares what the suite's C++ authors declare (DESIGN.md, "A workload"): the serial
reference, the CPU and GPU variants, inputs from a seed, a tolerance, the work model and the
axes. The harness owns the rest: the outputs (allocated from the reference's, each followed by
guard elements, poisoned before the validating call: NaN for floats, two calls against 0xFF and
0x55 bytes for everything else), the check before any timing at each size (a result of another
type refused, a write past the end refused), the default tolerance, the end-to-end copies, cold
caches, the stopping rule, the block sweep with registers and occupancy, the memory check, skips
with their reasons.

Calling conventions (so that the article's code is the variant, unchanged):
  reference(*inputs) -> the output, or a tuple of them (NumPy arrays or scalars)
  a CPU variant:  f(*inputs, *outputs), or f(*inputs) where it takes only the inputs
                  (NumPy's `lambda a, b: a + b`): it is checked on what it returns
  a GPU kernel:   kernel[grid, block](*device_inputs, *device_outputs)
  a GPU callable: f(*device_inputs, *device_outputs) (CuPy, a Numba ufunc, ...)
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any, Callable, Sequence

import numpy as np

from .checks import (ErrorStats, Tolerance, compare, fill_pattern, guard_written, guarded_empty,
                     past_the_end)
from .inputs import fill_uniform
from .results import Work

# The suite's default block sweep (common/gpu_run.hpp): warp multiples up to the limit.
DEFAULT_BLOCKS = (64, 128, 256, 512, 1024)
# The block of the end-to-end rows when the sweep holds it (the articles' launch), else the
# sweep's middle one.
E2E_BLOCK = 256
DEFAULT_SEED = 0x5EED0001
# The default tolerance: this many units of the output type's epsilon per operation an element
# takes (default_tolerance). A float32 3-point stencil summed in another order than its NumPy
# reference differed from it by 1.0 epsilon of the inputs' magnitude at 2^16 to 2^24 elements,
# where 1e-6 relative without a floor failed it (1.0e-5 at 2^16, 7.5e-5 at 2^20); the rest is
# room for math functions that differ by a few ulp between NumPy, Numba's CPU target and the GPU.
EPS_PER_OPERATION = 8


def default_tolerance(inputs, outputs, flops: float) -> Tolerance:
    """The tolerance of a workload that declares none, from what its outputs are and what it
    computes: for floating-point outputs, EPS_PER_OPERATION x the output type's epsilon x the
    operations per output element (`flops` over the outputs' elements, at least 1), relative to
    max(|reference|, the inputs' largest magnitude). The scale floor is what lets a correct
    result pass where the reference cancels to near zero (a stencil's sum of values of both
    signs): there the rounding error is that of the terms, of the inputs' magnitude, not of the
    small result. Integer outputs are compared exactly."""
    floats = [np.dtype(o.dtype) for o in outputs if np.dtype(o.dtype).kind in "fc"]
    if not floats:
        return Tolerance(0.0)
    elements = sum(int(np.size(o)) for o in outputs)
    ops = max(1.0, float(flops) / elements) if elements else 1.0
    eps = max(float(np.finfo(d).eps) for d in floats)
    return Tolerance(EPS_PER_OPERATION * ops * eps, _largest_magnitude(inputs))


def _largest_magnitude(inputs) -> float:
    """max |x| over the inputs' numbers (0 for none); non-finite values are left out."""
    largest = 0.0
    for a in inputs:
        a = np.asarray(a)
        if a.size == 0 or a.dtype.kind not in "iufc":
            continue
        m = np.abs(a.reshape(-1))
        if a.dtype.kind in "fc":
            m = m[np.isfinite(m)]
        if m.size:
            largest = max(largest, float(m.max()))
    return largest


def uniform(n, seed: int, lo: float = -1.0, hi: float = 1.0, dtype=np.float32) -> np.ndarray:
    """The suite's seeded inputs (common/random.cpp, bit for bit): n values in [lo, hi), never
    an exact zero (a zero input hides an output never written). `n` an int or a shape."""
    shape = (n,) if np.isscalar(n) else tuple(n)
    return fill_uniform(int(np.prod(shape)), seed, lo, hi, dtype).reshape(shape)


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "_", str(text).lower()).strip("_") or "variant"


def _is_dispatcher(obj) -> bool:
    """A @cuda.jit kernel (or the simulator's): launched as kernel[grid, block](...)."""
    return hasattr(obj, "__getitem__") and hasattr(obj, "py_func")


def _is_parallel(fn) -> bool:
    """An @njit(parallel=True) function: its rows use every thread (the reports' omp column)."""
    return bool(getattr(fn, "targetoptions", {}).get("parallel"))


@dataclass
class Kernel:
    """A GPU variant. `fn` is a @cuda.jit kernel (launched kernel[grid, block](...) for each
    block of the sweep) or any callable on device arrays (no block axis). grid(size, block)
    gives the grid; by default one thread per element of the first output."""

    fn: Callable
    grid: Callable[[Any, Any], Any] | None = None
    blocks: Sequence | None = None      # this kernel's own sweep (2D kernels: [(16, 16), ...])
    name: str | None = None             # the row's impl is cuda_<name>
    impl_name: str | None = None        # the whole impl, where a family of its own is wanted

    @property
    def launched(self) -> bool:
        return _is_dispatcher(self.fn)

    @property
    def impl(self) -> str:
        return self.impl_name or \
            "cuda_" + _slug(self.name or getattr(self.fn, "__name__", "kernel"))


@dataclass
class Cpu:
    """A CPU variant: `fn` with its row's name (serial_<name> or omp_<name>, from whether it is
    an @njit(parallel=True) function unless `parallel` says) or a whole impl name."""

    fn: Callable
    name: str | None = None
    parallel: bool | None = None
    impl_name: str | None = None

    @property
    def is_parallel(self) -> bool:
        return _is_parallel(self.fn) if self.parallel is None else self.parallel

    @property
    def impl(self) -> str:
        if self.impl_name:
            return self.impl_name
        family = "omp" if self.is_parallel else "serial"
        return f"{family}_{_slug(self.name or getattr(self.fn, '__name__', 'cpu'))}"


def _takes_outputs(fn, n_inputs: int) -> bool:
    """Whether fn is called with the outputs after the inputs: unless it takes exactly the
    inputs (`lambda a, b: a + b`: it returns its result)."""
    import inspect
    target = getattr(fn, "py_func", fn)
    try:
        params = inspect.signature(target).parameters.values()
    except (TypeError, ValueError):   # a ufunc and the like: np.add(a, b, out)
        return True
    if any(p.kind == p.VAR_POSITIONAL for p in params):
        return True
    positional = [p for p in params if p.kind in (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD)]
    return len(positional) > n_inputs


def _block_text(block) -> str:
    return "x".join(str(b) for b in block) if isinstance(block, tuple) else str(block)


def _block_threads(block) -> int:
    return int(np.prod(block)) if isinstance(block, tuple) else int(block)


@dataclass
class Workload:
    """A pair (or more) of your own: see the module's docstring for the calling conventions.

    name        the rows' workload name
    reference   the serial reference: its result is what every variant must give
    inputs      inputs(size, seed) -> an array or a tuple of arrays
    cpu, gpu    variants: functions (or Cpu(...)) and kernels (or Kernel(...))
    sizes       the size axis: ints (an `n:` arg) or dicts ({"w": 640, "h": 480})
    quick_sizes what --quick runs (default: the smallest size)
    blocks      the block sweep of the GPU kernels
    outputs     the outputs' types where they differ from the reference's (a float64
                reference of float32 outputs): one dtype, or one per output
    tolerance   relative (|got - ref| / |ref|), or a Tolerance (rel, scale_floor); None: from
                the outputs' type and the FLOPs (default_tolerance)
    bytes       bytes(size) -> (read, written) of one call; default: the inputs' and outputs'
    flops       flops(size) -> FLOPs of one call (default 0: a memory-bound workload)
    """

    name: str
    reference: Callable
    inputs: Callable
    cpu: Sequence = ()
    gpu: Sequence = ()
    sizes: Sequence = (1 << 20,)
    quick_sizes: Sequence | None = None
    blocks: Sequence = DEFAULT_BLOCKS
    outputs: Any = None
    tolerance: float | Tolerance | None = None
    bytes: Callable | None = None
    flops: Callable | None = None
    seed: int = DEFAULT_SEED
    time_reference: bool = False
    cpu_variants: list = field(init=False, repr=False)
    gpu_variants: list = field(init=False, repr=False)
    _facts: dict = field(init=False, repr=False, default_factory=dict)

    def __post_init__(self):
        if not re.fullmatch(r"[A-Za-z][A-Za-z0-9_]*", self.name):
            raise ValueError(f"workload name {self.name!r}: letters, digits and _ only (it is the "
                             "first word of every row's name)")
        self.cpu_variants = [v if isinstance(v, Cpu) else Cpu(v) for v in self.cpu]
        if self.time_reference:
            self.cpu_variants.insert(0, Cpu(self.reference, name="reference", parallel=False))
        self.gpu_variants = [v if isinstance(v, Kernel) else Kernel(v) for v in self.gpu]
        if isinstance(self.tolerance, (int, float)):
            self.tolerance = Tolerance(float(self.tolerance))
        impls = [v.impl for v in self.cpu_variants + self.gpu_variants]
        dup = {i for i in impls if impls.count(i) > 1}
        if dup:
            raise ValueError(f"{self.name}: two variants named {', '.join(sorted(dup))}; give "
                             "one a name (Cpu(f, name=...) or Kernel(k, name=...))")

    # ------------------------------------------------------------ rows

    def size_args(self, size) -> tuple[tuple[str, str], ...]:
        if isinstance(size, dict):
            return tuple((str(k), str(v)) for k, v in size.items())
        if isinstance(size, (int, np.integer)):
            return (("n", str(int(size))),)
        raise TypeError(f"{self.name}: a size is an int or a dict of ints (got {size!r})")

    def rows(self, quick: bool = False, cpu_threads: int = 0) -> list:
        sizes = list(self.quick_sizes or [min(self.sizes, key=_volume)]) if quick \
            else list(self.sizes)
        if cpu_threads <= 0 and any(v.is_parallel for v in self.cpu_variants):
            import numba   # its threads: what a parallel row runs with
            cpu_threads = numba.config.NUMBA_NUM_THREADS
        out = []
        for size in sizes:
            args = self.size_args(size)
            for v in self.cpu_variants:
                threads = (("threads", str(cpu_threads)),) if v.is_parallel else ()
                out.append(_Row(self, size, v, v.impl, args + threads, "cpu", None))
            for k in self.gpu_variants:
                if not k.launched:
                    for mode in ("kernel", "e2e"):
                        out.append(_Row(self, size, k, k.impl, args + (("mode", mode),), "gpu",
                                        mode))
                    continue
                blocks = list(k.blocks or self.blocks)
                for b in blocks:
                    out.append(_Row(self, size, k, k.impl, args + (
                        ("block", _block_text(b)), ("mode", "kernel")), "gpu", "kernel", b))
                e2e = E2E_BLOCK if E2E_BLOCK in blocks else blocks[len(blocks) // 2]
                tail = (("block", _block_text(e2e)), ("mode", "e2e"))
                out.append(_Row(self, size, k, k.impl, args + tail, "gpu", "e2e", e2e))
                out.append(_Row(self, size, k, k.impl + "_pageable", args + tail, "gpu", "e2e",
                                e2e, pageable=True))
        return out

    def row(self, impl: str, args, pageable: bool = False):
        """The row of variant `impl` (the pageable e2e row's impl without its suffix) with these
        name args (n:, w:/h:, threads:, block:, mode:): for a plan of rows made elsewhere (the
        articles' peers follow the C++ rows' sizes)."""
        variants = {v.impl: v for v in self.cpu_variants + self.gpu_variants}
        if impl not in variants:
            raise KeyError(f"{self.name} has no variant {impl} (it has {', '.join(variants)})")
        v = variants[impl]
        args = tuple(args)
        named = dict(args)
        dims = {k: int(x) for k, x in args if k not in ("threads", "block", "mode")}
        size = dims["n"] if set(dims) == {"n"} else dims
        block = named.get("block")
        if block is not None:
            parts = tuple(int(b) for b in block.split("x"))
            block = parts[0] if len(parts) == 1 else parts
        side = "gpu" if isinstance(v, Kernel) else "cpu"
        return _Row(self, size, v, v.impl + ("_pageable" if pageable else ""), args, side,
                    named.get("mode"), block, pageable)

    # ------------------------------------------------------------ the spec the engine calls

    def data_key(self, row):
        return row.args_of_size

    def _refs(self, inputs) -> list[np.ndarray]:
        ref = self.reference(*inputs)
        refs = list(ref) if isinstance(ref, tuple) else [ref]
        return [np.atleast_1d(np.asarray(r)) for r in refs]

    def make_data(self, row):
        inputs = self.inputs(row.size, self.seed)
        inputs = list(inputs) if isinstance(inputs, (tuple, list)) else [inputs]
        refs = self._refs(inputs)
        guarded = [guarded_empty(r.shape, d) for r, d in zip(refs, self._out_types(refs))]
        outs = [o for o, _ in guarded]
        self._facts[row.args_of_size] = (
            float(sum(np.asarray(a).nbytes for a in inputs)), float(sum(o.nbytes for o in outs)),
            int(refs[0].size), _precision(outs))
        tolerance = self.tolerance if self.tolerance is not None else default_tolerance(
            inputs, outs, self.flops(row.size) if self.flops is not None else 0.0)
        return SimpleNamespace(inputs=inputs, refs=refs, outs=outs,
                               guards=[g for _, g in guarded], tolerance=tolerance)

    def _out_types(self, refs) -> list:
        if self.outputs is None:
            return [r.dtype for r in refs]
        types = list(self.outputs) if isinstance(self.outputs, (list, tuple)) \
            else [self.outputs] * len(refs)
        if len(types) != len(refs):
            raise ValueError(f"{self.name}: {len(types)} output types for the reference's "
                             f"{len(refs)} outputs")
        return [np.dtype(t) for t in types]

    def _made(self, row) -> tuple[float, float, int, str]:
        """(input bytes, output bytes, output elements, precision) of the row's size, known once
        its data was made (the engine makes it before it asks)."""
        return self._facts.get(row.args_of_size, (0.0, 0.0, 0, ""))

    def work(self, row) -> Work:
        read, written, items, _ = self._made(row)
        if self.bytes is not None:
            declared = self.bytes(row.size)
            if isinstance(declared, (tuple, list)):
                read, written = (float(x) for x in declared)
            else:   # one figure: split as the inputs and outputs are
                total = read + written
                share = read / total if total else 0.5
                read, written = float(declared) * share, float(declared) * (1 - share)
        flops = float(self.flops(row.size)) if self.flops is not None else 0.0
        # Items: the outputs' elements, or the size's own count before the data is made.
        return Work(read_bytes=read, written_bytes=written, flops=flops,
                    items=float(items or _volume(row.size)))

    def _declared_bytes(self, row) -> float:
        if self.bytes is None:
            return 0.0
        declared = self.bytes(row.size)
        return float(sum(declared)) if isinstance(declared, (tuple, list)) else float(declared)

    def host_bytes(self, row) -> float:
        """Checked before the inputs are made: from the declared bytes (inputs, reference and
        outputs: about twice the bytes of a call; pinned copies too for GPU rows). Without a
        declaration nothing is checked before, and running out is a skip, not a crash."""
        return self._declared_bytes(row) * (3.0 if row.side == "gpu" else 2.0)

    def device_bytes(self, row) -> float:
        read, written, _, _ = self._made(row)
        return read + written

    def make_device(self, row, data):
        from .buffers import Buffers
        return Buffers({f"in{i}": a for i, a in enumerate(data.inputs)},
                       {f"out{i}": (o.shape, o.dtype) for i, o in enumerate(data.outs)})

    def check(self, outs, data) -> ErrorStats:
        """`outs` (what the variant wrote or returned) against the reference's; a returned array
        of another type than its output's is refused, naming both."""
        refs = data.refs
        for i, (got, want) in enumerate(zip(outs, data.outs)):
            if isinstance(got, (np.ndarray, np.generic)) and got.dtype != want.dtype:
                return ErrorStats(refused=(
                    f"output {i} is {got.dtype}, the reference's is {want.dtype}: a result of "
                    f"another type would be timed and counted as {want.dtype} (its bytes and "
                    f"precision); return {want.dtype}, or declare the outputs' types "
                    f"(outputs=...)"))
        worst = None
        for got, ref in zip(outs, refs):
            s = compare(np.atleast_1d(np.asarray(got)), ref, data.tolerance.scale_floor)
            if worst is None or not (s.size_matches and s.finite) or s.max_rel > worst.max_rel:
                worst = s
            if not (s.size_matches and s.finite):
                break
        if len(outs) != len(refs):
            worst = ErrorStats(size_matches=False)
        return worst or ErrorStats()

    def _passes(self, outs) -> int:
        """Validating calls the outputs' types need: 1 when each has NaN, else 2."""
        return 1 if all(o.dtype.kind in "fc" for o in outs) else 2

    def cpu_case(self, row, data):
        from .timing import CpuCase
        fn = row.variant.fn
        args = [*data.inputs, *data.outs] if _takes_outputs(fn, len(data.inputs)) \
            else list(data.inputs)

        def run():
            return fn(*args)

        def validate() -> ErrorStats:
            worst = ErrorStats()
            for p in range(self._passes(data.outs)):
                for array in data.outs + data.guards:
                    fill_pattern(array, p)
                got = run()
                outs = data.outs if got is None else (
                    list(got) if isinstance(got, tuple) else [got])
                s = self.check(outs, data)
                if not s.refused:
                    s.refused = _past_the_end(data, p)
                if not _ok(s, data.tolerance):
                    return s
                worst = s if s.max_rel >= worst.max_rel else worst
            return worst

        return CpuCase(run, validate, data.tolerance)

    def gpu_case(self, row, data, dev, gpu):
        from .timing import GpuCase, Skip, check_block
        from numba import cuda
        k: Kernel = row.variant
        d_args = [dev.d[key] for key in dev.inputs + dev.outputs]
        counters: dict = {}
        if k.launched:
            block = row.block
            threads = _block_threads(block)
            check_block(threads, gpu.max_threads_per_block)
            grid = (k.grid(row.size, block) if k.grid is not None
                    else -(-int(data.refs[0].size) // threads))
            if isinstance(grid, tuple) and not isinstance(block, tuple):
                raise Skip(f"grid {grid} for a 1D block {block}: give the kernel 2D blocks")
            launch_block = block
            grid_blocks = int(np.prod(grid)) if isinstance(grid, tuple) else int(grid)
            if isinstance(block, tuple):   # a 2D or 3D block's sides, as the suite records them
                counters.update(zip(("block_x", "block_y", "block_z"), block))

            def compute():
                k.fn[grid, launch_block](*d_args)

            def pageable():
                d_in = [cuda.to_device(a) for a in data.inputs]
                d_out = [cuda.device_array(o.shape, o.dtype) for o in data.outs]
                k.fn[grid, launch_block](*d_in, *d_out)
                return [d.copy_to_host() for d in d_out]
        else:
            grid_blocks, threads = 0, 0

            def compute():
                k.fn(*d_args)

            def pageable():
                d_in = [cuda.to_device(a) for a in data.inputs]
                d_out = [cuda.device_array(o.shape, o.dtype) for o in data.outs]
                k.fn(*d_in, *d_out)
                return [d.copy_to_host() for d in d_out]

        passes = self._passes(data.outs)
        state = {"pass": 0}

        def poison():
            dev.poison_patterns(state["pass"])

        def check() -> ErrorStats:
            s = self.check([dev.h[key] for key in dev.outputs], data)
            if not s.refused:
                s.refused = dev.past_the_end(state["pass"])
            return s

        case = GpuCase(poison, dev.upload, compute, dev.download, check, data.tolerance,
                       pageable, kernel=k.fn if k.launched else None, block=threads,
                       grid_blocks=grid_blocks, counters=counters, occupancy=k.launched)
        case.passes = passes
        case.set_pass = lambda p: state.__setitem__("pass", p)
        return case


def _volume(size) -> float:
    return float(np.prod(list(size.values()))) if isinstance(size, dict) else float(size)


def _precision(refs) -> str:
    kinds = {np.dtype(r.dtype) for r in refs}
    for dtype, word in ((np.float64, "fp64"), (np.float32, "fp32"), (np.float16, "fp16")):
        if kinds == {np.dtype(dtype)}:
            return word
    return ""


def _past_the_end(data, pass_index: int) -> str:
    """Why a CPU variant's output is refused for a write past its end ("" when none was)."""
    for i, (out, guard) in enumerate(zip(data.outs, data.guards)):
        offset = guard_written(guard, pass_index)
        if offset >= 0:
            return past_the_end(f"out{i}", out.size, offset)
    return ""


def _ok(s: ErrorStats, tol: Tolerance) -> bool:
    from .checks import passes
    return passes(s, tol)


@dataclass(frozen=True)
class _Row:
    """One row of a declared workload, as the engine reads rows."""

    spec: Workload
    size: Any
    variant: Any
    impl: str
    args: tuple
    side: str
    mode: str | None
    block: Any = None
    pageable: bool = False

    @property
    def workload(self) -> str:
        return self.spec.name

    @property
    def base(self) -> str:
        return "/".join([self.workload, self.impl] + [f"{k}:{v}" for k, v in self.args])

    @property
    def name(self) -> str:
        return self.base + "/manual_time"

    @property
    def args_of_size(self) -> tuple:
        return self.spec.size_args(self.size)

    def arg(self, key: str, default=None):
        return dict(self.args).get(key, default)

    @property
    def serial(self) -> bool:
        return self.side == "cpu" and not self.variant.is_parallel

    @property
    def base_impl(self) -> str:
        """The variant's impl, without the pageable e2e suffix (one verdict for both)."""
        return self.variant.impl

    @property
    def label(self) -> str:
        return ""

    @property
    def fields(self) -> dict:
        """The row's description (common/bench_spec.hpp's fields), so the reports pair it by
        its fields rather than its name."""
        precision = self.spec._made(self)[3]
        return {"workload": self.workload, "impl": self.impl, "side": self.side,
                "mode": self.mode or "", "algorithm": "", "precision": precision}
