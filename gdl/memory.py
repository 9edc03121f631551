"""How much memory gdl's own work may take: what ``gdl`` limits a bounded command's address space to
(:func:`memory_limit`), what a computation inside a process may plan for (:func:`usable_memory`), and
what the process has left under its limit (:func:`address_space_left`)."""

from __future__ import annotations

import os
import resource

#: The share of the machine's memory a bounded command may use, unless ``GDL_MEMORY_MB`` says otherwise.
MEMORY_SHARE = 0.75


def memory_limit() -> int:
    """The address space of a bounded command, in bytes: ``GDL_MEMORY_MB`` megabytes, else
    :data:`MEMORY_SHARE` of the machine's memory."""
    given = os.environ.get("GDL_MEMORY_MB", "")
    if given.isdigit() and int(given) > 0:
        return int(given) << 20
    return int(MEMORY_SHARE * os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES"))


def usable_memory() -> int:
    """The bytes this process may plan for: :func:`memory_limit`, or the process's address-space limit
    where that is lower (a process started under ``RLIMIT_AS`` by a benchmark or a worker pool)."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    return memory_limit() if soft == resource.RLIM_INFINITY else min(memory_limit(), soft)


def address_space_left() -> int | None:
    """The bytes left under this process's address-space limit; None where it is not limited or the
    process's size cannot be read."""
    soft, _ = resource.getrlimit(resource.RLIMIT_AS)
    if soft == resource.RLIM_INFINITY:
        return None
    try:
        with open("/proc/self/statm") as statm:
            used = int(statm.read().split()[0]) * resource.getpagesize()
    except (OSError, ValueError, IndexError):
        return None
    return max(0, soft - used)


__all__ = ["MEMORY_SHARE", "address_space_left", "memory_limit", "usable_memory"]
