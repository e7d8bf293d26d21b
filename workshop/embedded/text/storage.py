"""Text index storage in SQLite shadow tables, shared by every process that opens the database file.

Per index ``<IDX>`` (names as Oracle's ``DR$<IDX>$...`` tables):

* ``DR$<IDX>$I (token, rid, freq, pos)``  postings, one row per (token, document); ``pos`` is the word
  positions as little-endian uint32. Primary key (token, rid), WITHOUT ROWID: a token's postings are
  one contiguous range.
* ``DR$<IDX>$K (rid, ntokens, tokens)``   documents in the index: word count and their indexed tokens
  (needed to delete a document's postings when it changes).
* ``DR$<IDX>$V (token, df)``               vocabulary with document frequency (fuzzy/wildcard/stem).
* ``DR$<IDX>$P (rid)``                     pending rowids, filled by triggers on the base table, so
  writes through any path and any process are captured.

``ORA$TEXT_INDEXES`` holds one row per index: base table and column, kind (CONTEXT/SEARCH), sync
mode, JSON flag, stoplist, document count and a random ``generation`` that changes with every index
change, which per-process caches compare against. ``ORA$TEXT_INDEX_ERRORS`` records documents that
could not be indexed (CTX_USER_INDEX_ERRORS).

Every write runs inside a SAVEPOINT: part of the caller's transaction when one is open, committed by
itself otherwise.
"""
from __future__ import annotations

import sqlite3
import struct
import sys
from operator import itemgetter
import uuid
from array import array
from collections import Counter
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass

from .errors import TextIndexError
from .lexer import STOPLISTS, document_positions
from .params import parse_parameters

META = "ORA$TEXT_INDEXES"
ERRORS = "ORA$TEXT_INDEX_ERRORS"
_BATCH = 500


@dataclass(frozen=True)
class TextIndexInfo:
    """One text index as recorded in ORA$TEXT_INDEXES."""
    index_name: str
    table_name: str
    column_name: str
    kind: str            # "CONTEXT" | "SEARCH"
    sync_mode: str       # "AUTO" | "ON COMMIT" | "EVERY" | "MANUAL"
    is_json: bool
    stoplist: str
    parameters: str | None

    @property
    def syncs_at_commit(self) -> bool:
        return self.sync_mode != "MANUAL"

    @property
    def stopwords(self) -> frozenset[str]:
        return STOPLISTS[self.stoplist]


def q(name: str) -> str:
    """Quote an SQLite identifier."""
    return '"' + name.replace('"', '""') + '"'


def shadow(index_name: str, suffix: str) -> str:
    return q(f"DR${index_name}${suffix}")


_META_COLS = "index_name, table_name, column_name, kind, sync_mode, is_json, stoplist, parameters"


def _meta_exists(conn: sqlite3.Connection) -> bool:
    return conn.execute("SELECT 1 FROM sqlite_master WHERE type='table' AND name=?", (META,)).fetchone() is not None


def _ensure_meta(conn: sqlite3.Connection) -> None:
    conn.execute(f"""CREATE TABLE IF NOT EXISTS {q(META)} (
        index_name TEXT PRIMARY KEY COLLATE NOCASE, table_name TEXT NOT NULL COLLATE NOCASE,
        column_name TEXT NOT NULL COLLATE NOCASE, kind TEXT NOT NULL, sync_mode TEXT NOT NULL,
        sync_interval TEXT, is_json INTEGER NOT NULL, stoplist TEXT NOT NULL, parameters TEXT,
        ndocs INTEGER NOT NULL DEFAULT 0, generation TEXT NOT NULL,
        created_at TEXT NOT NULL DEFAULT (datetime('now')))""")
    conn.execute(f"""CREATE TABLE IF NOT EXISTS {q(ERRORS)} (
        index_name TEXT NOT NULL COLLATE NOCASE, rid INTEGER NOT NULL, error_text TEXT NOT NULL,
        error_time TEXT NOT NULL DEFAULT (datetime('now')))""")


def _info(row: tuple) -> TextIndexInfo:
    return TextIndexInfo(row[0], row[1], row[2], row[3], row[4], bool(row[5]), row[6], row[7])


def list_text_indexes(conn: sqlite3.Connection) -> list[TextIndexInfo]:
    if not _meta_exists(conn):
        return []
    return [_info(r) for r in conn.execute(f"SELECT {_META_COLS} FROM {q(META)} ORDER BY index_name")]


def get_index(conn: sqlite3.Connection, index_name: str) -> TextIndexInfo | None:
    if not _meta_exists(conn):
        return None
    row = conn.execute(f"SELECT {_META_COLS} FROM {q(META)} WHERE index_name = ?", (index_name,)).fetchone()
    return _info(row) if row else None


def text_index_for(conn: sqlite3.Connection, table: str, column: str) -> TextIndexInfo | None:
    """The text index on table.column (names compared case-insensitively, as SQLite does), or None."""
    if not _meta_exists(conn):
        return None
    row = conn.execute(f"SELECT {_META_COLS} FROM {q(META)} WHERE table_name = ? AND column_name = ?",
                       (table, column)).fetchone()
    return _info(row) if row else None


@contextmanager
def savepoint(conn: sqlite3.Connection, name: str = "ora_text") -> Iterator[None]:
    conn.execute(f"SAVEPOINT {name}")
    try:
        yield
    except BaseException:
        conn.execute(f"ROLLBACK TO {name}")
        conn.execute(f"RELEASE {name}")
        raise
    conn.execute(f"RELEASE {name}")


_SINGLE = [struct.pack("<I", i) for i in range(4096)]


def pack_positions(positions: list[int]) -> bytes:
    """Word positions -> little-endian uint32 bytes (the on-disk format of DR$<IDX>$I.pos)."""
    if len(positions) == 1 and positions[0] < 4096:
        return _SINGLE[positions[0]]
    packed = array("I", positions)
    if sys.byteorder != "little":
        packed.byteswap()
    return packed.tobytes()


def new_generation() -> str:
    return uuid.uuid4().hex


# --------------------------------------------------------------------------- DDL


def create_text_index(conn: sqlite3.Connection, index_name: str, table: str, column: str, *,
                      kind: str = "CONTEXT", parameters: str | None = None, is_json: bool = False) -> None:
    """CREATE INDEX ... INDEXTYPE IS CTXSYS.CONTEXT / CREATE SEARCH INDEX: shadow tables, triggers and
    (unless NOPOPULATE) all existing rows indexed now, as Oracle does at creation."""
    kind = kind.upper()
    if kind not in ("CONTEXT", "SEARCH"):
        raise ValueError(f"kind must be CONTEXT or SEARCH, not {kind!r}")
    settings = parse_parameters(parameters)
    table_row = conn.execute("SELECT name, sql FROM sqlite_master WHERE type='table' AND name = ? COLLATE NOCASE",
                             (table,)).fetchone()
    if table_row is None:
        raise TextIndexError(942, "ORA-00942: table or view does not exist", f"table {table}")
    table = table_row[0]
    if "WITHOUT ROWID" in (table_row[1] or "").upper():
        raise TextIndexError(3001, "ORA-03001: unimplemented feature: text index on a WITHOUT ROWID table "
                                   "(embedded engine; run against Oracle AI Database)")
    columns = {r[1].upper(): r[1] for r in conn.execute(f"PRAGMA table_info({q(table)})")}
    if column.upper() not in columns:
        raise TextIndexError(904, f'ORA-00904: "{column}": invalid identifier')
    column = columns[column.upper()]
    with savepoint(conn):
        _ensure_meta(conn)
        if get_index(conn, index_name) is not None:
            raise TextIndexError(955, "ORA-00955: name is already used by an existing object", f"index {index_name}")
        taken = conn.execute("SELECT name FROM sqlite_master WHERE name = ? COLLATE NOCASE", (index_name,)).fetchone()
        if taken is not None:
            raise TextIndexError(955, "ORA-00955: name is already used by an existing object", f"{taken[0]}")
        if text_index_for(conn, table, column) is not None:
            raise TextIndexError(29879, "ORA-29879: cannot create multiple domain indexes on a column list "
                                        "using same indextype")
        i_tab, k_tab, v_tab, p_tab = (shadow(index_name, s) for s in "IKVP")
        conn.execute(f"CREATE TABLE {i_tab} (token TEXT NOT NULL, rid INTEGER NOT NULL, freq INTEGER NOT NULL, "
                     f"pos BLOB NOT NULL, PRIMARY KEY (token, rid)) WITHOUT ROWID")
        conn.execute(f"CREATE TABLE {k_tab} (rid INTEGER PRIMARY KEY, ntokens INTEGER NOT NULL, tokens TEXT NOT NULL)")
        conn.execute(f"CREATE TABLE {v_tab} (token TEXT PRIMARY KEY, df INTEGER NOT NULL) WITHOUT ROWID")
        conn.execute(f"CREATE TABLE {p_tab} (rid INTEGER PRIMARY KEY)")
        qt, qc = q(table), q(column)
        conn.execute(f"CREATE TRIGGER {shadow(index_name, 'TI')} AFTER INSERT ON {qt} BEGIN "
                     f"INSERT OR IGNORE INTO {p_tab}(rid) VALUES (NEW.rowid); END")
        conn.execute(f"CREATE TRIGGER {shadow(index_name, 'TU')} AFTER UPDATE ON {qt} "
                     f"WHEN OLD.rowid IS NOT NEW.rowid OR OLD.{qc} IS NOT NEW.{qc} BEGIN "
                     f"INSERT OR IGNORE INTO {p_tab}(rid) VALUES (OLD.rowid); "
                     f"INSERT OR IGNORE INTO {p_tab}(rid) VALUES (NEW.rowid); END")
        conn.execute(f"CREATE TRIGGER {shadow(index_name, 'TD')} AFTER DELETE ON {qt} BEGIN "
                     f"INSERT OR IGNORE INTO {p_tab}(rid) VALUES (OLD.rowid); END")
        conn.execute(f"INSERT INTO {q(META)} (index_name, table_name, column_name, kind, sync_mode, sync_interval, "
                     f"is_json, stoplist, parameters, ndocs, generation) VALUES (?,?,?,?,?,?,?,?,?,0,?)",
                     (index_name, table, column, kind, settings.sync_mode, settings.sync_interval, int(is_json),
                      settings.stoplist, parameters, new_generation()))
        info = get_index(conn, index_name)
        assert info is not None
        if settings.populate:
            _populate(conn, info)


def drop_text_index(conn: sqlite3.Connection, index_name: str) -> None:
    """DROP INDEX: triggers, shadow tables and the metadata row."""
    info = get_index(conn, index_name)
    if info is None:
        raise TextIndexError(1418, "ORA-01418: specified index does not exist", f"index {index_name}")
    name = info.index_name
    with savepoint(conn):
        for suffix in ("TI", "TU", "TD"):
            conn.execute(f"DROP TRIGGER IF EXISTS {shadow(name, suffix)}")
        for suffix in "IKVP":
            conn.execute(f"DROP TABLE IF EXISTS {shadow(name, suffix)}")
        conn.execute(f"DELETE FROM {q(META)} WHERE index_name = ?", (name,))
        conn.execute(f"DELETE FROM {q(ERRORS)} WHERE index_name = ?", (name,))


def drop_indexes_for_table(conn: sqlite3.Connection, table: str) -> None:
    """Drop every text index on `table` (DROP TABLE drops its domain indexes on Oracle)."""
    if not _meta_exists(conn):
        return
    names = [r[0] for r in conn.execute(f"SELECT index_name FROM {q(META)} WHERE table_name = ?", (table,))]
    for name in names:
        drop_text_index(conn, name)


# --------------------------------------------------------------------------- indexing


def pending_count(conn: sqlite3.Connection, info: TextIndexInfo) -> int:
    return conn.execute(f"SELECT count(*) FROM {shadow(info.index_name, 'P')}").fetchone()[0]


def has_pending(conn: sqlite3.Connection, info: TextIndexInfo) -> bool:
    return conn.execute(f"SELECT 1 FROM {shadow(info.index_name, 'P')} LIMIT 1").fetchone() is not None


def sync_pending(conn: sqlite3.Connection, info: TextIndexInfo) -> int:
    """Index every pending rowid (CTX_DDL.SYNC_INDEX); returns how many rowids were processed."""
    p_tab = shadow(info.index_name, "P")
    with savepoint(conn):
        rids = [r[0] for r in conn.execute(f"SELECT rid FROM {p_tab} ORDER BY rid")]
        if not rids:
            return 0
        delta_docs = 0
        for start in range(0, len(rids), _BATCH):
            delta_docs += _reindex(conn, info, rids[start:start + _BATCH])
        conn.execute(f"DELETE FROM {p_tab}")
        _bump(conn, info, delta_docs)
    return len(rids)


def _bump(conn: sqlite3.Connection, info: TextIndexInfo, delta_docs: int) -> None:
    conn.execute(f"UPDATE {q(META)} SET ndocs = ndocs + ?, generation = ? WHERE index_name = ?",
                 (delta_docs, new_generation(), info.index_name))


def _populate(conn: sqlite3.Connection, info: TextIndexInfo) -> None:
    """Index every existing row. Postings go to a temporary table first and are copied in key order,
    which appends to the B-tree instead of inserting at random places (about 20% faster)."""
    stage = q(f"ora_text_stage_{new_generation()}")
    conn.execute(f"CREATE TEMP TABLE {stage} (token TEXT, rid INTEGER, freq INTEGER, pos BLOB)")
    try:
        last, total, df = None, 0, Counter()
        # CAST: read the stored text itself, not what a column-type converter makes of it.
        sql = (f"SELECT rowid, CAST({q(info.column_name)} AS TEXT) FROM {q(info.table_name)} "
               f"WHERE rowid > ? ORDER BY rowid LIMIT 5000")
        while True:
            rows = conn.execute(sql, (last if last is not None else -(2 ** 63),)).fetchall()
            if not rows:
                break
            total += _write_docs(conn, info, rows, df, postings_table=stage, update_vocabulary=False)
            last = rows[-1][0]
        conn.execute(f"INSERT INTO {shadow(info.index_name, 'I')} (token, rid, freq, pos) "
                     f"SELECT token, rid, freq, pos FROM {stage} ORDER BY token, rid")
        _update_vocabulary(conn, info, df)
    finally:
        conn.execute(f"DROP TABLE temp.{stage}")
    _bump(conn, info, total)


def _reindex(conn: sqlite3.Connection, info: TextIndexInfo, rids: list[int]) -> int:
    """Replace the index entries of `rids` by their current base-table values; returns delta of ndocs."""
    name = info.index_name
    marks = ",".join("?" * len(rids))
    old = conn.execute(f"SELECT rid, tokens FROM {shadow(name, 'K')} WHERE rid IN ({marks})", rids).fetchall()
    df_delta: Counter = Counter()
    gone = []
    for rid, tokens in old:
        for token in tokens.split():
            gone.append((token, rid))
            df_delta[token] -= 1
    if gone:
        conn.executemany(f"DELETE FROM {shadow(name, 'I')} WHERE token = ? AND rid = ?", gone)
    conn.execute(f"DELETE FROM {shadow(name, 'K')} WHERE rid IN ({marks})", rids)
    conn.execute(f"DELETE FROM {q(ERRORS)} WHERE index_name = ? AND rid IN ({marks})", [name, *rids])
    rows = conn.execute(f"SELECT rowid, CAST({q(info.column_name)} AS TEXT) FROM {q(info.table_name)} "
                        f"WHERE rowid IN ({marks})", rids).fetchall()
    added = _write_docs(conn, info, rows, df_delta)
    return added - len(old)


def _write_docs(conn: sqlite3.Connection, info: TextIndexInfo, rows: list, df_delta: Counter, *,
                postings_table: str | None = None, update_vocabulary: bool = True) -> int:
    """Index (rowid, value) rows and add the new documents to df_delta; returns how many were indexed."""
    stop = info.stopwords
    postings, docs, errors = [], [], []
    for rid, value in rows:
        try:
            result = document_positions(value, info.is_json)
        except ValueError as exc:
            errors.append((info.index_name, rid, f"DRG-11440: JSON document could not be parsed: {exc}"))
            continue
        if result is None:
            continue
        positions, npos = result
        tokens = [t for t in positions if t not in stop]
        for token in tokens:
            pos = positions[token]
            postings.append((token, rid, len(pos), pack_positions(pos)))
            df_delta[token] += 1
        docs.append((rid, npos, " ".join(tokens)))
    name = info.index_name
    if postings_table is None:
        postings.sort(key=itemgetter(0))
    conn.executemany(f"INSERT INTO {postings_table or shadow(name, 'I')} (token, rid, freq, pos) VALUES (?,?,?,?)",
                     postings)
    conn.executemany(f"INSERT INTO {shadow(name, 'K')} (rid, ntokens, tokens) VALUES (?,?,?)", docs)
    if errors:
        conn.executemany(f"INSERT INTO {q(ERRORS)} (index_name, rid, error_text) VALUES (?,?,?)", errors)
    if update_vocabulary:
        _update_vocabulary(conn, info, df_delta)
    return len(docs)


def _update_vocabulary(conn: sqlite3.Connection, info: TextIndexInfo, df_delta: Counter) -> None:
    changes = [(t, d) for t, d in df_delta.items() if d]
    if changes:
        v_tab = shadow(info.index_name, "V")
        conn.executemany(f"INSERT INTO {v_tab} (token, df) VALUES (?, ?) "
                         f"ON CONFLICT(token) DO UPDATE SET df = df + excluded.df", changes)
        conn.executemany(f"DELETE FROM {v_tab} WHERE token = ? AND df <= 0", [(t,) for t, d in changes if d < 0])
