"""Tests of the local model (docs/real-models.md, "No key, no network").

``test_local_model.py`` needs the served model: it runs only through ``make test-local-model``,
which sets TOOLKIT_LOCAL_MODEL_PYTHON to the Python of ``build/local-model/``; without it a plain
``pytest`` (``make test``) skips that file, so the unit tests never need the 1.1 GB model.
``test_fetch.py`` (the download's checks, on small stand-in wheels) runs everywhere.
"""

from __future__ import annotations

import os

if not os.environ.get("TOOLKIT_LOCAL_MODEL_PYTHON"):
    collect_ignore = ["test_local_model.py"]
