"""docs/api.md names every exported name of the public modules, and each has a docstring, as do the
public methods and properties of the classes ``gdl`` exports."""

from __future__ import annotations

import importlib
import inspect
import re
from pathlib import Path

import pytest

import gdl

API = (Path(__file__).resolve().parent.parent / "docs/api.md").read_text(encoding="utf-8")
#: The public modules; each lists its names in ``__all__`` (or, below, by hand).
MODULES = (
    "gdl", "gdl.players", "gdl.check", "gdl.syntax", "gdl.datalog", "gdl.wellformed", "gdl.extensive",
)
#: Modules without ``__all__``: their public names.
NAMED = {
    "gdl.errors": ("InvalidGameError", "KifSyntaxError", "UnknownRoleError", "IllegalMoveError",
                   "InvalidStateError", "GameDefinitionError", "InconsistentViewError",
                   "GameTooLargeError", "ProtocolError", "PlayerSpecError", "HintsError", "RecordError",
                   "ViewerError"),
    "gdl.solve": ("solve", "Solution", "solve_matrix_game"),
    "gdl.match": ("Match", "MatchRecord"),
    "gdl.diagnostics": ("Diagnostic", "Level", "error", "warning", "has_errors"),
    "gdl.tournament": ("run_tournament", "TournamentResult", "Standing", "play_one"),
    "gdl.protocol.manager": ("host", "RemotePlayer", "Network", "is_url"),
    "gdl.protocol.server": ("PlayerServer", "start_server", "RunningServer", "shorten"),
    "gdl.views": ("View",),
    "gdl.render": ("render", "base_fluents", "keyword_fluents"),
    "gdl.view.board": ("Layout", "Grid", "Picture", "default_style"),
    "gdl.view.hints": ("Hints", "PieceStyle", "load_hints", "sidecar", "SCHEMA"),
    "gdl.view.replay": ("Replay",),
    "gdl.view.page": ("MatchPage",),
    "gdl.view.live": ("ViewServer", "LiveMatch", "LiveTournament"),
    "gdl.view.graph": ("RuleGraph", "rule_picture"),
    "gdl.view.network": ("network_svg",),
    "gdl.extensive.lp": ("solve_lp", "LPSolution", "SequenceForm"),
    "gdl.extensive.cfr": ("solve_cfr", "CFRSolution"),
    "gdl.extensive.best_response": ("best_response", "exploitability", "BestResponse", "Exploitability",
                                    "plans_exploitability", "respond"),
    "gdl.belief": ("Belief", "belief_from_view"),
}


def _exported() -> list[tuple[str, str]]:
    pairs = [(module, name) for module in MODULES for name in importlib.import_module(module).__all__]
    return pairs + [(module, name) for module, names in NAMED.items() for name in names]


@pytest.mark.parametrize(("module", "name"), _exported())
def test_every_exported_name_is_on_the_api_page_with_a_docstring(module: str, name: str) -> None:
    named = re.search(rf"`(?:[\w.]+\.)?{re.escape(name)}[`(]", API)
    assert named, f"docs/api.md does not name {module}.{name}"
    value = getattr(importlib.import_module(module), name)
    if inspect.isclass(value) or inspect.isfunction(value):
        assert inspect.getdoc(value), f"{module}.{name} has no docstring"


@pytest.mark.parametrize("name", [n for n in gdl.__all__ if inspect.isclass(getattr(gdl, n))])
def test_the_methods_of_gdls_classes_have_docstrings(name: str) -> None:
    cls = getattr(gdl, name)
    for attribute, value in vars(cls).items():
        if attribute.startswith("_") or not (inspect.isfunction(value) or isinstance(value, property)):
            continue
        assert inspect.getdoc(getattr(cls, attribute)), f"gdl.{name}.{attribute} has no docstring"
