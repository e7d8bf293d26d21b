"""Database facts for checkpoints, read with Oracle SQL from the data dictionary (both engines).

Names follow Oracle's rules: an unquoted name is stored in upper case, so `research_chunks` and
`RESEARCH_CHUNKS` are the same table; pass '"Mixed"' (with the double quotes) for a quoted name.

Vector columns: Oracle's USER_TAB_COLUMNS reports DATA_TYPE 'VECTOR' but not the declared
dimensions or format. python-oracledb reports them when a query describes the column
(`FetchInfo.vector_dimensions` / `.vector_format`), so `column_types` describes
`SELECT <vector columns> FROM <table> WHERE 1 = 0`. The embedded engine's cursor description does
not carry these attributes (yet); for it the same facts come from its dictionary's
VECTOR_DIMENSIONS / VECTOR_FORMAT columns. Which path runs is decided by what the driver's
description offers, not by engine name.
"""
from __future__ import annotations

import re
from typing import Any, Callable, NamedTuple

import oracledb

from .expect import fail

INDEX_KINDS = ("NORMAL", "VECTOR", "DOMAIN")
_CHARACTER_TYPES = ("CHAR", "VARCHAR2", "NCHAR", "NVARCHAR2", "RAW")
_UNQUOTED = re.compile(r"^[A-Za-z][A-Za-z0-9_$#]*$")

TABLE_HINT = ("Run the cell that creates it, and check the name. Unquoted names are stored in upper case, so "
              "research_chunks and RESEARCH_CHUNKS are the same table.")
COMMIT_HINT = ("Call conn.commit() after your INSERT/UPDATE/DELETE: other sessions (the checkpoint's second "
               "connection, the next notebook) only see committed rows.")


class ColumnType(NamedTuple):
    """A column's declared type as the dictionary reports it."""

    data_type: str                       # 'VARCHAR2', 'NUMBER', 'VECTOR', 'TIMESTAMP(6)', ...
    length: int | None = None            # declared length of character/RAW columns (CHAR or BYTE units)
    precision: int | None = None         # NUMBER/FLOAT precision
    scale: int | None = None             # NUMBER scale
    vector_dimensions: int | None = None  # VECTOR(n, ...); None for '*'
    vector_format: str | None = None     # 'FLOAT32' | 'FLOAT64' | 'INT8' | 'BINARY'; None for '*'
    nullable: bool = True

    def declaration(self) -> str:
        """The type as a CREATE TABLE would spell it: VARCHAR2(200), NUMBER(10,0), VECTOR(384, FLOAT32)."""
        if self.data_type == "VECTOR":
            return f"VECTOR({self.vector_dimensions or '*'}, {self.vector_format or '*'})"
        if self.data_type in _CHARACTER_TYPES and self.length is not None:
            return f"{self.data_type}({self.length})"
        if self.data_type == "NUMBER" and self.precision is not None:
            return f"NUMBER({self.precision},{self.scale or 0})"
        return self.data_type


def dictionary_name(name: str) -> str:
    """How the dictionary stores a name: unquoted -> upper case; '"Quoted"' -> as written."""
    if len(name) > 2 and name.startswith('"') and name.endswith('"'):
        return name[1:-1]
    if not _UNQUOTED.match(name):
        raise ValueError(f"{name!r} is not a valid unquoted Oracle name; quote it like '\"{name}\"'")
    return name.upper()


def _quoted(name: str) -> str:
    return '"' + dictionary_name(name).replace('"', '""') + '"'


def _fetchall(conn: oracledb.Connection, sql: str, binds: dict | None = None) -> list[tuple]:
    with conn.cursor() as cur:
        cur.execute(sql, binds or {})
        return cur.fetchall()


def table_exists(conn: oracledb.Connection, name: str) -> bool:
    rows = _fetchall(conn, "SELECT COUNT(*) FROM user_tables WHERE table_name = :name", {"name": dictionary_name(name)})
    return rows[0][0] > 0


def column_types(conn: oracledb.Connection, table: str) -> dict[str, ColumnType]:
    """Column name -> ColumnType, in column order; {} if the table does not exist."""
    with conn.cursor() as cur:
        cur.execute("SELECT * FROM user_tab_columns WHERE table_name = :name ORDER BY column_id",
                    {"name": dictionary_name(table)})
        names = [d[0].upper() for d in cur.description]
        rows = [dict(zip(names, row)) for row in cur.fetchall()]
    columns: dict[str, ColumnType] = {}
    for row in rows:
        data_type = row["DATA_TYPE"]
        length = None
        if data_type in _CHARACTER_TYPES:
            length = row.get("CHAR_LENGTH") if row.get("CHAR_USED") == "C" and row.get("CHAR_LENGTH") else None
            length = length or row.get("DATA_LENGTH")
        columns[row["COLUMN_NAME"]] = ColumnType(
            data_type, _int(length), _int(row.get("DATA_PRECISION")), _int(row.get("DATA_SCALE")),
            nullable=row.get("NULLABLE") != "N")
    vectors = [name for name, col in columns.items() if col.data_type == "VECTOR"]
    if vectors:
        for name, (dims, fmt) in _vector_shapes(conn, dictionary_name(table), vectors, rows).items():
            columns[name] = columns[name]._replace(vector_dimensions=dims, vector_format=fmt)
    return columns


def _int(value: Any) -> int | None:
    return None if value is None else int(value)


def _vector_shapes(conn: oracledb.Connection, table: str, vector_columns: list[str],
                   dictionary_rows: list[dict]) -> dict[str, tuple[int | None, str | None]]:
    select = ", ".join('"' + c.replace('"', '""') + '"' for c in vector_columns)
    with conn.cursor() as cur:
        cur.execute(f'SELECT {select} FROM "{table}" WHERE 1 = 0')
        description = list(cur.description)
        cur.fetchall()
    if all(hasattr(info, "vector_dimensions") for info in description):
        return {name: (info.vector_dimensions, vector_format_name(info.vector_format))
                for name, info in zip(vector_columns, description)}
    by_name = {row["COLUMN_NAME"]: row for row in dictionary_rows}
    if not all("VECTOR_DIMENSIONS" in by_name[name] for name in vector_columns):
        raise RuntimeError("cannot read vector dimensions: the cursor description has no vector_dimensions and "
                           "USER_TAB_COLUMNS has no VECTOR_DIMENSIONS column")
    return {name: (_int(by_name[name]["VECTOR_DIMENSIONS"]), by_name[name].get("VECTOR_FORMAT") or None)
            for name in vector_columns}


def vector_format_name(value: Any) -> str | None:
    """python-oracledb's VectorFormat (enum or int constant) -> 'FLOAT32' etc.; None for a flexible format."""
    if value is None:
        return None
    if isinstance(value, str):
        return value.upper()
    return oracledb.VectorFormat(value).name


def index_kind(conn: oracledb.Connection, name: str) -> str | None:
    """USER_INDEXES.INDEX_TYPE of an index (NORMAL, VECTOR, DOMAIN, ...), None if there is no such index."""
    rows = _fetchall(conn, "SELECT index_type FROM user_indexes WHERE index_name = :name",
                     {"name": dictionary_name(name)})
    return rows[0][0] if rows else None


def index_exists(conn: oracledb.Connection, name: str, kind: str | None = None) -> bool:
    """The index exists (and is of `kind`: NORMAL, VECTOR or DOMAIN, when given)."""
    wanted = _check_kind(kind)
    found = index_kind(conn, name)
    return found is not None and (wanted is None or found == wanted)


def _check_kind(kind: str | None) -> str | None:
    if kind is None:
        return None
    if kind.upper() not in INDEX_KINDS:
        raise ValueError(f"index kind must be one of {INDEX_KINDS}, not {kind!r}")
    return kind.upper()


def find_indexes(conn: oracledb.Connection, table: str, column: str | None = None,
                 kind: str | None = None) -> list[str]:
    """Names of the indexes on `table` (that include `column`, of `kind`), sorted."""
    sql = "SELECT i.index_name FROM user_indexes i WHERE i.table_name = :tab"
    binds: dict[str, str] = {"tab": dictionary_name(table)}
    wanted = _check_kind(kind)
    if wanted:
        sql += " AND i.index_type = :kind"
        binds["kind"] = wanted
    if column:
        sql += (" AND EXISTS (SELECT 1 FROM user_ind_columns c WHERE c.index_name = i.index_name"
                " AND c.column_name = :col)")
        binds["col"] = dictionary_name(column)
    return [row[0] for row in _fetchall(conn, sql + " ORDER BY i.index_name", binds)]


def _count_sql(table: str, where: str | None) -> str:
    return f"SELECT COUNT(*) FROM {_quoted(table)}" + (f" WHERE {where}" if where else "")


def row_count(conn: oracledb.Connection, table: str, where: str | None = None, binds: dict | None = None) -> int:
    """Rows of `table` this session sees (its own uncommitted changes included)."""
    return int(_fetchall(conn, _count_sql(table, where), binds)[0][0])


def committed_row_count(table: str, where: str | None = None, binds: dict | None = None, *,
                        connect: Callable[[], oracledb.Connection] | None = None) -> int:
    """Rows of `table` a *second* connection sees: only committed rows count.

    `connect` defaults to workshop.db.connect (the configured engine, file or DSN).
    """
    if connect is None:
        from workshop.db import connect
    other = connect()
    try:
        return row_count(other, table, where, binds)
    finally:
        other.close()


# ------------------------------------------------------------------ expectations on database state

def expect_table(conn: oracledb.Connection, name: str, hint: str | None = None) -> None:
    if not table_exists(conn, name):
        fail(f"table {dictionary_name(name)} does not exist", hint or TABLE_HINT, nothing_yet=True)


def _type_matches(expected: str, actual: str) -> bool:
    expected, actual = expected.upper(), actual.upper()
    return actual == expected or ("(" not in expected and re.sub(r"\(\d+\)", "", actual) == expected)


def expect_column(conn: oracledb.Connection, table: str, column: str, data_type: str | None = None, *,
                  length: int | None = None, precision: int | None = None, scale: int | None = None,
                  dims: int | None = None, fmt: str | None = None, nullable: bool | None = None,
                  hint: str | None = None) -> ColumnType:
    """The table has the column, with the given type facts (only those given are checked)."""
    expect_table(conn, table, hint)
    columns = column_types(conn, table)
    table_name, column_name = dictionary_name(table), dictionary_name(column)
    if column_name not in columns:
        fail(f"table {table_name} has no column {column_name} (it has {', '.join(columns)})",
             hint or "Check the column names in your CREATE TABLE statement.")
    actual = columns[column_name]
    wanted = {"length": length, "precision": precision, "scale": scale, "vector_dimensions": dims,
              "vector_format": fmt.upper() if fmt else None}
    wrong = (data_type is not None and not _type_matches(data_type, actual.data_type)) or any(
        value is not None and getattr(actual, field) != value for field, value in wanted.items())
    if wrong:
        expected = ColumnType(data_type.upper() if data_type else actual.data_type, length or actual.length,
                              precision or actual.precision, scale if scale is not None else actual.scale,
                              dims or actual.vector_dimensions, wanted["vector_format"] or actual.vector_format)
        fail(f"column {table_name}.{column_name} is {actual.declaration()}, expected {expected.declaration()}",
             hint or "Fix the column's type in your CREATE TABLE, then drop and re-create the table.")
    if nullable is not None and actual.nullable != nullable:
        fail(f"column {table_name}.{column_name} is {'nullable' if actual.nullable else 'NOT NULL'}, expected "
             f"{'nullable' if nullable else 'NOT NULL'}",
             hint or "Add (or remove) NOT NULL on the column in your CREATE TABLE.")
    return actual


def expect_index(conn: oracledb.Connection, name: str | None = None, *, table: str | None = None,
                 column: str | None = None, kind: str | None = None, hint: str | None = None) -> str:
    """An index called `name` exists, or (without a name) some index on table(column); of `kind` if given.

    Returns the index name.
    """
    wanted = _check_kind(kind)
    kind_text = f"{wanted} " if wanted else ""
    if name is not None:
        found = index_kind(conn, name)
        if found is None:
            fail(f"index {dictionary_name(name)} does not exist",
                 hint or "Run your CREATE INDEX statement, and check the index name.", nothing_yet=True)
        if wanted and found != wanted:
            fail(f"index {dictionary_name(name)} is a {found} index, expected a {wanted} index",
                 hint or _kind_hint(wanted))
        return dictionary_name(name)
    if table is None:
        raise ValueError("expect_index needs an index name or a table")
    expect_table(conn, table, hint)
    names = find_indexes(conn, table, column, wanted)
    if not names:
        target = f"{dictionary_name(table)}({dictionary_name(column)})" if column else dictionary_name(table)
        fail(f"there is no {kind_text}index on {target}", hint or _kind_hint(wanted), nothing_yet=True)
    return names[0]


def _kind_hint(kind: str | None) -> str:
    return {
        "VECTOR": "Create it with CREATE VECTOR INDEX ... ORGANIZATION INMEMORY NEIGHBOR GRAPH DISTANCE COSINE.",
        "DOMAIN": "An Oracle Text index is CREATE INDEX ... INDEXTYPE IS CTXSYS.CONTEXT.",
    }.get(kind or "", "Run your CREATE INDEX statement, and check the index name.")


def expect_row_count(conn: oracledb.Connection, table: str, *, exactly: int | None = None,
                     at_least: int | None = None, at_most: int | None = None, where: str | None = None,
                     binds: dict | None = None, hint: str | None = None) -> int:
    """The table (rows matching `where`) holds exactly / at least / at most so many rows. Returns the count."""
    expect_table(conn, table, hint)
    count = row_count(conn, table, where, binds)
    subject = f"{dictionary_name(table)}" + (f" (WHERE {where})" if where else "")
    if exactly is not None and count != exactly:
        fail(f"{subject} has {count} rows, expected {exactly}", hint)
    if at_least is not None and count < at_least:
        fail(f"{subject} has {count} rows, expected at least {at_least}",
             hint or "Run your INSERT cell (and check its WHERE/VALUES).")
    if at_most is not None and count > at_most:
        fail(f"{subject} has {count} rows, expected at most {at_most}",
             hint or "Rows may have been inserted twice: delete the extra rows or re-create the table.")
    return count


def expect_committed(conn: oracledb.Connection, table: str, *, where: str | None = None, binds: dict | None = None,
                     at_least: int = 1, connect: Callable[[], oracledb.Connection] | None = None,
                     hint: str | None = None) -> int:
    """The learner's rows are committed: a second connection sees what this session sees (and at least
    `at_least` rows). Returns the committed count."""
    expect_table(conn, table, hint)
    session = row_count(conn, table, where, binds)
    committed = committed_row_count(table, where, binds, connect=connect)
    subject = f"{dictionary_name(table)}" + (f" (WHERE {where})" if where else "")
    if session != committed:
        fail(f"your session sees {session} rows in {subject} but other sessions see {committed}: your changes are "
             "not committed", hint or COMMIT_HINT)
    if committed < at_least:
        fail(f"{subject} has {committed} committed rows, expected at least {at_least}",
             hint or "Run your INSERT cell, then conn.commit().")
    return committed


# ------------------------------------------------------------------ vector indexes and keys

class VectorIndex(NamedTuple):
    """What the dictionary says about a vector index (the same on both engines)."""

    name: str
    table: str
    columns: tuple[str, ...]
    subtype: str | None          # USER_INDEXES.INDEX_SUBTYPE: INMEMORY_NEIGHBOR_GRAPH_HNSW | NEIGHBOR_PARTITIONS_IVF
    distance: str | None         # COSINE, EUCLIDEAN, DOT, ... (VECSYS.VECTOR$INDEX IDX_PARAMS, or the DDL)
    accuracy: int | None         # the index's target accuracy; None when the dictionary shows none

    @property
    def organization(self) -> str:
        """'HNSW' (INMEMORY NEIGHBOR GRAPH), 'IVF' (NEIGHBOR PARTITIONS) or the raw subtype."""
        return {"INMEMORY_NEIGHBOR_GRAPH_HNSW": "HNSW", "NEIGHBOR_PARTITIONS_IVF": "IVF"}.get(self.subtype or "",
                                                                                            self.subtype or "?")


#: Errors that mean "this session may not read VECSYS.VECTOR$INDEX" (then the index DDL is read instead).
_NO_ACCESS = {942, 1031}


def index_columns(conn: oracledb.Connection, name: str) -> tuple[str, ...]:
    rows = _fetchall(conn, "SELECT column_name FROM user_ind_columns WHERE index_name = :name "
                           "ORDER BY column_position", {"name": dictionary_name(name)})
    return tuple(row[0] for row in rows)


def vector_index(conn: oracledb.Connection, name: str) -> VectorIndex | None:
    """The vector index `name`, or None when there is no VECTOR index of that name.

    Organisation from USER_INDEXES.INDEX_SUBTYPE; distance and target accuracy from Oracle's catalog of vector
    index parameters, VECSYS.VECTOR$INDEX (IDX_PARAMS JSON), or, where the session may not read it, from the
    index's DDL (DBMS_METADATA.GET_DDL), read as tokens.
    """
    index = dictionary_name(name)
    rows = _fetchall(conn, "SELECT table_name, index_subtype FROM user_indexes WHERE index_name = :name "
                           "AND index_type = 'VECTOR'", {"name": index})
    if not rows:
        return None
    table, subtype = rows[0]
    distance, accuracy = _vector_params(conn, index)
    return VectorIndex(index, table, index_columns(conn, index), subtype, distance, accuracy)


def _vector_params(conn: oracledb.Connection, index: str) -> tuple[str | None, int | None]:
    try:
        rows = _fetchall(conn, """SELECT JSON_VALUE(idx_params, '$.distance'),
                                         JSON_VALUE(idx_params, '$.accuracy' RETURNING NUMBER)
                                  FROM vecsys.vector$index WHERE idx_name = :name""", {"name": index})
    except oracledb.DatabaseError as exc:
        if getattr(exc.args[0], "code", 0) not in _NO_ACCESS:
            raise
        return _params_from_ddl(conn, index)
    if not rows:
        return None, None
    distance, accuracy = rows[0]
    return (str(distance).upper() if distance else None), (int(accuracy) if accuracy is not None else None)


def _params_from_ddl(conn: oracledb.Connection, index: str) -> tuple[str | None, int | None]:
    from .sql import _tokens
    rows = _fetchall(conn, "SELECT DBMS_METADATA.GET_DDL('INDEX', :name) FROM dual", {"name": index})
    ddl = rows[0][0].read() if hasattr(rows[0][0], "read") else str(rows[0][0])
    words = [t.text.upper() for t in _tokens(ddl)]
    distance = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "DISTANCE"), None)
    accuracy = next((words[i + 1] for i, w in enumerate(words[:-1]) if w == "ACCURACY"), None)
    return distance, (int(accuracy) if accuracy and accuracy.isdigit() else None)


def primary_key(conn: oracledb.Connection, table: str) -> tuple[str, ...]:
    """The columns of the table's primary key, in key order; () when it has none."""
    rows = _fetchall(conn, """SELECT cc.column_name FROM user_constraints c
                              JOIN user_cons_columns cc ON cc.constraint_name = c.constraint_name
                              WHERE c.table_name = :tab AND c.constraint_type = 'P'
                              ORDER BY cc.position""", {"tab": dictionary_name(table)})
    return tuple(row[0] for row in rows)
