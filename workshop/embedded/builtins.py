"""User functions the engine itself owns: column storage rules, vectors, JSON glue, text and
model hooks. Oracle's scalar library (strings, numbers, dates) comes from `functions/`."""
from __future__ import annotations

import json
import math
import re
from functools import lru_cache
from typing import Any, Callable

import numpy as np

from . import values as V
from .errors import EngineError


# ----------------------------------------------------------------------------- vectors
def as_vector_blob(value: Any, what: str = "vector") -> bytes | None:
    """Accept the spellings Oracle accepts for a vector: stored blob or '[1, 2, 3]' text."""
    if value is None:
        return None
    if isinstance(value, (bytes, memoryview)):
        if V.is_vector_blob(value):
            return bytes(value)
        raise EngineError(51805, f"invalid binary vector data for {what}")
    if isinstance(value, str):
        return text_to_vector(value)
    if isinstance(value, (int, float)):
        raise EngineError(932, "inconsistent datatypes: expected VECTOR got NUMBER")
    raise EngineError(932, f"inconsistent datatypes: expected VECTOR got {type(value).__name__}")


def text_to_vector(text: str, fmt: str = "FLOAT32") -> bytes:
    try:
        values = json.loads(text)
    except ValueError:
        raise EngineError(51805, f"Invalid vector text: {text[:40]!r}") from None
    if not isinstance(values, list) or not values or not all(isinstance(v, (int, float)) and not isinstance(v, bool)
                                                             for v in values):
        raise EngineError(51805, f"Invalid vector text: {text[:40]!r}")
    try:
        return V.encode_vector(values, fmt)
    except ValueError as exc:
        raise EngineError(51805, f"Invalid vector text for {fmt}: {exc}") from None


def _metric_fn(metric: str) -> Callable[[np.ndarray, np.ndarray], float]:
    metric = metric.upper()
    if metric == "COSINE":
        def cosine(x, y):
            nx, ny = float(np.linalg.norm(x)), float(np.linalg.norm(y))
            if nx == 0.0 or ny == 0.0:
                raise EngineError(51819, "Cosine distance is undefined for a zero vector")
            return 1.0 - float(np.dot(x, y)) / (nx * ny)
        return cosine
    if metric in ("EUCLIDEAN", "L2"):
        return lambda x, y: float(np.linalg.norm(x - y))
    if metric in ("EUCLIDEAN_SQUARED", "L2_SQUARED"):
        return lambda x, y: float(np.dot(x - y, x - y))
    if metric == "DOT":
        return lambda x, y: -float(np.dot(x, y))
    if metric == "INNER_PRODUCT":
        return lambda x, y: float(np.dot(x, y))
    if metric in ("MANHATTAN", "L1"):
        return lambda x, y: float(np.abs(x - y).sum())
    if metric == "HAMMING":
        return lambda x, y: float(np.count_nonzero(x != y))
    if metric == "JACCARD":
        return _jaccard
    raise EngineError(51964, f"Invalid or unsupported metric specified for VECTOR_DISTANCE ({metric})")


def _jaccard(x: np.ndarray, y: np.ndarray) -> float:
    """1 - |x AND y| / |x OR y| over the bits of two BINARY vectors (AI Vector Search User's Guide, "Jaccard
    Similarity"). Two all-zero vectors share no set bit: the guide does not say; 0 here (probe E18-JACCARD0)."""
    either = float(np.maximum(x, y).sum())
    return 0.0 if either == 0.0 else 1.0 - float((x * y).sum()) / either


_METRICS = {m: _metric_fn(m) for m in ("COSINE", "EUCLIDEAN", "L2", "EUCLIDEAN_SQUARED", "L2_SQUARED", "DOT",
                                       "INNER_PRODUCT", "MANHATTAN", "L1", "HAMMING", "JACCARD")}


def vector_elements(blob: bytes) -> np.ndarray:
    """A vector's dimensions: a BINARY vector's bits, one per dimension (it stores eight to a byte)."""
    arr = V.vector_numpy(blob)
    if V.vector_format(blob) == "BINARY":
        return np.unpackbits(arr)
    return arr


def jaccard_needs_binary(first: str, second: str) -> EngineError:
    """Error reference DIA-51837: the Jaccard metric takes BINARY vectors only."""
    return EngineError(51837, f"VECTOR_DISTANCE() with Jaccard metric or JACCARD_DISTANCE() requires BINARY format "
                              f"input vectors: encountered dimension formats ({first}, {second})")


def _vector_array(blob: bytes) -> np.ndarray:
    return vector_elements(blob).astype(np.float64)


def vector_distance(a: Any, b: Any, metric: str = "COSINE") -> float | None:
    if a is None or b is None:
        return None
    first, second = as_vector_blob(a), as_vector_blob(b)
    x, y = _vector_array(first), _vector_array(second)
    if x.shape != y.shape:
        raise EngineError(51808, f"Incorrect vector dimension number: {x.shape[0]} vs {y.shape[0]}")
    fn = _METRICS.get(metric.upper())
    if metric.upper() == "JACCARD":
        formats = (V.vector_format(first), V.vector_format(second))
        if formats != ("BINARY", "BINARY"):
            raise jaccard_needs_binary(*formats)
    if fn is None:
        raise EngineError(51964, f"Invalid or unsupported metric specified for VECTOR_DISTANCE ({metric})")
    return fn(x, y)


def to_vector(value: Any, dims: Any = None, fmt: Any = None, *_ignored) -> bytes | None:
    """TO_VECTOR(text [, dimensions [, format]]) and VECTOR(...) constructor."""
    if value is None:
        return None
    fmt = None if fmt in (None, "*") else str(fmt).upper()
    blob = text_to_vector(value, fmt or "FLOAT32") if isinstance(value, str) else as_vector_blob(value)
    if fmt and fmt != V.vector_format(blob):
        if "BINARY" in (fmt, V.vector_format(blob)):
            raise EngineError(51805, f"cannot convert a {V.vector_format(blob)} vector to {fmt}")
        blob = V.encode_vector(V.vector_numpy(blob).astype(np.float64), fmt)
    if dims not in (None, "*", "FLEX"):
        expected = int(dims)
        actual = V.vector_dimension(blob)
        if actual != expected:
            raise EngineError(51803, f"Vector dimension count must match the dimension count specified "
                                     f"in the column definition (actual: {actual}, required: {expected}).")
    return blob


def from_vector(value: Any, *_options) -> str | None:
    if value is None:
        return None
    arr = V.vector_numpy(as_vector_blob(value))
    if V.vector_format(value) in ("INT8", "BINARY"):
        return "[" + ",".join(str(int(v)) for v in arr) + "]"
    return "[" + ",".join(_format_float(float(v), V.vector_format(value)) for v in arr) + "]"


def _format_float(value: float, fmt: str) -> str:
    if fmt == "FLOAT32":
        text = f"{value:.9E}"
    else:
        text = f"{value:.17E}"
    mantissa, exponent = text.split("E")
    mantissa = mantissa.rstrip("0").rstrip(".") if "." in mantissa else mantissa
    if "." not in mantissa:
        mantissa += ".0"
    return f"{mantissa}E{int(exponent):+04d}"


def vector_norm(value: Any) -> float | None:
    return None if value is None else float(np.linalg.norm(_vector_array(as_vector_blob(value))))


def vector_dimension_count(value: Any) -> int | None:
    return None if value is None else V.vector_dimension(as_vector_blob(value))


def vector_dimension_format(value: Any) -> str | None:
    return None if value is None else V.vector_format(as_vector_blob(value))


# ----------------------------------------------------------------------------- storage rules
@lru_cache(maxsize=4096)
def _spec(spec: str) -> tuple:
    data_type, length, semantics, precision, scale, dims, fmt, table, column = spec.split("|")
    return (data_type, int(length) if length else None, semantics or None, int(precision) if precision else None,
            int(scale) if scale else None, int(dims) if dims else None, fmt or None, table, column)


def store(value: Any, spec: str) -> Any:
    """Apply an Oracle column's rules to a value being written (ORA_STORE)."""
    if value is None or value == "":
        return None
    data_type, length, semantics, precision, scale, dims, fmt, table, column = _spec(spec)
    where = f'"{table}"."{column}"'
    if data_type in ("VARCHAR2", "NVARCHAR2", "CHAR", "NCHAR", "VARCHAR"):
        text = _to_text(value, where)
        size = len(text) if semantics == "CHAR" else len(text.encode("utf-8"))
        if length is not None and size > length:
            raise EngineError(12899, f"value too large for column {where} (actual: {size}, maximum: {length})")
        if data_type in ("CHAR", "NCHAR") and length:
            text = text.ljust(length)
        return text
    if data_type in ("CLOB", "NCLOB", "LONG"):
        return _to_text(value, where)
    if data_type in ("NUMBER", "FLOAT", "BINARY_DOUBLE"):
        number = _to_number(value, where)
        if data_type == "BINARY_DOUBLE":
            return float(number)
        if scale is not None:
            number = _round_half_away(number, scale)
        if precision is not None:
            limit = 10 ** (precision - (scale or 0))
            if abs(number) >= limit:
                raise EngineError(1438, f"value larger than specified precision allowed for this column {where}")
        if isinstance(number, float) and number.is_integer() and abs(number) < 2 ** 63:
            return int(number)
        return number
    if data_type == "VECTOR":
        blob = as_vector_blob(value, where)
        if dims is not None and V.vector_dimension(blob) != dims:
            raise EngineError(51803, f"Vector dimension count must match the dimension count specified in the "
                                     f"column definition (actual: {V.vector_dimension(blob)}, required: {dims}).")
        if fmt and V.vector_format(blob) != fmt:
            blob = V.encode_vector(V.vector_numpy(blob).astype(np.float64), fmt)
        return blob
    if data_type == "JSON":
        return _to_json_text(value, where)
    if data_type == "RAW":
        raw = _to_raw(value, where)
        if length is not None and len(raw) > length:
            raise EngineError(12899, f"value too large for column {where} (actual: {len(raw)}, maximum: {length})")
        return raw
    if data_type == "BLOB":
        if isinstance(value, str):
            return _to_raw(value, where)
        return bytes(value)
    if data_type == "BOOLEAN":
        return _to_bool(value, where)
    if data_type == "DATE":
        return _to_datetime_text(value, where)[:19]
    if data_type.startswith("TIMESTAMP"):
        text = _to_datetime_text(value, where)
        if "TIME ZONE" in data_type:
            parsed = V.parse_datetime(text)
            return V.timestamp_text(parsed, with_tz=True)
        return V.timestamp_text(V.parse_datetime(text))
    raise EngineError(3001, f"unimplemented feature: storing {data_type}")


def _to_text(value: Any, where: str) -> str:
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "TRUE" if value else "FALSE"
    if isinstance(value, (int, float)):
        return V.number_to_text(value)
    if isinstance(value, (bytes, memoryview)):
        if V.is_vector_blob(value):
            return from_vector(value)
        return bytes(value).hex().upper()
    return str(value)


def _to_number(value: Any, where: str) -> int | float:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return value
    if isinstance(value, str):
        text = value.strip()
        try:
            return int(text)
        except ValueError:
            try:
                return float(text)
            except ValueError:
                raise EngineError(1722, "invalid number") from None
    raise EngineError(932, f"inconsistent datatypes: expected NUMBER for {where}")


def scalar_subquery(rows: Any, value: Any) -> Any:
    """A scalar subquery's value; two rows are "ORA-01427: single-row subquery returns more than one row"."""
    if rows is not None and int(rows) > 1:
        raise EngineError(1427, "single-row subquery returns more than one row")
    return value


def merge_source_rows(count: Any) -> int:
    """MERGE: a target row matched by more than one source row is ORA-30926 on Oracle (SQL Language Reference,
    MERGE: "the database does not update the same row of the target table multiple times"); SQLite's UPDATE ... FROM
    would apply one of them silently."""
    if count is not None and int(count) > 1:
        raise EngineError(30926, "unable to get a stable set of rows in the source tables")
    return 1


def cast_number(value: Any, precision: Any, scale: Any) -> int | float | None:
    """CAST(x AS NUMBER(p[, s])) / INTEGER (NUMBER(38)): rounded to the scale, ORA-01438 beyond the precision
    (SQL Reference, CAST and NUMBER data type)."""
    if value is None or value == "":
        return None
    number = _to_number(value, "CAST")
    number = _round_half_away(number, int(scale))
    if abs(number) >= 10 ** (int(precision) - int(scale)):
        raise EngineError(1438, "value larger than specified precision allowed for this column")
    if isinstance(number, float) and number.is_integer() and abs(number) < 2 ** 63:
        return int(number)
    return number


def _round_half_away(number: int | float, scale: int) -> int | float:
    """NUMBER(p, s) rounding: half away from zero, as Oracle rounds on store."""
    from decimal import Decimal, ROUND_HALF_UP
    if isinstance(number, int) and scale >= 0:
        return number
    exact = Decimal(repr(number)).quantize(Decimal(1).scaleb(-scale), rounding=ROUND_HALF_UP)
    return float(exact) if scale > 0 else int(exact)


def _to_json_text(value: Any, where: str) -> str:
    if isinstance(value, str):
        try:
            parsed = json.loads(value)
        except ValueError:
            raise EngineError(40441, f"JSON syntax error for {where}") from None
        return json.dumps(parsed, separators=(",", ":"), ensure_ascii=False)
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return json.dumps(value)
    raise EngineError(40441, f"JSON syntax error for {where}")


def _to_raw(value: Any, where: str) -> bytes:
    if isinstance(value, (bytes, memoryview)):
        return bytes(value)
    if isinstance(value, str):
        text = value.strip()
        if len(text) % 2:
            text = "0" + text
        try:
            return bytes.fromhex(text)
        except ValueError:
            raise EngineError(1465, "invalid hex number") from None
    raise EngineError(932, f"inconsistent datatypes: expected RAW for {where}")


def raw_if_text(value: Any) -> bytes | None:
    """Implicit HEXTORAW when text meets a RAW column (e.g. id IN (:hex1, :hex2))."""
    if value is None:
        return None
    return _to_raw(value, "RAW comparison") if isinstance(value, str) else value


def _to_bool(value: Any, where: str) -> int:
    if isinstance(value, bool):
        return int(value)
    if isinstance(value, (int, float)):
        return 0 if value == 0 else 1
    if isinstance(value, str):
        word = value.strip().upper()
        if word in ("TRUE", "T", "YES", "Y", "ON", "1"):
            return 1
        if word in ("FALSE", "F", "NO", "N", "OFF", "0"):
            return 0
    raise EngineError(61800, f"invalid boolean value for {where}")


_ISO = re.compile(r"^\d{4}-\d{2}-\d{2}([ T]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?([+-]\d{2}:\d{2}|Z)?$")


def _to_datetime_text(value: Any, where: str) -> str:
    if isinstance(value, str) and _ISO.match(value.strip()):
        parsed = V.parse_datetime(value.strip().replace("Z", "+00:00"))
        return V.timestamp_text(parsed, with_tz=parsed.tzinfo is not None)
    if isinstance(value, str):
        raise EngineError(1861, f"literal does not match format string (use TO_DATE/TO_TIMESTAMP for {where})")
    raise EngineError(932, f"inconsistent datatypes: expected DATE for {where}")


# ----------------------------------------------------------------------------- operators
def concat(a: Any, b: Any) -> str | None:
    """Oracle ||: NULL behaves as '', and '' is NULL."""
    text = ("" if a is None else _to_text(a, "||")) + ("" if b is None else _to_text(b, "||"))
    return text or None


def divide(a: Any, b: Any) -> Any:
    if a is None or b is None:
        return None
    a, b = _to_number(a, "/"), _to_number(b, "/")
    if b == 0:
        raise EngineError(1476, "divisor is equal to zero")
    result = a / b
    return int(result) if isinstance(result, float) and result.is_integer() and isinstance(a, int) \
        and isinstance(b, int) else result


def row_limit(count: Any, comparison: str = "LE") -> int:
    """Rows that FETCH FIRST n / ROWNUM <= n / ROWNUM < n let through: NULL or negative n gives
    none, fractions follow the comparison (trunc for <=, ceil - 1 for <)."""
    if count is None:
        return 0
    number = _to_number(count, "row limit")
    limit = math.ceil(number) - 1 if comparison == "LT" else math.floor(number)
    return max(0, int(limit))


def cast_char(value: Any, size: int = 0) -> str | None:
    if value is None:
        return None
    if isinstance(value, (bytes, memoryview)) and V.is_vector_blob(value):
        return from_vector(value)
    text = _to_text(value, "CAST")
    if size and len(text) > size:
        raise EngineError(25137, "Data value out of range")
    return text or None


def is_json(value: Any) -> int | None:
    if value is None:
        return None
    if not isinstance(value, str):
        return 0
    try:
        json.loads(value)
    except ValueError:
        return 0
    return 1


def json_constructor(value: Any) -> str | None:
    """JSON(text): parse and return the stored JSON form."""
    if value is None:
        return None
    return _to_json_text(value, "JSON()")
