"""Every metadata-filter operator of langchain-oracledb 1.6.0, run end to end.

The WHERE clause comes from langchain-oracledb's own builder (`_generate_where_clause`),
exactly as it would be sent to Oracle. The test rewrites its JSON_EXISTS / JSON_QUERY /
JSON_EQUAL calls into SQLite UDF calls backed by workshop.embedded.jsonfuncs (the way the
engine runs them) and checks which documents match. Expected ids follow Oracle's
SQL/JSON semantics (lax mode: arrays unwrapped, comparisons existential, mismatched types
never equal)."""
from __future__ import annotations

import json
import sqlite3

import pytest

from workshop.embedded.jsonfuncs import json_equal, json_exists, json_query_text

oraclevs = pytest.importorskip("langchain_oracledb.vectorstores.oraclevs")

DOCS = {
    1: {"kind": "a", "page": 1, "tags": ["x", "y"], "author": {"name": "Ann", "city": "NYC"},
        "title": "Oracle vector search", "flag": True},
    2: {"kind": "b", "page": 5, "tags": ["y"], "author": {"name": "Bob", "city": "SF"},
        "title": "Hybrid retrieval", "flag": False},
    3: {"kind": "c", "page": 10, "tags": [], "author": {"name": "Cy"}, "title": "Agent memory", "rating": 4.5},
    4: {"kind": "a", "page": "7", "title": "oracle text"},
    5: {"page": 3, "tags": ["x", "y"], "title": "Vector indexes"},
    6: {"kind": ["a", "b"], "page": 2.5, "title": "Multi kind"},
}

CASES = [
    ({"kind": "a"}, {1, 4, 6}),                      # lax: the array ["a","b"] matches too
    ({"kind": {"$eq": "a"}}, {1, 4, 6}),
    ({"kind": {"$ne": "a"}}, {2, 3, 6}),             # existential: "b" in ["a","b"] differs; no kind: no match
    ({"page": {"$gt": 2}}, {2, 3, 5, 6}),            # "7" (a string) never compares with a number
    ({"page": {"$gte": 5}}, {2, 3}),
    ({"page": {"$lt": 3}}, {1, 6}),
    ({"page": {"$lte": 3}}, {1, 5, 6}),
    ({"page": {"$between": [2, 5]}}, {2, 5, 6}),
    ({"page": {"$between": [None, 2]}}, {1}),
    ({"page": {"$gt": 1, "$lte": 5}}, {2, 5, 6}),
    ({"page": {"$eq": "7"}}, {4}),
    ({"page": {"$eq": "5"}}, {2}),                   # a VARCHAR2 bind takes the number type (Oracle doc example)
    ({"rating": {"$gte": 4.5}}, {3}),
    ({"kind": {"$in": ["b", "c"]}}, {2, 3, 6}),
    ({"kind": {"$nin": ["a"]}}, {2, 3, 5}),          # NOT JSON_EXISTS: documents without kind qualify
    ({"kind": {"$in": ["a"], "$ne": "b"}}, {1, 4, 6}),
    ({"tags": {"$exists": True}}, {1, 2, 3, 5}),
    ({"tags": {"$exists": False}}, {4, 6}),
    ({"tags": "x"}, {1, 5}),
    ({"tags": {"$eq": ["x", "y"]}}, {1, 5}),         # JSON_EQUAL(JSON_QUERY(...), JSON(:v))
    ({"tags": {"$ne": ["x", "y"]}}, {2, 3}),         # missing tags: JSON_EQUAL(NULL, ..) is UNKNOWN
    ({"tags": {"$all": ["x", "y"]}}, set()),         # "@ == x && @ == y" per element: never true in Oracle
    ({"title": {"$startsWith": "Oracle"}}, {1}),
    ({"title": {"$hasSubstring": "ector"}}, {1, 5}),
    ({"title": {"$instr": "memory"}}, {3}),
    ({"title": {"$regex": "^[Oo]racle"}}, {1, 4}),
    ({"title": {"$like": "%retrieval"}}, {2}),
    ({"title": {"$like": "Oracle_vector%"}}, {1}),
    ({"flag": True}, {1}),
    ({"flag": {"$eq": False}}, {2}),
    ({"author": {"city": "NYC"}}, {1}),              # nested dict -> $.author.city
    ({"author.name": {"$in": ["Bob", "Cy"]}}, {2, 3}),
    ({"$and": [{"kind": "a"}, {"page": {"$lt": 5}}]}, {1, 6}),
    ({"$or": [{"kind": "c"}, {"flag": True}]}, {1, 3}),
    ({"$nor": [{"kind": "a"}, {"page": {"$gt": 4}}]}, {5}),
    ({"page": {"$not": {"$gt": 4}}}, {1, 4, 5, 6}),
    ({"kind": "a", "page": {"$gte": 2}}, {6}),
]


def _read_quoted(sql: str, i: int) -> tuple[str, int]:
    assert sql[i] == "'"
    out, i = [], i + 1
    while True:
        if sql[i] == "'" and sql[i + 1:i + 2] == "'":
            out.append("'")
            i += 2
        elif sql[i] == "'":
            return "".join(out), i + 1
        else:
            out.append(sql[i])
            i += 1


def _to_sqlite(where: str) -> str:
    """Rewrite langchain-oracledb's SQL/JSON calls into calls of the test's UDFs."""
    out, i = [], 0
    head = "JSON_EXISTS(metadata, "
    while i < len(where):
        if where.startswith(head, i):
            path, i = _read_quoted(where, i + len(head))
            close = where.index(")", i)
            rest = where[i:close].strip()
            args = ["metadata", "'" + path.replace("'", "''") + "'"]
            if rest:
                assert rest.upper().startswith("PASSING"), rest
                for item in rest[len("PASSING"):].split(","):
                    bind, _as, name = item.split()
                    assert _as.upper() == "AS" and bind.startswith(":")
                    args += [f"'{name.strip(chr(34))}'", f"'{bind[1:]}'"]
            out.append(f"ora_json_exists({', '.join(args)})")
            i = close + 1
        elif where.startswith("JSON_QUERY(metadata, ", i):
            path, i = _read_quoted(where, i + len("JSON_QUERY(metadata, "))
            i = where.index(")", i) + 1
            out.append(f"ora_json_query(metadata, '{path}')")
        elif where.startswith("JSON(", i):
            close = where.index(")", i)
            out.append(where[i + len("JSON("):close])
            i = close + 1
        elif where.startswith("JSON_EQUAL(", i):
            out.append("ora_json_equal(")
            i += len("JSON_EQUAL(")
        else:
            out.append(where[i])
            i += 1
    return "".join(out)


@pytest.fixture()
def db():
    con = sqlite3.connect(":memory:")
    con.execute("create table docs (id integer primary key, metadata text)")
    con.executemany("insert into docs values (?, ?)", [(k, json.dumps(v)) for k, v in DOCS.items()])
    binds: dict = {}

    def exists_udf(doc, path, *pairs):
        # PASSING values travel by bind name, so Python types (bool!) survive SQLite
        passing = {pairs[k]: binds[pairs[k + 1]] for k in range(0, len(pairs), 2)}
        return json_exists(doc, path, passing)

    con.create_function("ora_json_exists", -1, exists_udf, deterministic=True)
    con.create_function("ora_json_query", 2, json_query_text, deterministic=True)
    con.create_function("ora_json_equal", 2, json_equal, deterministic=True)
    return con, binds


@pytest.mark.parametrize("flt,expected", CASES, ids=[json.dumps(c[0]) for c in CASES])
def test_langchain_filter(db, flt, expected):
    con, binds = db
    bind_values: list = []
    where = oraclevs._generate_where_clause(flt, bind_values)
    params = {f"value{i}": v for i, v in enumerate(bind_values)}
    binds.clear()
    binds.update(params)
    sql_params = {k: v for k, v in params.items() if f":{k}" in _to_sqlite(where)}
    rows = con.execute(f"select id from docs where {_to_sqlite(where)} order by id", sql_params).fetchall()
    assert {r[0] for r in rows} == expected, where


def test_every_operator_of_the_builder_is_covered():
    used = set()

    def walk(node):
        if isinstance(node, dict):
            for k, v in node.items():
                if k.startswith("$"):
                    used.add(k)
                walk(v)
        elif isinstance(node, list):
            for v in node:
                walk(v)

    for flt, _ in CASES:
        walk(flt)
    assert set(oraclevs.COMPARISON_MAP) | set(oraclevs.LOGICAL_MAP) <= used


def test_generated_paths_compile_and_use_the_expected_syntax():
    bind_values: list = []
    where = oraclevs._generate_where_clause({"kind": {"$in": ["a", "b"]}}, bind_values)
    assert "'$.kind?(@ in ($val0,$val1))'" in where
    assert json_exists(DOCS[2], "$.kind?(@ in ($val0,$val1))", {"val0": "a", "val1": "b"}) is True
