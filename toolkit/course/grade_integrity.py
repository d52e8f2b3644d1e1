"""What a grading verdict depends on, watched from inside the kernel (README "Grading submitted notebooks").

The grading guard (toolkit/course/grade_guard.py) installs this module together with itself,
as ``sitecustomize``, in every Python process a graded notebook starts. It holds the guard's
part that decides verdicts; grade_guard.py holds the sandbox (files, network, programs).

* **Fingerprints.** At the grader's first cell, before any of the student's, the guard records
  every toolkit module's globals (constants of any type, private tables, functions with their
  code, defaults and closures, classes with their dicts, data in depth), the built-ins (dunder
  names too), the parts of ``sys`` a check relies on, the functions and classes of the standard
  modules the toolkit imports, ``TOOLKIT_DATA`` and IPython's hooks (input and AST
  transformers, event callbacks, the shell's and the kernel's methods). It compares them when
  a check starts, each time the check gets control back from the student's code
  (``Checker.call``), and when the check ends; the cache of data files is emptied at each of
  those moments, so a check reads the files. A changed constant or table of a check module
  (``ex10.TOLERANCE``) taints that exercise; any other change (code anywhere in the toolkit, the
  shared modules, built-ins, ``sys``, IPython) taints every check that starts while it lasts.
* **Verdicts.** The course's check cell runs wrapped in two audit events (:func:`check_cell`).
  The first carries an HMAC of the cell, made with a key that only the grader and this guard
  hold (it comes down a pipe when the kernel starts, never through the environment or a
  cell), and the guard compiles the expected cell itself and compares it with the code that
  raised the event, so a rewritten cell is seen. A :class:`~toolkit.checks.CheckResult` counts
  only when ``Checker`` announced it (``toolkit.checks.result``) with nothing but the toolkit's
  own code objects between it and that cell, from a Checker with no attribute of its own. The
  guard sends the verdict to the grader on a pipe only the grader reads, each line signed with
  the key; nothing is read back from the student's namespace.
* **Frames.** While a check runs, a frame read (``sys._getframe``, a traceback's ``tb_frame``, a
  generator's ``gi_frame``) made by the student's code, directly or through a standard-library
  function that hands frames back (``inspect.currentframe``, ``traceback.walk_stack``), taints
  that check: Python 3.11 raises no audit event for ``f_back`` or ``f_locals``, so a frame in
  the student's hands reaches the check's locals. Outside a check, frames are the student's own
  business. A code object is the toolkit's only if it is one of the toolkit's own (by identity),
  and library code only if it equals what its file compiles to, so a file name proves nothing.
  Heap walks (``gc``), ``ctypes``, tracing and reading other threads' frames by the student's
  code are refused and taint every later check.

Standard library only. Used by: toolkit/course/grade_guard.py.
"""

from __future__ import annotations

import _thread
import builtins as _builtins_module
import os as _os
import sys
import types

# The guard's own bindings of the built-ins: a student's ``builtins.len = ...`` never reaches it.
from builtins import (  # noqa: UP029 (on purpose: see the comment above)
    OSError,
    SyntaxError,
    TypeError,
    ValueError,
    all,
    any,
    bool,
    bytes,
    callable,
    classmethod,
    compile,
    complex,
    dict,
    float,
    frozenset,
    getattr,
    id,
    int,
    issubclass,
    len,
    list,
    open,
    property,
    range,
    set,
    sorted,
    staticmethod,
    str,
    tuple,
    type,
    zip,
)
from collections.abc import Callable, Iterable
from hashlib import sha256 as _sha256
from typing import Any

try:
    from _json import encode_basestring_ascii as _quote
except ImportError:  # a Python without the C accelerator
    from json.encoder import py_encode_basestring_ascii as _quote

__all__ = ["Integrity", "Trust", "check_cell", "sign", "KEY_BYTES"]

KEY_BYTES = 32
_getframe = sys._getframe
_allocate_lock = _thread.allocate_lock
_gettrace, _getprofile = sys.gettrace, sys.getprofile
_FUNCTION, _CODE, _MODULE = types.FunctionType, types.CodeType, types.ModuleType
_METHOD, _BUILTIN, _FRAME = types.MethodType, types.BuiltinFunctionType, types.FrameType
_SLOTS = (types.GetSetDescriptorType, types.MemberDescriptorType)  # C descriptors: reading runs no Python
_as_str = str.__str__  # an exact copy of a str subclass, without calling its methods
_type_name = type.__dict__["__qualname__"].__get__
_type_dict = type.__dict__["__dict__"].__get__
_type_bases = type.__dict__["__bases__"].__get__
_type_mro = type.__dict__["__mro__"].__get__
_XOR_IN = bytes([i ^ 0x36 for i in range(256)])
_XOR_OUT = bytes([i ^ 0x5C for i in range(256)])
# Standard-library functions that hand frames back to their caller.
FRAME_GIVERS = {
    ("inspect.py", "currentframe"),
    ("inspect.py", "stack"),
    ("inspect.py", "trace"),
    ("inspect.py", "getouterframes"),
    ("inspect.py", "getinnerframes"),
    ("traceback.py", "walk_stack"),
    ("traceback.py", "walk_tb"),
    ("base_tasks.py", "_task_get_stack"),
}
FRAME_KEEPERS = ("bdb.py", "pdb.py")  # debuggers keep the frames they are given, for their caller
FRAME_ATTRS = frozenset({"tb_frame", "gi_frame", "cr_frame", "ag_frame"})
# modules through which the student's code asks for a program itself
PROCESS_MODULES = ("subprocess", "os", "pty", "asyncio", "multiprocessing")
# sys attributes a check's verdict or this guard relies on
WATCHED_SYS = (
    "audit",
    "addaudithook",
    "_getframe",
    "_current_frames",
    "settrace",
    "setprofile",
    "gettrace",
    "getprofile",
    "exc_info",
    "modules",
)
# sys lists a finder or path hook may be added to: an installed library's is fine, the notebook's is not
WATCHED_SYS_LISTS = ("meta_path", "path_hooks")
# standard modules watched whatever the toolkit imports
WATCHED_STDLIB = ("copy", "json", "math", "random", "re", "signal", "threading", "time", "functools", "os", "io")
# built-ins the kernel itself rebinds around each cell (ipykernel's input) or adds (IPython)
SHELL_BUILTINS = frozenset(
    {"input", "exit", "quit", "help", "copyright", "credits", "license", "get_ipython", "display"}
)
PLAIN = (type(None), bool, int, float, complex, str, bytes)
DATA = (list, dict, tuple, set, frozenset)
_PLAIN_CONSTS = (*PLAIN, type(...))


# ---- the key, the records, the check cell: shared by the grader and the guard ------------------


def sign(key: bytes, message: bytes) -> str:
    """HMAC-SHA256 of ``message`` in hex, written out so the guard uses no module a student could patch.

    Used by: toolkit/course/grade_kernel.py.
    """
    key = key + bytes(64 - len(key))
    inner = _sha256(key.translate(_XOR_IN) + message).digest()
    return _sha256(key.translate(_XOR_OUT) + inner).hexdigest()


def check_cell(index: int, source: str, mac: str) -> str:
    """The cell that runs check number ``index`` (the course's ``source``, one statement per line, as
    ``ast.unparse`` writes it) between the guard's two events; ``mac`` is ``sign(key, f"{index}\\n{source}")``.

    Used by: toolkit/course/grade.py.
    """
    body = "\n".join(["        " + line for line in source.splitlines()]) or "        pass"
    return (
        f'if __import__("sys").audit("toolkit.grade.begin", {index}, {source!r}, {mac!r}) is None:\n'
        "    try:\n"
        f"{body}\n"
        "    finally:\n"
        f'        __import__("sys").audit("toolkit.grade.end", {index})\n'
    )


def dump(value: Any) -> str:
    """JSON text of plain data (None, bool, int, float, str, lists, dicts with str keys) without
    the json module, whose classes a student could patch."""
    kind = type(value)
    if value is None or value is True or value is False:
        return "null" if value is None else ("true" if value else "false")
    if kind is int:
        return int.__repr__(value)
    if kind is float:
        return float.__repr__(value)
    if kind is str:
        return _quote(value)
    if kind is list or kind is tuple:
        return "[" + ",".join([dump(v) for v in value]) + "]"
    if kind is dict:
        return "{" + ",".join([_quote(_text(k)) + ":" + dump(v) for k, v in dict.items(value)]) + "}"
    return _quote("?")


# ---- reading objects without calling the student's code ----------------------------------------


def _text(value: Any) -> str:
    """``value`` as an exact str if it is a str (or a subclass), else '?'."""
    try:
        return _as_str(value)
    except TypeError:
        return "?"


def _items(mapping: Any) -> list[tuple[str, Any]]:
    """The str-keyed items of a dict (exact ``dict`` only; anything else has none)."""
    if type(mapping) is not dict:
        return []
    return [(k, v) for k, v in dict.items(mapping) if type(k) is str]


def _get(mapping: Any, key: str, default: Any = None) -> Any:
    """``mapping[key]`` for an exact dict, by scanning its items (a lookup could call a crafted key's ``__eq__``)."""
    for k, v in _items(mapping):
        if k == key:
            return v
    return default


def _is_class(obj: Any) -> bool:
    """``isinstance(obj, type)`` without asking ``obj`` for its ``__class__`` (which could run its code)."""
    return issubclass(type(obj), type)


def _vars(obj: Any) -> dict:
    """An object's own ``__dict__`` (a type's as a plain dict), or {} when it has none or hides it
    behind a descriptor of its own (reading that would run the object's code)."""
    if _is_class(obj):
        return dict(_type_dict(obj))
    for klass in _type_mro(type(obj)):
        slot = _get(dict(_type_dict(klass)), "__dict__", _vars)
        if slot is _vars:
            continue
        found = slot.__get__(obj, type(obj)) if type(slot) in _SLOTS else None
        return found if type(found) is dict else {}
    return {}


def _module_name(obj: Any) -> str:
    """The module an object says it comes from, read without calling its code."""
    if _is_class(obj):
        return _text(_get(_vars(obj), "__module__", ""))
    if type(obj) is _FUNCTION or type(obj) is _BUILTIN:
        return _text(obj.__module__) if obj.__module__ is not None else ""
    return ""


def plain(value: Any, depth: int = 0) -> Any:
    """A JSON-able copy of plain data; any other object is named by its type (never its repr or ``__eq__``)."""
    kind = type(value)
    if kind in PLAIN:
        return (
            value if kind is not bytes and kind is not complex else [kind.__name__, len(value) if kind is bytes else 0]
        )
    if depth > 12:
        return "…"
    if kind is list or kind is tuple:
        return [kind.__name__, [plain(v, depth + 1) for v in value]]
    if kind is dict:
        pairs = [[plain(k, depth + 1), plain(v, depth + 1)] for k, v in dict.items(value)]
        return ["dict", sorted(pairs, key=dump)]
    if kind is set or kind is frozenset:
        return [kind.__name__, sorted([plain(v, depth + 1) for v in value], key=dump)]
    return ["object", _module_name(kind), _text(_type_name(kind))]


def digest(value: Any) -> str:
    return _sha256(dump(plain(value)).encode("utf-8", "surrogatepass")).hexdigest()


def _is_code(obj: Any) -> bool:
    """A function, class, module or method: what counts as the toolkit's code rather than its data."""
    return _is_class(obj) or type(obj) in (_FUNCTION, _MODULE, _METHOD, _BUILTIN, staticmethod, classmethod)


# ---- code objects: whose they are -----------------------------------------------------------


def nested_codes(code: Any, into: set) -> None:
    """Add ``code`` and every code object inside it (nested functions, lambdas, comprehensions) to ``into``."""
    if type(code) is not _CODE or code in into:
        return
    into.add(code)
    for const in code.co_consts:
        nested_codes(const, into)


def _function_of(obj: Any) -> Any:
    """The function behind a method, static or class method, or cache wrapper; else None."""
    if type(obj) is _FUNCTION:
        return obj
    if type(obj) in (staticmethod, classmethod, _METHOD):
        inner = obj.__func__
        return inner if type(inner) is _FUNCTION else None
    wrapped = _get(_vars(obj), "__wrapped__") if not _is_class(obj) and type(obj) is not _MODULE else None
    return wrapped if type(wrapped) is _FUNCTION else None


def codes_of_module(module: Any, into: set) -> None:
    """Every code object of a module's functions and of its classes' methods and properties."""
    name = _text(_get(_vars(module), "__name__", ""))
    for _, value in _items(_vars(module)):
        members = [value]
        if _is_class(value) and _module_name(value) == name:
            members += [v for _, v in _items(_vars(value))]
        for member in members:
            parts = [member.fget, member.fset, member.fdel] if type(member) is property else [member]
            for part in parts:
                function = _function_of(part)
                while function is not None:  # and the function a decorator wraps (contextlib, functools)
                    nested_codes(function.__code__, into)
                    wrapped = _get(_vars(function), "__wrapped__")
                    function = wrapped if type(wrapped) is _FUNCTION and wrapped is not function else None


def same_code(a: Any, b: Any) -> bool:
    """Whether two code objects do the same thing (bytecode, names, constants, exception table),
    compared without calling anything a crafted constant could override."""
    if type(a) is not _CODE or type(b) is not _CODE:
        return False
    fields = ("co_code", "co_names", "co_varnames", "co_freevars", "co_cellvars", "co_argcount", "co_kwonlyargcount")
    for name in (*fields, "co_exceptiontable"):
        if not _same_const(getattr(a, name, b""), getattr(b, name, b"")):
            return False
    return _same_const(a.co_consts, b.co_consts)


def _same_const(a: Any, b: Any) -> bool:
    if type(a) is not type(b):
        return False
    if type(a) is _CODE:
        return same_code(a, b)
    if type(a) is tuple or type(a) is frozenset:
        if len(a) != len(b):
            return False
        if type(a) is frozenset:
            a, b = sorted([plain(x) for x in a], key=dump), sorted([plain(x) for x in b], key=dump)
            return dump(a) == dump(b)
        return all([_same_const(x, y) for x, y in zip(a, b)])
    if type(a) in _PLAIN_CONSTS:
        return a == b if type(a) is not float else float.__repr__(a) == float.__repr__(b)
    return False


def _code_label(code: Any) -> str:
    name = _text(getattr(code, "co_qualname", code.co_name))
    return f"`{name}`" if not name.startswith("<") else "a notebook cell"


class Trust:
    """Whose code a frame runs: the grader's check cell, the toolkit's, the guard's, a library's
    (the standard library or an installed package, checked against its file) or the student's.

    Used by: toolkit/course/grade_guard.py.
    """

    def __init__(self, library_dirs: Iterable[str], guard_codes: frozenset, resolve: Callable[[str], str]):
        self.library_dirs = tuple(library_dirs)
        self.guard_codes = guard_codes
        self.resolve = resolve
        self.toolkit_codes: frozenset = frozenset()
        self.frozen_codes: frozenset = frozenset()
        self._library: dict[int, tuple[Any, bool]] = {}
        self._compiled: dict[str, dict[tuple, list]] = {}
        self.take_frozen()

    def take_frozen(self) -> None:
        """The code of the frozen modules (``<frozen importlib._bootstrap>`` …) loaded so far."""
        found: set = set(self.frozen_codes)
        for _, module in _items(sys.modules):
            spec = _get(_vars(module), "__spec__")
            if spec is not None and _get(_vars(spec), "origin") in ("frozen", "built-in"):
                codes_of_module(module, found)
        self.frozen_codes = frozenset(found)

    def kind(self, code: Any, cell: Any = None) -> str:
        """'cell', 'toolkit', 'guard', 'library' or 'student'."""
        if cell is not None and code is cell:
            return "cell"
        if code in self.toolkit_codes:
            return "toolkit"
        if code in self.guard_codes:
            return "guard"
        return "library" if self.is_library(code) else "student"

    def is_library(self, code: Any) -> bool:
        known = self._library.get(id(code))
        if known is not None and known[0] is code:
            return known[1]
        verdict = self._check_library(code)
        self._library[id(code)] = (code, verdict)
        return verdict

    def _check_library(self, code: Any) -> bool:
        filename = code.co_filename
        if type(filename) is not str:
            return False
        if filename.startswith("<frozen "):
            return code in self.frozen_codes
        if not filename.startswith("/"):
            return False
        real = self.resolve(filename)
        if not any([real.startswith(d + "/") for d in self.library_dirs]):
            return False
        candidates = self._compiled_file(filename).get((code.co_name, code.co_firstlineno), [])
        return any([same_code(code, c) for c in candidates])

    def _compiled_file(self, filename: str) -> dict[tuple, list]:
        """Every code object the file compiles to, by (name, first line); {} if it cannot be read."""
        if filename not in self._compiled:
            found: set = set()
            try:
                with open(filename, "rb") as fh:
                    nested_codes(compile(fh.read(), filename, "exec", dont_inherit=True), found)
            except (OSError, SyntaxError, ValueError):
                pass
            table: dict[tuple, list] = {}
            for c in found:
                table.setdefault((c.co_name, c.co_firstlineno), []).append(c)
            self._compiled[filename] = table
        return self._compiled[filename]

    def frame_reader(self, frame: Any, cell: Any) -> str | None:
        """The student's function that read a frame (``frame`` is where the read happened),
        directly or through a standard-library function that hands frames back; else None."""
        entry, kind = None, ""
        while frame is not None:
            kind = self.kind(frame.f_code, cell)
            if kind != "library":
                break
            entry, frame = frame, frame.f_back
        if frame is None or kind != "student":
            return None
        if entry is not None and not self._gives_frames(entry.f_code):
            return None
        return _code_label(frame.f_code)

    def _gives_frames(self, code: Any) -> bool:
        real = self.resolve(code.co_filename) if type(code.co_filename) is str else ""
        if "/site-packages/" in real or "/dist-packages/" in real:
            return True  # an installed package: nobody vouches for what it hands back
        name = real.rsplit("/", 1)[-1]
        return name in FRAME_KEEPERS or (name, code.co_name) in FRAME_GIVERS

    def student_origin(self, frame: Any, skip: tuple[str, ...] = ()) -> str | None:
        """The student's function behind an operation: the first frame, from ``frame`` outward,
        that is not library code of the packages in ``skip`` (``ctypes`` for its own wrappers)."""
        while frame is not None and skip and self._in_packages(frame.f_code, skip) and self.is_library(frame.f_code):
            frame = frame.f_back
        if frame is None:
            return None
        return _code_label(frame.f_code) if self.kind(frame.f_code) == "student" else None

    def started_by_library(self, frame: Any) -> bool:
        """Whether a program is started by a library for itself (matplotlib's ``fc-list``) rather
        than asked for through ``subprocess`` or ``os`` by the student's code."""
        entry = None
        while frame is not None and self.kind(frame.f_code) == "library":
            entry, frame = frame, frame.f_back
        if frame is None or entry is None:
            return frame is None
        return not self._in_packages(entry.f_code, PROCESS_MODULES)

    def _in_packages(self, code: Any, packages: tuple[str, ...]) -> bool:
        filename = code.co_filename if type(code.co_filename) is str else ""
        return any([f"/{p}/" in filename or filename.endswith((f"/{p}.py", f"<frozen {p}>")) for p in packages])


# ---- fingerprints ----------------------------------------------------------------------------


class Fingerprint:
    """What a check's verdict depends on, as identities (``ids``, compared with ``is``) and digests
    of data (``digests``), each under a readable key with the module whose check it taints
    (``scopes``: None for every check)."""

    def __init__(self) -> None:
        self.ids: dict[str, Any] = {}
        self.digests: dict[str, str] = {}
        self.scopes: dict[str, str | None] = {}

    def same(self, key: str, obj: Any, scope: str | None = None) -> None:
        self.ids[key] = obj
        self.scopes[key] = scope

    def data(self, key: str, value: Any, scope: str | None = None) -> None:
        self.digests[key] = digest(value)
        self.scopes[key] = scope

    def function(self, key: str, fn: Any, deep: bool) -> None:
        """A function's code, defaults, keyword defaults, closure cells and attributes."""
        self.same(key + ".__code__", fn.__code__)
        self.same(key + ".__defaults__", fn.__defaults__)
        self.same(key + ".__kwdefaults__", fn.__kwdefaults__)
        for i, cell in enumerate(fn.__closure__ or ()):
            try:
                self.same(f"{key} (closure {i})", cell.cell_contents)
            except ValueError:  # an empty cell
                self.same(f"{key} (closure {i})", None)
        for name, value in _items(_vars(fn)):
            self.same(f"{key}.{name}", value)
        if deep:
            self.data(key + " (defaults)", [fn.__defaults__, fn.__kwdefaults__])

    def member(self, key: str, value: Any, deep: bool) -> None:
        """A class attribute: the object, and the function behind it, if any."""
        self.same(key, value)
        if type(value) is property:
            for part in ("fget", "fset", "fdel"):
                self.member(f"{key}.{part}", getattr(value, part), deep)
            return
        function = _function_of(value)
        if function is not None:
            self.function(key, function, deep)

    def cls(self, key: str, klass: Any, deep: bool, scope: str | None) -> None:
        """A class's dict (every entry, dunders too), bases and metaclass."""
        self.same(key + ".__bases__", _type_bases(klass))
        self.same(key + ".__class__", type(klass))
        for name, value in _items(_vars(klass)):
            if name not in ("__dict__", "__weakref__", "__doc__"):
                self.member(f"{key}.{name}", value, deep)
                if deep and type(value) in DATA:
                    self.data(f"{key}.{name} (contents)", value, scope)

    def toolkit_module(self, name: str, module: Any, now: Any, deep: bool, running: frozenset) -> None:
        """Every global of a toolkit module by identity; tables (lists, dicts, tuples, sets) and
        public objects' attributes in depth too; a private object (a lock, the checks' record of
        threads) is the module's running state, by identity only, and so is a private list, dict or
        set that was empty at the baseline (``running``: a lazily filled cache such as
        ``retail._SCHEMAS``, the checks' record of threads). A check module's data taints only its
        own exercise."""
        scope = name if name.startswith("toolkit.checks.ex") else None
        self.same(f"sys.modules[{name!r}]", now)
        for attr, value in _items(_vars(module)):
            if attr == "__warningregistry__":
                continue
            key = f"{name}.{attr}"
            self.same(key, value, None if _is_code(value) else scope)
            if key in running:
                continue
            if type(value) is _FUNCTION:
                self.function(key, value, deep)
            elif _is_class(value) and _module_name(value) == name:
                self.cls(key, value, deep, scope)
            elif _function_of(value) is not None:
                self.function(key, _function_of(value), deep)
            elif deep and type(value) in DATA:  # a table: compared in depth
                self.data(key + " (contents)", value, scope)
            elif deep and not _is_code(value) and type(value) not in PLAIN and not attr.startswith("_"):
                self.data(key + " (contents)", _vars(value), scope)  # a public object's attributes

    def library_module(self, name: str, module: Any, now: Any) -> None:
        """A standard module's functions and classes (its data changes in ordinary use)."""
        self.same(f"sys.modules[{name!r}]", now)
        for attr, value in _items(_vars(module)):
            if not callable(value):
                continue
            self.same(f"{name}.{attr}", value)
            if _is_class(value) and _module_name(value) == name:
                for member, item in _items(_vars(value)):
                    self.same(f"{name}.{attr}.{member}", item)

    def builtins(self) -> None:
        for attr, value in _items(_vars(_builtins_module)):
            if attr not in SHELL_BUILTINS:
                self.same(f"builtins.{attr}", value)

    def system(self) -> None:
        space = _vars(sys)
        for attr in WATCHED_SYS + WATCHED_SYS_LISTS:
            self.same(f"sys.{attr}", _get(space, attr))
        environ = _get(_vars(_os), "environ")  # toolkit.data reads TOOLKIT_DATA through it
        self.same("os.environ", environ)
        self.same("os.environ._data", _get(_vars(environ), "_data"))


def changes(
    before: Fingerprint, now: Fingerprint, modules: Iterable[str], allowed: frozenset, during: bool = False
) -> list[str]:
    """What differs between two fingerprints and taints a check of ``modules``: a check module's
    own data taints that check; anything else taints every check. A function whose code is in
    ``allowed`` (the toolkit's) may stand in for a standard module's (the checks install their own
    ``threading.excepthook``), and, ``during`` a check, for the toolkit's own (a check wraps
    ``ToolRegistry.run`` while it runs)."""
    wanted = set(modules)
    found: list[tuple[str, str | None]] = []
    stand_ins: list[str] = []
    for key, obj in before.ids.items():
        if key not in now.ids:
            found.append((f"{key} was removed", before.scopes[key]))
        elif now.ids[key] is not obj:
            value = now.ids[key]
            toolkit_code = (type(value) is _CODE and value in allowed) or (
                type(value) is _FUNCTION and value.__code__ in allowed
            )
            if toolkit_code and (during or not key.startswith("toolkit")):
                stand_ins.append(key)
            elif not any([key.startswith(k + ".") or key.startswith(k + " (") for k in stand_ins]):
                found.append((f"{key} was changed", now.scopes[key] or before.scopes[key]))
    for key, value in before.digests.items():
        if key in now.digests and now.digests[key] != value:
            found.append((f"{key.replace(' (contents)', '')} was changed in place", before.scopes[key]))
    added = [key for key in now.ids if key not in before.ids and key.startswith("toolkit") and " (" not in key]
    for key in added:  # a name added to a toolkit module or class can shadow a built-in
        if key.rsplit(".", 1)[0] not in added:
            found.append((f"{key} was added", now.scopes[key]))
    return [text for text, scope in found if scope is None or scope in wanted]


# ---- IPython's hooks ---------------------------------------------------------------------------

HOOK_LISTS = ("input_transformers_post", "ast_transformers")


def _attr(obj: Any, name: str) -> Any:
    """An attribute of an IPython object read from its dict (its own, a property's ``_name``, or its
    traitlets values), no code run."""
    space = _vars(obj)
    for key in (name, "_" + name):
        found = _get(space, key, space)
        if found is not space:
            return found
    return _get(_get(space, "_trait_values", {}), name)


def shell_hooks(shell: Any) -> dict[str, tuple]:
    """IPython's hooks that see or change a cell, and the shell's and kernel's methods: ``{what: entries}``."""
    hooks: dict[str, tuple] = {}
    for name in HOOK_LISTS:
        hooks[name] = tuple(_attr(shell, name) or ())
    manager = _attr(shell, "input_transformer_manager")
    for name in ("cleanup_transforms", "line_transforms", "token_transformers"):
        hooks["input transformers (" + name + ")"] = tuple(_attr(manager, name) or ())
    for event, callbacks in _items(_attr(_attr(shell, "events"), "callbacks")):
        hooks[f"{event} event"] = tuple(callbacks) if type(callbacks) is list else (callbacks,)
    for what in ("user_ns", "events", "compile", "input_transformer_manager", "kernel", "displayhook"):
        hooks["shell's " + what] = (_attr(shell, what),)
    for owner, label in ((shell, "shell"), (_attr(shell, "kernel"), "kernel")):
        hooks[f"{label}'s class"] = (type(owner),)
        hooks[f"{label}'s own methods"] = tuple(_shadowing(owner))
        for klass in _type_mro(type(owner)):
            hooks[f"class {_text(_type_name(klass))}"] = tuple([v for _, v in _items(_vars(klass))])
    return hooks


def _shadowing(obj: Any) -> list:
    """Instance attributes of ``obj`` that hide a method of its class."""
    methods = set()
    for klass in _type_mro(type(obj)):
        methods |= {name for name, value in _items(_vars(klass)) if callable(value)}
    return [value for name, value in _items(_vars(obj)) if name in methods]


# ---- the guard's part that decides verdicts ----------------------------------------------------


class Check:
    """The check cell that is running: its number, its code object, the check modules it names."""

    def __init__(self, index: int, source: str, code: Any, modules: list[str], entries: set) -> None:
        self.index, self.source, self.code = index, source, code
        self.modules, self.entries = modules, entries
        self.tampered: list[str] = []
        self.result: dict | None = None
        self.result_object: Any = None  # the CheckResult itself, which the cell keeps


class Integrity:
    """The guard's record of what decides verdicts, and its reports to the grader (the module's docstring).

    Used by: toolkit/course/grade_guard.py.
    """

    def __init__(
        self,
        trust: Trust,
        key: bytes | None,
        channel: int | None,
        write: Callable,
        environ: Callable,
        child_log: Callable[[str], None] | None = None,
    ):
        self.trust, self._key, self._channel, self._write, self._environ = trust, key, channel, write, environ
        self._child_log = child_log
        self._seq = 0
        self._writing = _allocate_lock()
        self.shell: Any = None
        self.baseline: Fingerprint | None = None
        self.hooks: dict[str, tuple] = {}
        self.modules: dict[str, Any] = {}
        self.stdlib: list[str] = []
        self.threading: Any = None
        self.checker_fields: frozenset = frozenset()
        self.check: Check | None = None
        self.done: set[int] = set()
        self.global_events: list[str] = []
        self.notes: list[str] = []
        self.decoys: list[tuple[int, str, Any, tuple]] = []
        self.lists: dict[str, tuple] = {}
        self.running: frozenset = frozenset()
        self.classes: frozenset = frozenset()

    # -- reports --

    def report(self, kind: str, **fields: Any) -> None:
        """One signed line to the grader's pipe (the kernel only; a child process has no key)."""
        if self._key is None or self._channel is None:
            return
        with self._writing:  # one line at a time, numbers in order, whatever thread reports
            self._seq += 1
            payload = dump({"seq": self._seq, "kind": kind, **fields}).encode("ascii")
            try:
                self._write(self._channel, payload + b" " + sign(self._key, payload).encode("ascii") + b"\n")
            except OSError:
                pass  # the pipe was closed or replaced: the grader sees the record missing

    def tamper(self, what: str) -> None:
        """Something that taints every check from now on: reported at once, and with every later check."""
        if what not in self.global_events and len(self.global_events) < 50:
            self.global_events.append(what)
            self.report("alert", tampered=[what])
            if self._child_log is not None:
                self._child_log(dump({"tampered": [what]}))

    def note(self, what: str) -> None:
        if what not in self.notes and len(self.notes) < 50:
            self.notes.append(what)
            if self._child_log is not None:
                self._child_log(dump({"notes": [what]}))

    def starting(self) -> bool:
        """The kernel before the grader's first cell: no student code has run yet (it may read its
        connection file in the grader's folder)."""
        return self._key is not None and self.baseline is None

    def check_tamper(self, what: str) -> None:
        """Something that taints the check now running (or, between checks, every later one)."""
        if self.check is None:
            self.tamper(what)
        elif what not in self.check.tampered and len(self.check.tampered) < 50:
            self.check.tampered.append(what)

    # -- the baseline --

    def take_baseline(self, shell: Any, checker_fields: Any = None) -> None:
        if self.baseline is not None:
            self.tamper("the grader's first cell ran twice (a second fingerprint was asked for)")
            return
        self.shell = shell
        fields = [_text(f) for f in checker_fields] if type(checker_fields) is list else []
        self.checker_fields = frozenset(fields)
        codes: set = set()
        for name in self._toolkit_names():
            codes_of_module(sys.modules[name], codes)
        self.trust.toolkit_codes = frozenset(codes)
        self.trust.take_frozen()
        self.threading = sys.modules.get("threading")
        self.stdlib = self._stdlib_names()
        self.modules = {name: sys.modules[name] for name in self._toolkit_names() + self.stdlib}
        self.lists = {attr: tuple(_get(_vars(sys), attr) or ()) for attr in WATCHED_SYS_LISTS}
        self.running = frozenset(
            f"{name}.{attr}"
            for name in self._toolkit_names()
            for attr, value in _items(_vars(self.modules[name]))
            if attr.startswith("_") and type(value) in (dict, list, set) and not value
        )
        self.baseline = self.fingerprint(deep=True)
        self.classes = frozenset([v for k, v in self.baseline.ids.items() if _is_class(v) and k.startswith("toolkit")])
        self.hooks = shell_hooks(shell) if shell is not None else {}
        self.report("ready")

    def _toolkit_names(self) -> list[str]:
        """The toolkit's modules (all imported by the grader's first cell), as at the baseline."""
        if self.modules:
            return [n for n in self.modules if n == "toolkit" or n.startswith("toolkit.")]
        names = [n for n, _ in _items(sys.modules) if n == "toolkit" or n.startswith("toolkit.")]
        return sorted([n for n in names if not n.startswith("toolkit.course.grade")])

    def _stdlib_names(self) -> list[str]:
        """The standard modules the toolkit imports (whole, or a function or class from them)."""
        names = set(WATCHED_STDLIB)
        for toolkit_name in self._toolkit_names():
            for _, value in _items(_vars(sys.modules[toolkit_name])):
                name = _text(_get(_vars(value), "__name__", "")) if type(value) is _MODULE else _module_name(value)
                if name and not name.startswith(("toolkit", "_")):
                    names |= {name, name.split(".")[0]}
        return sorted([n for n in names if n in sys.modules and n not in ("builtins", "sys")])

    def fingerprint(self, deep: bool) -> Fingerprint:
        print_ = Fingerprint()
        now = dict(_items(sys.modules))  # exact str keys only: lookups run no crafted key's code
        for name in self._toolkit_names():
            print_.toolkit_module(name, self.modules.get(name) or now.get(name), now.get(name), deep, self.running)
        for name in self.stdlib:
            print_.library_module(name, self.modules.get(name) or now.get(name), now.get(name))
        print_.builtins()
        print_.system()
        if deep:
            print_.data("os.environ['TOOLKIT_DATA']", self._environ("TOOLKIT_DATA"))
        return print_

    def changes(self, deep: bool, modules: Iterable[str], during: bool = False) -> list[str]:
        """What changed since the baseline and taints a check of ``modules`` (at most 20 lines);
        ``during``: while the check runs (see :func:`changes`)."""
        if self.baseline is None:
            return ["the grader's first cell did not reach the guard"]
        now = self.fingerprint(deep)
        found = changes(self.baseline, now, modules, self.trust.toolkit_codes, during) + self._list_changes()
        if deep and self.shell is not None:
            found += self._hook_changes()
        self._fresh_data()
        return found[:20]

    def _list_changes(self) -> list[str]:
        """Finders and path hooks added to ``sys`` by anything but an installed library, or removed."""
        found = []
        for attr in WATCHED_SYS_LISTS:
            before, now = self.lists.get(attr, ()), _get(_vars(sys), attr)
            entries = tuple(now) if type(now) is list else ()
            added = [e for e in entries if not any([e is b for b in before]) and not self._library_object(e)]
            removed = [b for b in before if not any([e is b for e in entries])]
            for entry in added + removed:
                found.append(f"sys.{attr} was changed ({_text(_type_name(type(entry)))})")
        return found

    def _library_object(self, obj: Any) -> bool:
        """An object whose class is an installed library's (its methods are library code)."""
        klass = obj if _is_class(obj) else type(obj)
        functions = [_function_of(v) for _, v in _items(_vars(klass))]
        codes = [f.__code__ for f in functions if f is not None]
        return bool(codes) and all([self.trust.is_library(c) for c in codes])

    def _hook_changes(self) -> list[str]:
        """IPython hooks added since the baseline (by anything but an installed library) or replaced."""
        found = []
        for what, entries in shell_hooks(self.shell).items():
            before = self.hooks.get(what, ())
            added = [e for e in entries if not any([e is b for b in before]) and not self._library_callable(e)]
            if added:
                found.append(f"IPython's {what} was changed")
        return found

    def _library_callable(self, obj: Any) -> bool:
        """A hook added by an installed library (matplotlib's inline backend), not by the notebook."""
        function = _function_of(obj)
        return function is not None and self.trust.is_library(function.__code__)

    def _fresh_data(self) -> None:
        """Empty the cache of data files, so a check reads them as they are on disk."""
        reader = _get(_vars(self.modules.get("toolkit.data")), "_read")
        clear = _get(_vars(type(reader)), "cache_clear") if reader is not None else None
        if reader is not None and self.baseline is not None and self.baseline.ids.get("toolkit.data._read") is reader:
            if clear is not None:
                clear(reader)

    # -- a check cell: begin, results, control coming back, end --

    def begin(self, index: Any, source: Any, mac: Any, caller: Any) -> None:
        if type(index) is not int or type(source) is not str or type(mac) is not str or self._key is None:
            self.tamper("a forged 'check begins' event")
            return
        if mac != sign(self._key, f"{index}\n{source}".encode()) or index in self.done or self.check is not None:
            self.tamper("a forged or repeated 'check begins' event")
            return
        expected = compile(check_cell(index, source, mac), "<grade>", "exec", dont_inherit=True)
        self.done.add(index)
        modules = sorted({"toolkit.checks." + w.split(".")[0] for w in _words(source) if _is_check_name(w)})
        check = Check(index, source, caller.f_code, modules, self._entries(source))
        self.check = check
        if not same_code(caller.f_code, expected):
            check.tampered.append("the check cell that ran is not the course's (something rewrote it)")
        self._check_state(check)
        self.report("begin", check=index)

    def _entries(self, source: str) -> set:
        """The code of the functions the check cell calls (``ex10.check``)."""
        found = set()
        for word in _words(source):
            module_name, _, attr = word.partition(".")
            module = self.modules.get("toolkit.checks." + module_name)
            function = _function_of(_get(_vars(module), attr.split(".")[0])) if module is not None and attr else None
            if function is not None:
                found.add(function.__code__)
        return found

    def _check_state(self, check: Check) -> None:
        """What a check compares when it starts and ends: fingerprints, names, tracing, decoys."""
        for text in self.changes(deep=True, modules=check.modules):
            self.check_tamper(text)
        namespace = _attr(self.shell, "user_ns") if self.shell is not None else None
        for module in check.modules:
            alias = module.rsplit(".", 1)[-1]
            if namespace is not None and _get(namespace, alias) is not self.modules.get(module):
                self.check_tamper(f"the name {alias} no longer means {module}")
        hooks = [_get(_vars(self.threading), n) for n in ("_trace_hook", "_profile_hook")]
        if _gettrace() is not None or _getprofile() is not None or any([h is not None for h in hooks]):
            self.tamper("a trace or profile function was set")
        self._check_decoys()

    def result(self, checker: Any, result: Any, caller: Any) -> None:
        check = self.check
        if check is None:
            return  # a check the student ran in a cell of their own: not a verdict
        why = self._not_genuine(checker, result, caller, check)
        if why:
            self.check_tamper(why)
            return
        fields = _vars(result)
        passed, total, status, lines = [_get(fields, k) for k in ("passed", "total", "status", "lines")]
        if type(passed) is int and type(total) is int and type(status) is str and type(lines) is list:
            check.result = {"passed": passed, "total": total, "status": _text(status)}
            check.result["lines"] = [_text(x)[:500] for x in lines[:60]]
            check.result_object = result

    def _not_genuine(self, checker: Any, result: Any, caller: Any, check: Check) -> str:
        """Why a result announced during a check is not the check's own ('' when it is)."""
        base = self.baseline.ids if self.baseline is not None else {}
        if type(checker) is not base.get("toolkit.checks.Checker"):
            return "a check result came from something that is not the course's Checker"
        if type(result) is not base.get("toolkit.checks.CheckResult"):
            return "a check result that is not the course's CheckResult"
        own = {k for k, _ in _items(_vars(checker))}
        if self.checker_fields and not own <= self.checker_fields:
            extra = ", ".join(sorted(own - self.checker_fields))
            return f"the check's Checker was given attributes of its own ({extra}) while it ran"
        frame, inner = caller, None
        while frame is not None and frame.f_code is not check.code:
            if frame.f_code not in self.trust.toolkit_codes:
                return f"a check result was made through code that is not the toolkit's ({_code_label(frame.f_code)})"
            inner, frame = frame, frame.f_back
        if frame is None or inner is None or inner.f_code not in check.entries:
            return "a check result was made outside the check the cell calls"
        return ""

    def returned(self) -> None:
        """The check's code has control back from the student's: compare the toolkit's state again."""
        if self.check is not None:
            for text in self.changes(deep=False, modules=self.check.modules, during=True):
                self.check_tamper(text)

    def end(self, index: Any, caller: Any) -> None:
        check = self.check
        if check is None or index != check.index or caller.f_code is not check.code:
            self.tamper("a forged 'check ends' event")
            return
        self._check_state(check)
        self.check = None
        self._remember_decoy(check)
        tampered = check.tampered + self.global_events
        self.report("end", check=check.index, result=check.result, tampered=tampered, notes=self.notes)

    def finish(self) -> None:
        self._check_decoys()
        self.report("finish", tampered=self.global_events, notes=self.notes)

    # -- decoys: a check's result stays in the namespace; replacing it is an attempt to forge it --

    def _remember_decoy(self, check: Check) -> None:
        """The cell keeps the check's result under a ``_grade_`` name; it must stay the result the
        check made, field for field, for the rest of the notebook."""
        name = check.source.splitlines()[-1].split(" = ", 1)[0] if check.source else ""
        namespace = _attr(self.shell, "user_ns") if self.shell is not None else None
        value = check.result_object
        if value is None or not name.startswith("_grade_"):
            return
        self.decoys.append((check.index, name, value, tuple([v for _, v in _items(_vars(value))])))
        if _get(namespace, name) is not value:
            check.tampered.append("the check's result was replaced in the notebook's namespace")

    def _check_decoys(self) -> None:
        namespace = _attr(self.shell, "user_ns") if self.shell is not None else None
        for decoy in list(self.decoys):
            index, name, value, fields = decoy
            now = _get(namespace, name, value)
            now_fields = tuple([v for _, v in _items(_vars(now))])
            if (
                now is not value
                or len(now_fields) != len(fields)
                or any([a is not b for a, b in zip(now_fields, fields)])
            ):
                self.decoys.remove(decoy)
                self.report(
                    "late", check=index, tampered=["the check's result was replaced in the notebook's namespace"]
                )

    # -- frames --

    def frame_read(self, what: str, caller: Any) -> None:
        """A frame was read while a check runs: tampering when the student's code read it."""
        if self.check is None:
            return
        reader = self.trust.frame_reader(caller, self.check.code)
        if reader is not None:
            self.check_tamper(f"{reader} read the call stack ({what}) while the check ran")


def _is_check_name(word: str) -> bool:
    head = word.split(".")[0]
    return head.startswith("ex") and head[2:].isdigit() and "." in word


def _words(source: str) -> list[str]:
    """Dotted names in a check cell (``ex10.check``), found without the ``re`` module."""
    words, current = [], ""
    for char in source + " ":
        if char.isalnum() or char in "._":
            current += char
        else:
            if current:
                words.append(current)
            current = ""
    return words
