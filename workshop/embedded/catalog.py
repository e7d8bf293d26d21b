"""The engine's data dictionary: Oracle metadata kept in ORA$ tables inside the SQLite file.

Oracle facts SQLite cannot hold (exact-case names, VARCHAR2 lengths, vector dimensions, index
types, comments) live here, and the USER_/ALL_ dictionary views learners query are SQLite views
over these tables, so they are always consistent with the data.
"""
from __future__ import annotations

import re

import sqlite3
from dataclasses import dataclass, field

SCHEMA_OWNER = "WORKSHOP"

_BOOTSTRAP = [
    """CREATE TABLE IF NOT EXISTS "ORA$META" (key TEXT PRIMARY KEY, value)""",
    """INSERT OR IGNORE INTO "ORA$META" VALUES ('ddl_version', 0)""",
    """CREATE TABLE IF NOT EXISTS "ORA$TABLES" (table_name TEXT PRIMARY KEY, kind TEXT NOT NULL,
        comments TEXT, view_text TEXT, created TEXT)""",
    """CREATE TABLE IF NOT EXISTS "ORA$COLUMNS" (table_name TEXT, column_name TEXT, column_id INTEGER,
        data_type TEXT, data_length INTEGER, char_semantics TEXT, data_precision INTEGER, data_scale INTEGER,
        nullable TEXT, vector_dimensions INTEGER, vector_format TEXT, identity_column TEXT,
        identity_kind TEXT, data_default TEXT, comments TEXT, PRIMARY KEY (table_name, column_name))""",
    """CREATE TABLE IF NOT EXISTS "ORA$INDEXES" (index_name TEXT PRIMARY KEY, table_name TEXT,
        index_type TEXT, uniqueness TEXT, columns TEXT, ityp_owner TEXT, ityp_name TEXT,
        parameters TEXT, vector_organization TEXT, vector_distance TEXT, target_accuracy INTEGER)""",
    """CREATE TABLE IF NOT EXISTS "ORA$CONSTRAINTS" (constraint_name TEXT PRIMARY KEY, table_name TEXT,
        constraint_type TEXT, search_condition TEXT, columns TEXT, r_table_name TEXT, index_name TEXT)""",
    """CREATE TABLE IF NOT EXISTS "ORA$SEQUENCES" (sequence_name TEXT PRIMARY KEY, last_number INTEGER,
        increment_by INTEGER, min_value INTEGER)""",
    """CREATE TABLE IF NOT EXISTS "ORA$VERSIONS" (table_name TEXT PRIMARY KEY, version INTEGER)""",
    # Where an object is kept under another SQLite name (see `assign_storage`): only such objects have a row.
    """CREATE TABLE IF NOT EXISTS "ORA$STORAGE" (object_name TEXT NOT NULL, namespace TEXT NOT NULL,
        stored_name TEXT NOT NULL UNIQUE COLLATE NOCASE, PRIMARY KEY (object_name, namespace))""",
    """CREATE TABLE IF NOT EXISTS "DUAL" (DUMMY TEXT)""",
    """INSERT INTO "DUAL" SELECT 'X' WHERE NOT EXISTS (SELECT 1 FROM "DUAL")""",
]

#: DATA_LENGTH as Oracle reports it (bytes; CHAR-semantics columns at 4 bytes a character in AL32UTF8).
_DATA_LENGTH = """CASE WHEN char_semantics = 'CHAR' AND data_type IN ('VARCHAR2', 'CHAR') THEN data_length * 4
        WHEN data_type IN ('NVARCHAR2', 'NCHAR') THEN data_length * 2
        WHEN data_length IS NOT NULL THEN data_length
        WHEN data_type IN ('NUMBER', 'FLOAT') THEN 22 WHEN data_type = 'DATE' THEN 7
        WHEN data_type = 'TIMESTAMP' THEN 11 WHEN data_type LIKE 'TIMESTAMP WITH%' THEN 13
        WHEN data_type IN ('CLOB', 'NCLOB', 'BLOB') THEN 4000 WHEN data_type = 'BINARY_DOUBLE' THEN 8
        WHEN data_type = 'BOOLEAN' THEN 1 WHEN data_type = 'JSON' THEN 8200 END"""

#: USER_INDEXES.INDEX_SUBTYPE of a vector index, as Oracle spells it (NULL for other indexes).
_INDEX_SUBTYPE = """CASE WHEN index_type = 'VECTOR' THEN CASE vector_organization
        WHEN 'NEIGHBOR PARTITIONS' THEN 'NEIGHBOR_PARTITIONS_IVF' ELSE 'INMEMORY_NEIGHBOR_GRAPH_HNSW' END END"""
#: Views Oracle keeps in another schema: reachable only as <owner>.<name>.
OWNED_VIEWS = {"VECTOR$INDEX": "VECSYS"}

_VIEWS = {
    "USER_TABLES": """SELECT table_name AS TABLE_NAME, 'VALID' AS STATUS, NULL AS NUM_ROWS
        FROM "ORA$TABLES" WHERE kind = 'TABLE'""",
    "ALL_TABLES": f"""SELECT '{SCHEMA_OWNER}' AS OWNER, table_name AS TABLE_NAME, 'VALID' AS STATUS
        FROM "ORA$TABLES" WHERE kind = 'TABLE'""",
    "USER_VIEWS": """SELECT table_name AS VIEW_NAME, view_text AS TEXT FROM "ORA$TABLES" WHERE kind = 'VIEW'""",
    "ALL_VIEWS": f"""SELECT '{SCHEMA_OWNER}' AS OWNER, table_name AS VIEW_NAME, view_text AS TEXT
        FROM "ORA$TABLES" WHERE kind = 'VIEW'""",
    "USER_TAB_COLUMNS": """SELECT table_name AS TABLE_NAME, column_name AS COLUMN_NAME, data_type AS DATA_TYPE,
        """ + _DATA_LENGTH + """ AS DATA_LENGTH, data_precision AS DATA_PRECISION, data_scale AS DATA_SCALE,
        CASE WHEN char_semantics IS NOT NULL THEN data_length ELSE 0 END AS CHAR_LENGTH,
        nullable AS NULLABLE, column_id AS COLUMN_ID, data_default AS DATA_DEFAULT,
        identity_column AS IDENTITY_COLUMN, CASE char_semantics WHEN 'CHAR' THEN 'C' WHEN 'BYTE' THEN 'B' END
        AS CHAR_USED
        FROM "ORA$COLUMNS\"""",
    "ALL_TAB_COLUMNS": f"""SELECT '{SCHEMA_OWNER}' AS OWNER, table_name AS TABLE_NAME, column_name AS COLUMN_NAME,
        data_type AS DATA_TYPE, {_DATA_LENGTH} AS DATA_LENGTH, data_precision AS DATA_PRECISION,
        data_scale AS DATA_SCALE, nullable AS NULLABLE, column_id AS COLUMN_ID FROM "ORA$COLUMNS\"""",
    "USER_INDEXES": """SELECT index_name AS INDEX_NAME, table_name AS TABLE_NAME, index_type AS INDEX_TYPE,
        uniqueness AS UNIQUENESS, ityp_owner AS ITYP_OWNER, ityp_name AS ITYP_NAME, 'VALID' AS STATUS,
        CASE WHEN index_type = 'DOMAIN' THEN 'VALID' END AS DOMIDX_STATUS, parameters AS PARAMETERS,
        """ + _INDEX_SUBTYPE + """ AS INDEX_SUBTYPE FROM "ORA$INDEXES\"""",
    "ALL_INDEXES": f"""SELECT '{SCHEMA_OWNER}' AS OWNER, index_name AS INDEX_NAME, '{SCHEMA_OWNER}' AS TABLE_OWNER,
        table_name AS TABLE_NAME, index_type AS INDEX_TYPE, uniqueness AS UNIQUENESS, ityp_owner AS ITYP_OWNER,
        ityp_name AS ITYP_NAME, 'VALID' AS STATUS, {_INDEX_SUBTYPE} AS INDEX_SUBTYPE FROM "ORA$INDEXES\"""",
    # Oracle's catalog table of vector index parameters (VECSYS.VECTOR$INDEX, reachable only with the VECSYS
    # owner): IDX_PARAMS is the JSON Oracle shows (type, distance, accuracy, indexed_col, vector_type/dimension).
    "VECTOR$INDEX": """SELECT i.index_name AS IDX_NAME, i.table_name AS IDX_BASE_TABLE_NAME,
        json_object('type', CASE i.vector_organization WHEN 'NEIGHBOR PARTITIONS' THEN 'IVF' ELSE 'HNSW' END,
            'distance', CASE i.vector_distance WHEN 'L2' THEN 'EUCLIDEAN' WHEN 'L2_SQUARED' THEN 'EUCLIDEAN_SQUARED'
                WHEN 'L1' THEN 'MANHATTAN' ELSE i.vector_distance END,
            'accuracy', i.target_accuracy, 'indexed_col', json_extract(i.columns, '$[0]'),
            'vector_type', c.vector_format, 'vector_dimension', c.vector_dimensions) AS IDX_PARAMS
        FROM "ORA$INDEXES" i LEFT JOIN "ORA$COLUMNS" c
          ON c.table_name = i.table_name AND c.column_name = json_extract(i.columns, '$[0]')
        WHERE i.index_type = 'VECTOR'""",
    "USER_IND_COLUMNS": """SELECT i.index_name AS INDEX_NAME, i.table_name AS TABLE_NAME, j.value AS COLUMN_NAME,
        j.key + 1 AS COLUMN_POSITION FROM "ORA$INDEXES" i, json_each(i.columns) j""",
    "USER_TAB_COMMENTS": """SELECT table_name AS TABLE_NAME, kind AS TABLE_TYPE, comments AS COMMENTS
        FROM "ORA$TABLES\"""",
    "ALL_TAB_COMMENTS": f"""SELECT '{SCHEMA_OWNER}' AS OWNER, table_name AS TABLE_NAME, kind AS TABLE_TYPE,
        comments AS COMMENTS FROM "ORA$TABLES\"""",
    "USER_COL_COMMENTS": """SELECT table_name AS TABLE_NAME, column_name AS COLUMN_NAME, comments AS COMMENTS
        FROM "ORA$COLUMNS\"""",
    "ALL_COL_COMMENTS": f"""SELECT '{SCHEMA_OWNER}' AS OWNER, table_name AS TABLE_NAME, column_name AS COLUMN_NAME,
        comments AS COMMENTS FROM "ORA$COLUMNS\"""",
    "USER_CONSTRAINTS": """SELECT constraint_name AS CONSTRAINT_NAME, constraint_type AS CONSTRAINT_TYPE,
        table_name AS TABLE_NAME, search_condition AS SEARCH_CONDITION, search_condition AS SEARCH_CONDITION_VC,
        r_table_name AS R_TABLE_NAME, index_name AS INDEX_NAME, 'ENABLED' AS STATUS FROM "ORA$CONSTRAINTS\"""",
    "USER_CONS_COLUMNS": """SELECT c.constraint_name AS CONSTRAINT_NAME, c.table_name AS TABLE_NAME,
        j.value AS COLUMN_NAME, j.key + 1 AS POSITION FROM "ORA$CONSTRAINTS" c, json_each(c.columns) j""",
    "USER_SEQUENCES": """SELECT sequence_name AS SEQUENCE_NAME, increment_by AS INCREMENT_BY,
        last_number AS LAST_NUMBER, min_value AS MIN_VALUE FROM "ORA$SEQUENCES\"""",
    "USER_OBJECTS": """SELECT table_name AS OBJECT_NAME, kind AS OBJECT_TYPE, 'VALID' AS STATUS, created AS CREATED
        FROM "ORA$TABLES" UNION ALL SELECT index_name, 'INDEX', 'VALID', NULL FROM "ORA$INDEXES"
        UNION ALL SELECT sequence_name, 'SEQUENCE', 'VALID', NULL FROM "ORA$SEQUENCES\"""",
    "V$VERSION": """SELECT 'Oracle AI Database 26ai (embedded engine on SQLite ' || sqlite_version() || ')' AS BANNER,
        'Oracle AI Database 26ai (embedded engine on SQLite ' || sqlite_version() || ')' AS BANNER_FULL,
        '23.26.0.0.0' AS VERSION_FULL""",
}

#: The core's dictionary views and pseudo-tables (an engine adds its plug-ins' views to its own `SqlNames`).
CORE_DICTIONARY = frozenset(_VIEWS) | {"DUAL"}


#: Bump when a dictionary view changes: existing database files then get their views rebuilt.
CATALOG_VERSION = 7


def bootstrap(conn: sqlite3.Connection, extra_views: dict[str, str] | None = None,
              extra_tables: list[str] | None = None) -> None:
    """Create the ORA$ tables and dictionary views if the file is new or its views are stale (idempotent)."""
    views = dict(_VIEWS, **(extra_views or {}))
    existing = {r[0] for r in conn.execute("SELECT name FROM sqlite_master WHERE type IN ('view', 'table')")}
    extra_names = [m.group(1) for m in (re.match(r'\s*CREATE TABLE IF NOT EXISTS "([^"]+)"', s)
                                        for s in extra_tables or []) if m]
    if "ORA$META" in existing and all(v in existing for v in views) and _catalog_version(conn) == CATALOG_VERSION \
            and all(name in existing for name in extra_names):      # an extension's tables on an older file
        return
    conn.execute("BEGIN IMMEDIATE")
    try:
        for stmt in _BOOTSTRAP + list(extra_tables or []):
            conn.execute(stmt)
        stale = _catalog_version(conn) != CATALOG_VERSION
        for name, body in views.items():
            if stale:
                conn.execute(f'DROP VIEW IF EXISTS "{name}"')
            conn.execute(f'CREATE VIEW IF NOT EXISTS "{name}" AS {body}')
        conn.execute("INSERT OR REPLACE INTO \"ORA$META\" VALUES ('catalog_version', ?)", (CATALOG_VERSION,))
        conn.execute("COMMIT")
    except BaseException:
        conn.execute("ROLLBACK")
        raise


def _catalog_version(conn: sqlite3.Connection) -> int | None:
    try:
        row = conn.execute("SELECT value FROM \"ORA$META\" WHERE key = 'catalog_version'").fetchone()
    except sqlite3.OperationalError:
        return None
    return row[0] if row else None


@dataclass
class Column:
    name: str
    data_type: str
    length: int | None = None
    char_semantics: str | None = None
    precision: int | None = None
    scale: int | None = None
    nullable: bool = True
    vector_dimensions: int | None = None
    vector_format: str | None = None
    identity: str | None = None


@dataclass
class Table:
    name: str
    kind: str
    columns: list[Column] = field(default_factory=list)
    #: The SQLite name the table or view is kept under (`assign_storage`): its Oracle name but for case twins.
    storage: str = ""

    def __post_init__(self):
        self.storage = self.storage or self.name

    def column(self, name: str) -> Column | None:
        for col in self.columns:
            if col.name == name:
                return col
        return None


@dataclass
class Index:
    name: str
    table: str
    index_type: str
    columns: list[str]
    ityp_name: str | None
    parameters: str | None
    distance: str | None
    storage: str = ""

    def __post_init__(self):
        self.storage = self.storage or self.name


@dataclass
class SqlNames:
    """The names one engine's SQL may use beyond its tables, filled while that engine is built (the core's
    function library, then each plug-in): two engines with different plug-ins never see each other's."""

    #: Dictionary views and pseudo-tables a statement may reference (USER_TABLES, DUAL, a plug-in's views).
    dictionary: set[str] = field(default_factory=lambda: set(CORE_DICTIONARY))
    #: Oracle scalar and aggregate functions mapped 1:1 onto ORA_<NAME> user functions.
    scalars: set[str] = field(default_factory=set)
    aggregates: set[str] = field(default_factory=set)
    #: Other functions, package functions included ("DBMS_LOB.SUBSTR"): name -> (registered name, result type).
    functions: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    #: Table functions in FROM: name -> (column names, column Oracle types); the rows come from
    #: `EngineHooks.table_functions`.
    table_functions: dict[str, tuple[list[str], list[str | None]]] = field(default_factory=dict)

    def result_type(self, registered: str) -> str | None:
        """The Oracle type a registered ORA_* function returns, if one was declared."""
        return next((rtype for name, rtype in self.functions.values() if name == registered and rtype), None)


class Catalog:
    """A read-through snapshot of the ORA$ tables, refreshed whenever DDL ran in any process, and the
    function and view names (`names`) of the engine that owns it."""

    def __init__(self, conn: sqlite3.Connection, names: SqlNames | None = None):
        self._conn = conn
        self.names = names if names is not None else SqlNames()
        self._key = None
        self.tables: dict[str, Table] = {}
        self.indexes: dict[str, Index] = {}
        self.sequences: set[str] = set()
        self.policies: dict[str, list] = {}
        self.policy_loader = None

    def version_key(self) -> tuple:
        schema = self._conn.execute("PRAGMA schema_version").fetchone()[0]
        ddl = self._conn.execute("SELECT value FROM \"ORA$META\" WHERE key = 'ddl_version'").fetchone()[0]
        return schema, ddl

    def refresh(self) -> tuple:
        key = self.version_key()
        if key == self._key:
            return key
        tables: dict[str, Table] = {}
        stored = {(name, namespace): storage for name, namespace, storage
                  in self._conn.execute('SELECT object_name, namespace, stored_name FROM "ORA$STORAGE"')}
        for name, kind in self._conn.execute('SELECT table_name, kind FROM "ORA$TABLES"'):
            tables[name] = Table(name, kind, storage=stored.get((name, TABLE_NAMESPACE), name))
        for row in self._conn.execute(
                'SELECT table_name, column_name, data_type, data_length, char_semantics, data_precision, '
                'data_scale, nullable, vector_dimensions, vector_format, identity_kind '
                'FROM "ORA$COLUMNS" ORDER BY table_name, column_id'):
            table = tables.get(row[0])
            if table is not None:
                table.columns.append(Column(row[1], row[2], row[3], row[4], row[5], row[6], row[7] == "Y",
                                            row[8], row[9], row[10]))
        indexes = {}
        import json
        for row in self._conn.execute('SELECT index_name, table_name, index_type, columns, ityp_name, '
                                      'parameters, vector_distance FROM "ORA$INDEXES"'):
            indexes[row[0]] = Index(row[0], row[1], row[2], json.loads(row[3] or "[]"), row[4], row[5], row[6],
                                    stored.get((row[0], INDEX_NAMESPACE), row[0]))
        self.tables, self.indexes = tables, indexes
        self.sequences = {r[0] for r in self._conn.execute('SELECT sequence_name FROM "ORA$SEQUENCES"')}
        self.policies = self.policy_loader() if self.policy_loader else {}
        self._key = key
        return key

    def table(self, name: str) -> Table | None:
        return self.tables.get(name)

    def unique_keys(self, table: str) -> dict[str, list[str]]:
        """A table's unique keys by every name they go by (primary key and unique constraints, their indexes,
        unique indexes) -> column list."""
        import json
        keys: dict[str, list[str]] = {}
        for name, index_name, columns in self._conn.execute(
                'SELECT constraint_name, index_name, columns FROM "ORA$CONSTRAINTS" '
                "WHERE table_name = ? AND constraint_type IN ('P', 'U')", (table,)):
            keys[name] = json.loads(columns)
            if index_name:
                keys[index_name] = keys[name]
        for name, columns in self._conn.execute(
                'SELECT index_name, columns FROM "ORA$INDEXES" WHERE table_name = ? AND uniqueness = \'UNIQUE\'',
                (table,)):
            keys[name] = json.loads(columns)
        return keys

    def dictionary_table(self, name: str) -> Table:
        """A dictionary view (or DUAL) with its real column list, so unknown columns raise ORA-00904."""
        cache = self.__dict__.setdefault("_dictionary", {})
        if name not in cache:
            columns = [Column(row[1], "NUMBER" if row[2] in ("INTEGER", "NUMERIC") else "VARCHAR2")
                       for row in self._conn.execute(f'PRAGMA table_info("{name}")')]
            cache[name] = Table(name, "VIEW", columns)
        return cache[name]

    def vector_index_for(self, table: str, column: str) -> Index | None:
        for index in self.indexes.values():
            if index.table == table and index.index_type == "VECTOR" and index.columns == [column]:
                return index
        return None


# ---------------------------------------------------------------------- storage names
#: Oracle's namespaces that hold SQLite objects (SQL Language Reference, "Database Object Namespaces": tables and
#: views share one, indexes have their own; sequences live only in ORA$SEQUENCES).
TABLE_NAMESPACE, INDEX_NAMESPACE = "TABLE", "INDEX"


def stored_name(conn: sqlite3.Connection, name: str, namespace: str = TABLE_NAMESPACE) -> str:
    """The SQLite name an Oracle table, view or index is kept under (its own name unless `assign_storage` gave it
    another)."""
    row = conn.execute('SELECT stored_name FROM "ORA$STORAGE" WHERE object_name = ? AND namespace = ?',
                       (name, namespace)).fetchone()
    return row[0] if row else name


def assign_storage(conn: sqlite3.Connection, name: str, namespace: str = TABLE_NAMESPACE) -> str:
    """The SQLite name for a new object. Oracle keeps quoted names that differ only in case apart ("Tb1" and "TB1"
    are two tables) and gives indexes a namespace of their own; SQLite folds ASCII case and has one namespace for
    tables, views, indexes and triggers. A name SQLite already holds in any case, as an object or as another
    object's storage name, is kept under `<name>#<n>` instead, recorded in ORA$STORAGE."""
    def taken(candidate: str) -> bool:
        # vector and text indexes have no SQLite object of their name (a text index's tables are named after it)
        return conn.execute("SELECT 1 FROM sqlite_master WHERE name = ?1 COLLATE NOCASE UNION ALL "
                            'SELECT 1 FROM "ORA$STORAGE" WHERE stored_name = ?1 UNION ALL '
                            'SELECT 1 FROM "ORA$INDEXES" WHERE index_name = ?1 COLLATE NOCASE AND ?2 = \'INDEX\'',
                            (candidate, namespace)).fetchone() is not None
    conn.execute('DELETE FROM "ORA$STORAGE" WHERE object_name = ? AND namespace = ?', (name, namespace))
    if not taken(name):
        return name
    number = 2
    while taken(f"{name}#{number}"):
        number += 1
    storage = f"{name}#{number}"
    conn.execute('INSERT INTO "ORA$STORAGE" VALUES (?, ?, ?)', (name, namespace, storage))
    return storage


def object_name(conn: sqlite3.Connection, storage: str, namespace: str = TABLE_NAMESPACE) -> str:
    """The Oracle name of the object kept under a SQLite name (the inverse of `stored_name`)."""
    row = conn.execute('SELECT object_name FROM "ORA$STORAGE" WHERE stored_name = ? COLLATE BINARY '
                       "AND namespace = ?", (storage, namespace)).fetchone()
    return row[0] if row else storage


def release_storage(conn: sqlite3.Connection, name: str, namespace: str = TABLE_NAMESPACE) -> None:
    """Forget a dropped object's storage name."""
    conn.execute('DELETE FROM "ORA$STORAGE" WHERE object_name = ? AND namespace = ?', (name, namespace))


def bump_ddl_version(conn: sqlite3.Connection) -> None:
    conn.execute("UPDATE \"ORA$META\" SET value = value + 1 WHERE key = 'ddl_version'")
