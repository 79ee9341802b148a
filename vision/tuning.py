"""The process-wide settings under which windows are read fast.

Each is the process's, not a Reader's: the assembly of a service (`sabot run`, `simulate`,
`read`, a benchmark) calls `tune_for_reading` once, and a library never changes them behind
its caller's back.
"""

from __future__ import annotations

import ctypes

import cv2

# glibc's mallopt(3) parameters and the values set.
M_TRIM_THRESHOLD, M_MMAP_THRESHOLD = -1, -3
# The largest block still carved from the heap (glibc's default is 128 KiB, raised only once
# a larger block has been freed). 512 KiB is also the most a 32-bit glibc accepts.
MMAP_THRESHOLD = 512 * 1024
# How much free memory the heap keeps at its top instead of returning it to the system.
TRIM_THRESHOLD = 4 * MMAP_THRESHOLD


def tune_for_reading() -> bool:
    """Both settings below; whether the allocator's was taken (False: not glibc, where a read
    may cost more)."""
    one_compute_thread()
    return reuse_freed_memory()


def one_compute_thread() -> None:
    """Run OpenCV's and the BLAS's work (NumPy's matrix products) on the calling thread only:
    on windows this small their worker threads only spin. OpenCV's 1 halves the CPU a read
    costs for the same wall time; the BLAS's, measured with another process busy on the
    second core, took a read from 5.4 to 3.0 ms (the nearest-view product alone from 2.1 to
    0.36 ms), its threads waiting for a core to spin on."""
    cv2.setNumThreads(1)
    from threadpoolctl import threadpool_limits  # lazily: `sabot deal` reads no window

    threadpool_limits(limits=1, user_api="blas")


def reuse_freed_memory() -> bool:
    """Have glibc's allocator serve the read's temporary arrays (up to MMAP_THRESHOLD) from
    memory it keeps, instead of mapping fresh pages from the system for each and unmapping
    them when freed: the six steps and eight two-step corners of an accepted face's index
    zone, described in one pass, make arrays of 225 KB, and every page of each, fresh, is
    a page fault. A read of a profile loaded from disk took 3.9 ms so, 1.8 ms with this
    (`bench.vision` enrols in the same process, and its large freed blocks had raised
    glibc's threshold on their own). False where the C library has no mallopt (not
    glibc): its allocator is left as it is."""
    try:  # the C library this process already runs on, whatever its file is called
        mallopt = ctypes.CDLL(None).mallopt
    except (OSError, AttributeError):
        return False
    mallopt.argtypes, mallopt.restype = [ctypes.c_int, ctypes.c_int], ctypes.c_int
    return bool(mallopt(M_MMAP_THRESHOLD, MMAP_THRESHOLD)
                and mallopt(M_TRIM_THRESHOLD, TRIM_THRESHOLD))
