"""SQL/JSON through SQL: JSON columns, JSON_VALUE/QUERY/EXISTS/OBJECT/ARRAYAGG, JSON_TABLE."""
import json

import oracledb
import pytest

from tests.conftest import ora_code


@pytest.fixture
def mem(cur):
    cur.execute("CREATE TABLE mem (id NUMBER PRIMARY KEY, meta JSON)")
    cur.setinputsizes(None, oracledb.DB_TYPE_JSON)
    cur.executemany("INSERT INTO mem VALUES (:1, :2)", [
        (1, {"kind": "fact", "score": 0.9, "tags": ["a", "b"], "$agent_memory": {"revision": 3}}),
        (2, {"kind": "episode", "score": 0.4, "tags": ["b"]}),
        (3, {"kind": "fact", "score": 0.7})])
    return cur


def test_json_value_query_exists(mem):
    mem.execute("""SELECT id, JSON_VALUE(meta, '$.kind'), JSON_VALUE(meta, '$.score' RETURNING NUMBER),
                          JSON_QUERY(meta, '$.tags'), JSON_VALUE(meta, '$."$agent_memory".revision' RETURNING NUMBER)
                   FROM mem ORDER BY id""")
    assert mem.fetchall() == [(1, "fact", 0.9, '["a","b"]', 3), (2, "episode", 0.4, '["b"]', None),
                              (3, "fact", 0.7, None, None)]
    mem.execute("SELECT id FROM mem WHERE JSON_EXISTS(meta, '$.tags?(@ == $t)' PASSING :t AS \"t\") ORDER BY id", t="b")
    assert mem.fetchall() == [(1,), (2,)]
    mem.execute("SELECT id FROM mem WHERE JSON_EXISTS(meta, '$?(@.score > 0.5 && @.kind == \"fact\")') ORDER BY id")
    assert mem.fetchall() == [(1,), (3,)]


def test_json_generation_and_column_fetch(mem):
    mem.execute("SELECT JSON_OBJECT('id' VALUE id, 'kind' VALUE JSON_VALUE(meta, '$.kind')) FROM mem WHERE id = 2")
    assert json.loads(mem.fetchone()[0]) == {"id": 2, "kind": "episode"}
    mem.execute("SELECT JSON_ARRAYAGG(id ORDER BY id DESC) FROM mem")
    assert json.loads(mem.fetchone()[0]) == [3, 2, 1]
    mem.execute("SELECT meta FROM mem WHERE id = 3")
    value = mem.fetchone()[0]
    assert value == {"kind": "fact", "score": 0.7} and mem.description[0].type_code is oracledb.DB_TYPE_JSON


def test_json_table_from_bind(cur):
    cur.execute("""SELECT ord, text FROM JSON_TABLE(:j, '$[*]' COLUMNS (ord FOR ORDINALITY, text CLOB PATH '$'))
                   ORDER BY ord""", j=json.dumps(["alpha", "beta"]))
    assert [(o, lob.read()) for o, lob in cur.fetchall()] == [(1, "alpha"), (2, "beta")]  # CLOB -> LOB
    cur.setinputsizes(j=oracledb.DB_TYPE_JSON)
    cur.execute("""SELECT x, name FROM JSON_TABLE(:j, '$.items[*]' COLUMNS (x NUMBER PATH '$.x', name VARCHAR2(20)))
                   ORDER BY x DESC""", j={"items": [{"x": 1, "name": "a"}, {"x": 2, "name": "b"}]})
    assert cur.fetchall() == [(2, "b"), (1, "a")]


def test_json_errors(cur):
    cur.execute("CREATE TABLE j (doc JSON)")
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("INSERT INTO j VALUES ('{\"a\": }')")
    assert ora_code(exc) == 40441
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("SELECT JSON_VALUE('{\"a\":1}', '$.a[') FROM dual")
    assert ora_code(exc) == 40597
