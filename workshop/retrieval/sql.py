"""Shared pieces of the retrieval SQL: identifier checks, metadata filters, the query vector, Statement.

Values always travel as bind variables. Only names (table, columns, embedding model) and the
distance metric are written into the SQL text, because SQL cannot bind them; they must match a
strict identifier pattern first, so user input can never change the statement's shape.
"""
from __future__ import annotations

import array
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

#: An unquoted Oracle identifier: a letter, then letters, digits, _ $ # (at most 128 characters).
IDENTIFIER = re.compile(r"[A-Za-z][A-Za-z0-9_$#]{0,127}")

#: VECTOR_DISTANCE metrics Oracle accepts (the keyword is written into the SQL, never bound).
METRICS = ("COSINE", "EUCLIDEAN", "EUCLIDEAN_SQUARED", "DOT", "MANHATTAN", "HAMMING")

#: Bind names the statements use themselves; filters get an ``f_`` prefix so they never collide.
FILTER_PREFIX = "f_"


@dataclass(frozen=True)
class Statement:
    """A SQL statement with its bind values and the names of the columns it returns (lower case)."""
    sql: str
    binds: dict[str, Any] = field(default_factory=dict)
    columns: tuple[str, ...] = ()

    def __str__(self) -> str:
        return self.sql


def identifier(name: str, what: str = "identifier") -> str:
    """`name` unchanged if it is a plain Oracle identifier, else ValueError naming `what`."""
    if not isinstance(name, str) or not IDENTIFIER.fullmatch(name):
        raise ValueError(f"{what} must be a plain identifier (letter, then letters, digits, _ $ #; "
                         f"at most 128 characters), not {name!r}")
    return name


def qualified_name(name: str, what: str = "table") -> str:
    """`name` or `schema.name`, each part a plain identifier (tables and models may be qualified)."""
    if not isinstance(name, str):
        raise ValueError(f"{what} must be a plain identifier, not {name!r}")
    parts = name.split(".")
    if len(parts) > 2:
        raise ValueError(f"{what} must be NAME or SCHEMA.NAME, not {name!r}")
    for part in parts:
        identifier(part, what)
    return name


def metric_keyword(metric: str) -> str:
    """The VECTOR_DISTANCE metric keyword, upper case; ValueError for anything else."""
    if not isinstance(metric, str) or metric.upper() not in METRICS:
        raise ValueError(f"metric must be one of {', '.join(METRICS)}, not {metric!r}")
    return metric.upper()


def positive_int(value: int, what: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise ValueError(f"{what} must be a positive integer, not {value!r}")
    return value


def columns_list(columns: Sequence[str], what: str = "column") -> list[str]:
    if isinstance(columns, str):
        raise TypeError("columns must be a sequence of column names, not one string")
    return [identifier(c, what) for c in columns]


def filter_conditions(filters: Mapping[str, Any] | None, qualifier: str = "") -> tuple[list[str], dict[str, Any]]:
    """Metadata filters -> (SQL conditions, binds).

    ``{"tenant": "acme"}`` -> ``tenant = :f_tenant``; a list or tuple -> ``IN (:f_x_1, ...)``;
    None -> ``IS NULL``. Anything else (dicts of operators, sets, empty lists) raises, because a
    filter the helper cannot express must not be dropped silently.
    """
    filters = dict(filters or {})
    if len({str(c).lower() for c in filters}) != len(filters):
        raise ValueError("filter columns differ only in case")
    conditions: list[str] = []
    binds: dict[str, Any] = {}
    for column, value in filters.items():
        name = identifier(column, "filter column")
        target = f"{qualifier}{name}"
        bind = f"{FILTER_PREFIX}{name.lower()}"
        if value is None:
            conditions.append(f"{target} IS NULL")
        elif isinstance(value, (list, tuple)):
            if not value:
                raise ValueError(f"filter {column!r} has an empty list of values")
            names = [f"{bind}_{i}" for i in range(1, len(value) + 1)]
            conditions.append(f"{target} IN ({', '.join(':' + n for n in names)})")
            binds.update(zip(names, value))
        elif isinstance(value, (str, int, float, bool)):
            conditions.append(f"{target} = :{bind}")
            binds[bind] = value
        else:
            raise TypeError(f"filter {column!r}: a value must be str, number, bool, None or a list of them, "
                            f"not {type(value).__name__}")
    return conditions, binds


def where_clause(conditions: Sequence[str], indent: str = "") -> str:
    """``WHERE a\\n  AND b`` lines (empty string for no conditions)."""
    if not conditions:
        return ""
    return f"\n{indent}WHERE " + f"\n{indent}  AND ".join(conditions)


def vector_bind(vector: Any) -> array.array:
    """A query vector as python-oracledb binds a VECTOR: array.array of float32 / float64 / int8.

    numpy arrays keep their type (float64 -> 'd', float32 -> 'f', int8 -> 'b'); lists and tuples
    become float32, the workshop's column format.
    """
    if isinstance(vector, array.array):
        if vector.typecode not in ("f", "d", "b", "B"):
            raise TypeError(f"array.array of typecode {vector.typecode!r} is not a vector type")
        return vector
    typecode = "f"
    dtype = getattr(vector, "dtype", None)
    if dtype is not None:
        kind = str(dtype)
        typecode = {"float64": "d", "float32": "f", "int8": "b"}.get(kind)
        if typecode is None:
            raise TypeError(f"a numpy query vector must be float32, float64 or int8, not {kind}")
        if getattr(vector, "ndim", 1) != 1:
            raise ValueError("the query vector must be one-dimensional")
        vector = vector.tolist()
    if not isinstance(vector, (list, tuple)) or not vector:
        raise TypeError("the query vector must be a non-empty list, tuple, array.array or numpy array")
    return array.array(typecode, vector)


def query_vector_sql(query: Any, model: str | None) -> tuple[str, dict[str, Any]]:
    """The SQL expression for the query vector and its bind.

    A vector is bound as ``:query_vector``; text needs an in-database embedding model and becomes
    ``VECTOR_EMBEDDING(<model> USING :query_text AS data)``.
    """
    if isinstance(query, str):
        if model is None:
            raise ValueError("a text query needs model= (the in-database embedding model); "
                             "or pass the query vector itself")
        return f"VECTOR_EMBEDDING({qualified_name(model, 'model')} USING :query_text AS data)", {"query_text": query}
    if model is not None:
        raise ValueError("model= is only used with a text query; a query vector is used as given")
    return ":query_vector", {"query_vector": vector_bind(query)}
