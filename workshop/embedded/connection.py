"""python-oracledb objects backed by the embedded engine.

`EmbeddedConnection` subclasses `oracledb.Connection` without connecting anywhere, so code that
checks `isinstance(conn, oracledb.Connection)` (langchain-oracledb does) accepts it. The cursor
implements the part of the python-oracledb cursor API the workshop and langchain-oracledb use.
"""
from __future__ import annotations

import collections
import decimal
import os
import time
from typing import Any, Callable, Iterator

import oracledb
from oracledb import errors as _oracle_errors

from . import driver, extensions
from . import values as V
from .engine import Engine, Result
from .errors import as_oracle_error, ora_error

ENGINE_VERSION = "23.26.0.0.0"

_TYPE_BY_VALUE = [
    (bool, oracledb.DB_TYPE_BOOLEAN), (int, oracledb.DB_TYPE_NUMBER), (float, oracledb.DB_TYPE_NUMBER),
    (str, oracledb.DB_TYPE_VARCHAR), (bytes, oracledb.DB_TYPE_RAW),
]


_VECTOR_FORMATS = {"FLOAT32": oracledb.VECTOR_FORMAT_FLOAT32, "FLOAT64": oracledb.VECTOR_FORMAT_FLOAT64,
                   "INT8": oracledb.VECTOR_FORMAT_INT8, "BINARY": oracledb.VECTOR_FORMAT_BINARY}


class FetchInfo(collections.namedtuple(
        "FetchInfo", "name type_code display_size internal_size precision scale null_ok")):
    """A cursor.description entry: a 7-tuple, with python-oracledb's attribute names too."""

    vector_dimensions: int | None = None
    vector_format = None

    @classmethod
    def make(cls, name: str, type_code, column=None) -> "FetchInfo":
        """From the catalog column the projection reads, when there is one (as Oracle describes it)."""
        if column is None:
            return cls(name, type_code, None, None, None, None, True)
        size = column.length if column.data_type in ("VARCHAR2", "NVARCHAR2", "CHAR", "NCHAR", "RAW") else None
        precision, scale = column.precision, column.scale
        if column.data_type == "NUMBER" and precision is None:
            precision, scale = 0, -127
        info = cls(name, type_code, size, size, precision, scale, column.nullable)
        if column.data_type == "VECTOR":
            info.vector_dimensions = column.vector_dimensions
            info.vector_format = _VECTOR_FORMATS.get(column.vector_format or "")
        return info

    @property
    def type(self):
        return self.type_code

    @property
    def is_json(self) -> bool:
        return self.type_code is oracledb.DB_TYPE_JSON


class EmbeddedVar:
    """What cursor.var() returns: a typed holder for out-binds (RETURNING ... INTO)."""

    _embedded_var = True

    def __init__(self, typ: Any, size: int = 0, arraysize: int = 1, inconverter=None, outconverter=None,
                 typename=None, encoding_errors=None, bypass_decode=False, convert_nulls=False):
        self.type = typ
        self.size = size
        self.num_elements = arraysize
        self.inconverter = inconverter
        self.outconverter = outconverter
        self._values: list[Any] = [None]

    def getvalue(self, pos: int = 0) -> Any:
        return self._values[pos] if pos < len(self._values) else None

    def setvalue(self, pos: int, value: Any) -> None:
        while len(self._values) <= pos:
            self._values.append(None)
        self._values[pos] = self.inconverter(value) if self.inconverter else value

    def values(self) -> list:
        return list(self._values)

    @property
    def actual_elements(self) -> int:
        return len(self._values)

    def __repr__(self):
        return f"<EmbeddedVar of type {getattr(self.type, 'name', self.type)} with value {self.getvalue()!r}>"


class EmbeddedCursor:
    """The python-oracledb Cursor surface over the embedded engine."""

    def __init__(self, connection: "EmbeddedConnection"):
        self.connection = connection
        self.arraysize = 100
        self.prefetchrows = 2
        self.outputtypehandler: Callable | None = None
        self.inputtypehandler = None
        self.rowfactory: Callable | None = None
        self.rowcount = 0
        self.description: list[FetchInfo] | None = None
        self.bindvars = None
        self.lastrowid = None
        self.scrollable = False
        self.statement: str | None = None
        self._rows: list[tuple] = []
        self._pos = 0
        self._binds = driver.BindState()
        self._batch_errors: list = []
        self._dml_counts: list[int] | None = None
        self._closed = False
        self._is_query = False
        self._fetch_lobs = oracledb.defaults.fetch_lobs
        self._fetch_decimals = oracledb.defaults.fetch_decimals

    # -------------------------------------------------------------- context manager / lifecycle
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def close(self) -> None:
        self._closed = True
        self._rows = []

    def _check_open(self) -> None:
        if self._closed:
            raise driver.dpy_error(_oracle_errors.ERR_CURSOR_NOT_OPEN)
        self.connection._check_open()

    # -------------------------------------------------------------- binds
    def setinputsizes(self, *args, **kwargs):
        self._check_open()
        self._binds.setinputsizes(args, kwargs)
        if kwargs:
            return {k: s.var for k, s in self._binds.by_name.items()}
        return [s.var for s in (self._binds.slots or [])] if args else []

    def var(self, typ: Any, size: int = 0, arraysize: int = 1, inconverter=None, outconverter=None,
            typename=None, encoding_errors=None, bypass_decode=False, convert_nulls=False, **kwargs) -> EmbeddedVar:
        self._check_open()
        driver.type_of_declaration(typ)
        return EmbeddedVar(typ, size, arraysize, inconverter, outconverter)

    def arrayvar(self, typ: Any, value: Any, size: int = 0) -> EmbeddedVar:
        var = EmbeddedVar(typ, size)
        var._values = [list(value) if isinstance(value, (list, tuple)) else [None] * int(value)]
        return var

    def _input_handler(self):
        return self.inputtypehandler if self.inputtypehandler is not None else self.connection.inputtypehandler

    # -------------------------------------------------------------- execution
    def execute(self, statement: str, parameters: Any = None, *, suspend_on_success: bool = False,
                fetch_lobs: bool | None = None, fetch_decimals: bool | None = None,
                **keyword_parameters) -> "EmbeddedCursor | None":
        """python-oracledb's execute(): the driver's bind rules (driver.py), then the engine."""
        self._check_open()
        self._is_query = False
        statement, parameters = self._binds.prepare(statement, parameters, keyword_parameters)
        self.statement = statement
        self._fetch_lobs = oracledb.defaults.fetch_lobs if fetch_lobs is None else bool(fetch_lobs)
        self._fetch_decimals = oracledb.defaults.fetch_decimals if fetch_decimals is None else bool(fetch_decimals)
        if parameters is not None:
            binds = self._binds.bind_rows(self, [parameters], self._input_handler())[0]
        else:
            self._binds.bind_rows(self, [], None)
            binds = {}
        out_vars = _out_vars(binds)
        clean = _without_out_vars(binds, out_vars)
        result = self.connection._within_call_timeout(
            lambda: self.connection._engine.execute(statement, clean, self._binds.input_types()))
        self.connection._autocommit_now()
        self._apply_result(result, out_vars, position=0)
        self._is_query = result.is_query
        return self if result.is_query else None

    def executemany(self, statement: str | None, parameters: Any, *, batcherrors: bool = False,
                    arraydmlrowcounts: bool = False, suspend_on_success: bool = False,
                    batch_size: int = 2 ** 32 - 1) -> None:
        self._check_open()
        self._is_query = False
        if statement is None:
            statement = self.statement
        statement = self._binds.prepare_many(statement)
        self.statement = statement
        self._batch_errors, self._dml_counts = [], None
        if isinstance(parameters, int) and not isinstance(parameters, bool):
            rows = [()] * parameters
        elif isinstance(parameters, list):
            rows = parameters
        else:
            raise driver.dpy_error(_oracle_errors.ERR_WRONG_EXECUTEMANY_PARAMETERS_TYPE)
        if not rows:
            self.rowcount = 0
            if arraydmlrowcounts:
                self._dml_counts = []
            return
        bound = self._binds.bind_rows(self, rows, self._input_handler()) if not isinstance(parameters, int) \
            else [{} for _ in rows]
        out_vars = _out_vars(bound[0])
        clean = [_without_out_vars(r, out_vars) for r in bound]
        total, batch_errors, returning, counts = self.connection._within_call_timeout(
            lambda: self.connection._engine.execute_many(statement, clean, self._binds.input_types(), batcherrors,
                                                         arraydmlrowcounts))
        self.connection._autocommit_now()
        self.rowcount = total
        self.description = None
        self._batch_errors = batch_errors
        if arraydmlrowcounts:
            self._dml_counts = counts
        if out_vars and returning:
            for position, values in enumerate(returning):
                self._fill_out_vars(out_vars, values, position)

    def getbatcherrors(self) -> list:
        return list(self._batch_errors)

    def getarraydmlrowcounts(self) -> list[int]:
        self._check_open()
        if self._dml_counts is None:
            raise driver.dpy_error(_oracle_errors.ERR_ARRAY_DML_ROW_COUNTS_NOT_ENABLED)
        return list(self._dml_counts)

    def callproc(self, name: str, parameters: list | None = None, keyword_parameters: dict | None = None) -> list:
        parameters = list(parameters or [])
        placeholders = [f":{i + 1}" for i in range(len(parameters))]
        named = [f"{k} => :{k}" for k in (keyword_parameters or {})]
        binds: Any = {str(i + 1): v for i, v in enumerate(parameters)}
        binds.update(keyword_parameters or {})
        self.execute(f"BEGIN {name}({', '.join(placeholders + named)}); END;", binds)
        return parameters

    def callfunc(self, name: str, return_type: Any, parameters: list | None = None):
        args = ", ".join(f":{i + 1}" for i in range(len(parameters or [])))
        self.execute(f"SELECT {name}({args}) FROM dual", list(parameters or []))
        row = self.fetchone()
        return row[0] if row else None

    def _apply_result(self, result: Result, out_vars: dict[str, EmbeddedVar], position: int) -> None:
        self.rowcount = result.rowcount
        self._pos = 0
        if result.is_query:
            self.description = self._describe(result)
            self._rows = self._convert_rows(result)
        else:
            self.description = None
            self._rows = []
            if out_vars and result.returning is not None:
                self._fill_out_vars(out_vars, result.returning, position)

    def _fill_out_vars(self, out_vars, returning, position) -> None:
        names = list(out_vars)
        for name, values in zip(names, returning or []):
            var = out_vars[name]
            converted = [_as_var_type(_python_value(v, None), var.type) for v in values]
            if var.outconverter:
                converted = [var.outconverter(v) for v in converted]
            var.setvalue(position, converted)

    # -------------------------------------------------------------- fetching
    def _describe(self, result: Result) -> list[FetchInfo]:
        out = []
        for i, name in enumerate(result.columns):
            oracle_type = result.column_types[i] if i < len(result.column_types) else None
            type_code = V.DB_TYPES.get(oracle_type) if oracle_type else None
            if type_code is None:
                type_code = _type_from_values(result.rows, i)
            column = result.column_specs[i] if i < len(result.column_specs) else None
            out.append(FetchInfo.make(name, type_code, column))
        return out

    def _convert_rows(self, result: Result) -> list[tuple]:
        types = result.column_types
        handler = self.outputtypehandler or self.connection.outputtypehandler
        as_text = [False] * len(result.columns)
        converters: list[Callable | None] = [None] * len(result.columns)
        if handler is not None:
            for i, info in enumerate(self.description):
                var = handler(getattr(self, "_facade", self), info)   # the async cursor, under one
                if var is not None:
                    target = getattr(var, "type", None)
                    if target in (oracledb.DB_TYPE_LONG, oracledb.DB_TYPE_VARCHAR, oracledb.DB_TYPE_NVARCHAR,
                                  oracledb.DB_TYPE_LONG_NVARCHAR, oracledb.DB_TYPE_LONG_RAW, str, bytes):
                        as_text[i] = True
                    converters[i] = getattr(var, "outconverter", None)
        fetch_lobs = self._fetch_lobs
        decimals = self._fetch_decimals
        rows = []
        width = len(result.columns)
        for raw in result.rows:
            row = []
            for i in range(width):
                value = _python_value(raw[i], types[i] if i < len(types) else None,
                                      lobs=fetch_lobs and not as_text[i])
                if decimals and types[i] == "NUMBER" and isinstance(value, (int, float)) \
                        and not isinstance(value, bool):
                    value = decimal.Decimal(str(value))
                if converters[i] is not None and value is not None:
                    value = converters[i](value)
                row.append(value)
            rows.append(tuple(row))
        return rows

    def _verify_fetch(self) -> None:
        """python-oracledb raises DPY-1003 when the last statement was not a query."""
        self._check_open()
        if not self._is_query:
            raise driver.dpy_error(_oracle_errors.ERR_NOT_A_QUERY)

    def fetchone(self):
        self._verify_fetch()
        if self._pos >= len(self._rows):
            return None
        row = self._rows[self._pos]
        self._pos += 1
        return self.rowfactory(*row) if self.rowfactory else row

    def fetchmany(self, size: int | None = None, numRows: int | None = None) -> list:
        self._verify_fetch()
        size = size or numRows or self.arraysize
        out = []
        for _ in range(size):
            row = self.fetchone()
            if row is None:
                break
            out.append(row)
        return out

    def fetchall(self) -> list:
        self._verify_fetch()
        rows = self._rows[self._pos:]
        self._pos = len(self._rows)
        return [self.rowfactory(*r) for r in rows] if self.rowfactory else list(rows)

    def __iter__(self) -> Iterator:
        while True:
            row = self.fetchone()
            if row is None:
                return
            yield row

    def parse(self, statement: str) -> None:
        """python-oracledb's Cursor.parse: check a query or DML statement without running it. Every failure is an
        oracledb exception, as from execute(); other statements (DDL, PL/SQL) are checked when they run."""
        from .lexing import leading_words
        engine = self.connection._engine
        with engine.lock:
            try:
                words = leading_words(statement, 5)
                if not words:
                    raise ora_error(900, "invalid SQL statement")
                if words[0] in ("SELECT", "WITH", "(", "INSERT", "UPDATE", "DELETE", "MERGE"):
                    engine.plan_for(statement, words)
                elif words[0] not in _OTHER_STATEMENTS:
                    raise ora_error(900, "invalid SQL statement")
            except Exception as exc:  # noqa: BLE001 - every error leaves as an oracledb exception
                raise as_oracle_error(exc) from None


#: Statements execute() knows besides queries and DML (Cursor.parse leaves them to execute()).
_OTHER_STATEMENTS = {"CREATE", "DROP", "ALTER", "TRUNCATE", "COMMENT", "RENAME", "BEGIN", "DECLARE", "COMMIT",
                     "ROLLBACK", "SAVEPOINT", "GRANT", "REVOKE", "EXPLAIN", "CALL", "LOCK", "SET", "ANALYZE", "AUDIT"}


def _type_from_values(rows: list[tuple], index: int):
    for row in rows:
        value = row[index]
        if value is None:
            continue
        if isinstance(value, V.ClobText):
            return oracledb.DB_TYPE_CLOB
        if isinstance(value, V.BlobBytes):
            return oracledb.DB_TYPE_BLOB
        if isinstance(value, V.JsonValue):
            return oracledb.DB_TYPE_JSON
        if isinstance(value, (bytes, memoryview)) and V.is_vector_blob(value):
            return oracledb.DB_TYPE_VECTOR
        if hasattr(value, "typecode"):
            return oracledb.DB_TYPE_VECTOR
        if hasattr(value, "isoformat"):
            return oracledb.DB_TYPE_TIMESTAMP
        for cls, code in _TYPE_BY_VALUE:
            if isinstance(value, cls):
                return code
    return oracledb.DB_TYPE_VARCHAR


_python_value = V.python_value


def _as_var_type(value: Any, typ: Any) -> Any:
    """An out-bind value in the Python type its var asked for (var(str) gets '42', not 42)."""
    if value is None:
        return None
    if typ in (str, oracledb.DB_TYPE_VARCHAR, oracledb.DB_TYPE_NVARCHAR, oracledb.DB_TYPE_CHAR,
               oracledb.DB_TYPE_LONG) and not isinstance(value, str):
        from .builtins import cast_char
        return cast_char(value)
    if typ is int and isinstance(value, (float, str)):
        return int(float(value))
    if typ is float and isinstance(value, (int, str)):
        return float(value)
    return value


def _out_vars(parameters: Any) -> dict[str, EmbeddedVar]:
    if isinstance(parameters, dict):
        return {k: v for k, v in parameters.items() if isinstance(v, EmbeddedVar)}
    if isinstance(parameters, (list, tuple)):
        return {str(i + 1): v for i, v in enumerate(parameters) if isinstance(v, EmbeddedVar)}
    return {}


def _without_out_vars(parameters: Any, out_vars: dict) -> Any:
    if not out_vars:
        return parameters
    if isinstance(parameters, dict):
        return {k: v for k, v in parameters.items() if k not in out_vars}
    return [v for v in parameters if not isinstance(v, EmbeddedVar)]


class EmbeddedConnection(oracledb.Connection):
    """An `oracledb.Connection` that runs on the embedded engine and never opens a socket."""

    def __init__(self, path: str | os.PathLike, busy_timeout: float | None = None,  # noqa: D107 - no super()
                 readonly: bool = False):
        self._version = ENGINE_VERSION
        self._engine = Engine(path, busy_timeout=busy_timeout, plugins=extensions.PLUGINS, readonly=readonly)
        self._open = True
        self._outputtypehandler = None
        self._inputtypehandler = None
        self._current_schema = None
        self._autocommit = False
        self._call_timeout = 0
        self.pool = None

    def __repr__(self):
        return f"<EmbeddedConnection {self.dsn} (embedded engine)>"

    def __del__(self):
        try:
            if getattr(self, "_open", False):
                self._engine.close()
        except Exception:  # noqa: BLE001 - interpreter shutdown
            pass

    def __enter__(self):
        self._check_open()
        return self

    def __exit__(self, exc_type, exc_value, exc_tb):
        if self._open:
            self.close()

    def _check_open(self) -> None:
        if not getattr(self, "_open", False):
            raise driver.dpy_error(_oracle_errors.ERR_NOT_CONNECTED)

    # -------------------------------------------------------------- attributes python-oracledb exposes
    @property
    def version(self) -> str:
        return self._version

    @property
    def readonly(self) -> bool:
        """True for a session the engine refuses writes on (ORA-01031), like a read-only user on Oracle."""
        return self._engine.readonly

    @property
    def thin(self) -> bool:
        return True

    @property
    def username(self) -> str:
        return "WORKSHOP"

    @property
    def dsn(self) -> str:
        return f"embedded:{self._engine.path}"

    @property
    def autocommit(self) -> bool:
        return self._autocommit

    @autocommit.setter
    def autocommit(self, value: bool) -> None:
        self._autocommit = bool(value)

    def _autocommit_now(self) -> None:
        """With autocommit on, a statement that succeeded is committed at once (python-oracledb user guide,
        "Managing Transactions": "all DML statements ... are committed as they are executed")."""
        if self._autocommit:
            self._engine.commit()

    @property
    def current_schema(self):
        return self._current_schema

    @current_schema.setter
    def current_schema(self, value) -> None:
        if value and value.upper() != "WORKSHOP":
            raise ora_error(1435, "user does not exist (the embedded engine has one schema, WORKSHOP)")
        self._current_schema = value

    @property
    def outputtypehandler(self):
        return self._outputtypehandler

    @outputtypehandler.setter
    def outputtypehandler(self, value) -> None:
        self._outputtypehandler = value

    @property
    def inputtypehandler(self):
        return self._inputtypehandler

    @inputtypehandler.setter
    def inputtypehandler(self, value) -> None:
        self._inputtypehandler = value

    @property
    def stmtcachesize(self) -> int:
        return 20

    @stmtcachesize.setter
    def stmtcachesize(self, value) -> None:
        pass

    @property
    def call_timeout(self) -> int:
        """Milliseconds one call may take (0: no limit), as python-oracledb's Connection.call_timeout."""
        self._check_open()
        return self._call_timeout

    @call_timeout.setter
    def call_timeout(self, value: int) -> None:
        self._check_open()
        self._call_timeout = int(value)

    def _within_call_timeout(self, call: Callable[[], Any]) -> Any:
        """Run one engine call within call_timeout. python-oracledb (Connection.call_timeout): a round trip that
        takes longer raises DPY-4024 "call timeout of N ms exceeded" and the connection stays usable; here SQLite's
        progress handler interrupts the statement (the statement is rolled back, as Oracle cancels the call)."""
        timeout = self._call_timeout
        if timeout <= 0:
            return call()
        engine, deadline, expired = self._engine, time.monotonic() + timeout / 1000, []

        def over_time() -> int:
            if time.monotonic() > deadline:
                expired.append(True)
                return 1
            return 0
        with engine.lock:
            engine.db.set_progress_handler(over_time, 1000)
            try:
                return call()
            except oracledb.Error:
                if not expired:
                    raise
                engine.in_txn = engine.db.in_transaction
                raise driver.dpy_error(_oracle_errors.ERR_CALL_TIMEOUT_EXCEEDED, timeout=timeout) from None
            finally:
                engine.db.set_progress_handler(None, 0)

    @property
    def transaction_in_progress(self) -> bool:
        return self._engine.in_txn

    @property
    def db_name(self) -> str:
        return "EMBEDDED"

    @property
    def service_name(self) -> str:
        return "embedded"

    for _write_only in ("action", "module", "client_identifier", "clientinfo", "dbop", "econtext_id"):
        locals()[_write_only] = property(lambda self: None, lambda self, value: None)
    del _write_only

    # -------------------------------------------------------------- methods
    def cursor(self, scrollable: bool = False) -> EmbeddedCursor:
        self._check_open()
        return EmbeddedCursor(self)

    def commit(self) -> None:
        self._check_open()
        self._engine.commit()

    def rollback(self) -> None:
        self._check_open()
        self._engine.rollback()

    def close(self) -> None:
        self._check_open()
        if self.pool is not None:
            self.pool.release(self)
            return
        self._engine.close()
        self._open = False

    def ping(self) -> None:
        self._check_open()

    def is_healthy(self) -> bool:
        return bool(getattr(self, "_open", False))

    def gettype(self, name: str):
        handler = self._engine.hooks.gettype
        if handler is None or not isinstance(name, str):
            raise ora_error(4043, f'object {name} does not exist')
        try:
            return handler(name)
        except Exception as exc:  # noqa: BLE001 - every error leaves as an oracledb exception
            raise as_oracle_error(exc) from None

    def createlob(self, lob_type, data=None) -> oracledb.LOB:
        """A temporary CLOB/NCLOB/BLOB held in memory (python-oracledb's Connection.createlob)."""
        from .values import make_lob
        self._check_open()
        if lob_type not in (oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_NCLOB, oracledb.DB_TYPE_BLOB):
            raise oracledb.NotSupportedError(f"createlob({lob_type}) is not supported by the embedded engine")
        lob = make_lob(b"" if lob_type is oracledb.DB_TYPE_BLOB else "")
        lob._impl.dbtype = lob_type                  # an NCLOB says NCLOB (make_lob infers CLOB from a str)
        if data:
            lob.write(data)
        return lob

    def begin(self, *args, **kwargs) -> None:
        pass


class EmbeddedPool(oracledb.ConnectionPool):
    """A pool whose connections are embedded connections to one file (langchain accepts it)."""

    def __init__(self, path: str | os.PathLike, min: int = 1, max: int = 4, increment: int = 1, **kwargs):  # noqa: A002
        self._path = path
        self._free: list[EmbeddedConnection] = []
        self._busy: set[int] = set()
        self._max = max
        self._opened = True

    def acquire(self, *args, **kwargs) -> EmbeddedConnection:
        if not self._opened:
            raise driver.dpy_error(_oracle_errors.ERR_POOL_NOT_OPEN)
        conn = self._free.pop() if self._free else EmbeddedConnection(self._path)
        conn.pool = self
        self._busy.add(id(conn))
        return conn

    def release(self, connection: EmbeddedConnection, tag=None) -> None:
        connection._engine.rollback()
        self._busy.discard(id(connection))
        self._free.append(connection)

    def close(self, force: bool = False) -> None:
        for conn in self._free:
            conn.pool = None
            conn.close()
        self._free = []
        self._opened = False

    @property
    def opened(self) -> int:
        return len(self._busy) + len(self._free)

    @property
    def busy(self) -> int:
        return len(self._busy)

    @property
    def max(self) -> int:
        return self._max

    def __repr__(self):
        return f"<EmbeddedPool {self._path}>"
