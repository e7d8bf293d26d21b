"""INSERT / UPDATE / DELETE / MERGE with Oracle's column rules, RETURNING INTO and batch errors."""
import array

import oracledb
import pytest

from tests.conftest import ora_code


@pytest.fixture
def items(cur):
    cur.execute("CREATE TABLE items (id NUMBER PRIMARY KEY, name VARCHAR2(10) NOT NULL, qty NUMBER(4), "
                "price NUMBER(6,2), tags JSON, emb VECTOR(3, FLOAT32), raw_id RAW(8))")
    return cur


def test_column_rules_raise_oracle_errors(items):
    with pytest.raises(oracledb.DatabaseError) as exc:
        items.execute("INSERT INTO items (id, name) VALUES (1, 'abcdefghijk')")
    assert ora_code(exc) == 12899
    with pytest.raises(oracledb.DatabaseError) as exc:
        items.execute("INSERT INTO items (id, name, qty) VALUES (1, 'a', 12345)")
    assert ora_code(exc) == 1438
    with pytest.raises(oracledb.DatabaseError) as exc:
        items.execute("INSERT INTO items (id, name, qty) VALUES (1, 'a', 'lots')")
    assert ora_code(exc) == 1722
    with pytest.raises(oracledb.DatabaseError) as exc:
        items.execute("INSERT INTO items (id, name, emb) VALUES (1, 'a', :v)", v=array.array("f", [1, 2]))
    assert ora_code(exc) == 51803
    with pytest.raises(oracledb.DatabaseError) as exc:
        items.execute("INSERT INTO items (id, name, tags) VALUES (1, 'a', '{not json')")
    assert ora_code(exc) == 40441
    with pytest.raises(oracledb.IntegrityError) as exc:
        items.execute("INSERT INTO items (id, name) VALUES (1, '')")
    assert ora_code(exc) == 1400
    with pytest.raises(oracledb.DatabaseError) as exc:
        items.execute("INSERT INTO items (id, name) VALUES (1)")
    assert ora_code(exc) == 947


def test_conversions_on_store(items):
    items.setinputsizes(None, None, None, None, oracledb.DB_TYPE_JSON, None, None)
    items.execute("INSERT INTO items (id, name, qty, price, tags, emb, raw_id) VALUES (:1, :2, :3, :4, :5, :6, :7)",
                  [1, "a", "12", 3.14159, {"t": [1, 2]}, "[1, 2, 3]", "0A0B"])
    items.execute("SELECT qty, price, tags, emb, raw_id FROM items")
    assert items.fetchone() == (12, 3.14, {"t": [1, 2]}, array.array("f", [1, 2, 3]), b"\x0a\x0b")
    items.execute("SELECT name FROM items WHERE raw_id = :u", u="0a0b")
    assert items.fetchone() == ("a",)


def test_insert_select_update_delete(items, conn):
    items.executemany("INSERT INTO items (id, name, qty) VALUES (:1, :2, :3)", [(i, f"n{i}", i) for i in range(1, 6)])
    items.execute("CREATE TABLE archive (id NUMBER, name VARCHAR2(10))")
    items.execute("INSERT INTO archive SELECT id, name FROM items WHERE qty > 3")
    assert items.rowcount == 2
    items.execute("UPDATE items SET qty = qty * 10 WHERE id <= 2")
    assert items.rowcount == 2
    items.execute("DELETE FROM items i WHERE i.qty < 10")
    assert items.rowcount == 3
    items.execute("SELECT id, qty FROM items ORDER BY id")
    assert items.fetchall() == [(1, 10), (2, 20)]
    conn.rollback()  # CREATE TABLE committed the inserts (implicit commit); the rest is undone
    items.execute("SELECT id, qty FROM items ORDER BY id")
    assert items.fetchall() == [(i, i) for i in range(1, 6)]


def test_returning_into(items):
    id_var, name_var = items.var(int), items.var(str)
    items.execute("INSERT INTO items (id, name) VALUES (7, 'seven') RETURNING id, name INTO :i, :n", i=id_var, n=name_var)
    assert id_var.getvalue() == [7] and name_var.getvalue() == ["seven"]
    items.execute("INSERT INTO items (id, name) VALUES (8, 'eight')")
    out = items.var(int)
    items.execute("UPDATE items SET qty = 1 RETURNING id INTO :ids", ids=out)
    assert sorted(out.getvalue()) == [7, 8]


def test_identity_returning_and_always(cur):
    cur.execute("CREATE TABLE msgs (id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, body VARCHAR2(20))")
    out = cur.var(oracledb.NUMBER)
    cur.execute("INSERT INTO msgs (body) VALUES (:b) RETURNING id INTO :id", b="hi", id=out)
    assert out.getvalue() == [1]
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("INSERT INTO msgs (id, body) VALUES (5, 'x')")
    assert ora_code(exc) == 32795


def test_merge_select_and_values_sources(items):
    items.execute("INSERT INTO items (id, name, qty) VALUES (1, 'one', 1)")
    items.execute("""MERGE INTO items t USING (SELECT 1 AS id, 'uno' AS name FROM dual
                                               UNION ALL SELECT 2, 'dos' FROM dual) s
                     ON (t.id = s.id)
                     WHEN MATCHED THEN UPDATE SET t.name = s.name
                     WHEN NOT MATCHED THEN INSERT (id, name, qty) VALUES (s.id, s.name, 0)""")
    assert items.rowcount == 2
    items.execute("""MERGE INTO items t USING (VALUES (:1, :2)) s(id, name) ON (t.id = s.id)
                     WHEN MATCHED THEN UPDATE SET t.name = s.name
                     WHEN NOT MATCHED THEN INSERT (id, name) VALUES (s.id, s.name)""", [3, "tres"])
    items.execute("SELECT id, name, qty FROM items ORDER BY id")
    assert items.fetchall() == [(1, "uno", 1), (2, "dos", 0), (3, "tres", None)]
    with pytest.raises(oracledb.DatabaseError) as exc:
        items.execute("""MERGE INTO items t USING (SELECT 1 AS id FROM dual) s ON (t.id = s.id)
                         WHEN MATCHED THEN UPDATE SET t.id = 5""")
    assert ora_code(exc) == 38104


def test_executemany_batcherrors_keeps_good_rows(items):
    rows = [(1, "a"), (2, "b"), (1, "dup"), (3, "abcdefghijklmn"), (4, "d")]
    items.executemany("INSERT INTO items (id, name) VALUES (:1, :2)", rows, batcherrors=True)
    errors = items.getbatcherrors()
    assert [(e.offset, e.code) for e in errors] == [(2, 1), (3, 12899)]
    items.execute("SELECT id FROM items ORDER BY id")
    assert items.fetchall() == [(1,), (2,), (4,)]


def test_executemany_without_batcherrors_stops(items):
    with pytest.raises(oracledb.IntegrityError):
        items.executemany("INSERT INTO items (id, name) VALUES (:1, :2)", [(1, "a"), (1, "b")])


def test_statement_error_is_not_swallowed_by_batcherrors(items):
    with pytest.raises(oracledb.DatabaseError) as exc:
        items.executemany("INSERT INTO items (id, nope) VALUES (:1, :2)", [(1, "a")], batcherrors=True)
    assert ora_code(exc) == 904


def test_plsql_blocks(cur):
    cur.execute("CREATE TABLE keep (x NUMBER)")
    drop = "BEGIN EXECUTE IMMEDIATE 'DROP TABLE missing PURGE'; EXCEPTION WHEN OTHERS THEN " \
           "IF SQLCODE != -942 THEN RAISE; END IF; END;"
    cur.execute(drop)
    cur.execute(drop)  # re-runnable
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("BEGIN EXECUTE IMMEDIATE 'CREATE TABLE keep (x NUMBER)'; EXCEPTION WHEN OTHERS THEN "
                    "IF SQLCODE != -942 THEN RAISE; END IF; END;")
    assert ora_code(exc) == 955
    cur.execute("BEGIN EXECUTE IMMEDIATE 'CREATE TABLE keep (x NUMBER)'; EXCEPTION WHEN OTHERS THEN "
                "IF SQLCODE NOT IN (-942, -955) THEN RAISE; END IF; END;")
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("BEGIN no_such_pkg.run(1); END;")
    assert ora_code(exc) == 6550
    with pytest.raises(oracledb.DatabaseError) as exc:
        cur.execute("DECLARE x NUMBER; BEGIN NULL; END;")
    assert ora_code(exc) == 3001


def test_out_bind_follows_the_var_type(cur):
    cur.execute("CREATE TABLE ids (id NUMBER GENERATED ALWAYS AS IDENTITY PRIMARY KEY, v VARCHAR2(5))")
    as_text, as_int = cur.var(str), cur.var(int)
    cur.execute("INSERT INTO ids (v) VALUES ('a') RETURNING id, id INTO :t, :i", t=as_text, i=as_int)
    assert as_text.getvalue() == ["1"] and as_int.getvalue() == [1]
