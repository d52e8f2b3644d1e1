"""The course's hub, tried for real on loopback (issue 22, point 2): deploy/jupyterhub_config.py
in trial mode, configurable-http-proxy from deploy/npm, a student who logs in, clicks the
nbgitpuller link to a local git repository of the student edition, opens notebook 10, runs
every cell and the exercise checks through the kernel; then everything started is stopped."""

from __future__ import annotations

from pathlib import Path

import pytest
from hubdriver import ROOT, Hub, Student, check_verdict

from toolkit.course.grade import course_checks

NB = "10_reliability_pass_k"
PATH = f"week3/notebooks/{NB}.ipynb"


@pytest.fixture(scope="module")
def hub(tmp_path_factory):
    running = Hub(tmp_path_factory.mktemp("hub"))
    try:
        yield running.start()
    finally:
        running.stop()
        assert running.student_pids() == [], "a student's server or kernel outlived the hub"
        assert running.proc is not None and running.proc.poll() is not None


def test_a_student_logs_in_pulls_the_edition_and_runs_notebook_10_with_its_checks(hub, student_edition):
    student = Student(hub, "ada")
    student.login()
    student.follow_link(f"file://{student_edition}", "main", "week3", f"lab/tree/{PATH}")
    home = hub.homes / "ada" / "week3"
    assert (home / "notebooks" / f"{NB}.ipynb").read_bytes() == (
        student_edition / "notebooks" / f"{NB}.ipynb"
    ).read_bytes()
    cells = student.open_notebook(PATH)["cells"]
    kernel = student.start_kernel(PATH)
    try:
        where = kernel.execute("import toolkit; print(toolkit.__file__)")
        assert Path(where.text.strip()).resolve().is_relative_to(home.resolve())  # the pulled toolkit
        reports = []
        for cell in cells:
            if cell["cell_type"] == "code" and cell["source"].strip():
                run = kernel.execute(cell["source"])
                assert run.status == "ok" and not run.error, (cell["source"][:80], run.error)
                if "check" in cell["metadata"].get("tags", []):
                    reports.append(run.text)
        # Exercises 10 and 11 and the optional dual-control your turn (10 §6): each check cell
        # ran and says the stub is not done yet
        assert len(reports) == 3 and all("not done yet" in text for text in reports)
        for check in course_checks(ROOT / "notebooks" / f"{NB}.ipynb"):
            kernel.execute("\n".join(check.solutions))
            passed, text = check_verdict(kernel, check.source)
            assert passed, text
        kernel.execute("def passk_table(p_skip_check, p_typo):\n    return [1.0] * 8")
        passed, text = check_verdict(kernel, course_checks(ROOT / "notebooks" / f"{NB}.ipynb")[0].source)
        assert not passed and "✗" in text
        assert kernel.alive()
    finally:
        kernel.close()
    student.stop_server()


def test_a_second_click_keeps_the_students_edit(hub, student_edition):
    student = Student(hub, "grace")
    student.login()
    link = (f"file://{student_edition}", "main", "week3", f"lab/tree/{PATH}")
    student.follow_link(*link)
    mine = hub.homes / "grace" / "week3" / "notebooks" / f"{NB}.ipynb"
    mine.write_text(mine.read_text().replace("change these two", "my own choice"))
    student.follow_link(*link)
    assert "my own choice" in mine.read_text()
    student.stop_server()
