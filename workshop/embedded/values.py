"""The one home of value conversion: how Oracle values are stored in SQLite, how a Python value
becomes its stored form (binds, function results) and back into what python-oracledb returns, and
NUMBER and DATE/TIMESTAMP as text (TO_CHAR(n), CAST(n AS VARCHAR2) and the storage forms of dates).
Oracle's implicit conversions inside SQL (text to number, ``as_text``) build on these in
``functions/values.py``; nothing here imports the functions that use it.

Storage conventions (one place, shared by the translator, the functions and the cursor):
- VECTOR: BLOB = 4-byte header (b"\\x00VC" + format code) + packed elements, so a vector is
  recognisable wherever it travels (columns, expressions, function results).
- JSON: compact JSON text. DATE / TIMESTAMP: ISO text that sorts correctly.
- RAW: bytes. BOOLEAN: 1/0. CLOB: text; BLOB: bytes.
SQLite column declared types carry the Oracle type (see `sqlite_decltype`), and the converters
registered here turn fetched values back into Python objects.
"""
from __future__ import annotations

import array
import datetime as dt
import decimal
import json
import sqlite3
import math
from typing import Any

import numpy as np
import oracledb

from .errors import ENGINE_SUFFIX, EngineError

VECTOR_MAGIC = b"\x00VC"
#: Oracle vector format -> (array typecode, numpy dtype)
VECTOR_FORMATS = {
    "FLOAT32": ("f", np.float32),
    "FLOAT64": ("d", np.float64),
    "INT8": ("b", np.int8),
    "BINARY": ("B", np.uint8),
}
_FORMAT_BY_CODE = {code: (name, dtype) for name, (code, dtype) in VECTOR_FORMATS.items()}


# ----------------------------------------------------------------------------- vectors
def is_vector_blob(value: Any) -> bool:
    return isinstance(value, (bytes, memoryview)) and bytes(value[:3]) == VECTOR_MAGIC


def encode_vector(values: Any, fmt: str | None = None) -> bytes:
    """Pack a sequence (array.array, list, numpy array) into the stored vector form."""
    if isinstance(values, array.array):
        code = values.typecode
        if fmt is None:
            fmt = {"f": "FLOAT32", "d": "FLOAT64", "b": "INT8", "B": "BINARY"}.get(code)
            if fmt is None:
                raise ValueError(f"array typecode {code!r} is not a vector format")
    if fmt is None:
        fmt = "FLOAT64" if not isinstance(values, np.ndarray) or values.dtype == np.float64 else (
            "FLOAT32" if values.dtype == np.float32 else "INT8" if values.dtype == np.int8 else "FLOAT64")
    code, dtype = VECTOR_FORMATS[fmt]
    arr = np.asarray(values, dtype=np.float64)
    if fmt == "INT8" and (np.any(arr < -128) or np.any(arr > 127) or np.any(arr != np.round(arr))):
        raise ValueError("INT8 vector elements must be integers in -128..127")
    if fmt == "BINARY" and (np.any(arr < 0) or np.any(arr > 255) or np.any(arr != np.round(arr))):
        raise ValueError("BINARY vector elements are packed bytes: integers in 0..255")
    if arr.ndim != 1:
        raise ValueError("a vector must be one-dimensional")
    return VECTOR_MAGIC + code.encode() + arr.astype(dtype).tobytes()


def vector_format(blob: bytes) -> str:
    return _FORMAT_BY_CODE[chr(blob[3])][0]


def vector_numpy(blob: bytes) -> np.ndarray:
    """Zero-copy view of a stored vector's elements."""
    _, dtype = _FORMAT_BY_CODE[chr(blob[3])]
    return np.frombuffer(blob, dtype=dtype, offset=4)


def decode_vector(blob: bytes) -> array.array:
    """What python-oracledb returns for a VECTOR: an array.array of the stored format."""
    code = chr(blob[3])
    out = array.array(code)
    out.frombytes(bytes(blob[4:]))
    return out


def vector_dimension(blob: bytes) -> int:
    """Dimensions of a stored vector; a BINARY vector packs 8 dimensions (bits) into each byte."""
    name, dtype = _FORMAT_BY_CODE[chr(blob[3])]
    count = (len(blob) - 4) // np.dtype(dtype).itemsize
    return count * 8 if name == "BINARY" else count


# ----------------------------------------------------------------------------- numbers as text
#: Oracle renders a NUMBER in at most 40 characters before switching to scientific notation.
_MAX_PLAIN_WIDTH = 40


def number_to_text(value: int | float) -> str:
    """A number as TO_CHAR(n) and CAST(n AS VARCHAR2) both give it: shortest text, no leading zero
    (0.5 -> '.5', 1.0 -> '1'), scientific beyond 40 characters (1E+100)."""
    if isinstance(value, bool):
        value = int(value)
    if isinstance(value, int):
        return str(value)
    if math.isnan(value):
        return "Nan"
    if math.isinf(value):
        return "Inf" if value > 0 else "-Inf"
    dec = decimal.Decimal(repr(value))
    if dec == 0:
        return "0"
    plain = format(dec, "f")
    if "." in plain:
        plain = plain.rstrip("0").rstrip(".")
    if plain.startswith("0."):
        plain = plain[1:]
    elif plain.startswith("-0."):
        plain = "-" + plain[2:]
    if len(plain) <= _MAX_PLAIN_WIDTH:
        return plain
    return _scientific(dec)


def _scientific(dec: decimal.Decimal) -> str:
    sign, digits, exponent = dec.normalize().as_tuple()
    mantissa = "".join(map(str, digits))
    power = exponent + len(mantissa) - 1
    body = mantissa[0] + ("." + mantissa[1:] if len(mantissa) > 1 else "")
    return f"{'-' if sign else ''}{body}E{'+' if power >= 0 else '-'}{abs(power):02d}"


# ----------------------------------------------------------------------------- dates as text
def local_tz() -> dt.tzinfo:
    """The session time zone: the machine's current UTC offset."""
    tz = dt.datetime.now().astimezone().tzinfo
    assert tz is not None
    return tz


def date_text(value: dt.date | dt.datetime) -> str:
    """DATE storage form 'YYYY-MM-DD HH:MM:SS' (time zone and fraction dropped)."""
    if not isinstance(value, dt.datetime):
        value = dt.datetime(value.year, value.month, value.day)
    return f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value:%H:%M:%S}"


def timestamp_text(value: dt.datetime, with_tz: bool = False, naive_zone: dt.tzinfo | None = None) -> str:
    """TIMESTAMP storage form, or with ``with_tz`` the TIMESTAMP WITH TIME ZONE form. A naive value given
    a zone is taken to be in ``naive_zone``: UTC unless told (storing naive text in a WITH TIME ZONE
    column); SQL's datetime functions pass the session zone, `local_tz()`."""
    text = f"{value.year:04d}-{value.month:02d}-{value.day:02d} {value:%H:%M:%S.%f}"
    if with_tz:
        if value.tzinfo is None and naive_zone is not None:
            value = value.replace(tzinfo=naive_zone)
        offset = value.utcoffset() if value.tzinfo else dt.timedelta(0)
        sign = "-" if offset < dt.timedelta(0) else "+"
        minutes = abs(int(offset.total_seconds())) // 60
        text += f"{sign}{minutes // 60:02d}:{minutes % 60:02d}"
    return text


def datetime_text(value: dt.datetime) -> str:
    """Storage form chosen by the datetime itself (aware: WITH TIME ZONE)."""
    return timestamp_text(value, with_tz=value.tzinfo is not None)


def parse_datetime(text: str) -> dt.datetime:
    return dt.datetime.fromisoformat(text)


# ----------------------------------------------------------------------------- LOBs
class _LobImpl:
    """Backs an `oracledb.LOB` with an in-memory value (the embedded engine has no LOB locators)."""

    def __init__(self, value: str | bytes, dbtype):
        self.value = value
        self.dbtype = dbtype

    def free_lob(self):
        pass

    def process_sync_operation(self, lob, name, args, kwargs):
        if name == "read":
            offset = args[0] if args else kwargs.get("offset", 1)
            amount = args[1] if len(args) > 1 else kwargs.get("amount")
            start = max(int(offset) - 1, 0)
            return self.value[start:] if amount is None else self.value[start:start + int(amount)]
        if name == "size":
            return len(self.value)
        if name == "getchunksize":
            return 8060
        if name in ("isopen",):
            return False
        if name in ("open", "close"):
            return None
        if name == "write":                        # temporary LOBs (Connection.createlob): Oracle's 1-based offset
            data = args[0] if args else kwargs["data"]
            offset = args[1] if len(args) > 1 else kwargs.get("offset", 1)
            if isinstance(self.value, bytes) != isinstance(data, (bytes, bytearray)):
                raise TypeError(f"a {'BLOB' if isinstance(self.value, bytes) else 'CLOB'} takes "
                                f"{'bytes' if isinstance(self.value, bytes) else 'str'}, not {type(data).__name__}")
            start = max(int(offset or 1) - 1, 0)
            pad = (b"\x00" if isinstance(self.value, bytes) else " ") * max(start - len(self.value), 0)
            head = self.value[:start] + pad
            self.value = head + data + self.value[start + len(data):]
            return None
        if name == "trim":
            self.value = self.value[:int(args[0] if args else kwargs.get("new_size", 0))]
            return None
        raise oracledb.NotSupportedError(f"LOB.{name}() is not supported by the embedded engine")


def make_lob(value: str | bytes) -> oracledb.LOB:
    """A real `oracledb.LOB` instance (isinstance checks pass) holding `value`."""
    lob = oracledb.LOB.__new__(oracledb.LOB)
    lob._impl = _LobImpl(value, oracledb.DB_TYPE_BLOB if isinstance(value, bytes) else oracledb.DB_TYPE_CLOB)
    return lob


class ClobText(str):
    """Marker for text fetched from a CLOB column (becomes a LOB unless fetch_lobs is off)."""


class BlobBytes(bytes):
    """Marker for bytes fetched from a BLOB column."""


class JsonValue:
    """Marker for a value fetched from a JSON column (already parsed)."""

    __slots__ = ("value",)

    def __init__(self, value):
        self.value = value


# ----------------------------------------------------------------------------- types
#: Oracle type name -> SQLite declared type. The first word selects the converter below;
#: the words CLOB/TEXT/BLOB/INT/REAL inside it give SQLite the right storage affinity.
SQLITE_DECLTYPES = {
    "VARCHAR2": "TEXT", "NVARCHAR2": "TEXT", "CHAR": "TEXT", "NCHAR": "TEXT", "VARCHAR": "TEXT",
    "LONG": "TEXT",
    "NUMBER": "NUMERIC", "INTEGER": "INTEGER", "INT": "INTEGER", "SMALLINT": "INTEGER",
    "FLOAT": "REAL", "BINARY_DOUBLE": "REAL", "BINARY_FLOAT": "REAL", "REAL": "REAL",
    "DOUBLE PRECISION": "REAL", "DECIMAL": "NUMERIC",
    "CLOB": "ORACLOB_TEXT", "NCLOB": "ORACLOB_TEXT",
    "BLOB": "ORABLOB",
    "RAW": "ORARAW_BLOB",
    "JSON": "ORAJSON_TEXT",
    "VECTOR": "ORAVECTOR_BLOB",
    "DATE": "ORADATE_TEXT",
    "TIMESTAMP": "ORATS_TEXT",
    "TIMESTAMP WITH TIME ZONE": "ORATSTZ_TEXT",
    "TIMESTAMP WITH LOCAL TIME ZONE": "ORATSTZ_TEXT",
    "BOOLEAN": "ORABOOL_INT",
}

#: Oracle type name -> python-oracledb DbType for cursor.description.
DB_TYPES = {
    "VARCHAR2": oracledb.DB_TYPE_VARCHAR, "VARCHAR": oracledb.DB_TYPE_VARCHAR,
    "NVARCHAR2": oracledb.DB_TYPE_NVARCHAR, "CHAR": oracledb.DB_TYPE_CHAR, "NCHAR": oracledb.DB_TYPE_NCHAR,
    "LONG": oracledb.DB_TYPE_LONG,
    "NUMBER": oracledb.DB_TYPE_NUMBER, "INTEGER": oracledb.DB_TYPE_NUMBER, "INT": oracledb.DB_TYPE_NUMBER,
    "SMALLINT": oracledb.DB_TYPE_NUMBER, "DECIMAL": oracledb.DB_TYPE_NUMBER,
    "FLOAT": oracledb.DB_TYPE_NUMBER, "REAL": oracledb.DB_TYPE_NUMBER, "DOUBLE PRECISION": oracledb.DB_TYPE_NUMBER,
    "BINARY_DOUBLE": oracledb.DB_TYPE_BINARY_DOUBLE, "BINARY_FLOAT": oracledb.DB_TYPE_BINARY_FLOAT,
    "CLOB": oracledb.DB_TYPE_CLOB, "NCLOB": oracledb.DB_TYPE_NCLOB, "BLOB": oracledb.DB_TYPE_BLOB,
    "RAW": oracledb.DB_TYPE_RAW, "JSON": oracledb.DB_TYPE_JSON, "VECTOR": oracledb.DB_TYPE_VECTOR,
    "DATE": oracledb.DB_TYPE_DATE, "TIMESTAMP": oracledb.DB_TYPE_TIMESTAMP,
    "TIMESTAMP WITH TIME ZONE": oracledb.DB_TYPE_TIMESTAMP_TZ,
    "TIMESTAMP WITH LOCAL TIME ZONE": oracledb.DB_TYPE_TIMESTAMP_LTZ,
    "BOOLEAN": oracledb.DB_TYPE_BOOLEAN,
    "INTERVAL DAY TO SECOND": oracledb.DB_TYPE_INTERVAL_DS, "INTERVAL YEAR TO MONTH": oracledb.DB_TYPE_INTERVAL_YM,
}


# ----------------------------------------------------------------------------- Python -> SQLite
def to_sqlite(value: Any, input_type: Any = None) -> Any:
    """A Python bind value in the engine's storage form (python-oracledb's rules are checked before, in
    driver.py; ``input_type`` is the bind's setinputsizes type)."""
    if value is None:
        return None
    if hasattr(value, "_embedded_var"):
        value = value.getvalue()
        if value is None:
            return None
    if input_type is oracledb.DB_TYPE_JSON and not isinstance(value, str):
        return json.dumps(_jsonable(value), separators=(",", ":"), ensure_ascii=False)
    if input_type is oracledb.DB_TYPE_JSON and isinstance(value, str):
        return json.dumps(value)
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, str):
        return value if value != "" else None
    if isinstance(value, int) and not -2 ** 63 <= value < 2 ** 63:
        return float(value)  # beyond SQLite's INTEGER: a double, as the engine's NUMBER is (documented)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, decimal.Decimal):
        if value.is_finite() and value == value.to_integral_value() and -2 ** 63 <= value < 2 ** 63:
            return int(value)
        return float(value)
    if isinstance(value, dt.datetime):
        return datetime_text(value)
    if isinstance(value, dt.date):
        return date_text(value)
    if isinstance(value, array.array):
        return encode_vector(value)
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if getattr(value, "_embedded_object", False):
        return json.dumps(list(value), ensure_ascii=False)
    if isinstance(value, list):
        # The cursor lets a list through only as a PL/SQL array bind (driver.py).
        raise EngineError(3001, f"unimplemented feature: PL/SQL array binds {ENGINE_SUFFIX}")
    if isinstance(value, oracledb.LOB):
        return to_sqlite(value.read(), input_type)
    raise EngineError(3001, f"unimplemented feature: binding a Python {type(value).__name__} {ENGINE_SUFFIX}")


#: A declared (setinputsizes / var) type -> the Oracle datatype the bind has in SQL.
_DECLARED_TYPES = {
    oracledb.DB_TYPE_NUMBER: "NUMBER", oracledb.DB_TYPE_BINARY_INTEGER: "NUMBER",
    oracledb.DB_TYPE_BINARY_DOUBLE: "BINARY_DOUBLE", oracledb.DB_TYPE_BINARY_FLOAT: "BINARY_DOUBLE",
    oracledb.DB_TYPE_VARCHAR: "VARCHAR2", oracledb.DB_TYPE_CHAR: "VARCHAR2", oracledb.DB_TYPE_NVARCHAR: "VARCHAR2",
    oracledb.DB_TYPE_NCHAR: "VARCHAR2", oracledb.DB_TYPE_LONG: "VARCHAR2",
    oracledb.DB_TYPE_DATE: "DATE", oracledb.DB_TYPE_TIMESTAMP: "TIMESTAMP",
    oracledb.DB_TYPE_TIMESTAMP_TZ: "TIMESTAMP WITH TIME ZONE", oracledb.DB_TYPE_TIMESTAMP_LTZ: "TIMESTAMP",
    oracledb.DB_TYPE_RAW: "RAW", oracledb.DB_TYPE_CLOB: "CLOB", oracledb.DB_TYPE_NCLOB: "CLOB",
    oracledb.DB_TYPE_BLOB: "BLOB", oracledb.DB_TYPE_JSON: "JSON", oracledb.DB_TYPE_VECTOR: "VECTOR",
}
#: Python types a declared type keeps (otherwise python-oracledb rebinds the value with its own type).
_DECLARED_ACCEPTS = {
    "NUMBER": (int, float, decimal.Decimal), "BINARY_DOUBLE": (int, float, decimal.Decimal), "VARCHAR2": (str,),
    "DATE": (dt.date,), "TIMESTAMP": (dt.date,), "TIMESTAMP WITH TIME ZONE": (dt.date,), "RAW": (bytes, str),
    "CLOB": (str, oracledb.LOB), "BLOB": (bytes, oracledb.LOB), "JSON": (object,),
    "VECTOR": (array.array, list),
}


def bind_type(value: Any, declared: Any = None) -> str | None:
    """The Oracle datatype a bind has in SQL: the declared type when the value fits it, else the type
    python-oracledb gives the value (its `OracleMetadata.from_value`: str VARCHAR2; int, float and Decimal
    NUMBER; date and datetime DATE; bytes RAW). None for NULL without a declaration, BOOLEAN and the
    types no implicit conversion applies to (the engine then leaves the operand as it is)."""
    if hasattr(value, "_embedded_var"):
        value = value.getvalue()
    name = _DECLARED_TYPES.get(declared) if declared is not None else None
    if value is None:
        # python-oracledb binds None as VARCHAR2 unless told otherwise; the cursor cannot tell that default from
        # a declaration, so a NULL VARCHAR2 bind stays untyped here (a documented difference: Oracle may raise
        # ORA-00932 for it in a CASE or COALESCE of NUMBERs, the engine answers NULL).
        return name if name not in (None, "VARCHAR2") else None
    if name is not None and isinstance(value, _DECLARED_ACCEPTS[name]) and not isinstance(value, bool) \
            and not (name == "DATE" and isinstance(value, dt.datetime)):
        return name
    if value is None or isinstance(value, bool):
        return None
    if isinstance(value, str):
        return "VARCHAR2"
    if isinstance(value, (int, float, decimal.Decimal)):
        return "NUMBER"
    if isinstance(value, dt.datetime) and value.tzinfo is not None:
        return "TIMESTAMP WITH TIME ZONE"
    if isinstance(value, dt.datetime) and value.microsecond:
        return "TIMESTAMP"
    if isinstance(value, dt.date):
        return "DATE"
    if isinstance(value, (bytes, bytearray)):
        return "RAW"
    if isinstance(value, array.array):
        return "VECTOR"
    if isinstance(value, oracledb.LOB):
        return "BLOB" if value.type is oracledb.DB_TYPE_BLOB else "CLOB"
    return None


def _jsonable(value: Any) -> Any:
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, (dt.datetime, dt.date)):
        return value.isoformat()
    if isinstance(value, decimal.Decimal):
        return float(value)
    if isinstance(value, array.array):
        return list(value)
    return value


def sql_value(value: Any) -> Any:
    """A Python result of an engine function in storage form (SQLite takes None/int/float/str/bytes only)."""
    if isinstance(value, bool):
        return 1 if value else 0
    if isinstance(value, dt.datetime):
        return datetime_text(value)
    if isinstance(value, dt.date):
        return date_text(value)
    if isinstance(value, (dict, list)):
        return json.dumps(value, separators=(",", ":"), ensure_ascii=False)
    return value


# ----------------------------------------------------------------------------- SQLite -> Python
def python_value(value: Any, oracle_type: str | None, lobs: bool = False) -> Any:
    """A stored value as python-oracledb would return it."""
    if value is None:
        return None
    if isinstance(value, JsonValue):
        return value.value
    if isinstance(value, ClobText):
        return make_lob(str(value)) if lobs else str(value)
    if isinstance(value, BlobBytes):
        return make_lob(bytes(value)) if lobs else bytes(value)
    if isinstance(value, (bytes, memoryview)) and is_vector_blob(value):
        return decode_vector(bytes(value))
    if oracle_type is None:
        return value
    if oracle_type == "NUMBER" and isinstance(value, float) and value.is_integer() and abs(value) < 2 ** 63:
        return int(value)
    if oracle_type == "BINARY_DOUBLE" and isinstance(value, int):
        return float(value)
    if oracle_type in ("DATE", "TIMESTAMP") and isinstance(value, str):
        return parse_datetime(value).replace(tzinfo=None) if oracle_type == "DATE" else parse_datetime(value)
    if oracle_type.startswith("TIMESTAMP") and isinstance(value, str):
        return parse_datetime(value)
    if oracle_type == "JSON" and isinstance(value, str):
        return json.loads(value)
    if oracle_type == "BOOLEAN" and isinstance(value, int):
        return bool(value)
    if oracle_type == "CLOB" and isinstance(value, str):
        return make_lob(value) if lobs else value
    if oracle_type == "RAW" and isinstance(value, str):
        return bytes.fromhex(value)
    if oracle_type.startswith("INTERVAL") and isinstance(value, str):
        return _interval_value(value)
    return value


def _interval_value(text: str) -> Any:
    """An interval's storage text as python-oracledb returns the type: a timedelta for DAY TO SECOND, an
    oracledb.IntervalYM for YEAR TO MONTH."""
    sign = -1 if text.startswith("-") else 1
    body = text.lstrip("+-")
    if " " in body:
        days, clock = body.split(" ")
        hours, minutes, seconds = clock.split(":")
        whole, _, fraction = seconds.partition(".")
        delta = dt.timedelta(days=int(days), hours=int(hours), minutes=int(minutes), seconds=int(whole),
                             microseconds=int((fraction or "0").ljust(6, "0")[:6]))
        return delta if sign > 0 else -delta
    years, months = body.split("-")
    return oracledb.IntervalYM(sign * int(years), sign * int(months))


def _convert_json(raw: bytes):
    return JsonValue(json.loads(raw))


def _convert_ts(raw: bytes):
    return dt.datetime.fromisoformat(raw.decode())


def _convert_tstz(raw: bytes):
    value = dt.datetime.fromisoformat(raw.decode())
    return value if value.tzinfo else value.replace(tzinfo=dt.timezone.utc)


def _register_converters() -> None:
    sqlite3.register_converter("ORACLOB_TEXT", lambda raw: ClobText(raw.decode()))
    sqlite3.register_converter("ORABLOB", lambda raw: BlobBytes(raw))
    sqlite3.register_converter("ORARAW_BLOB", lambda raw: bytes(raw))
    sqlite3.register_converter("ORAJSON_TEXT", _convert_json)
    sqlite3.register_converter("ORAVECTOR_BLOB", lambda raw: decode_vector(raw) if raw[:3] == VECTOR_MAGIC else raw)
    sqlite3.register_converter("ORADATE_TEXT", _convert_ts)
    sqlite3.register_converter("ORATS_TEXT", _convert_ts)
    sqlite3.register_converter("ORATSTZ_TEXT", _convert_tstz)
    sqlite3.register_converter("ORABOOL_INT", lambda raw: raw not in (b"0", b"0.0"))
    sqlite3.register_adapter(decimal.Decimal, float)


_register_converters()
