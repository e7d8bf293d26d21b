"""The JSON query specification of DBMS_HYBRID_VECTOR.SEARCH, parsed and validated.

Fields, values and defaults are those of the SEARCH reference page (Oracle AI Vector Search User's
Guide, DBMS_HYBRID_VECTOR.SEARCH):

* top level: ``hybrid_index_name`` (required), ``search_text`` (one string for both searches),
  ``search_fusion`` (INTERSECT | UNION | TEXT_ONLY | VECTOR_ONLY | MINUS_TEXT | MINUS_VECTOR | RERANK;
  default UNION), ``search_scorer`` (RSF | RRF | WRRF; default RSF), ``vector``, ``text``, ``return``;
* ``vector``: ``search_text`` or ``search_vector``, ``search_mode`` (DOCUMENT | CHUNK; default
  DOCUMENT), ``aggregator`` (default MAX), ``result_max``, ``score_weight`` (> 0, default 10),
  ``rank_penalty`` (>= 0, default 1);
* ``text``: ``contains`` or ``search_text``, ``score_weight`` (> 0, default 1), ``rank_penalty``
  (>= 0, default 5), ``result_max``;
* ``return``: ``topN`` (> 0, default 20), ``values`` (default: all but ``paths``), ``format``
  (JSON | XML; default JSON).

The single ``search_text`` construct and the ``vector``/``text`` query fields cannot be combined
("You cannot use both of these search constructs in one query"). Documented fields the engine does
not implement (``partition_name``, ``score_calc``, ``inpath``, ``paths``, XML, the BONUSMAX-style
aggregators) raise ORA-03001 naming them; unknown fields and bad values raise ORA-20000 naming the
field (the engine's wording: Oracle's own message numbers for these are not documented).
"""
from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any, Callable

from ..errors import EngineError
from ..translate import unsupported

FUSIONS = ("INTERSECT", "UNION", "TEXT_ONLY", "VECTOR_ONLY", "MINUS_TEXT", "MINUS_VECTOR", "RERANK")
SCORERS = ("RSF", "RRF", "WRRF")
AGGREGATORS = ("MAX", "MIN", "AVG", "MEDIAN", "SUM", "COUNT")
UNIMPLEMENTED_AGGREGATORS = ("BONUSMAX", "BONUSAVG", "WINAVG", "ADJBOOST", "MAXAVGMED")
VALUES = ("rowid", "score", "vector_score", "text_score", "vector_rank", "text_rank", "chunk_text", "chunk_id")

TOP_KEYS = ("hybrid_index_name", "search_text", "search_fusion", "search_scorer", "vector", "text", "return",
            "partition_name", "score_calc")
RETURN_KEYS = ("topN", "values", "format")


def spec_error(detail: str) -> EngineError:
    return EngineError(20000, f"DBMS_HYBRID_VECTOR.SEARCH: {detail}")


@dataclass
class VectorQuery:
    search_text: str | None = None
    search_vector: list[float] | None = None
    search_mode: str = "DOCUMENT"
    aggregator: str = "MAX"
    result_max: int | None = None
    score_weight: float = 10
    rank_penalty: float = 1


@dataclass
class TextQuery:
    contains: str | None = None
    search_text: str | None = None
    score_weight: float = 1
    rank_penalty: float = 5
    result_max: int | None = None


@dataclass
class SearchSpec:
    index_name: str
    vector: VectorQuery | None
    text: TextQuery | None
    fusion: str = "UNION"
    scorer: str = "RSF"
    top_n: int = 20
    values: tuple[str, ...] = VALUES
    mode: str = "DOCUMENT"
    extras: dict = field(default_factory=dict)


def _object(value: Any, path: str) -> dict:
    if not isinstance(value, dict):
        raise spec_error(f"{path} must be a JSON object")
    return value


def _check_keys(obj: dict, allowed: tuple[str, ...], path: str) -> None:
    for key in obj:
        if key not in allowed:
            raise spec_error(f"unknown parameter {path}{key}")


def _text(value: Any, path: str) -> str:
    if not isinstance(value, str):
        raise spec_error(f"{path} must be a string")
    if not value.strip():
        raise spec_error(f"{path} must not be empty")
    return value


def _enum(value: Any, allowed: tuple[str, ...], path: str) -> str:
    if not isinstance(value, str) or value.upper() not in allowed:
        raise spec_error(f"invalid value {value!r} for {path} (expected {' | '.join(allowed)})")
    return value.upper()


def _integer(value: Any, path: str, minimum: int) -> int:
    if isinstance(value, bool) or not isinstance(value, (int, float, str)):
        raise spec_error(f"{path} must be an integer")
    try:
        number = float(value)
    except ValueError:
        raise spec_error(f"{path} must be an integer, not {value!r}") from None
    if not number.is_integer() or number < minimum:
        raise spec_error(f"invalid value {value!r} for {path} (an integer >= {minimum})")
    return int(number)


def _vector(value: Any, path: str) -> list[float]:
    if isinstance(value, str):
        try:
            value = json.loads(value)
        except ValueError:
            raise spec_error(f"{path} must be a vector such as \"[0.1, 0.2]\"") from None
    if not isinstance(value, list) or not value or not all(
            isinstance(x, (int, float)) and not isinstance(x, bool) for x in value):
        raise spec_error(f"{path} must be a non-empty array of numbers")
    return [float(x) for x in value]


def _aggregator(value: Any, path: str) -> str:
    if isinstance(value, str) and value.upper() in UNIMPLEMENTED_AGGREGATORS:
        raise unsupported(f"DBMS_HYBRID_VECTOR.SEARCH {path} {value.upper()}")
    return _enum(value, AGGREGATORS + UNIMPLEMENTED_AGGREGATORS, path)


@dataclass(frozen=True)
class SubQueryRules:
    """How one sub-query object (``vector`` or ``text``) is read: its fields in checking order, each with
    its converter, the query fields of which it needs one, and the error for giving both of those."""
    name: str
    query: type
    fields: dict[str, Callable[[Any, str], Any]]
    needs_one_of: tuple[str, str]
    both_given: Callable[[], EngineError]


VECTOR_RULES = SubQueryRules(
    "vector", VectorQuery,
    {"search_text": _text, "search_vector": _vector,
     "search_mode": lambda value, path: _enum(value, ("DOCUMENT", "CHUNK"), path),
     "aggregator": _aggregator,
     "result_max": lambda value, path: _integer(value, path, 1),
     "score_weight": lambda value, path: _integer(value, path, 1),
     "rank_penalty": lambda value, path: _integer(value, path, 0)},
    ("search_text", "search_vector"),
    lambda: spec_error("vector.search_text and vector.search_vector cannot both be given"))
TEXT_RULES = SubQueryRules(
    "text", TextQuery,
    {"contains": _text, "search_text": _text,
     "score_weight": lambda value, path: _integer(value, path, 1),
     "rank_penalty": lambda value, path: _integer(value, path, 0),
     "result_max": lambda value, path: _integer(value, path, 1)},
    ("contains", "search_text"),
    lambda: unsupported("DBMS_HYBRID_VECTOR.SEARCH text.contains together with text.search_text"))


def _sub_query(top: dict, rules: SubQueryRules) -> VectorQuery | TextQuery | None:
    """The ``vector`` or ``text`` sub-query of the specification, validated, or None when absent."""
    if rules.name not in top:
        return None
    fields = _object(top[rules.name], rules.name)
    _check_keys(fields, tuple(rules.fields) + ("inpath",), f"{rules.name}.")
    if "inpath" in fields:
        raise unsupported(f"DBMS_HYBRID_VECTOR.SEARCH {rules.name}.inpath (hybrid vector indexes on JSON)")
    if all(name in fields for name in rules.needs_one_of):
        raise rules.both_given()
    query = rules.query()
    for name, convert in rules.fields.items():
        if name in fields:
            setattr(query, name, convert(fields[name], f"{rules.name}.{name}"))
    return query


def parse(raw: Any) -> SearchSpec:
    if raw is None:
        raise spec_error("the query specification is NULL")
    if isinstance(raw, (bytes, bytearray)):
        raw = raw.decode()
    if isinstance(raw, str):
        try:
            raw = json.loads(raw)
        except ValueError:
            raise EngineError(40441, "JSON syntax error") from None
    top = _object(raw, "the query specification")
    _check_keys(top, TOP_KEYS, "")
    if "partition_name" in top:
        raise unsupported("DBMS_HYBRID_VECTOR.SEARCH partition_name (partitioned hybrid vector indexes)")
    if "score_calc" in top:
        raise unsupported("DBMS_HYBRID_VECTOR.SEARCH score_calc (custom score expressions)")
    if "hybrid_index_name" not in top:
        raise spec_error("hybrid_index_name is required")
    index_name = _text(top["hybrid_index_name"], "hybrid_index_name").strip()

    vector = _sub_query(top, VECTOR_RULES)
    text = _sub_query(top, TEXT_RULES)

    if "search_text" in top:
        shared = _text(top["search_text"], "search_text")
        if (vector and (vector.search_text or vector.search_vector)) or (text and (text.contains or text.search_text)):
            raise spec_error("search_text cannot be combined with vector.search_text, vector.search_vector, "
                             "text.contains or text.search_text (use one search construct)")
        vector = vector or VectorQuery()
        text = text or TextQuery()
        vector.search_text = shared
        text.search_text = shared
    for query, rules in ((vector, VECTOR_RULES), (text, TEXT_RULES)):
        if query is not None and all(getattr(query, name) is None for name in rules.needs_one_of):
            raise spec_error(f"{rules.name} needs {' or '.join(rules.needs_one_of)}")
    if vector is None and text is None:
        raise spec_error("no query: give search_text, vector.search_text, vector.search_vector or text.contains")

    spec = SearchSpec(index_name, vector, text)
    spec.mode = vector.search_mode if vector is not None else "DOCUMENT"
    if "search_fusion" in top:
        spec.fusion = _enum(top["search_fusion"], FUSIONS, "search_fusion")
    if "search_scorer" in top:
        spec.scorer = _enum(top["search_scorer"], SCORERS, "search_scorer")
    if spec.fusion == "RERANK" and (text is None or vector is None):
        raise spec_error("search_fusion RERANK needs a text query and a vector query")
    if "return" in top:
        ret = _object(top["return"], "return")
        _check_keys(ret, RETURN_KEYS, "return.")
        if "topN" in ret:
            spec.top_n = _integer(ret["topN"], "return.topN", 1)
        if "format" in ret:
            fmt = _enum(ret["format"], ("JSON", "XML"), "return.format")
            if fmt == "XML":
                raise unsupported("DBMS_HYBRID_VECTOR.SEARCH return.format XML")
        if "values" in ret:
            values = ret["values"]
            if not isinstance(values, list) or not values:
                raise spec_error("return.values must be a non-empty array")
            chosen = []
            for value in values:
                if not isinstance(value, str):
                    raise spec_error("return.values must contain strings")
                if value.lower() == "paths":
                    raise unsupported("DBMS_HYBRID_VECTOR.SEARCH return value paths (hybrid vector indexes on JSON)")
                if value.lower() not in VALUES:
                    raise spec_error(f"invalid value {value!r} in return.values (expected {' | '.join(VALUES)})")
                chosen.append(value.lower())
            spec.values = tuple(v for v in VALUES if v in chosen)
    return spec
