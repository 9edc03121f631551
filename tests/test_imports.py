"""The package's imports: no module of gdl imports itself back through others (every import counts,
those inside functions and under ``TYPE_CHECKING`` too: a circle only hidden until run time is still one),
the environments import each library only where it is used, and moved names still import, with a
warning."""

from __future__ import annotations

import ast
import subprocess
import sys
import warnings
from pathlib import Path

import networkx as nx
import pytest

import gdl

PACKAGE = Path(gdl.__file__).resolve().parent


def _modules() -> dict[str, Path]:
    found = {}
    for path in PACKAGE.rglob("*.py"):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        found[".".join(parts[:-1] if parts[-1] == "__init__" else parts)] = path
    return found


def import_graph() -> nx.DiGraph:
    """Module -> the modules of gdl it imports, anywhere in its text."""
    modules = _modules()
    graph = nx.DiGraph()
    graph.add_nodes_from(modules)
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    parts = package.split(".")
                    base = ".".join([*parts[: len(parts) - node.level + 1], base]).strip(".")
                # ``from package import module`` imports the module; ``from module import name`` the module
                targets = [f"{base}.{a.name}" if f"{base}.{a.name}" in modules else base for a in node.names]
            else:
                continue
            graph.add_edges_from((name, target) for target in targets if target in modules and target != name)
    return graph


def test_the_walk_sees_the_imports() -> None:
    graph = import_graph()
    assert graph.number_of_nodes() > 100
    assert graph.has_edge("gdl.engines.native", "gdl.engines.native_layout")
    assert graph.has_edge("gdl.backend", "gdl.cluster")  # an import inside a function


def test_no_import_circles() -> None:
    components = nx.strongly_connected_components(import_graph())
    assert [sorted(component) for component in components if len(component) > 1] == []


def test_importing_the_environments_imports_no_library_until_one_is_used() -> None:
    code = (
        "import sys, gdl.env\n"
        "loaded = lambda: sorted(m for m in ('pettingzoo', 'gymnasium', 'pyspiel') if m in sys.modules)\n"
        "print(loaded())\n"
        "gdl.env.openspiel_game\n"
        "print(loaded())\n"
    )
    run = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    assert run.stdout.split() == ["[]", "['pyspiel']"]


@pytest.mark.parametrize(
    ("module", "name", "now"),
    [
        ("gdl.extensive.model", "ExtensiveGameError", "gdl.errors"),
        ("gdl.backend", "ClusterError", "gdl.errors"),
        ("gdl.budget", "BudgetExceededError", "gdl.errors"),
        ("gdl.engines.kernel", "playout", "gdl.engines.native_kernel"),
        ("gdl.extensive.maze", "read_maze", "gdl.bandits.maze"),
    ],
)
def test_moved_names_import_from_their_old_place_with_a_warning(module: str, name: str, now: str) -> None:
    with pytest.warns(DeprecationWarning, match=f"{now}"):
        old = getattr(__import__(module, fromlist=[name]), name)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert old is getattr(__import__(now, fromlist=[name]), name)


def test_every_public_exception_is_a_gdl_error_in_one_module() -> None:
    import gdl.errors

    public = [
        value for value in vars(gdl.errors).values()
        if isinstance(value, type) and issubclass(value, BaseException) and value.__module__ == "gdl.errors"
    ]
    assert len(public) >= 30 and all(issubclass(kind, gdl.errors.GdlError) for kind in public)
    assert issubclass(gdl.errors.GameTooLargeError, RuntimeError)
    assert issubclass(gdl.errors.InvalidGameError, ValueError)
    defined_elsewhere = [
        f"{path}: {node.name}"
        for path in PACKAGE.rglob("*.py")
        if path.name != "errors.py"
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8")))
        if isinstance(node, ast.ClassDef) and not node.name.startswith("_")
        and any(getattr(base, "id", "").endswith(("Error", "Exception")) for base in node.bases)
    ]
    assert defined_elsewhere == []


def test_the_extensive_toolkit_does_not_import_the_bandit_maze_built_on_it() -> None:
    graph = import_graph()
    toolkit = [module for module in graph if module.startswith("gdl.extensive")]
    assert toolkit and graph.has_edge("gdl.bandits.game", "gdl.extensive.model")
    assert [(m, t) for m in toolkit for t in graph.successors(m) if t.startswith("gdl.bandits")] == []


def test_the_worker_processes_old_place_still_imports_with_a_warning() -> None:
    with pytest.warns(DeprecationWarning, match="gdl.protocol.workers is deprecated: use gdl.workers"):
        from gdl.protocol.workers import Limits
    from gdl.workers import Limits as moved

    assert Limits is moved
