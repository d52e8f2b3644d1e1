"""The class tier: what a class meets that one student on a quiet machine does not, and that
costs minutes of kernels and busy cores to show. Only run through ``make test-class``
(TOOLKIT_CLASS_TESTS=1), which CI runs after ``make test``:

- every notebook of the student edition run top to bottom, and nothing in it that only a
  solution produces (test_student_edition_runs.py);
- every exercise's reference and right answers passing with every core busy (test_check_load.py);
- a class's submissions graded by ``python -m toolkit grade`` (test_grade.py).

A plain ``pytest`` (``make test``) collects nothing from this folder. The student edition is
the session's ``student_edition`` (tests/conftest.py).
"""

import os

if os.environ.get("TOOLKIT_CLASS_TESTS") != "1":
    collect_ignore_glob = ["*.py"]
