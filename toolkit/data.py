"""Loading the course's data files.

Every case, catalog, task, quiz and attack lives as JSON under the repository's ``data/``
folder, so the code holds no tables of its own. Set ``TOOLKIT_DATA`` to point somewhere else
(for a class that keeps its own cases, say).
"""

from __future__ import annotations

import copy
import functools
import json
import os
import sys
from pathlib import Path

__all__ = ["DATA_DIR", "load_json", "data_path"]

def _data_dir() -> Path:
    """``TOOLKIT_DATA`` if set; else the clone's ``data/`` (editable install); else the copy a
    plain install puts under ``<prefix>/share/tooluse-course/data``."""
    if os.environ.get("TOOLKIT_DATA"):
        return Path(os.environ["TOOLKIT_DATA"])
    in_clone = Path(__file__).resolve().parent.parent / "data"
    installed = Path(sys.prefix) / "share" / "tooluse-course" / "data"
    return in_clone if in_clone.exists() or not installed.exists() else installed


DATA_DIR = _data_dir()


def data_path(name: str) -> Path:
    """The path of a file in the data folder, with a clear error if it is not there."""
    path = DATA_DIR / name
    if not path.exists():
        raise FileNotFoundError(
            f"The course data file {path} is missing. The toolkit reads data/ from the "
            "repository it was installed from: install it with `pip install -e .` from a clone "
            "(or run `make lab`), or set TOOLKIT_DATA to a folder that has the course's data files."
        )
    return path


@functools.cache
def _load_cached(name: str):
    with open(data_path(name), encoding="utf-8") as fh:
        return json.load(fh)


def load_json(name: str):
    """A fresh copy of a JSON data file, so callers can change it without side effects."""
    return copy.deepcopy(_load_cached(name))
