"""Fixed CPU code paths for training, so that a rerun gives the same weights.

PyTorch picks its kernels by the CPU it finds, and the picks round differently:

- ATen (PyTorch's own kernels: softmax, AdamW, the random normal fill of the
  embeddings, reductions) dispatches to AVX-512, AVX2 or plain code by CPU.
  Each gives different last bits. ``ATEN_CPU_CAPABILITY=avx2`` pins the AVX2
  kernels, which every x86-64 CPU since about 2015 runs.
- MKL (the matrix products of every Linear layer) picks its code path by CPU
  model and vendor, and its blocking by cache size. ``MKL_CBWR=COMPATIBLE``
  (conditional numerical reproducibility, SSE2 branch) is the one branch that
  MKL honours on AMD as well as Intel CPUs: on the AMD machine the course was
  trained on, MKL_CBWR=AVX2 and AVX512 fall back to MKL's AUTO mode.
- The thread count changes how reductions are split: training uses 1 thread.
- ``torch.use_deterministic_algorithms(True)`` makes any op without a
  deterministic CPU implementation fail loudly instead of drifting.
- oneDNN is not on these models' path (disabling it changes no bit); its ISA is
  pinned too so that a future op cannot bring in a CPU-dependent kernel.

The variables take effect only if set before torch runs its first operation,
so ``pin()`` is the first thing ``python -m models.train`` and
``python -m models.ensure`` do; ``state()`` reads back what is in effect, and
every training record says it.
"""

from __future__ import annotations

import ctypes
import os
from pathlib import Path

PINNED_ENV = {
    "ATEN_CPU_CAPABILITY": "avx2",
    "MKL_CBWR": "COMPATIBLE",
    "MKL_DYNAMIC": "FALSE",
    "OMP_DYNAMIC": "FALSE",
    "DNNL_MAX_CPU_ISA": "AVX2",
}
THREADS = 1
EXPECTED = {"aten": "AVX2", "mkl": "COMPATIBLE", "threads": THREADS, "deterministic": True}
# oneMKL's code-branch numbers (mkl_cbwr.h) as mkl_serv_cbwr_get reports them
MKL_BRANCHES = {0: "off", 1: "off", 2: "AUTO", 3: "COMPATIBLE", 4: "SSE2", 8: "SSE4_2", 10: "AVX2", 12: "AVX512"}


def pin(threads: int = THREADS) -> None:
    """Set the fixed code paths. Call before torch runs any operation."""
    os.environ.update(PINNED_ENV)
    import torch

    torch.set_num_threads(threads)
    torch.use_deterministic_algorithms(True)


def mkl_branch() -> str:
    """The MKL code branch in effect ("off" when CNR is not enabled), or
    "unknown" for a torch build without MKL."""
    import torch

    lib = Path(torch.__file__).parent / "lib" / "libtorch_cpu.so"
    try:
        get = ctypes.CDLL(str(lib)).mkl_serv_cbwr_get
    except (OSError, AttributeError):
        return "unknown"
    return MKL_BRANCHES.get(get(1), str(get(1)))


def state() -> dict:
    """The code paths in effect in this process (reading the ATen capability
    fixes it: call ``pin()`` first)."""
    import torch

    return {
        "aten": torch.backends.cpu.get_cpu_capability(),
        "mkl": mkl_branch(),
        "threads": torch.get_num_threads(),
        "deterministic": torch.are_deterministic_algorithms_enabled(),
    }


def describe(current: dict | None = None) -> str:
    """One line for a training record, e.g. "pinned: ATen AVX2, MKL COMPATIBLE, 1 thread"."""
    s = current or state()
    pinned = "pinned" if s == EXPECTED else "not pinned"
    det = ", deterministic algorithms" if s["deterministic"] else ""
    return f"{pinned}: ATen {s['aten']}, MKL {s['mkl']}, {s['threads']} thread(s){det}"


def is_pinned(current: dict | None = None) -> bool:
    return (current or state()) == EXPECTED
