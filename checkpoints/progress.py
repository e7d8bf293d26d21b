"""Where a learner stands: every TODO of the series with pass / not yet / failing and the one-line reason.

    from checkpoints import progress
    progress()                                  # in any notebook: a table (uses its own connection)
    progress(conn)                              # or the notebook's connection

    python -m checkpoints.progress              # the same in a terminal (a helper at a learner's machine)
    python -m checkpoints.progress --json progress-ana.json   # a file for the facilitator (checkpoints.room)

The TODOs come from the solution notebooks (checkpoints.framework.registry), so later parts appear by themselves.
How each TODO is judged:

* **live**, from the database now: a checkpoint that needs only the connection (the table, the index) runs again,
  quietly; a checkpoint whose TODO is a function or an object declares a database-only variant
  (`@checkpoint(..., live=<function of conn>)`) for what the database can show;
* **last run**: what only the notebook's own objects can show (a function, a store object) is the outcome of the
  checkpoint the last time it ran in a notebook against this database (checkpoints.framework.progress_log).

A live failure wins over a recorded pass (a table dropped since); a TODO that nothing has checked yet is "not yet".
"""
from __future__ import annotations

import argparse
import getpass
import json
import os
import sys
import time
import textwrap
import types
from dataclasses import dataclass

import oracledb

from .framework import registry
from .framework.outcome import CheckpointFailed
from .framework.progress_log import last_outcomes
from .framework.registry import TodoEntry
from .framework.runner import as_failure

PASS, NOT_YET, FAILING = "pass", "not yet", "failing"
_ICONS = {PASS: "✅", NOT_YET: "⬜", FAILING: "❌"}


@dataclass(frozen=True)
class TodoStatus:
    part: str
    number: int
    name: str
    title: str
    status: str        # pass | not yet | failing
    reason: str
    checked: str       # "database now", "last run 2026-12-01 21:40:02", or "" when nothing checked it
    failures_in_a_row: int = 0   # notebook runs of this checkpoint that failed since it last passed
    failing_since: str = ""      # when that streak began


def collect(conn: oracledb.Connection, entries: list[TodoEntry] | None = None) -> list[TodoStatus]:
    """The status of every TODO (see module docstring)."""
    records = last_outcomes(conn)
    return [_status(conn, entry, records) for entry in (entries if entries is not None else registry.series())]


def _status(conn: oracledb.Connection, entry: TodoEntry, records: dict) -> TodoStatus:
    check = registry.checkpoint_function(entry)
    if check is None:
        return TodoStatus(entry.part, entry.number, entry.name, entry.hint, NOT_YET,
                          f"no checkpoint {entry.check_function} in {entry.module}", "")
    title = getattr(check, "title", entry.name)
    record = records.get(check.key)
    if check.live is not None:
        failure = _run_live(check, conn)
        if failure is not None:
            status = NOT_YET if failure.nothing_yet else FAILING
            return TodoStatus(entry.part, entry.number, entry.name, title, status, failure.reason, "database now")
        if check.live is check.__wrapped__:       # the whole checkpoint ran: nothing else to know
            return TodoStatus(entry.part, entry.number, entry.name, title, PASS, "", "database now")
    if record is None:
        reason = ("the database part is right; run the checkpoint cell in the notebook to check the rest"
                  if check.live is not None else "not checked yet: run its checkpoint cell in the notebook")
        return TodoStatus(entry.part, entry.number, entry.name, title, NOT_YET, reason, "")
    status = PASS if record["status"] == "pass" else NOT_YET if record.get("nothing_yet") else FAILING
    return TodoStatus(entry.part, entry.number, entry.name, title, status,
                      "" if status == PASS else record.get("message", ""), f"last run {record.get('at', '?')}",
                      record.get("failures_in_a_row", 0), record.get("failing_since", ""))


def _run_live(check, conn: oracledb.Connection) -> CheckpointFailed | None:
    """Run the database-only check quietly: no display, no hint escalation, no record."""
    try:
        check.live(conn)
    except Exception as exc:    # noqa: BLE001 - every failure is a status here, never a crash of the table
        try:
            conn.rollback()
        except oracledb.Error:
            pass
        return as_failure(exc, "")
    return None


def progress(conn: oracledb.Connection | None = None):
    """The table of every TODO, as a pandas DataFrame (a notebook shows it). Opens its own connection if none."""
    import pandas as pd

    own = conn is None
    if own:
        from workshop.db import connect
        conn = connect()
    try:
        rows = collect(conn)
    finally:
        if own:
            conn.close()
    return pd.DataFrame([{"part": r.part, "TODO": r.number, "name": r.name, "status": f"{_ICONS[r.status]} {r.status}",
                          "reason": r.reason, "checked": r.checked, "what": r.title} for r in rows])


def as_text(rows: list[TodoStatus], width: int = 100) -> str:
    """A plain table for a terminal; long reasons wrap under their column."""
    name_width = max([20, *(len(r.name) for r in rows)])      # a TODO's name in full (it is its identity)
    head = f"{'part':<4}  {'TODO':<4}  {'name':<{name_width}}  {'status':<8}  reason"
    lines = [head, "-" * len(head)]
    indent = 4 + 2 + 4 + 2 + name_width + 2 + 8 + 2
    for r in rows:
        reason = r.reason or (r.title if r.status == PASS else "")
        if r.checked and r.status != PASS or r.checked.startswith("last run"):
            reason = f"{reason} [{r.checked}]".strip()
        wrapped = textwrap.wrap(reason, max(30, width - indent)) or [""]
        lines.append(f"{r.part:<4}  {r.number:<4}  {r.name:<{name_width}}  {r.status:<8}  {wrapped[0]}")
        lines += [" " * indent + more for more in wrapped[1:]]
    counts = {s: sum(r.status == s for r in rows) for s in (PASS, NOT_YET, FAILING)}
    lines += ["", f"{counts[PASS]} passed, {counts[NOT_YET]} not yet, {counts[FAILING]} failing "
                  f"({len(rows)} TODOs)"]
    return "\n".join(lines)


EXPORT_FORMAT = "workshop-progress/1"
REASON_CHARS = 160


def participant_name() -> str:
    """Who this export is from: WORKSHOP_PARTICIPANT, else the Codespace's GitHub login, else the OS user."""
    return (os.environ.get("WORKSHOP_PARTICIPANT") or os.environ.get("GITHUB_USER") or getpass.getuser()).strip()


def export(rows: list[TodoStatus], participant: str, engine: str) -> dict:
    """A participant's progress for the facilitator: TODO names, states and the first line of the last reason.

    Nothing the learner wrote and no connection detail goes in: no code, no SQL, no DSN, no user name of the
    database; reasons are the checkpoints' own words, cut to their first line."""
    def short(reason: str) -> str:
        first = reason.strip().splitlines()[0] if reason.strip() else ""
        return first if len(first) <= REASON_CHARS else first[:REASON_CHARS - 1] + "…"

    return {"format": EXPORT_FORMAT, "participant": participant, "engine": engine,
            "exported_at": time.strftime("%Y-%m-%d %H:%M:%S"),
            "todos": [{"part": r.part, "todo": r.number, "name": r.name, "status": r.status,
                       "reason": short(r.reason), "failures_in_a_row": r.failures_in_a_row,
                       "failing_since": r.failing_since} for r in rows]}


def _write_export(rows: list[TodoStatus], target: str, participant: str) -> None:
    from workshop import config
    data = export(rows, participant, "oracle" if config.oracle_dsn() else "embedded")
    text = json.dumps(data, indent=1, ensure_ascii=False)
    if target == "-":
        print(text)
    else:
        with open(target, "w", encoding="utf-8") as out:
            out.write(text + "\n")
        print(f"wrote {target}: {sum(t['status'] == PASS for t in data['todos'])} of {len(data['todos'])} TODOs "
              f"pass. Hand this file to your facilitator (python -m checkpoints.room FOLDER).")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m checkpoints.progress",
                                     description="Every TODO of the series: pass / not yet / failing, and why.")
    parser.add_argument("--part", action="append", help="only this part (00, 01, ...); repeatable")
    parser.add_argument("--json", metavar="FILE", help="write the progress for a facilitator as JSON to FILE "
                        "('-' for standard output): TODO names, states, reasons; no answers, no secrets")
    parser.add_argument("--participant", help="the name in the JSON export (default: WORKSHOP_PARTICIPANT, "
                        "GITHUB_USER, or your user name)")
    args = parser.parse_args(argv)
    from workshop.db import connect
    from workshop.doctor import PreflightFailed, preflight
    try:
        with _quiet():
            preflight()
    except PreflightFailed as exc:
        print("\n".join(exc._render_traceback_()))
        return 2
    conn = connect()
    try:
        entries = [e for e in registry.series() if not args.part or e.part in args.part]
        rows = collect(conn, entries)
        if args.json:
            _write_export(rows, args.json, args.participant or participant_name())
        else:
            print(as_text(rows))
    finally:
        conn.close()
    return 0


class _quiet:
    """Silence the preflight's success line (the table says enough)."""

    def __enter__(self):
        import io
        self._stdout, sys.stdout = sys.stdout, io.StringIO()

    def __exit__(self, *exc):
        sys.stdout = self._stdout


if __name__ == "__main__":
    sys.exit(main())


class _CallableModule(types.ModuleType):
    """`checkpoints.progress(conn)` and `from checkpoints import progress; progress()` call the table, while
    `python -m checkpoints.progress` still runs this module."""

    def __call__(self, conn: oracledb.Connection | None = None):
        return progress(conn)


sys.modules[__name__].__class__ = _CallableModule
