"""Extensive-form games: chance, hidden information, and their exact solutions.

The model (:mod:`gdl.extensive.model`) is an immutable game tree; the sequence form
(:mod:`gdl.extensive.sequence`), the LP (:mod:`gdl.extensive.lp`), CFR+ (:mod:`gdl.extensive.cfr`)
and best responses (:mod:`gdl.extensive.best_response`) work on any two-player constant-sum game in
it. Games come from files through :func:`load_extensive`, which picks a reader by the file's suffix
(:data:`READERS`), and go to files through :func:`write_extensive` (:data:`WRITERS`): Gambit's
``.efg``, the JSON format (``.json``, :mod:`gdl.extensive.jsonformat`), and GDL-II games (``.kif`` or
``.gdl`` with the role ``random`` or ``sees`` rules, :mod:`gdl.extensive.from_gdl`).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from gdl.errors import (
    ExtensiveGameError,
    GdlSourceError,
    ImperfectRecallError,
    InformationSetError,
    JsonGameError,
    NotExtensiveError,
    UnknownFormatError,
)
from gdl.extensive.from_gdl import is_gdl2_text, read_gdl2
from gdl.extensive.gambit import read_efg, write_efg
from gdl.extensive.jsonformat import parse_json_game, write_json_game
from gdl.extensive.model import Chance, Decision, ExtensiveGame, InformationSet, Node, Strategy, Terminal
from gdl.files import read_text_file

#: GDL file suffixes: their games are extensive when they have nature or percepts (GDL-II).
GDL_SUFFIXES = (".kif", ".gdl")
#: Readers by lower-case file suffix: each takes the file's text and its name (for messages).
READERS: dict[str, Callable[[str, str], ExtensiveGame]] = {
    ".efg": read_efg,
    ".json": parse_json_game,
    **dict.fromkeys(GDL_SUFFIXES, read_gdl2),
}
#: Writers by lower-case file suffix: each returns the file's text.
WRITERS: dict[str, Callable[[ExtensiveGame], str]] = {".efg": write_efg, ".json": write_json_game}


def is_extensive(path: str | Path) -> bool:
    """Whether ``path`` names a file that :func:`load_extensive` reads: by its suffix, and for a GDL
    file by its rules (the role ``random`` or ``sees`` rules; an unreadable file is not)."""
    if Path(path).suffix.lower() in GDL_SUFFIXES:
        try:
            return is_extensive_text(read_text_file(path), str(path))
        except OSError:  # unreadable (not a regular file, too large, not UTF-8): not an extensive game
            return False
    return Path(path).suffix.lower() in READERS


def is_extensive_text(text: str, name: str) -> bool:
    """Whether the text of the file ``name`` is an extensive-form game :func:`read_extensive` reads: by
    the name's suffix, and for GDL by its rules (text that is not GDL is not)."""
    suffix = Path(name).suffix.lower()
    if suffix in GDL_SUFFIXES:
        try:
            return is_gdl2_text(text)
        except ValueError:  # not KIF: the GDL reader says what is wrong
            return False
    return suffix in READERS


def read_extensive(text: str, name: str) -> ExtensiveGame:
    """The extensive-form game in ``text``, read by the reader of ``name``'s suffix. Raises
    :class:`UnknownFormatError` for other suffixes and an :class:`ExtensiveGameError` (with ``name``
    and the position or path of the problem) for a bad game."""
    reader = READERS.get(Path(name).suffix.lower())
    if reader is None:
        raise UnknownFormatError(
            f"{name}: not an extensive-form game file (gdl reads {', '.join(sorted(READERS))})"
        )
    return reader(text, name)


def load_extensive(path: str | Path) -> ExtensiveGame:
    """The extensive-form game in a file (see :func:`read_extensive`);
    :class:`~gdl.errors.UnreadableFileError` when the file cannot be read."""
    if Path(path).suffix.lower() not in READERS:
        return read_extensive("", str(path))  # raises UnknownFormatError before reading anything
    return read_extensive(read_text_file(path), str(path))


def write_extensive(game: ExtensiveGame, path: str | Path) -> None:
    """Write a game to a file in the format of its suffix (:data:`WRITERS`)."""
    writer = WRITERS.get(Path(path).suffix.lower())
    if writer is None:
        raise UnknownFormatError(
            f"{path}: gdl cannot write this format (it writes {', '.join(sorted(WRITERS))})"
        )
    Path(path).write_text(writer(game), encoding="utf-8")


__all__ = [
    "READERS",
    "WRITERS",
    "Chance",
    "Decision",
    "ExtensiveGame",
    "ExtensiveGameError",
    "GdlSourceError",
    "ImperfectRecallError",
    "InformationSet",
    "InformationSetError",
    "JsonGameError",
    "Node",
    "NotExtensiveError",
    "Strategy",
    "Terminal",
    "UnknownFormatError",
    "is_extensive",
    "is_extensive_text",
    "load_extensive",
    "read_extensive",
    "write_extensive",
]
