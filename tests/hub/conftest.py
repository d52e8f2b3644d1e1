"""Hub tests: only run through ``make test-hub`` (TOOLKIT_HUB_TESTS=1), which installs the
`hub` extra (requirements/hub.txt) and the pinned configurable-http-proxy (deploy/npm).

A plain ``pytest`` (``make test``) collects nothing from this folder. The student edition is
the session's ``student_edition`` (tests/conftest.py).
"""

import os
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

if os.environ.get("TOOLKIT_HUB_TESTS") != "1":
    collect_ignore_glob = ["*.py"]
else:
    sys.path.insert(0, str(HERE))
