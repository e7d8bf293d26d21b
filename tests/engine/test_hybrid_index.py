"""Vectorizer preferences, CREATE HYBRID VECTOR INDEX / DROP INDEX, the dictionary, and keeping the
vector part in step with the text part (commit, rollback, SYNC (MANUAL), update, delete, DROP TABLE)."""
import json

import oracledb
import pytest

from tests.conftest import ora_code
from workshop import models

MODEL = "ALL_MINILM_L6_V2"


@pytest.fixture(scope="module")
def model_bytes():
    return models.ensure_embedding_model().read_bytes()


@pytest.fixture
def db(conn, model_bytes):
    cur = conn.cursor()
    cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;",
                name=MODEL, blob=model_bytes, meta=json.dumps(models.embedding_metadata()))
    cur.execute("CREATE TABLE kb (id NUMBER PRIMARY KEY, body VARCHAR2(4000), tag VARCHAR2(20), doc JSON)")
    cur.executemany("INSERT INTO kb (id, body, tag) VALUES (:1, :2, :3)",
                    [(1, "alpha particles and beta decay", "a"), (2, "vector search over embeddings", "b")])
    conn.commit()
    return cur


def create_pref(cur, name, params):
    cur.execute("BEGIN DBMS_VECTOR_CHAIN.CREATE_PREFERENCE(:n, DBMS_VECTOR_CHAIN.VECTORIZER, JSON(:p)); END;",
                n=name, p=json.dumps(params))


def internal(cur, sql):
    """The engine's own bookkeeping tables are not visible to Oracle SQL (as Oracle's are not)."""
    return cur.connection._engine.db.execute(sql).fetchall()


def search(cur, spec):
    cur.setinputsizes(s=oracledb.DB_TYPE_JSON)
    cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(JSON(:s))", s=spec)
    value = cur.fetchone()[0]
    return json.loads(value.read() if hasattr(value, "read") else value)


def keyword_ids(cur, idx, contains):
    rows = search(cur, {"hybrid_index_name": idx, "text": {"contains": contains}, "return": {"values": ["rowid"]}})
    out = []
    for r in rows:
        cur.execute("SELECT id FROM kb WHERE rowid = :1", [r["rowid"]])
        out.append(cur.fetchone()[0])
    return sorted(out)


def vector_ids(cur, idx, text, k=5):
    rows = search(cur, {"hybrid_index_name": idx, "vector": {"search_text": text},
                        "return": {"values": ["rowid", "chunk_text"], "topN": k}})
    return [r["chunk_text"] for r in rows]


# ----------------------------------------------------------------------------- preferences
@pytest.mark.parametrize("params, code, words", [
    ({"model": MODEL, "colour": "red"}, 20000, "unknown parameter colour"),
    ({"model": MODEL, "by": "sentences"}, 20000, "by must be"),
    ({"model": MODEL, "by": "words", "max": 5}, 20000, "max 5 is outside 10..1000"),
    ({"model": MODEL, "by": "characters", "max": 5000}, 20000, "outside 50..4000"),
    ({"model": MODEL, "max": 100, "overlap": 50}, 20000, "overlap 50"),
    ({"model": MODEL, "split": "paragraph"}, 20000, "split must be"),
    ({"model": MODEL, "distance": "HAMMING"}, 20000, "HAMMING is not supported"),
    ({"model": MODEL, "distance": "CHEBYSHEV"}, 51806, "CHEBYSHEV"),
    ({"model": MODEL, "accuracy": 0}, 20000, "accuracy 0"),
    ({"model": MODEL, "vector_idxtype": "FLAT"}, 20000, "vector_idxtype"),
    ({"model": MODEL, "max": "ten"}, 20000, "max must be a number"),
    ({"model": MODEL, "by": "vocabulary", "vocabulary": "v"}, 3001, "vocabulary"),
    ({"model": MODEL, "split": "custom", "custom_list": ["."]}, 3001, "custom"),
    ({"model": MODEL, "normalize": "all"}, 3001, "normalize all"),
    ({"embedder_spec": {"provider": "ocigenai"}}, 3001, "embedder_spec"),
])
def test_preference_validation(db, params, code, words):
    with pytest.raises(oracledb.DatabaseError) as exc:
        create_pref(db, "P1", params)
    assert ora_code(exc) == code and words in str(exc.value)
    assert internal(db, 'SELECT COUNT(*) FROM "ORA$VECTORIZER_PREFERENCES"') == [(0,)]


def test_preference_lifecycle_and_named_arguments(db):
    db.execute("BEGIN DBMS_VECTOR_CHAIN.CREATE_PREFERENCE(pref_name => 'p_named', pref_type => "
               "DBMS_VECTOR_CHAIN.VECTORIZER, params => JSON('{\"model\": \"ALL_MINILM_L6_V2\", \"by\": \"words\", "
               "\"max\": \"100\", \"overlap\": \"10\", \"split\": \"recursively\", \"language\": \"american\"}')); END;")
    with pytest.raises(oracledb.DatabaseError) as exc:
        create_pref(db, "P_NAMED", {"model": MODEL})
    assert "DRG-10701" in str(exc.value)
    with pytest.raises(oracledb.DatabaseError) as exc:
        db.execute("BEGIN DBMS_VECTOR_CHAIN.CREATE_PREFERENCE('p2', 'LEXER', NULL); END;")
    assert "DRG-10706" in str(exc.value)
    db.execute("BEGIN DBMS_VECTOR_CHAIN.DROP_PREFERENCE('P_NAMED'); END;")
    with pytest.raises(oracledb.DatabaseError) as exc:
        db.execute("BEGIN DBMS_VECTOR_CHAIN.DROP_PREFERENCE(:p); END;", p="p_named")
    assert ora_code(exc) == 20000 and "DRG-10700" in str(exc.value)
    with pytest.raises(oracledb.DatabaseError) as exc:
        db.execute("BEGIN dbms_vector_chain.create_preference(:1, dbms_vector_chain.vectorizer); END;", ["a", "b"])
    # python-oracledb refuses this client-side (DPY-4009); the engine without its driver rules, ORA-01008
    assert "DPY-4009" in str(exc.value) or ora_code(exc) == 1008


# ----------------------------------------------------------------------------- DDL
def test_model_form_and_dictionary(db):
    db.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2 "
               "VECTOR_IDXTYPE HNSW') FILTER BY tag ORDER BY id DESC PARALLEL 2")
    db.execute("SELECT index_name, index_type, ityp_owner, ityp_name, parameters FROM user_indexes "
               "WHERE index_name = 'KB_HVI'")
    assert db.fetchall() == [("KB_HVI", "DOMAIN", "CTXSYS", "CONTEXT_V2",
                              "MODEL all_minilm_l6_v2 VECTOR_IDXTYPE HNSW")]
    db.execute("SELECT object_type FROM user_objects WHERE object_name = 'KB_HVI'")
    assert db.fetchone() == ("INDEX",)
    assert keyword_ids(db, "KB_HVI", "beta") == [1]
    assert vector_ids(db, "kb_hvi", "nearest neighbour embeddings", 1) == ["vector search over embeddings"]
    with pytest.raises(oracledb.DatabaseError) as exc:
        db.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(tag) PARAMETERS ('MODEL all_minilm_l6_v2')")
    assert ora_code(exc) == 955
    with pytest.raises(oracledb.DatabaseError) as exc:
        db.execute("CREATE HYBRID VECTOR INDEX kb_hvi2 ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2')")
    assert ora_code(exc) == 29879
    db.execute("DROP INDEX kb_hvi")
    db.execute("SELECT COUNT(*) FROM user_indexes WHERE index_name = 'KB_HVI'")
    assert db.fetchone() == (0,)
    with pytest.raises(oracledb.DatabaseError) as exc:
        search(db, {"hybrid_index_name": "kb_hvi", "search_text": "beta"})
    assert "DRG-10502" in str(exc.value)


@pytest.mark.parametrize("ddl, code, words", [
    ("CREATE HYBRID VECTOR INDEX h ON kb(body)", 29855, "needs PARAMETERS"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('SYNC (ON COMMIT)')", 29855, "MODEL or VECTORIZER"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('VECTORIZER kb_pref MODEL all_minilm_l6_v2')", 29855,
     "cannot be combined"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('VECTORIZER no_such_pref')", 20000, "DRG-10700"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('MODEL no_such_model')", 40284, "NO_SUCH_MODEL"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2 VECTOR_IDXTYPE FLAT')", 20000,
     "vector_idxtype"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(doc) PARAMETERS ('MODEL all_minilm_l6_v2')", 3001, "JSON column"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(id) PARAMETERS ('MODEL all_minilm_l6_v2')", 29855, "DRG-10509"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2') FILTER BY nope", 904, "NOPE"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2') LOCAL", 3001, "LOCAL"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2 DATASTORE my_ds')", 3001,
     "DATASTORE"),
    ("CREATE HYBRID VECTOR INDEX h ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2 BOGUS 1')", 29855, "BOGUS"),
    ("CREATE HYBRID VECTOR INDEX h ON nope(body) PARAMETERS ('MODEL all_minilm_l6_v2')", 942, "NOPE"),
])
def test_create_errors_leave_nothing_behind(db, ddl, code, words):
    create_pref(db, "KB_PREF", {"model": MODEL})
    with pytest.raises(oracledb.DatabaseError) as exc:
        db.execute(ddl)
    assert ora_code(exc) == code and words in str(exc.value)
    db.execute("SELECT COUNT(*) FROM user_indexes WHERE index_name = 'H'")
    assert db.fetchone() == (0,)
    assert internal(db, 'SELECT COUNT(*) FROM "ORA$HYBRID_INDEXES"') == [(0,)]


def test_the_preference_is_copied_at_create(db):
    create_pref(db, "KB_PREF", {"model": MODEL, "by": "words", "max": 10})
    db.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(body) PARAMETERS ('VECTORIZER kb_pref')")
    db.execute("BEGIN DBMS_VECTOR_CHAIN.DROP_PREFERENCE('KB_PREF'); END;")
    db.execute("INSERT INTO kb (id, body) VALUES (3, :b)",
               b="one two three four five six seven eight nine ten eleven twelve")
    db.connection.commit()
    chunks = search(db, {"hybrid_index_name": "kb_hvi", "vector": {"search_text": "eleven twelve",
                                                                    "search_mode": "CHUNK"},
                         "return": {"values": ["chunk_text", "chunk_id"], "topN": 1}})
    assert chunks == [{"chunk_text": "eleven twelve", "chunk_id": "2"}]


# ----------------------------------------------------------------------------- maintenance
def test_default_maintenance_indexes_at_commit_only(db):
    db.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2')")
    db.execute("INSERT INTO kb (id, body) VALUES (3, 'gamma rays from supernovae')")
    assert keyword_ids(db, "kb_hvi", "gamma") == []                      # uncommitted: invisible
    assert "gamma rays from supernovae" not in vector_ids(db, "kb_hvi", "gamma rays")
    db.connection.rollback()
    db.execute("INSERT INTO kb (id, body) VALUES (4, 'gamma rays from supernovae')")
    db.connection.commit()
    assert keyword_ids(db, "kb_hvi", "gamma") == [4]
    assert vector_ids(db, "kb_hvi", "gamma rays", 1) == ["gamma rays from supernovae"]
    db.execute("UPDATE kb SET body = 'delta waves in sleep' WHERE id = 4")
    db.connection.commit()
    assert keyword_ids(db, "kb_hvi", "gamma") == []
    assert vector_ids(db, "kb_hvi", "sleep", 1) == ["delta waves in sleep"]
    db.execute("DELETE FROM kb WHERE id = 4")
    db.connection.commit()
    assert "delta waves in sleep" not in vector_ids(db, "kb_hvi", "sleep")
    assert internal(db, 'SELECT COUNT(*) FROM "DR$KB_HVI$VR"') == [(2,)]


def test_manual_sync_waits_for_sync_index(db):
    db.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2 SYNC (MANUAL)')")
    db.execute("INSERT INTO kb (id, body) VALUES (3, 'gamma rays from supernovae')")
    db.connection.commit()
    assert keyword_ids(db, "kb_hvi", "gamma") == []
    assert "gamma rays from supernovae" not in vector_ids(db, "kb_hvi", "gamma rays")
    db.execute("BEGIN CTX_DDL.SYNC_INDEX('kb_hvi'); END;")
    assert keyword_ids(db, "kb_hvi", "gamma") == [3]
    assert vector_ids(db, "kb_hvi", "gamma rays", 1) == ["gamma rays from supernovae"]


def test_drop_table_drops_the_index(db):
    db.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2')")
    db.execute("DROP TABLE kb PURGE")
    assert internal(db, 'SELECT COUNT(*) FROM "ORA$HYBRID_INDEXES"') == [(0,)]
    db.execute("SELECT COUNT(*) FROM user_indexes WHERE index_name = 'KB_HVI'")
    assert db.fetchone() == (0,)
    db.execute("CREATE TABLE kb (id NUMBER, body CLOB)")      # the shadow tables went with the index
    db.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2')")
    assert search(db, {"hybrid_index_name": "kb_hvi", "search_text": "beta"}) == []


def test_a_dropped_model_fails_the_commit_loudly(db):
    db.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(body) PARAMETERS ('MODEL all_minilm_l6_v2')")
    db.execute("BEGIN DBMS_VECTOR.DROP_ONNX_MODEL(model_name => 'ALL_MINILM_L6_V2', force => TRUE); END;")
    db.execute("INSERT INTO kb (id, body) VALUES (5, 'epsilon')")
    with pytest.raises(oracledb.DatabaseError) as exc:
        db.connection.commit()
    assert ora_code(exc) == 40284 and "KB_HVI" in str(exc.value)
    db.connection.rollback()
    db.execute("SELECT COUNT(*) FROM kb")
    assert db.fetchone() == (2,)


# ----------------------------------------------------------------------------- names that differ only in case
def test_hybrid_indexes_on_tables_and_with_names_that_differ_only_in_case(db):
    """"kb" beside KB, and an index "kb_hvi" beside KB_HVI: four objects on Oracle, each searched on its own
    (the plug-in keeps them under storage names, tests/engine/test_case_twins.py)."""
    db.execute('CREATE TABLE "kb" (id NUMBER PRIMARY KEY, body VARCHAR2(4000))')
    db.execute("""INSERT INTO "kb" VALUES (7, 'gamma rays from the lower case table')""")
    db.connection.commit()
    db.execute("CREATE HYBRID VECTOR INDEX KB_HVI ON kb (body) PARAMETERS ('MODEL all_minilm_l6_v2')")
    db.execute("""CREATE HYBRID VECTOR INDEX "kb_hvi" ON "kb" (body) PARAMETERS ('MODEL all_minilm_l6_v2')""")

    def hits(idx, words):
        rows = search(db, {"hybrid_index_name": idx, "text": {"contains": words},
                           "return": {"values": ["rowid", "chunk_text"]}})
        return sorted(r["chunk_text"] for r in rows)
    assert hits("KB_HVI", "gamma OR beta") == ["alpha particles and beta decay"]
    assert hits('"kb_hvi"', "gamma OR beta") == ["gamma rays from the lower case table"]
    db.execute("""INSERT INTO "kb" VALUES (8, 'beta testing in lower case')""")
    db.connection.commit()
    assert hits('"kb_hvi"', "beta") == ["beta testing in lower case"]
    assert hits("KB_HVI", "beta") == ["alpha particles and beta decay"]
    db.execute('SELECT id FROM "kb" WHERE CONTAINS(body, \'beta\') > 0')
    assert db.fetchall() == [(8,)]
    db.execute("DROP INDEX KB_HVI")
    assert hits('"kb_hvi"', "gamma") == ["gamma rays from the lower case table"]
    db.execute("SELECT index_name, table_name FROM user_indexes WHERE index_type = 'DOMAIN'")
    assert db.fetchall() == [("kb_hvi", "kb")]
