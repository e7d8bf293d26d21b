"""CREATE HYBRID VECTOR INDEX / DROP INDEX and the vector part's maintenance.

A hybrid vector index is one Oracle Text SEARCH index (the keyword part, built by the engine's Oracle
Text package) plus a vector part: every document is chunked and each chunk embedded with the
in-database model of its vectorizer. The chunks live in ``DR$<IDX>$VR`` (Oracle's secondary table of
the same name), one row per chunk: document rowid, chunk id/offset/length/text and the float32
embedding. ``DR$<IDX>$VP`` collects the rowids written since the last sync (filled by triggers on
the base table, like the text part's ``$P``); the vector part is synced exactly when the text part is
(at commit for automatic / ON COMMIT maintenance, at CTX_DDL.SYNC_INDEX for SYNC (MANUAL)), so both
parts always describe the same documents.

Syntax (CREATE HYBRID VECTOR INDEX, Oracle AI Vector Search User's Guide)::

    CREATE HYBRID VECTOR INDEX [schema.]name ON [schema.]table(column)
      PARAMETERS ('VECTORIZER pref | MODEL m [VECTOR_IDXTYPE HNSW|IVF]  <Oracle Text parameters>')
      [FILTER BY col[, col]...] [ORDER BY col [ASC|DESC][, ...]] [PARALLEL n]

The Oracle Text parameters (SYNC, MAINTENANCE, STOPLIST, LEXER, MEMORY ...) go to the text part,
which accepts or refuses them exactly as for CREATE SEARCH INDEX.
"""
from __future__ import annotations

import json
import re
import sqlite3
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from ..errors import EngineError
from ..translate import unsupported
from . import preferences

META = "ORA$HYBRID_INDEXES"
BOOTSTRAP = [f'''CREATE TABLE IF NOT EXISTS "{META}" (index_name TEXT PRIMARY KEY, table_name TEXT NOT NULL,
    column_name TEXT NOT NULL, model TEXT NOT NULL, vectorizer TEXT NOT NULL, preference TEXT,
    filter_by TEXT, order_by TEXT, parameters TEXT)''']

_IDENT = r'(?:"[^"]+"|[A-Za-z][\w$#]*)'
_TEXT_TYPES = ("VARCHAR2", "NVARCHAR2", "CHAR", "CLOB", "NCLOB", "VARCHAR")


def q(name: str) -> str:
    return '"' + name.replace('"', '""') + '"'


def shadow(index_name: str, suffix: str) -> str:
    return q(f"DR${index_name}${suffix}")


def ident(text: str) -> str:
    text = text.strip()
    return text[1:-1] if text.startswith('"') else text.upper()


@dataclass(frozen=True)
class HybridIndex:
    index_name: str
    table_name: str
    column_name: str
    model: str
    vectorizer: preferences.Vectorizer


def get(db: sqlite3.Connection, index_name: str) -> HybridIndex | None:
    row = db.execute(f'SELECT index_name, table_name, column_name, model, vectorizer FROM "{META}" '
                     f'WHERE index_name = ?', (index_name,)).fetchone()
    if row is None:
        return None
    return HybridIndex(row[0], row[1], row[2], row[3], preferences.validate(json.loads(row[4])))


def all_indexes(db: sqlite3.Connection) -> list[HybridIndex]:
    names = [r[0] for r in db.execute(f'SELECT index_name FROM "{META}" ORDER BY index_name')]
    return [h for h in (get(db, n) for n in names) if h is not None]


# ----------------------------------------------------------------------------- PARAMETERS
_PARAM_TOKEN = re.compile(r'\s*(\(|\)|"(?:[^"]|"")*"|[^\s()"]+)')


def split_parameters(paramstring: str) -> tuple[dict[str, str], str]:
    """'VECTORIZER p SYNC (ON COMMIT)' -> ({'VECTORIZER': 'p'}, 'SYNC (ON COMMIT)').

    The vector keywords (VECTORIZER, MODEL, VECTOR_IDXTYPE) are taken out; everything else is the
    Oracle Text part, passed on verbatim (with its parenthesised groups)."""
    tokens, pos = [], 0
    while pos < len(paramstring):
        m = _PARAM_TOKEN.match(paramstring, pos)
        if not m or m.end() == pos:
            break
        tokens.append(m.group(1))
        pos = m.end()
    vector: dict[str, str] = {}
    rest: list[str] = []
    i = 0
    while i < len(tokens):
        word = tokens[i].upper()
        if word in ("VECTORIZER", "MODEL", "VECTOR_IDXTYPE"):
            if i + 1 >= len(tokens) or tokens[i + 1] in ("(", ")"):
                raise _create_error(f"{word} needs a value")
            if word in vector:
                raise _create_error(f"{word} is given twice")
            vector[word] = tokens[i + 1]
            i += 2
            continue
        rest.append(tokens[i])
        i += 1
    return vector, " ".join(rest)


def _create_error(detail: str) -> EngineError:
    return EngineError(29855, f"error occurred in the execution of ODCIINDEXCREATE routine\n"
                              f"ORA-20000: Oracle Text error:\nDRG-13600: error while processing hybrid vector "
                              f"index parameters: {detail}")


def _column_list(text: str, table, clause: str) -> list[str]:
    columns = []
    for part in (p.strip() for p in text.split(",")):
        m = re.fullmatch(rf"({_IDENT})(?:\s+(ASC|DESC))?", part, re.I)
        if not m:
            raise EngineError(904, f'"{part}": invalid identifier in {clause}')
        name = ident(m.group(1))
        if table.column(name) is None:
            raise EngineError(904, f'"{name}": invalid identifier')
        columns.append(name + (f" {m.group(2).upper()}" if m.group(2) else ""))
    return columns


def parse_clauses(rest: str, table) -> tuple[str, list[str], list[str]]:
    """The text after ON t(col) -> (paramstring, filter_by, order_by); PARALLEL n is a hint."""
    m = re.match(r"(?is)\s*PARAMETERS\s*\(\s*'((?:[^']|'')*)'\s*\)", rest)
    if not m:
        raise EngineError(29855, "error occurred in the execution of ODCIINDEXCREATE routine\n"
                                 "ORA-20000: Oracle Text error:\nDRG-13600: a hybrid vector index needs "
                                 "PARAMETERS ('MODEL <model>' or 'VECTORIZER <preference>')")
    paramstring = m.group(1).replace("''", "'")
    tail = rest[m.end():]
    filter_by: list[str] = []
    order_by: list[str] = []
    pattern = re.compile(r"(?is)\s*(FILTER\s+BY|ORDER\s+BY|PARALLEL(?:\s+\d+)?|NOPARALLEL|ONLINE)")
    while tail.strip():
        cm = pattern.match(tail)
        if not cm:
            raise unsupported(f"CREATE HYBRID VECTOR INDEX option {tail.strip()[:40]}")
        keyword = re.sub(r"\s+", " ", cm.group(1).upper())
        tail = tail[cm.end():]
        if keyword in ("FILTER BY", "ORDER BY"):
            nm = re.match(r"(?is)(.*?)(?=\s+(?:FILTER\s+BY|ORDER\s+BY|PARALLEL|NOPARALLEL|ONLINE)\b|\s*$)", tail)
            body = nm.group(1)
            tail = tail[nm.end():]
            columns = _column_list(body, table, keyword)
            (filter_by if keyword == "FILTER BY" else order_by).extend(columns)
    return paramstring, filter_by, order_by


# ----------------------------------------------------------------------------- create / drop
def create(db: sqlite3.Connection, *, index_name: str, table, columns: list[str], rest: str,
           create_text_index: Callable, load_model: Callable, embed: Callable) -> str:
    """Build both parts; returns the PARAMETERS string to record in the dictionary."""
    if len(columns) != 1:
        raise EngineError(29855, "error occurred in the execution of ODCIINDEXCREATE routine: "
                                 "a hybrid vector index covers one column")
    column = table.column(columns[0])
    if column.data_type == "JSON":
        raise unsupported("hybrid vector index on a JSON column")
    if column.data_type == "BLOB":
        raise unsupported("hybrid vector index on a BLOB column (document filters)")
    if column.data_type not in _TEXT_TYPES:
        raise EngineError(29855, "error occurred in the execution of ODCIINDEXCREATE routine\n"
                                 f"ORA-20000: Oracle Text error:\nDRG-10509: invalid text column: {column.name}")
    paramstring, filter_by, order_by = parse_clauses(rest, table)
    vector, text_params = split_parameters(paramstring)
    if "VECTORIZER" in vector and ("MODEL" in vector or "VECTOR_IDXTYPE" in vector):
        raise _create_error("VECTORIZER cannot be combined with MODEL or VECTOR_IDXTYPE")
    if "VECTORIZER" in vector:
        vectorizer = preferences.load(db, vector["VECTORIZER"])
        if vectorizer.model is None:
            raise _create_error(f"vectorizer preference {preferences.preference_name(vector['VECTORIZER'])} "
                                f"names no model")
        pref = preferences.preference_name(vector["VECTORIZER"])
    elif "MODEL" in vector:
        spec = {"model": vector["MODEL"]}
        if "VECTOR_IDXTYPE" in vector:
            spec["vector_idxtype"] = vector["VECTOR_IDXTYPE"]
        vectorizer = preferences.validate(spec)
        pref = None
    else:
        raise _create_error("MODEL or VECTORIZER is required")
    if vectorizer.distance != "COSINE":
        raise unsupported(f"hybrid vector index with DISTANCE {vectorizer.distance} "
                          f"(the engine converts only COSINE distances to semantic scores)")
    model = load_model(vectorizer.model)
    if model.function != "embedding":
        raise EngineError(40215, f"model {vectorizer.model} is incompatible with current operation "
                                 f"(a hybrid vector index needs an embedding model)")
    create_text_index(index_name, table.storage, column.name, "SEARCH", text_params or None, False)
    vr, vp = shadow(index_name, "VR"), shadow(index_name, "VP")
    db.execute(f"CREATE TABLE {vr} (rid INTEGER NOT NULL, chunk_id INTEGER NOT NULL, chunk_offset INTEGER, "
               f"chunk_length INTEGER, chunk_text TEXT, embedding BLOB NOT NULL, PRIMARY KEY (rid, chunk_id))")
    db.execute(f"CREATE TABLE {vp} (rid INTEGER PRIMARY KEY)")
    qt, qc = q(table.storage), q(column.name)
    db.execute(f"CREATE TRIGGER {shadow(index_name, 'VTI')} AFTER INSERT ON {qt} BEGIN "
               f"INSERT OR IGNORE INTO {vp}(rid) VALUES (NEW.rowid); END")
    db.execute(f"CREATE TRIGGER {shadow(index_name, 'VTU')} AFTER UPDATE ON {qt} "
               f"WHEN OLD.rowid IS NOT NEW.rowid OR OLD.{qc} IS NOT NEW.{qc} BEGIN "
               f"INSERT OR IGNORE INTO {vp}(rid) VALUES (OLD.rowid); "
               f"INSERT OR IGNORE INTO {vp}(rid) VALUES (NEW.rowid); END")
    db.execute(f"CREATE TRIGGER {shadow(index_name, 'VTD')} AFTER DELETE ON {qt} BEGIN "
               f"INSERT OR IGNORE INTO {vp}(rid) VALUES (OLD.rowid); END")
    db.execute(f'INSERT INTO "{META}" VALUES (?,?,?,?,?,?,?,?,?)',
               (index_name, table.storage, column.name, vectorizer.model, json.dumps(vectorizer.as_json()), pref,
                json.dumps(filter_by), json.dumps(order_by), paramstring))
    info = get(db, index_name)
    rids = [r[0] for r in db.execute(f"SELECT rowid FROM {qt} WHERE {qc} IS NOT NULL")]
    _index_documents(db, info, rids, embed)
    return paramstring


def drop(db: sqlite3.Connection, index_name: str) -> bool:
    """Drop the vector part of a hybrid index (the caller drops the text part); False if not hybrid."""
    if get(db, index_name) is None:
        return False
    for suffix in ("VTI", "VTU", "VTD"):
        db.execute(f"DROP TRIGGER IF EXISTS {shadow(index_name, suffix)}")
    for suffix in ("VR", "VP"):
        db.execute(f"DROP TABLE IF EXISTS {shadow(index_name, suffix)}")
    db.execute(f'DELETE FROM "{META}" WHERE index_name = ?', (index_name,))
    return True


def drop_for_table(db: sqlite3.Connection, table: str) -> None:
    for (name,) in db.execute(f'SELECT index_name FROM "{META}" WHERE table_name = ?', (table,)).fetchall():
        drop(db, name)


# ----------------------------------------------------------------------------- sync
def sync(db: sqlite3.Connection, info: HybridIndex, embed: Callable) -> int:
    """Re-chunk and re-embed the pending documents of one index; returns how many were processed."""
    vp = shadow(info.index_name, "VP")
    rids = [r[0] for r in db.execute(f"SELECT rid FROM {vp}")]
    if not rids:
        return 0
    db.execute(f"DELETE FROM {vp}")
    _index_documents(db, info, rids, embed)
    return len(rids)


def has_pending(db: sqlite3.Connection, info: HybridIndex) -> bool:
    return db.execute(f"SELECT 1 FROM {shadow(info.index_name, 'VP')} LIMIT 1").fetchone() is not None


def _index_documents(db: sqlite3.Connection, info: HybridIndex, rids: list[int], embed: Callable) -> None:
    from ..model_support import chunk_text
    vr = shadow(info.index_name, "VR")
    qt, qc = q(info.table_name), q(info.column_name)
    chunks: list[tuple[int, dict]] = []
    for start in range(0, len(rids), 500):
        batch = rids[start:start + 500]
        db.executemany(f"DELETE FROM {vr} WHERE rid = ?", [(r,) for r in batch])
        marks = ",".join("?" * len(batch))
        for rid, value in db.execute(f"SELECT rowid, {qc} FROM {qt} WHERE rowid IN ({marks}) AND {qc} IS NOT NULL",
                                     batch).fetchall():
            for chunk in chunk_text(str(value), info.vectorizer.chunking):
                chunks.append((rid, chunk))
    if not chunks:
        return
    vectors = embed(info.model, [c["chunk_data"] for _, c in chunks])
    db.executemany(f"INSERT INTO {vr} VALUES (?,?,?,?,?,?)",
                   [(rid, c["chunk_id"], c["chunk_offset"], c["chunk_length"], c["chunk_data"],
                     np.asarray(vec, dtype=np.float32).tobytes()) for (rid, c), vec in zip(chunks, vectors)])


def chunks(db: sqlite3.Connection, info: HybridIndex, rids: list[int] | None = None,
           with_vectors: bool = True) -> tuple[np.ndarray, np.ndarray, np.ndarray, list[str]]:
    """Chunks of the index that belong to existing rows (all, or those of `rids`):
    (rids, chunk_ids, float32 matrix, texts), in rowid and chunk order."""
    vr = shadow(info.index_name, "VR")
    where, args = "", []
    if rids is not None:
        if not rids:
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32), []
        where, args = f" WHERE v.rid IN ({','.join('?' * len(rids))})", list(rids)
    rows = db.execute(f"SELECT v.rid, v.chunk_id, {'v.embedding' if with_vectors else 'NULL'}, v.chunk_text "
                      f"FROM {vr} v JOIN {q(info.table_name)} t ON t.rowid = v.rid{where} "
                      f"ORDER BY v.rid, v.chunk_id", args).fetchall()
    if not rows:
        return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int64), np.zeros((0, 0), dtype=np.float32), []
    ids = np.array([r[1] for r in rows], dtype=np.int64)
    matrix = (np.stack([np.frombuffer(r[2], dtype=np.float32) for r in rows]) if with_vectors
              else np.zeros((len(rows), 0), dtype=np.float32))
    return np.array([r[0] for r in rows], dtype=np.int64), ids, matrix, [r[3] for r in rows]

