"""Where toolgrade keeps its state: `TOOLGRADE_HOME`, by default `./.toolgrade`."""

from __future__ import annotations

import os
from pathlib import Path

__all__ = ["data_dir", "runs_dir"]

_HOME_VARIABLE = "TOOLGRADE_HOME"
_DEFAULT_HOME = ".toolgrade"


def data_dir() -> Path:
    """Return the folder holding run folders and the run history database.

    The environment variable `TOOLGRADE_HOME` wins; otherwise `./.toolgrade` under the
    current directory. The folder is not created here: nothing happens until a run
    writes to it.

    Returns:
        The data folder (absolute).
    """
    configured = os.environ.get(_HOME_VARIABLE, "").strip()
    home = Path(configured).expanduser() if configured else Path(_DEFAULT_HOME)
    return home.absolute()


def runs_dir() -> Path:
    """Return the folder holding one sub-folder per run (`<data_dir>/runs`)."""
    return data_dir() / "runs"
