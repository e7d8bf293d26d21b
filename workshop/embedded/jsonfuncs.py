"""Oracle SQL/JSON functions and conditions over Python values, for the embedded engine.

The engine registers these as SQLite UDFs. A document argument is either an
already-parsed Python value (dict/list/str/int/float/bool/None) or JSON *text*:

- ``None`` is SQL NULL (conditions return ``None`` = UNKNOWN, functions return ``None``);
- ``str`` / ``bytes`` are JSON text (Oracle's lax syntax is accepted: unquoted field
  names, single-quoted strings, any-case ``true``/``false``/``null``); ``''`` is NULL;
- anything else is a JSON value as is.

Errors about the data go through the ON ERROR / ON EMPTY handlers with Oracle's
defaults; ``"ERROR"`` raises :class:`~workshop.embedded.jsonpath.JsonDataError` carrying
the ORA code (40441 bad JSON, 40462 no value, 40470 several values, 40456 non-scalar,
40480 needs an array wrapper, 1722/40799/40786/1861 conversions, 40478 too long,
1438 too many digits for NUMBER(p,s)).
Path syntax errors (40597) and missing PASSING variables (40656) are always raised.

JSON null versus SQL NULL: :func:`json_query` returns :data:`JSON_NULL` when the selected
value is JSON ``null``, and ``None`` only for SQL NULL; :func:`json_serialize` renders
``JSON_NULL`` as ``null``.
"""
from __future__ import annotations

import dataclasses
import datetime as dt
import decimal
import functools
import json
import math
import re
from typing import Any, Iterable, Sequence

from workshop.embedded.errors import ENGINE_SUFFIX
from workshop.embedded.jsonpath import (
    JsonDataError, JsonError, JsonPath, compile_path, parse_datetime, render_number, to_number,
)

__all__ = [
    "JSON_NULL", "Default", "FormatJson", "JsonTableColumn", "JsonArrayAgg", "json_arrayagg_class",
    "parse_json", "json_exists", "json_value", "json_query", "json_query_text", "json_equal",
    "json_table_rows", "json_table_column_names", "default_column_path", "json_serialize",
    "json_object", "json_array", "json_serialize_value", "passing_from_args",
]


# ----------------------------------------------------------------------------- markers
class _JsonNull:
    """JSON ``null`` as a top-level result (``None`` means SQL NULL)."""

    _instance: "_JsonNull | None" = None

    def __new__(cls) -> "_JsonNull":
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "JSON_NULL"

    def __bool__(self) -> bool:
        return False


JSON_NULL = _JsonNull()
_SQL_NULL = object()  # internal: "the document is SQL NULL"


@dataclasses.dataclass(frozen=True)
class Default:
    """``DEFAULT <literal> ON ERROR|EMPTY``."""

    value: Any


@dataclasses.dataclass(frozen=True)
class FormatJson:
    """A value that is JSON text to embed as JSON (``... FORMAT JSON``), not as a string."""

    text: str | bytes


# ----------------------------------------------------------------------------- JSON text
def parse_json(text: str | bytes) -> Any:
    """Parse JSON text (strict RFC 8259 first, then Oracle's lax syntax); ORA-40441 if neither."""
    if isinstance(text, (bytes, bytearray, memoryview)):
        try:
            text = bytes(text).decode("utf-8")
        except UnicodeDecodeError:
            raise JsonDataError(40441, "JSON syntax error: the data is not UTF-8 text") from None
    try:
        return json.loads(text)
    except ValueError:
        pass
    return _LaxJson(text).parse()


class _LaxJson:
    """Oracle lax JSON: unquoted field names, 'single-quoted' strings, TRUE/False/NULL."""

    _WS = re.compile(r"\s*")
    _NUMBER = re.compile(r"[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?")
    _NAME = re.compile(r"[A-Za-z_$][\w$]*")

    def __init__(self, text: str):
        self.text = text
        self.pos = 0

    def fail(self, what: str) -> JsonDataError:
        return JsonDataError(40441, f"JSON syntax error: {what} at position {self.pos + 1}")

    def ws(self) -> None:
        self.pos = self._WS.match(self.text, self.pos).end()

    def parse(self) -> Any:
        value = self.value()
        self.ws()
        if self.pos != len(self.text):
            raise self.fail("unexpected text after the JSON value")
        return value

    def value(self) -> Any:
        self.ws()
        if self.pos >= len(self.text):
            raise self.fail("unexpected end of data")
        ch = self.text[self.pos]
        if ch == "{":
            return self.obj()
        if ch == "[":
            return self.arr()
        if ch in "\"'":
            return self.string()
        m = self._NUMBER.match(self.text, self.pos)
        if m:
            self.pos = m.end()
            raw = m.group().lstrip("+")
            return int(raw) if re.fullmatch(r"-?\d+", raw) else float(raw)
        m = self._NAME.match(self.text, self.pos)
        if m and m.group().lower() in ("true", "false", "null"):
            self.pos = m.end()
            return {"true": True, "false": False, "null": None}[m.group().lower()]
        raise self.fail(f"unexpected character {ch!r}")

    def string(self) -> str:
        quote = self.text[self.pos]
        out = []
        i = self.pos + 1
        while i < len(self.text):
            ch = self.text[i]
            if ch == quote:
                self.pos = i + 1
                return "".join(out)
            if ch == "\\":
                i += 1
                if i >= len(self.text):
                    break
                esc = self.text[i]
                if esc == "u":
                    try:
                        out.append(chr(int(self.text[i + 1:i + 5], 16)))
                    except ValueError:
                        self.pos = i
                        raise self.fail("invalid \\u escape") from None
                    i += 4
                else:
                    mapped = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}.get(esc, esc)
                    out.append(mapped)
            else:
                out.append(ch)
            i += 1
        raise self.fail("unterminated string")

    def key(self) -> str:
        self.ws()
        if self.pos < len(self.text) and self.text[self.pos] in "\"'":
            return self.string()
        m = self._NAME.match(self.text, self.pos)
        if not m:
            raise self.fail("expected a field name")
        self.pos = m.end()
        return m.group()

    def expect(self, ch: str) -> None:
        self.ws()
        if self.pos >= len(self.text) or self.text[self.pos] != ch:
            raise self.fail(f"expected {ch!r}")
        self.pos += 1

    def peek(self) -> str:
        self.ws()
        return self.text[self.pos] if self.pos < len(self.text) else ""

    def obj(self) -> dict:
        self.pos += 1
        out: dict = {}
        if self.peek() == "}":
            self.pos += 1
            return out
        while True:
            k = self.key()
            self.expect(":")
            out[k] = self.value()
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("}")
            return out

    def arr(self) -> list:
        self.pos += 1
        out: list = []
        if self.peek() == "]":
            self.pos += 1
            return out
        while True:
            out.append(self.value())
            if self.peek() == ",":
                self.pos += 1
                continue
            self.expect("]")
            return out


def _load(doc: Any) -> Any:
    """Document argument -> Python value, or _SQL_NULL."""
    t = type(doc)
    if t is dict or t is list:
        return doc
    if t is str:
        return _SQL_NULL if doc == "" else parse_json(doc)
    if doc is None:
        return _SQL_NULL
    if doc is JSON_NULL:
        return None
    if isinstance(doc, str):
        return _SQL_NULL if doc == "" else parse_json(doc)
    if isinstance(doc, (bytes, bytearray, memoryview)):
        return _SQL_NULL if len(doc) == 0 else parse_json(doc)
    if isinstance(doc, FormatJson):
        return _load(doc.text)
    return doc


# ----------------------------------------------------------------------------- serialisation
def _plain(value: Any) -> Any:
    """Python value -> what json.dumps writes the Oracle way (1.0 -> 1, dates -> ISO)."""
    t = type(value)
    if t is str or t is int or t is bool or value is None:
        return value
    if t is float:
        if not math.isfinite(value):
            raise JsonDataError(40441, f"JSON syntax error: {value!r} is not a JSON number")
        return int(value) if value.is_integer() and abs(value) < 1e16 else value
    if isinstance(value, dict):
        out = {}
        for k, v in value.items():
            if not isinstance(k, str):
                raise JsonDataError(40441, f"JSON syntax error: field name {k!r} is not a string")
            out[k] = _plain(v)
        return out
    if isinstance(value, (list, tuple)):
        return [_plain(v) for v in value]
    if value is JSON_NULL:
        return None
    if isinstance(value, FormatJson):
        return _plain(parse_json(value.text))
    if isinstance(value, decimal.Decimal):
        return _plain(int(value) if value == value.to_integral_value() else float(value))
    if isinstance(value, (dt.date, dt.datetime)):
        return value.isoformat()
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value).hex().upper()
    if isinstance(value, int):  # int subclasses (IntEnum, numpy integers registered as int)
        return int(value)
    if isinstance(value, float):  # float subclasses
        return _plain(float(value))
    raise JsonDataError(40441, f"JSON syntax error: a {type(value).__name__} cannot be written as JSON")


def json_serialize(value: Any, pretty: bool = False, ascii: bool = False) -> str | None:
    """JSON_SERIALIZE: compact text like Oracle (no spaces); ``pretty`` indents by 2.

    A ``str`` argument is JSON text (it is parsed and rewritten); ``None`` is SQL NULL.
    """
    loaded = _load(value)
    if loaded is _SQL_NULL:
        return None
    plain = _plain(loaded)
    if pretty:
        return json.dumps(plain, indent=2, separators=(",", " : "), ensure_ascii=ascii)
    return json.dumps(plain, separators=(",", ":"), ensure_ascii=ascii)


def _value_for_generation(value: Any) -> Any:
    """SQL value given to JSON_OBJECT / JSON_ARRAY / JSON_ARRAYAGG -> JSON value."""
    if isinstance(value, FormatJson):
        return parse_json(value.text)
    if value is JSON_NULL:
        return None
    return value


def json_object(pairs: Iterable[tuple[str, Any]] | dict[str, Any], absent_on_null: bool = False) -> str:
    """JSON_OBJECT(key VALUE value, ...): default NULL ON NULL; wrap JSON text in
    :class:`FormatJson` to embed it as JSON. A repeated key keeps its last value."""
    items = pairs.items() if isinstance(pairs, dict) else pairs
    out: dict[str, Any] = {}
    for key, value in items:
        if key is None:
            raise JsonDataError(40595, "Name input to JSON generation function cannot be null.")
        if not isinstance(key, str):
            key = render_number(key) if isinstance(key, (int, float, decimal.Decimal)) and not isinstance(key, bool) else str(key)
        if value is None and absent_on_null:
            continue
        out[key] = _value_for_generation(value)
    return json.dumps(_plain(out), separators=(",", ":"), ensure_ascii=False)


def json_array(values: Iterable[Any], absent_on_null: bool = True) -> str:
    """JSON_ARRAY(v1, v2, ...): default ABSENT ON NULL."""
    out = []
    for value in values:
        v = _value_for_generation(value)
        if value is None and absent_on_null:
            continue
        out.append(v)
    return json.dumps(_plain(out), separators=(",", ":"), ensure_ascii=False)


class JsonArrayAgg:
    """JSON_ARRAYAGG as a SQLite aggregate (``step`` / ``finalize``).

    ``step(value, *order_keys)``: the optional keys order the elements (ascending, nulls
    last, unless the class was made with ``descending``). Default ABSENT ON NULL; no rows
    gives SQL NULL. Use :func:`json_arrayagg_class` for other options.
    """

    absent_on_null: bool = True
    format_json: bool = False
    descending: tuple[bool, ...] = ()

    def __init__(self) -> None:
        self._rows: list[tuple[tuple, Any]] = []
        self._seen = 0

    def step(self, value: Any, *order_keys: Any) -> None:
        self._seen += 1
        if value is None and self.absent_on_null:
            return
        if self.format_json and isinstance(value, (str, bytes)) and value != "":
            value = parse_json(value)
        self._rows.append((order_keys, _value_for_generation(value)))

    def finalize(self) -> str | None:
        if self._seen == 0:
            return None
        rows = self._rows
        if rows and rows[0][0]:
            rows = sorted(rows, key=functools.cmp_to_key(self._compare))
        return json.dumps(_plain([v for _, v in rows]), separators=(",", ":"), ensure_ascii=False)

    def _compare(self, a: tuple, b: tuple) -> int:
        for i, (x, y) in enumerate(zip(a[0], b[0])):
            desc = i < len(self.descending) and self.descending[i]
            if x is None or y is None:  # ASC: nulls last; DESC: nulls first
                if x is None and y is None:
                    continue
                result = 1 if x is None else -1
                return -result if desc else result
            if x == y:
                continue
            result = -1 if x < y else 1
            return -result if desc else result
        return 0


@functools.lru_cache(maxsize=64)
def json_arrayagg_class(absent_on_null: bool = True, format_json: bool = False,
                        descending: tuple[bool, ...] = ()) -> type[JsonArrayAgg]:
    """A JsonArrayAgg subclass with the given options (SQLite needs a no-argument class)."""
    return type("JsonArrayAggVariant", (JsonArrayAgg,), {
        "absent_on_null": absent_on_null, "format_json": format_json, "descending": tuple(descending)})


# ----------------------------------------------------------------------------- handlers
def _handler(spec: Any, allowed: tuple[str, ...], what: str) -> tuple[str, Any]:
    if isinstance(spec, str):
        return _handler_text(spec, allowed, what)
    return _handler_uncached(spec, allowed, what)


@functools.lru_cache(maxsize=256)
def _handler_text(spec: str, allowed: tuple[str, ...], what: str) -> tuple[str, Any]:
    return _handler_uncached(spec, allowed, what)


def _handler_uncached(spec: Any, allowed: tuple[str, ...], what: str) -> tuple[str, Any]:
    if isinstance(spec, Default):
        kind, value = "DEFAULT", spec.value
    elif isinstance(spec, tuple) and len(spec) == 2 and str(spec[0]).upper() == "DEFAULT":
        kind, value = "DEFAULT", spec[1]
    elif isinstance(spec, str):
        kind, value = " ".join(spec.upper().split()), None
        if kind.endswith(" ON ERROR") or kind.endswith(" ON EMPTY"):
            kind = kind[:-9]
        if kind == "EMPTY":
            kind = "EMPTY ARRAY"
    else:
        raise ValueError(f"{what}: handler must be a string, Default(value) or ('DEFAULT', value), got {spec!r}")
    if kind not in allowed:
        raise ValueError(f"{what}: {kind} is not allowed here (allowed: {', '.join(allowed)})")
    return kind, value


def _apply(handler: tuple[str, Any], error: JsonDataError) -> Any:
    kind, value = handler
    if kind == "ERROR":
        raise error
    if kind == "NULL":
        return None
    if kind == "DEFAULT":
        return value
    if kind == "TRUE":
        return True
    if kind == "FALSE":
        return False
    if kind == "EMPTY ARRAY":
        return []
    if kind == "EMPTY OBJECT":
        return {}
    raise AssertionError(kind)


def passing_from_args(args: Sequence[Any]) -> dict[str, Any]:
    """``(name1, value1, name2, value2, ...)`` (a UDF's trailing arguments) -> PASSING dict."""
    if len(args) % 2:
        raise ValueError("PASSING arguments must come in (name, value) pairs")
    return {str(args[i]): args[i + 1] for i in range(0, len(args), 2)}


# ----------------------------------------------------------------------------- RETURNING types
@dataclasses.dataclass(frozen=True)
class _Returning:
    kind: str                 # varchar | clob | number | integer | double | boolean | date | timestamp | json
    size: int | None = None   # VARCHAR2 length
    char_semantics: bool = False
    truncate: bool = False
    pad: bool = False         # CHAR: blank-padded
    precision: int | None = None
    scale: int | None = None
    preserve_time: bool = False
    with_tz: bool = False

    def convert(self, v: Any) -> Any:
        k = self.kind
        if k in ("varchar", "clob"):
            text = _to_text(v)
            if self.size is not None:
                length = len(text) if self.char_semantics else len(text.encode("utf-8"))
                if length > self.size:
                    if not self.truncate:
                        raise JsonDataError(40478, f"output value too large (maximum: {self.size})")
                    text = _truncate(text, self.size, self.char_semantics)
                if self.pad:
                    text += " " * (self.size - (len(text) if self.char_semantics else len(text.encode("utf-8"))))
            return text
        if k == "number":
            return _number_result(to_number(v), self.precision, self.scale)
        if k == "integer":
            return _number_result(to_number(v), None, 0)
        if k == "double":
            return float(to_number(v))
        if k == "boolean":
            if v is True or v is False:
                return v
            if isinstance(v, str) and v.lower() in ("true", "false"):
                return v.lower() == "true"
            raise JsonDataError(40786, f"JSON_VALUE evaluated to non-Boolean value: {v!r}")
        if k == "date":
            d = _datetime_value(v).replace(tzinfo=None)
            return d if self.preserve_time else dt.datetime(d.year, d.month, d.day)
        if k == "timestamp":
            d = _datetime_value(v)
            if self.with_tz:
                return d if d.tzinfo else d.replace(tzinfo=dt.timezone.utc)
            return d.replace(tzinfo=None)
        raise AssertionError(k)


def _datetime_value(v: Any) -> dt.datetime:
    if v is True or v is False or isinstance(v, (int, float, decimal.Decimal)):
        raise JsonDataError(1861, f"literal does not match format string: {v!r} is not a date")
    return parse_datetime(v)


def _to_text(v: Any) -> str:
    if isinstance(v, str):
        return v
    if v is True or v is False:
        return "true" if v else "false"
    if isinstance(v, (int, float, decimal.Decimal)):
        return render_number(v)
    if isinstance(v, (dt.date, dt.datetime)):
        return v.isoformat()
    raise JsonDataError(40456, f"JSON_VALUE evaluated to non-scalar value")


def _truncate(text: str, size: int, chars: bool) -> str:
    if chars:
        return text[:size]
    return text.encode("utf-8")[:size].decode("utf-8", errors="ignore")


def _number_result(x: Any, precision: int | None, scale: int | None) -> int | float:
    if scale is not None:
        d = decimal.Decimal(str(x)).quantize(decimal.Decimal(1).scaleb(-scale), rounding=decimal.ROUND_HALF_UP)
        if precision is not None and d.adjusted() + 1 > precision - scale:
            raise JsonDataError(1438, "value larger than specified precision allowed for this column")
        return int(d) if scale <= 0 else float(d)
    if isinstance(x, decimal.Decimal):
        return int(x) if x == x.to_integral_value() else float(x)
    if isinstance(x, float) and x.is_integer() and abs(x) < 1e16:
        return int(x)
    if precision is not None and isinstance(x, int) and len(str(abs(x))) > precision:
        raise JsonDataError(1438, "value larger than specified precision allowed for this column")
    return x


_RET_VARCHAR = re.compile(r"(N?VARCHAR2?|N?CHAR)\s*(?:\(\s*(\d+)\s*(BYTE|CHAR)?\s*\))?(\s+TRUNCATE)?")
_RET_NUMBER = re.compile(r"(?:NUMBER|NUMERIC|DECIMAL)\s*(?:\(\s*(\*|\d+)\s*(?:,\s*(-?\d+)\s*)?\))?")


@functools.lru_cache(maxsize=256)
def _returning(spec: str) -> _Returning:
    text = " ".join(spec.upper().split())
    m = _RET_VARCHAR.fullmatch(text)
    if m:
        is_char = m.group(1) in ("CHAR", "NCHAR")
        size = int(m.group(2)) if m.group(2) else (1 if is_char else 4000)
        return _Returning("varchar", size=size, char_semantics=m.group(3) == "CHAR" or m.group(1).startswith("N"),
                          truncate=bool(m.group(4)), pad=is_char)
    if text in ("CLOB", "NCLOB"):
        return _Returning("clob")
    m = _RET_NUMBER.fullmatch(text)
    if m:
        precision = int(m.group(1)) if m.group(1) and m.group(1) != "*" else None
        scale = int(m.group(2)) if m.group(2) else (0 if precision is not None else None)
        return _Returning("number", precision=precision, scale=scale)
    if text in ("INTEGER", "INT", "SMALLINT"):
        return _Returning("integer")
    if text in ("BINARY_DOUBLE", "BINARY_FLOAT", "FLOAT", "DOUBLE PRECISION", "REAL") or re.fullmatch(r"FLOAT\s*\(\d+\)", text):
        return _Returning("double")
    if text == "BOOLEAN":
        return _Returning("boolean")
    if text in ("DATE", "DATE TRUNCATE TIME", "DATE PRESERVE TIME"):
        return _Returning("date", preserve_time=text.endswith("PRESERVE TIME"))
    m = re.fullmatch(r"TIMESTAMP(?:\s*\(\d\))?( WITH TIME ZONE| WITH LOCAL TIME ZONE)?", text)
    if m:
        return _Returning("timestamp", with_tz=bool(m.group(1)))
    if text == "JSON":
        return _Returning("json")
    raise JsonError(3001, f"unimplemented feature: RETURNING {spec} in a SQL/JSON function {ENGINE_SUFFIX}")


# ----------------------------------------------------------------------------- conditions / functions
_EXISTS_HANDLERS = ("TRUE", "FALSE", "ERROR")
_VALUE_HANDLERS = ("NULL", "ERROR", "DEFAULT")
_QUERY_HANDLERS = ("NULL", "ERROR", "EMPTY ARRAY", "EMPTY OBJECT")


def json_exists(doc: Any, path: str, passing: dict[str, Any] | None = None,
                on_error: Any = "FALSE") -> bool | None:
    """JSON_EXISTS: True when the path selects at least one value. SQL NULL (or '') -> None
    (UNKNOWN); bad JSON or a strict-mode error -> ON ERROR (default FALSE)."""
    jp = compile_path(path)
    handler = _handler(on_error, _EXISTS_HANDLERS, "JSON_EXISTS ON ERROR")
    jp.check_passing(passing)
    try:
        value = _load(doc)
        if value is _SQL_NULL:
            return None
        return bool(jp.evaluate_checked(value, passing))
    except JsonDataError as exc:
        return _apply(handler, exc)


def _select(jp: JsonPath, value: Any, passing: dict[str, Any] | None) -> list[Any]:
    return jp.evaluate_checked(value, passing)  # callers ran check_passing once up front


def _value_of(value: Any, jp: JsonPath, rt: _Returning, err: tuple[str, Any], empty: tuple[str, Any],
              passing: dict[str, Any] | None) -> Any:
    try:
        items = _select(jp, value, passing)
    except JsonDataError as exc:
        return _handled_value(err, exc, rt)
    if not items:
        return _handled_value(empty, JsonDataError(40462, "JSON_VALUE evaluated to no value"), rt)
    if len(items) > 1:
        return _handled_value(err, JsonDataError(40470, "JSON_VALUE evaluated to multiple values"), rt)
    item = items[0]
    if isinstance(item, (dict, list)):
        return _handled_value(err, JsonDataError(40456, "JSON_VALUE evaluated to non-scalar value"), rt)
    if item is None:
        return None
    try:
        return rt.convert(item)
    except JsonDataError as exc:
        return _handled_value(err, exc, rt)


def _handled_value(handler: tuple[str, Any], exc: JsonDataError, rt: _Returning) -> Any:
    result = _apply(handler, exc)
    if handler[0] == "DEFAULT" and result is not None:
        return rt.convert(result)
    return result


def json_value(doc: Any, path: str, returning: str = "VARCHAR2", on_error: Any = "NULL",
               on_empty: Any = None, passing: dict[str, Any] | None = None) -> Any:
    """JSON_VALUE: the single scalar the path selects, as the RETURNING type.

    VARCHAR2 (default, 4000 bytes) gives str with numbers as Oracle renders them and
    booleans as 'true'/'false'; NUMBER gives int when integral else float; BOOLEAN,
    DATE / TIMESTAMP give bool / datetime. JSON null gives None. ``on_error`` / ``on_empty``
    take "NULL", "ERROR" or ``Default(value)``; ``on_empty=None`` means "as ON ERROR", as in
    Oracle when the ON EMPTY clause is omitted.
    """
    jp = compile_path(path)
    rt = _returning(returning)
    if rt.kind == "json":
        raise JsonError(3001, f"unimplemented feature: JSON_VALUE RETURNING JSON {ENGINE_SUFFIX}")
    err = _handler(on_error, _VALUE_HANDLERS, "JSON_VALUE ON ERROR")
    empty = err if on_empty is None else _handler(on_empty, _VALUE_HANDLERS, "JSON_VALUE ON EMPTY")
    jp.check_passing(passing)
    try:
        value = _load(doc)
    except JsonDataError as exc:
        return _handled_value(err, exc, rt)
    if value is _SQL_NULL:
        return None
    return _value_of(value, jp, rt, err, empty, passing)


@functools.lru_cache(maxsize=32)
def _wrapper(spec: str) -> str:
    words = [w for w in spec.upper().split() if w not in ("ARRAY", "WRAPPER")]
    key = " ".join(words)
    mapping = {"WITHOUT": "without", "WITH": "unconditional", "WITH UNCONDITIONAL": "unconditional",
               "WITH CONDITIONAL": "conditional"}
    if key not in mapping:
        raise ValueError(f"JSON_QUERY wrapper must be WITHOUT, WITH [UNCONDITIONAL|CONDITIONAL] [ARRAY] WRAPPER; got {spec!r}")
    return mapping[key]


def _query_of(value: Any, jp: JsonPath, wrap: str, err: tuple[str, Any], empty: tuple[str, Any],
              passing: dict[str, Any] | None) -> Any:
    try:
        items = _select(jp, value, passing)
    except JsonDataError as exc:
        return _apply(err, exc)
    if not items:
        return _apply(empty, JsonDataError(40462, "JSON_QUERY evaluated to no value"))
    if wrap == "unconditional":
        return list(items)
    if wrap == "conditional":
        if len(items) == 1 and isinstance(items[0], (dict, list)):
            return items[0]
        return list(items)
    if len(items) > 1:
        return _apply(err, JsonDataError(40480, "result cannot be returned without array wrapper"))
    return JSON_NULL if items[0] is None else items[0]


def json_query(doc: Any, path: str, wrapper: str = "WITHOUT", on_error: Any = "NULL",
               on_empty: Any = None, passing: dict[str, Any] | None = None) -> Any:
    """JSON_QUERY: the selected JSON value(s) as a Python value (the engine serialises).

    ``wrapper``: "WITHOUT" (default; several matches is an error, ORA-40480),
    "WITH [UNCONDITIONAL] [ARRAY] WRAPPER" (always an array of all matches) or
    "WITH CONDITIONAL [ARRAY] WRAPPER" (a single object/array as is, else wrapped).
    No match -> ON EMPTY (default: as ON ERROR, whose default is NULL); handlers
    "NULL", "ERROR", "EMPTY ARRAY", "EMPTY OBJECT" ("EMPTY" = "EMPTY ARRAY").
    A JSON null result is :data:`JSON_NULL`; SQL NULL is ``None``.
    """
    jp = compile_path(path)
    wrap = _wrapper(wrapper)
    err = _handler(on_error, _QUERY_HANDLERS, "JSON_QUERY ON ERROR")
    empty = err if on_empty is None else _handler(on_empty, _QUERY_HANDLERS, "JSON_QUERY ON EMPTY")
    jp.check_passing(passing)
    try:
        value = _load(doc)
    except JsonDataError as exc:
        return _apply(err, exc)
    if value is _SQL_NULL:
        return None
    return _query_of(value, jp, wrap, err, empty, passing)


def json_query_text(doc: Any, path: str, wrapper: str = "WITHOUT", on_error: Any = "NULL",
                    on_empty: Any = None, passing: dict[str, Any] | None = None, pretty: bool = False) -> str | None:
    """:func:`json_query` serialised to compact JSON text (``None`` only for SQL NULL)."""
    result = json_query(doc, path, wrapper, on_error, on_empty, passing)
    return None if result is None else json_serialize_value(result, pretty)


def json_serialize_value(value: Any, pretty: bool = False) -> str:
    """Serialise a Python JSON value (a ``str`` here is a JSON string, not JSON text)."""
    plain = _plain(value)
    if pretty:
        return json.dumps(plain, indent=2, separators=(",", " : "), ensure_ascii=False)
    return json.dumps(plain, separators=(",", ":"), ensure_ascii=False)


# ----------------------------------------------------------------------------- JSON_EQUAL
def _json_equal_values(a: Any, b: Any) -> bool:
    if isinstance(a, dict):
        if not isinstance(b, dict) or a.keys() != b.keys():
            return False
        return all(_json_equal_values(v, b[k]) for k, v in a.items())
    if isinstance(a, list):
        if not isinstance(b, list) or len(a) != len(b):
            return False
        return all(_json_equal_values(x, y) for x, y in zip(a, b))
    if a is None or b is None:
        return a is None and b is None
    if isinstance(a, bool) or isinstance(b, bool):
        return isinstance(a, bool) and isinstance(b, bool) and a == b
    num = (int, float, decimal.Decimal)
    if isinstance(a, num) or isinstance(b, num):
        return isinstance(a, num) and isinstance(b, num) and a == b
    if isinstance(a, str) or isinstance(b, str):
        return isinstance(a, str) and isinstance(b, str) and a == b
    return type(a) is type(b) and a == b


def json_equal(a: Any, b: Any, on_error: Any = "FALSE") -> bool | None:
    """JSON_EQUAL: object member order ignored, array order significant, 1 == 1.0,
    "1" != 1. A ``str`` argument is JSON text; ``None`` (SQL NULL) gives None (UNKNOWN);
    invalid JSON -> ON ERROR (default FALSE)."""
    handler = _handler(on_error, ("TRUE", "FALSE", "ERROR", "NULL"), "JSON_EQUAL ON ERROR")
    try:
        x, y = _load(a), _load(b)
    except JsonDataError as exc:
        return _apply(handler, exc)
    if x is _SQL_NULL or y is _SQL_NULL:
        return None
    return _json_equal_values(x, y)


# ----------------------------------------------------------------------------- JSON_TABLE
_COLUMN_KINDS = ("path", "query", "exists", "ordinality", "nested")


@dataclasses.dataclass(frozen=True)
class JsonTableColumn:
    """One entry of JSON_TABLE's COLUMNS clause.

    kind: "path" (JSON_VALUE semantics, ``type`` is the RETURNING type; type "JSON" means
    JSON_QUERY semantics), "query" (FORMAT JSON: JSON_QUERY semantics, value is JSON text),
    "exists" (EXISTS PATH: 'true'/'false' for VARCHAR2, 1/0 for NUMBER, bool for BOOLEAN),
    "ordinality" (FOR ORDINALITY) or "nested" (NESTED PATH ``path`` COLUMNS ``columns``).
    ``path=None`` means ``$.<name>`` with the name exactly as written in the SQL
    (Oracle matches it case-sensitively even when the identifier is unquoted).
    ``on_error=None`` inherits the JSON_TABLE-level handler.
    """

    name: str
    kind: str = "path"
    type: str = "VARCHAR2"
    path: str | None = None
    wrapper: str = "WITHOUT"
    on_error: Any = None
    on_empty: Any = None
    columns: tuple["JsonTableColumn", ...] = ()

    def __post_init__(self) -> None:
        if self.kind not in _COLUMN_KINDS:
            raise ValueError(f"JSON_TABLE column kind must be one of {_COLUMN_KINDS}, got {self.kind!r}")
        if self.kind == "nested" and (not self.path or not self.columns):
            raise ValueError("a NESTED PATH column needs a path and columns")
        if self.kind != "nested" and self.columns:
            raise ValueError(f"only NESTED PATH columns have sub-columns ({self.name})")
        object.__setattr__(self, "columns", tuple(self.columns))


def default_column_path(name: str) -> str:
    """``$.<name>``, quoting the field name when it is not a plain identifier."""
    if re.fullmatch(r"[^\W\d]\w*", name):
        return f"$.{name}"
    return "$." + json.dumps(name, ensure_ascii=False)


def json_table_column_names(columns: Sequence[JsonTableColumn]) -> list[str]:
    """Output column names in order (nested columns flattened in place)."""
    names: list[str] = []
    for col in columns:
        if col.kind == "nested":
            names.extend(json_table_column_names(col.columns))
        else:
            names.append(col.name)
    return names


class _TablePlan:
    """Compiled COLUMNS clause: one entry per column, with its compiled path and handlers."""

    def __init__(self, columns: Sequence[JsonTableColumn], table_error: tuple[str, Any]):
        self.entries: list[tuple] = []
        self.width = 0
        self.paths: list[JsonPath] = []  # every compiled path, to check PASSING once
        for col in columns:
            if col.kind == "ordinality":
                self.entries.append(("ordinality", None))
                self.width += 1
            elif col.kind == "nested":
                child = _TablePlan(col.columns, table_error)
                self.entries.append(("nested", (compile_path(col.path), child)))
                self.paths.append(compile_path(col.path))
                self.paths.extend(child.paths)
                self.width += child.width
            else:
                jp = compile_path(col.path or default_column_path(col.name))
                self.paths.append(jp)
                if col.kind == "exists":
                    handler = _handler(col.on_error if col.on_error is not None else "FALSE", _EXISTS_HANDLERS,
                                       f"JSON_TABLE column {col.name} ON ERROR")
                    rt = " ".join(col.type.upper().split())
                    out = "boolean" if rt == "BOOLEAN" else "number" if rt.startswith(("NUMBER", "INTEGER", "INT")) else "text"
                    self.entries.append(("exists", (jp, handler, out)))
                    self.width += 1
                    continue
                rt = _returning(col.type)
                is_query = col.kind == "query" or rt.kind == "json"
                allowed = _QUERY_HANDLERS if is_query else _VALUE_HANDLERS
                err = table_error if col.on_error is None else _handler(col.on_error, allowed, f"column {col.name} ON ERROR")
                if is_query and err[0] == "DEFAULT":
                    raise ValueError(f"JSON_TABLE column {col.name}: DEFAULT is not allowed for FORMAT JSON columns")
                empty = err if col.on_empty is None else _handler(col.on_empty, allowed, f"column {col.name} ON EMPTY")
                if is_query:
                    self.entries.append(("query", (jp, _wrapper(col.wrapper), err, empty)))
                else:
                    self.entries.append(("value", (jp, rt, err, empty)))
                self.width += 1

    def rows(self, item: Any, ordinal: int, passing: dict[str, Any] | None) -> list[tuple]:
        regular: list[Any] = []
        nested: list[tuple[int, int, list[tuple]]] = []  # (offset, width, child rows)
        for kind, spec in self.entries:
            if kind == "ordinality":
                regular.append(ordinal)
            elif kind == "value":
                jp, rt, err, empty = spec
                regular.append(_value_of(item, jp, rt, err, empty, passing))
            elif kind == "query":
                jp, wrap, err, empty = spec
                result = _query_of(item, jp, wrap, err, empty, passing)
                regular.append(None if result is None else json_serialize_value(result))
            elif kind == "exists":
                jp, handler, out = spec
                try:
                    found = bool(jp.evaluate_checked(item, passing))
                except JsonDataError as exc:
                    found = _apply(handler, exc)
                regular.append(found if out == "boolean" else int(found) if out == "number"
                               else ("true" if found else "false"))
            else:
                jp, child = spec
                try:
                    child_items = jp.evaluate_checked(item, passing)
                except JsonDataError:
                    child_items = []
                child_rows = [r for i, ci in enumerate(child_items, 1) for r in child.rows(ci, i, passing)]
                nested.append((len(regular), child.width, child_rows))
                regular.extend([None] * child.width)  # placeholder slots, filled below
        if not nested:
            return [tuple(regular)]
        # Parent/child is an outer join; sibling NESTED clauses are a union (Oracle semantics).
        out: list[tuple] = []
        for offset, width, child_rows in nested:
            for child_row in child_rows:
                row = list(regular)
                row[offset:offset + width] = child_row
                out.append(tuple(row))
        return out or [tuple(regular)]


def json_table_rows(doc: Any, row_path: str, columns: Sequence[JsonTableColumn],
                    passing: dict[str, Any] | None = None, on_error: Any = "NULL") -> list[tuple]:
    """JSON_TABLE: one tuple per item the row path selects (per nested combination), in
    :func:`json_table_column_names` order. Table-level ON ERROR: "NULL" (default: bad JSON
    gives no rows, columns default to NULL ON ERROR) or "ERROR"."""
    jp = compile_path(row_path)
    table_error = _handler(on_error, ("NULL", "ERROR"), "JSON_TABLE ON ERROR")
    try:
        plan = _plan(tuple(columns), table_error)
    except TypeError:  # a DEFAULT value that cannot be hashed: compile without the cache
        plan = _TablePlan(columns, table_error)
    for path in (jp, *plan.paths):
        path.check_passing(passing)
    try:
        value = _load(doc)
        if value is _SQL_NULL:
            return []
        items = jp.evaluate_checked(value, passing)
    except JsonDataError:
        if table_error[0] == "ERROR":
            raise
        return []
    return [row for i, item in enumerate(items, 1) for row in plan.rows(item, i, passing)]


@functools.lru_cache(maxsize=256)
def _plan(columns: tuple[JsonTableColumn, ...], table_error: tuple[str, Any]) -> _TablePlan:
    return _TablePlan(columns, table_error)
