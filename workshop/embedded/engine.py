"""The statement executor behind one embedded connection.

It owns the SQLite connection (WAL, busy timeout, foreign keys, case-sensitive LIKE), the
Oracle transaction model (DML opens a write transaction that lasts until COMMIT/ROLLBACK; DDL
commits implicitly), the translation cache, and the per-statement state that user functions
read (text-search hits, pre-computed model outputs, the vector top-k candidates).
"""
from __future__ import annotations

import json
import os
import re
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any, Callable, Sequence

import oracledb
import sqlglot.errors

from . import builtins as B
from . import catalog as C
from . import errors, function_registry
from . import values as V
from .ddl import DdlExecutor
from .dialect import parse
from .dml import DmlTranslator
from .functions.datetimes import new_statement_clock
from .hooks import EngineHooks, Plugin
from .lexing import bind_names, code_mask, leading_words, split_returning_into, statement_hint, strip_comments
from . import readonly as readonly_rules
from .plsql import run_block
from .statement import Result, StatementState
from .translate import Plan, Translator, apply_semantic_hint, bind_param, check_constructs, unsupported
from .vector_cache import VectorCache

DEFAULT_BUSY_TIMEOUT_S = float(os.environ.get("WORKSHOP_BUSY_TIMEOUT", "15"))


class Engine:
    """One SQLite connection speaking Oracle SQL."""

    def __init__(self, path: str | os.PathLike, busy_timeout: float | None = None,
                 plugins: Sequence[Plugin] = (), readonly: bool = False):
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.busy_timeout = DEFAULT_BUSY_TIMEOUT_S if busy_timeout is None else busy_timeout
        self.db = sqlite3.connect(str(self.path), timeout=self.busy_timeout, isolation_level=None,
                                  detect_types=sqlite3.PARSE_DECLTYPES | sqlite3.PARSE_COLNAMES,
                                  check_same_thread=False)
        self.lock = threading.RLock()
        self._pragma("journal_mode=WAL")
        self._pragma("synchronous=NORMAL")
        self._pragma("foreign_keys=ON")
        self._pragma("case_sensitive_like=ON")
        self._pragma(f"busy_timeout={int(self.busy_timeout * 1000)}")
        # Oracle promises no row order without ORDER BY; SQLite's scans return key order, which
        # hides a missing ORDER BY or tie-break until the code meets Oracle. Reversing every
        # unordered scan (always, not only in CI) makes such code fail here first.
        self._pragma("reverse_unordered_selects=ON")
        self.state = StatementState()
        self.in_txn = False
        self._types_in: Any = None
        self._types_out: dict = {}
        self.catalog = C.Catalog(self.db)
        self._plans: dict[tuple, Plan] = {}
        self.vector_cache = VectorCache(self.db)
        self.hooks = EngineHooks(translate_query=self._translate_query_text)
        self._register_functions()
        for plugin in plugins:  # workshop.embedded.extensions lists them: the engine imports none
            plugin.install(self)
        self.catalog.policy_loader = self.hooks.policies
        self.names.dictionary.update(self.hooks.views)
        self._run_with_retry(lambda: C.bootstrap(self.db, self.hooks.views, self.hooks.bootstrap))
        #: A read-only session (set after the catalog bootstrap, which may write): see readonly.py.
        self.readonly = readonly
        self._savepoints: list[str] = []     # a read-only session's savepoints (it holds no SQLite transaction)
        if readonly:
            readonly_rules.install(self.db)

    # ------------------------------------------------------------------ setup
    def _pragma(self, text: str) -> None:
        self._run_with_retry(lambda: self.db.execute(f"PRAGMA {text}").fetchall())

    def _run_with_retry(self, fn):
        deadline = time.monotonic() + self.busy_timeout
        while True:
            try:
                return fn()
            except sqlite3.OperationalError as exc:
                if "locked" not in str(exc) or time.monotonic() > deadline:
                    raise errors.from_sqlite(exc) from None
                time.sleep(0.05)

    def register(self, name: str, fn: Callable, nargs: int = -1, deterministic: bool = False) -> None:
        """Register a user function whose Oracle errors survive SQLite's exception wrapping."""
        state = self

        def call(*args):
            try:
                return fn(*args)
            except BaseException as exc:  # noqa: BLE001 - re-raised after SQLite unwinds
                state.state.error = exc
                raise
        self.db.create_function(name, nargs, call, deterministic=deterministic)

    @property
    def names(self) -> C.SqlNames:
        """This engine's function, table-function and dictionary names (kept by its catalog)."""
        return self.catalog.names

    def map_function(self, sql_name: str, registered: str, result_type: str | None = None) -> None:
        """Let SQL call ``sql_name`` (a function or PACKAGE.FUNCTION) as the user function ``registered``."""
        self.names.functions[sql_name] = (registered, result_type)

    def register_table_function(self, name: str, columns: Sequence[str], types: Sequence[str | None],
                                rows: Callable[..., Any]) -> None:
        """A table function in FROM: its columns and Oracle types, and ``rows(engine, *args)``."""
        self.names.table_functions[name] = (list(columns), list(types))
        self.hooks.table_functions[name] = rows

    def register_aggregate(self, name: str, cls: type, nargs: int = -1) -> None:
        state = self

        class Wrapped:
            def __init__(self):
                self.inner = cls()

            def step(self, *args):
                try:
                    self.inner.step(*args)
                except BaseException as exc:  # noqa: BLE001
                    state.state.error = exc
                    raise

            def finalize(self):
                try:
                    return self.inner.finalize()
                except BaseException as exc:  # noqa: BLE001
                    state.state.error = exc
                    raise

            def value(self):
                return self.inner.value()

            def inverse(self, *args):
                self.inner.inverse(*args)
        if hasattr(cls, "inverse") and hasattr(cls, "value"):
            # an aggregate that can drop a row is a window function too (MEDIAN(x) OVER (...)), as on Oracle
            self.db.create_window_function(name, nargs, Wrapped)
        else:
            self.db.create_aggregate(name, nargs, Wrapped)

    def _register_functions(self) -> None:
        function_registry.register_all(self)
        self.register("ORA_TEXT_SCORE", self._text_score, 2)
        self.register("ORA_MODEL_CALL", self._model_call, -1)
        self.register("ORA_SEQ_CURRVAL", self._seq_currval, 1)

    # ------------------------------------------------------------------ statement state hooks
    def _text_score(self, slot: int, rowid: int) -> int:
        hits = self.state.text_hits.get(slot)
        if hits is None:
            raise errors.EngineError(29909, "SCORE/CONTAINS evaluated outside its statement")
        return hits.get(rowid, 0)

    def _model_call(self, slot: int, *args):
        collect = getattr(self.state, "collect", None)
        if collect is not None:
            collect[slot].append(tuple(args))
            return self.state.placeholders[slot]
        outputs = self.state.model_outputs.get(slot)
        if outputs is None:
            raise unsupported("VECTOR_EMBEDDING / PREDICTION (no model runtime installed)")
        key = tuple(args)
        if key not in outputs:
            compute = self.hooks.model_call
            outputs.update(compute(self, slot, [key]))
        return outputs[key]

    def _seq_currval(self, name: str) -> int:
        if self.readonly:
            readonly_rules.refuse_sequence(name)
        value = getattr(self, "_currval", {}).get(name)
        if value is None:
            raise errors.EngineError(8002, f"sequence {name}.CURRVAL is not yet defined in this session")
        return value

    # ------------------------------------------------------------------ transactions
    def begin_write(self) -> None:
        if self.readonly:    # every door that would write ends here at the latest: no write lock, no effect
            raise errors.EngineError(1031, "insufficient privileges (a write in a read-only session)")
        if self.in_txn:
            return
        try:
            self.db.execute("BEGIN IMMEDIATE")
        except sqlite3.OperationalError as exc:
            raise errors.from_sqlite(exc) from None
        self.in_txn = True
        self._txn_changes = self.db.total_changes
        self._txn_has_savepoint = False

    def release_if_clean(self) -> None:
        """End a write transaction that changed nothing (a DML statement that touched no row, a failed statement or
        procedure): an Oracle session holds a transaction, and its locks, only once it has changed something, and
        the SQLite write lock would otherwise block every other session (ORA-00054) until this one commits."""
        if self.in_txn and not getattr(self, "_txn_has_savepoint", False) \
                and self.db.total_changes == getattr(self, "_txn_changes", -1):
            self.rollback()

    def run_as_ddl(self, work: Callable[[], Any]) -> Any:
        """DDL, and the supplied procedures that do DDL: commit before, run in a transaction of its own, commit
        after; on failure roll that transaction back, so the session holds none either way."""
        if self.in_txn:
            self.commit()
        self.begin_write()
        try:
            result = work()
        except BaseException:
            self.rollback()
            raise
        self.commit()
        return result

    def commit(self) -> None:
        with self.lock:
            if not self.in_txn:
                return
            try:
                for hook in self.hooks.on_commit:
                    hook(self.db)
                self.db.execute("COMMIT")
            except Exception as exc:  # noqa: BLE001 - commit hooks (Oracle Text sync) included
                raise errors.as_oracle_error(exc) from None
            finally:
                self.in_txn = self.db.in_transaction

    def rollback(self) -> None:
        with self.lock:
            if self.db.in_transaction:
                self.db.execute("ROLLBACK")
            self.in_txn = False

    def close(self) -> None:
        with self.lock:
            self.rollback()
            self.db.close()

    # ------------------------------------------------------------------ translation
    def _plan_key(self, sql: str) -> tuple:
        return (sql, self.catalog.refresh())

    def _translate_query_text(self, sql: str, bind_types: dict[str, str | None] | None = None) -> Plan:
        return Translator(self.catalog, self._text_index_lookup, bind_types).translate_query(self._parse(sql))

    def visible_rowids(self, table: str) -> set[int] | None:
        """The rowids of `table` this session's SELECT policies let it read, or None when no policy applies.

        For the features that read a table themselves instead of through a statement's SQL (hybrid vector search):
        Oracle runs them as SQL (DBMS_HYBRID_VECTOR.GET_SQL shows it), so VPD filters them like any query; here
        the same policy predicate is applied by running `SELECT ROWID FROM table` through the translator."""
        self.catalog.refresh()
        if Translator(self.catalog).policy_predicate(table, "SELECT") is None:
            return None
        plan = self.plan_for(f'SELECT ROWID FROM "{table}"', ["SELECT"])
        return {row[0] for row in self.db.execute(plan.sql, {}).fetchall()}

    def _text_index_lookup(self, table: str, column: str):
        lookup = self.hooks.text_index_lookup
        return lookup(self.db, table, column) if lookup else None

    def _parse(self, sql: str):
        rewrite = self.hooks.rewrite_sql
        if rewrite is not None:
            sql = rewrite(self, sql)
        try:
            tree = parse(sql)
        except sqlglot.errors.SqlglotError as exc:
            detail = str(exc).splitlines()[0] if str(exc) else type(exc).__name__
            if detail.startswith("Expected table name"):
                # `SELECT 1 FROM 123`: langchain-oracledb's test_table_exists_test expects Oracle's ORA-00903
                raise errors.EngineError(903, f"invalid table name ({detail})") from None
            raise errors.EngineError(933, f"SQL command not properly ended or unsupported syntax ({detail})") from None
        return apply_semantic_hint(check_constructs(tree), statement_hint(sql))

    def plan_for(self, sql: str, words: list[str], bind_types: dict[str, str | None] | None = None) -> Plan:
        """The cached translation of a statement; with ``bind_types``, the one for binds of those datatypes
        (Oracle types a bind by the value python-oracledb sends, and converts around it by that type)."""
        if bind_types is None or getattr(self, "_plan_version", (None,))[0] != sql:
            self._plan_version = self._plan_key(sql)
        # a typed plan comes right after its untyped one, under the same lock: the catalog is the one just read
        key = self._plan_version + (tuple(sorted(bind_types.items())) if bind_types is not None else (),)
        plan = self._plans.get(key)
        if plan is not None:
            return plan
        kind = words[0]
        if kind in ("SELECT", "WITH", "("):
            plan = self._translate_query_text(sql, bind_types)
        else:
            returning = split_returning_into(sql) if kind in ("INSERT", "UPDATE", "DELETE") else None
            body = returning[0] if returning else sql
            tree = self._parse(body)
            translator = DmlTranslator(self.catalog, self._text_index_lookup, bind_types)
            handler = {"INSERT": translator.translate_insert, "UPDATE": translator.translate_update,
                       "DELETE": translator.translate_delete, "MERGE": translator.translate_merge}[kind]
            plan = handler(tree)
            if returning:
                translator.add_returning(returning[1], returning[2], parse)
        # Binds as the statement text declares them: a rewrite (GRAPH_TABLE) may drop some, which
        # must not make the caller's binds "illegal", nor shift positional ones.
        returning_binds = {b.upper() for b in plan.returning_binds}
        plan.source_binds = [b for b in bind_names(sql) if b not in returning_binds]
        if len(self._plans) > 2000:
            self._plans.clear()
        self._plans[key] = plan
        return plan

    # ------------------------------------------------------------------ execution
    def execute(self, sql: str, binds: Any = None, input_types: Any = None) -> Result:
        with self.lock:
            self.state = StatementState()
            new_statement_clock()
            try:
                return self._execute(sql, binds, input_types)
            except sqlite3.Error as exc:
                raise self._sqlite_error(exc) from None
            except Exception as exc:  # noqa: BLE001 - every error leaves as an oracledb exception
                raise errors.as_oracle_error(exc) from None
            finally:
                self.release_if_clean()

    def _sqlite_error(self, exc: sqlite3.Error) -> oracledb.DatabaseError:
        inner = self.state.error
        self.state.error = None
        if inner is not None and "user-defined function raised exception" in str(exc) \
                or inner is not None and "raised exception" in str(exc):
            return errors.as_oracle_error(inner)
        return errors.from_sqlite(exc, self._key_constraint)

    def _key_constraint(self, table: str, columns: list[str]) -> str | None:
        for name, cols in self.db.execute('SELECT constraint_name, columns FROM "ORA$CONSTRAINTS" '
                                          "WHERE table_name = ? AND constraint_type IN ('P', 'U')", (table,)):
            if json.loads(cols) == columns:
                return name
        return None

    def _execute(self, sql: str, binds: Any, input_types: Any) -> Result:
        words = leading_words(sql, 5)
        if not words:
            raise errors.EngineError(900, "invalid SQL statement")
        kind = words[0]
        _reject_terminator(sql, words)
        if self.readonly:
            readonly_rules.refuse_statement(sql, kind)
        if kind in ("COMMIT",):
            self.commit()
            return Result()
        if kind == "ROLLBACK":
            if len(words) > 1 and words[1] == "TO" or len(words) > 2 and words[2] == "TO":
                name = savepoint_name(sql, rollback=True)
                if self.readonly:
                    if name not in self._savepoints:
                        raise errors.EngineError(1086, f"savepoint '{name}' never established in this session or "
                                                       f"is invalid")
                    del self._savepoints[self._savepoints.index(name) + 1:]
                else:
                    self.db.execute(f'ROLLBACK TO "{name}"')
            else:
                self.rollback()
            return Result()
        if kind == "SAVEPOINT":
            name = savepoint_name(sql)
            if self.readonly:     # nothing to undo, and no write lock for a session that cannot write
                if name in self._savepoints:
                    self._savepoints.remove(name)
                self._savepoints.append(name)
                return Result()
            self.begin_write()
            self.db.execute(f'SAVEPOINT "{name}"')
            self._txn_has_savepoint = True
            return Result()
        if kind in ("BEGIN", "DECLARE"):
            return run_block(self, sql, binds)
        if kind in ("CREATE", "DROP", "ALTER", "TRUNCATE", "COMMENT", "RENAME"):
            self._ddl(sql, words)
            return Result()
        if kind in ("SELECT", "WITH"):
            plan = self._typed_plan(self.plan_for(sql, words), sql, words, [binds], input_types)
            return self._run_query(plan, binds, input_types)
        if kind in ("INSERT", "UPDATE", "DELETE", "MERGE"):
            plan = self._typed_plan(self.plan_for(sql, words), sql, words, [binds], input_types)
            return self._run_dml(plan, binds, input_types)
        if kind in ("GRANT", "REVOKE", "EXPLAIN", "CALL", "LOCK", "SET", "ANALYZE", "AUDIT"):
            raise unsupported(f"{kind} statement")
        raise errors.EngineError(900, "invalid SQL statement")

    def _ddl(self, sql: str, words: list[str]) -> None:
        def work() -> None:
            # under the write lock, the catalog as committed now: another session's DDL since this session's last
            # statement (a CREATE TABLE there, then CREATE INDEX / VIEW on it here) must be seen, not ORA-00942
            self.catalog.refresh()
            DdlExecutor(self.db, self.catalog, self.hooks).execute(sql, words)

        self.run_as_ddl(work)
        self.catalog.refresh()

    # ------------------------------------------------------------------ binds
    def _typed_plan(self, plan: Plan, sql: str, words: list[str], rows: list, input_types: Any) -> Plan:
        """The plan for the datatypes of the binds the translation asked about (SQL Language Reference,
        "Data Type Comparison Rules" and "Implicit Data Conversion": a character bind compared with a
        NUMBER or DATE expression is converted to it, a NUMBER bind compared with a character expression
        converts that expression). The untyped plan serves when no translation decision depends on a bind.
        In executemany() the first non-None value fixes a bind's type, as in python-oracledb."""
        if not plan.typed_binds:
            return plan
        declared = plan.source_binds or plan.binds
        types: dict[str, str | None] = {name: None for name in plan.typed_binds}
        if isinstance(input_types, dict):
            declared_types = {str(k).upper().lstrip(":"): v for k, v in input_types.items()}
        elif isinstance(input_types, (list, tuple)):
            declared_types = dict(zip(declared, input_types))
        else:
            declared_types = {}
        for row in rows:
            if isinstance(row, dict):
                given = {str(k).upper().lstrip(":"): v for k, v in row.items()}
            elif row is None:
                given = {}
            else:
                given = dict(zip(declared, row))
            for name in types:
                if types[name] is None:
                    types[name] = V.bind_type(given.get(name), declared_types.get(name))
            if all(types.values()):
                break
        if not any(types.values()):
            return plan
        return self.plan_for(sql, words, types)

    def bind_values(self, plan: Plan, binds: Any, input_types: Any) -> dict[str, Any]:
        declared = plan.source_binds or plan.binds
        if binds is None:
            binds = {}
        if isinstance(binds, dict):
            if len(binds) == len(declared) and all(name in binds for name in declared):
                given = binds  # the cursor's normalised names (driver.py already checked them)
            else:
                given = {str(k).upper().lstrip(":"): v for k, v in binds.items()}
                missing = [name for name in declared if name not in given]
                if missing:
                    raise errors.EngineError(1008, f"not all variables bound (:{missing[0]})")
                extra = set(given) - set(declared)
                if extra:
                    raise errors.EngineError(1036, f"illegal variable name/number ({', '.join(sorted(extra))})")
            if input_types is not self._types_in:
                self._types_in = input_types
                self._types_out = {str(k).upper(): v for k, v in
                                   (input_types if isinstance(input_types, dict) else {}).items()}
            types = self._types_out
        else:
            seq = list(binds)
            if len(seq) != len(declared):
                raise errors.EngineError(1008, f"not all variables bound (expected {len(declared)}, got {len(seq)})")
            given = dict(zip(declared, seq))
            positional_types = list(input_types) if isinstance(input_types, (list, tuple)) else []
            types = dict(zip(declared, positional_types))
        if plan.passing_params:
            for name in plan.binds:
                if bind_param(name) in plan.passing_params and (
                        types.get(name) is oracledb.DB_TYPE_BOOLEAN or isinstance(given[name], bool)):
                    raise unsupported(f"a BOOLEAN bind (:{name}) in a JSON PASSING clause (Oracle documents "
                                      "VARCHAR2, NUMBER, BINARY_DOUBLE, DATE and TIMESTAMP values only)")
        values: dict[str, Any] = {bind_param(name): V.to_sqlite(given[name], types.get(name)) for name in plan.binds}
        for sequence in plan.sequences:
            values["SEQ_" + "".join(c if c.isalnum() or c == "_" else "_" for c in sequence)] = self._nextval(sequence)
        return values

    def _nextval(self, name: str) -> int:
        if self.readonly:
            readonly_rules.refuse_sequence(name)
        # A sequence is not transactional (SQLRF "CREATE SEQUENCE": numbers are generated independently of
        # tables and transactions): outside a transaction the increment commits on its own, so a SELECT of NEXTVAL
        # leaves the session without the write lock. Inside one it is part of it (rolled back with it: a difference).
        update = ('UPDATE "ORA$SEQUENCES" SET last_number = last_number + increment_by '
                  'WHERE sequence_name = ? RETURNING last_number')
        if self.in_txn:
            row = self.db.execute(update, (name,)).fetchone()
        else:
            row = self._run_with_retry(lambda: self.db.execute(update, (name,)).fetchall())[0]
        if not hasattr(self, "_currval"):
            self._currval = {}
        self._currval[name] = row[0]
        return row[0]

    def _fill_table_functions(self, plan: Plan, params: dict[str, Any]) -> None:
        for tf in plan.table_functions:
            args = self.db.execute("SELECT " + ", ".join(tf.args_sql), params).fetchone() if tf.args_sql else ()
            if tf.name == "JSON_TABLE":
                from .jsonfuncs import json_table_rows
                rows = json_table_rows(args[0], args[1], tf.spec) if args[0] is not None else []
            else:
                rows = self.hooks.table_functions[tf.name](self, *args)
            cols = ", ".join(f'"{c}"' for c in tf.columns)
            self.db.execute(f'CREATE TEMP TABLE IF NOT EXISTS "{tf.temp_table}" ({cols})')
            existing = [r[1] for r in self.db.execute(f'PRAGMA temp.table_info("{tf.temp_table}")')]
            if existing != list(tf.columns):
                self.db.execute(f'DROP TABLE temp."{tf.temp_table}"')
                self.db.execute(f'CREATE TEMP TABLE "{tf.temp_table}" ({cols})')
            self.db.execute(f'DELETE FROM temp."{tf.temp_table}"')
            marks = ", ".join("?" for _ in tf.columns)
            # Oracle returns a table function's rows (JSON_TABLE, UTL_TO_CHUNKS, ...) in the order
            # it produces them; reverse_unordered_selects scans a table backwards, so store them
            # backwards and an unordered read gives them in their own order.
            self.db.executemany(f'INSERT INTO temp."{tf.temp_table}" VALUES ({marks})',
                                [tuple(V.sql_value(v) for v in row) for row in reversed(list(rows))])

    def _prepare_statement_state(self, plan: Plan, params: dict[str, Any], param_rows: list[dict] | None = None):
        self.state.plan = plan
        if plan.table_functions:
            self._fill_table_functions(plan, params)
        for search in plan.text_searches:
            query = params.get(search.query_param) if search.query_param else search.query_literal
            hits = self.hooks.text_search(self.db, search.index, query)
            self.state.text_hits[search.slot] = hits
            if search.filter_param:
                params[search.filter_param] = json.dumps(list(hits))
        if plan.model_calls and not all(mc.slot in self.state.model_outputs for mc in plan.model_calls):
            prepare = self.hooks.prepare_model_calls
            if prepare is None:
                raise unsupported("VECTOR_EMBEDDING / PREDICTION (no model runtime installed)")
            prepare(self, plan, param_rows or [params])

    # ------------------------------------------------------------------ queries
    def _run_query(self, plan: Plan, binds: Any, input_types: Any) -> Result:
        params = self.bind_values(plan, binds, input_types)
        self._prepare_statement_state(plan, params)
        if plan.topk is not None:
            rows, description = self._run_topk(plan, params)
        else:
            cur = self.db.execute(plan.sql, params)
            rows, description = cur.fetchall(), cur.description
        columns = plan.columns or [d[0] for d in description or []]
        types = plan.column_types or [None] * len(columns)
        return Result(rows=rows, columns=columns, column_types=types, rowcount=len(rows), is_query=True,
                      column_specs=list(plan.column_specs))

    def _run_topk(self, plan: Plan, params: dict[str, Any]):
        topk = plan.topk
        probe = self.db.execute(f"SELECT {topk.query_sql}, {topk.k_sql}", params).fetchone()
        query, k = probe
        if query is None:
            params[topk.candidates_param] = "[]"
            cur = self.db.execute(plan.sql, params)
            return cur.fetchall(), cur.description
        k = int(k)
        nearest, total = self.vector_cache.nearest(topk.table, topk.column, B.as_vector_blob(query), topk.metric)
        take = max(k * 4, 64)
        while True:
            params[topk.candidates_param] = json.dumps(nearest(take).tolist())
            cur = self.db.execute(plan.sql, params)
            rows = cur.fetchall()
            if len(rows) >= k or take >= total:
                return rows, cur.description
            take *= 8

    # ------------------------------------------------------------------ DML
    def _run_dml(self, plan: Plan, binds: Any, input_types: Any, params: dict | None = None) -> Result:
        if params is None:
            params = self.bind_values(plan, binds, input_types)
        self.begin_write()
        for hook in self.hooks.before_write:
            hook(self)
        self._prepare_statement_state(plan, params)
        returning = None
        if plan.returning:
            cur = self.db.execute(plan.sql + " RETURNING " + ", ".join(plan.returning), params)
            rows = cur.fetchall()
            returning = [list(col) for col in zip(*rows)] if rows else [[] for _ in plan.returning]
            count = len(rows)
        else:
            count = self._changes(self.db.execute(plan.sql, params))
            for extra in plan.extra:
                count += self._changes(self.db.execute(extra, params))
        return Result(rowcount=count, returning=returning)

    def _changes(self, cur: sqlite3.Cursor) -> int:
        """Rows the statement changed (triggers excluded); sqlite3 reports -1 for WITH ... INSERT."""
        return cur.rowcount if cur.rowcount >= 0 else self.db.execute("SELECT changes()").fetchone()[0]

    def execute_many(self, sql: str, rows: list, input_types: Any, batcherrors: bool,
                     arraydmlrowcounts: bool = False) -> tuple[int, list, list, list]:
        """executemany: one translation, one prepared statement, per-row errors and counts optional.

        Returns (total rows, batch errors, RETURNING values per row, rows changed per row)."""
        with self.lock:
            self.state = StatementState()
            new_statement_clock()
            try:
                words = leading_words(sql, 5)
                if words and words[0] in ("BEGIN", "DECLARE"):
                    counts = [self._execute(sql, row, input_types).rowcount for row in rows]
                    return sum(counts), [], [], counts
                if words:
                    _reject_terminator(sql, words)
                if self.readonly:
                    readonly_rules.refuse_statement(sql, words[0] if words else "")
                plan = self._typed_plan(self.plan_for(sql, words), sql, words, rows, input_types)
                if plan.kind != "dml":
                    raise unsupported("executemany() with a query")
                param_rows = [self.bind_values(plan, row, input_types) for row in rows]
                self.begin_write()
                for hook in self.hooks.before_write:
                    hook(self)
                if plan.model_calls:
                    self._prepare_statement_state(plan, param_rows[0] if param_rows else {}, param_rows)
                errors_out, counts, returning = [], [], []
                simple = not plan.extra and not plan.returning and not plan.text_searches and not batcherrors \
                    and not arraydmlrowcounts
                if simple:
                    before = self.db.total_changes
                    self.db.executemany(plan.sql, param_rows)
                    return self.db.total_changes - before, [], [], []
                total = 0
                for offset, params in enumerate(param_rows):
                    if batcherrors:
                        self.db.execute('SAVEPOINT "ORA$ROW"')
                    try:
                        result = self._run_dml(plan, None, None, params=dict(params))
                    except sqlite3.IntegrityError as exc:
                        if not batcherrors:
                            raise
                        self.db.execute('ROLLBACK TO "ORA$ROW"')
                        self.db.execute('RELEASE "ORA$ROW"')
                        err = errors.from_sqlite(exc, self._key_constraint).args[0]
                        err.offset = offset
                        errors_out.append(err)
                        counts.append(0)
                        continue
                    except sqlite3.Error as exc:
                        oracle_error = self._sqlite_error(exc)
                        if batcherrors and isinstance(oracle_error, oracledb.IntegrityError) or \
                                batcherrors and oracle_error.args[0].code in (12899, 1438, 51803, 1400, 1722, 40441):
                            self.db.execute('ROLLBACK TO "ORA$ROW"')
                            self.db.execute('RELEASE "ORA$ROW"')
                            err = oracle_error.args[0]
                            err.offset = offset
                            errors_out.append(err)
                            counts.append(0)
                            continue
                        raise oracle_error from None
                    if batcherrors:
                        self.db.execute('RELEASE "ORA$ROW"')
                    total += result.rowcount
                    counts.append(result.rowcount)
                    returning.append(result.returning)
                return total, errors_out, returning, counts
            except sqlite3.Error as exc:
                raise self._sqlite_error(exc) from None
            except Exception as exc:  # noqa: BLE001 - every error leaves as an oracledb exception
                raise errors.as_oracle_error(exc) from None
            finally:
                self.release_if_clean()


# ---------------------------------------------------------------------- statement text
_SAVEPOINT = re.compile(r'(?is)^\s*SAVEPOINT\s+("[^"]+"|[A-Za-z][\w$#]*)\s*$')
_ROLLBACK_TO = re.compile(r'(?is)^\s*ROLLBACK\s+(?:WORK\s+)?TO\s+(?:SAVEPOINT\s+)?("[^"]+"|[A-Za-z][\w$#]*)\s*$')


def savepoint_name(sql: str, rollback: bool = False) -> str:
    """The one savepoint name of `SAVEPOINT name` / `ROLLBACK [WORK] TO [SAVEPOINT] name` (SQL Language Reference,
    SAVEPOINT and ROLLBACK: a single identifier). Anything after it is an error, as on Oracle: `SAVEPOINT a;b`
    is not two statements (python-oracledb sends one), and `b` must not be silently dropped."""
    m = (_ROLLBACK_TO if rollback else _SAVEPOINT).match(strip_comments(sql))
    if m is None:
        raise errors.EngineError(933, "SQL command not properly ended (a savepoint is named by one identifier)")
    name = m.group(1)
    return name[1:-1] if name.startswith('"') else name.upper()


_PLSQL_UNITS = {"PACKAGE", "PROCEDURE", "FUNCTION", "TRIGGER", "TYPE", "BODY", "LIBRARY"}


def _reject_terminator(sql: str, words: list[str]) -> None:
    """Oracle parses one statement: a SQL*Plus `;` (or `/`) terminator is a syntax error there.

    Only PL/SQL (anonymous blocks and CREATE PACKAGE/PROCEDURE/...) ends in `;` by its grammar."""
    if words[0] in ("BEGIN", "DECLARE") or words[0] == "CREATE" and _PLSQL_UNITS & set(words[1:5]):
        return
    code = code_mask(sql).rstrip()
    if not code.endswith((";", "/")):
        return
    if words[0] == "MERGE" and code.endswith(";") and not code[:-1].rstrip().endswith(";"):
        # One trailing `;` after a MERGE is accepted: python-oracledb's documentation ("SQL statements should not
        # contain a trailing semicolon") does not say Oracle refuses it for MERGE, and langgraph-oracledb 1.0.2's
        # OracleStore sends its vector MERGE with one and runs against Oracle 23ai. verify_oracle probe E18-MERGE.
        return
    if words[0] in ("CREATE", "DROP", "ALTER", "TRUNCATE", "COMMENT", "RENAME", "GRANT", "REVOKE"):
        raise errors.EngineError(922, "missing or invalid option (remove the trailing ';': "
                                      "python-oracledb sends one statement without a terminator)")
    if code.endswith("/"):
        raise errors.EngineError(936, "missing expression (remove the trailing '/')")
    raise errors.EngineError(933, "SQL command not properly ended (remove the trailing ';': "
                                  "python-oracledb sends one statement without a terminator)")




def to_oracle_error(exc: BaseException) -> oracledb.Error:
    """Kept for callers of the old name: see errors.as_oracle_error."""
    return errors.as_oracle_error(exc)
