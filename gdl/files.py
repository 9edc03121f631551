"""Reading the files gdl is handed: regular files only, and at most :data:`MAX_BYTES` of them.

The size the system reports says nothing of a device or a FIFO (0 for both: ``/dev/zero`` never ends,
and a FIFO without a writer never begins) nor of a file that grows while it is read, so a file is
refused by its kind before anything is read, and read with a bound rather than whole.

>>> read_text_file("/dev/null")
Traceback (most recent call last):
...
gdl.errors.UnreadableFileError: /dev/null: not a regular file (a character device)
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from gdl.errors import MissingFileError, UnreadableFileError

#: Files larger than this are refused: a game file is data, and the largest real one is 5 MB.
MAX_BYTES = 64 * 1024 * 1024

_KINDS = (
    (stat.S_ISDIR, "is a directory"),
    (stat.S_ISCHR, "not a regular file (a character device)"),
    (stat.S_ISBLK, "not a regular file (a block device)"),
    (stat.S_ISFIFO, "not a regular file (a FIFO)"),
    (stat.S_ISSOCK, "not a regular file (a socket)"),
)


def read_text_file(path: str | Path, max_bytes: int = MAX_BYTES) -> str:
    """The UTF-8 text of a regular file of at most ``max_bytes`` bytes, its line ends made ``\\n`` (as
    :meth:`pathlib.Path.read_text` does); :class:`UnreadableFileError` saying why otherwise."""
    name = str(path)
    try:
        # Not blocking: opening a FIFO would wait for a writer. Its kind is then read from the open
        # file itself, which a rename cannot swap after the check.
        descriptor = os.open(name, os.O_RDONLY | os.O_NONBLOCK)
    except FileNotFoundError:
        raise MissingFileError(name, "no such file") from None
    except IsADirectoryError:
        raise UnreadableFileError(name, "is a directory") from None
    except OSError as problem:
        raise UnreadableFileError(name, problem.strerror or type(problem).__name__) from None
    try:
        mode = os.fstat(descriptor)
        for test, reason in _KINDS:
            if test(mode.st_mode):
                raise UnreadableFileError(name, reason)
        if mode.st_size > max_bytes:
            reason = f"the file has {mode.st_size} bytes, more than the {max_bytes} allowed"
            raise UnreadableFileError(name, reason)
        os.set_blocking(descriptor, True)
        with open(descriptor, "rb", closefd=False) as file:
            data = file.read(max_bytes + 1)
    except UnreadableFileError:
        raise
    except OSError as problem:
        raise UnreadableFileError(name, problem.strerror or type(problem).__name__) from None
    finally:
        os.close(descriptor)
    if len(data) > max_bytes:
        raise UnreadableFileError(name, f"the file has more than the {max_bytes} bytes allowed")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as problem:
        raise UnreadableFileError(name, f"not UTF-8 text (byte {problem.start})") from None
    return text.replace("\r\n", "\n").replace("\r", "\n")
