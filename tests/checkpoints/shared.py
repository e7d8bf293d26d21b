"""What the checkpoint test modules share: one set-up build per test session (the first xdist worker
builds, the others wait), database copies, and the cells of a notebook by id."""
from __future__ import annotations

import os
import shutil
import time
from collections.abc import Callable
from pathlib import Path

import nbformat
import pytest

from workshop.embedded import connect

BUILD_WAIT_SECONDS = 900


def copy_db(source: Path, target: Path) -> Path:
    """Copy an embedded database file (and its write-ahead log, if one is left)."""
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
    ready.touch()
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
