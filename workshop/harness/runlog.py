"""The run record in the database: one AGENT_RUNS row per run, one AGENT_RUN_EVENTS row per event, in order.

Denied calls are kept as evidence instead of hidden. Inputs and outputs are stored sanitised: a secret a user
pastes (or a tool echoes) is redacted before it reaches the log, because a log is read by more people than the
conversation was.
"""
from __future__ import annotations

import datetime as dt
import decimal
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
#: Keys whose values are secrets, whatever the value looks like (matched anywhere in the key, any case).
_SECRET_KEYS = re.compile(r"(?i)(passw(or)?d|pwd|passphrase|secret|token|api[_-]?key|apikey|access[_-]?key|"
                          r"private[_-]?key|authorization|credential|cookie|session[_-]?id|signature|"
                          r"connect[_-]?string|dsn)")
#: Credential shapes, wherever they appear in text (every match is replaced).
_SECRET_VALUES = [
    re.compile(r"-----BEGIN [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----.*?(-----END [A-Z0-9 ]*PRIVATE KEY( BLOCK)?-----|\Z)",
               re.DOTALL),                                                        # PEM private keys
    re.compile(r"\bsk-(ant-)?[A-Za-z0-9_\-]{16,}"),                                 # OpenAI / Anthropic keys
    re.compile(r"\b(AKIA|ASIA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[0-9A-Z]{16}\b"),       # AWS access key ids
    re.compile(r"\bAIza[0-9A-Za-z_\-]{35}"),                                        # Google API keys
    re.compile(r"\bya29\.[0-9A-Za-z_\-]{20,}"),                                      # Google OAuth tokens
    re.compile(r"\b(gh[pousr]_[A-Za-z0-9]{20,}|github_pat_[A-Za-z0-9_]{20,})"),      # GitHub tokens
    re.compile(r"\b([sr]k|whsec)_(live|test)_[A-Za-z0-9]{10,}|\bwhsec_[A-Za-z0-9]{20,}"),  # Stripe keys
    re.compile(r"\bxox[abposr]-[A-Za-z0-9\-]{10,}"),                                 # Slack tokens
    re.compile(r"\beyJ[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]{5,}\.[A-Za-z0-9_\-]*"),      # JWTs
    re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=\-]{8,}"),                            # Authorization: Bearer
    re.compile(r"(?i)\bauthorization[\"']?\s*[:=]\s*[\"']?([a-z]+\s+)?[A-Za-z0-9._~+/=\-]{6,}"),  # the header
    re.compile(r"\b[Bb][Aa][Ss][Ii][Cc]\s+[A-Za-z0-9+/](?=[A-Za-z0-9+/]*[A-Z0-9+/=])[A-Za-z0-9+/]{7,}={0,2}"),  # Basic
    re.compile(r"(?i)\b[a-z][a-z0-9+.\-]*://[^\s/:@]+:[^\s/@]+@"),                     # scheme://user:password@
    re.compile(r"\b[A-Za-z][\w$#]*/[^\s/@'\"]+@[\w.\-:/]+"),                          # user/password@dsn
    re.compile(r"(?i)\b(password|passwd|pwd|passphrase|secret|api[_-]?key|token|access[_-]?key|private[_-]?key|"
               r"client[_-]?secret)[\\\"']{0,3}\s*[:=]\s*[\\\"']{0,3}[^\s\\\"',;}]+"),   # key=value, "key": "value"
]


SECRET_KEYS, SECRET_VALUES = _SECRET_KEYS, _SECRET_VALUES
#: Nesting deeper than this is not walked (a hostile argument could be nested a million levels deep).
MAX_DEPTH = 32
_PLAIN = (bool, int, float, decimal.Decimal, dt.date, dt.time, dt.timedelta, type(None))


def _redact_text(text: str, depth: int) -> str:
    stripped = text.strip()
    if stripped[:1] in ("{", "[") and len(stripped) > 1:     # JSON inside a string: redact it as a structure
        try:
            parsed = json.loads(stripped)
        except ValueError:
            parsed = None
        if isinstance(parsed, (dict, list)):
            cleaned = redact(parsed, _depth=depth + 1)
            return text if cleaned == parsed else json.dumps(cleaned, default=str, ensure_ascii=False)
    for pattern in _SECRET_VALUES:
        text = pattern.sub(REDACTED, text)
    return text


def _redact_key(key: Any, depth: int) -> Any:
    if isinstance(key, str):
        return _redact_text(key, depth)
    if isinstance(key, _PLAIN):
        return key
    return _redact_text(str(redact(key, _depth=depth + 1)), depth)


def redact(value: Any, *, _depth: int = 0) -> Any:
    """`value` with secrets replaced by [REDACTED], as new objects (the input is left as it was): values under
    secret-looking keys, and credential shapes in any text (keys, bytes, exceptions and JSON inside strings
    included). Lists, tuples and sets come back as lists; bytes, exceptions and other objects as redacted text;
    numbers, dates and None unchanged."""
    if _depth > MAX_DEPTH:
        return "[TOO DEEP]"
    if isinstance(value, str):
        return _redact_text(value, _depth)
    if isinstance(value, _PLAIN):
        return value
    if isinstance(value, dict):
        out: dict = {}
        for key, item in value.items():
            new_key = _redact_key(key, _depth)
            secret = isinstance(key, str) and _SECRET_KEYS.search(key) or new_key != key
            while new_key in out:                          # two keys redacted alike: keep both values apart
                new_key = f"{new_key}#"
            out[new_key] = REDACTED if secret else redact(item, _depth=_depth + 1)
        return out
    if isinstance(value, (list, tuple)):
        return [redact(v, _depth=_depth + 1) for v in value]
    if isinstance(value, (set, frozenset)):
        return sorted((redact(v, _depth=_depth + 1) for v in value), key=repr)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return _redact_text(bytes(value).decode("utf-8", errors="replace"), _depth)
    if isinstance(value, BaseException):
        return _redact_text(f"{type(value).__name__}: {value}", _depth)
    return _redact_text(str(value), _depth)


def record_name(name: Any, redactor: Callable[[Any], Any] = redact) -> str:
    """A tool name as the record may hold it: text, redacted (a name can carry a secret), at most 64 characters."""
    if not isinstance(name, str):
        return f"<{type(name).__name__}>"
    shown = redactor(name)
    shown = shown if isinstance(shown, str) else REDACTED
    if not shown.strip():
        return "<empty>"                                  # '' is NULL to Oracle, and NAME is NOT NULL
    return fit_bytes(shown, 64)


def fit_bytes(text: str, limit: int) -> str:
    """`text` cut to at most `limit` bytes of UTF-8 (VARCHAR2 lengths are bytes), marked with '...' when cut."""
    encoded = text.encode("utf-8")
    if len(encoded) <= limit:
        return text
    return encoded[:limit - 3].decode("utf-8", errors="ignore") + "..."


def _string_keys(value: Any, depth: int = 0) -> Any:
    """JSON's own key rule (every key a string) applied first, so keys of mixed types still sort."""
    if depth > MAX_DEPTH:
        return "[TOO DEEP]"
    if isinstance(value, dict):
        return {str(k): _string_keys(v, depth + 1) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_string_keys(v, depth + 1) for v in value]
    return value


def _text(value: Any, limit: int = 3900, redactor: Callable[[Any], Any] = redact) -> str | None:
    if value is None:
        return None
    text = json.dumps(_string_keys(redactor(value)), default=str, ensure_ascii=False, sort_keys=True)
    return fit_bytes(text, limit)


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
                        "VALUES (:r, :s, :k, :n, :st, :i, :o)", r=self.run_id, s=self.seq, k=kind,
                        n=record_name(name, self.redactor),
                        st=status, i=_text(inputs, redactor=self.redactor),
                        o=_text(outputs, redactor=self.redactor))
        self.conn.commit()

    def finish(self, status: str, verified: str | None, answer: str | None) -> None:
        with self.conn.cursor() as cur:
            cur.execute("UPDATE agent_runs SET status = :s, verified = :v, answer = :a WHERE run_id = :r",
                        s=status, v=verified, a=fit_bytes(str(self.redactor(answer) or ""), 4000) or None,
                        r=self.run_id)
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
