"""The last outcome of every checkpoint run in a notebook, so that `checkpoints.progress` can report
TODOs whose check needs the learner's in-notebook objects (a function, a store) it cannot rebuild.

Where: one small JSON file, `$WORKSHOP_STATE_DIR/progress.json` (override with
WORKSHOP_PROGRESS_FILE; WORKSHOP_PROGRESS_FILE=off disables it). Not in the database on purpose: a
checkpoint leaves the learner's database exactly as it found it, and a bookkeeping table would show
up in the dictionary views the lessons list. Records are keyed by the database they were made
against (the embedded file, or user@dsn), so switching engines does not mix them.
"""
from __future__ import annotations

import json
import os
import time
from pathlib import Path
from typing import Any

from workshop import config


def log_path() -> Path | None:
    explicit = os.environ.get("WORKSHOP_PROGRESS_FILE")
    if explicit and explicit.lower() in ("off", "0", "none"):
        return None
    return Path(explicit) if explicit else config.state_dir() / "progress.json"


def database_identity(conn: Any = None) -> str:
    """Which database a record belongs to: 'embedded:<file>' or 'user@dsn'."""
    dsn = getattr(conn, "dsn", None) if conn is not None else None
    if isinstance(dsn, str) and dsn.startswith("embedded:"):
        return dsn
    if conn is not None and dsn:
        return f"{getattr(conn, 'username', '')}@{dsn}"
    if config.oracle_dsn():
        return f"{os.environ.get('ORACLE_USER', '')}@{config.oracle_dsn()}"
    return f"embedded:{config.embedded_db_path()}"


def _read(path: Path) -> dict:
    try:
        return json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}


def record(key: str, status: str, message: str, conn: Any = None, *, nothing_yet: bool = False) -> None:
    """Remember the outcome of checkpoint `key` ('checkpoints.part01.check_search_papers'); never fails the check."""
    path = log_path()
    if path is None:
        return
    try:
        data = _read(path)
        records = data.setdefault(database_identity(conn), {})
        now = time.strftime("%Y-%m-%d %H:%M:%S")
        entry = {"status": status, "message": message[:300], "nothing_yet": nothing_yet, "at": now}
        if status != "pass":
            # How long the learner has been on this checkpoint: the facilitator's room view reads it.
            previous = records.get(key, {})
            streak = previous.get("failures_in_a_row", 0) if previous.get("status") not in (None, "pass") else 0
            entry["failures_in_a_row"] = streak + 1
            entry["failing_since"] = previous.get("failing_since", now) if streak else now
        records[key] = entry
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_suffix(".tmp")
        tmp.write_text(json.dumps(data, indent=1, sort_keys=True), encoding="utf-8")
        tmp.replace(path)
    except OSError:
        pass   # a read-only state folder must not break a checkpoint


def last_outcomes(conn: Any = None) -> dict[str, dict]:
    """key -> {"status", "message", "at"} for the database of `conn` (or the configured one)."""
    path = log_path()
    return _read(path).get(database_identity(conn), {}) if path is not None else {}
