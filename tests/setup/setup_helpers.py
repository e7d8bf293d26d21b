"""Helpers shared by the set-up tests: row access and a fingerprint of everything the set-up writes."""
from __future__ import annotations

import array
import hashlib
import json

import oracledb

from workshop import schema


def rows(conn, sql: str, binds=None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        return cur.fetchall()


def _plain(value):
    if isinstance(value, oracledb.LOB):
        return value.read()
    if isinstance(value, array.array):
        # Vectors are compared with a tolerance by same_vectors(): a batched model call may differ from
        # another batch grouping in the last bits (padding changes the float summation order).
        return f"VECTOR({len(value)}, {value.typecode})"
    if isinstance(value, (dict, list)):
        return json.dumps(value, sort_keys=True)
    return value


_COMPOSITE_KEYS = {"PAPER_AUTHORS": "author_id, arxiv_id", "PAPER_SIMILARITY": "src_id, dst_id"}


def fingerprint(conn, *, skip_meta: tuple[str, ...] = ()) -> dict[str, str]:
    """sha256 of every setup table's rows (in key order) and of the dictionary entries the set-up creates."""
    parts: dict[str, str] = {}
    for table in schema.TABLES:
        key = _COMPOSITE_KEYS.get(table.name, table.column_names[0])
        data = [tuple(_plain(v) for v in r) for r in rows(conn, f"SELECT * FROM {table.name} ORDER BY {key}")]
        if table.name == "WORKSHOP_META":
            data = [r for r in data if r[0] not in skip_meta]
        parts[table.name] = hashlib.sha256(repr(data).encode()).hexdigest()
    for label, sql in {
        "indexes": "SELECT index_name, index_type, table_name FROM user_indexes ORDER BY index_name",
        "graphs": "SELECT graph_name FROM user_property_graphs ORDER BY graph_name",
        "models": "SELECT model_name, mining_function, model_size FROM user_mining_models ORDER BY model_name",
        "comments": "SELECT table_name, column_name, comments FROM user_col_comments ORDER BY table_name, column_name",
    }.items():
        parts[label] = hashlib.sha256(repr(rows(conn, sql)).encode()).hexdigest()
    return parts


def vectors(conn) -> dict[tuple[str, str], list]:
    """Every stored embedding, keyed by (table, primary key)."""
    found = {}
    for table, key in (("PAPERS", "arxiv_id"), ("RESEARCH_CHUNKS", "chunk_id")):
        for ident, vector in rows(conn, f"SELECT {key}, embedding FROM {table} ORDER BY {key}"):
            found[(table, ident)] = vector
    return found


def same_vectors(left, right, atol: float = 1e-5) -> bool:
    """Both databases hold the same embeddings for the same keys, to float32 noise."""
    import numpy as np
    a, b = vectors(left), vectors(right)
    return a.keys() == b.keys() and all(
        (a[k] is None) == (b[k] is None) and (a[k] is None or np.allclose(a[k], b[k], atol=atol)) for k in a)


class ScriptedCursor:
    """Answers each statement with the rows (or raises the error) of the first script key found in its SQL."""
    def __init__(self, script):
        self.script, self.result = script, []

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False

    def execute(self, sql, binds=None):
        for needle, outcome in self.script.items():
            if needle in sql:
                if isinstance(outcome, Exception):
                    raise outcome
                self.result = outcome
                return
        raise AssertionError(f"unscripted SQL: {sql}")

    def fetchone(self):
        return self.result[0] if self.result else None

    def fetchall(self):
        return self.result


class ScriptedOracle:
    """Looks like a python-oracledb connection to Oracle (not the embedded engine); answers from a script."""
    def __init__(self, script):
        self.script = script

    def cursor(self):
        return ScriptedCursor(self.script)
