"""python-oracledb 26.1 thin mode's client-side rules, applied before a statement reaches the engine.

On Oracle these checks run in the driver, before anything is sent to the database, so the errors
are python-oracledb's own `DPY-` errors. The embedded cursor runs the same checks in the same order,
so code that the engine accepts is code python-oracledb accepts. Each rule names the python-oracledb
source it follows (oracle/python-oracledb, `src/oracledb/impl/base/` and `impl/thin/`):

- statement text (cursor.py `_normalize_statement`, thin `statement.pyx`): leading/trailing white
  space stripped, empty -> DPY-2066; an unterminated quote -> DPY-2041/DPY-2042.
- parameters (base `cursor.pyx` `_prepare_for_execute`): both positional and keyword parameters ->
  DPY-2005; anything but a dict, list or tuple -> DPY-2003; executemany() wants a list of
  dicts/sequences or an int -> DPY-2004; named and positional binds on one statement -> DPY-2006.
- value to type (`metadata.pyx` `OracleMetadata.from_value`): None, bool, str, bytes, int, float,
  Decimal, date/datetime, timedelta, LOB, array.array and the driver's own objects have a type;
  anything else (dict, tuple, numpy.ndarray, ...) -> DPY-3002. A list is a PL/SQL array bind; sent
  with a SQL statement Oracle answers ORA-01484.
- value against a declared type (`connection.pyx` `_check_value`): setinputsizes()/var() types
  accept only their Python types (DB_TYPE_JSON accepts anything, DB_TYPE_VECTOR a non-empty list
  or array.array of f/d/b/B) -> DPY-3013 / DPY-3004 / DPY-4031. A declared type the value does not
  fit is replaced by the value's own type (`bind_var.pyx` `_set_by_value`); within one
  executemany() the first non-None value fixes the type and a later value that does not fit fails.
- setinputsizes types (`metadata.pyx` `from_type`, `bind_var.pyx` `_create_var_from_type`): a
  DbType, ApiType, Python type, int (string size) or [type, n]; not a type -> DPY-2007, an
  unsupported Python type -> DPY-3003, a bad list -> DPY-2011.
- names and counts (thin `var.pyx` `_bind`, thin `cursor.pyx` `_preprocess_execute`): a bind name
  that is not in the statement -> DPY-4008, a placeholder without a value -> DPY-4010, a wrong
  number of positional values -> DPY-4009. In SQL every placeholder occurrence is a position; in
  PL/SQL each distinct name is one (`statement.pyx` `_add_bind`).
- bind types persist while the same statement is re-executed on the same cursor, as python-oracledb's
  bind variables do; a new statement starts afresh unless setinputsizes() came first.
"""
from __future__ import annotations

import array
import datetime as dt
import decimal
import re
from typing import Any

import oracledb
from oracledb import errors as _E

from .lexing import leading_words, segments


def dpy_error(number: int, **args: Any) -> oracledb.Error:
    """The exception python-oracledb raises for DPY-<number>: same class, code and message text."""
    return _E._create_exception(number, **args)


# ---------------------------------------------------------------------------- types
_PY_TYPES: dict[type, Any] = {
    bool: oracledb.DB_TYPE_BOOLEAN, int: oracledb.DB_TYPE_NUMBER, float: oracledb.DB_TYPE_NUMBER,
    str: oracledb.DB_TYPE_VARCHAR, bytes: oracledb.DB_TYPE_RAW, decimal.Decimal: oracledb.DB_TYPE_NUMBER,
    dt.datetime: oracledb.DB_TYPE_TIMESTAMP, dt.date: oracledb.DB_TYPE_DATE, dt.timedelta: oracledb.DB_TYPE_INTERVAL_DS,
}
# ApiType -> its first DbType (python-oracledb's ApiType.dbtypes[0]).
_API_TYPES = [(oracledb.STRING, oracledb.DB_TYPE_VARCHAR), (oracledb.NUMBER, oracledb.DB_TYPE_NUMBER),
              (oracledb.BINARY, oracledb.DB_TYPE_RAW), (oracledb.DATETIME, oracledb.DB_TYPE_DATE),
              (oracledb.ROWID, oracledb.DB_TYPE_ROWID)]

_NUMERIC = {oracledb.DB_TYPE_NUMBER, oracledb.DB_TYPE_BINARY_INTEGER, oracledb.DB_TYPE_BINARY_DOUBLE,
            oracledb.DB_TYPE_BINARY_FLOAT}
_CHARACTER = {oracledb.DB_TYPE_CHAR, oracledb.DB_TYPE_VARCHAR, oracledb.DB_TYPE_NCHAR, oracledb.DB_TYPE_NVARCHAR,
              oracledb.DB_TYPE_LONG, oracledb.DB_TYPE_LONG_NVARCHAR}
_BINARY = {oracledb.DB_TYPE_RAW, oracledb.DB_TYPE_LONG_RAW}
_DATETIME = {oracledb.DB_TYPE_DATE, oracledb.DB_TYPE_TIMESTAMP, oracledb.DB_TYPE_TIMESTAMP_LTZ,
             oracledb.DB_TYPE_TIMESTAMP_TZ}
_LOBS = {oracledb.DB_TYPE_CLOB, oracledb.DB_TYPE_NCLOB, oracledb.DB_TYPE_BLOB}


def type_of_declaration(typ: Any) -> Any:
    """`OracleMetadata.from_type`: the DbType a setinputsizes()/var() argument declares."""
    if isinstance(typ, oracledb.DbType):
        return typ
    if isinstance(typ, oracledb.ApiType):
        return next(db for api, db in _API_TYPES if api == typ)
    if isinstance(typ, oracledb.DbObjectType):
        return oracledb.DB_TYPE_OBJECT
    if not isinstance(typ, type):
        raise dpy_error(_E.ERR_EXPECTING_TYPE)
    if typ in _PY_TYPES:
        return _PY_TYPES[typ]
    raise dpy_error(_E.ERR_PYTHON_TYPE_NOT_SUPPORTED, typ=typ)


def type_of_value(value: Any) -> Any:
    """`OracleMetadata.from_value`: the DbType python-oracledb binds a Python value as."""
    if value is None:
        return oracledb.DB_TYPE_VARCHAR
    if getattr(value, "_embedded_object", False):
        return oracledb.DB_TYPE_OBJECT
    if isinstance(value, bool):
        return oracledb.DB_TYPE_BOOLEAN
    if isinstance(value, str):
        return oracledb.DB_TYPE_VARCHAR
    if isinstance(value, bytes):
        return oracledb.DB_TYPE_RAW
    if isinstance(value, (int, float, decimal.Decimal)):
        return oracledb.DB_TYPE_NUMBER
    if isinstance(value, (dt.date, dt.datetime)):
        return oracledb.DB_TYPE_DATE
    if isinstance(value, dt.timedelta):
        return oracledb.DB_TYPE_INTERVAL_DS
    if isinstance(value, oracledb.LOB):
        return value.type
    if isinstance(value, (array.array, oracledb.SparseVector)):
        return oracledb.DB_TYPE_VECTOR
    if isinstance(value, oracledb.IntervalYM):
        return oracledb.DB_TYPE_INTERVAL_YM
    if isinstance(value, oracledb.DbObject):
        return oracledb.DB_TYPE_OBJECT
    if hasattr(value, "_embedded_cursor") or isinstance(value, oracledb.Cursor):
        return oracledb.DB_TYPE_CURSOR
    raise dpy_error(_E.ERR_PYTHON_VALUE_NOT_SUPPORTED, type_name=type(value).__name__)


_FAILED = object()

# (declared type, Python type) pairs _check_value accepts unchanged: the fast path of executemany.
_PASS_THROUGH = {(db, py) for db in _NUMERIC - {oracledb.DB_TYPE_BINARY_FLOAT, oracledb.DB_TYPE_BINARY_DOUBLE,
                                                 oracledb.DB_TYPE_BINARY_INTEGER}
                 for py in (int, float, decimal.Decimal)}
_PASS_THROUGH |= {(db, str) for db in _CHARACTER} | {(db, bytes) for db in _BINARY}
_PASS_THROUGH |= {(db, py) for db in _DATETIME for py in (dt.date, dt.datetime)}
_PASS_THROUGH |= {(oracledb.DB_TYPE_INTERVAL_DS, dt.timedelta), (oracledb.DB_TYPE_CLOB, str),
                  (oracledb.DB_TYPE_NCLOB, str), (oracledb.DB_TYPE_BLOB, bytes)}
_VECTOR_CODES = frozenset("fdbB")


def checked_value(dbtype: Any, value: Any, raise_error: bool) -> Any:
    """`BaseConnImpl._check_value`: the value as bound to `dbtype`, or _FAILED (or a DPY error)."""
    if value is None:
        return None
    kind = type(value)
    if (dbtype, kind) in _PASS_THROUGH:
        return value
    if kind is array.array and dbtype is oracledb.DB_TYPE_VECTOR and value.typecode in _VECTOR_CODES and value:
        return value
    if dbtype in _NUMERIC:
        if isinstance(value, (bool, int, float, decimal.Decimal)):
            if dbtype in (oracledb.DB_TYPE_BINARY_FLOAT, oracledb.DB_TYPE_BINARY_DOUBLE):
                return float(value)
            if dbtype is oracledb.DB_TYPE_BINARY_INTEGER or isinstance(value, bool):
                return int(value)
            return value
    elif dbtype in _CHARACTER:
        if isinstance(value, bytes):
            return value.decode()
        if isinstance(value, str):
            return value
    elif dbtype in _BINARY:
        if isinstance(value, str):
            return value.encode()
        if isinstance(value, bytes):
            return value
    elif dbtype in _DATETIME:
        if isinstance(value, (dt.date, dt.datetime)):
            return value
    elif dbtype is oracledb.DB_TYPE_INTERVAL_DS:
        if isinstance(value, dt.timedelta):
            return value
    elif dbtype in _LOBS:
        if isinstance(value, oracledb.LOB):
            if value.type is not dbtype:
                if not raise_error:
                    return _FAILED
                raise dpy_error(_E.ERR_LOB_OF_WRONG_TYPE, actual_type_name=value.type.name,
                                expected_type_name=dbtype.name)
            return value
        if isinstance(value, (bytes, str)):
            if dbtype is oracledb.DB_TYPE_BLOB:
                return value.encode() if isinstance(value, str) else value
            return value.decode() if isinstance(value, bytes) else value
    elif dbtype is oracledb.DB_TYPE_BOOLEAN:
        return bool(value)
    elif dbtype is oracledb.DB_TYPE_JSON:
        return value
    elif dbtype is oracledb.DB_TYPE_VECTOR:
        if isinstance(value, list):
            if not value:
                raise dpy_error(_E.ERR_INVALID_VECTOR)
            try:
                return array.array("d", value)
            except TypeError:
                raise TypeError("must be real number, not " + next(
                    type(v).__name__ for v in value if not isinstance(v, (int, float)))) from None
        if isinstance(value, array.array) and value.typecode in ("f", "d", "b", "B"):
            if not value:
                raise dpy_error(_E.ERR_INVALID_VECTOR)
            return value
        if isinstance(value, oracledb.SparseVector):
            return value
    elif dbtype in (oracledb.DB_TYPE_INTERVAL_YM, oracledb.DB_TYPE_OBJECT, oracledb.DB_TYPE_CURSOR):
        return value
    else:
        if not raise_error:
            return _FAILED
        raise dpy_error(_E.ERR_UNSUPPORTED_TYPE_SET, db_type_name=dbtype.name)
    if not raise_error:
        return _FAILED
    raise dpy_error(_E.ERR_UNSUPPORTED_PYTHON_TYPE_FOR_DB_TYPE, py_type_name=type(value).__name__,
                    db_type_name=dbtype.name)


# ---------------------------------------------------------------------------- statement text
_BIND = re.compile(r'(?<![\w:]):(?:"([^"]+)"|([A-Za-z][\w$#]*|\d+))')


class StatementInfo:
    """The bind placeholders python-oracledb finds in a statement (thin `Statement._parse`)."""

    def __init__(self, sql: str):
        words = leading_words(sql, 2)
        self.is_plsql = bool(words) and words[0] in ("BEGIN", "DECLARE", "CALL")
        self.is_query = bool(words) and words[0] in ("SELECT", "WITH")
        self.occurrences: list[str] = []
        for kind, text in segments(sql):
            if kind == "string" and (len(text) < 2 or not text.endswith("'")):
                raise dpy_error(_E.ERR_MISSING_ENDING_SINGLE_QUOTE)
            if kind == "ident" and (len(text) < 2 or not text.endswith('"')):
                raise dpy_error(_E.ERR_MISSING_ENDING_DOUBLE_QUOTE)
            if kind != "code":
                continue
            for m in _BIND.finditer(text):
                name = m.group(1) if m.group(1) is not None else m.group(2).upper()
                if not self.is_plsql or name not in self.occurrences:
                    self.occurrences.append(name)
        self.names = list(dict.fromkeys(self.occurrences))


def normalized_name(name: str) -> str:
    """Thin `var.pyx` `_bind`: quoted names keep their case, others are upper-cased, ':' dropped."""
    if name.startswith('"') and name.endswith('"'):
        out = name[1:-1]
    else:
        out = name.upper()
    return out[1:] if out.startswith(":") else out


# ---------------------------------------------------------------------------- bind variables
class BindSlot:
    """One python-oracledb bind variable: its type once known, and whether this execution set it."""

    __slots__ = ("dbtype", "is_array", "has_value", "var")

    def __init__(self, dbtype: Any = None, is_array: bool = False, var: Any = None):
        self.dbtype = dbtype
        self.is_array = is_array
        self.has_value = False
        self.var = var


class BindState:
    """The cursor's bind variables between calls, as python-oracledb's BaseCursorImpl keeps them."""

    def __init__(self):
        self.statement: str | None = None
        self.info: StatementInfo | None = None
        self.style: type | None = None          # dict or list
        self.slots: list[BindSlot] | None = None
        self.by_name: dict[str, BindSlot] = {}   # dict style: key as the caller spelled it
        self.set_input_sizes = False

    # ------------------------------------------------------------------ setinputsizes
    def setinputsizes(self, args: tuple, kwargs: dict) -> None:
        if args and kwargs:
            raise dpy_error(_E.ERR_ARGS_AND_KEYWORD_ARGS)
        if not args and not kwargs:
            return
        self.slots, self.by_name, self.set_input_sizes = [], {}, True
        self.style = dict if kwargs else list
        for key, typ in (kwargs.items() if kwargs else enumerate(args)):
            slot = _slot_from_type(typ)
            self.slots.append(slot)
            if kwargs:
                self.by_name[key] = slot

    # ------------------------------------------------------------------ prepare
    def prepare(self, statement: Any, parameters: Any, keyword_parameters: dict | None) -> tuple[str, Any]:
        """`_prepare_for_execute`: returns the normalised statement and the parameters to bind."""
        statement = normalize_statement(self.statement if statement is None else statement)
        if keyword_parameters:
            if parameters:
                raise dpy_error(_E.ERR_ARGS_AND_KEYWORD_ARGS)
            parameters = keyword_parameters
        elif parameters is not None and not isinstance(parameters, (list, tuple, dict)):
            raise dpy_error(_E.ERR_WRONG_EXECUTE_PARAMETERS_TYPE)
        prepare_needed = statement != self.statement
        if not (prepare_needed and not self.set_input_sizes) and self.slots is not None and parameters is not None:
            if (self.style is dict) != isinstance(parameters, dict):
                self.set_input_sizes = False
                raise dpy_error(_E.ERR_MIXED_POSITIONAL_AND_NAMED_BINDS)
        try:
            if prepare_needed:
                self._prepare(statement)
        finally:
            self.set_input_sizes = False
        return statement, parameters

    def prepare_many(self, statement: Any) -> str:
        statement = normalize_statement(self.statement if statement is None else statement)
        try:
            if statement != self.statement:
                self._prepare(statement)
        finally:
            self.set_input_sizes = False
        return statement

    def _prepare(self, statement: str) -> None:
        self.info = None
        self.statement = statement
        self.info = StatementInfo(statement)
        if not self.set_input_sizes:
            self.slots, self.by_name, self.style = None, {}, None

    # ------------------------------------------------------------------ binding
    def bind_rows(self, cursor: Any, rows: list, handler: Any) -> list[dict[str, Any]]:
        """Bind one or many rows (`bind_one` / `bind_many`), then `_perform_binds` checks names.

        Returns, per row, {placeholder name: value as python-oracledb would send it}."""
        if self.slots is None:
            self.slots = []
        for slot in self.slots:
            slot.has_value = False
        per_row: list[list[tuple[BindSlot, Any]]] = []
        last = len(rows) - 1
        for row_num, params in enumerate(rows):
            per_row.append(self._bind_values(cursor, handler, params, len(rows), defer=row_num < last))
        return self._perform_binds(per_row)

    def _bind_values(self, cursor, handler, params, num_rows, defer) -> list[tuple[BindSlot, Any]]:
        if isinstance(params, dict):
            if self.style is None:
                self.style = dict
                self.by_name = {}
            elif self.style is not dict:
                raise dpy_error(_E.ERR_MIXED_POSITIONAL_AND_NAMED_BINDS)
            out = []
            for name, value in params.items():
                slot = self.by_name.get(name)
                if slot is None:
                    pos = len(self.by_name)
                    if pos < len(self.slots):
                        slot = self.slots[pos]
                    else:
                        slot = BindSlot()
                        self.slots.append(slot)
                    self.by_name[name] = slot
                out.append((slot, self._set_by_value(slot, cursor, handler, value, num_rows, defer)))
            return out
        if isinstance(params, (list, tuple)) or (hasattr(params, "__getitem__") and hasattr(params, "__len__")
                                                 and not isinstance(params, (str, bytes))):
            if self.style is None:
                self.style = list
            elif self.style is not list:
                raise dpy_error(_E.ERR_MIXED_POSITIONAL_AND_NAMED_BINDS)
            out = []
            for i, value in enumerate(params):
                if i < len(self.slots):
                    slot = self.slots[i]
                else:
                    slot = BindSlot()
                    self.slots.append(slot)
                out.append((slot, self._set_by_value(slot, cursor, handler, value, num_rows, defer)))
            return out
        raise dpy_error(_E.ERR_WRONG_EXECUTEMANY_PARAMETERS_TYPE)

    def _set_by_value(self, slot: BindSlot, cursor, handler, value, num_rows, defer) -> Any:
        """`BindVar._set_by_value`."""
        if getattr(value, "_embedded_var", False):
            slot.var, slot.dbtype, slot.is_array, slot.has_value = value, _var_dbtype(value), False, True
            return value
        if slot.dbtype is not None:
            if slot.has_value:
                if not slot.is_array:
                    return checked_value(slot.dbtype, value, True)
                return self._check(slot, value, raise_error=True)
            checked = self._check(slot, value, raise_error=False)
            if checked is not _FAILED:
                slot.has_value = True
                return checked
            slot.dbtype, slot.var, slot.is_array = None, None, False
        if value is None and defer:
            return None
        if handler is not None:
            var = handler(cursor, value, num_rows)
            if var is not None:
                if not getattr(var, "_embedded_var", False):
                    raise dpy_error(_E.ERR_EXPECTING_VAR)
                slot.var, slot.dbtype, slot.is_array = var, _var_dbtype(var), False
                slot.has_value = True
                return self._check(slot, value, raise_error=True)
        if isinstance(value, list) and not getattr(value, "_embedded_object", False):
            slot.is_array = True
            types = {type_of_value(v) for v in value if v is not None}
            if len(types) > 1:
                first = next(type_of_value(v) for v in value if v is not None)
                bad = next(v for v in value if v is not None and type_of_value(v) is not first)
                raise dpy_error(_E.ERR_MIXED_ELEMENT_TYPES, element=bad)
            slot.dbtype = types.pop() if types else oracledb.DB_TYPE_VARCHAR
        else:
            slot.dbtype = type_of_value(value)
        slot.has_value = True
        return self._check(slot, value, raise_error=True)

    @staticmethod
    def _check(slot: BindSlot, value: Any, raise_error: bool) -> Any:
        if slot.is_array:
            if not isinstance(value, list):
                if not raise_error:
                    return _FAILED
                raise dpy_error(_E.ERR_EXPECTING_LIST_FOR_ARRAY_VAR)
            out = []
            for element in value:
                checked = checked_value(slot.dbtype, element, raise_error)
                if checked is _FAILED:
                    return _FAILED
                out.append(checked)
            return out
        return checked_value(slot.dbtype, value, raise_error)

    def _perform_binds(self, per_row: list[list[tuple[BindSlot, Any]]]) -> list[dict[str, Any]]:
        """Thin `_bind` (DPY-4008, DPY-4009) then `_preprocess_execute` (DPY-4010)."""
        info = self.info
        slot_names: dict[int, list[str]] = {}
        if self.style is dict:
            for key, slot in self.by_name.items():
                name = normalized_name(str(key))
                if name not in info.names:
                    raise dpy_error(_E.ERR_INVALID_BIND_NAME, name=key)
                slot_names.setdefault(id(slot), []).append(name)
            bound = {n for names in slot_names.values() for n in names}
        else:
            if self.slots and len(info.occurrences) != len(self.slots):
                raise dpy_error(_E.ERR_WRONG_NUMBER_OF_POSITIONAL_BINDS, expected_num=len(info.occurrences),
                                actual_num=len(self.slots))
            bound = set(info.occurrences[:len(self.slots)])
        for name in info.occurrences:
            if name not in bound:
                raise dpy_error(_E.ERR_MISSING_BIND_VALUE, name=name)
        if any(slot.is_array for slot in self.slots) and not info.is_plsql:
            from .errors import ora_error
            raise ora_error(1484, "arrays can only be bound to PL/SQL statements")
        rows = []
        unique = len(info.names) == len(info.occurrences)
        for row in per_row:
            values: dict[str, Any] = {}
            if self.style is dict:
                for slot, value in row:
                    for name in slot_names.get(id(slot), []):
                        values[name] = value
            elif unique:
                values = dict(zip(info.occurrences, [value for _, value in row]))
            else:
                for name, (slot, value) in zip(info.occurrences, row):
                    if name in values and values[name] is not value and values[name] != value:
                        from .errors import unsupported
                        raise unsupported(f"positional binds giving the repeated placeholder :{name} "
                                          "different values (bind by name instead)")
                    values[name] = value
            rows.append(values)
        return rows

    def input_types(self) -> dict[str, Any]:
        """{placeholder name: DbType} for the engine's storage conversion (JSON, VECTOR, LOBs)."""
        out: dict[str, Any] = {}
        if self.info is None or not self.slots:
            return out
        if self.style is dict:
            for key, slot in self.by_name.items():
                if slot.dbtype is not None:
                    out[normalized_name(str(key))] = slot.dbtype
        else:
            for name, slot in zip(self.info.occurrences, self.slots):
                if slot.dbtype is not None:
                    out.setdefault(name, slot.dbtype)
        return out


def normalize_statement(statement: Any) -> str:
    """`Cursor._normalize_statement`: strip white space; an empty statement is DPY-2066."""
    if statement is None:
        raise dpy_error(_E.ERR_NO_STATEMENT)
    if not isinstance(statement, str):
        raise TypeError(f"expected str, got {type(statement).__name__}")
    statement = statement.strip()
    if not statement:
        raise dpy_error(_E.ERR_EMPTY_STATEMENT)
    return statement


def _slot_from_type(typ: Any) -> BindSlot:
    """`BindVar._set_by_type` / `_create_var_from_type`."""
    if typ is None:
        return BindSlot()
    if getattr(typ, "_embedded_var", False):
        return BindSlot(_var_dbtype(typ), var=typ)
    if isinstance(typ, list):
        if len(typ) != 2:
            raise dpy_error(_E.ERR_WRONG_ARRAY_DEFINITION)
        return BindSlot(type_of_declaration(typ[0]), is_array=True)
    if isinstance(typ, int) and not isinstance(typ, bool):
        return BindSlot(oracledb.DB_TYPE_VARCHAR)
    return BindSlot(type_of_declaration(typ))


def _var_dbtype(var: Any) -> Any:
    typ = getattr(var, "type", None)
    try:
        return type_of_declaration(typ) if typ is not None else None
    except oracledb.Error:
        return None
