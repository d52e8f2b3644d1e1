"""Loading the course's data files.

Every case, catalog, task, quiz and attack lives as JSON under the repository's ``data/``
folder, so the code holds no tables of its own. The folder is looked up when a file is first read, never
at import, so ``import toolkit`` works without it and ``python -m toolkit doctor`` can say it is
missing. :func:`data_dir` tries, in order:

1. ``TOOLKIT_DATA``, if set (a class that keeps its own cases, say);
2. the package's own copy, ``toolkit/_data``, found with :mod:`importlib.resources`: a wheel
   (``pip install .`` or ``pip install git+...``) ships ``data/`` there as package data
   (``[tool.setuptools.package-dir]`` in pyproject.toml);
3. the clone's ``data/`` beside the package, read in place by an editable install
   (``pip install -e .``): setuptools cannot map a folder without ``__init__.py`` into an
   editable install (pypa/setuptools#4943), so the clone's folder is used as it is.
"""

from __future__ import annotations

import copy
import functools
import json
import os
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = ["data_dir", "load_json", "data_path"]


def data_dir() -> Path:
    """The course's data folder, looked up on every call (the module's docstring says where).

    Used by: python -m toolkit doctor.
    """
    if os.environ.get("TOOLKIT_DATA"):
        return Path(os.environ["TOOLKIT_DATA"])
    # resolved: the student edition imports the package through a link (notebooks/toolkit)
    package = Path(str(resources.files("toolkit"))).resolve()
    packaged = package / "_data"
    return packaged if packaged.is_dir() else package.parent / "data"


def data_path(name: str) -> Path:
    """The path of a file in the data folder, with a clear error if it is not there.

    Notebook 09, through load_bfcl.
    """
    path = data_dir() / name
    if not path.exists():
        raise FileNotFoundError(
            f"The course data file {path} is missing. The toolkit reads data/ from the "
            "repository it was installed from: install it with `pip install -e .` from a clone "
            "(or run `make lab`), or set TOOLKIT_DATA to a folder that has the course's data files."
        )
    return path


@functools.cache
def _read(path: Path) -> Any:
    with open(path, encoding="utf-8") as fh:
        return json.load(fh)


def load_json(name: str) -> Any:
    """A fresh copy of a JSON data file, so callers can change it without side effects.

    Notebook 10, through load_taubench.
    """
    return copy.deepcopy(_read(data_path(name)))
