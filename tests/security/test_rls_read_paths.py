"""Claim: row-level security applies on every read path, as Oracle's VPD applies to every SQL statement.

Attack table: statement shapes, names, binds and features that read KB (protected: tenant = SYS_CONTEXT) while
the session is bound to acme. Each returns only acme rows, or is refused -- never a globex or initech row.
Hybrid vector search (SEARCH and SEARCHPIPELINE), which the engine runs itself, is attacked with its own table.
"""
from __future__ import annotations

import json

import oracledb
import pytest

from tests.conftest import ora_code
from tests.security.protected import ROWS, TENANTS, rows, session

ACME_IDS = sorted(i for i, t, _, _ in ROWS if t == "acme")

#: Every case's rows are tenant ids (one column) or (tenant, tenant) pairs.
READS = {
    "plain": "SELECT tenant_id FROM kb",
    "star": "SELECT * FROM kb",
    "qualified-star": "SELECT k.* FROM kb k",
    "star-and-column": "SELECT k.*, k.tenant_id FROM kb k",
    "distinct": "SELECT DISTINCT tenant_id FROM kb",
    "cte": "WITH c AS (SELECT tenant_id FROM kb) SELECT tenant_id FROM c",
    "cte-named-like-table": "WITH kb AS (SELECT * FROM kb) SELECT tenant_id FROM kb",
    "nested-cte": "WITH a AS (SELECT * FROM kb), b AS (SELECT * FROM a) SELECT tenant_id FROM b",
    "derived": "SELECT tenant_id FROM (SELECT * FROM kb WHERE id > 0)",
    "derived-star-star": "SELECT * FROM (SELECT * FROM (SELECT * FROM kb))",
    "union": "SELECT tenant_id FROM kb UNION SELECT tenant_id FROM kb",
    "union-all": "SELECT tenant_id FROM kb WHERE tenant_id = 'globex' UNION ALL SELECT tenant_id FROM kb",
    "intersect": "SELECT tenant_id FROM kb INTERSECT SELECT tenant_id FROM kb",
    "minus": "SELECT tenant_id FROM kb MINUS SELECT 'nobody' FROM dual",
    "scalar-subquery": "SELECT (SELECT MAX(tenant_id) FROM kb WHERE tenant_id <> 'acme') FROM dual",
    "correlated": "SELECT (SELECT k2.tenant_id FROM kb k2 WHERE k2.id = k.id) FROM kb k",
    "exists-foreign": "SELECT tenant_id FROM kb k WHERE EXISTS (SELECT 1 FROM kb x WHERE x.tenant_id = 'globex')",
    "in-foreign": "SELECT 'leak' FROM dual WHERE 'globex' IN (SELECT tenant_id FROM kb)",
    "not-in": "SELECT tenant_id FROM kb WHERE id NOT IN (SELECT id FROM kb WHERE tenant_id = 'acme')",
    "join": "SELECT b.tenant_id FROM kb a JOIN kb b ON a.id <> b.id",
    "left-join": "SELECT k.tenant_id FROM dual d LEFT JOIN kb k ON 1 = 1",
    "full-join": "SELECT k.tenant_id FROM kb k FULL OUTER JOIN sink s ON s.tenant_id = k.tenant_id",
    "cross-join": "SELECT k.tenant_id FROM dual CROSS JOIN kb k",
    "comma-join": "SELECT k.tenant_id FROM dual, kb k",
    "using-join": "SELECT tenant_id FROM kb JOIN kb_link ON kb.id = kb_link.src",
    "group-by": "SELECT tenant_id FROM kb GROUP BY tenant_id",
    "having": "SELECT tenant_id FROM kb GROUP BY tenant_id HAVING COUNT(*) > 0",
    "window": "SELECT tenant_id FROM (SELECT tenant_id, COUNT(*) OVER () n FROM kb)",
    "fetch": "SELECT tenant_id FROM kb ORDER BY id FETCH FIRST 50 ROWS ONLY",
    "offset": "SELECT tenant_id FROM kb ORDER BY id OFFSET 1 ROWS",
    "rownum": "SELECT tenant_id FROM kb WHERE ROWNUM <= 10",
    "case-variant": "SELECT tenant_id FROM Kb",
    "quoted-upper": 'SELECT "TENANT_ID" FROM "KB"',
    "schema-qualified": "SELECT tenant_id FROM workshop.kb",
    "schema-quoted": 'SELECT tenant_id FROM "WORKSHOP"."KB"',
    "comments-between": "SELECT/**/tenant_id/**/FROM/**/kb/**/k",
    "line-comment-between": "SELECT tenant_id FROM -- x\n kb",
    "hint": "SELECT /*+ FULL(kb) NO_INDEX(kb) */ tenant_id FROM kb",
    "text-contains": "SELECT tenant_id FROM kb WHERE CONTAINS(body, 'shared', 1) > 0",
    "text-score": "SELECT tenant_id FROM kb WHERE CONTAINS(body, 'globex OR initech OR acme', 1) > 0 "
                  "ORDER BY SCORE(1) DESC",
    "vector-approx": "SELECT tenant_id FROM kb ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1,0,0]'), COSINE) "
                     "FETCH APPROX FIRST 10 ROWS ONLY",
    "vector-exact": "SELECT tenant_id FROM kb ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1,0,0.5]'), COSINE) "
                    "FETCH EXACT FIRST 10 ROWS ONLY",
    "graph": "SELECT a_t, b_t FROM GRAPH_TABLE(kb_graph MATCH (a IS doc)-[e IS link]->(b IS doc) "
             "COLUMNS (a.tenant_id AS a_t, b.tenant_id AS b_t))",
    "graph-foreign-filter": "SELECT b_t FROM GRAPH_TABLE(kb_graph MATCH (a IS doc)-[e IS link]->(b IS doc) "
                            "WHERE b.tenant_id = 'globex' COLUMNS (b.tenant_id AS b_t))",
    "graph-in-cte": "WITH g AS (SELECT * FROM GRAPH_TABLE(kb_graph MATCH (a IS doc) COLUMNS (a.tenant_id AS t))) "
                    "SELECT t FROM g",
    "json-object": "SELECT JSON_VALUE(JSON_OBJECT('t' VALUE tenant_id), '$.t') FROM kb",
    "json-arrayagg": "SELECT jt.t FROM (SELECT JSON_ARRAYAGG(tenant_id) AS a FROM kb) x, "
                     "JSON_TABLE(x.a, '$[*]' COLUMNS (t VARCHAR2(20) PATH '$')) jt",
    "case-expression": "SELECT CASE WHEN tenant_id = 'globex' THEN 'globex' ELSE tenant_id END FROM kb",
    "rowid-literal": "SELECT tenant_id FROM kb WHERE ROWID = CHARTOROWID('3')",
    "rowid-in": "SELECT tenant_id FROM kb WHERE ROWID IN (SELECT ROWID FROM kb)",
    "using-star": "SELECT * FROM kb k1 JOIN kb k2 USING (id)",
    "listagg": "SELECT LISTAGG(tenant_id, ',') WITHIN GROUP (ORDER BY id) FROM kb",
    "json-arrayagg-text": "SELECT JSON_ARRAYAGG(tenant_id) FROM kb",
    "cross-apply": "SELECT x.t FROM dual CROSS APPLY (SELECT tenant_id t FROM kb) x",
    "lateral": "SELECT x.t FROM dual, LATERAL (SELECT tenant_id t FROM kb) x",
    "flashback": "SELECT tenant_id FROM kb AS OF TIMESTAMP SYSTIMESTAMP",
    "sample": "SELECT tenant_id FROM kb SAMPLE (50)",
    "pivot": "SELECT * FROM (SELECT tenant_id, id FROM kb) PIVOT (COUNT(*) FOR id IN (1, 3))",
    "natural-join-star": "SELECT * FROM kb NATURAL JOIN kb_link",
    "text-index-tokens": 'SELECT * FROM "DR$KB_CTX$I"',
    "bind-foreign": ("SELECT tenant_id FROM kb WHERE tenant_id = :t", {"t": "globex"}),
    "bind-tautology": ("SELECT tenant_id FROM kb WHERE :t = :t OR tenant_id = :t", {"t": "globex"}),
    "bind-or-1": ("SELECT tenant_id FROM kb WHERE tenant_id = :t OR 1 = 1", {"t": "x') OR ('1'='1"}),
}


def _tenants(result: list[tuple], columns: list[str]) -> set:
    """Every tenant name that occurs anywhere in the result (aggregates and JSON included)."""
    text = " ".join(str(v.read() if hasattr(v, "read") else v) for row in result for v in row)
    return {t for t in TENANTS if t in text}


@pytest.mark.parametrize("case", sorted(READS))
def test_no_read_shape_crosses_the_tenant_boundary(acme, case):
    sql, binds = READS[case] if isinstance(READS[case], tuple) else (READS[case], {})
    try:
        acme.execute(sql, binds)
    except oracledb.DatabaseError as exc:          # refused is fine, as long as it is an Oracle error
        # unimplemented (ORA-03001), a self-referencing WITH (ORA-32039), an index's own tables (ORA-00942)
        assert ora_code_of(exc) in (3001, 32039, 942), f"{case}: {exc}"
        return
    columns = [d[0] for d in acme.description]
    found = _tenants(acme.fetchall(), columns)
    assert found <= {"acme"}, f"{case} read {found - {'acme'}}"


#: The engine's own SQL functions, written in a statement: not Oracle functions (ORA-00904), and no way around the
#: policy (ORA_TEXT_SCORE(slot, rowid) read any row's score; ORA_SYS_CONTEXT any context value).
INTERNAL_FUNCTIONS = {
    "text-score": "SELECT ORA_TEXT_SCORE(1, 3) FROM kb WHERE CONTAINS(body, 'globex', 1) > 0",
    "sys-context": "SELECT ORA_SYS_CONTEXT('sec_ctx', 'tenant_id') FROM dual",
    "chartorowid": "SELECT tenant_id FROM kb WHERE ORA_CHARTOROWID('3') IS NOT NULL",
    "store": "SELECT ORA_STORE('x', 'VARCHAR2(1)') FROM dual",
    "hybrid": "SELECT ORA_HYBRID_VECTOR_SEARCH('{}') FROM dual",
    "model-call": "SELECT ORA_MODEL_CALL(0, 'x') FROM dual",
    "lower-case": "SELECT ora_text_score(1, 3) FROM dual",
    "quoted": 'SELECT "ORA_TEXT_SCORE"(1, 3) FROM dual',
}


@pytest.mark.parametrize("case", sorted(INTERNAL_FUNCTIONS))
def test_the_engines_own_functions_are_not_callable(acme, case):
    with pytest.raises(oracledb.DatabaseError) as exc:
        acme.execute(INTERNAL_FUNCTIONS[case])
    assert ora_code(exc) == 904


def ora_code_of(exc) -> int:
    return exc.args[0].code


def test_star_is_exactly_the_tables_columns(acme):
    acme.execute("SELECT * FROM kb")
    assert [d[0] for d in acme.description] == ["ID", "TENANT_ID", "BODY", "EMB"]
    assert sorted(r[0] for r in acme.fetchall()) == ACME_IDS
    acme.execute("SELECT k.*, 1 AS one FROM kb k JOIN kb_link l ON l.src = k.id WHERE ROWNUM = 1")
    assert [d[0] for d in acme.description] == ["ID", "TENANT_ID", "BODY", "EMB", "ONE"]
    acme.execute("SELECT * FROM kb_link l JOIN kb k ON l.src = k.id WHERE ROWNUM = 1")
    assert [d[0] for d in acme.description] == ["SRC", "DST", "ID", "TENANT_ID", "BODY", "EMB"]
    acme.execute("SELECT * FROM kb k1 JOIN kb k2 USING (id)")      # USING columns once, first
    assert [d[0] for d in acme.description] == ["ID", "TENANT_ID", "BODY", "EMB", "TENANT_ID", "BODY", "EMB"]
    assert sorted(r[0] for r in acme.fetchall()) == ACME_IDS
    # NATURAL JOIN joins on the common columns only (never on the policy view's rowid) and lists them once
    acme.execute("SELECT * FROM (SELECT 'acme' AS tenant_id, 'x' AS tag FROM dual) NATURAL JOIN kb")
    assert [d[0] for d in acme.description] == ["TENANT_ID", "TAG", "ID", "BODY", "EMB"]
    assert sorted(r[2] for r in acme.fetchall()) == ACME_IDS
    acme.execute("SELECT * FROM kb NATURAL JOIN (SELECT 1 AS id FROM dual)")
    assert [d[0] for d in acme.description] == ["ID", "TENANT_ID", "BODY", "EMB"]


def test_counts_and_aggregates_see_only_the_session(acme):
    assert rows(acme, "SELECT COUNT(*) FROM kb") == [(len(ACME_IDS),)]
    assert rows(acme, "SELECT COUNT(DISTINCT tenant_id), MIN(id), MAX(id) FROM kb") == [(1, ACME_IDS[0], ACME_IDS[-1])]


@pytest.mark.parametrize("tenant", TENANTS)
def test_a_view_over_the_protected_table_works_and_is_filtered(secured_path, tenant):
    owner = session(secured_path)
    owner.cursor().execute(f"CREATE VIEW kb_view_{tenant} AS SELECT * FROM kb")
    try:
        conn = session(secured_path, tenant)
        cur = conn.cursor()
        cur.execute(f"SELECT * FROM kb_view_{tenant}")
        assert [d[0] for d in cur.description] == ["ID", "TENANT_ID", "BODY", "EMB"]
        assert {r[1] for r in cur.fetchall()} == {tenant}
        conn.close()
    finally:
        owner.cursor().execute(f"DROP VIEW kb_view_{tenant}")
        owner.close()


WRITES_THAT_READ = {
    "insert-select": "INSERT INTO sink (tenant_id) SELECT tenant_id FROM kb",
    "insert-select-star-cte": "INSERT INTO sink (tenant_id) WITH c AS (SELECT * FROM kb) SELECT tenant_id FROM c",
    "insert-scalar": "INSERT INTO sink (tenant_id) VALUES ((SELECT MAX(tenant_id) FROM kb))",
    "merge-using": "MERGE INTO sink s USING (SELECT tenant_id FROM kb) k ON (s.tenant_id = k.tenant_id) "
                   "WHEN NOT MATCHED THEN INSERT (tenant_id) VALUES (k.tenant_id)",
    "merge-using-table": "MERGE INTO sink s USING kb k ON (s.tenant_id = k.tenant_id) "
                         "WHEN NOT MATCHED THEN INSERT (tenant_id) VALUES (k.tenant_id)",
    "insert-all": "INSERT ALL INTO sink (tenant_id) VALUES (t) SELECT tenant_id AS t FROM kb",
    "update-from-subquery": "UPDATE sink SET tenant_id = (SELECT MAX(tenant_id) FROM kb)",
}


@pytest.mark.parametrize("case", sorted(WRITES_THAT_READ))
def test_writes_that_read_copy_only_the_sessions_rows(acme, case):
    acme.execute("INSERT INTO sink (tenant_id) VALUES ('acme')")
    try:
        acme.execute(WRITES_THAT_READ[case])
    except oracledb.DatabaseError as exc:
        assert ora_code_of(exc) == 3001, f"{case}: {exc}"
        return
    assert {r[0] for r in rows(acme, "SELECT tenant_id FROM sink")} <= {"acme"}


WRITES_TO_FOREIGN_ROWS = {
    "update": ("UPDATE kb SET body = 'x' WHERE tenant_id = 'globex'", 0),
    "update-all": ("UPDATE kb SET body = body", len(ACME_IDS)),
    "delete": ("DELETE FROM kb WHERE tenant_id IN ('globex', 'initech')", 0),
    "delete-by-id": ("DELETE FROM kb WHERE id = 3", 0),
    "merge-update": ("MERGE INTO kb k USING (SELECT 3 AS id FROM dual) s ON (k.id = s.id) "
                     "WHEN MATCHED THEN UPDATE SET k.body = 'taken'", 0),
}


@pytest.mark.parametrize("case", sorted(WRITES_TO_FOREIGN_ROWS))
def test_writes_never_reach_foreign_rows(acme, case):
    sql, expected = WRITES_TO_FOREIGN_ROWS[case]
    acme.execute(sql)
    assert acme.rowcount == expected


@pytest.mark.parametrize("sql", [
    "INSERT INTO kb (id, tenant_id) VALUES (100, 'globex')",
    "UPDATE kb SET tenant_id = 'globex' WHERE id = 1",
])
def test_update_check_refuses_moving_rows_out(acme, sql):
    with pytest.raises(oracledb.DatabaseError) as exc:
        acme.execute(sql)
    assert ora_code(exc) == 28115


def test_executemany_under_rls_refuses_foreign_rows_and_keeps_none(acme):
    with pytest.raises(oracledb.DatabaseError) as exc:
        acme.executemany("INSERT INTO kb (id, tenant_id) VALUES (:1, :2)", [(200, "acme"), (201, "globex")])
    assert ora_code(exc) == 28115
    acme.connection.rollback()
    assert rows(acme, "SELECT COUNT(*) FROM kb WHERE id >= 200") == [(0,)]
    acme.executemany("DELETE FROM kb WHERE id = :1", [(3,), (4,), (5,)])
    assert acme.rowcount == 0


def test_ddl_under_rls_index_on_protected_table(secured_path):
    conn = session(secured_path)
    cur = conn.cursor()
    cur.execute("CREATE INDEX kb_tenant_ix ON kb (tenant_id)")
    try:
        assert {r[0] for r in rows(cur, "SELECT tenant_id FROM kb WHERE tenant_id > 'a'")} == {"acme"}
    finally:
        cur.execute("DROP INDEX kb_tenant_ix")
        conn.close()


# ---------------------------------------------------------------------------------------- hybrid vector search
MODEL = "ALL_MINILM_L6_V2"


@pytest.fixture(scope="module")
def hybrid_path(tmp_path_factory):
    """The protected database plus the embedding model and a hybrid vector index on KB.BODY."""
    from tests.security.protected import build
    from workshop import models
    from workshop.embedded import connect
    path = tmp_path_factory.mktemp("hybrid-rls") / "h.db"
    build(path, text_index=False)
    conn = connect(path, busy_timeout=5)
    cur = conn.cursor()
    model = models.ensure_embedding_model()
    cur.execute("BEGIN DBMS_VECTOR.LOAD_ONNX_MODEL(:name, :blob, JSON(:meta)); END;",
                name=MODEL, blob=model.read_bytes(), meta=json.dumps(models.embedding_metadata()))
    cur.execute("BEGIN DBMS_VECTOR_CHAIN.CREATE_PREFERENCE(pref_name => 'KB_PREF', "
                "pref_type => DBMS_VECTOR_CHAIN.VECTORIZER, params => JSON(:p)); END;",
                p=json.dumps({"model": MODEL, "by": "words", "max": 20, "overlap": 0, "split": "none"}))
    cur.execute("CREATE HYBRID VECTOR INDEX kb_hvi ON kb(body) PARAMETERS('VECTORIZER kb_pref')")
    conn.commit()
    conn.close()
    return path


def _spec(**overrides) -> str:
    spec = {"hybrid_index_name": "kb_hvi", "search_text": "shared vector search note of globex initech acme",
            "return": {"topN": 100, "values": ["rowid", "score", "chunk_text"]}}
    spec.update(overrides)
    return json.dumps(spec)


HYBRID_SPECS = {
    "default": {},
    "text-only-fusion": {"search_fusion": "TEXT_ONLY"},
    "vector-only-fusion": {"search_fusion": "VECTOR_ONLY"},
    "union": {"search_fusion": "UNION"},
    "intersect": {"search_fusion": "INTERSECT"},
    "minus-text": {"search_fusion": "MINUS_TEXT"},
    "minus-vector": {"search_fusion": "MINUS_VECTOR"},
    "rerank": {"search_fusion": "RERANK"},
    "rrf": {"search_scorer": "RRF"},
    "chunk-mode": {"search_text": None, "vector": {"search_text": "note of globex", "search_mode": "CHUNK"},
                   "text": {"contains": "globex OR acme"}},
    "chunk-mode-misplaced": {"search_mode": "CHUNK"},
    "keyword-globex": {"search_text": None, "text": {"contains": "globex"}},
    "keyword-only": {"search_text": None, "text": {"search_text": "initech globex"}},
    "vector-only": {"search_text": None, "vector": {"search_text": "note of globex"}},
    "huge-topn": {"return": {"topN": 10000, "values": ["rowid", "chunk_text"]}},
    "schema-qualified-index": {"hybrid_index_name": "WORKSHOP.KB_HVI"},
    "quoted-index": {"hybrid_index_name": '"KB_HVI"'},
}


#: specifications Oracle refuses (ORA-20000): refused here too, never served without the policy
REFUSED_SPECS = {"chunk-mode-misplaced"}


def _chunk_tenants(results) -> set[str]:
    return {t for r in results for t in TENANTS if t in (r.get("chunk_text") or r.get("CHUNK_TEXT") or "")}


@pytest.mark.parametrize("case", sorted(HYBRID_SPECS))
def test_hybrid_search_returns_only_the_sessions_rows(hybrid_path, case):
    overrides = {k: v for k, v in HYBRID_SPECS[case].items() if v is not None}
    spec = json.loads(_spec(**overrides))
    for key, value in HYBRID_SPECS[case].items():
        if value is None:
            spec.pop(key, None)
    conn = session(hybrid_path, "acme")
    cur = conn.cursor()
    acme_rowids = {str(r[0]) for r in rows(cur, "SELECT ROWID FROM kb")}
    try:
        cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(JSON(:spec)) FROM dual", spec=json.dumps(spec))
    except oracledb.DatabaseError as exc:
        assert case in REFUSED_SPECS, f"{case}: {exc}"
        return
    value = cur.fetchone()[0]
    results = json.loads(value.read() if hasattr(value, "read") else value)
    assert {r["rowid"] for r in results} <= acme_rowids, case
    assert _chunk_tenants(results) <= {"acme"}, case
    cur.execute("SELECT doc_rowid, chunk_text FROM DBMS_HYBRID_VECTOR.SEARCHPIPELINE(JSON(:spec))",
                spec=json.dumps(spec))
    piped = cur.fetchall()
    assert {str(r[0]) for r in piped} <= acme_rowids, case
    assert {t for r in piped for t in TENANTS if r[1] and t in str(r[1])} <= {"acme"}, case
    conn.close()


@pytest.mark.parametrize("readonly", [False, True], ids=["read-write", "read-only"])
def test_hybrid_search_finds_the_sessions_rows(hybrid_path, readonly):
    """Not vacuous: the same search under each tenant finds that tenant's rows, and only them (on a read-only
    session too: the search reads, it never writes)."""
    for tenant in TENANTS:
        conn = session(hybrid_path, tenant, readonly=readonly)
        cur = conn.cursor()
        cur.execute("SELECT DBMS_HYBRID_VECTOR.SEARCH(JSON(:spec)) FROM dual", spec=_spec())
        value = cur.fetchone()[0]
        results = json.loads(value.read() if hasattr(value, "read") else value)
        assert results and _chunk_tenants(results) == {tenant}
        conn.close()


def test_model_calls_over_the_protected_table_see_only_the_sessions_rows(hybrid_path):
    conn = session(hybrid_path, "acme")
    cur = conn.cursor()
    found = rows(cur, f"SELECT tenant_id, VECTOR_EMBEDDING({MODEL} USING body AS data) FROM kb "
                      f"ORDER BY VECTOR_DISTANCE(VECTOR_EMBEDDING({MODEL} USING body AS data), "
                      f"VECTOR_EMBEDDING({MODEL} USING 'note of globex' AS data), COSINE)")
    assert found and {r[0] for r in found} == {"acme"}
    conn.close()


@pytest.mark.parametrize("tenant", TENANTS)
def test_vector_top_k_fills_k_from_the_sessions_rows(secured_path, tenant):
    """The approximate top-k reads the vector index over every row, then the policy filters: the engine keeps
    widening its candidates until k of the session's rows are found (never k minus the foreign ones)."""
    conn = session(secured_path, tenant)
    found = rows(conn.cursor(), "SELECT tenant_id FROM kb ORDER BY VECTOR_DISTANCE(emb, TO_VECTOR('[1,0,0.5]'), "
                                "COSINE) FETCH APPROX FIRST 2 ROWS ONLY")
    assert found == [(tenant,), (tenant,)]
    conn.close()
