"""Tests against a real local model: only run through ``make test-local-model``.

That target sets TOOLKIT_LOCAL_MODEL_PYTHON to the Python of ``build/local-model/`` (built by
``make local-model``); without it a plain ``pytest`` (``make test``) collects nothing here, so
the unit tests never need the model, its 93 MB wheel or the llama.cpp build.
"""

from __future__ import annotations

import os

if not os.environ.get("TOOLKIT_LOCAL_MODEL_PYTHON"):
    collect_ignore_glob = ["*.py"]
