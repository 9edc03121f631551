"""numba's cached kernels kept true to their sources.

numba keys a cached kernel by the file that defines it alone, while the compiled code also holds the
functions it calls from other files and the constants it reads from them (its layouts): a change there
alone leaves the old code loaded from the cache (numba's documented limitation). So, once a process
imports gdl, the in-tree caches of every kernel are dropped where the *kernel sources* (the modules
named ``*kernel*`` or ``*layout*`` and the gdl modules they import from) differ from those they were
compiled from; numba then compiles afresh. An installed package that is upgraded gets new files, so
this matters to a source tree being edited; caches out of the tree (``NUMBA_CACHE_DIR``) are not
checked.
"""

from __future__ import annotations

import hashlib
import os
import re
from pathlib import Path

#: The digest of the kernel sources the caches were compiled from, in the package's own cache folder.
DIGEST = Path("__pycache__") / "kernel-sources.sha256"
_IMPORTED = re.compile(r"^from (gdl[\w.]*) import", re.MULTILINE)


def kernel_sources(root: Path) -> list[Path]:
    """The kernel sources of the package in ``root`` (see the module doc), sorted."""
    kernels = {
        path for path in root.rglob("*.py") if "kernel" in path.stem or "layout" in path.stem
    }
    imported = set()
    for path in kernels:
        for module in _IMPORTED.findall(path.read_text(encoding="utf-8")):
            parts = module.split(".")[1:]
            for candidate in (root.joinpath(*parts).with_suffix(".py"), root.joinpath(*parts, "__init__.py")):
                if candidate.is_file():
                    imported.add(candidate)
    return sorted(kernels | imported)


def sources_digest(root: Path) -> str:
    """The digest of the kernel sources under ``root``: their paths and contents."""
    digest = hashlib.sha256()
    for path in kernel_sources(root):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def refresh(root: Path) -> bool:
    """Drop the cached kernels (numba's ``.nbi`` and ``.nbc`` files) under ``root`` where its kernel
    sources changed since the digest was last written, and write it; whether they were dropped. A tree
    that cannot be written is left as it is (numba then caches elsewhere)."""
    digest = sources_digest(root)
    stamp = root / DIGEST
    try:
        if stamp.read_text(encoding="ascii").strip() == digest:
            return False
    except OSError:
        pass
    try:
        for cached in [*root.rglob("__pycache__/*.nbi"), *root.rglob("__pycache__/*.nbc")]:
            cached.unlink(missing_ok=True)
        stamp.parent.mkdir(exist_ok=True)
        partial = stamp.with_name(f"{stamp.name}.{os.getpid()}")
        partial.write_text(digest + "\n", encoding="ascii")
        partial.replace(stamp)
    except OSError:
        return False
    return True
