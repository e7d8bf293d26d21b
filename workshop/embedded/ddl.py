"""DDL: tables, views, indexes (B-tree, vector, Oracle Text), sequences, comments, truncate.

Each statement updates the SQLite schema and the ORA$ catalog in one transaction, as Oracle DDL
commits implicitly. Index kinds SQLite lacks are recorded in the catalog and backed by engine
structures (the vector cache, the Oracle Text postings).
"""
from __future__ import annotations

import json
import re
import sqlite3


from sqlglot import exp

from . import errors
from .catalog import (INDEX_NAMESPACE, Catalog, Column, Table, assign_storage, bump_ddl_version,
                      release_storage, stored_name)
from .dialect import OracleX, parse
from .hooks import EngineHooks
from .lexing import code_mask, matching_paren, split_top_level, strip_comments
from .dml import column_spec
from .identifiers import check_name, check_table
from .translate import Scope, Translator, normalize_identifiers, unsupported
from .values import SQLITE_DECLTYPES

_IDENT = r'(?:"[^"]+"|[A-Za-z][\w$#]*)'


def ident(text: str) -> str:
    """Oracle identifier rules for a name written in DDL text."""
    text = text.strip()
    if text.startswith('"') and text.endswith('"'):
        return text[1:-1]
    name = text.upper()
    if "." in name:
        owner, _, name = name.partition(".")
    return name


def _strip_owner(text: str) -> str:
    text = text.strip()
    parts = split_dotted(text)
    return parts[-1]


def split_dotted(text: str) -> list[str]:
    parts, current, quoted = [], "", False
    for ch in text:
        if ch == '"':
            quoted = not quoted
            current += ch
        elif ch == "." and not quoted:
            parts.append(current)
            current = ""
        else:
            current += ch
    parts.append(current)
    return [ident(p) for p in parts]


class DdlExecutor:
    """Runs one DDL statement on a SQLite connection inside the caller's transaction."""

    def __init__(self, conn: sqlite3.Connection, catalog: Catalog, hooks: "EngineHooks | None" = None):
        self.conn = conn
        self.catalog = catalog
        self.hooks = hooks if hooks is not None else EngineHooks()

    # ------------------------------------------------------------------ dispatch
    def execute(self, sql: str, words: list[str]) -> None:
        sql = strip_comments(sql).strip().rstrip(";").strip()
        head = " ".join(words[:4])
        if words[:2] == ["CREATE", "TABLE"] or head.startswith("CREATE GLOBAL TEMPORARY"):
            self.create_table(sql)
        elif words[:2] == ["DROP", "TABLE"]:
            self.drop_table(sql)
        elif re.match(r"CREATE (UNIQUE |BITMAP )?INDEX", head) or head.startswith("CREATE SEARCH INDEX") \
                or head.startswith("CREATE VECTOR INDEX") or head.startswith("CREATE HYBRID VECTOR INDEX") \
                or head.startswith("CREATE MULTIVALUE INDEX"):
            self.create_index(sql)
        elif words[:2] == ["DROP", "INDEX"]:
            self.drop_index(sql)
        elif re.match(r"CREATE (OR REPLACE )?(FORCE |NOFORCE |EDITIONABLE |NONEDITIONABLE )?VIEW", head):
            self.create_view(sql)
        elif words[:2] == ["DROP", "VIEW"]:
            self.drop_simple(sql, "VIEW")
        elif words[:2] == ["CREATE", "SEQUENCE"]:
            self.create_sequence(sql)
        elif words[:2] == ["DROP", "SEQUENCE"]:
            self.drop_simple(sql, "SEQUENCE")
        elif words[:2] == ["COMMENT", "ON"]:
            self.comment(sql)
        elif words[:2] == ["TRUNCATE", "TABLE"]:
            self.truncate(sql)
        elif words[:2] == ["ALTER", "TABLE"]:
            self.alter_table(sql)
        else:
            handler = self.hooks.statement_handler(head)
            if handler is None:
                raise unsupported(f"statement {head}")
            handler(sql)
        bump_ddl_version(self.conn)

    def _exists(self, name: str, namespace: str = "table") -> bool:
        """Whether ``name`` is taken in the Oracle namespace of the new object (SQL Language Reference, "Database
        Object Namespaces": tables, views and sequences share one, indexes have their own; an index may share a
        table's name, and `assign_storage` keeps the two apart in SQLite)."""
        if namespace == "index":
            taken = 'SELECT 1 FROM "ORA$INDEXES" WHERE index_name = ?'
        else:
            taken = ('SELECT 1 FROM "ORA$TABLES" WHERE table_name = ?1 UNION ALL '
                     'SELECT 1 FROM "ORA$SEQUENCES" WHERE sequence_name = ?1')
        return self.conn.execute(taken, (name,)).fetchone() is not None

    def _system_name(self) -> str:
        """SYS_Cnnnnnn for an unnamed constraint, from a per-database counter (as Oracle numbers them)."""
        self.conn.execute("INSERT OR IGNORE INTO \"ORA$META\" VALUES ('constraint_seq', 0)")
        self.conn.execute("UPDATE \"ORA$META\" SET value = value + 1 WHERE key = 'constraint_seq'")
        number = self.conn.execute("SELECT value FROM \"ORA$META\" WHERE key = 'constraint_seq'").fetchone()[0]
        return f"SYS_C{number:07d}"

    def _stored(self, referenced: str, creating: str, storage: str) -> str:
        """The SQLite name of a table a foreign key references (the table being created, kept under ``storage``,
        may reference itself)."""
        return storage if referenced == creating else stored_name(self.conn, referenced)

    def _name_in_use(self, name: str) -> errors.EngineError:
        return errors.EngineError(955, "name is already used by an existing object")

    # ------------------------------------------------------------------ tables
    def create_table(self, sql: str) -> None:
        masked = code_mask(sql)
        if re.search(r"(?i)\bAS\s+SELECT\b|\)\s*AS\s*\(?\s*(WITH|SELECT)\b", masked) and \
                not re.search(r"(?i)\bTABLE\s+\S+\s*\(", masked[:200]):
            raise unsupported("CREATE TABLE ... AS SELECT")
        tree = parse(sql)
        if not isinstance(tree, exp.Create) or not isinstance(tree.this, exp.Schema):
            raise unsupported("CREATE TABLE form")
        check_table(tree.this.this)
        for item in tree.this.expressions:
            if isinstance(item, exp.ColumnDef):
                check_name(item.this, "column")
        tree = normalize_identifiers(tree)
        table_name = tree.this.this.name
        if self._exists(table_name):
            if tree.args.get("exists"):
                return
            raise self._name_in_use(table_name)
        columns, table_constraints = [], []
        for item in tree.this.expressions:
            if isinstance(item, exp.ColumnDef):
                columns.append(item)
            else:
                table_constraints.append(item)
        if not columns:
            raise errors.EngineError(904, "a table must have at least one column (the pages do not name this error: "
                                          "probe E18-DDL-NOCOLS)")
        seen: dict[str, str] = {}
        for coldef in columns:
            twin = seen.setdefault(coldef.name.upper(), coldef.name)
            if twin != coldef.name:
                raise unsupported(f'a column "{coldef.name}" beside "{twin}" (names that differ only in case; SQLite, '
                                  "under the engine, folds case)")
        storage = assign_storage(self.conn, table_name)
        sqlite_cols, col_rows, constraint_rows = [], [], []
        translator = Translator(self.catalog)
        pk_columns: list[str] = []
        pk_name: str | None = None
        new_table = Table(table_name, "TABLE", [Column(c.name, _column_type(c.args["kind"])["data_type"])
                                                for c in columns])
        table_scope = Scope()
        table_scope.sources[table_name] = new_table
        for position, coldef in enumerate(columns, start=1):
            spec = _column_type(coldef.args["kind"])
            name = coldef.name
            parts = [f'"{name}"', SQLITE_DECLTYPES[spec["data_type"]]]
            nullable, identity, default_text = "Y", None, None
            for constraint in coldef.args.get("constraints") or []:
                kind = constraint.args["kind"]
                cname = constraint.name or None
                if isinstance(kind, exp.PrimaryKeyColumnConstraint):
                    pk_columns.append(name)
                    pk_name = cname or pk_name
                    nullable = "N"
                elif isinstance(kind, exp.NotNullColumnConstraint):
                    if kind.args.get("allow_null"):
                        continue
                    parts.append("NOT NULL")
                    nullable = "N"
                elif isinstance(kind, exp.UniqueColumnConstraint):
                    cname = cname or self._system_name()
                    parts.append(f'CONSTRAINT "{cname}" UNIQUE')
                    constraint_rows.append((cname, "U", None, [name], None))
                elif isinstance(kind, exp.DefaultColumnConstraint):
                    default_text = kind.this.sql(dialect=OracleX)
                    default_sql = translator.translate_expression(kind.this.copy())
                    default_spec = column_spec(new_table, _spec_column(name, spec))
                    parts.append(f"DEFAULT (ORA_STORE({default_sql}, '{default_spec}'))")
                elif isinstance(kind, exp.CheckColumnConstraint):
                    check = translator.translate_expression(kind.this.copy(), table_scope)
                    cname = cname or self._system_name()
                    parts.append(f'CONSTRAINT "{cname}" CHECK ({check})')
                    constraint_rows.append((cname, "C", kind.this.sql(dialect=OracleX), [name], None))
                elif isinstance(kind, exp.GeneratedAsIdentityColumnConstraint):
                    identity = "ALWAYS" if kind.args.get("this") else "BY DEFAULT"
                    nullable = "N"
                elif isinstance(kind, exp.Reference):
                    ref_table, ref_cols = _reference(kind)
                    cname = cname or self._system_name()
                    parts.append(f'CONSTRAINT "{cname}" REFERENCES "{self._stored(ref_table, table_name, storage)}"' + (f" ({', '.join(chr(34) + c + chr(34) for c in ref_cols)})" if ref_cols else "")
                                 + _on_delete(kind))
                    constraint_rows.append((cname, "R", None, [name], ref_table))
                elif isinstance(kind, exp.CollateColumnConstraint):
                    raise unsupported("COLLATE in a column definition")
                else:
                    raise unsupported(f"column constraint {kind.sql(dialect=OracleX)}")
            if identity and spec["data_type"] not in ("NUMBER", "INTEGER"):
                raise errors.EngineError(30675, "identity column must be a numeric type")
            sqlite_cols.append((name, parts, identity))
            col_rows.append((table_name, name, position, spec["data_type"], spec.get("length"),
                             spec.get("char_semantics"), spec.get("precision"), spec.get("scale"), nullable,
                             spec.get("vector_dimensions"), spec.get("vector_format"),
                             "YES" if identity else "NO", identity, default_text))
        table_sql_constraints = []
        for item in table_constraints:
            cname = item.name if isinstance(item, exp.Constraint) else None
            inner = item.expressions if isinstance(item, exp.Constraint) else [item]
            for kind in inner:
                if isinstance(kind, exp.PrimaryKey):
                    pk_columns.extend(e.name for e in kind.expressions)
                    pk_name = cname or pk_name
                    continue
                cname = cname or self._system_name()
                if isinstance(kind, exp.UniqueColumnConstraint):
                    cols = [e.name for e in kind.this.expressions]
                    table_sql_constraints.append(f'CONSTRAINT "{cname}" UNIQUE (' + ", ".join(f'"{c}"' for c in cols) + ")")
                    constraint_rows.append((cname, "U", None, cols, None))
                elif isinstance(kind, exp.ForeignKey):
                    cols = [e.name for e in kind.expressions]
                    ref_table, ref_cols = _reference(kind.args["reference"])
                    table_sql_constraints.append(
                        f'CONSTRAINT "{cname}" FOREIGN KEY (' + ", ".join(f'"{c}"' for c in cols)
                        + f') REFERENCES "{self._stored(ref_table, table_name, storage)}"'
                        + (" (" + ", ".join(f'"{c}"' for c in ref_cols) + ")" if ref_cols else "")
                        + _on_delete(kind.args["reference"]))
                    constraint_rows.append((cname, "R", None, cols, ref_table))
                elif isinstance(kind, exp.CheckColumnConstraint):
                    check = translator.translate_expression(kind.this.copy(), table_scope)
                    table_sql_constraints.append(f'CONSTRAINT "{cname}" CHECK ({check})')
                    constraint_rows.append((cname, "C", kind.this.sql(dialect=OracleX), [], None))
                else:
                    raise unsupported(f"table constraint {kind.sql(dialect=OracleX)}")
        column_sql = []
        # Only an identity primary key becomes SQLite's rowid alias (which fills NULLs itself);
        # every other key column is NOT NULL, as Oracle enforces (SQLite would accept NULL keys).
        single_int_pk = len(pk_columns) == 1 and any(r[1] == pk_columns[0] and r[12] for r in col_rows)
        for name, parts, identity in sqlite_cols:
            if identity and not (single_int_pk and pk_columns[0] == name):
                raise unsupported("an identity column that is not the single-column primary key")
            if single_int_pk and pk_columns[0] == name:
                parts[1] = "INTEGER"
                parts.insert(2, "PRIMARY KEY AUTOINCREMENT")
            elif name in pk_columns and "NOT NULL" not in parts:
                parts.append("NOT NULL")
            column_sql.append(" ".join(parts))
        if pk_columns and not single_int_pk:
            table_sql_constraints.insert(0, "PRIMARY KEY (" + ", ".join(f'"{c}"' for c in pk_columns) + ")")
        if pk_columns:
            constraint_rows.insert(0, (pk_name or self._system_name(), "P", None, pk_columns, None))
        col_rows = [r if r[1] not in pk_columns else r[:8] + ("N",) + r[9:] for r in col_rows]
        ddl = f'CREATE TABLE "{storage}" (' + ", ".join(column_sql + table_sql_constraints) + ")"
        try:
            self.conn.execute(ddl)
        except sqlite3.OperationalError as exc:
            if "already exists" in str(exc):
                raise self._name_in_use(table_name) from None
            raise
        self.conn.execute('INSERT INTO "ORA$TABLES" (table_name, kind, created) VALUES (?, ?, datetime())',
                          (table_name, "TABLE"))
        self.conn.executemany('INSERT INTO "ORA$COLUMNS" (table_name, column_name, column_id, data_type, '
                              'data_length, char_semantics, data_precision, data_scale, nullable, '
                              'vector_dimensions, vector_format, identity_column, identity_kind, data_default) '
                              'VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?)', col_rows)
        for cname, ctype, condition, cols, ref_table in constraint_rows:
            if self.conn.execute('SELECT 1 FROM "ORA$CONSTRAINTS" WHERE constraint_name = ?', (cname,)).fetchone():
                raise errors.EngineError(2264, "name already used by an existing constraint")
            self.conn.execute('INSERT INTO "ORA$CONSTRAINTS" VALUES (?,?,?,?,?,?,?)',
                              (cname, table_name, ctype, condition, json.dumps(cols), ref_table,
                               cname if ctype in ("P", "U") else None))
            if ctype in ("P", "U"):
                self.conn.execute('INSERT OR IGNORE INTO "ORA$INDEXES" (index_name, table_name, index_type, '
                                  'uniqueness, columns) VALUES (?,?,?,?,?)',
                                  (cname, table_name, "NORMAL", "UNIQUE", json.dumps(cols)))

    @staticmethod
    def _drop_target(sql: str, kind: str, options: str, invalid_code: int) -> tuple[str, bool]:
        """`DROP <kind> [IF EXISTS] [owner.]name [options]` -> (name, if_exists)."""
        m = re.match(r"(?is)DROP\s+" + kind + r"\s+(IF\s+EXISTS\s+)?(" + _IDENT + r"(?:\." + _IDENT + r")?)(.*)$", sql)
        if not m:
            raise errors.EngineError(invalid_code, f"invalid {kind.lower()} name")
        rest = m.group(3).strip().upper()
        if rest and not re.fullmatch(options, rest):
            raise unsupported(f"DROP {kind} option {rest}")
        return _strip_owner(m.group(2)), bool(m.group(1))

    def drop_table(self, sql: str) -> None:
        name, if_exists = self._drop_target(sql, "TABLE", r"(CASCADE\s+CONSTRAINTS\s*)?(PURGE)?", 903)
        row = self.conn.execute('SELECT kind FROM "ORA$TABLES" WHERE table_name = ?', (name,)).fetchone()
        if row is None or row[0] != "TABLE":
            if if_exists:
                return
            raise errors.EngineError(942, f'table or view "{name}" does not exist')
        self.hooks.drop_table(name)
        storage = stored_name(self.conn, name)
        for (index,) in self.conn.execute('SELECT index_name FROM "ORA$INDEXES" WHERE table_name = ?',
                                          (name,)).fetchall():
            release_storage(self.conn, index, INDEX_NAMESPACE)
        self.conn.execute(f'DROP TABLE "{storage}"')
        release_storage(self.conn, name)
        self._drop_version_triggers(name, storage)
        for table in ('"ORA$TABLES"', '"ORA$COLUMNS"', '"ORA$INDEXES"', '"ORA$CONSTRAINTS"', '"ORA$VERSIONS"'):
            self.conn.execute(f"DELETE FROM {table} WHERE table_name = ?", (name,))

    def truncate(self, sql: str) -> None:
        m = re.match(r"(?is)TRUNCATE\s+TABLE\s+(" + _IDENT + r"(?:\." + _IDENT + r")?)", sql)
        name = _strip_owner(m.group(1))
        table = self.catalog.table(name)
        if table is None:
            raise errors.EngineError(942, f'table or view "{name}" does not exist')
        if table.kind != "TABLE":
            raise _view_here("TRUNCATE TABLE", name, "E18-DDL-TRUNCVIEW")
        self.conn.execute(f'DELETE FROM "{table.storage}"')

    def alter_table(self, sql: str) -> None:
        m = re.match(r"(?is)ALTER\s+TABLE\s+(" + _IDENT + r")\s+ADD\s*\((.*)\)\s*$", sql) or \
            re.match(r"(?is)ALTER\s+TABLE\s+(" + _IDENT + r")\s+ADD\s+(?!CONSTRAINT)(.*)$", sql)
        if not m:
            raise unsupported("ALTER TABLE (only ADD column is supported)")
        name = _strip_owner(m.group(1))
        table = self.catalog.table(name)
        if table is None:
            raise errors.EngineError(942, f'table or view "{name}" does not exist')
        if table.kind != "TABLE":
            raise _view_here("ALTER TABLE", name, "E18-DDL-ALTERVIEW")
        for column_text in split_top_level(m.group(2)):
            tree = normalize_identifiers(parse(f"CREATE TABLE ORA$TMP ({column_text})"))
            coldef = tree.this.expressions[0]
            spec = _column_type(coldef.args["kind"])
            if table.column(coldef.name) is not None:
                raise errors.EngineError(1430, "column being added already exists in table")
            twin = next((c.name for c in table.columns if c.name.upper() == coldef.name.upper()), None)
            if twin is not None:
                raise unsupported(f'a column "{coldef.name}" beside "{twin}" (names that differ only in case; '
                                  "SQLite, under the engine, folds case)")
            default_sql, default_text = "", None
            for constraint in coldef.args.get("constraints") or []:
                kind = constraint.args["kind"]
                if isinstance(kind, exp.DefaultColumnConstraint):
                    default_text = kind.this.sql(dialect=OracleX)
                    default_sql = f" DEFAULT ({Translator(self.catalog).translate_expression(kind.this.copy())})"
                else:
                    raise unsupported("ALTER TABLE ADD with constraints")
            self.conn.execute(f'ALTER TABLE "{table.storage}" ADD COLUMN "{coldef.name}" '
                              f'{SQLITE_DECLTYPES[spec["data_type"]]}{default_sql}')
            position = len(table.columns) + 1
            self.conn.execute('INSERT INTO "ORA$COLUMNS" (table_name, column_name, column_id, data_type, '
                              'data_length, char_semantics, data_precision, data_scale, nullable, '
                              'vector_dimensions, vector_format, identity_column, data_default) '
                              'VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?)',
                              (name, coldef.name, position, spec["data_type"], spec.get("length"),
                               spec.get("char_semantics"), spec.get("precision"), spec.get("scale"), "Y",
                               spec.get("vector_dimensions"), spec.get("vector_format"), "NO", default_text))

    # ------------------------------------------------------------------ indexes
    def create_index(self, sql: str) -> None:
        masked = code_mask(sql)
        m = re.match(r"(?is)CREATE\s+(UNIQUE\s+|BITMAP\s+|SEARCH\s+|VECTOR\s+|HYBRID\s+VECTOR\s+|MULTIVALUE\s+)?"
                     r"INDEX\s+(IF\s+NOT\s+EXISTS\s+)?(" + _IDENT + r"(?:\." + _IDENT + r")?)\s+ON\s+("
                     + _IDENT + r"(?:\." + _IDENT + r")?)\s*\(", masked)
        if not m:
            raise errors.EngineError(900, "invalid SQL statement (CREATE INDEX)")
        kind = (m.group(1) or "").strip().upper()
        kind = re.sub(r"\s+", " ", kind)
        index_name = _strip_owner(sql[m.start(3):m.end(3)])
        table_name = _strip_owner(sql[m.start(4):m.end(4)])
        close = matching_paren(sql, m.end() - 1)
        column_texts = split_top_level(sql[m.end():close])
        rest = sql[close + 1:].strip()
        table = self.catalog.table(table_name)
        if table is None:
            raise errors.EngineError(942, f'table or view "{table_name}" does not exist')
        if table.kind != "TABLE":
            # the view exists, so ORA-00942 would be false; ORA-01702's text names the case (probe E18-DDL-IDXVIEW)
            raise errors.EngineError(1702, f'a view is not appropriate here ("{table_name}" is a view; an index '
                                           "is built on a table)")
        if self._exists(index_name, "index"):
            if m.group(2):
                return
            raise self._name_in_use(index_name)
        columns = []
        for text in column_texts:
            cm = re.fullmatch(r'(?is)\s*(' + _IDENT + r')\s*(ASC|DESC)?\s*', text)
            if not cm:
                raise unsupported(f"function-based index on {text}")
            col = ident(cm.group(1))
            if table.column(col) is None:
                raise errors.EngineError(904, f'"{col}": invalid identifier')
            columns.append(col)
        if kind == "HYBRID VECTOR":
            create_hybrid = self.hooks.create_hybrid_index
            if create_hybrid is None:
                raise unsupported("CREATE HYBRID VECTOR INDEX")
            # the plug-ins that keep SQLite objects are handed storage names (catalog.assign_storage), here as below
            create_hybrid(index_name, assign_storage(self.conn, index_name, INDEX_NAMESPACE), table, columns, rest)
            return
        if kind == "MULTIVALUE":
            raise unsupported("CREATE MULTIVALUE INDEX")
        if kind == "VECTOR":
            self._create_vector_index(index_name, table, columns, rest)
            return
        if kind == "SEARCH" or re.search(r"(?i)\bINDEXTYPE\s+IS\b", rest):
            self._create_text_index(index_name, table, columns, rest, search=(kind == "SEARCH"))
            return
        if rest and not re.fullmatch(r"(?is)(TABLESPACE\s+\w+|COMPUTE\s+STATISTICS|ONLINE|PARALLEL\s*\d*|"
                                     r"NOPARALLEL|LOGGING|NOLOGGING|\s)*", rest):
            raise unsupported(f"CREATE INDEX option {rest[:40]}")
        for existing in self.catalog.indexes.values():
            if existing.table == table_name and existing.columns == columns and existing.index_type == "NORMAL":
                if m.group(2):
                    # CREATE INDEX IF NOT EXISTS on a column list an index (a primary key's) already covers: a no-op.
                    # The SQL Language Reference (CREATE INDEX, "IF NOT EXISTS") speaks of an existing index only;
                    # langgraph-oracledb's OracleStore.setup() sends exactly this and works on 23ai Free, so Oracle
                    # treats the covering index as the existing one. verify_oracle probe E18-IDX records it.
                    return
                raise errors.EngineError(1408, "such column list already indexed")
        unique = "UNIQUE " if kind == "UNIQUE" else ""
        cols_sql = ", ".join(f'"{c}"' for c in columns)
        storage = assign_storage(self.conn, index_name, INDEX_NAMESPACE)
        self.conn.execute(f'CREATE {unique}INDEX "{storage}" ON "{table.storage}" ({cols_sql})')
        self.conn.execute('INSERT INTO "ORA$INDEXES" (index_name, table_name, index_type, uniqueness, columns) '
                          'VALUES (?,?,?,?,?)', (index_name, table_name, "BITMAP" if kind == "BITMAP" else "NORMAL",
                                                 "UNIQUE" if unique else "NONUNIQUE", json.dumps(columns)))

    def _create_vector_index(self, index_name, table, columns, rest) -> None:
        if len(columns) != 1:
            raise errors.EngineError(51823, "a vector index can only be created on one column (the pages do not "
                                            "name this error: probe E18-DDL-VIDXCOLS)")
        column = table.column(columns[0])
        if column.data_type != "VECTOR":
            # error reference ORA-51900 "Cannot create a vector index on non-vector columns"
            raise errors.EngineError(51900, f'Cannot create a vector index on non-vector columns ("{column.name}")')
        text = re.sub(r"\s+", " ", rest.upper())
        organization = "INMEMORY NEIGHBOR GRAPH" if "NEIGHBOR GRAPH" in text else (
            "NEIGHBOR PARTITIONS" if "NEIGHBOR PARTITIONS" in text else None)
        params = re.search(r"PARAMETERS\s*\((.*?)\)", text)
        if params and "TYPE IVF" in params.group(1):
            organization = "NEIGHBOR PARTITIONS"
        if params and "TYPE HNSW" in params.group(1):
            organization = "INMEMORY NEIGHBOR GRAPH"
        if organization is None:
            organization = "INMEMORY NEIGHBOR GRAPH"
        distance = re.search(r"DISTANCE (\w+)", text)
        accuracy = re.search(r"WITH TARGET ACCURACY (\d+)", text)
        leftover = re.sub(r"ORGANIZATION (INMEMORY )?NEIGHBOR (GRAPH|PARTITIONS)|DISTANCE \w+|"
                          r"WITH TARGET ACCURACY \d+|PARAMETERS\s*\(.*?\)|PARALLEL \d+|PARALLEL|NOPARALLEL|"
                          r"ONLINE|TABLESPACE \w+|IF NOT EXISTS", "", text).strip()
        if leftover:
            raise unsupported(f"CREATE VECTOR INDEX option {leftover[:40]}")
        metric = distance.group(1) if distance else "COSINE"
        if metric not in ("COSINE", "EUCLIDEAN", "EUCLIDEAN_SQUARED", "DOT", "MANHATTAN", "HAMMING", "L2",
                          "L2_SQUARED", "L1", "JACCARD"):
            raise errors.EngineError(51806, f"invalid vector distance metric {metric} (the pages do not name this "
                                            "error: probe E18-DDL-VIDXMETRIC)")
        for existing in self.catalog.indexes.values():
            if existing.table == table.name and existing.columns == columns and existing.index_type == "VECTOR":
                raise errors.EngineError(1408, "such column list already indexed")
        self.conn.execute('INSERT INTO "ORA$INDEXES" (index_name, table_name, index_type, uniqueness, columns, '
                          'parameters, vector_organization, vector_distance, target_accuracy) '
                          'VALUES (?,?,?,?,?,?,?,?,?)',
                          (index_name, table.name, "VECTOR", "NONUNIQUE", json.dumps(columns),
                           params.group(1) if params else None, organization, metric,
                           int(accuracy.group(1)) if accuracy else None))
        self._create_version_triggers(table.name, table.storage)

    def _create_text_index(self, index_name, table, columns, rest, search: bool) -> None:
        if len(columns) != 1:
            # error reference ORA-29851 "cannot build a domain index on more than one column"
            raise errors.EngineError(29851, "cannot build a domain index on more than one column")
        column = table.column(columns[0])
        text = rest
        m_type = re.search(r"(?is)INDEXTYPE\s+IS\s+(\S+)", text)
        if m_type:
            itype = m_type.group(1).upper().replace('"', "")
            if itype not in ("CTXSYS.CONTEXT", "CONTEXT", "CTXSYS.CTXCAT", "CTXSYS.CONTEXT_V2"):
                raise unsupported(f"INDEXTYPE IS {itype}")
            if itype.endswith("CTXCAT"):
                raise unsupported("INDEXTYPE IS CTXSYS.CTXCAT")
        is_json = bool(re.search(r"(?i)\bFOR\s+JSON\b", text)) or column.data_type == "JSON"
        params = re.search(r"(?is)PARAMETERS\s*\(\s*'((?:[^']|'')*)'\s*\)", text)
        parameters = params.group(1).replace("''", "'") if params else None
        leftover = re.sub(r"(?is)INDEXTYPE\s+IS\s+\S+|FOR\s+JSON|PARAMETERS\s*\(\s*'(?:[^']|'')*'\s*\)|"
                          r"PARALLEL\s*\d*|ONLINE", "", text).strip()
        if leftover:
            raise unsupported(f"text index option {leftover[:40]}")
        if column.data_type not in ("VARCHAR2", "NVARCHAR2", "CHAR", "CLOB", "NCLOB", "JSON", "VARCHAR", "BLOB"):
            # error reference DRG-10509 "invalid text column" (text column of supported datatype), under ORA-29855
            raise errors.EngineError(29855, "error occurred in the execution of ODCIINDEXCREATE routine\n"
                                            "ORA-20000: Oracle Text error:\n"
                                            f"DRG-10509: invalid text column: {column.name}")
        create = self.hooks.create_text_index
        if create is None:
            raise unsupported("Oracle Text index")
        # the text plug-in keeps SQLite objects: it is handed the storage names (catalog.assign_storage)
        create(assign_storage(self.conn, index_name, INDEX_NAMESPACE), table.storage, column.name,
               "SEARCH" if search else "CONTEXT", parameters, is_json)
        self.conn.execute('INSERT INTO "ORA$INDEXES" (index_name, table_name, index_type, uniqueness, columns, '
                          'ityp_owner, ityp_name, parameters) VALUES (?,?,?,?,?,?,?,?)',
                          (index_name, table.name, "DOMAIN", "NONUNIQUE", json.dumps(columns), "CTXSYS",
                           "CONTEXT_V2" if search else "CONTEXT", parameters))

    def drop_index(self, sql: str) -> None:
        name, if_exists = self._drop_target(sql, "INDEX", r"(FORCE|ONLINE|\s)*", 953)
        row = self.conn.execute('SELECT table_name, index_type FROM "ORA$INDEXES" WHERE index_name = ?',
                                (name,)).fetchone()
        if row is None:
            if if_exists:
                return
            raise errors.EngineError(1418, "specified index does not exist")
        table_name, index_type = row
        storage = stored_name(self.conn, name, INDEX_NAMESPACE)
        if index_type in ("NORMAL", "BITMAP"):
            if self.conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?",
                                 (storage,)).fetchone():
                self.conn.execute(f'DROP INDEX "{storage}"')
            else:
                raise errors.EngineError(2429, "cannot drop index used for enforcement of unique/primary key")
        elif index_type == "DOMAIN":
            if self.hooks.drop_hybrid_index is not None:
                self.hooks.drop_hybrid_index(storage)
            if self.hooks.drop_text_index is None:
                raise unsupported("Oracle Text index")
            self.hooks.drop_text_index(storage)
        self.conn.execute('DELETE FROM "ORA$INDEXES" WHERE index_name = ?', (name,))
        release_storage(self.conn, name, INDEX_NAMESPACE)
        if index_type == "VECTOR" and not self.conn.execute(
                'SELECT 1 FROM "ORA$INDEXES" WHERE table_name = ? AND index_type = \'VECTOR\'', (table_name,)).fetchone():
            self._drop_version_triggers(table_name, stored_name(self.conn, table_name))

    # ------------------------------------------------------------------ version triggers (vector cache)
    def _create_version_triggers(self, table: str, storage: str) -> None:
        """Triggers that bump the table's ORA$VERSIONS row (keyed by its Oracle name) on every write; named after
        its storage name, which is unique in SQLite's case-folding namespace."""
        self.conn.execute('INSERT OR IGNORE INTO "ORA$VERSIONS" VALUES (?, abs(random()))', (table,))
        bump = f'UPDATE "ORA$VERSIONS" SET version = abs(random()) WHERE table_name = \'{table.replace(chr(39), chr(39) * 2)}\''
        for event in ("INSERT", "UPDATE", "DELETE"):
            self.conn.execute(f'CREATE TRIGGER IF NOT EXISTS "ORA$V_{storage}_{event}" AFTER {event} ON "{storage}" '
                              f'BEGIN {bump}; END')

    def _drop_version_triggers(self, table: str, storage: str) -> None:
        for event in ("INSERT", "UPDATE", "DELETE"):
            self.conn.execute(f'DROP TRIGGER IF EXISTS "ORA$V_{storage}_{event}"')
        self.conn.execute('DELETE FROM "ORA$VERSIONS" WHERE table_name = ?', (table,))

    # ------------------------------------------------------------------ views, sequences, comments
    def create_view(self, sql: str) -> None:
        m = re.match(r"(?is)CREATE\s+(OR\s+REPLACE\s+)?(?:(?:NO)?FORCE\s+|(?:NON)?EDITIONABLE\s+)*VIEW\s+("
                     + _IDENT + r"(?:\." + _IDENT + r")?)\s*(\([^)]*\))?\s+AS\s+(.*)$", sql)
        if not m:
            raise errors.EngineError(900, "invalid CREATE VIEW statement")
        name = _strip_owner(m.group(2))
        if m.group(3):
            raise unsupported("CREATE VIEW with a column alias list")
        body = m.group(4)
        from .translate import Translator as _T
        row = self.conn.execute('SELECT kind FROM "ORA$TABLES" WHERE table_name = ?', (name,)).fetchone()
        if row is not None:
            if not m.group(1) or row[0] != "VIEW":
                raise self._name_in_use(name)
            self.conn.execute(f'DROP VIEW "{stored_name(self.conn, name)}"')
            self.conn.execute('DELETE FROM "ORA$TABLES" WHERE table_name = ?', (name,))
            self.conn.execute('DELETE FROM "ORA$COLUMNS" WHERE table_name = ?', (name,))
        if row is None and self._exists(name):       # a sequence of that name (tables are in ORA$TABLES)
            raise self._name_in_use(name)
        plan = self.hooks.translate_query(body)
        if plan.text_searches or plan.topk or plan.model_calls or plan.binds or plan.sequences:
            raise unsupported("this construct inside a view")
        storage = assign_storage(self.conn, name)
        self.conn.execute(f'CREATE VIEW "{storage}" AS {plan.sql}')
        self.conn.execute('INSERT INTO "ORA$TABLES" (table_name, kind, view_text, created) VALUES (?,?,?,datetime())',
                          (name, "VIEW", body))
        for position, (col, ctype) in enumerate(zip(plan.columns, plan.column_types), start=1):
            self.conn.execute('INSERT INTO "ORA$COLUMNS" (table_name, column_name, column_id, data_type, nullable) '
                              'VALUES (?,?,?,?,?)', (name, col, position, ctype or "VARCHAR2", "Y"))

    def create_sequence(self, sql: str) -> None:
        m = re.match(r"(?is)CREATE\s+SEQUENCE\s+(IF\s+NOT\s+EXISTS\s+)?(" + _IDENT + r")(.*)$", sql)
        name = ident(m.group(2))
        if self._exists(name, "sequence"):
            if m.group(1):
                return
            raise self._name_in_use(name)
        options = m.group(3).upper()
        start = re.search(r"START\s+WITH\s+(-?\d+)", options)
        inc = re.search(r"INCREMENT\s+BY\s+(-?\d+)", options)
        increment = int(inc.group(1)) if inc else 1
        first = int(start.group(1)) if start else 1
        self.conn.execute('INSERT INTO "ORA$SEQUENCES" VALUES (?,?,?,?)', (name, first - increment, increment, first))

    def drop_simple(self, sql: str, kind: str) -> None:
        m = re.match(r"(?is)DROP\s+" + kind + r"\s+(IF\s+EXISTS\s+)?(" + _IDENT + r"(?:\." + _IDENT + r")?)", sql)
        name = _strip_owner(m.group(2))
        if kind == "VIEW":
            row = self.conn.execute('SELECT 1 FROM "ORA$TABLES" WHERE table_name = ? AND kind = \'VIEW\'',
                                    (name,)).fetchone()
            if row is None:
                if m.group(1):
                    return
                raise errors.EngineError(942, f'table or view "{name}" does not exist')
            self.conn.execute(f'DROP VIEW "{stored_name(self.conn, name)}"')
            release_storage(self.conn, name)
            self.conn.execute('DELETE FROM "ORA$TABLES" WHERE table_name = ?', (name,))
            self.conn.execute('DELETE FROM "ORA$COLUMNS" WHERE table_name = ?', (name,))
        else:
            cur = self.conn.execute('DELETE FROM "ORA$SEQUENCES" WHERE sequence_name = ?', (name,))
            if cur.rowcount == 0 and not m.group(1):
                raise errors.EngineError(2289, "sequence does not exist")

    def comment(self, sql: str) -> None:
        m = re.match(r"(?is)COMMENT\s+ON\s+(TABLE|COLUMN)\s+(.+?)\s+IS\s+'((?:[^']|'')*)'\s*$", sql)
        if not m:
            raise unsupported("COMMENT ON form")
        text = m.group(3).replace("''", "'") or None
        parts = split_dotted(m.group(2))
        if m.group(1).upper() == "TABLE":
            name = parts[-1]
            cur = self.conn.execute('UPDATE "ORA$TABLES" SET comments = ? WHERE table_name = ?', (text, name))
            if cur.rowcount == 0:
                raise errors.EngineError(942, f'table or view "{name}" does not exist')
        else:
            if len(parts) < 2:
                raise errors.EngineError(904, "invalid column name in COMMENT ON COLUMN (table.column; the pages do not "
                                              "name this error: probe E18-DDL-COMMENT)")
            table, column = parts[-2], parts[-1]
            if self.catalog.table(table) is None:
                raise errors.EngineError(942, f'table or view "{table}" does not exist')
            cur = self.conn.execute('UPDATE "ORA$COLUMNS" SET comments = ? WHERE table_name = ? AND column_name = ?',
                                    (text, table, column))
            if cur.rowcount == 0:
                raise errors.EngineError(904, f'"{column}": invalid identifier')


def _view_here(statement: str, name: str, probe: str) -> errors.EngineError:
    """A table statement naming a view. The SQL Language Reference does not say which error Oracle raises; the
    engine answers ORA-00942 (no table of that name) and verify_oracle's probe records Oracle's answer."""
    return errors.EngineError(942, f'table or view "{name}" does not exist ({name} is a view; {statement} takes a '
                                   f"table. The SQL Language Reference does not name this error: probe {probe})")


# ---------------------------------------------------------------------- column types
def _column_type(datatype: exp.DataType) -> dict:
    text = datatype.sql(dialect=OracleX).upper()
    base = re.split(r"[\s(]", text, maxsplit=1)[0]
    params = [p.strip() for p in re.findall(r"\((.*)\)", text)[0].split(",")] if "(" in text else []
    spec: dict = {}
    if text.startswith("TIMESTAMP") and "LOCAL TIME ZONE" in text or base == "TIMESTAMPLTZ":
        spec["data_type"] = "TIMESTAMP WITH LOCAL TIME ZONE"
    elif text.startswith("TIMESTAMP") and "TIME ZONE" in text or base == "TIMESTAMPTZ":
        spec["data_type"] = "TIMESTAMP WITH TIME ZONE"
    elif base == "TIMESTAMP":
        spec["data_type"] = "TIMESTAMP"
    elif base in ("VARCHAR2", "VARCHAR", "NVARCHAR2", "CHAR", "NCHAR"):
        spec["data_type"] = {"VARCHAR": "VARCHAR2"}.get(base, base)
        if not params and base in ("VARCHAR2", "VARCHAR", "NVARCHAR2"):
            raise errors.EngineError(906, "missing left parenthesis (VARCHAR2 needs a length)")
        size = params[0].split() if params else ["1"]
        spec["length"] = int(size[0])
        spec["char_semantics"] = "CHAR" if base.startswith("N") else (size[1] if len(size) > 1 else "BYTE")
        # SQLRF "Data Types" with MAX_STRING_SIZE = STANDARD (Database Reference: the default): VARCHAR2 4000 bytes,
        # CHAR 2000 bytes; a length in CHAR is capped by the same number (probe E18-DDL-VC4001). NVARCHAR2 and NCHAR
        # count characters of the national character set, AL16UTF16 here (2 bytes each): 4000 and 2000 bytes
        limit = {"CHAR": 2000, "VARCHAR2": 4000, "VARCHAR": 4000, "NVARCHAR2": 2000, "NCHAR": 1000}[base]
        if spec["length"] > limit:
            raise errors.EngineError(910, "specified length too long for its datatype")
    elif base in ("NUMBER", "DECIMAL", "NUMERIC"):
        spec["data_type"] = "NUMBER"
        if params and params[0] != "*":
            spec["precision"] = int(params[0])
            spec["scale"] = int(params[1]) if len(params) > 1 else 0
    elif base in ("INT", "INTEGER", "SMALLINT", "BIGINT"):
        spec.update(data_type="NUMBER", precision=38, scale=0)
    elif base in ("FLOAT", "REAL"):
        spec["data_type"] = "FLOAT"
    elif base in ("DOUBLE", "BINARY_DOUBLE"):
        spec["data_type"] = "BINARY_DOUBLE"
    elif base in ("CLOB", "NCLOB", "TEXT"):
        spec["data_type"] = "NCLOB" if base == "NCLOB" else "CLOB"
    elif base in ("BLOB", "VARBINARY"):
        spec["data_type"] = "BLOB"
    elif base == "RAW":
        spec["data_type"] = "RAW"
        spec["length"] = int(params[0]) if params else 2000
        if spec["length"] > 2000:                 # MAX_STRING_SIZE = STANDARD, as VARCHAR2 above
            raise errors.EngineError(910, "specified length too long for its datatype")
    elif base in ("JSON", "BOOLEAN", "DATE"):
        spec["data_type"] = base
    elif base == "VECTOR":
        spec["data_type"] = "VECTOR"
        dims = params[0] if params else "*"
        fmt = params[1] if len(params) > 1 else "FLEX"
        dims = "*" if dims.upper() == "FLEX" else dims       # dialect.normalise_for_parser's spelling of *
        if dims != "*" and not (dims.strip().isdigit() and 1 <= int(dims) <= 65535):
            # AI Vector Search User's Guide, "Create Tables Using the VECTOR Data Type": the number of dimensions is
            # * (flexible) or 1 to 65535; langchain-oracledb's test_create_table_test expects ORA-51801 for 65536,
            # 0 and -1
            raise errors.EngineError(51801, f"VECTOR column type specification has an unsupported dimension count "
                                            f"('{dims}').")
        spec["vector_dimensions"] = None if dims == "*" else int(dims)
        spec["vector_format"] = None if fmt in ("FLEX", "*") else fmt
        if spec["vector_format"] not in (None, "FLOAT32", "FLOAT64", "INT8", "BINARY"):
            # error reference ORA-51802 "Invalid VECTOR type specification. Invalid dimension format"
            raise errors.EngineError(51802, f"Invalid VECTOR type specification. Invalid dimension format ({fmt}).")
        if spec["vector_format"] == "BINARY" and spec["vector_dimensions"] and spec["vector_dimensions"] % 8:
            raise errors.EngineError(51813, "BINARY vector dimensions must be a multiple of 8")
        if len(params) > 2:
            raise unsupported("sparse VECTOR columns")
    elif base == "LONG":
        spec["data_type"] = "LONG"
    else:
        raise unsupported(f"column type {text}")
    return spec


def _spec_column(name: str, spec: dict) -> Column:
    return Column(name, spec["data_type"], spec.get("length"), spec.get("char_semantics"), spec.get("precision"),
                  spec.get("scale"), True, spec.get("vector_dimensions"), spec.get("vector_format"))


def _reference(ref: exp.Reference) -> tuple[str, list[str]]:
    target = ref.this
    if isinstance(target, exp.Schema):
        return target.this.name, [e.name for e in target.expressions]
    return target.name, []


def _on_delete(ref: exp.Expression) -> str:
    options = " ".join(str(o).upper() for o in (ref.args.get("options") or []))
    if "ON DELETE CASCADE" in options:
        return " ON DELETE CASCADE"
    if "ON DELETE SET NULL" in options:
        return " ON DELETE SET NULL"
    return ""

