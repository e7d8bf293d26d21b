"""Registers every ORA_* user function on an engine's SQLite connection.

The translator only emits names registered here (plus SQLite natives it knows are Oracle-exact);
an Oracle function missing from this registry is reported as ORA-00904, never passed through.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from . import builtins as B
from . import jsonfuncs as J
from . import values as V
from .errors import EngineError

if TYPE_CHECKING:
    from .hooks import EngineAPI as Engine


def _json_exists(doc, path, *passing):
    result = J.json_exists(doc, path, J.passing_from_args(passing) if passing else None)
    return None if result is None else int(bool(result))


def _json_value(doc, path, returning="VARCHAR2", on_error="NULL", on_empty="NULL"):
    return V.sql_value(J.json_value(doc, path, returning=returning, on_error=on_error, on_empty=on_empty))


def _json_query(doc, path, wrapper="WITHOUT", on_error="NULL", on_empty="NULL"):
    return J.json_query_text(doc, path, wrapper=wrapper, on_error=on_error, on_empty=on_empty)


def _json_equal(a, b):
    result = J.json_equal(a, b)
    return None if result is None else int(bool(result))


def _json_serialize(doc, *options):
    if doc is None:
        return None
    pretty = any(str(o).upper() == "PRETTY" for o in options)
    return J.json_serialize(J.parse_json(doc) if isinstance(doc, str) else doc, pretty=pretty)


def _json_object(null_on_null, *pairs):
    if len(pairs) % 2:
        raise EngineError(40460, "JSON_OBJECT needs key/value pairs")
    return J.json_object([(pairs[i], pairs[i + 1]) for i in range(0, len(pairs), 2)],
                         absent_on_null=not null_on_null)


class ListAgg:
    """LISTAGG(expr, delimiter): arrival order, NULLs skipped, ORA-01489 past 4000 bytes."""

    def __init__(self):
        self.parts: list[str] = []
        self.delimiter = ""

    def step(self, value, delimiter=None):
        if delimiter is not None:
            self.delimiter = str(delimiter)
        if value is not None:
            self.parts.append(B.cast_char(value) or "")

    def finalize(self):
        if not self.parts:
            return None
        text = self.delimiter.join(self.parts)
        if len(text.encode("utf-8")) > 4000:
            raise EngineError(1489, "result of string concatenation is too long")
        return text


class ListAggOrdered(ListAgg):
    """LISTAGG ... WITHIN GROUP (ORDER BY k1 [DESC], ...): (value, delimiter, k1, desc1, ...)."""

    def __init__(self):
        super().__init__()
        self.rows: list[tuple] = []

    def step(self, value, delimiter, *keys):
        if delimiter is not None:
            self.delimiter = str(delimiter)
        if value is not None:
            self.rows.append((keys, B.cast_char(value) or ""))

    def finalize(self):
        if not self.rows:
            return None
        rows = self.rows
        n = len(rows[0][0]) // 2
        for i in reversed(range(n)):
            desc = bool(rows[0][0][2 * i + 1])
            rows = sorted(rows, key=lambda r: (r[0][2 * i] is None, r[0][2 * i]) if not desc
                          else (r[0][2 * i] is not None, r[0][2 * i]), reverse=desc)
        self.parts = [v for _, v in rows]
        return super().finalize()


class JsonArrayAggOrdered:
    """JSON_ARRAYAGG(v ORDER BY k1 [DESC] ...): (value, k1, desc1, ...)."""

    def __init__(self):
        self.rows: list[tuple] = []
        self.seen = 0

    def step(self, value, *keys):
        self.seen += 1
        if value is not None:
            self.rows.append((keys, value))

    def finalize(self):
        if not self.seen:
            return None
        rows = self.rows
        if rows:
            n = len(rows[0][0]) // 2
            for i in reversed(range(n)):
                desc = bool(rows[0][0][2 * i + 1])
                rows = sorted(rows, key=lambda r: (r[0][2 * i] is None, r[0][2 * i]), reverse=desc)
        agg = J.JsonArrayAgg()
        for _, value in rows:
            agg.step(value)
        return agg.finalize() if rows else "[]"


_ENGINE_SCALARS = {
    "ORA_STORE": (B.store, 2, True),
    "ORA_VECTOR_DISTANCE": (B.vector_distance, 3, True),
    "ORA_TO_VECTOR": (B.to_vector, -1, True),
    "ORA_FROM_VECTOR": (B.from_vector, -1, True),
    "ORA_VECTOR_NORM": (B.vector_norm, 1, True),
    "ORA_VECTOR_DIMENSION_COUNT": (B.vector_dimension_count, 1, True),
    "ORA_VECTOR_DIMENSION_FORMAT": (B.vector_dimension_format, 1, True),
    "ORA_CONCAT": (B.concat, 2, True),
    "ORA_DIV": (B.divide, 2, True),
    "ORA_CAST_CHAR": (B.cast_char, 2, True),
    "ORA_CAST_NUMBER": (B.cast_number, 3, True),
    "ORA_MERGE_SOURCE_ROWS": (B.merge_source_rows, 1, True),
    "ORA_SCALAR_SUBQUERY": (B.scalar_subquery, 2, True),
    "ORA_IS_JSON": (B.is_json, 1, True),
    "ORA_JSON": (B.json_constructor, 1, True),
    "ORA_JSON_EXISTS": (_json_exists, -1, True),
    "ORA_JSON_VALUE": (_json_value, 5, True),
    "ORA_JSON_QUERY": (_json_query, 5, True),
    "ORA_JSON_EQUAL": (_json_equal, 2, True),
    "ORA_JSON_SERIALIZE": (_json_serialize, -1, True),
    "ORA_JSON_OBJECT": (_json_object, -1, True),
    "ORA_TO_RAW_IF_TEXT": (B.raw_if_text, 1, True),
    "ORA_ROW_LIMIT": (B.row_limit, -1, True),
}

#: name -> (registered name, Oracle result type) for the translator
_ENGINE_CALLS = {
    "FROM_VECTOR": ("ORA_FROM_VECTOR", "VARCHAR2"),
    "VECTOR_SERIALIZE": ("ORA_FROM_VECTOR", "VARCHAR2"),
    "VECTOR_NORM": ("ORA_VECTOR_NORM", "BINARY_DOUBLE"),
    "VECTOR_DIMENSION_COUNT": ("ORA_VECTOR_DIMENSION_COUNT", "NUMBER"),
    "VECTOR_DIMS": ("ORA_VECTOR_DIMENSION_COUNT", "NUMBER"),
    "VECTOR_DIMENSION_FORMAT": ("ORA_VECTOR_DIMENSION_FORMAT", "VARCHAR2"),
    "JSON_SERIALIZE": ("ORA_JSON_SERIALIZE", "VARCHAR2"),
    "DBMS_LOB.SUBSTR": ("ORA_SUBSTR", "VARCHAR2"),
    "DBMS_LOB.GETLENGTH": ("ORA_LENGTH", "NUMBER"),
    "DBMS_LOB.INSTR": ("ORA_INSTR", "NUMBER"),
}


def _dbms_lob_substr(lob, amount=32767, offset=1):
    from .functions import strings
    return strings.substr(lob, offset, amount)


def register_all(engine: "Engine") -> None:
    from .hierarchy import RUNTIME_FUNCTIONS
    for name, (fn, nargs, deterministic) in {**_ENGINE_SCALARS, **RUNTIME_FUNCTIONS}.items():
        engine.register(name, fn, nargs, deterministic)
    engine.register_aggregate("ORA_LISTAGG", ListAgg, 2)
    engine.register_aggregate("ORA_LISTAGG_ORDERED", ListAggOrdered, -1)
    engine.register_aggregate("ORA_JSON_ARRAYAGG", J.JsonArrayAgg, 1)
    engine.register_aggregate("ORA_JSON_ARRAYAGG_ORDERED", JsonArrayAggOrdered, -1)
    for sql_name, (registered, result_type) in _ENGINE_CALLS.items():
        engine.map_function(sql_name, registered, result_type)
    _register_oracle_library(engine)


def _register_oracle_library(engine: "Engine") -> None:
    """Oracle's scalar and aggregate functions (strings, numbers, dates) from functions/."""
    from .functions import registry as F
    for name, (fn, nargs) in F.SCALAR_FUNCTIONS.items():
        engine.register("ORA_" + name, fn, nargs, deterministic=name not in F.NONDETERMINISTIC)
        engine.names.scalars.add(name)
    for name, (cls, nargs) in F.AGGREGATES.items():
        if name in ("LISTAGG",):
            continue  # LISTAGG is translated to ORA_LISTAGG / ORA_LISTAGG_ORDERED (WITHIN GROUP order)
        engine.register_aggregate("ORA_" + name, cls, nargs)
        engine.names.aggregates.add(name)
    engine.register("ORA_DBMS_LOB_SUBSTR", _dbms_lob_substr, -1, True)
    engine.map_function("DBMS_LOB.SUBSTR", "ORA_DBMS_LOB_SUBSTR", "VARCHAR2")
