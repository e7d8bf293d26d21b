"""What the checkpoint test modules share: one set-up build per test session (the first xdist worker
builds, the others wait), database copies, the cells of a notebook by id, a part's notebook run cell by
cell in this process (NotebookCells, notebook_namespace), the checks every TODO gets (solution passes,
stub fails in one friendly line, wrong answer fails with its reason), and the table of wrong answers.

    PART = NotebookCells("03_agent_memory.ipynb", {
        1: Todo(1, "p03-todo1", "p03-check1"),
        2: Todo(2, "p03-todo2", "p03-check2", before=("p03-todo1",)),   # cell ids, or code to run first
    })

    @pytest.fixture
    def notebook(memory_db, monkeypatch):       # the database and the environment are the part's own
        monkeypatch.setenv("WORKSHOP_EMBEDDED_DB", str(memory_db))
        with notebook_namespace(PART.solution["p03-path"], PART.solution["p03-connect"]) as run:
            yield run                           # run(*sources) -> the namespace; connections closed after

    def test_the_stub_fails(notebook, capsys):
        expect_stub_failure(lambda: PART.run_todo(notebook, 2, PART.student["p03-todo2"]), 2, capsys)
"""
from __future__ import annotations

import contextlib
import dataclasses
import functools
import os
import shutil
import sqlite3
import tempfile
import time
from collections.abc import Callable, Hashable, Iterator, Mapping
from pathlib import Path
from typing import Any

import nbformat
import oracledb
import pytest

from checkpoints.framework import CheckpointFailed
from checkpoints.framework.render import in_ipython
from workshop.config import PROJECT_ROOT
from workshop.embedded import connect

BUILD_WAIT_SECONDS = 900


def _stamp(path: Path) -> str:
    stat = path.stat()
    return f"{stat.st_size} {stat.st_mtime_ns}"


def copy_db(source: Path, target: Path) -> Path:
    """Copy an embedded database file (and its write-ahead log, if one is left). A shared build is checked
    first: a test that wrote into it (instead of into a copy) would hand every other worker a torn file."""
    ready = source.with_name("ready")
    built = ready.read_text() if ready.exists() else ""
    if built and built != _stamp(source):
        pytest.fail(f"the shared database {source} changed after it was built: a test wrote into it instead of "
                    "into its own copy (use copy_db)")
    shutil.copyfile(source, target)
    wal = source.with_name(source.name + "-wal")
    if wal.exists():
        shutil.copyfile(wal, target.with_name(target.name + "-wal"))
    return target


def shared_file(tmp_path_factory, worker_id: str, name: str, make: Callable[[Path], None]) -> Path:
    """A file made once per test session: the first xdist worker makes it, the others wait for it."""
    root = tmp_path_factory.getbasetemp()
    root = root if worker_id == "master" else root.parent
    folder = root / f"shared-{name}"
    folder.mkdir(exist_ok=True)
    target, ready, failed = folder / "workshop.db", folder / "ready", folder / "failed"
    try:
        os.close(os.open(folder / "lock", os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        deadline = time.monotonic() + BUILD_WAIT_SECONDS
        while not ready.exists():
            if failed.exists():
                pytest.fail(f"building the shared database {name} failed in another worker: {failed.read_text()}")
            if time.monotonic() > deadline:
                pytest.fail(f"timed out waiting for the shared database {name}")
            time.sleep(0.5)
        return target
    try:
        make(target)
    except BaseException as exc:
        failed.write_text(repr(exc))
        raise
    with sqlite3.connect(target) as settled:          # fold the write-ahead log in, so the stamp is final
        settled.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    settled.close()
    ready.write_text(_stamp(target))
    return target


def build_workshop_db(path: Path, from_checkout: bool = False, then: Callable[[Any], None] | None = None) -> Path:
    """Run the idempotent set-up into `path`, with the default engine and models. `from_checkout` starts from a
    consistent copy (SQLite's backup) of this checkout's workshop database when there is one, so the set-up only
    completes it; `then(conn)` runs on the same connection afterwards."""
    from workshop import config
    from workshop.db import copy_embedded_database
    from workshop.setup import build
    if from_checkout and config.embedded_db_path().exists():
        copy_embedded_database(path)
    with pytest.MonkeyPatch.context() as mp:
        for name in ("ORACLE_DSN", "EMBED_MODEL", "RERANK_MODEL"):
            mp.delenv(name, raising=False)
        conn = connect(path)
        try:
            build(conn, progress=False, log=lambda _: None)
            if then is not None:
                then(conn)
        finally:
            conn.close()
    return path


@functools.cache
def student_path(notebook: str) -> Path:
    """The student notebook `notebook` as the build makes it from solutions/, written to a temporary folder: the
    tests read notebooks/ as generated, never the file a learner's editor may have saved their answers into
    (`tests/tooling/test_notebook_sync.py` is the one test that compares that file with the build)."""
    from workshop.notebooks import build_text
    folder = Path(tempfile.mkdtemp(prefix="generated-notebooks-"))
    target = folder / notebook
    target.write_text(build_text(PROJECT_ROOT / "solutions" / notebook), encoding="utf-8")
    return target


def cells(path: Path) -> dict[str, str]:
    return {cell.id: cell.source for cell in nbformat.read(path, as_version=4).cells}


# ------------------------------------------------------------------ a part's notebook, run cell by cell

@dataclasses.dataclass(frozen=True)
class Todo:
    """One TODO as the tests drive it: its number, its cell, its checkpoint cell, and what must run before."""

    number: int
    cell: str                                   # the TODO cell's id
    check: str                                  # the checkpoint cell's id
    before: tuple[str, ...] = ()                # solution cell ids, or code, run before the TODO cell


class NotebookCells:
    """One part's solution and student cells by id (read once), and its TODOs by key (a number or a name)."""

    def __init__(self, notebook: str, todos: Mapping[Hashable, Todo]):
        self.notebook = notebook
        self.solution = cells(PROJECT_ROOT / "solutions" / notebook)
        self.student = cells(student_path(notebook))
        self.todos = dict(todos)

    def variant(self, todo: Hashable, *replacements: tuple[str, str]) -> str:
        """The solution cell of `todo` with text replaced (each old text must occur: the test breaks loudly when
        the solution changes instead of silently testing something else)."""
        return apply_edit(self.solution[self.todos[todo].cell], replacements, where=f"the solution of TODO {todo}")

    def expect_paired(self, module: str, names: Mapping[Hashable, str] | None = None) -> None:
        """In the student notebook each TODO cell and its checkpoint cell carry the TODO's number (the build wrote
        it), the checkpoint cell calls `<module>.check_<name>(` (any `<module>.check_` without `names`), and the
        stub differs from the solution."""
        student = nbformat.read(student_path(self.notebook), as_version=4)
        tagged = {cell.id: cell.metadata.get("workshop", {}).get("todo") for cell in student.cells}
        for key, todo in self.todos.items():
            assert not isinstance(key, int) or key == todo.number, (key, todo)
            assert tagged[todo.cell] == todo.number and tagged[todo.check] == todo.number, (key, todo)
            call = f"{module}.check_{names[key]}(" if names else f"{module}.check_"
            assert call in self.solution[todo.check], (key, call)
            assert self.student[todo.cell] != self.solution[todo.cell], key

    def run_todo(self, run: Callable[..., dict], todo: Hashable, source: str) -> dict:
        """Run what TODO `todo` needs first, then `source` as its cell, then its checkpoint cell; the namespace."""
        entry = self.todos[todo]
        run(*(self.solution.get(before, before) for before in entry.before))
        namespace = run(source)
        run(self.solution[entry.check])
        return namespace


@contextlib.contextmanager
def notebook_namespace(*setup: str, connections: tuple[str, ...] = ("conn",),
                       names: Mapping[str, Any] | None = None) -> Iterator[Callable[..., dict]]:
    """run(*sources) executes notebook cells in one namespace (`names` predefined) and returns it; `setup` runs
    first. After the block the `connections` the cells opened are rolled back and closed, and python-oracledb's
    fetch_lobs default (a set-up cell changes it) is restored. The caller sets the database and the folder."""
    fetch_lobs = oracledb.defaults.fetch_lobs
    namespace: dict = {"__name__": "__notebook__", **(names or {})}

    def run(*sources: str) -> dict:
        for source in sources:
            exec(compile(source, "<cell>", "exec"), namespace)  # noqa: S102 - the notebook's own cells
        return namespace

    try:
        run(*setup)
        yield run
    finally:
        for name in connections:
            conn = namespace.get(name)
            if conn is not None and conn.is_healthy():
                conn.rollback()
                conn.close()
        oracledb.defaults.fetch_lobs = fetch_lobs


# ------------------------------------------------------------------ what every TODO's checkpoint must show

def expect_passed(capsys, number: int) -> None:
    """The checkpoint printed its pass line."""
    out = capsys.readouterr().out
    assert f"✅ TODO {number}:" in out, out


def expect_stub_failure(run_stub: Callable[[], Any], number: int, capsys,
                        reason: str | None = None) -> CheckpointFailed:
    """The untouched stub fails with a friendly CheckpointFailed: "not yet" (not "the check could not run"), a
    reason (by default: the stub's NotImplementedError) and a hint, rendered as one message without a stack in
    Jupyter and nbval, and printed once outside IPython (inside it IPython renders the raise itself)."""
    with pytest.raises(CheckpointFailed) as excinfo:
        run_stub()
    failure = excinfo.value
    assert type(failure) is CheckpointFailed, failure
    expected = reason or f"not done yet: the code still raises NotImplementedError (TODO {number}:"
    assert str(failure).startswith(f"TODO {number}:") and expected in failure.reason, failure.reason
    assert failure.hint and failure.nothing_yet, failure
    shown = failure._render_traceback_()
    assert shown[0] == f"❌ {failure.label} — not yet" and not any("Traceback" in line for line in shown), shown
    assert (f"❌ TODO {number}:" in capsys.readouterr().out) is not in_ipython()
    return failure


def expect_reasoned_failure(run_wrong: Callable[[], Any], number: int, reason: str) -> CheckpointFailed:
    """A wrong answer fails with a reasoned FAIL (not a crash of the check) whose reason names the mistake."""
    with pytest.raises(CheckpointFailed) as excinfo:
        run_wrong()
    failure = excinfo.value
    assert type(failure) is CheckpointFailed, failure
    assert reason in failure.reason, failure.reason
    assert failure.hint and str(failure).startswith(f"TODO {number}:"), failure
    return failure


# ------------------------------------------------------------------ the per-part table of wrong answers

#: The four kinds of wrong answer every checkpoint must catch (docs/authoring-notebooks.md, "Wrong answers").
KINDS = {
    "clause": "a clause the TODO asks for left out or changed",
    "method": "the right result by the wrong method (Python filtering/slicing, formatted SQL, MAX(id))",
    "probe": "a case the probe rows never exercised before (None metadata, ties, operators, same names)",
    "next-cell": "a result that passes a lax check and breaks the next cell",
    "other": "another plausible mistake",
}


@dataclasses.dataclass(frozen=True)
class Wrong:
    """One plausible wrong answer to one TODO: how to make it from the solution, and what the failure must say.

    `edit` is a tuple of (old, new) text replacements applied to the TODO's solution cell; tests that build the
    wrong state another way (SQL run before the check) put the statements in `sql` instead.
    """

    todo: str                                   # the TODO's name
    kind: str                                   # a key of KINDS
    id: str                                     # short, unique in the table: the pytest id
    reason: str                                 # a substring the failure's reason must contain
    edit: tuple[tuple[str, str], ...] = ()
    sql: tuple[str, ...] = ()

    def __post_init__(self):
        if self.kind not in KINDS:
            raise ValueError(f"{self.id}: unknown kind {self.kind!r}; one of {sorted(KINDS)}")


def wrong_params(table: list[Wrong], todo: str) -> list:
    """pytest params of the table's wrong answers to one TODO (ids: '<kind>-<id>')."""
    return [pytest.param(w, id=f"{w.kind}-{w.id}") for w in table if w.todo == todo]


def kinds_covered(table: list[Wrong]) -> dict[str, set[str]]:
    covered: dict[str, set[str]] = {}
    for wrong in table:
        covered.setdefault(wrong.todo, set()).add(wrong.kind)
    return covered


def apply_edit(source: str, edit: tuple[tuple[str, str], ...], where: str = "the cell") -> str:
    """`source` with each (old, new) replacement made; every old text must occur in it."""
    for old, new in edit:
        assert old in source, f"{old!r} is not in {where}"
        source = source.replace(old, new)
    return source
