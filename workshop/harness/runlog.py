"""The run record in the database: one AGENT_RUNS row per run, one AGENT_RUN_EVENTS row per event, in order.

Denied calls are kept as evidence instead of hidden. Inputs and outputs are stored sanitised: a secret a user
pastes (or a tool echoes) is redacted before it reaches the log, because a log is read by more people than the
conversation was.
"""
from __future__ import annotations

import json
import re
from collections.abc import Callable
from typing import Any

import oracledb

RUNS_TABLE, EVENTS_TABLE, FINDINGS_TABLE = "AGENT_RUNS", "AGENT_RUN_EVENTS", "AGENT_FINDINGS"

RUNS_DDL = """CREATE TABLE agent_runs (
  run_id      VARCHAR2(40) PRIMARY KEY,
  thread_id   VARCHAR2(64) NOT NULL,
  planner     VARCHAR2(80) NOT NULL,
  status      VARCHAR2(24) NOT NULL,
  verified    VARCHAR2(12),
  answer      VARCHAR2(4000),
  started_at  TIMESTAMP DEFAULT CURRENT_TIMESTAMP NOT NULL
)"""
EVENTS_DDL = """CREATE TABLE agent_run_events (
  run_id     VARCHAR2(40) NOT NULL,
  seq        NUMBER(6) NOT NULL,
  kind       VARCHAR2(16) NOT NULL,
  name       VARCHAR2(64) NOT NULL,
  status     VARCHAR2(24) NOT NULL,
  inputs     VARCHAR2(4000),
  outputs    VARCHAR2(4000),
  CONSTRAINT agent_run_events_pk PRIMARY KEY (run_id, seq)
)"""
FINDINGS_DDL = """CREATE TABLE agent_findings (
  run_id     VARCHAR2(40) NOT NULL,
  case_ref   VARCHAR2(20) NOT NULL,
  note       VARCHAR2(1000) NOT NULL,
  CONSTRAINT agent_findings_pk PRIMARY KEY (run_id, case_ref)
)"""
_IGNORE_EXISTS = "BEGIN EXECUTE IMMEDIATE '{ddl}'; EXCEPTION WHEN OTHERS THEN IF SQLCODE != -955 THEN RAISE; END IF; END;"


def create_if_missing(cur: oracledb.Cursor, ddl: str) -> None:
    """Run CREATE TABLE `ddl` unless the table exists (ORA-00955 ignored, any other error raised): safe to repeat."""
    cur.execute(_IGNORE_EXISTS.format(ddl=ddl.replace("'", "''")))

REDACTED = "[REDACTED]"
_SECRET_KEYS = re.compile(r"(?i)(password|passwd|secret|token|api[_-]?key|authorization|credential)")
_SECRET_VALUES = [
    re.compile(r"sk-[A-Za-z0-9_\-]{16,}"),                       # OpenAI-style keys
    re.compile(r"AKIA[0-9A-Z]{16}"),                              # AWS access key ids
    re.compile(r"(?i)bearer\s+[A-Za-z0-9._\-]{8,}"),
    re.compile(r"(?i)\b(password|passwd|pwd|secret|api[_-]?key|token)\s*[:=]\s*\S+"),
]


SECRET_KEYS, SECRET_VALUES = _SECRET_KEYS, _SECRET_VALUES


def redact(value: Any) -> Any:
    """`value` with secrets replaced by [REDACTED]: values under secret-looking keys, and secret-looking text."""
    if isinstance(value, dict):
        return {k: REDACTED if _SECRET_KEYS.search(str(k)) else redact(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [redact(v) for v in value]
    if isinstance(value, str):
        for pattern in _SECRET_VALUES:
            value = pattern.sub(REDACTED, value)
        return value
    return value


def _text(value: Any, limit: int = 3900, redactor: Callable[[Any], Any] = redact) -> str | None:
    if value is None:
        return None
    text = json.dumps(redactor(value), default=str, ensure_ascii=False, sort_keys=True)
    return text if len(text) <= limit else text[:limit - 1] + "…"


def create_run_tables(conn: oracledb.Connection) -> None:
    """AGENT_RUNS, AGENT_RUN_EVENTS and AGENT_FINDINGS, if missing (safe to repeat)."""
    with conn.cursor() as cur:
        for ddl in (RUNS_DDL, EVENTS_DDL, FINDINGS_DDL):
            create_if_missing(cur, ddl)


class RunRecorder:
    """Writes one run's events, in order, on the harness's own (read-write) connection, committed as they happen
    so that a crash leaves the evidence behind."""

    def __init__(self, conn: oracledb.Connection, run_id: str, thread_id: str, planner: str, *,
                 redactor: Callable[[Any], Any] = redact):
        self.conn, self.run_id, self.seq, self.redactor = conn, run_id, 0, redactor
        with conn.cursor() as cur:
            cur.execute("INSERT INTO agent_runs (run_id, thread_id, planner, status) VALUES (:r, :t, :p, 'running')",
                        r=run_id, t=thread_id, p=planner)
        conn.commit()

    def event(self, kind: str, name: str, status: str, inputs: Any = None, outputs: Any = None) -> None:
        self.seq += 1
        with self.conn.cursor() as cur:
            cur.execute("INSERT INTO agent_run_events (run_id, seq, kind, name, status, inputs, outputs) "
                        "VALUES (:r, :s, :k, :n, :st, :i, :o)", r=self.run_id, s=self.seq, k=kind, n=name,
                        st=status, i=_text(inputs, redactor=self.redactor),
                        o=_text(outputs, redactor=self.redactor))
        self.conn.commit()

    def finish(self, status: str, verified: str | None, answer: str | None) -> None:
        with self.conn.cursor() as cur:
            cur.execute("UPDATE agent_runs SET status = :s, verified = :v, answer = :a WHERE run_id = :r",
                        s=status, v=verified, a=(self.redactor(answer) or "")[:4000] or None, r=self.run_id)
        self.conn.commit()


def read_events(conn: oracledb.Connection, run_id: str) -> list[dict]:
    """The run's events in order (the run record a reviewer reads)."""
    with conn.cursor() as cur:
        cur.execute("SELECT seq, kind, name, status, inputs, outputs FROM agent_run_events WHERE run_id = :r "
                    "ORDER BY seq", r=run_id)
        names = [d[0].lower() for d in cur.description]
        return [dict(zip(names, row)) for row in cur.fetchall()]


def read_run(conn: oracledb.Connection, run_id: str) -> dict | None:
    with conn.cursor() as cur:
        cur.execute("SELECT run_id, thread_id, planner, status, verified, answer FROM agent_runs WHERE run_id = :r",
                    r=run_id)
        row = cur.fetchone()
        return dict(zip([d[0].lower() for d in cur.description], row)) if row else None
