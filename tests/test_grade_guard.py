"""The grading guard against a notebook's attacks, without Jupyter (README "Grading submitted notebooks").

toolkit/course/grade_guard.py and grade_integrity.py are installed in a child Python exactly as
toolkit/course/grade_kernel.py installs them in a kernel (the guard first on the path, the key
and report pipes, the sandbox's environment); a small stand-in for IPython's shell holds the
notebook's namespace and hooks. The student's cells run in that child, the course's check cells
are the grader's own (signed with the key, wrapped in the guard's events), and the test reads the
guard's signed reports, as the grader does. The checks' code runs for real: exercise 2, whose
check takes a few milliseconds. Each child takes about half a second.
"""

from __future__ import annotations

import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from toolkit.course import grade, grade_integrity
from toolkit.course.grade_kernel import Channel, Workspace, kill_sandbox_processes, remove_tree

ROOT = Path(__file__).resolve().parents[1]
PROTECTED = [ROOT / "toolkit", ROOT / "data"]
RIGHT = "def valid_but_wrong():\n    return dict(city='Oslo', unit='celsius')\n"
STUB = "def valid_but_wrong():\n    raise NotImplementedError\n"
# A stand-in for IPython's shell, then the grader's own first cell (grade.SETUP) in the notebook's namespace.
PRELUDE = (
    """
import sys, types
ns = {"__name__": "__main__"}
shell = types.SimpleNamespace(
    user_ns=ns, events=types.SimpleNamespace(callbacks={"post_run_cell": []}),
    input_transformers_post=[], ast_transformers=[],
)
ns["get_ipython"] = lambda: shell
"""
    + f"exec({grade.SETUP!r}, ns)\n"
    + """
exec("from toolkit.checks import ex02", ns)

def cell(text):
    try:
        exec(compile(text, "<cell>", "exec"), ns)
    except BaseException as exc:
        print("CELL FAILED:", type(exc).__name__, exc)
"""
)


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    made = Workspace(tmp_path_factory.mktemp("grading-run"))
    yield made
    made.remove()


class Notebook:
    """A guarded child Python standing in for one notebook's kernel."""

    def __init__(self, workspace: Workspace, hidden: list[Path] = ()) -> None:
        self.folders = workspace.notebook()
        self.channel = Channel()
        self.env = self.folders.environment(PROTECTED, list(hidden), workspace.root) | self.channel.environment()

    def check(self, index: int = 0, source: str = "ex02.check(valid_but_wrong)") -> str:
        """The grader's check cell number ``index``, signed with this notebook's key."""
        text = grade._assign_last(source, f"_grade_{index}")
        return grade_integrity.check_cell(index, text, self.channel.mac(index, text))

    def run(self, *cells: str, timeout: float = 120) -> str:
        """Run the prelude then each cell (the student's code, or a check cell from :meth:`check`);
        returns what the child printed. The guard's reports are in :attr:`records`."""
        code = PRELUDE + "".join(f"cell({textwrap.dedent(c)!r})\n" for c in cells)
        child = subprocess.Popen(
            [sys.executable, "-c", code],
            env=self.env,
            cwd=self.folders.work,
            pass_fds=self.channel.child_fds(),
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
        )
        self.channel.started()
        try:
            out, _ = child.communicate(timeout=timeout)
        finally:
            child.kill()
            child.wait()
            self.channel.close()
        assert not self.channel.forged, self.channel.forged
        assert self.record("ready"), out
        return out

    def record(self, kind: str, check: int | None = None) -> dict | None:
        found = [r for r in self.channel.records if r["kind"] == kind and (check is None or r.get("check") == check)]
        return found[-1] if found else None

    def verdict(self, check: int = 0) -> tuple[str, list[str]]:
        """('graded 3/3' | 'not done' | 'no result' | 'tampered' | 'missing', what the guard said)."""
        end = self.record("end", check)
        if end is None:
            return "missing", []
        late = [t for r in self.channel.records if r["kind"] == "late" and r["check"] == check for t in r["tampered"]]
        if end["tampered"] or late:
            return "tampered", end["tampered"] + late
        result = end["result"]
        if result is None:
            return "no result", end["notes"]
        if result["status"] == "not done":
            return "not done", end["notes"]
        return f"graded {result['passed']}/{result['total']}", end["notes"]

    def alerts(self) -> list[str]:
        return [t for r in self.channel.records if r["kind"] == "alert" for t in r["tampered"]]


@pytest.fixture
def notebook(workspace):
    return Notebook(workspace)


@pytest.fixture
def canary(tmp_path):
    """A folder outside the sandbox with files a notebook must not touch."""
    folder = tmp_path / "canary"
    folder.mkdir()
    for name in ("c1", "c2", "c3", "c4"):
        (folder / f"{name}.txt").write_text("original")
    return folder


def _intact(folder: Path) -> bool:
    return sorted(p.name for p in folder.iterdir()) == ["c1.txt", "c2.txt", "c3.txt", "c4.txt"] and all(
        p.read_text() == "original" for p in folder.iterdir()
    )


# ---- the honest notebook -----------------------------------------------------------------------


def test_right_and_stub_answers_are_reported_signed_and_untainted(workspace):
    right = Notebook(workspace)
    right.run(RIGHT, right.check())
    assert right.verdict() == ("graded 3/3", [])
    stub = Notebook(workspace)
    stub.run(STUB, stub.check())
    assert stub.verdict()[0] == "not done"


def test_a_line_not_signed_with_the_key_is_counted_as_forged(workspace):
    """The student's code can find the pipe's descriptor, but not the key: what it writes is forged,
    and the key is in no environment variable."""
    forger = Notebook(workspace)
    code = f'import os\nos.write({forger.channel.write_fd}, b\'{{"seq": 2, "kind": "end"}} 00\\n\')'
    with pytest.raises(AssertionError, match="seq"):
        forger.run(RIGHT, code)
    out = Notebook(workspace).run("import os\nprint(sorted(os.environ))")
    assert "TOOLKIT_GRADE_KEY_FD" not in out and "TOOLKIT_GRADE_CHANNEL_FD" not in out


# ---- 4. tampering that undoes itself, constants, private data, the data cache -------------------


def test_a_patch_that_restores_itself_is_seen_when_the_check_starts(workspace):
    """Checker.done patched on the class, put back by the fake when it runs (the audit's eve and gus)."""
    patch = """
    from toolkit.checks import Checker as _Ch, CheckResult as _CR
    _real_done = _Ch.done
    def _done(self, next_step=""):
        _Ch.done = _real_done
        return _CR(self.title, 3, 3, [self.title, "All 3 checks passed."])
    _Ch.done = _done
    """
    on_class = Notebook(workspace)
    on_class.run(STUB, patch, on_class.check())
    status, why = on_class.verdict()
    assert status == "tampered" and any("Checker.done" in w for w in why)
    on_module = Notebook(workspace)
    restore = "import toolkit.checks.ex02 as m\n_real = m.check\ndef _fake(*a):\n    m.check = _real\n    return _real(*a)\nm.check = _fake"
    on_module.run(STUB, restore, on_module.check())
    assert on_module.verdict()[0] == "tampered"


def test_a_constant_or_private_table_of_a_check_taints_that_exercise_only(workspace):
    """ex02's constants (a str, a dict) changed: exercise 2 is tampered; the same change to another
    exercise's module leaves exercise 2 graded (the audit's hana and ivan)."""
    own = Notebook(workspace)
    own.run(RIGHT, "import toolkit.checks.ex02 as m\nm.REQUEST = m.REQUEST + ' '", own.check())
    assert own.verdict() == ("tampered", ["toolkit.checks.ex02.REQUEST was changed"])
    other = Notebook(workspace)
    other.run(RIGHT, "import toolkit.checks.ex10 as m\nm.TOLERANCE = 1.0", other.check())
    assert other.verdict() == ("graded 3/3", [])
    in_place = Notebook(workspace)  # the answer the check compares with, edited in place
    in_place.run(RIGHT, "import toolkit.checks.ex02 as m\nm.INTENDED['unit'] = 'celsius'", in_place.check())
    status, why = in_place.verdict()
    assert status == "tampered" and why == ["toolkit.checks.ex02.INTENDED was changed in place"]


def test_a_patch_made_and_undone_while_the_check_runs_is_seen_when_it_gets_control_back(notebook):
    """The answer changes a shared toolkit function while the check calls it, and undoes it on its
    next call: the check gets control back in between (``toolkit.checks.returned``)."""
    answer = """
    import toolkit.registry as r
    _calls, _real = [], r.validate_args
    def valid_but_wrong():
        _calls.append(1)
        r.validate_args = _real if len(_calls) % 2 == 0 else (lambda *a, **k: [])
        return dict(city='Oslo', unit='celsius')
    """
    notebook.run(answer, notebook.check())
    status, why = notebook.verdict()
    assert status == "tampered" and "toolkit.registry.validate_args was changed" in why


def test_the_data_cache_is_emptied_and_toolkit_data_is_watched(workspace):
    """A cached data file edited in memory is read afresh by the check; TOOLKIT_DATA moved is tampering."""
    cache = Notebook(workspace)  # the check's tool reads weather.json through the cache
    poison = "import toolkit.data as d\nd.load_json('weather.json')\nd._read(d.data_path('weather.json')).clear()"
    cache.run(RIGHT, poison, cache.check())
    assert cache.verdict() == ("graded 3/3", [])
    moved = Notebook(workspace)
    moved.run(RIGHT, "import os\nos.environ['TOOLKIT_DATA'] = '/tmp'", moved.check())
    assert moved.verdict() == ("tampered", ["os.environ['TOOLKIT_DATA'] was changed in place"])


# ---- 5. the verdict cannot be read or forged through the notebook --------------------------------


def test_a_result_the_notebook_makes_is_not_a_verdict(workspace):
    """A CheckResult announced from a cell, a fake check bound to the name ex02, a forged begin:
    none gives a verdict, and the last two are tampering."""
    announce = Notebook(workspace)
    forged = "from toolkit.checks import Checker\nc = Checker('Exercise 2')\nfor _ in range(3):\n    c.expect(True, 'x')\nc.done()"
    announce.run(STUB, forged, announce.check())
    assert announce.verdict()[0] == "not done"
    rebound = Notebook(workspace)
    fake = "import types\nfrom toolkit.checks import CheckResult\nex02 = types.SimpleNamespace(check=lambda f: CheckResult('x', 3, 3, []))"
    rebound.run(STUB, fake, rebound.check())
    assert rebound.verdict() == ("tampered", ["the name ex02 no longer means toolkit.checks.ex02"])
    begins = Notebook(workspace)
    begins.run(RIGHT, "import sys\nsys.audit('toolkit.grade.begin', 0, 'ex02.check(valid_but_wrong)', '0' * 64)")
    assert begins.alerts() == ["a forged or repeated 'check begins' event"]


def test_a_check_cell_rewritten_before_it_runs_is_seen(notebook):
    """What an input transformer would do: the course's check cell, signed, runs with other code in it."""
    real = notebook.check()
    rewritten = real.replace("        _grade_0 = ex02.check(valid_but_wrong)\n", "        _grade_0 = None\n")
    assert rewritten != real
    notebook.run(RIGHT, rewritten)
    status, why = notebook.verdict()
    assert status == "tampered" and why[0].startswith("the check cell that ran is not the course's")


@pytest.mark.parametrize(
    "attack, expected",
    [
        ("import sys\n_a = sys.audit\nsys.audit = lambda e, *a: _a(e, *a)", "sys.audit was changed"),
        (
            "import builtins\n_i = builtins.__import__\nbuiltins.__import__ = lambda *a, **k: _i(*a, **k)",
            "builtins.__import__",
        ),
        ("get_ipython().events.callbacks['post_run_cell'].append(lambda r: None)", "post_run_cell event"),
        ("get_ipython().ast_transformers.append(object())", "ast_transformers"),
    ],
    ids=["sys.audit", "__import__", "post_run_cell", "ast_transformer"],
)
def test_sys_builtins_dunders_and_ipython_hooks_are_fingerprinted(workspace, attack, expected):
    nb = Notebook(workspace)
    nb.run(RIGHT, attack, nb.check())
    status, why = nb.verdict()
    assert status == "tampered" and any(expected in w for w in why), why


def test_replacing_the_checks_result_in_the_namespace_afterwards_is_tampering(notebook):
    """The audit's mo and kai swapped the CheckResult a check cell left behind; that is an attempt."""
    swap = "from toolkit.checks import CheckResult\nget_ipython().user_ns['_grade_0'] = CheckResult('x', 9, 9, [])"
    notebook.run(STUB, notebook.check(), swap, notebook.check(1, "ex02.check(valid_but_wrong)"))
    assert notebook.verdict(0) == ("tampered", ["the check's result was replaced in the notebook's namespace"])
    assert notebook.verdict(1)[0] == "not done"


# ---- 6. frames -----------------------------------------------------------------------------------


FRAME_ATTACKS = {
    # the audit's jon: through a standard-library function that hands frames back
    "walk_stack": "import traceback\nfor f, _ in traceback.walk_stack(None):\n    f.f_locals",
    # the audit's quinn: code compiled under a toolkit file name is still the notebook's
    "fake_file": (
        "import sys, toolkit, os\n"
        "where = os.path.join(os.path.dirname(toolkit.__file__), 'checks', '__init__.py')\n"
        "space = {}\n"
        "exec(compile('import sys\\ndef peek():\\n    return sys._getframe(2).f_locals', where, 'exec'), space)\n"
        "space['peek']()"
    ),
    "own_frame": "import inspect\ninspect.currentframe().f_back.f_code.co_name",
    # the audit's jon, all the way: every item of the check passes
    "set_expect": (
        "import sys\nf = sys._getframe(1)\n"
        "while f is not None and type(f.f_locals.get('c')).__name__ != 'Checker':\n    f = f.f_back\n"
        "c = f.f_locals['c']\nreal = type(c).expect\nc.expect = lambda ok, label, hint='': real(c, True, label, hint)"
    ),
}


@pytest.mark.parametrize("attack", sorted(FRAME_ATTACKS))
def test_reading_frames_while_a_check_runs_taints_that_check(workspace, attack):
    """Python 3.11 raises no event for f_back or f_locals, so any frame the answer's code takes while
    the check runs could reach the check's locals: tampering for that check (even a debug helper
    looking at its caller, the audit's xeno; README). The next check is graded normally."""
    body = textwrap.indent(FRAME_ATTACKS[attack], "    ")
    answer = f"def valid_but_wrong():\n{body}\n    return dict(city='Oslo', unit='celsius')\n"
    nb = Notebook(workspace)
    nb.run(answer, nb.check(), RIGHT, nb.check(1))
    status, why = nb.verdict(0)
    assert status == "tampered" and "read the call stack" in why[0], why
    if attack == "set_expect" and len(why) > 1:  # it reached the Checker (student code in the check's thread)
        assert "the check's Checker was given attributes of its own (expect) while it ran" in why
    assert nb.verdict(1) == ("graded 3/3", [])


def test_frames_read_outside_a_check_or_by_a_library_for_itself_are_not_tampering(notebook):
    """A helper that looks at its own frame in its own cell; namedtuple and logging (which read
    frames for themselves) inside the answer while the check runs."""
    helper = "import inspect\nprint(inspect.currentframe().f_code.co_name)"
    answer = (
        "import collections, logging\n"
        "def valid_but_wrong():\n"
        "    collections.namedtuple('Point', 'x y')\n"
        "    logging.getLogger('student').warning('looking')\n"
        "    return dict(city='Oslo', unit='celsius')\n"
    )
    notebook.run(helper, answer, notebook.check())
    assert notebook.verdict() == ("graded 3/3", [])


def test_heap_walks_ctypes_tracing_and_the_guards_frames_are_refused(notebook):
    cells = [
        "import gc\ngc.get_objects()",
        "import ctypes\nctypes.CDLL(None)",
        "import sys\nsys.settrace(lambda *a: None)",
        "import sys\nsys._current_frames()",
        "import sys\nsys.addaudithook(lambda *a: print('STUDENT HOOK'))\nopen('x', 'w')",
        (
            "try:\n    open('/etc/passwd', 'a')\nexcept PermissionError as e:\n    tb = e.__traceback__\n"
            "while tb.tb_next:\n    tb = tb.tb_next\ntb.tb_frame"
        ),
        (  # C code no audit hook sees: an extension module written into the sandbox
            "import sys, shutil, importlib.util\n"
            "m = next(m for m in list(sys.modules.values()) if getattr(m, '__file__', '').endswith('.so'))\n"
            "so = shutil.copy(m.__file__, '.')\n"
            "importlib.util.module_from_spec(importlib.util.spec_from_file_location(m.__name__, so))"
        ),
        (  # a debugger keeps the frames it is handed, for its caller
            "import bdb\ntry:\n    open('/etc/passwd', 'a')\nexcept PermissionError as e:\n"
            "    bdb.Bdb().get_stack(None, e.__traceback__)"
        ),
    ]
    out = notebook.run(*cells, STUB, notebook.check())
    assert out.count("CELL FAILED: PermissionError") == 7 and "STUDENT HOOK" not in out, out
    alerts = " | ".join(notebook.alerts())
    kinds = ("gc.get_objects", "ctypes", "sys.settrace", "sys._current_frames", "audit hook", "guard's own frames")
    for what in (*kinds, "compiled extension"):
        assert what in alerts, alerts
    assert notebook.verdict()[0] == "tampered"


def test_the_toolkit_itself_may_use_ctypes_and_read_frames(notebook):
    """A check stops a student's runaway thread with ctypes and names the function that was running:
    the toolkit's own code is not the student's."""
    answer = (
        "import threading, time\n"
        "def valid_but_wrong():\n"
        "    threading.Thread(target=lambda: [time.sleep(0.01) for _ in range(300)], daemon=True).start()\n"
        "    return dict(city='Oslo', unit='celsius')\n"
    )
    notebook.run(answer, notebook.check())
    assert notebook.verdict() == ("graded 3/3", [])


# ---- 7. the sandbox ------------------------------------------------------------------------------


def test_writes_outside_are_refused_however_the_path_is_given(notebook, canary):
    """dir_fd, hard links (both ends), renames, symbolic links out, relative '..', sqlite (whose
    ATTACH writes a file no audit event reports)."""
    c = str(canary)
    cells = [
        f"import os\nd = os.open({c!r}, os.O_RDONLY)",
        "import os\nd = os.open('.', os.O_RDONLY)\nos.remove('../../../../../../' + 'x', dir_fd=d)",
        f"import os\nos.link({c + '/c1.txt'!r}, 'link')",
        f"import os\nos.rename({c + '/c2.txt'!r}, 'stolen')",
        f"import os\nos.symlink({c!r}, 'out')",
        "import os\nos.open('../../x', os.O_WRONLY | os.O_CREAT)",
        f"import sqlite3\nsqlite3.connect({c + '/new.db'!r})",
        f"import sqlite3\nsqlite3.connect(':memory:').execute(\"ATTACH DATABASE '{c}/attached.db' AS x\")",
        f"import pathlib\npathlib.Path({c + '/c3.txt'!r}).write_text('overwritten')",
        f"open({c + '/c4.txt'!r}, 'w')",
    ]
    own = (  # the notebook's own folder is its to use
        "import os, shutil\nopen('a.txt', 'w').write('fine')\nos.rename('a.txt', 'b.txt')\nos.mkdir('d')\n"
        "shutil.copy('b.txt', 'd/c.txt')\nos.remove('b.txt')\nshutil.rmtree('d')\nopen('inside.txt', 'w').write('fine')"
    )
    out = notebook.run(*cells, own)
    assert out.count("CELL FAILED: PermissionError") == len(cells) and out.count("CELL FAILED") == len(cells), out
    assert _intact(canary)
    assert sorted(p.name for p in notebook.folders.work.iterdir()) == ["inside.txt"]


def test_the_toolkit_and_data_are_protected_and_an_attempt_is_tampering(notebook):
    out = notebook.run(
        "import shutil, toolkit, os\nshutil.rmtree(os.path.dirname(toolkit.__file__) + '/figures')",
        "from toolkit.data import data_dir\nopen(data_dir() / 'weather.json', 'a')",
        RIGHT,
        notebook.check(),
    )
    assert out.count("CELL FAILED: PermissionError") == 2
    status, why = notebook.verdict()
    assert status == "tampered" and "on the course's own files" in why[0]
    assert (ROOT / "toolkit" / "figures").is_dir()


def test_the_teachers_notebooks_other_folders_and_process_memory_cannot_be_read(workspace, tmp_path):
    submissions = tmp_path / "submitted"
    submissions.mkdir()
    (submissions / "other.ipynb").write_text("{}")
    nb = Notebook(workspace, hidden=[ROOT / "notebooks", submissions])
    cells = [
        f"open({str(ROOT / 'notebooks' / '10_reliability_pass_k.ipynb')!r}).read()",
        f"open({str(submissions / 'other.ipynb')!r}).read()",
        f"import os\nos.listdir({str(workspace.root)!r})",
        "open('/proc/self/mem', 'rb')",
        "import os\nos.open('mem', os.O_RDWR, dir_fd=os.open('/proc/self', os.O_RDONLY))",
        "open('/proc/self/environ', 'rb').read()",
    ]
    out = nb.run(*cells, "print('own files:', __import__('os').listdir('.'))")
    assert out.count("CELL FAILED: PermissionError") == len(cells), out
    assert "own files: []" in out


def test_the_network_is_refused_for_every_kind_of_send(notebook):
    cells = [
        "import socket\nsocket.create_connection(('1.1.1.1', 53), timeout=2)",
        "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b'x', ('8.8.8.8', 53))",
        "import socket\nsocket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendmsg([b'x'], [], 0, ('8.8.8.8', 53))",
        "import socket\nsocket.getaddrinfo('127.evil.example', 80)",
        "import socket\nsocket.socket().bind(('0.0.0.0', 0))",
    ]
    out = notebook.run(*cells, "import socket\ns = socket.socket()\ns.bind(('127.0.0.1', 0))\nprint('loopback ok')")
    assert out.count("CELL FAILED: PermissionError") == len(cells) and "loopback ok" in out, out


def test_a_python_child_carries_the_guard_or_is_refused(notebook, canary):
    """-I, -E, -S and other programs are refused; env={} gets the guard's settings; the guard's
    folder cannot be rewritten (the audit's cleo and mallory)."""
    escape = f"open({str(canary / 'c1.txt')!r}, 'w').write('escaped')"
    cells = [
        f"import subprocess, sys\nsubprocess.run([sys.executable, '-I', '-c', {escape!r}])",
        f"import subprocess, sys\nsubprocess.run([sys.executable, '-Sc', {escape!r}])",
        "import subprocess\nsubprocess.run(['ls'])",
        "import os\nos.system('true')",
        "import os, sys\nopen(os.environ['PYTHONPATH'].split(os.pathsep)[0] + '/sitecustomize.py', 'w')",
        "import os\nos.environ['PYTHONPATH'] = '/tmp'",
    ]
    child = (
        "import os, subprocess, sys\n"
        f"print('child:', subprocess.run([sys.executable, '-c', {escape!r}], env={{}}).returncode)\n"
        f"print('child:', subprocess.run([sys.executable, '-c', {escape!r}], env=os.environ).returncode)"
    )
    out = notebook.run(*cells, child)
    assert out.count("CELL FAILED: PermissionError") == len(cells), out
    assert out.count("child: 1") == 2 and "PermissionError" in out.split("child:")[0][-3000:]
    assert _intact(canary)


def test_signals_and_chattr_outside_the_notebook_are_refused(notebook):
    bystander = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        cells = [
            f"import os, signal\nos.kill({bystander.pid}, signal.SIGKILL)",
            "import os, signal\nos.kill(-1, signal.SIGKILL)",
            (
                "import fcntl, struct\nf = open('keep.txt', 'w')\n"
                "fcntl.ioctl(f.fileno(), 0x40086602, struct.pack('l', 0x10))"
            ),
        ]
        out = notebook.run(*cells, "import os, signal\nos.kill(os.getpid(), 0)\nprint('own ok')")
        assert out.count("CELL FAILED: PermissionError") == len(cells) and "own ok" in out, out
        assert bystander.poll() is None
    finally:
        bystander.kill()
        bystander.wait()


# ---- 1-2. what the grader does around a notebook: processes and folders ---------------------------


def test_every_process_of_a_notebook_is_killed_whatever_session_it_started(workspace):
    """A guarded grandchild in a new session keeps writing in the sandbox; closing the notebook kills it."""
    nb = Notebook(workspace)
    writer = "import os, time\nwhile True:\n    open(f'f{time.time()}', 'w').close()\n    time.sleep(0.01)"
    spawn = (
        "import subprocess, sys\n"
        f"p = subprocess.Popen([sys.executable, '-c', {writer!r}], start_new_session=True,\n"
        "                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)\n"
        "print('pid', p.pid)"
    )
    marker = f"TOOLKIT_GRADE_SANDBOX={nb.env['TOOLKIT_GRADE_SANDBOX']}".encode()
    try:
        out = nb.run(spawn)
        pid = int(out.split("pid ")[1].split()[0])
        assert _running(pid)
    finally:
        killed = kill_sandbox_processes(marker)
    assert killed >= 1 and not _running(pid)
    assert remove_tree(nb.folders.root, warn=pytest.fail)


def _running(pid: int) -> bool:
    """Alive and not a zombie (one reparented to init is reaped by it a moment later)."""
    for _ in range(100):
        try:
            state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (OSError, IndexError):
            return False
        if state != "Z":
            return True
        time.sleep(0.05)
    return False


def test_removing_a_folder_never_raises_and_clears_the_immutable_flag(tmp_path):
    import fcntl
    import struct

    folder = tmp_path / "scratch"
    (folder / "deep").mkdir(parents=True)
    locked = folder / "deep" / "keep.txt"
    locked.write_text("x")
    with open(locked) as fh:
        try:
            fcntl.ioctl(fh.fileno(), 0x40086602, struct.pack("l", 0x10))  # chattr +i
        except OSError:
            pytest.skip("this file system or user cannot set the immutable flag")
    warnings: list[str] = []
    assert remove_tree(folder, warn=warnings.append) and not folder.exists() and not warnings
    assert remove_tree(tmp_path / "never-there", warn=warnings.append) and not warnings


def test_a_folder_that_cannot_be_removed_is_named_not_raised(tmp_path, monkeypatch):
    folder = tmp_path / "stays"
    folder.mkdir()
    monkeypatch.setattr("shutil.rmtree", lambda *a, **k: (_ for _ in ()).throw(PermissionError("busy")))
    monkeypatch.setattr("time.sleep", lambda s: None)
    warnings: list[str] = []
    assert remove_tree(folder, warn=warnings.append) is False
    assert warnings and str(folder) in warnings[0]


def test_the_guard_module_runs_on_the_standard_library_alone():
    """It is copied beside the sandbox as sitecustomize: it cannot import the toolkit."""
    for name in ("grade_guard.py", "grade_integrity.py"):
        text = (ROOT / "toolkit" / "course" / name).read_text()
        assert "import toolkit" not in text and "from toolkit" not in text
