"""The labelling flow: logged retrievals -> question/candidate pairs -> grades -> golden JSONL.

1. The agent logs each retrieval as a `retrieval_result` TOOL_LOG row (workshop.memory.retrieval_log).
2. `HARVEST_SQL` (the learner writes it in part 06) joins those rows to the user turns they served:
   one row per logged retrieval, its candidate ids as a JSON array in rank order.
3. `harvest_into_labels` MERGEs every (retrieval, candidate) pair into RETRIEVAL_LABELS with no
   grade yet; running it again adds nothing (the key is the log row and the chunk id).
4. `Grader` (and the ipywidgets front end `workshop.display.grader_widget`) writes grades 0-3.
5. `export_golden_jsonl` writes the graded pairs in the golden-set schema the loaders read back.
"""
from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import oracledb
import pandas as pd

from workshop.memory.retrieval_log import RETRIEVAL_RESULT

LABELS_DDL = """CREATE TABLE IF NOT EXISTS retrieval_labels (
    log_id       NUMBER        NOT NULL,
    tenant       VARCHAR2(20),
    question     VARCHAR2(2000) NOT NULL,
    chunk_id     VARCHAR2(30)  NOT NULL,
    position     NUMBER(3)     NOT NULL,
    grade        NUMBER(1)     CONSTRAINT retrieval_labels_grade_ck CHECK (grade BETWEEN 0 AND 3),
    labelled_by  VARCHAR2(100),
    labelled_at  TIMESTAMP WITH TIME ZONE,
    CONSTRAINT retrieval_labels_pk PRIMARY KEY (log_id, chunk_id)
)"""

#: The reference harvest query (the notebook's TODO writes its own).
HARVEST_SQL = f"""SELECT t.id AS log_id,
       u.content AS question,
       JSON_VALUE(t.arguments, '$.tenant') AS tenant,
       JSON_QUERY(t.arguments, '$.candidates') AS candidate_ids
  FROM tool_log t
  JOIN conversation_memory u
    ON u.id = JSON_VALUE(t.arguments, '$.turn_id' RETURNING NUMBER)
 WHERE t.tool_name = '{RETRIEVAL_RESULT}'
   AND u.role = 'user'
 ORDER BY t.id"""

MERGE_PAIR_SQL = """MERGE INTO retrieval_labels l
USING (SELECT :log_id AS log_id, :chunk_id AS chunk_id FROM dual) s
   ON (l.log_id = s.log_id AND l.chunk_id = s.chunk_id)
 WHEN NOT MATCHED THEN
      INSERT (log_id, tenant, question, chunk_id, position)
      VALUES (:log_id, :tenant, :question, :chunk_id, :position)"""

PENDING_SQL = """SELECT log_id, tenant, question, chunk_id, position
  FROM retrieval_labels
 WHERE grade IS NULL
 ORDER BY log_id, position, chunk_id"""

GRADE_SQL = """UPDATE retrieval_labels
   SET grade = :grade, labelled_by = :labelled_by, labelled_at = SYSTIMESTAMP
 WHERE log_id = :log_id AND chunk_id = :chunk_id"""

GRADED_SQL = """SELECT tenant, question, chunk_id, MAX(grade) AS grade, MIN(log_id) AS first_log
  FROM retrieval_labels
 WHERE grade IS NOT NULL
 GROUP BY tenant, question, chunk_id
 ORDER BY first_log, tenant, question, chunk_id"""


def create_labels_table(conn: oracledb.Connection) -> None:
    with conn.cursor() as cur:
        cur.execute(LABELS_DDL)


def _text(value: Any) -> Any:
    return value.read() if hasattr(value, "read") else value


def harvest(conn: oracledb.Connection, sql: str = HARVEST_SQL) -> list[dict]:
    """Run a harvest query: [{log_id, question, tenant, candidate_ids: [...]}] in log order."""
    with conn.cursor() as cur:
        cur.execute(sql)
        names = [d[0].lower() for d in cur.description]
        rows = [dict(zip(names, (_text(v) for v in row))) for row in cur.fetchall()]
    for row in rows:
        if "candidate_ids" in row:
            ids = row["candidate_ids"]
            row["candidate_ids"] = json.loads(ids) if isinstance(ids, str) else list(ids or [])
    return rows


def harvest_into_labels(conn: oracledb.Connection, rows: Sequence[Mapping[str, Any]]) -> int:
    """MERGE every (retrieval, candidate) pair into RETRIEVAL_LABELS ungraded; the number of rows added."""
    binds = [{"log_id": int(r["log_id"]), "tenant": r["tenant"], "question": r["question"], "chunk_id": chunk,
              "position": position}
             for r in rows for position, chunk in enumerate(r["candidate_ids"], start=1)]
    if not binds:
        return 0
    with conn.cursor() as cur:
        cur.executemany(MERGE_PAIR_SQL, binds, arraydmlrowcounts=True)
        added = sum(cur.getarraydmlrowcounts())
    conn.commit()
    return int(added)


class Grader:
    """Grade harvested pairs 0-3 (the same API the widget calls)."""

    def __init__(self, conn: oracledb.Connection, labelled_by: str = "learner"):
        self.conn = conn
        self.labelled_by = labelled_by

    def pending(self) -> pd.DataFrame:
        with self.conn.cursor() as cur:
            cur.execute(PENDING_SQL)
            names = [d[0].lower() for d in cur.description]
            return pd.DataFrame(cur.fetchall(), columns=names)

    def grade(self, log_id: int, chunk_id: str, grade: int) -> None:
        if isinstance(grade, bool) or not isinstance(grade, int) or not 0 <= grade <= 3:
            raise ValueError(f"grade must be an int from 0 to 3, not {grade!r}")
        with self.conn.cursor() as cur:
            cur.execute(GRADE_SQL, grade=grade, labelled_by=self.labelled_by, log_id=int(log_id), chunk_id=chunk_id)
            if cur.rowcount != 1:
                raise LookupError(f"no harvested pair ({log_id}, {chunk_id!r}) in RETRIEVAL_LABELS")
        self.conn.commit()


def graded_queries(conn: oracledb.Connection, *, prefix: str = "H", intent: str = "harvested") -> list[dict]:
    """Graded pairs as golden-set records (query_id, query, tenant, intent, relevance, traps, notes)."""
    with conn.cursor() as cur:
        cur.execute(GRADED_SQL)
        rows = cur.fetchall()
    queries: dict[tuple, dict] = {}
    for tenant, question, chunk_id, grade, _first in rows:
        record = queries.setdefault((tenant, question), {
            "query_id": f"{prefix}{len(queries) + 1:03d}", "query": question, "tenant": tenant, "intent": intent,
            "relevance": {}, "traps": [], "notes": "harvested from retrieval_result logs; grade 0 = judged not relevant"})
        record["relevance"][chunk_id] = int(grade)
    return list(queries.values())


def export_golden_jsonl(conn: oracledb.Connection, path: str | Path, **kwargs: Any) -> list[dict]:
    records = graded_queries(conn, **kwargs)
    Path(path).parent.mkdir(parents=True, exist_ok=True)
    Path(path).write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), encoding="utf-8")
    return records
