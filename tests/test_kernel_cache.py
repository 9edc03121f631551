"""numba's cached kernels are dropped when a kernel source changes, the files it imports from included
(gdl/kernel_cache.py): numba itself checks only the file that defines a kernel."""

from __future__ import annotations

from pathlib import Path

import gdl
from gdl.kernel_cache import DIGEST, kernel_sources, refresh, sources_digest


def a_package(root: Path) -> Path:
    """A package laid out as gdl's: a kernel that imports a layout and a helper, a module no kernel
    imports, and a cached kernel beside each."""
    files = {
        "engines/walk_kernel.py": (
            "from gdl.engines.walk_layout import STEP\nfrom gdl.engines.helper import f\n"
        ),
        "engines/walk_layout.py": "STEP = 1\n",
        "engines/helper.py": "def f() -> int:\n    return 2\n",
        "cli.py": "print('no kernel here')\n",
    }
    for name, text in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(text)
    return root


def cache(root: Path) -> list[Path]:
    """Cached kernels written, as numba writes them, under ``root``."""
    written = [
        root / "engines/__pycache__/walk_kernel.walk-3.py311.nbi",
        root / "engines/__pycache__/walk_kernel.walk-3.py311.1.nbc",
    ]
    for path in written:
        path.parent.mkdir(exist_ok=True)
        path.write_bytes(b"compiled")
    return written


def test_the_kernel_sources_are_the_kernels_their_layouts_and_what_they_import(tmp_path: Path) -> None:
    root = a_package(tmp_path)
    assert [p.relative_to(root).as_posix() for p in kernel_sources(root)] == [
        "engines/helper.py", "engines/walk_kernel.py", "engines/walk_layout.py",
    ]


def test_caches_are_kept_while_the_sources_stay_and_dropped_when_one_changes(tmp_path: Path) -> None:
    root = a_package(tmp_path)
    assert refresh(root), "caches of no known sources are dropped"
    assert (root / DIGEST).read_text().strip() == sources_digest(root)
    written = cache(root)
    assert not refresh(root)
    assert all(path.exists() for path in written)
    (root / "cli.py").write_text("print('still no kernel')\n")
    assert not refresh(root)
    assert all(path.exists() for path in written)
    # The kernel's own file is unchanged: numba alone would load the stale code.
    (root / "engines/helper.py").write_text("def f() -> int:\n    return 3\n")
    assert refresh(root)
    assert not any(path.exists() for path in written)
    assert not refresh(root)


def test_gdl_itself_was_refreshed_on_import() -> None:
    root = Path(gdl.__file__).parent
    assert any(p.name == "native_kernel.py" for p in kernel_sources(root))
    assert (root / DIGEST).read_text().strip() == sources_digest(root)
