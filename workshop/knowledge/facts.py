"""Facts: the agent's knowledge as rows of KNOWLEDGE_FACTS, the source of truth that AML_KNOWLEDGE_VS mirrors.

A fact has a `kind` (table, column, policy; also tool_output and chat_extraction records, which are kept
here but never published to the knowledge store), a `subject` (`FINANCE.LOANS.RATE_BP`), a body and a
stable id made from kind and subject, so scanning the schema twice gives the same ids. `write_facts`
upserts with one MERGE per fact and tells every mirror (see `store.mirror_writes`) what it wrote.
"""
from __future__ import annotations

import hashlib
import json
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

import oracledb

from workshop import lesson_state

FACTS_TABLE = "KNOWLEDGE_FACTS"
#: Kinds published to the knowledge store; everything else stays in the facts table only.
KNOWLEDGE_KINDS = ("table", "column", "policy")
EXCLUDED_KINDS = ("tool_output", "chat_extraction")

FACTS_DDL = """CREATE TABLE IF NOT EXISTS knowledge_facts (
    id          VARCHAR2(200)  PRIMARY KEY,
    kind        VARCHAR2(30)   NOT NULL,
    subject     VARCHAR2(200)  NOT NULL,
    body        VARCHAR2(4000) NOT NULL,
    metadata    JSON,
    valid       NUMBER(1)      DEFAULT 1 NOT NULL CHECK (valid IN (0, 1)),
    source      VARCHAR2(30)   NOT NULL,
    updated_at  TIMESTAMP      DEFAULT SYSTIMESTAMP NOT NULL
)"""

_MERGE = """MERGE INTO knowledge_facts f
USING (SELECT :id AS id, :kind AS kind, :subject AS subject, :body AS body, :metadata AS metadata,
              :valid AS valid, :source AS source FROM dual) s
ON (f.id = s.id)
WHEN MATCHED THEN UPDATE SET f.kind = s.kind, f.subject = s.subject, f.body = s.body, f.metadata = s.metadata,
                             f.valid = s.valid, f.source = s.source, f.updated_at = SYSTIMESTAMP
WHEN NOT MATCHED THEN INSERT (id, kind, subject, body, metadata, valid, source)
     VALUES (s.id, s.kind, s.subject, s.body, s.metadata, s.valid, s.source)"""


def fact_id(kind: str, subject: str) -> str:
    """The stable id of a fact: `column:FINANCE.LOANS.RATE_BP`."""
    return f"{kind}:{subject}"


@dataclass(frozen=True)
class Fact:
    kind: str
    subject: str
    body: str
    metadata: dict = field(default_factory=dict)
    valid: bool = True
    source: str = "schema_scan"
    id: str = ""

    def __post_init__(self) -> None:
        if not self.id:
            object.__setattr__(self, "id", fact_id(self.kind, self.subject))

    @property
    def publishable(self) -> bool:
        """True when the fact belongs in the knowledge store: valid, and of a knowledge kind."""
        return bool(self.valid) and self.kind in KNOWLEDGE_KINDS

    @property
    def fingerprint(self) -> str:
        """Changes whenever what the store would hold for this fact changes."""
        payload = json.dumps([self.kind, self.subject, self.body, self.metadata, self.source], sort_keys=True,
                             default=str)
        return hashlib.sha256(payload.encode()).hexdigest()[:16]

    def store_metadata(self) -> dict:
        """The metadata the knowledge store keeps beside the text (filterable with `{"kind": ...}`)."""
        return {**self.metadata, "fact_id": self.id, "kind": self.kind, "subject": self.subject,
                "source": self.source, "fingerprint": self.fingerprint}

    def replace(self, **changes) -> "Fact":
        values = {"kind": self.kind, "subject": self.subject, "body": self.body, "metadata": dict(self.metadata),
                  "valid": self.valid, "source": self.source, "id": self.id, **changes}
        return Fact(**values)


def create_facts_table(conn: oracledb.Connection) -> None:
    with conn.cursor() as cur:
        cur.execute(FACTS_DDL)


#: Callbacks that see every batch written by write_facts (keyed, so registering again replaces).
_MIRRORS: dict[str, Callable[[list[Fact]], None]] = {}
# A mirror holds a store (its table, its connection): part 04's reset drops that table, so it forgets the mirrors
# too, or the next write_facts of a second "Run All" would write through the old run's store.
lesson_state.register(__name__, "_MIRRORS", parts=(4,), clear=_MIRRORS.clear)


def add_mirror(key: str, callback: Callable[[list[Fact]], None]) -> Callable[[], None]:
    """Call `callback(facts)` after every write_facts; returns a function that stops it."""
    _MIRRORS[key] = callback
    return lambda: _MIRRORS.pop(key, None) if _MIRRORS.get(key) is callback else None


def write_facts(conn: oracledb.Connection, facts: Iterable[Fact]) -> int:
    """Upsert facts by id (MERGE), commit, then pass them to every mirror; returns how many were written."""
    facts = list(facts)
    if not facts:
        return 0
    with conn.cursor() as cur:
        cur.setinputsizes(metadata=oracledb.DB_TYPE_JSON)
        cur.executemany(_MERGE, [{"id": f.id, "kind": f.kind, "subject": f.subject, "body": f.body,
                                  "metadata": f.metadata, "valid": 1 if f.valid else 0, "source": f.source}
                                 for f in facts])
    conn.commit()
    for mirror in list(_MIRRORS.values()):
        mirror(facts)
    return len(facts)


def read_facts(conn: oracledb.Connection, *, publishable_only: bool = True) -> list[Fact]:
    """The facts in KNOWLEDGE_FACTS ordered by id; by default only those the knowledge store should hold."""
    sql = "SELECT id, kind, subject, body, metadata, valid, source FROM knowledge_facts"
    if publishable_only:
        kinds = ", ".join(f"'{k}'" for k in KNOWLEDGE_KINDS)
        sql += f" WHERE valid = 1 AND kind IN ({kinds})"
    with conn.cursor() as cur:
        cur.execute(sql + " ORDER BY id")
        rows = cur.fetchall()
    return [Fact(kind=k, subject=s, body=b, metadata=m or {}, valid=bool(v), source=src, id=i)
            for i, k, s, b, m, v, src in rows]
