"""What the checkpoint test modules share: one set-up build per test session (the first xdist worker
builds, the others wait), database copies, and the cells of a notebook by id."""
from __future__ import annotations

import dataclasses
import os
import shutil
import sqlite3
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from workshop.embedded import connect

BUILD_WAIT_SECONDS = 900


def _stamp(path: Path) -> str:
    stat = path.stat()
    return f"{stat.st_size} {stat.st_mtime_ns}"


def copy_db(source: Path, target: Path) -> Path:
    """Copy an embedded database file (and its write-ahead log, if one is left). A shared build is checked
    first: a test that wrote into it (instead of into a copy) would hand every other worker a torn file."""
    ready = source.with_name("ready")
    if ready.exists() and ready.read_text() and ready.read_text() != _stamp(source):
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


def build_workshop_db(path: Path) -> None:
    from workshop.setup import build
    with pytest.MonkeyPatch.context() as mp:
        for name in ("ORACLE_DSN", "EMBED_MODEL", "RERANK_MODEL"):
            mp.delenv(name, raising=False)
        conn = connect(path)
        try:
            build(conn, progress=False, log=lambda _: None)
        finally:
            conn.close()


def cells(path: Path) -> dict[str, str]:
    return {cell.id: cell.source for cell in nbformat.read(path, as_version=4).cells}


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


def apply_edit(source: str, edit: tuple[tuple[str, str], ...]) -> str:
    for old, new in edit:
        assert old in source, f"mutation target {old!r} not in the cell"
        source = source.replace(old, new)
    return source
