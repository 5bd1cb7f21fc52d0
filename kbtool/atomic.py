"""Writing a file so that a reader never sees half of it."""

from __future__ import annotations

import os
from pathlib import Path


def write_atomic(target: Path, data: bytes) -> None:
    """Write a new file beside ``target`` and rename it into place. Raises OSError, leaving no
    temporary file behind."""
    import tempfile  # here: a run that writes nothing skips importing it (and shutil)

    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=f".{target.stem}.", suffix=".tmp")
    try:
        with os.fdopen(fd, "wb") as f:
            f.write(data)
        os.replace(tmp, target)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
